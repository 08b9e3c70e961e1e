package jaws

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/decode"
	"github.com/jaws-go/jaws/internal/testsite"
)

// codingCases are the codings jaws serves, by Content-Encoding token.
var codingCases = []coding{brotliCoding, zstdCoding, gzipCoding}

// jsText returns n bytes of JavaScript-like text that compresses to about
// a third, different for each seed.
func jsText(n, seed int) []byte {
	var b bytes.Buffer
	r := testsite.Random(n+4, uint64(seed)) // lines are longer than 4 bytes
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "export const v%d = \"%x\"; // the quick brown fox\n", i, r[i*4:i*4+4])
	}
	return b.Bytes()[:n]
}

// hexText returns n bytes of text that compresses to about half: large
// files whose siblings are large too.
func hexText(n int, seed uint64) []byte {
	return []byte(hex.EncodeToString(testsite.Random(n/2, seed)))
}

// encodeAs encodes src in c with the codecs' own writers, not jaws's
// encoder. A gzip name, when given, goes in the gzip header, so the bytes
// differ from what jaws would make. The fastest level of each: the tests
// need the bytes, not their size, and the siblings of a 1.5 MiB file at
// brotli 5 took half a second of the package's CPU.
func encodeAs(c coding, src []byte, gzipName string) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch c {
	case brotliCoding:
		w = brotli.NewWriterLevel(&buf, 1)
	case zstdCoding:
		w, err = zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest))
	case gzipCoding:
		var z *gzip.Writer
		z, err = gzip.NewWriterLevel(&buf, 1)
		if err == nil {
			z.Name = gzipName
		}
		w = z
	default:
		err = fmt.Errorf("no encoder for %v", c)
	}
	if err == nil {
		_, err = w.Write(src)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		panic(err) // writing to memory: cannot fail
	}
	return buf.Bytes()
}

// decodeAs undoes Content-Encoding enc. It reports a failure with Errorf,
// so goroutines may call it, and returns nil then.
func decodeAs(t testing.TB, enc string, b []byte) []byte {
	t.Helper()
	out, err := decode.Body(enc, b)
	if err != nil {
		t.Errorf("decoding %q: %v", enc, err)
	}
	return out
}

// countAE is how often Vary names Accept-Encoding.
func countAE(h http.Header) int {
	n := 0
	for _, tok := range testsite.VaryTokens(h) {
		if strings.EqualFold(tok, "Accept-Encoding") {
			n++
		}
	}
	return n
}

var compressMtime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// compressFiles are the contents of newCompressSite's files, made once:
// encoding the large siblings takes a while under -race.
var compressFiles = sync.OnceValue(func() map[string][]byte {
	m := map[string][]byte{
		"app.js":   jsText(20<<10, 1),         // compressed on request
		"pre.js":   jsText(20<<10, 2),         // small siblings, served from memory
		"big.js":   hexText(3<<20/2, 3),       // above MaxSize; large siblings, served from disk
		"logo.png": testsite.Random(8<<10, 4), // not compressible, no siblings
		"rand.txt": testsite.Random(8<<10, 5), // compressible type, random bytes
		"tiny.txt": jsText(100, 6),            // below MinSize
	}
	for _, base := range []string{"pre.js", "big.js"} {
		for _, c := range codingCases {
			m[base+codingExts[c]] = encodeAs(c, m[base], "sibling")
		}
	}
	return m
})

// newCompressSite writes compressFiles, all with the same mtime.
func newCompressSite(t testing.TB) *testsite.Site {
	t.Helper()
	s := testsite.New(t)
	for name, b := range compressFiles() {
		s.FileAt(name, b, compressMtime)
	}
	return s
}

// TestCompressedVariantsDecode: every coding decodes to the file's bytes,
// for variants compressed on request and for small and large siblings,
// whose bytes are served as they are; Content-Type is the original's,
// Content-Length the variant's, Vary names Accept-Encoding.
func TestCompressedVariantsDecode(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	warm(t, h, "app.js", "pre.js", "big.js")
	for _, name := range []string{"app.js", "pre.js", "big.js"} {
		for _, c := range codingCases {
			t.Run(name+"/"+c.String(), func(t *testing.T) {
				t.Parallel()
				w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String())
				raw := w.Body.Bytes()
				if w.Code != 200 || w.Header().Get("Content-Encoding") != c.String() {
					t.Fatalf("%d, Content-Encoding %q, want 200 in %v", w.Code, w.Header().Get("Content-Encoding"), c)
				}
				if got := decodeAs(t, c.String(), raw); !bytes.Equal(got, files[name]) {
					t.Errorf("decodes to %d bytes, not the file's %d", len(got), len(files[name]))
				}
				if sib, ok := files[name+codingExts[c]]; ok && !bytes.Equal(raw, sib) {
					t.Errorf("%d bytes, not the sibling's %d", len(raw), len(sib))
				}
				if name == "app.js" && len(raw) > len(files[name])*9/10 {
					t.Errorf("%d bytes compressed to %d", len(files[name]), len(raw))
				}
				if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(raw)) {
					t.Errorf("Content-Length %q for %d bytes", got, len(raw))
				}
				if got := w.Header().Get("Content-Type"); got != "text/javascript; charset=utf-8" {
					t.Errorf("Content-Type %q", got)
				}
				if n := countAE(w.Header()); n != 1 {
					t.Errorf("Vary %q", w.Header().Values("Vary"))
				}
			})
		}
	}
}

