package jaws

import (
	"bytes"
	"crypto/sha256"
	"io"
	"io/fs"
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
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws/internal/testsite"
)

// onlySite is a build shipped compressed-only: each file only as its
// siblings, in every coding (app.js, index.html), or some (style.css only
// as .gz), and large ones (big.js, decoded past memory; bigger.js, past
// ZeroCopyMinSize).
type onlySite struct {
	root  string
	files map[string][]byte // the plain files, as a client decodes them
	mtime time.Time
}

func newOnlySite(t *testing.T) *onlySite {
	t.Helper()
	s := &onlySite{root: tempDir(t), files: map[string][]byte{
		"app.js":          hexText(20<<10, 1),
		"index.html":      []byte("<!doctype html><title>compressed only</title><p>hello</p>\n"),
		"style.css":       bytes.Repeat([]byte("body { color: #222; }\n"), 100),
		"big.js":          hexText(300<<10, 2),
		"bigger.js":       hexText(1300<<10, 3),
		"docs/index.html": []byte("<!doctype html><title>docs</title>\n"),
	}, mtime: time.Now().Add(-time.Hour).Truncate(time.Second)}
	for name, data := range s.files {
		codings := []coding{brotliCoding, zstdCoding, gzipCoding}
		if name == "style.css" {
			codings = []coding{gzipCoding}
		}
		for _, c := range codings {
			s.write(t, name+codingExts[c], encodeAs(c, data, ""))
		}
	}
	return s
}

func (s *onlySite) write(t *testing.T, name string, data []byte) {
	t.Helper()
	p := filepath.Join(s.root, filepath.FromSlash(name))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, data, 0o644))
	must(t, os.Chtimes(p, s.mtime, s.mtime))
}

// onlyHandlers is the site served by New, and by NewFS over a MapFS of its
// files, with spill files in a directory of the test's.
func (s *onlySite) handlers(t *testing.T, o Options) map[string]*Handler {
	t.Helper()
	if o.Compression.SpillDir == "" {
		o.Compression.SpillDir = testsite.TempDir(t)
	}
	m := fstest.MapFS{}
	filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(s.root, p)
			m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b, ModTime: s.mtime, Mode: 0o644}
		}
		return nil
	})
	fsh, err := NewFS(m, o)
	must(t, err)
	t.Cleanup(func() { fsh.Close() })
	return map[string]*Handler{"New": newTestHandler(t, s.root, o), "NewFS": fsh}
}

