package jaws

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jaws-go/jaws/internal/source"
)

func TestCacheHitOpensNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		file string
		url  string
	}{
		{"top-level file", uniqueName(t, ".txt"), ""},
		{"nested file", "sub/" + uniqueName(t, ".css"), ""},
		{"directory index", uniqueName(t, "") + "/index.html", "dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(dir, tt.file)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, []byte("cached body"), 0o644))
			h := newTestHandler(t, dir, Options{})
			url := "/" + tt.file
			if tt.url == "dir" {
				url = "/" + filepath.Dir(tt.file) + "/"
			}
			if w := get(h, url); w.Code != 200 || w.Body.String() != "cached body" {
				t.Fatalf("first GET: %d %q", w.Code, w.Body)
			}
			h.store.cache.sync()
			before := openCount(tt.file)
			for range 50 {
				if w := get(h, url); w.Code != 200 || w.Body.String() != "cached body" {
					t.Fatalf("GET: %d %q", w.Code, w.Body)
				}
			}
			if n := openCount(tt.file) - before; n != 0 {
				t.Errorf("50 hits opened the file %d times, want 0", n)
			}
			if s := h.Stats(); s.CacheHits < 50 || s.Memory.Responses < 51 {
				t.Errorf("stats %+v: want >= 50 hits and 51 memory responses", s)
			}
		})
	}
}

// TestCacheFreshness: by default a changed, replaced or deleted file is seen
// by the very next request; with Revalidate, only once the interval passed.
func TestCacheFreshness(t *testing.T) {
	t.Parallel()
	change := map[string]func(t *testing.T, p string){
		"rewritten": func(t *testing.T, p string) {
			must(t, os.WriteFile(p, []byte("new content, longer"), 0o644))
		},
		"same size and mtime, replaced by rename": func(t *testing.T, p string) {
			info, err := os.Stat(p)
			must(t, err)
			tmp := p + ".tmp"
			must(t, os.WriteFile(tmp, []byte("NEW"), 0o644))
			must(t, os.Chtimes(tmp, info.ModTime(), info.ModTime()))
			must(t, os.Rename(tmp, p))
		},
		"deleted": func(t *testing.T, p string) { must(t, os.Remove(p)) },
	}
	for _, size := range []struct {
		name string
		max  int64
	}{{"memory", 0}, {"disk", -1}} {
		for what, do := range change {
			// -1: a stat per hit; 0: file system events, seen by the
			// next request; an hour: trusted that long.
			for _, revalidate := range []time.Duration{-1, 0, time.Hour} {
				name := fmt.Sprintf("%s/%s/revalidate=%v", size.name, what, revalidate)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					p := filepath.Join(dir, "f.txt")
					must(t, os.WriteFile(p, []byte("old"), 0o644))
					h := newTestHandler(t, dir, Options{CacheMaxFileSize: size.max, Revalidate: revalidate})
					var clock atomic.Int64
					clock.Store(time.Now().UnixNano())
					h.store.cache.now = clock.Load
					first := get(h, "/f.txt")
					h.store.cache.sync()
					do(t, p)
					w := get(h, "/f.txt")
					stale := w.Code == 200 && w.Body.String() == "old"
					if stale && w.Header().Get("Etag") != first.Header().Get("Etag") {
						t.Errorf("old body with a new ETag")
					}
					// Only a body in memory may be trusted without a check
					// (a file sent from disk is checked on the descriptor
					// it is sent from), and only within Revalidate > 0:
					// events see a change at once.
					wantStale := revalidate > 0 && size.max == 0
					if stale != wantStale {
						t.Fatalf("after the change: %d %q (stale %v, want stale %v)", w.Code, w.Body, stale, wantStale)
					}
					clock.Add(int64(revalidate) + 1)
					if w := get(h, "/f.txt"); w.Code == 200 && w.Body.String() == "old" {
						t.Errorf("still stale after the interval")
					}
				})
			}
		}
	}
}

// TestCacheBound churns many files through a small cache from many
// goroutines: what the cache holds never exceeds CacheMaxBytes.
func TestCacheBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const files, maxBytes = 200, 128 << 10
	for i := range files {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.bin", i)), randomBytes(1+i*97%(16<<10)), 0o644))
	}
	h := newTestHandler(t, dir, Options{CacheMaxBytes: maxBytes, CacheMaxFileSize: 32 << 10})
	for round := range 5 {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range files {
					n := (i*7 + g*31 + round*13) % files
					if w := get(h, fmt.Sprintf("/%d.bin", n)); w.Code != 200 {
						t.Errorf("%d.bin: %d", n, w.Code)
					}
				}
			})
		}
		wg.Wait()
		h.store.cache.sync()
		if held := h.Stats().CacheBytes; held > maxBytes || held <= 0 {
			t.Fatalf("round %d: cache holds %d bytes, bound %d", round, held, maxBytes)
		}
	}
	if s := h.Stats(); s.CacheEvictions == 0 {
		t.Errorf("no evictions churning %d files through %d bytes: %+v", files, maxBytes, s)
	}
}