// TestVariantValidators: each variant has its own strong ETag; a
// conditional request matches the variant its Accept-Encoding selects, and
// a 304 carries that variant's ETag and Vary.
func TestVariantValidators(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	warm(t, h, "app.js", "pre.js", "big.js")
	for _, name := range []string{"app.js", "pre.js", "big.js"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			etags := map[string]string{} // Accept-Encoding -> ETag
			aes := []string{"identity", "br", "zstd", "gzip"}
			for _, ae := range aes {
				w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", ae)
				etag := w.Header().Get("Etag")
				if w.Code != 200 || !strings.HasPrefix(etag, `"`) {
					t.Fatalf("%s: %d, ETag %q", ae, w.Code, etag)
				}
				for other, e := range etags {
					if e == etag {
						t.Errorf("%s and %s share the ETag %s", ae, other, etag)
					}
				}
				etags[ae] = etag
			}
			for _, ae := range aes {
				for _, inm := range aes {
					w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", ae, "If-None-Match", etags[inm])
					want := 200
					if ae == inm {
						want = 304
					}
					if w.Code != want {
						t.Errorf("Accept-Encoding %s, If-None-Match of %s: %d, want %d", ae, inm, w.Code, want)
					}
					if got := w.Header().Get("Etag"); got != etags[ae] {
						t.Errorf("Accept-Encoding %s: ETag %q, want %q", ae, got, etags[ae])
					}
					if countAE(w.Header()) != 1 {
						t.Errorf("Accept-Encoding %s, %d: Vary %q", ae, w.Code, w.Header().Values("Vary"))
					}
					if want == 304 && (w.Body.Len() != 0 || w.Header().Get("Content-Encoding") != "") {
						t.Errorf("304 with %d bytes, Content-Encoding %q", w.Body.Len(), w.Header().Get("Content-Encoding"))
					}
				}
				// If-Range: a range is of the file whatever the client
				// accepts, so it applies for the file's own ETag only, and
				// any other gets the whole file.
				for _, ir := range aes {
					w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", ae, "Range", "bytes=0-9", "If-Range", etags[ir])
					want := 200
					if ir == "identity" {
						want = 206
					}
					if w.Code != want || w.Header().Get("Content-Encoding") != "" || w.Header().Get("Etag") != etags["identity"] {
						t.Errorf("Accept-Encoding %s, If-Range of %s: %d, Content-Encoding %q, ETag %s; want %d of the file",
							ae, ir, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Etag"), want)
					}
				}
			}
		})
	}
}

// TestRangeOfTheFile: a range is a range of the file, whatever the client
// accepts: a client resuming a download of a compressible file from the
// size it saved decoded (curl --compressed -C -) gets the bytes that follow,
// from memory and from disk, one range or several, with Vary.
func TestRangeOfTheFile(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	warm(t, h, "app.js", "pre.js", "big.js")
	for _, name := range []string{"app.js", "pre.js", "big.js"} {
		for _, c := range codingCases {
			t.Run(name+"/"+c.String(), func(t *testing.T) {
				t.Parallel()
				file := files[name]
				n := int64(len(file))
				encoded := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String())
				if encoded.Header().Get("Content-Encoding") != c.String() {
					t.Fatalf("no %v variant to tell apart", c)
				}
				resume := int(n / 3) // a download cut a third of the way, saved decoded
				w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String(), "Range", fmt.Sprintf("bytes=%d-", resume))
				if w.Code != 206 || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), file[resume:]) {
					t.Fatalf("resumed at %d: %d, Content-Encoding %q, %d bytes; want the file's rest, %d bytes",
						resume, w.Code, w.Header().Get("Content-Encoding"), w.Body.Len(), n-int64(resume))
				}
				if got, want := w.Header().Get("Content-Range"), fmt.Sprintf("bytes %d-%d/%d", resume, n-1, n); got != want {
					t.Errorf("Content-Range %q, want %q", got, want)
				}
				if countAE(w.Header()) != 1 {
					t.Errorf("Vary %q", w.Header().Values("Vary"))
				}
				w = testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String(), "Range", "bytes=0-9,1000-1009")
				if w.Code != 206 || !strings.HasPrefix(w.Header().Get("Content-Type"), "multipart/byteranges") ||
					w.Header().Get("Content-Encoding") != "" {
					t.Errorf("several ranges: %d %q, Content-Encoding %q", w.Code, w.Header().Get("Content-Type"), w.Header().Get("Content-Encoding"))
				}
				w = testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String(), "Range", fmt.Sprintf("bytes=%d-", n))
				if w.Code != 416 || w.Header().Get("Content-Range") != fmt.Sprintf("bytes */%d", n) {
					t.Errorf("range past the file: %d %q", w.Code, w.Header().Get("Content-Range"))
				}
				// Another unit is no range: the variant, whole.
				w = testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String(), "Range", "items=0-9")
				if w.Code != 200 || w.Header().Get("Content-Encoding") != c.String() {
					t.Errorf("Range of items: %d, Content-Encoding %q; want the variant", w.Code, w.Header().Get("Content-Encoding"))
				}
			})
		}
	}
}

