package jaws

import (
	"bytes"
	"embed"
	"io/fs"
	"testing"
	"testing/fstest"
	"unsafe"
)

//go:embed testdata/embedsite/k100.bin testdata/embedsite/empty.txt
var embeddedProbe embed.FS

// TestEmbeddedBytesLayout guards the one assumption about embed: an
// embedded file's FileInfo is the file itself, holding its bytes as a
// string. If a Go release changes that, this fails here, and users would
// only lose the saving (embeddedBytes reports false and the bytes are
// copied).
func TestEmbeddedBytesLayout(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"testdata/embedsite/k100.bin", "testdata/embedsite/empty.txt"} {
		info, err := fs.Stat(embeddedProbe, name)
		must(t, err)
		b, ok := embeddedBytes(info)
		if !ok {
			t.Fatalf("%s: embedded bytes not found: embed's layout changed", name)
		}
		want, err := embeddedProbe.ReadFile(name)
		must(t, err)
		if !bytes.Equal(b, want) || b == nil {
			t.Errorf("%s: %d bytes, want %d", name, len(b), len(want))
		}
	}
	other, _ := fs.Stat(fstest.MapFS{"a": {Data: []byte("x")}}, "a")
	if _, ok := embeddedBytes(other); ok {
		t.Error("a MapFS file taken for an embedded one")
	}
}

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
	b, _ := embeddedBytes(info)
	if e := v.(*entry); unsafe.SliceData(e.body) != unsafe.SliceData(b) {
		t.Error("the entry holds a copy of the embedded bytes")
	}
	h.store.cache.sync()
	if n := h.Stats().CacheBytes; n != 0 {
		t.Errorf("cache holds %d bytes for embedded files", n)
	}
}