func TestCompressedOnly(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	for kind, h := range site.handlers(t, Options{}) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			for _, name := range []string{"app.js", "style.css", "big.js", "bigger.js"} {
				want := site.files[name]
				// A client that takes a stored coding: the sibling as it is.
				for _, c := range []coding{brotliCoding, zstdCoding, gzipCoding} {
					if name == "style.css" && c != gzipCoding {
						continue
					}
					w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String())
					stored, _ := os.ReadFile(filepath.Join(site.root, name+codingExts[c]))
					if w.Code != 200 || w.Header().Get("Content-Encoding") != c.String() || !bytes.Equal(w.Body.Bytes(), stored) {
						t.Fatalf("%s %v: %d, Content-Encoding %q, %d bytes; want the sibling", name, c, w.Code,
							w.Header().Get("Content-Encoding"), w.Body.Len())
					}
					checkOnlyHeaders(t, name, w.Header())
				}
				// Any other: the file decoded, with its own length and ETag.
				w := testsite.Serve(h, "GET", "/"+name)
				if w.Code != 200 || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), want) {
					t.Fatalf("%s identity: %d, Content-Encoding %q, %d bytes; want %d decoded", name, w.Code,
						w.Header().Get("Content-Encoding"), w.Body.Len(), len(want))
				}
				checkOnlyHeaders(t, name, w.Header())
				sum := sha256.Sum256(want)
				etag := w.Header().Get("Etag")
				if etag != formatETag(sum[:]) || w.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
					t.Errorf("%s identity: ETag %s, Content-Length %s; want the content's %s and %d", name, etag,
						w.Header().Get("Content-Length"), formatETag(sum[:]), len(want))
				}
				if lm := w.Header().Get("Last-Modified"); lm != site.mtime.UTC().Format(http.TimeFormat) && kind == "New" {
					t.Errorf("%s identity: Last-Modified %s, want the sibling's", name, lm)
				}
				if w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", "identity"); !bytes.Equal(w.Body.Bytes(), want) {
					t.Errorf("%s: Accept-Encoding identity: %d bytes", name, w.Body.Len())
				}
				// HEAD, conditionals and ranges, of the identity.
				if w := testsite.Serve(h, "HEAD", "/"+name); w.Code != 200 || w.Body.Len() != 0 ||
					w.Header().Get("Content-Length") != strconv.Itoa(len(want)) || w.Header().Get("Etag") != etag {
					t.Errorf("%s HEAD: %d, %d bytes, Content-Length %s, ETag %s", name, w.Code, w.Body.Len(),
						w.Header().Get("Content-Length"), w.Header().Get("Etag"))
				}
				if w := testsite.Serve(h, "GET", "/"+name, "If-None-Match", etag); w.Code != 304 {
					t.Errorf("%s If-None-Match: %d, want 304", name, w.Code)
				}
				w = testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", "br, gzip", "Range", "bytes=100-199")
				if w.Code != 206 || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), want[100:200]) {
					t.Errorf("%s range: %d, Content-Encoding %q, %d bytes; want the file's", name, w.Code,
						w.Header().Get("Content-Encoding"), w.Body.Len())
				}
				w = testsite.Serve(h, "GET", "/"+name, "Range", "bytes=0-9,1000-1009")
				if w.Code != 206 || !strings.HasPrefix(w.Header().Get("Content-Type"), "multipart/byteranges") {
					t.Errorf("%s ranges: %d %q", name, w.Code, w.Header().Get("Content-Type"))
				}
			}
			// A directory's index page, compressed only.
			for _, p := range []string{"/", "/docs/"} {
				w := testsite.Serve(h, "GET", p)
				if want := site.files[strings.TrimPrefix(p, "/")+"index.html"]; w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
					t.Errorf("%s: %d, %q", p, w.Code, w.Body.Bytes())
				}
			}
			if w := testsite.Serve(h, "GET", "/docs"); w.Code != 301 || w.Header().Get("Location") != "docs/" {
				t.Errorf("/docs: %d %q, want a redirect to docs/", w.Code, w.Header().Get("Location"))
			}
			if w := testsite.Serve(h, "GET", "/index.html"); w.Code != 301 {
				t.Errorf("/index.html: %d, want a redirect to ./", w.Code)
			}
			// The siblings are still served under their own names.
			if w := testsite.Serve(h, "GET", "/app.js.br"); w.Code != 200 || w.Header().Get("Content-Encoding") != "" {
				t.Errorf("/app.js.br: %d, Content-Encoding %q", w.Code, w.Header().Get("Content-Encoding"))
			}
			if w := testsite.Serve(h, "GET", "/missing.js"); w.Code != 404 {
				t.Errorf("/missing.js: %d", w.Code)
			}
		})
	}
}

func checkOnlyHeaders(t *testing.T, name string, hdr http.Header) {
	t.Helper()
	wantType := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[filepath.Ext(name)]
	if got := hdr.Get("Content-Type"); got != wantType {
		t.Errorf("%s: Content-Type %q, want %q", name, got, wantType)
	}
	if countAE(hdr) != 1 {
		t.Errorf("%s: Vary %q", name, hdr.Values("Vary"))
	}
}

// TestCompressedOnlyZeroCopy: a large identity, spilled, goes zero-copy as
// a file from disk does.
func TestCompressedOnlyZeroCopy(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{Compression: Compression{SpillDir: testsite.TempDir(t)}})
	s := testsite.Start(t, testsite.HTTP1, h)
	for range 2 {
		resp, body := s.Get(t, "/bigger.js")
		if resp.StatusCode != 200 || !bytes.Equal(body, site.files["bigger.js"]) {
			t.Fatalf("%d, %d bytes", resp.StatusCode, len(body))
		}
	}
	s.Get(t, "/app.js") // every earlier response counted
	if n := h.Stats().ZeroCopy.Responses; n != 2 {
		t.Errorf("%d zero-copy responses, want 2", n)
	}
}