// TestVaryEverywhere: every response for a path with variants names
// Accept-Encoding in Vary once, whatever its status, merged with what an
// outer handler set; a path without variants has none.
func TestVaryEverywhere(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	etag := testsite.Serve(h, "GET", "/app.js").Header().Get("Etag")
	outer := func(vary ...string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, v := range vary {
				w.Header().Add("Vary", v)
			}
			h.ServeHTTP(w, r)
		})
	}
	checkVary(t, []varyCase{
		{"identity 200, no Accept-Encoding", "GET", "/app.js", h, nil, 200, []string{"Accept-Encoding"}},
		{"identity 200, identity asked", "GET", "/app.js", h, []string{"Accept-Encoding", "identity"}, 200, []string{"Accept-Encoding"}},
		{"encoded 200", "GET", "/app.js", h, []string{"Accept-Encoding", "gzip"}, 200, []string{"Accept-Encoding"}},
		{"HEAD", "HEAD", "/app.js", h, []string{"Accept-Encoding", "br"}, 200, []string{"Accept-Encoding"}},
		{"206", "GET", "/app.js", h, []string{"Range", "bytes=0-0"}, 206, []string{"Accept-Encoding"}},
		{"304", "GET", "/app.js", h, []string{"If-None-Match", etag}, 304, []string{"Accept-Encoding"}},
		{"416", "GET", "/app.js", h, []string{"Range", "bytes=999999-"}, 416, []string{"Accept-Encoding"}},
		{"sibling only", "GET", "/big.js", h, nil, 200, []string{"Accept-Encoding"}},
		{"incompressible text", "GET", "/rand.txt", h, []string{"Accept-Encoding", "gzip"}, 200, []string{"Accept-Encoding"}},
		{"outer Accept", "GET", "/app.js", outer("Accept"), []string{"Accept-Encoding", "gzip"}, 200, []string{"Accept", "Accept-Encoding"}},
		{"outer Accept, 304", "GET", "/app.js", outer("Accept"), []string{"If-None-Match", etag}, 304, []string{"Accept", "Accept-Encoding"}},
		{"outer Accept-Encoding", "GET", "/app.js", outer("Accept-Encoding"), []string{"Accept-Encoding", "gzip"}, 200, []string{"Accept-Encoding"}},
		{"outer list with accept-encoding", "GET", "/app.js", outer("Origin, accept-encoding"), nil, 200, []string{"Origin", "accept-encoding"}},
		{"outer star", "GET", "/app.js", outer("*"), []string{"Accept-Encoding", "gzip"}, 200, []string{"*"}},
		{"png", "GET", "/logo.png", h, []string{"Accept-Encoding", "gzip"}, 200, nil},
		{"below MinSize", "GET", "/tiny.txt", h, []string{"Accept-Encoding", "gzip"}, 200, nil},
		{"outer Accept on a png", "GET", "/logo.png", outer("Accept"), []string{"Accept-Encoding", "gzip"}, 200, []string{"Accept"}},
		{"missing", "GET", "/nope.js", h, []string{"Accept-Encoding", "gzip"}, 404, nil},
	})
}

// TestAddVary: Accept-Encoding joins what an outer handler put in Vary
// unless an element of the list is it already, ASCII case-insensitively, or
// "*".
func TestAddVary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		vary, want []string // nil: no Vary
	}{
		{"none", nil, []string{"Accept-Encoding"}},
		{"another", []string{"Accept"}, []string{"Accept, Accept-Encoding"}},
		{"there", []string{"Accept-Encoding"}, []string{"Accept-Encoding"}},
		{"lower case", []string{"accept-encoding"}, []string{"accept-encoding"}},
		{"in a list", []string{"Origin,\tACCEPT-ENCODING "}, []string{"Origin,\tACCEPT-ENCODING "}},
		{"second line", []string{"Origin", "Accept-Encoding"}, []string{"Origin, Accept-Encoding"}}, // one line: old nginx keeps the last alone
		{"star", []string{"Origin, *"}, []string{"Origin, *"}},
		{"a longer name", []string{"Accept-Encodings"}, []string{"Accept-Encodings, Accept-Encoding"}},
		{"space-separated", []string{"Accept Accept-Encoding"}, []string{"Accept Accept-Encoding, Accept-Encoding"}},
		{"no-break space is not white space", []string{"Accept-Encoding\u00a0"}, []string{"Accept-Encoding\u00a0, Accept-Encoding"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := http.Header{}
			if tt.vary != nil {
				hdr["Vary"] = slices.Clone(tt.vary)
			}
			addVary(hdr)
			if got := hdr["Vary"]; !slices.Equal(got, tt.want) {
				t.Errorf("addVary(%q): Vary %q, want %q", tt.vary, got, tt.want)
			}
		})
	}
}

// TestOuterContentEncoding: a handler in front that set Content-Encoding
// encodes the body itself: jaws neither negotiates nor sends zero-copy, and
// sends the file's own bytes without a length.
func TestOuterContentEncoding(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "x-outer") // on net/http's own writer, unwrapped
		h.ServeHTTP(w, r)
	})
	s := testsite.Start(t, testsite.HTTP1, outer)
	for _, name := range []string{"big.js", "app.js"} {
		resp, body := s.Get(t, "/"+name, "Accept-Encoding", "br, gzip, zstd")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "x-outer" {
			t.Fatalf("%s: %d, Content-Encoding %q", name, resp.StatusCode, resp.Header.Values("Content-Encoding"))
		}
		if !bytes.Equal(body, files[name]) {
			t.Errorf("%s: %d bytes, not the file's own %d", name, len(body), len(files[name]))
		}
		if resp.ContentLength != -1 || len(resp.Header.Values("Vary")) != 0 {
			t.Errorf("%s: Content-Length %d, Vary %q", name, resp.ContentLength, resp.Header.Values("Vary"))
		}
	}
	st := h.Stats()
	if st.ZeroCopy.Responses != 0 || st.Fallback.Responses != 1 || st.Encoded != 0 || st.Compressions != 0 {
		t.Errorf("Stats %+v: want the large file through the fallback, nothing encoded", st)
	}
}

// TestLargeSiblingSendfile: a large precompressed sibling goes zero-copy
// over a keep-alive HTTP/1.1 connection, whole and in ranges.
func TestLargeSiblingSendfile(t *testing.T) {
	if !zeroCopySupported {
		t.Skip("no zero-copy path on this OS")
	}
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	s := testsite.Start(t, testsite.HTTP1, h) // the client does not decode
	want := uint64(0)
	for _, c := range codingCases {
		sib := files["big.js"+codingExts[c]]
		if int64(len(sib)) < h.opts.ZeroCopyMinSize {
			t.Fatalf("%v sibling of %d bytes is below ZeroCopyMinSize", c, len(sib))
		}
		for range 2 {
			resp, body := s.Get(t, "/big.js", "Accept-Encoding", c.String())
			if resp.Header.Get("Content-Encoding") != c.String() || !bytes.Equal(body, sib) || resp.ContentLength != int64(len(sib)) {
				t.Fatalf("%v: %q, %d bytes (Content-Length %d), want the sibling's %d", c, resp.Header.Get("Content-Encoding"), len(body), resp.ContentLength, len(sib))
			}
			want++
		}
	}
	// A range is of the file itself, which goes zero-copy too.
	file := files["big.js"]
	n := len(file)
	resp, body := s.Get(t, "/big.js", "Accept-Encoding", "br", "Range", fmt.Sprintf("bytes=%d-", n-600<<10))
	if resp.StatusCode != 206 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, file[n-600<<10:]) {
		t.Fatalf("range: %d, Content-Encoding %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body))
	}
	// A last response on the same connection: every earlier one is counted.
	s.Get(t, "/tiny.txt")
	if st := h.Stats(); st.ZeroCopy.Responses != want+1 || st.Encoded != want {
		t.Errorf("Stats: %d zero-copy, %d encoded; want %d and %d", st.ZeroCopy.Responses, st.Encoded, want+1, want)
	}
}

