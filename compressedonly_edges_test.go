package jaws

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestReviewOnlyIdentityRejected: an identity the cache refuses (larger
// than its whole budget: TinyLFU's admission says no) is served, and the
// index does not hold it: memory the cache does not count.
func TestReviewOnlyIdentityRejected(t *testing.T) {
	dir := tempDir(t)
	data := hexText(200<<10, 8)
	must(t, os.WriteFile(filepath.Join(dir, "x.js.br"), encodeAs(brotliCoding, data, ""), 0o644))
	h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1 << 20, CacheMaxBytes: 128 << 10})
	var made atomic.Int64
	testHookDecodeIdentity = func(string) { made.Add(1) }
	defer func() { testHookDecodeIdentity = nil }()
	for i := range 3 {
		if w := testsite.Serve(h, "GET", "/x.js"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), data) {
			t.Fatalf("%d: %d: %d bytes", i, w.Code, w.Body.Len())
		}
		h.store.cache.sync()
		index := h.store.cache.get("x.js")
		if index == nil {
			t.Fatal("no index cached")
		}
		if ve := index.vary.only.mem.Load(); ve != nil {
			t.Fatalf("the index holds an identity of %d bytes the cache refused", len(ve.body))
		}
	}
	if n := made.Load(); n != 3 {
		t.Errorf("identity made %d times, want 3: none kept", n)
	}
}

// TestReviewOnlyIdentityNeverStale: readers ask for a compressed-only
// file's identity while its primary sibling is replaced (renamed over) and
// its identity is evicted; each request sees a version no older than the
// last one written before it began, and a request after a replacement
// sees it. Sizes: whole (the prefix serves) and past the prefix (decoded).
func TestReviewOnlyIdentityNeverStale(t *testing.T) {
	for _, size := range []int{8 << 10, 100 << 10} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			dir := tempDir(t)
			const versions = 30
			datas := make([][]byte, versions)
			for i := range datas {
				datas[i] = hexText(size, uint64(1000+i))
			}
			p := filepath.Join(dir, "x.js.br")
			mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
			write := func(i int) {
				tmp := filepath.Join(dir, "tmp.br")
				must(t, os.WriteFile(tmp, encodeAs(brotliCoding, datas[i], ""), 0o644))
				mt := mtime.Add(time.Duration(i) * time.Second)
				must(t, os.Chtimes(tmp, mt, mt))
				must(t, os.Rename(tmp, p))
			}
			version := func(b []byte) int {
				for i, d := range datas {
					if bytes.Equal(b, d) {
						return i
					}
				}
				return -1
			}
			write(0)
			h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1 << 20})
			var written atomic.Int64 // the last version whose write completed
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						floor := int(written.Load())
						w := testsite.Serve(h, "GET", "/x.js")
						if w.Code != 200 {
							// A file changed while served is a 503 at worst.
							if w.Code != 503 {
								t.Errorf("%d", w.Code)
								return
							}
							continue
						}
						if v := version(w.Body.Bytes()); v < floor {
							t.Errorf("version %d served after version %d was written", v, floor)
							return
						}
					}
				})
			}
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if e := h.store.cache.get("x.js"); e != nil && e.vary.only != nil {
						h.store.forget(e.vary.keys[identity])
					}
					runtime.Gosched()
				}
			})
			for i := 1; i < versions; i++ {
				time.Sleep(5 * time.Millisecond)
				write(i)
				written.Store(int64(i))
				w := testsite.Serve(h, "GET", "/x.js")
				if v := version(w.Body.Bytes()); w.Code == 200 && v != i {
					t.Errorf("right after version %d was written: version %d", i, v)
				}
			}
			close(stop)
			wg.Wait()
		})
	}
}

// TestReviewSiblingNames: a sibling is found under the name of the file it
// compresses (variantState.files), for a plain file and a compressed-only
// one, an index page and a CleanURLs page of each; the coded answer is the
// sibling's and the identity the file.
func TestReviewSiblingNames(t *testing.T) {
	dir := tempDir(t)
	old := time.Now().Add(-time.Hour)
	files := map[string][]byte{}
	put := func(name string, data []byte, plain bool) {
		files[name] = data
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if plain {
			must(t, os.WriteFile(p, data, 0o644))
			must(t, os.Chtimes(p, old, old))
		}
		must(t, os.WriteFile(p+".br", encodeAs(brotliCoding, data, ""), 0o644))
	}
	put("plain/index.html", []byte(strings.Repeat("<p>plain index</p>\n", 100)), true)
	put("only/index.html", []byte(strings.Repeat("<p>only index</p>\n", 100)), false)
	put("page.html", []byte(strings.Repeat("<p>plain page</p>\n", 100)), true)
	put("opage.html", []byte(strings.Repeat("<p>only page</p>\n", 100)), false)
	h := newTestHandler(t, dir, Options{CleanURLs: true, Compression: Compression{DisableCompression: true}})
	for _, tc := range []struct{ target, file string }{
		{"/plain/", "plain/index.html"},
		{"/only/", "only/index.html"},
		{"/page", "page.html"},
		{"/opage", "opage.html"},
	} {
		for range 2 { // built, then a hit
			w := testsite.Serve(h, "GET", tc.target, "Accept-Encoding", "br")
			if w.Code != 200 || w.Header().Get("Content-Encoding") != "br" {
				t.Fatalf("%s in br: %d, Content-Encoding %q", tc.target, w.Code, w.Header().Get("Content-Encoding"))
			}
			if got := decodeAs(t, "br", w.Body.Bytes()); !bytes.Equal(got, files[tc.file]) {
				t.Errorf("%s in br: not %s", tc.target, tc.file)
			}
			w = testsite.Serve(h, "GET", tc.target)
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), files[tc.file]) {
				t.Errorf("%s: %d, not %s", tc.target, w.Code, tc.file)
			}
		}
	}
}

