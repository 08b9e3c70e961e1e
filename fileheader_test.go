package jaws_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// The tests of Options.Header: the fields it gives a file go out with every
// 200, 206 and 304 for it, on every path and in every coding, and with no
// other answer; what it may not set is refused and said once; a handler in
// front wins; the dictionary rules read its fields; it runs once per
// version of a file; the fast lane sends its fields too.

// fileFields is the hook most tests here give: every file gets X-File, its
// name, a Cache-Control and two Link values.
func fileFields(name string, h http.Header) {
	h.Set("X-File", name)
	h.Set("Cache-Control", "public, max-age=60")
	h.Add("Link", "</a.css>; rel=preload; as=style")
	h.Add("Link", "</b.js>; rel=preload; as=script")
}

// checkFileFields fails t unless hdr carries fileFields' fields for file,
// or, with file "", none of them.
func checkFileFields(t *testing.T, hdr http.Header, file string) {
	t.Helper()
	if file == "" {
		for _, k := range []string{"X-File", "Cache-Control", "Link"} {
			if v, ok := hdr[k]; ok {
				t.Errorf("%s: %q, want none", k, v)
			}
		}
		return
	}
	links := []string{"</a.css>; rel=preload; as=style", "</b.js>; rel=preload; as=script"}
	if got := hdr.Values("X-File"); !slices.Equal(got, []string{file}) {
		t.Errorf("X-File: %q, want %q", got, file)
	}
	if got := hdr.Values("Cache-Control"); !slices.Equal(got, []string{"public, max-age=60"}) {
		t.Errorf("Cache-Control: %q, want the hook's", got)
	}
	if got := hdr.Values("Link"); !slices.Equal(got, links) {
		t.Errorf("Link: %q, want %q", got, links)
	}
}

func brotliOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, 5)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHeaderHookPaths: the hook's fields go out with 200, 206 and 304, GET
// and HEAD, from memory, zero-copy and the fallback, in a precompressed
// sibling's coding and a compressed one, with an index page's name; and
// with no 404, redirect, 405, 412 or 416.
func TestHeaderHookPaths(t *testing.T) {
	t.Parallel()
	css := bytes.Repeat([]byte("body { margin: 0 auto; color: #333; }\n"), 60)
	site := testsite.New(t).
		File("small.txt", bytes.Repeat([]byte("a small text file, compressible. "), 60)).
		File("mid.bin", testsite.Random(200<<10, 7)).
		File("style.css", css).
		File("style.css.br", brotliOf(t, css)).
		File("docs/index.html", []byte("<!doctype html><title>docs</title>\n"))
	recs := newRecords()
	h := newHandler(t, site.Root, jaws.Options{Header: fileFields, Transfer: jaws.TransferZeroCopy, OnResponse: recs.add})
	plain := testsite.Start(t, testsite.HTTP1, h) // zero-copy for files from disk
	tls := testsite.Start(t, testsite.TLS1, h)    // the fallback
	tests := []struct {
		name     string
		srv      *testsite.Server
		method   string
		target   string
		header   []string
		status   int
		transfer string // "": not checked
		coding   string
		file     string // the hook's name; "": no field of the hook's
	}{
		{"memory", plain, "GET", "/small.txt", nil, 200, "memory", "", "small.txt"},
		{"memory HEAD", plain, "HEAD", "/small.txt", nil, 200, "", "", "small.txt"},
		{"memory range", plain, "GET", "/small.txt", []string{"Range", "bytes=0-9"}, 206, "memory", "", "small.txt"},
		{"memory ranges", plain, "GET", "/small.txt", []string{"Range", "bytes=0-9,100-109"}, 206, "memory", "", "small.txt"},
		{"memory 304", plain, "GET", "/small.txt", []string{"If-None-Match", "*"}, 304, "", "", "small.txt"},
		{"compressed", plain, "GET", "/small.txt", []string{"Accept-Encoding", "gzip"}, 200, "memory", "gzip", "small.txt"},
		{"range, of the file though compressible", plain, "GET", "/small.txt", []string{"Accept-Encoding", "zstd", "Range", "bytes=0-9"}, 206, "memory", "", "small.txt"},
		{"compressed HEAD", plain, "HEAD", "/small.txt", []string{"Accept-Encoding", "gzip"}, 200, "", "gzip", "small.txt"},
		{"sibling", plain, "GET", "/style.css", []string{"Accept-Encoding", "br"}, 200, "memory", "br", "style.css"},
		{"sibling 304", plain, "GET", "/style.css", []string{"Accept-Encoding", "br", "If-None-Match", "*"}, 304, "", "", "style.css"},
		{"index page", plain, "GET", "/docs/", nil, 200, "memory", "", "docs/index.html"},
		{"zero-copy", plain, "GET", "/mid.bin", nil, 200, "zerocopy", "", "mid.bin"},
		{"zero-copy range", plain, "GET", "/mid.bin", []string{"Range", "bytes=1000-99999"}, 206, "zerocopy", "", "mid.bin"},
		{"zero-copy ranges", plain, "GET", "/mid.bin", []string{"Range", "bytes=0-9,5000-5009"}, 206, "zerocopy", "", "mid.bin"},
		{"from disk HEAD", plain, "HEAD", "/mid.bin", nil, 200, "", "", "mid.bin"},
		{"from disk 304", plain, "GET", "/mid.bin", []string{"If-None-Match", "*"}, 304, "", "", "mid.bin"},
		{"fallback", tls, "GET", "/mid.bin", nil, 200, "fallback", "", "mid.bin"},
		{"fallback range", tls, "GET", "/mid.bin", []string{"Range", "bytes=1000-99999"}, 206, "fallback", "", "mid.bin"},
		{"fallback HEAD", tls, "HEAD", "/mid.bin", nil, 200, "", "", "mid.bin"},
		{"memory over TLS", tls, "GET", "/small.txt", nil, 200, "memory", "", "small.txt"},
		{"404", plain, "GET", "/missing.txt", nil, 404, "", "", ""},
		{"redirect", plain, "GET", "/docs", nil, 301, "", "", ""},
		{"405", plain, "POST", "/small.txt", nil, 405, "", "", ""},
		{"412", plain, "GET", "/small.txt", []string{"If-Match", `"other"`}, 412, "", "", ""},
		{"412 from disk", plain, "GET", "/mid.bin", []string{"If-Match", `"other"`}, 412, "", "", ""},
		{"416", plain, "GET", "/small.txt", []string{"Range", "bytes=99999-"}, 416, "", "", ""},
		{"416 compressed", plain, "GET", "/small.txt", []string{"Accept-Encoding", "gzip", "Range", "bytes=99999-"}, 416, "", "", ""},
		{"416 from disk", tls, "GET", "/mid.bin", []string{"Range", "bytes=999999-"}, 416, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := tc.srv.Do(t, tc.srv.NewRequest(t, tc.method, tc.target, tc.header...))
			rec := recs.next(t) // one per request, a zero-copy one as its transfer ends
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.transfer != "" && rec.Transfer != tc.transfer {
				t.Errorf("transfer %q, want %q", rec.Transfer, tc.transfer)
			}
			if got := resp.Header.Get("Content-Encoding"); got != tc.coding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.coding)
			}
			checkFileFields(t, resp.Header, tc.file)
		})
	}
}

// refusedByHook are the fields Options.Header may not set.
var refusedByHook = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Set-Cookie",
	"Accept-Ranges", "Content-Encoding", "Content-Length", "Content-Range", "Content-Type", "Date", "Etag",
	"Last-Modified", "Repr-Digest", "Use-As-Dictionary", "Vary",
	"Content-Digest", "Digest", "Content-Md5",
}

