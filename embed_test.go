package jaws

import (
	"embed"
	"io/fs"
	"testing"
	"unsafe"

	"github.com/jaws-go/jaws/internal/source"
)

//go:embed testdata/embedsite/k100.bin testdata/embedsite/empty.txt
var embeddedProbe embed.FS

// TestEmbedServedInPlace: an embedded file's body in the entry is the
// embedded bytes themselves, not a copy, and nothing of it is counted in the
// cache.
func TestEmbedServedInPlace(t *testing.T) {
	t.Parallel()
	sub, err := fs.Sub(embeddedProbe, "testdata/embedsite")
	must(t, err)
	h, err := NewFS(sub, Options{})
	must(t, err)
	defer h.Close()
	if w := get(h, "/k100.bin"); w.Code != 200 || w.Body.Len() != 100<<10 {
		t.Fatalf("%d, %d bytes", w.Code, w.Body.Len())
	}
	v, ok := h.store.fixed.Load("k100.bin")
	if !ok {
		t.Fatal("no fixed entry")
	}
	info, _ := fs.Stat(sub, "k100.bin")
	b, _ := source.EmbeddedBytes(info)
	if e := v.(*entry); unsafe.SliceData(e.body) != unsafe.SliceData(b) {
		t.Error("the entry holds a copy of the embedded bytes")
	}
	h.store.cache.sync()
	if n := h.Stats().CacheBytes; n != 0 {
		t.Errorf("cache holds %d bytes for embedded files", n)
	}
}