// TestCompressedOnce: a file is compressed once per coding, however many
// requests ask for it, concurrent first requests included.
func TestCompressedOnce(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	for _, c := range codingCases {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			h := newTestHandler(t, newCompressSite(t).Root, Options{})
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() {
					<-start
					for range 20 {
						w := testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", c.String())
						if got := decodeAs(t, w.Header().Get("Content-Encoding"), w.Body.Bytes()); !bytes.Equal(got, files["app.js"]) {
							t.Errorf("body decodes to %d bytes", len(got))
						}
					}
				})
			}
			close(start)
			wg.Wait()
			for range 20 {
				if w := testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", c.String()); w.Header().Get("Content-Encoding") != c.String() {
					t.Fatalf("Content-Encoding %q", w.Header().Get("Content-Encoding"))
				}
			}
			if st := h.Stats(); st.Compressions != 1 || st.Encoded != 16*20+20 {
				t.Errorf("%d compressions and %d encoded responses for %d requests; want 1 and all", st.Compressions, st.Encoded, 16*20+20)
			}
		})
	}
}

// TestIncompressible: text that does not compress is served as it is, and
// is not compressed again once found not to: concurrent first requests for
// a coding share one attempt, later ones make none.
func TestIncompressible(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	// The file's own entry first, cached, so every request below shares it.
	if w := testsite.Serve(h, "GET", "/rand.txt"); w.Code != 200 || h.Stats().Compressions != 0 {
		t.Fatalf("%d, %d compressions without Accept-Encoding", w.Code, h.Stats().Compressions)
	}
	h.store.cache.sync()
	for round, aes := range [][]string{{"gzip"}, {"br"}, {"zstd"}, {"gzip", "br", "zstd", "gzip, br, zstd"}} {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				<-start
				for _, ae := range aes {
					w := testsite.Serve(h, "GET", "/rand.txt", "Accept-Encoding", ae)
					if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), files["rand.txt"]) || countAE(w.Header()) != 1 {
						t.Errorf("%s: Content-Encoding %q, %d bytes, Vary %q", ae, w.Header().Get("Content-Encoding"), w.Body.Len(), w.Header().Values("Vary"))
					}
				}
			})
		}
		close(start)
		wg.Wait()
		if got, want := h.Stats().Compressions, uint64(min(round+1, 3)); got != want {
			t.Fatalf("after %q: %d compressions; want %d, one per coding", aes, got, want)
		}
	}
}

// TestSiblingFreshness: a sibling older than its file is ignored; a
// rewritten one is served at once with its new ETag; a deleted one gives
// way to compression.
func TestSiblingFreshness(t *testing.T) {
	t.Parallel()
	current, old := jsText(20<<10, 7), jsText(20<<10, 8)
	tests := []struct {
		name string
		opts Options
		want string // Content-Encoding once the sibling is stale or gone
	}{
		{"compressing", Options{}, "gzip"},
		{"DisableCompression", Options{Compression: Compression{DisableCompression: true}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testsite.New(t)
			s.FileAt("stale.js", current, compressMtime)
			s.FileAt("stale.js.gz", encodeAs(gzipCoding, old, "old"), compressMtime.Add(-time.Hour))
			s.FileAt("app.js", current, compressMtime)
			first := encodeAs(gzipCoding, current, "first")
			s.FileAt("app.js.gz", first, compressMtime)
			var logged bytes.Buffer
			opts := tt.opts
			opts.ErrorLog = log.New(&logged, "", 0)
			h := newTestHandler(t, s.Root, opts)
			// Each answer's entries are in the cache before the next
			// request, so the later ones test cached entries whose
			// sibling changed.
			get := func(target string, hdr ...string) *httptest.ResponseRecorder {
				w := testsite.Serve(h, "GET", target, hdr...)
				h.store.cache.sync()
				return w
			}

			w := get("/stale.js", "Accept-Encoding", "gzip")
			if got := w.Header().Get("Content-Encoding"); got != tt.want || !bytes.Equal(decodeAs(t, got, w.Body.Bytes()), current) {
				t.Errorf("stale sibling: Content-Encoding %q, and the body is not the current file", got)
			}
			if want := "jaws: ignoring stale.js.gz: older than stale.js"; !strings.Contains(logged.String(), want) {
				t.Errorf("ErrorLog %q, want a line with %q", logged.String(), want)
			}

			w = get("/app.js", "Accept-Encoding", "gzip")
			etag1 := w.Header().Get("Etag")
			if !bytes.Equal(w.Body.Bytes(), first) {
				t.Fatalf("sibling not served: %d bytes", w.Body.Len())
			}
			second := encodeAs(gzipCoding, current, "second")
			s.Replace("app.js.gz", second) // mtime now: newer than app.js
			w = get("/app.js", "Accept-Encoding", "gzip")
			if !bytes.Equal(w.Body.Bytes(), second) || w.Header().Get("Etag") == etag1 || w.Header().Get("Etag") == "" {
				t.Errorf("rewritten sibling: %d bytes, ETag %q (was %q)", w.Body.Len(), w.Header().Get("Etag"), etag1)
			}
			if w := get("/app.js", "Accept-Encoding", "gzip", "If-None-Match", etag1); w.Code != 200 {
				t.Errorf("If-None-Match of the old sibling: %d", w.Code)
			}

			must(t, os.Remove(s.Path("app.js.gz")))
			for i := range 2 {
				w = get("/app.js", "Accept-Encoding", "gzip")
				got := w.Header().Get("Content-Encoding")
				if w.Code != 200 || got != tt.want || bytes.Equal(w.Body.Bytes(), second) || !bytes.Equal(decodeAs(t, got, w.Body.Bytes()), current) {
					t.Errorf("request %d after the sibling went: %d, Content-Encoding %q, %d bytes", i, w.Code, got, w.Body.Len())
				}
				// Without compression the path has no variants left once
				// its entry is rebuilt.
				wantVary := 1
				if tt.want == "" && i > 0 {
					wantVary = 0
				}
				if countAE(w.Header()) != wantVary {
					t.Errorf("request %d after the sibling went: Vary %q", i, w.Header().Values("Vary"))
				}
			}
		})
	}
}

