package jaws

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/jaws-go/jaws/internal/testsite"
)

// TestReviewOnlyIdentityKeepsNoIndex: a compressed-only file's identity in
// memory, cached, must not keep its index's state (its decoded prefix, up
// to siblingPrefix bytes) alive once the index has left the cache: the
// identity's cost counts its own body, not the prefix, so every such
// identity would hold up to 64 KiB the byte budget does not count.
func TestReviewOnlyIdentityKeepsNoIndex(t *testing.T) {
	dir := tempDir(t)
	data := hexText(200<<10, 7) // past siblingPrefix: the prefix is not the body
	must(t, os.WriteFile(filepath.Join(dir, "x.js.br"), encodeAs(brotliCoding, data, ""), 0o644))
	h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1 << 20})
	if w := testsite.Serve(h, "GET", "/x.js"); !bytes.Equal(w.Body.Bytes(), data) {
		t.Fatalf("%d: %d bytes", w.Code, w.Body.Len())
	}
	h.store.cache.sync()
	key, only := func() (string, weak.Pointer[onlyState]) {
		index := h.store.cache.get("x.js")
		if index == nil || index.vary.only == nil {
			t.Fatal("no index cached")
		}
		if len(index.vary.only.prefix) != siblingPrefix {
			t.Fatalf("prefix of %d bytes", len(index.vary.only.prefix))
		}
		return index.vary.keys[identity], weak.Make(index.vary.only)
	}()
	if ve := h.store.cache.get(key); ve == nil || ve.body == nil {
		t.Fatal("the identity is not cached in memory")
	}
	h.store.forget("x.js") // the index leaves the cache (evicted, say)
	for range 3 {
		runtime.GC()
	}
	if h.store.cache.get(key) == nil {
		t.Fatal("the identity left the cache too")
	}
	if only.Value() != nil {
		t.Errorf("the cached identity keeps its evicted index's state alive: %d bytes of prefix the cache does not count",
			len(only.Value().prefix))
	}
}
