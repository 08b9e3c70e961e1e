package jaws

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Freshness as requests see it; how the source confirms a file (events,
// stat) is internal/source's, and its tests'.

// freshSite is a directory with a small file and an index page, under
// names no other test uses, and its handler.
func freshSite(t *testing.T) (dir, prefix string, h *Handler) {
	t.Helper()
	dir = t.TempDir()
	prefix = uniqueName(t, "")
	must(t, os.MkdirAll(filepath.Join(dir, prefix, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "small.txt"), []byte("small one"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "sub", "index.html"), []byte("index one"), 0o644))
	return dir, prefix, newTestHandler(t, dir, Options{})
}

// TestEventsReadYourWrites: a write followed at once by a request gets the
// new bytes, ETag and Last-Modified, and a 304 for the old ETag is never
// sent, however quickly the writes come: there is no window. Same size
// each time, so only the events (or, without them, the times a stat reads)
// can tell.
func TestEventsReadYourWrites(t *testing.T) {
	t.Parallel()
	dir, p, h := freshSite(t)
	target, file := "/"+p+"/small.txt", filepath.Join(dir, p, "small.txt")
	get(h, target)
	h.store.cache.sync()
	prev := get(h, target).Header().Get("Etag")
	for i := range 200 {
		body := fmt.Sprintf("version %03d", i)
		must(t, os.WriteFile(file, []byte(body), 0o644))
		w := get(h, target)
		if w.Body.String() != body {
			t.Fatalf("write %d: got %q, want %q", i, w.Body.String(), body)
		}
		etag := w.Header().Get("Etag")
		if etag == prev {
			t.Fatalf("write %d: the old ETag %s", i, etag)
		}
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("If-None-Match", prev)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != 200 {
			t.Fatalf("write %d: %d for the old ETag, want 200", i, rec.Code)
		}
		prev = etag
	}
}

// TestEventsMetadataChanges: metadata-only changes are seen by the next
// request too: net/http's TestDirectoryIfNotModified (a later mtime makes
// the old If-Modified-Since a 200), and chmod to unreadable (403).
func TestEventsMetadataChanges(t *testing.T) {
	t.Parallel()
	dir, p, h := freshSite(t)
	target, file := "/"+p+"/sub/", filepath.Join(dir, p, "sub", "index.html")
	first := get(h, target)
	h.store.cache.sync()
	lastMod := first.Header().Get("Last-Modified")
	ims := func() int {
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("If-Modified-Since", lastMod)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	if c := ims(); c != 304 {
		t.Fatalf("before the change: %d, want 304", c)
	}
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(file, later, later))
	if c := ims(); c != 200 {
		t.Errorf("after os.Chtimes(+1h): %d, want 200", c)
	}
}

// TestLinkLoop404sKeepNothing (SECURITY.md, "Bounded memory"): with links
// to the root's own directory (mirrors ship "ubuntu -> ."), every distinct
// path through them is another name, and 3000 404s for such names keep no
// memory: nothing is cached or remembered for a name not found (nor
// watched: internal/source's TestLinkLoop404sWatchNothing).
func TestLinkLoop404sKeepNothing(t *testing.T) {
	// Not parallel: it measures the heap.
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("f"), 0o644))
	must(t, os.Symlink(".", filepath.Join(root, "a")))
	must(t, os.Symlink(".", filepath.Join(root, "b")))
	h, err := New(root, Options{}) // not newTestHandler, whose counts remember every name
	must(t, err)
	t.Cleanup(func() { h.Close() })
	get(h, "/a/b/f.txt")
	names := func(seed, n int) []string {
		out := make([]string, n)
		for i := range out {
			var b strings.Builder
			for j, x := 0, seed*n+i; j < 12; j, x = j+1, x/2 {
				b.WriteString([]string{"/a", "/b"}[x%2])
			}
			fmt.Fprintf(&b, "/missing-%d", seed*n+i)
			out[i] = b.String()
		}
		return out
	}
	flood := func(targets []string) {
		for _, target := range targets {
			if c := get(h, target).Code; c != 404 {
				t.Fatalf("%s: %d, want 404", target, c)
			}
		}
	}
	flood(names(0, 300)) // warm up whatever pools requests use: a tenth of the flood does
	targets := names(1, 3000)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	flood(targets)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("heap after 3000 link-loop 404s: %+d bytes", kept)
	if kept > 64<<10 {
		t.Errorf("3000 link-loop 404s kept %d bytes of heap, want under 64 KiB", kept)
	}
	runtime.KeepAlive(targets)
}