// TestHeaderHookRefused: the fields the hook may not set (the connection's,
// Set-Cookie, jaws's own, those of the bytes sent), a name that is no
// token and a value with CR LF are left out, jaws's values go out, and
// each refused name is said once in ErrorLog, whatever the files,
// versions and case of the name; the hook's other fields go out.
func TestHeaderHookRefused(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("text to be compressed, "), 100)
	site := testsite.New(t).File("a.txt", data).File("b.txt", data)
	var logged testsite.SyncBuffer
	h := newHandler(t, site.Root, jaws.Options{ErrorLog: log.New(&logged, "", 0),
		Header: func(name string, h http.Header) {
			for _, k := range refusedByHook {
				h[k] = []string{"hook"}
			}
			h["set-cookie"] = []string{"lower=hook"}
			h["Bad Name"] = []string{"hook"}
			h.Set("X-Split", "a\r\nX-Injected: hook")
			h.Set("X-Ok", "kept")
			h["x-lower"] = []string{"kept too"}
		}})
	s := testsite.Start(t, testsite.HTTP1, h)
	check := func(t *testing.T, header ...string) {
		t.Helper()
		resp, body := s.Get(t, "/a.txt", header...)
		if resp.StatusCode != 200 && resp.StatusCode != 206 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		for k, vv := range resp.Header {
			for _, v := range vv {
				if strings.Contains(v, "hook") {
					t.Errorf("%s: %q, the hook's", k, v)
				}
			}
		}
		if resp.Header.Get("X-Ok") != "kept" || resp.Header.Get("X-Lower") != "kept too" {
			t.Errorf("X-Ok %q, X-Lower %q: want the hook's", resp.Header.Get("X-Ok"), resp.Header.Get("X-Lower"))
		}
		if resp.TransferEncoding != nil || resp.Close || len(resp.Trailer) > 0 {
			t.Errorf("framing: Transfer-Encoding %q, close %v, trailers %q", resp.TransferEncoding, resp.Close, resp.Trailer)
		}
		if resp.StatusCode == 200 && resp.Header.Get("Content-Encoding") == "" && (resp.ContentLength != int64(len(data)) || !bytes.Equal(body, data)) {
			t.Errorf("Content-Length %d, body of %d bytes: want %d", resp.ContentLength, len(body), len(data))
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("Content-Type %q, want jaws's", ct)
		}
		if etag := resp.Header.Get("Etag"); !strings.HasPrefix(etag, `"`) {
			t.Errorf("ETag %q, want jaws's", etag)
		}
	}
	t.Run("identity", func(t *testing.T) { check(t) })
	t.Run("gzip", func(t *testing.T) { check(t, "Accept-Encoding", "gzip") })
	t.Run("range", func(t *testing.T) { check(t, "Range", "bytes=0-9") })
	s.Get(t, "/b.txt")
	site.Replace("a.txt", append(data, "a new version"...))
	data = append(data, "a new version"...)
	t.Run("new version", func(t *testing.T) { check(t) })

	log := logged.String()
	for _, k := range append(refusedByHook, "Bad Name", "X-Split") {
		if n := strings.Count(log, fmt.Sprintf("%q", k)); n != 1 {
			t.Errorf("%s said %d times, want once", k, n)
		}
	}
	if n := strings.Count(log, "\n"); n != len(refusedByHook)+2 {
		t.Errorf("%d lines logged, want %d:\n%s", n, len(refusedByHook)+2, log)
	}
}

// TestHeaderHookFrontWins: a field a handler in front set for the request
// wins, whole, over the hook's of the same name, the others still go out;
// a HashName name's immutable Cache-Control wins over the hook's, and a
// handler in front's over both.
func TestHeaderHookFrontWins(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("small.txt", []byte("small"))
	h := newHandler(t, site.Root, jaws.Options{Header: fileFields})
	// The handler in front sets what the request's X-Front-* fields say.
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vv := range r.Header {
			if name, ok := strings.CutPrefix(k, "X-Front-"); ok {
				w.Header()[name] = vv
			}
		}
		h.ServeHTTP(w, r)
	})
	s := testsite.Start(t, testsite.HTTP1, front)
	hashed, err := h.HashName("small.txt")
	if err != nil {
		t.Fatal(err)
	}
	links := []string{"</a.css>; rel=preload; as=style", "</b.js>; rel=preload; as=script"}
	tests := []struct {
		name   string
		target string
		header []string
		cache  string
		link   []string
	}{
		{"the hook's", "/small.txt", nil, "public, max-age=60", links},
		{"front's Cache-Control", "/small.txt", []string{"X-Front-Cache-Control", "no-store"}, "no-store", links},
		{"front's Link, whole", "/small.txt", []string{"X-Front-Link", "</c.js>; rel=preload"}, "public, max-age=60", []string{"</c.js>; rel=preload"}},
		{"front's, on a 304", "/small.txt", []string{"X-Front-Cache-Control", "no-cache", "If-None-Match", "*"}, "no-cache", links},
		{"hashed name", "/" + hashed, nil, "public, max-age=31536000, immutable", links},
		{"hashed name, front's", "/" + hashed, []string{"X-Front-Cache-Control", "no-cache"}, "no-cache", links},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _ := s.Get(t, tc.target, tc.header...)
			if resp.StatusCode != 200 && resp.StatusCode != 304 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if got := resp.Header.Values("Link"); !slices.Equal(got, tc.link) {
				t.Errorf("Link %q, want %q", got, tc.link)
			}
			if got := resp.Header.Get("X-File"); got != "small.txt" {
				t.Errorf("X-File %q, want the hook's", got)
			}
		})
	}
}