// TestCompressedOnlyOncePerVersion: the identity is made once per version
// of the primary sibling, however many requests ask at once, and again
// once it changed.
func TestCompressedOnlyOncePerVersion(t *testing.T) {
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{Compression: Compression{SpillDir: testsite.TempDir(t)}})
	var made atomic.Int64
	testHookDecodeIdentity = func(string) { made.Add(1) }
	defer func() { testHookDecodeIdentity = nil }()
	for _, name := range []string{"app.js", "big.js"} {
		made.Store(0)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if w := testsite.Serve(h, "GET", "/"+name); !bytes.Equal(w.Body.Bytes(), site.files[name]) {
					t.Errorf("%s: %d bytes", name, w.Body.Len())
				}
			})
		}
		wg.Wait()
		for range 5 {
			testsite.Serve(h, "GET", "/"+name, "Range", "bytes=1-2")
			testsite.Serve(h, "HEAD", "/"+name)
		}
		h.store.cache.sync()
		if n := made.Load(); n != 1 {
			t.Errorf("%s: identity made %d times, want once", name, n)
		}
		// A client that takes br decodes nothing whole.
		made.Store(0)
		testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", "br")
		if n := made.Load(); n != 0 {
			t.Errorf("%s: a br request made the identity %d times", name, n)
		}
	}
	// A new version of the primary: made once more.
	made.Store(0)
	newer := hexText(20<<10, 99)
	site.mtime = site.mtime.Add(time.Minute)
	site.write(t, "app.js.br", encodeAs(brotliCoding, newer, ""))
	for range 3 {
		if w := testsite.Serve(h, "GET", "/app.js"); !bytes.Equal(w.Body.Bytes(), newer) {
			t.Fatalf("after the change: %d bytes, not the new file", w.Body.Len())
		}
	}
	if n := made.Load(); n != 1 {
		t.Errorf("identity of the new version made %d times, want once", n)
	}
}

// TestCompressedOnlyFreshness: never stale, as for any file. A plain file
// that appears wins at once; a sibling replaced, added or deleted is seen by
// the next request.
func TestCompressedOnlyFreshness(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{Compression: Compression{SpillDir: testsite.TempDir(t)}})
	get := func(ae string) []byte {
		w := testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", ae)
		if w.Code != 200 {
			t.Fatalf("%d", w.Code)
		}
		if enc := w.Header().Get("Content-Encoding"); enc != "" {
			return decodeAs(t, enc, w.Body.Bytes())
		}
		return w.Body.Bytes()
	}
	get("br")
	get("")
	plain := []byte("the plain file, now\n")
	must(t, os.WriteFile(filepath.Join(site.root, "app.js"), plain, 0o644))
	if got := get(""); !bytes.Equal(got, plain) {
		t.Errorf("a plain file written: %q, want it", got[:min(len(got), 40)])
	}
	must(t, os.Remove(filepath.Join(site.root, "app.js")))
	if got := get(""); !bytes.Equal(got, site.files["app.js"]) {
		t.Errorf("the plain file deleted again: %d bytes, want the compressed-only file", len(got))
	}
	for _, c := range []string{".br", ".zst", ".gz"} {
		must(t, os.Remove(filepath.Join(site.root, "app.js"+c)))
	}
	if w := testsite.Serve(h, "GET", "/app.js"); w.Code != 404 {
		t.Errorf("every sibling deleted: %d, want 404", w.Code)
	}
	newer := hexText(8<<10, 7)
	site.write(t, "app.js.gz", encodeAs(gzipCoding, newer, ""))
	if got := get(""); !bytes.Equal(got, newer) {
		t.Errorf("a sibling written: %d bytes, want the new file", len(got))
	}
}

// TestCompressedOnlySiblingsDisagree: the newest sibling is the file; one
// that disagrees with it is ignored and logged, so one URL never has two
// contents.
func TestCompressedOnlySiblingsDisagree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		older bool // the stale sibling is older
	}{{"older", true}, {"same mtime", false}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := newOnlySite(t)
			stale := hexText(20<<10, 55)
			site.write(t, "app.js.gz", encodeAs(gzipCoding, stale, ""))
			if tc.older {
				p := filepath.Join(site.root, "app.js.gz")
				must(t, os.Chtimes(p, site.mtime.Add(-time.Minute), site.mtime.Add(-time.Minute)))
			}
			var logged testsite.SyncBuffer
			h := newTestHandler(t, site.root, Options{ErrorLog: log.New(&logged, "", 0)})
			for _, ae := range []string{"gzip", "br", "zstd", ""} {
				w := testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", ae)
				body := w.Body.Bytes()
				if enc := w.Header().Get("Content-Encoding"); enc != "" {
					body = decodeAs(t, enc, body)
				}
				if !bytes.Equal(body, site.files["app.js"]) {
					t.Errorf("Accept-Encoding %q: Content-Encoding %q, not the file", ae, w.Header().Get("Content-Encoding"))
				}
			}
			if !strings.Contains(logged.String(), "app.js.gz") {
				t.Errorf("the stale sibling was not logged: %q", logged.String())
			}
		})
	}
}