// TestCompressionOptions: each option of Compression changes what is
// served as documented.
func TestCompressionOptions(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	root := newCompressSite(t).Root
	tests := []struct {
		name            string
		opts            Options
		target, ae      string
		want            string // Content-Encoding
		sibling         bool   // the sibling's bytes exactly
		wantCompression bool
	}{
		{"defaults: computed", Options{}, "/app.js", "gzip, br, zstd", "br", false, true},
		{"defaults: sibling", Options{}, "/pre.js", "gzip, br, zstd", "br", true, false},
		{"DisablePrecompressed: computed instead", Options{Compression: Compression{DisablePrecompressed: true}}, "/pre.js", "gzip", "gzip", false, true},
		{"DisablePrecompressed: large file", Options{Compression: Compression{DisablePrecompressed: true}}, "/big.js", "gzip", "", false, false},
		{"DisableCompression", Options{Compression: Compression{DisableCompression: true}}, "/app.js", "gzip, br", "", false, false},
		{"DisableCompression: siblings still", Options{Compression: Compression{DisableCompression: true}}, "/pre.js", "gzip", "gzip", true, false},
		{"Encodings order", Options{Compression: Compression{Encodings: []string{"gzip", "br"}}}, "/app.js", "br, gzip, zstd", "gzip", false, true},
		{"Encodings order: sibling", Options{Compression: Compression{Encodings: []string{"zstd", "gzip"}}}, "/pre.js", "br, gzip, zstd", "zstd", true, false},
		{"Encodings restrict", Options{Compression: Compression{Encodings: []string{"zstd"}}}, "/app.js", "br, gzip", "", false, false},
		{"Encodings restrict: sibling left out", Options{Compression: Compression{Encodings: []string{"zstd"}}}, "/pre.js", "br", "", false, false},
		{"Encodings none", Options{Compression: Compression{Encodings: []string{}}}, "/pre.js", "br, gzip, zstd", "", false, false},
		{"client order over server order", Options{}, "/app.js", "gzip;q=1, br;q=0.5", "gzip", false, true},
		{"Level fastest: br", Options{Compression: Compression{Level: LevelFastest}}, "/app.js", "br", "br", false, true},
		{"Level fastest: zstd", Options{Compression: Compression{Level: LevelFastest}}, "/app.js", "zstd", "zstd", false, true},
		{"Level fastest: gzip", Options{Compression: Compression{Level: LevelFastest}}, "/app.js", "gzip", "gzip", false, true},
		{"Level best: br", Options{Compression: Compression{Level: LevelBest}}, "/app.js", "br", "br", false, true},
		{"Level best: zstd", Options{Compression: Compression{Level: LevelBest}}, "/app.js", "zstd", "zstd", false, true},
		{"Level best: gzip", Options{Compression: Compression{Level: LevelBest}}, "/app.js", "gzip", "gzip", false, true},
		{"MinSize: below", Options{Compression: Compression{MinSize: 20<<10 + 1}}, "/app.js", "gzip", "", false, false},
		{"MinSize: at", Options{Compression: Compression{MinSize: 20 << 10}}, "/app.js", "gzip", "gzip", false, true},
		{"MinSize: siblings whatever the size", Options{Compression: Compression{MinSize: 1 << 20}}, "/pre.js", "gzip", "gzip", true, false},
		{"MaxSize: at", Options{Compression: Compression{MaxSize: 20 << 10}}, "/app.js", "gzip", "gzip", false, true},
		{"MaxSize: above", Options{Compression: Compression{MaxSize: 20<<10 - 1}}, "/app.js", "gzip", "", false, false},
		{"MaxSize: larger than CacheMaxFileSize", Options{CacheMaxFileSize: 4 << 10}, "/app.js", "gzip", "gzip", false, true},
		{"negative CacheMaxBytes: no compression", Options{CacheMaxBytes: -1}, "/app.js", "gzip", "", false, false},
		{"negative CacheMaxBytes: siblings still", Options{CacheMaxBytes: -1}, "/pre.js", "gzip", "gzip", true, false},
		{"negative CacheMaxFileSize: no compression", Options{CacheMaxFileSize: -1}, "/app.js", "gzip", "", false, false},
		{"no Accept-Encoding", Options{}, "/pre.js", "", "", false, false},
		{"identity;q=0, nothing acceptable", Options{}, "/app.js", "identity;q=0, deflate", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHandler(t, root, tt.opts)
			var hdr []string
			if tt.ae != "" {
				hdr = []string{"Accept-Encoding", tt.ae}
			}
			for range 3 {
				w := testsite.Serve(h, "GET", tt.target, hdr...)
				enc := w.Header().Get("Content-Encoding")
				if w.Code != 200 || enc != tt.want {
					t.Fatalf("%d, Content-Encoding %q, want %q", w.Code, enc, tt.want)
				}
				name := strings.TrimPrefix(tt.target, "/")
				if !bytes.Equal(decodeAs(t, enc, w.Body.Bytes()), files[name]) {
					t.Errorf("body does not decode to the file")
				}
				sib, ok := files[name+codingExts[codingByName(enc)]]
				if got := enc != "" && ok && bytes.Equal(w.Body.Bytes(), sib); got != tt.sibling {
					t.Errorf("served the sibling: %v, want %v", got, tt.sibling)
				}
			}
			want := uint64(0)
			if tt.wantCompression {
				want = 1
			}
			if got := h.Stats().Compressions; got != want {
				t.Errorf("%d compressions for 3 requests, want %d", got, want)
			}
		})
	}
}