// TestHeaderHookDictionaries: the dictionary rules read the hook's fields
// as a handler in front's: its Cache-Control of a year has a versioned
// script offered as a dictionary and answered in dcz, its
// Access-Control-Allow-Origin lets a CORS request have dcz; a handler in
// front's Cache-Control, which wins, is what they read then.
func TestHeaderHookDictionaries(t *testing.T) {
	t.Parallel()
	script := func(v int) []byte {
		var b bytes.Buffer
		for i := range 400 {
			fmt.Fprintf(&b, "export function f%d(x) { return x * %d + %d; } // build %d\n", i, i, v, v)
		}
		return b.Bytes()
	}
	// A bundler's build and the one before it.
	const oldName, newName = "assets/site.0123456789abcdef.js", "assets/site.fedcba9876543210.js"
	old := script(1)
	site := testsite.New(t).File(oldName, old).File(newName, script(2))
	h := newHandler(t, site.Root, jaws.Options{Header: func(name string, h http.Header) {
		if strings.HasPrefix(name, "assets/") {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
			h.Set("Access-Control-Allow-Origin", "*")
		}
	}})
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("X-Front-Cache-Control"); v != "" {
			w.Header().Set("Cache-Control", v)
		}
		h.ServeHTTP(w, r)
	})
	s := testsite.Start(t, testsite.HTTP1, front)
	accept := []string{"Accept-Encoding", "br, zstd, dcz"}
	withDict := append(slices.Clone(accept), "Available-Dictionary", dictionary(old))
	tests := []struct {
		name   string
		header []string
		offer  bool   // Use-As-Dictionary
		coding string // Content-Encoding
	}{
		{"offered", accept, true, "br"},
		{"used", append(slices.Clone(withDict), "Sec-Fetch-Site", "same-origin"), true, "dcz"},
		{"used by CORS", append(slices.Clone(withDict), "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors",
			"Origin", "https://other.example"), true, "dcz"},
		{"front's no-store", append(slices.Clone(withDict), "X-Front-Cache-Control", "no-store"), false, "br"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := s.Get(t, "/"+newName, tc.header...)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if offer := resp.Header.Get("Use-As-Dictionary"); (offer != "") != tc.offer {
				t.Errorf("Use-As-Dictionary %q, want one: %v", offer, tc.offer)
			}
			if got := resp.Header.Get("Content-Encoding"); got != tc.coding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.coding)
			}
			vary := testsite.VaryTokens(resp.Header)
			if want := tc.offer; slices.Contains(vary, "Available-Dictionary") != want {
				t.Errorf("Vary %q: Available-Dictionary wanted: %v", vary, want)
			}
		})
	}
}