// TestCompressedOnlyBombs: an identity past the bounds is refused, never
// decoded without bound, and the stored coding is still served.
func TestCompressedOnlyBombs(t *testing.T) {
	t.Parallel()
	zeros := make([]byte, 8<<20)
	text := hexText(600<<10, 1)
	tests := []struct {
		name     string
		file     []byte // what the sibling decodes to
		c        coding
		opts     Compression
		cacheMax int64  // Options.CacheMaxFileSize
		other    []byte // another compressed-only file's identity, made first
		status   int
	}{
		{"ratio", zeros, brotliCoding, Compression{}, 0, nil, 406},
		{"ratio, gzip", zeros, gzipCoding, Compression{}, 0, nil, 406},
		{"ratio, memory holds more", zeros, brotliCoding, Compression{}, 16 << 20, nil, 406},
		{"size", text, zstdCoding, Compression{DecodeMaxSize: 512 << 10}, 0, nil, 406},
		{"size, memory holds more", text, zstdCoding, Compression{DecodeMaxSize: 512 << 10}, 1 << 20, nil, 406},
		{"size, small", hexText(4<<10, 1), zstdCoding, Compression{DecodeMaxSize: 1 << 10}, 0, nil, 406},
		{"no identity", hexText(4<<10, 1), gzipCoding, Compression{DecodeMaxSize: -1}, 0, nil, 406},
		{"within both", text, zstdCoding, Compression{}, 0, nil, 200},
		{"no spill files", text, gzipCoding, Compression{SpillMaxBytes: -1}, 0, nil, 406},
		{"larger than the spill budget", text, gzipCoding, Compression{SpillMaxBytes: 100 << 10}, 0, nil, 406},
		{"spill budget used", text, gzipCoding, Compression{SpillMaxBytes: 1 << 20}, 0, hexText(600<<10, 2), 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			stored := encodeAs(tc.c, tc.file, "")
			must(t, os.WriteFile(filepath.Join(dir, "x.json"+codingExts[tc.c]), stored, 0o644))
			if tc.other != nil {
				must(t, os.WriteFile(filepath.Join(dir, "y.json.gz"), encodeAs(gzipCoding, tc.other, ""), 0o644))
			}
			o := tc.opts
			o.SpillDir = testsite.TempDir(t)
			hook := func(_ string, hdr http.Header) { hdr.Set("X-File", "x.json") }
			h := newTestHandler(t, dir, Options{Compression: o, Header: hook, CacheMaxFileSize: tc.cacheMax,
				ErrorLog: log.New(io.Discard, "", 0)})
			if tc.other != nil {
				if w := testsite.Serve(h, "GET", "/y.json"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), tc.other) {
					t.Fatalf("the other file: %d, %d bytes", w.Code, w.Body.Len())
				}
			}
			w := testsite.Serve(h, "GET", "/x.json")
			if w.Code != tc.status {
				t.Fatalf("identity: %d (%d bytes), want %d", w.Code, w.Body.Len(), tc.status)
			}
			// Options.Header's fields are the file's answer's, not an error's.
			if got, want := w.Header().Get("X-File") != "", tc.status == 200; got != want {
				t.Errorf("%d with the file's fields: %v, want %v", w.Code, got, want)
			}
			if tc.status == 503 && w.Header().Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
			if tc.status == 200 && !bytes.Equal(w.Body.Bytes(), tc.file) {
				t.Errorf("identity: %d bytes, not the file's", w.Body.Len())
			}
			w = testsite.Serve(h, "GET", "/x.json", "Accept-Encoding", tc.c.String())
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), stored) {
				t.Errorf("the stored coding: %d, %d bytes", w.Code, w.Body.Len())
			}
		})
	}
}