// TestCompressionOptionErrors: New refuses what it cannot serve.
func TestCompressionOptionErrors(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	tests := []struct {
		name string
		c    Compression
	}{
		{"unknown coding", Compression{Encodings: []string{"br", "deflate"}}},
		{"identity", Compression{Encodings: []string{"identity"}}},
		{"level too high", Compression{Level: LevelBest + 1}},
		{"negative level", Compression{Level: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := New(dir, Options{Compression: tt.c})
			if err == nil {
				h.Close()
				t.Fatalf("New(%+v) succeeded", tt.c)
			}
		})
	}
}

// TestVariantHEAD: HEAD announces the variant's length and sends nothing.
func TestVariantHEAD(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	s := testsite.Start(t, testsite.HTTP1, h)
	for _, name := range []string{"app.js", "pre.js", "big.js"} {
		for _, c := range codingCases {
			_, whole := s.Get(t, "/"+name, "Accept-Encoding", c.String())
			resp, body := s.Do(t, s.NewRequest(t, "HEAD", "/"+name, "Accept-Encoding", c.String()))
			if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Encoding") != c.String() ||
				resp.Header.Get("Content-Length") != strconv.Itoa(len(whole)) || countAE(resp.Header) != 1 {
				t.Errorf("HEAD %s %v: %d, %d bytes, Content-Encoding %q, Content-Length %q (GET has %d bytes), Vary %q", name, c,
					resp.StatusCode, len(body), resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Length"), len(whole), resp.Header.Values("Vary"))
			}
		}
	}
}

// TestCompressKinds: variants over HTTP/1.1, TLS and HTTP/2 alike.
func TestCompressKinds(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	warm(t, h, "app.js", "pre.js", "big.js")
	for _, k := range testsite.Kinds {
		s := testsite.Start(t, k, h)
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			for _, name := range []string{"app.js", "pre.js", "big.js"} {
				for _, c := range codingCases {
					resp, raw := s.Get(t, "/"+name, "Accept-Encoding", "identity;q=0.1, "+c.String())
					if resp.Header.Get("Content-Encoding") != c.String() || !bytes.Equal(decodeAs(t, c.String(), raw), files[name]) {
						t.Fatalf("%s %v: Content-Encoding %q, %d bytes", name, c, resp.Header.Get("Content-Encoding"), len(raw))
					}
					if resp.ContentLength != int64(len(raw)) || countAE(resp.Header) != 1 {
						t.Errorf("%s %v: Content-Length %d for %d bytes, Vary %q", name, c, resp.ContentLength, len(raw), resp.Header.Values("Vary"))
					}
					rr, part := s.Get(t, "/"+name, "Accept-Encoding", c.String(), "Range", "bytes=5-14")
					if rr.StatusCode != 206 || rr.Header.Get("Content-Encoding") != "" || !bytes.Equal(part, files[name][5:15]) {
						t.Errorf("%s %v range: %d, %q; want the file's", name, c, rr.StatusCode, part)
					}
				}
			}
		})
	}
}

// TestCompressCacheBound: compressed variants count against CacheMaxBytes:
// many compressible files in several codings, churned through a small
// cache, keep what it holds within the bound.
func TestCompressCacheBound(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	const files, maxBytes = 120, 128 << 10
	data := make([][]byte, files)
	for i := range files {
		data[i] = jsText(2<<10+i*397%(14<<10), i)
		s.File(fmt.Sprintf("%d.js", i), data[i])
	}
	h := newTestHandler(t, s.Root, Options{CacheMaxBytes: maxBytes, CacheMaxFileSize: 32 << 10,
		Compression: Compression{Level: LevelFastest}})
	aes := []string{"br", "zstd", "gzip", ""}
	for round := range 3 {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range files {
					n := (i*7 + g*31 + round*13) % files
					ae := aes[(i+g)%len(aes)]
					w := testsite.Serve(h, "GET", fmt.Sprintf("/%d.js", n), "Accept-Encoding", ae)
					if w.Code != 200 || !bytes.Equal(decodeAs(t, w.Header().Get("Content-Encoding"), w.Body.Bytes()), data[n]) {
						t.Errorf("%d.js in %q: %d, %q", n, ae, w.Code, w.Header().Get("Content-Encoding"))
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
	if st := h.Stats(); st.CacheEvictions == 0 || st.Compressions == 0 || st.Encoded == 0 {
		t.Errorf("Stats %+v: want evictions, compressions and encoded responses", st)
	}
}

// TestCloseWhileCompressing: Close while requests build and compress
// variants neither panics (ristretto's Set on a closing cache) nor leaves a
// request waiting forever (its Wait once Close stopped the cache), and the
// requests after Close get 503.
func TestCloseWhileCompressing(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	for i := range 64 {
		must(t, os.WriteFile(dir+"/"+strconv.Itoa(i)+".js", jsText(4<<10, i), 0o644))
	}
	for round := range 5 {
		h, err := New(dir, Options{})
		must(t, err)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				<-start
				for i := range 64 {
					c := codingCases[(g+i+round)%len(codingCases)]
					w := testsite.Serve(h, "GET", "/"+strconv.Itoa((i*7+g)%64)+".js", "Accept-Encoding", c.String())
					if w.Code != http.StatusOK && w.Code != http.StatusServiceUnavailable {
						t.Errorf("status %d", w.Code)
					}
				}
			})
		}
		close(start)
		h.Close()
		wg.Wait() // a request stuck in the cache would hang the test here
		if w := testsite.Serve(h, "GET", "/0.js", "Accept-Encoding", "gzip"); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("after Close: %d, want 503", w.Code)
		}
	}
}