// TestCacheAdmissionKeepsHotSet: a scan of one-off names after a hot set
// was established does not evict most of the hot set (TinyLFU).
//
// Not parallel: ristretto counts accesses in lossy pooled buffers, which the
// garbage collection of concurrent tests empties, so it runs alone.
func TestCacheAdmissionKeepsHotSet(t *testing.T) {
	if raceEnabled {
		t.Skip("access counts are lossy under -race (see race_test.go); run without -race")
	}
	dir := t.TempDir()
	prefix := uniqueName(t, "")
	const hot, cold, size = 20, 400, 4 << 10
	files := map[string][]byte{}
	for i := range hot + cold {
		files[fmt.Sprintf("%s-%d", prefix, i)] = randomBytes(size)
	}
	writeFiles(t, dir, files)
	// Room for the hot set and a little more.
	h := newTestHandler(t, dir, Options{CacheMaxBytes: (hot + 10) * (size + 1024)})
	// Ristretto drops a batch of access counts whenever its policy
	// goroutine is behind (a loaded machine): enough rounds that the hot
	// set's counts survive some of them lost.
	for range 100 {
		for i := range hot {
			get(h, fmt.Sprintf("/%s-%d", prefix, i))
		}
		h.store.cache.sync()
	}
	for i := hot; i < hot+cold; i++ {
		get(h, fmt.Sprintf("/%s-%d", prefix, i))
	}
	h.store.cache.sync()
	kept := 0
	for i := range hot {
		name := fmt.Sprintf("%s-%d", prefix, i)
		before := openCount(name)
		get(h, "/"+name)
		if openCount(name) == before {
			kept++
		}
	}
	if kept < hot*8/10 {
		t.Errorf("only %d of %d hot files survived a scan of %d one-off files", kept, hot, cold)
	}
}

// TestCacheBudgetsApart: files sent from disk count in a budget of their
// own, in files, so that many of them push no small body out of the byte
// budget, and no more of them are kept (with their descriptors) than
// CacheMaxFiles. On the one budget this replaced, each counted 64 KiB of
// bytes: 600 of them would have taken the bodies' room many times over.
//
// Not parallel: like TestCacheAdmissionKeepsHotSet, it depends on
// ristretto's lossy access counts.
func TestCacheBudgetsApart(t *testing.T) {
	if raceEnabled {
		t.Skip("access counts are lossy under -race (see race_test.go); run without -race")
	}
	dir := t.TempDir()
	const small, large, maxFiles = 40, 600, 64
	files := map[string][]byte{}
	for i := range small {
		files[fmt.Sprintf("s%d.bin", i)] = randomBytes(2 << 10)
	}
	for i := range large {
		files[fmt.Sprintf("l%d.bin", i)] = randomBytes(8 << 10)
	}
	writeFiles(t, dir, files)
	h := newTestHandler(t, dir, Options{CacheMaxFileSize: 4 << 10, CacheMaxBytes: small * (4 << 10),
		CacheMaxFiles: maxFiles})
	for range 10 {
		for i := range small {
			get(h, fmt.Sprintf("/s%d.bin", i))
		}
		h.store.cache.sync()
	}
	for round := range 3 {
		for i := range large {
			if w := get(h, fmt.Sprintf("/l%d.bin", i)); w.Code != 200 || w.Body.Len() != 8<<10 {
				t.Fatalf("round %d, l%d.bin: %d, %d bytes", round, i, w.Code, w.Body.Len())
			}
		}
		h.store.cache.sync()
	}
	kept := 0
	for i := range small {
		name := fmt.Sprintf("s%d.bin", i)
		before := openCount(name)
		get(h, "/"+name)
		if openCount(name) == before {
			kept++
		}
	}
	if kept < small*9/10 {
		t.Errorf("%d of %d small files still in memory after %d large ones were served three times", kept, small, large)
	}
	if s := h.Stats(); s.CacheFiles > maxFiles || s.CacheFiles == 0 {
		t.Errorf("the cache keeps %d files sent from disk, want 1 to CacheMaxFiles (%d)", s.CacheFiles, maxFiles)
	}
	if n := len(openFilesUnder(t, dir)); n > maxFiles+2 {
		t.Errorf("%d descriptors open into the root, want at most CacheMaxFiles (%d) and the root's own", n, maxFiles)
	}
}

