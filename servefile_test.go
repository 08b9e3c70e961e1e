package jaws_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestServeFile: an application's own route serves one named file with
// every semantic of ServeHTTP, whatever the URL, and refuses what a request
// would be refused.
func TestServeFile(t *testing.T) {
	t.Parallel()
	big := testsite.Random(1<<20, 3)
	site := testsite.New(t).
		FileAt("files/report.pdf", []byte("%PDF-1.7 report"), diffMtime).
		FileAt("files/big.bin", big, diffMtime).
		FileAt("files/app.js", bytes.Repeat([]byte("console.log(1);\n"), 200), diffMtime).
		FileAt("docs/index.html", []byte("<h1>docs</h1>"), diffMtime).
		FileAt(".env", []byte("SECRET=1"), diffMtime).
		Dir("empty")
	site.Symlink("out", "/etc/hostname")
	h := newHandler(t, site.Root, jaws.Options{})
	route := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeFile(w, r, name) })
	}
	for _, c := range []struct {
		name, file, method string
		header             []string
		status             int
		body               []byte
		coding             string
	}{
		{"file", "files/report.pdf", "GET", nil, 200, []byte("%PDF-1.7 report"), ""},
		{"leading-slash", "/files/report.pdf", "GET", nil, 200, []byte("%PDF-1.7 report"), ""},
		{"head", "files/report.pdf", "HEAD", nil, 200, nil, ""},
		{"range", "files/big.bin", "GET", []string{"Range", "bytes=10-19"}, 206, big[10:20], ""},
		{"large", "files/big.bin", "GET", nil, 200, big, ""},
		{"directory-index", "docs", "GET", nil, 200, []byte("<h1>docs</h1>"), ""},
		{"index-by-name", "docs/index.html", "GET", nil, 200, []byte("<h1>docs</h1>"), ""},
		{"compressed", "files/app.js", "GET", []string{"Accept-Encoding", "gzip"}, 200, nil, "gzip"},
		{"post", "files/report.pdf", "POST", nil, 405, nil, ""},
		{"missing", "files/none", "GET", nil, 404, nil, ""},
		{"hidden", ".env", "GET", nil, 404, nil, ""},
		{"escape", "../etc/passwd", "GET", nil, 404, nil, ""},
		{"dot-dot", "files/../.env", "GET", nil, 404, nil, ""},
		// Names are not cleaned, as the doc says: these name a servable file.
		{"unclean-dot", "./files/report.pdf", "GET", nil, 404, nil, ""},
		{"unclean-dot-dot", "docs/../files/report.pdf", "GET", nil, 404, nil, ""},
		{"unclean-empty", "files//report.pdf", "GET", nil, 404, nil, ""},
		{"link-out", "out", "GET", nil, 404, nil, ""},
		{"dir-without-index", "empty", "GET", nil, 404, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.name == "link-out" {
				rootOnly(t)
			}
			// The URL says something else entirely: it does not matter.
			w := testsite.Serve(route(c.file), c.method, "/download/whatever/", c.header...)
			if w.Code != c.status {
				t.Fatalf("%d, want %d: %q", w.Code, c.status, w.Body.String())
			}
			if c.body != nil && !bytes.Equal(w.Body.Bytes(), c.body) {
				t.Errorf("body %d bytes, want %d", w.Body.Len(), len(c.body))
			}
			if got := w.Header().Get("Content-Encoding"); got != c.coding {
				t.Errorf("Content-Encoding %q, want %q", got, c.coding)
			}
			if c.status == 200 && w.Header().Get("Etag") == "" {
				t.Error("no ETag")
			}
		})
	}
	// Over a real connection, so a large file takes the zero-copy path.
	s := testsite.Start(t, testsite.HTTP1, route("files/big.bin"))
	if resp, body := s.Get(t, "/anything"); resp.StatusCode != 200 || !bytes.Equal(body, big) {
		t.Errorf("over HTTP/1.1: %d, %d bytes", resp.StatusCode, len(body))
	}
	if !fsSource && zeroCopied(h, 1) == 0 {
		t.Error("ServeFile never took the zero-copy path")
	}
}

// TestOuterETag: an ETag set by an outer handler is kept and is the one
// preconditions compare with, as http.ServeContent does, on ServeHTTP and
// ServeFile alike.
func TestOuterETag(t *testing.T) {
	t.Parallel()
	data := testsite.Random(100<<10, 2)
	site := testsite.New(t).FileAt("a.bin", data, diffMtime).FileAt("s.txt", []byte("small"), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	const pinned = `"release-42"`
	for _, name := range []string{"a.bin", "s.txt"} {
		for _, via := range []struct {
			name string
			h    http.Handler
		}{
			{"ServeHTTP", h},
			{"ServeFile", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeFile(w, r, name) })},
		} {
			pin := wrapETag(via.h, pinned)
			for _, c := range []struct {
				header []string
				status int
			}{
				{nil, 200},
				{[]string{"If-Match", pinned}, 200},
				{[]string{"If-Match", `"other"`}, 412},
				{[]string{"If-None-Match", pinned}, 304},
				{[]string{"Range", "bytes=0-1", "If-Range", pinned}, 206},
				{[]string{"Range", "bytes=0-1", "If-Range", `"other"`}, 200},
			} {
				w := testsite.Serve(pin, "GET", "/"+name, c.header...)
				if w.Code != c.status || w.Header().Get("Etag") != pinned {
					t.Errorf("%s %s %q: %d, ETag %s; want %d, %s", via.name, name, c.header, w.Code, w.Header().Get("Etag"), c.status, pinned)
				}
			}
		}
	}
}

// Test416Body: a 416 says what net/http says, and "bytes=" (no range at all)
// is ignored, as net/http ignores it.
func Test416Body(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("k.bin", testsite.Random(1000, 1), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	for _, c := range []struct {
		rng, body string
		status    int
	}{
		{"bytes=5000-", "invalid range: failed to overlap\n", 416},
		{"bytes=a-b", "invalid range\n", 416},
		{"bytes=", "", 200},
		{"bytes= , ", "", 200},
	} {
		w := testsite.Serve(h, "GET", "/k.bin", "Range", c.rng)
		if w.Code != c.status || c.status == 416 && w.Body.String() != c.body {
			t.Errorf("%q: %d %q, want %d %q", c.rng, w.Code, w.Body.String(), c.status, c.body)
		}
	}
}

// wrapETag sets an ETag before h runs, as an application pinning
// validators to a release would.
func wrapETag(h http.Handler, etag string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", etag)
		h.ServeHTTP(w, r)
	})
}