// TestSiblingReplacesCompressed: a sibling that appears next to a file
// whose compressed variant is cached is served once the file's entry is
// built again (here: dropped, as an eviction would), not the variant jaws
// compressed before it existed.
func TestSiblingReplacesCompressed(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	src := jsText(20<<10, 9)
	s.FileAt("late.js", src, compressMtime)
	h := newTestHandler(t, s.Root, Options{})
	w := testsite.Serve(h, "GET", "/late.js", "Accept-Encoding", "gzip")
	if w.Header().Get("Content-Encoding") != "gzip" || h.Stats().Compressions != 1 {
		t.Fatalf("first answer: Content-Encoding %q, %d compressions", w.Header().Get("Content-Encoding"), h.Stats().Compressions)
	}
	h.store.cache.sync()
	sibling := encodeAs(gzipCoding, src, "built")
	s.FileAt("late.js.gz", sibling, compressMtime)
	h.store.cache.drop("late.js")
	h.store.cache.sync()
	for i := range 2 {
		w = testsite.Serve(h, "GET", "/late.js", "Accept-Encoding", "gzip")
		if !bytes.Equal(w.Body.Bytes(), sibling) {
			t.Errorf("request %d: %d bytes, not the sibling's %d", i, w.Body.Len(), len(sibling))
		}
		h.store.cache.sync()
	}
}

// TestCompressedHitAllocations: serving a cached variant allocates what
// serving a file that has no variants does (the variants' cache keys and
// siblings' names are made once, on the entry), for a variant compressed
// on request, a precompressed sibling and a file shipped compressed only.
// Adding Accept-Encoding to an outer Vary allocates only the longer header
// value.
func TestCompressedHitAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts (sync.Pool drops items)")
	}
	s := testsite.New(t)
	s.File("app.js", jsText(20<<10, 10))
	s.File("plain.bin", testsite.Random(20<<10, 11))
	s.File("pre.js", jsText(20<<10, 12))
	s.File("pre.js.br", encodeAs(brotliCoding, jsText(20<<10, 12), "sibling"))
	s.File("only.js.br", encodeAs(brotliCoding, jsText(20<<10, 13), "sibling"))
	h := newTestHandler(t, s.Root, Options{})
	allocs := func(target, accept string, vary []string) float64 {
		r := httptest.NewRequest("GET", target, nil)
		if accept != "" {
			r.Header.Set("Accept-Encoding", accept)
		}
		w := &testsite.Discard{H: http.Header{}}
		serve := func() {
			clear(w.H)
			if vary != nil {
				w.H["Vary"] = vary
			}
			h.ServeHTTP(w, r)
		}
		serve() // builds the entry and the variant
		h.store.cache.sync()
		serve()
		if got := w.H.Get("Content-Encoding"); got != accept {
			t.Fatalf("%s: Content-Encoding %q, want %q", target, got, accept)
		}
		return testing.AllocsPerRun(200, serve)
	}
	base := allocs("/plain.bin", "", nil)
	for _, tt := range []struct{ target, accept string }{
		{"/app.js", "gzip"}, // compressed on request
		{"/pre.js", "br"},   // a precompressed sibling
		{"/only.js", "br"},  // shipped compressed only
		{"/only.js", ""},    // and its identity
	} {
		if tt.target != "/app.js" && runtime.GOOS != "linux" {
			// Without file events, each file a hit confirms is a stat,
			// which allocates: a sibling's, and a compressed-only file's
			// other names.
			continue
		}
		if got := allocs(tt.target, tt.accept, nil); got > base {
			t.Errorf("%s in %q: a hit allocates %v times, a file without variants %v", tt.target, tt.accept, got, base)
		}
	}
	accept := []string{"Accept"}
	base = allocs("/plain.bin", "", accept)
	if got := allocs("/app.js", "br", accept); got > base+2 {
		t.Errorf("a br hit behind Vary: Accept allocates %v times, a file without variants %v (+2 for the Vary made one line)", got, base)
	}
}

// TestCompressionWaitsForSlot: a first request that finds every
// compression slot taken waits for one and is answered compressed (an
// uncompressed answer could be cached downstream under "immutable"); one
// whose client leaves while waiting gets the file as it is, and nothing is
// logged.
func TestCompressionWaitsForSlot(t *testing.T) {
	s := testsite.New(t)
	src := jsText(20<<10, 12)
	s.File("app.js", src)
	synctest.Test(t, func(t *testing.T) {
		var logged bytes.Buffer
		h, err := New(s.Root, Options{ErrorLog: log.New(&logged, "", 0)})
		must(t, err)
		defer h.Close()
		for range cap(h.variants.encoder.slots) {
			h.variants.encoder.slots <- struct{}{} // every slot busy
		}

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		r := httptest.NewRequestWithContext(ctx, "GET", "/app.js", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), src) {
			t.Errorf("client gone while waiting: %d, Content-Encoding %q", w.Code, w.Header().Get("Content-Encoding"))
		}

		done := make(chan *httptest.ResponseRecorder)
		go func() { done <- testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", "gzip") }()
		synctest.Wait()
		select {
		case w := <-done:
			t.Fatalf("answered while every slot was busy: Content-Encoding %q", w.Header().Get("Content-Encoding"))
		default:
		}
		<-h.variants.encoder.slots // one slot frees up
		w = <-done
		if w.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(decodeAs(t, "gzip", w.Body.Bytes()), src) {
			t.Errorf("after waiting: Content-Encoding %q", w.Header().Get("Content-Encoding"))
		}
		if st := h.Stats(); st.Compressions != 1 {
			t.Errorf("%d compressions, want 1", st.Compressions)
		}
		if logged.Len() != 0 {
			t.Errorf("logged %q", logged.String())
		}
	})
}