// TestCompressedOnlySpilledHit: a hit of an identity in a spill file is
// one cache lookup, the index's: it counts no cache miss and opens
// nothing.
func TestCompressedOnlySpilledHit(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{Compression: Compression{SpillDir: testsite.TempDir(t)}})
	get := func() {
		t.Helper()
		w := testsite.Serve(h, "GET", "/big.js")
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), site.files["big.js"]) {
			t.Fatalf("%d, %d bytes", w.Code, w.Body.Len())
		}
	}
	get()
	h.store.cache.sync()
	st, opened := h.Stats(), openCount("big.js.br")
	for range 3 {
		get()
	}
	if n := h.Stats().CacheMisses - st.CacheMisses; n != 0 {
		t.Errorf("3 hits of a spilled identity counted %d cache misses, want none", n)
	}
	if n := openCount("big.js.br") - opened; n != 0 {
		t.Errorf("3 hits of a spilled identity opened its sibling %d times", n)
	}
}

// TestCompressedOnlyIndexCost: the cache counts the decoded prefix a
// compressed-only file's index holds.
func TestCompressedOnlyIndexCost(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{})
	testsite.Serve(h, "GET", "/big.js", "Accept-Encoding", "br")
	h.store.cache.sync()
	e := h.store.cache.get("big.js")
	if e == nil || e.vary.only == nil {
		t.Fatal("no index entry cached for big.js")
	}
	if held, cost := len(e.vary.only.prefix), e.cost("big.js"); held == 0 || cost < int64(held) {
		t.Errorf("the index holds %d decoded bytes and costs %d", held, cost)
	}
}

// TestCompressedOnlyIdentityInCache: the index holds the identity it made
// in memory only while the cache keeps it, so the cache's budget counts
// every byte a compressed-only file holds. Evicted, it is made again.
func TestCompressedOnlyIdentityInCache(t *testing.T) {
	site := newOnlySite(t)
	h := newTestHandler(t, site.root, Options{})
	var made atomic.Int64
	testHookDecodeIdentity = func(string) { made.Add(1) }
	defer func() { testHookDecodeIdentity = nil }()
	get := func() {
		t.Helper()
		if w := testsite.Serve(h, "GET", "/app.js"); !bytes.Equal(w.Body.Bytes(), site.files["app.js"]) {
			t.Fatalf("%d bytes", w.Body.Len())
		}
	}
	get()
	h.store.cache.sync()
	index := h.store.cache.get("app.js")
	if index == nil || index.vary.only == nil {
		t.Fatal("no index entry cached for app.js")
	}
	ve := index.vary.only.mem.Load()
	if ve == nil || ve.body == nil {
		t.Fatal("the index does not hold the identity it made")
	}
	h.store.forget(index.vary.keys[identity])
	if index.vary.only.mem.Load() != nil {
		t.Fatal("the identity left the cache, and the index still holds it")
	}
	get()
	if n := made.Load(); n != 2 {
		t.Errorf("identity made %d times, want twice: once, and once after it left the cache", n)
	}
}

// TestCompressedOnlyUndecodablePrimary: a primary that a decoder refuses
// (a zstd window past RFC 9659's 8 MiB) or that does not decode at all is
// still served as it is stored, to a client that takes its coding; its
// identity is refused, 406 or 500, with a line in the log.
func TestCompressedOnlyUndecodablePrimary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		file   string
		stored []byte
		c      coding
		status int
	}{
		{"zstd window", "x.json.zst", zstdWideFrame(hexText(4000, 1), 24), zstdCoding, 406},
		{"not gzip", "x.json.gz", testsite.Random(4000, 2), gzipCoding, 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			must(t, os.WriteFile(filepath.Join(dir, tc.file), tc.stored, 0o644))
			var logged testsite.SyncBuffer
			h := newTestHandler(t, dir, Options{ErrorLog: log.New(&logged, "", 0)})
			if w := testsite.Serve(h, "GET", "/x.json"); w.Code != tc.status {
				t.Errorf("identity: %d, want %d", w.Code, tc.status)
			}
			w := testsite.Serve(h, "GET", "/x.json", "Accept-Encoding", tc.c.String())
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), tc.stored) {
				t.Errorf("in %v: %d, %d bytes; want 200 with the stored bytes", tc.c, w.Code, w.Body.Len())
			}
			if !strings.Contains(logged.String(), "not decoding "+tc.file) {
				t.Errorf("log: %q", logged.String())
			}
		})
	}
	// Nothing can check another sibling against a primary that does not
	// decode, so it is not served. Of two as new, zstd is primary.
	t.Run("another sibling", func(t *testing.T) {
		t.Parallel()
		dir := tempDir(t)
		mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
		for name, data := range map[string][]byte{
			"x.json.gz":  encodeAs(gzipCoding, []byte("other content"), ""),
			"x.json.zst": zstdWideFrame(hexText(4000, 1), 24),
		} {
			must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
			must(t, os.Chtimes(filepath.Join(dir, name), mtime, mtime))
		}
		h := newTestHandler(t, dir, Options{ErrorLog: log.New(io.Discard, "", 0)})
		if w := testsite.Serve(h, "GET", "/x.json", "Accept-Encoding", "gzip"); w.Code != 406 {
			t.Errorf("in gzip: %d, Content-Encoding %q; want 406", w.Code, w.Header().Get("Content-Encoding"))
		}
	})
}