// zstdWideFrame is one zstd frame of content, in raw blocks, whose header
// declares a window of 1<<windowLog bytes.
func zstdWideFrame(content []byte, windowLog int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte((windowLog - 10) << 3)}
	for len(content) > 0 {
		n := min(len(content), 100<<10)
		last := 0
		if n == len(content) {
			last = 1
		}
		h := uint32(last) | uint32(n)<<3
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
		b = append(b, content[:n]...)
		content = content[n:]
	}
	return b
}

// TestReviewDecodesToShared: the sibling check, on the decoder it shares
// with compressed-only files (newDecoder), still takes one gzip member and
// nothing after it, and zstd's window no larger than RFC 9659's; a
// compressed-only file's identity is decoded from every member of its
// gzip primary.
func TestReviewDecodesToShared(t *testing.T) {
	file := hexText(5000, 41)
	members := append(encodeAs(gzipCoding, file[:2000], ""), encodeAs(gzipCoding, file[2000:], "")...)
	trailing := append(encodeAs(gzipCoding, file, ""), encodeAs(gzipCoding, nil, "")...)
	for _, tc := range []struct {
		name  string
		c     coding
		sib   []byte
		stale bool
	}{
		{"gzip, one member", gzipCoding, encodeAs(gzipCoding, file, ""), false},
		{"gzip, two members", gzipCoding, members, true},
		{"gzip, an empty member after", gzipCoding, trailing, true},
		{"zstd, 8 MiB window", zstdCoding, zstdWideFrame(file, 23), false},
		{"zstd, 16 MiB window", zstdCoding, zstdWideFrame(file, 24), true},
	} {
		var n siblingCount
		stale, err := decodesTo(tc.c, bytes.NewReader(tc.sib), file, true, &n)
		if err != nil {
			t.Fatalf("%s: read error %v", tc.name, err)
		}
		if (stale != nil) != tc.stale {
			t.Errorf("%s: stale %v, want stale %v", tc.name, stale, tc.stale)
		}
	}
	for _, size := range []int{5000, 100 << 10} { // whole, and past the prefix
		dir := tempDir(t)
		big := hexText(size, 42)
		half := size / 2
		two := append(encodeAs(gzipCoding, big[:half], ""), encodeAs(gzipCoding, big[half:], "")...)
		must(t, os.WriteFile(filepath.Join(dir, "x.js.gz"), two, 0o644))
		h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1 << 20})
		if w := testsite.Serve(h, "GET", "/x.js"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), big) {
			t.Errorf("%d bytes: identity of a two-member primary: %d, %d bytes", size, w.Code, w.Body.Len())
		}
	}
}

// TestReviewOnlyCorruptTail: a primary sibling whose first bytes decode
// (the index is built) and whose tail does not is a 500, without
// Options.Header's fields, as the other refusals of the identity are.
func TestReviewOnlyCorruptTail(t *testing.T) {
	data := hexText(300<<10, 9)
	stored := encodeAs(gzipCoding, data, "")
	stored = stored[:len(stored)-100]         // the tail cut: an unexpected EOF past the prefix
	for _, max := range []int64{1 << 20, 0} { // decoded into memory, into a spill file
		dir := tempDir(t)
		must(t, os.WriteFile(filepath.Join(dir, "x.js.gz"), stored, 0o644))
		hook := func(_ string, hdr http.Header) { hdr.Set("X-File", "x.js") }
		h := newTestHandler(t, dir, Options{CacheMaxFileSize: max, Header: hook, ErrorLog: log.New(io.Discard, "", 0),
			Compression: Compression{SpillDir: testsite.TempDir(t)}})
		for _, method := range []string{"GET", "HEAD"} {
			w := testsite.Serve(h, method, "/x.js")
			if w.Code != 500 || w.Header().Get("X-File") != "" {
				t.Errorf("max %d, %s: %d, X-File %q; want 500 without the file's fields", max, method, w.Code, w.Header().Get("X-File"))
			}
		}
	}
}

// TestReviewOnlyMemInvariant: whatever the interleaving of requests, of
// the identity dropped and of other files pushing it out of a small cache,
// once all is quiet an identity the index holds is the one the cache holds.
func TestReviewOnlyMemInvariant(t *testing.T) {
	dir := tempDir(t)
	data := hexText(100<<10, 10)
	must(t, os.WriteFile(filepath.Join(dir, "x.js.br"), encodeAs(brotliCoding, data, ""), 0o644))
	for i := range 8 {
		must(t, os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".bin"), hexText(60<<10, uint64(20+i)), 0o644))
	}
	h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1 << 20, CacheMaxBytes: 400 << 10,
		Compression: Compression{DisableCompression: true}})
	for round := range 20 {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 30 {
					switch (g + i) % 3 {
					case 0:
						if w := testsite.Serve(h, "GET", "/x.js"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), data) {
							t.Errorf("%d: %d bytes", w.Code, w.Body.Len())
							return
						}
					case 1:
						testsite.Serve(h, "GET", "/f"+strconv.Itoa((g*7+i)%8)+".bin")
					case 2:
						if e := h.store.cache.get("x.js"); e != nil {
							h.store.forget(e.vary.keys[identity])
						}
					}
				}
			})
		}
		wg.Wait()
		h.store.cache.sync()
		e := h.store.cache.get("x.js")
		if e == nil {
			continue
		}
		if ve := e.vary.only.mem.Load(); ve != nil && h.store.cache.get(e.vary.keys[identity]) != ve {
			t.Fatalf("round %d: the index holds an identity the cache does not", round)
		}
	}
}