// TestHashNameSharesVariants: a hashed name is the file under another name,
// so its compressed variants are the file's: compressed once for both
// names, and once again, not per request, when a precompressed sibling
// goes away.
func TestHashNameSharesVariants(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	js := []byte(strings.Repeat("console.log('a fairly compressible line');\n", 200))
	for name, data := range map[string][]byte{"app.js": js, "other.js": js, "other.js.br": encodeAs(brotliCoding, js, "")} {
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	h := newTestHandler(t, dir, Options{})
	hashed := func(name string) string {
		n, err := h.HashName(name)
		must(t, err)
		return "/" + n
	}
	get := func(target, coding string) {
		t.Helper()
		w := testsite.Serve(h, "GET", target, "Accept-Encoding", coding)
		if w.Code != 200 || w.Header().Get("Content-Encoding") != coding {
			t.Fatalf("GET %s (%s): %d, Content-Encoding %q", target, coding, w.Code, w.Header().Get("Content-Encoding"))
		}
		h.store.cache.sync()
	}
	for _, target := range []string{"/app.js", hashed("app.js"), hashed("app.js"), "/app.js"} {
		get(target, "gzip")
	}
	if n := h.Stats().Compressions; n != 1 {
		t.Errorf("app.js by both names: %d compressions, want 1", n)
	}
	get(hashed("other.js"), "br") // the sibling
	must(t, os.Remove(filepath.Join(dir, "other.js.br")))
	for range 5 {
		get(hashed("other.js"), "br")
	}
	if n := h.Stats().Compressions; n != 2 {
		t.Errorf("other.js's sibling gone, 5 requests by its hashed name: %d compressions in all, want 2", n)
	}
}

// TestCompressedHitOpensNothing: a request answered from a compressed
// variant in memory opens no file, even where the file itself is sent from
// disk (larger than CacheMaxFileSize); asked without a coding, or in one
// the file has no variant in, the same file is sent whole from disk, by a
// descriptor of the request's own or, where offsets can be leased, mostly
// the shared one's (lease_test.go counts those on one connection).
func TestCompressedHitOpensNothing(t *testing.T) {
	t.Parallel()
	src := bytes.Repeat([]byte("export const compressedHitOpensNothing = 1;\n"), 2000) // 88 KB
	s := testsite.New(t)
	s.File("hitopens.js", src)
	h := newTestHandler(t, s.Root, Options{})
	srv := testsite.Start(t, testsite.HTTP1, h)
	for _, c := range []struct {
		name, accept, coding string
		opens                int64 // per hit, once the variant is cached
	}{
		{"br", "br", "br", 0},
		{"gzip", "gzip", "gzip", 0},
		{"browser", "gzip, deflate, br, zstd", "br", 0},
		{"identity", "", "", 1},
		{"unknown coding", "compress", "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			get := func() {
				t.Helper()
				resp, body := srv.Get(t, "/hitopens.js", "Accept-Encoding", c.accept)
				if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != c.coding {
					t.Fatalf("%d, Content-Encoding %q, want 200 %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), c.coding)
				}
				if got := decodeAs(t, c.coding, body); !bytes.Equal(got, src) {
					t.Fatalf("body decodes to %d bytes, not the file", len(got))
				}
			}
			get()
			h.store.cache.sync()
			before := openCount("hitopens.js")
			for range 3 {
				get()
			}
			n := openCount("hitopens.js") - before
			switch {
			case c.opens == 0 && n != 0:
				t.Errorf("%d opens for 3 hits, want none", n)
			case c.opens > 0 && !leaseOffsets && n != 3*c.opens:
				t.Errorf("%d opens for 3 hits, want %d", n, 3*c.opens)
			case c.opens > 0 && n > 3*c.opens:
				t.Errorf("%d opens for 3 hits, want at most %d", n, 3*c.opens)
			}
		})
	}
}

// TestOneLookPerRequest: a request looks once for what the root names (one
// epoll_wait with events, or a stat of the root path without), whichever
// descriptor it turns out to read. A request that may be answered in a
// coding confirms the cached entry before it knows: a file sent from disk
// that has no variant, asked for with a browser's Accept-Encoding, then
// opens its descriptor in the tree the confirmation found (before, it
// looked a second time to open it).
func TestOneLookPerRequest(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.File("photo.jpg", testsite.Random(200<<10, 51)) // from disk; no variant
	s.File("app.js", bytes.Repeat([]byte("export const oneLook = 1;\n"), 4000))
	for _, o := range []struct {
		name string
		opts Options
	}{
		{"events", Options{}},
		{"stat", Options{Revalidate: -1}},
	} {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHandler(t, s.Root, o.opts)
			for _, c := range []struct{ name, path, accept, method string }{
				{"image, browser", "/photo.jpg", "gzip, deflate, br, zstd", "GET"},
				{"image, no coding", "/photo.jpg", "", "GET"},
				{"image, range", "/photo.jpg", "br", "GET"},
				{"image, HEAD", "/photo.jpg", "br", "HEAD"},
				{"script, br", "/app.js", "br", "GET"},
				{"script, identity", "/app.js", "", "GET"},
			} {
				t.Run(c.name, func(t *testing.T) {
					var hdr []string
					if c.accept != "" {
						hdr = append(hdr, "Accept-Encoding", c.accept)
					}
					if c.name == "image, range" {
						hdr = append(hdr, "Range", "bytes=0-99")
					}
					if w := testsite.Serve(h, c.method, c.path, hdr...); w.Code >= 300 {
						t.Fatalf("status %d", w.Code)
					}
					h.store.cache.sync()
					before := lookCount(h)
					for range 3 {
						if w := testsite.Serve(h, c.method, c.path, hdr...); w.Code >= 300 {
							t.Fatalf("status %d", w.Code)
						}
					}
					if n := lookCount(h) - before; n != 3 {
						t.Errorf("%d looks for 3 requests, want 3", n)
					}
				})
			}
		})
	}
}