// TestCacheETagMatchesDisk: the same bytes get the same ETag from memory and
// from disk when a digest sibling gives the disk copy its content hash;
// without one, the disk copy's ETag is its metadata's.
func TestCacheETagMatchesDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := randomBytes(10 << 10)
	must(t, os.WriteFile(filepath.Join(dir, "x.bin"), body, 0o644))
	info, err := os.Stat(filepath.Join(dir, "x.bin"))
	must(t, err)
	meta := metaETag(info.Size(), info.ModTime())
	sum := sha256.Sum256(body)
	sibling := hex.EncodeToString(sum[:]) + "  x.bin\n"
	for _, c := range []struct {
		name    string
		opts    Options
		sibling bool
		want    string
	}{
		{"memory", Options{}, false, etagOfBytes(body)},
		{"memory-sibling-unused", Options{}, true, etagOfBytes(body)},
		{"disk", Options{CacheMaxFileSize: -1}, false, meta},
		{"disk-sibling", Options{CacheMaxFileSize: -1}, true, etagOfBytes(body)},
		{"no-cache", Options{CacheMaxBytes: -1}, false, meta},
		{"no-cache-sibling", Options{CacheMaxBytes: -1}, true, etagOfBytes(body)},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			must(t, os.WriteFile(filepath.Join(d, "x.bin"), body, 0o644))
			must(t, os.Chtimes(filepath.Join(d, "x.bin"), info.ModTime(), info.ModTime()))
			if c.sibling {
				must(t, os.WriteFile(filepath.Join(d, "x.bin.sha256"), []byte(sibling), 0o644))
			}
			h := newTestHandler(t, d, c.opts)
			w := get(h, "/x.bin")
			if !bytes.Equal(w.Body.Bytes(), body) {
				t.Fatalf("body differs")
			}
			if got := w.Header().Get("Etag"); got != c.want {
				t.Errorf("ETag %s, want %s", got, c.want)
			}
		})
	}
}

// TestCacheConcurrent mixes hits, misses, ranges and rewrites from many
// goroutines; under -race it proves the shared entries are safe. Every body
// must be one of the versions the file had.
func TestCacheConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	versions := [][]byte{bytes.Repeat([]byte("a"), 3000), bytes.Repeat([]byte("b"), 5000)}
	p := filepath.Join(dir, "v.txt")
	must(t, os.WriteFile(p, versions[0], 0o644))
	h := newTestHandler(t, dir, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			tmp := fmt.Sprintf("%s.%d", p, i)
			if err := os.WriteFile(tmp, versions[i%2], 0o644); err != nil {
				t.Error(err)
				return
			}
			os.Rename(tmp, p)
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 100 {
				resp, err := srv.Client().Get(srv.URL + "/v.txt")
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
					t.Errorf("body of %d bytes is no version of the file", len(b))
					return
				}
			}
		})
	}
	wg.Wait()
}

// oneByteFile is the metadata of a new one-byte file, for entries the cache
// tests make by hand.
func oneByteFile(t *testing.T) fs.FileInfo {
	p := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(p, []byte("x"), 0o644))
	info, err := os.Stat(p)
	must(t, err)
	return info
}

// TestCacheBuildShared: concurrent first requests for one file share a single
// build (one hash of a large file), and all get its entry.
func TestCacheBuildShared(t *testing.T) {
	t.Parallel()
	info := oneByteFile(t)
	synctest.Test(t, func(t *testing.T) {
		c := &cache{now: unixNano, flights: make(map[string]*flight)} // no ristretto: put is a no-op
		want := &entry{Ref: source.Ref{Info: info, Ver: source.VersionOf(info)}}
		release := make(chan struct{})
		var builds atomic.Int32
		got := make([]*entry, 8)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				got[i], _ = c.build("f", info, putAsync, func() (*entry, error) {
					builds.Add(1)
					<-release
					return want, nil
				})
			})
		}
		synctest.Wait() // the first build waits for release, every other request for it
		close(release)
		wg.Wait()
		if n := builds.Load(); n != 1 {
			t.Errorf("%d builds for %d concurrent requests, want 1", n, len(got))
		}
		for i, e := range got {
			if e != want {
				t.Errorf("request %d got another entry", i)
			}
		}
	})
}

// TestCacheBuildVisibleOnce: a variant's build (putVisible) that starts
// just after another ended, by a request that missed before the first was
// in the cache, takes the cached entry instead of making it again; a file's
// own build (putAsync) does not look, since rebuilding it is cheap.
func TestCacheBuildVisibleOnce(t *testing.T) {
	t.Parallel()
	info := oneByteFile(t)
	for _, c := range []struct {
		name   string
		put    putMode
		builds int32
	}{
		{"variant", putVisible, 1},
		{"file", putAsync, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cache, err := newCache(1<<20, 16, 0)
			must(t, err)
			defer cache.close()
			var builds atomic.Int32
			newEntry := func() (*entry, error) {
				builds.Add(1)
				return &entry{Ref: source.Ref{Info: info, Ver: source.VersionOf(info)}, body: []byte("x")}, nil
			}
			first, err := cache.build("k", info, c.put, newEntry)
			must(t, err)
			cache.sync()
			second, err := cache.build("k", info, c.put, newEntry)
			must(t, err)
			if n := builds.Load(); n != c.builds {
				t.Errorf("%d builds for two requests one after the other, want %d", n, c.builds)
			}
			if c.put == putVisible && second != first {
				t.Errorf("the second request got another entry than the cached one")
			}
		})
	}
}