// TestCompressedOnlySpillFiles: spill files leave nothing in SpillDir, take
// their budget while the cache keeps them, and close with the handler.
// Windows cannot unlink an open file: there a spill file has a name until
// it is closed.
func TestCompressedOnlySpillFiles(t *testing.T) {
	site := newOnlySite(t)
	spill := testsite.TempDir(t)
	before := openFDs()
	h, err := New(site.root, Options{Compression: Compression{SpillDir: spill}})
	must(t, err)
	for _, name := range []string{"big.js", "bigger.js"} {
		if w := testsite.Serve(h, "GET", "/"+name); !bytes.Equal(w.Body.Bytes(), site.files[name]) {
			t.Fatalf("%s: %d bytes", name, w.Body.Len())
		}
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 && runtime.GOOS != "windows" {
		t.Errorf("spill files left in SpillDir: %v", left)
	}
	if used := h.variants.spills.used.Load(); used != int64(len(site.files["big.js"])+len(site.files["bigger.js"])) {
		t.Errorf("spill budget used: %d", used)
	}
	must(t, h.Close())
	if used := h.variants.spills.used.Load(); used != 0 {
		t.Errorf("after Close, spill budget used: %d", used)
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 {
		t.Errorf("after Close, spill files left in SpillDir: %v", left)
	}
	if after := openFDs(); after > before {
		t.Errorf("%d descriptors before, %d after Close", before, after)
	}
}

// TestCompressedOnlyHashName: HashName gives a compressed-only file's name
// with its content's hash, served immutable; a file too large to know the
// hash of without decoding it whole is an error.
func TestCompressedOnlyHashName(t *testing.T) {
	t.Parallel()
	site := newOnlySite(t)
	for kind, h := range site.handlers(t, Options{}) {
		t.Run(kind, func(t *testing.T) {
			hashed, err := h.HashName("app.js")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(hashed, "app.") || !strings.HasSuffix(hashed, ".js") {
				t.Fatalf("HashName: %q", hashed)
			}
			w := testsite.Serve(h, "GET", "/"+hashed)
			if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), site.files["app.js"]) || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
				t.Errorf("/%s: %d, %d bytes, Cache-Control %q", hashed, w.Code, w.Body.Len(), w.Header().Get("Cache-Control"))
			}
			if _, err := h.HashName("big.js"); err == nil {
				t.Error("HashName of a large compressed-only file: no error")
			}
		})
	}
}

// TestCompressedOnlyNoModTime: an identity decoded from a sibling with no
// modification time (an embedded file) has no Last-Modified, in memory or
// spilled, as the sibling has none.
func TestCompressedOnlyNoModTime(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"small.js.br": {Data: encodeAs(brotliCoding, hexText(4<<10, 1), "")},
		"big.js.br":   {Data: encodeAs(brotliCoding, hexText(300<<10, 2), "")},
	}
	h, err := NewFS(m, Options{Compression: Compression{SpillDir: testsite.TempDir(t)}})
	must(t, err)
	t.Cleanup(func() { h.Close() })
	for _, name := range []string{"/small.js", "/big.js"} {
		w := testsite.Serve(h, "GET", name)
		if w.Code != 200 || w.Header().Get("Last-Modified") != "" {
			t.Errorf("%s: %d, Last-Modified %q", name, w.Code, w.Header().Get("Last-Modified"))
		}
	}
}