// TestHeaderHookOncePerVersion: the hook runs once per version of a file,
// however many requests, codings, ranges and revalidations ask for it, and
// once more after the file changed.
func TestHeaderHookOncePerVersion(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("text to be compressed, "), 100)
	site := testsite.New(t).File("a.txt", data)
	var calls atomic.Int64
	h := newHandler(t, site.Root, jaws.Options{Header: func(name string, h http.Header) {
		h.Set("X-Call", fmt.Sprint(calls.Add(1)))
	}})
	s := testsite.Start(t, testsite.HTTP1, h)
	requests := [][]string{
		nil, {"Accept-Encoding", "gzip"}, {"Accept-Encoding", "br"}, {"Accept-Encoding", "zstd"},
		{"Range", "bytes=0-9"}, {"If-None-Match", "*"}, {"Accept-Encoding", "gzip", "Range", "bytes=5-"},
	}
	ask := func(t *testing.T, call string) {
		t.Helper()
		for range 3 {
			for _, hdr := range requests {
				resp, _ := s.Get(t, "/a.txt", hdr...)
				if got := resp.Header.Get("X-Call"); got != call {
					t.Fatalf("%q: X-Call %q, want %q", hdr, got, call)
				}
			}
			resp, _ := s.Do(t, s.NewRequest(t, "HEAD", "/a.txt"))
			if got := resp.Header.Get("X-Call"); got != call {
				t.Fatalf("HEAD: X-Call %q, want %q", got, call)
			}
		}
	}
	s.Get(t, "/a.txt")
	h.SyncCache() // the next requests find the entry
	ask(t, "1")
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls for one version, want 1", n)
	}
	site.Replace("a.txt", append(data, "a new version"...))
	s.Get(t, "/a.txt")
	h.SyncCache()
	ask(t, "2")
	if n := calls.Load(); n != 2 {
		t.Errorf("%d calls for two versions, want 2", n)
	}
}

// TestHeaderHookValuesNotShared: the hook's values, which every response
// for the file shares, are not changed by a writer that appends to them.
func TestHeaderHookValuesNotShared(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("small.txt", []byte("small, from memory")).File("big.bin", make([]byte, 200<<10))
	h := newHandler(t, site.Root, jaws.Options{Header: fileFields})
	plain := testsite.Start(t, testsite.HTTP1, h)
	appending := testsite.Start(t, testsite.HTTP1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(appendingWriter{w, []string{"X-File", "Cache-Control", "Link"}}, r)
	}))
	for _, name := range []string{"small.txt", "big.bin"} {
		t.Run(name, func(t *testing.T) {
			for range 3 {
				appending.Get(t, "/"+name)
			}
			resp, _ := plain.Get(t, "/"+name)
			checkFileFields(t, resp.Header, name)
		})
	}
}

// TestHeaderHookPanics: a hook that panics for a file makes its requests,
// however many at once, a 500, logged, and each asks the hook again; the
// build of the entry ends, so none waits for it, and other files are
// served.
func TestHeaderHookPanics(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("bad.txt", []byte("bad")).File("good.txt", []byte("good"))
	var logged testsite.SyncBuffer
	var calls atomic.Int64
	h := newHandler(t, site.Root, jaws.Options{ErrorLog: log.New(&logged, "", 0), Header: func(name string, h http.Header) {
		if name == "bad.txt" {
			calls.Add(1)
			panic("a bug in the application")
		}
		h.Set("X-File", name)
	}})
	s := testsite.Start(t, testsite.HTTP1, h)
	get := func(target string) (int, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req := s.NewRequest(t, "GET", target).WithContext(ctx)
		resp, err := s.Client.Do(req)
		if err != nil {
			return 0, "", err
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-File"), nil
	}
	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if code, _, err := get("/bad.txt"); err != nil || code != http.StatusInternalServerError {
				t.Errorf("bad.txt: %d, %v; want 500", code, err)
			}
		})
	}
	wg.Wait()
	if code, file, err := get("/bad.txt"); err != nil || code != http.StatusInternalServerError {
		t.Errorf("bad.txt again: %d, %v; want 500", code, err)
	} else if file != "" {
		t.Errorf("X-File %q on a 500", file)
	}
	if code, file, err := get("/good.txt"); err != nil || code != 200 || file != "good.txt" {
		t.Errorf("good.txt: %d %q, %v; want 200 with the hook's field", code, file, err)
	}
	if c := calls.Load(); c < 2 {
		t.Errorf("the hook ran %d times for bad.txt, want once per failed build", c)
	}
	if !strings.Contains(logged.String(), "a bug in the application") {
		t.Errorf("the panic is not in the log:\n%s", logged.String())
	}
}
