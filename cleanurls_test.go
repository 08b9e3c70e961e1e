package jaws_test

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// cleanSite is a site laid out as static site generators write pages:
// each file holds its own name, so a body says which file answered.
type cleanSite struct {
	*testsite.Site
	big []byte // big.html, larger than CacheMaxFileSize: sent from disk
	br  []byte // page.html.br, page.html's precompressed sibling
}

func newCleanSite(t *testing.T) cleanSite {
	t.Helper()
	s := cleanSite{Site: testsite.New(t)}
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, name := range []string{
		"about.html",
		"guide.html", "guide/setup.html", // Astro's "file" format: no guide/index.html
		"docs.html", "docs/index.html", // the directory's index wins
		"file", "file.html", // the file of that name wins
		"v1.2.html",
		"a/index.html",
		".secret.html",
		"x.html.html",         // no x.html: a name ending in .html is not tried
		"dir.html/index.html", // a directory, not a page
		"index.html",
	} {
		s.FileAt(name, []byte("this is "+name+"\n"), mtime)
	}
	s.Dir("empty") // no index, no empty.html
	s.big = testsite.Random(jaws.DefaultCacheMaxFileSize+1<<20, 7)
	s.FileAt("big.html", s.big, mtime)
	page := bytes.Repeat([]byte("<p>a page, compressible, with its sibling</p>\n"), 40)
	s.FileAt("page.html", page, mtime)
	var br bytes.Buffer
	w := brotli.NewWriterLevel(&br, 1)
	w.Write(page)
	w.Close()
	s.br = br.Bytes()
	s.FileAt("page.html.br", s.br, mtime) // no older than its file
	return s
}

// TestCleanURLs: with Options.CleanURLs a name that names nothing is served
// from its .html file, with that file's validators, ranges and compression;
// what has a name of its own wins, hidden and non-canonical names stay
// 404, and a page's URL is made canonical as a file's is.
func TestCleanURLs(t *testing.T) {
	t.Parallel()
	s := newCleanSite(t)
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true})
	body := func(name string) string { return "this is " + name + "\n" }
	tests := []struct {
		name, method, target string
		header               []string
		status               int
		body                 string // or, for a 301, the Location; "" skips the check
		same                 string // a target whose response must carry the same validators and type
	}{
		{name: "page", target: "/about", status: 200, body: body("about.html"), same: "/about.html"},
		{name: "page directly, not redirected", target: "/about.html", status: 200, body: body("about.html")},
		{name: "page with a query", target: "/about?x=1", status: 200, body: body("about.html")},
		{name: "page with a trailing slash", target: "/about/", status: 301, body: "../about"},
		{name: "page with a trailing slash and a query", target: "/about/?x=1", status: 301, body: "../about?x=1"},
		{name: "nested page", target: "/guide/setup", status: 200, body: body("guide/setup.html"), same: "/guide/setup.html"},
		{name: "file of the name wins", target: "/file", status: 200, body: body("file")},
		{name: "its page still served by name", target: "/file.html", status: 200, body: body("file.html")},
		{name: "directory with index wins", target: "/docs", status: 301, body: "docs/"},
		{name: "directory with index, its URL", target: "/docs/", status: 200, body: body("docs/index.html")},
		{name: "directory without index loses", target: "/guide", status: 200, body: body("guide.html"), same: "/guide.html"},
		{name: "directory without index, with a slash", target: "/guide/", status: 301, body: "../guide"},
		{name: "directory without index or page", target: "/empty/", status: 404},
		{name: "directory without index or page, no slash", target: "/empty", status: 404},
		{name: "a dot in the name", target: "/v1.2", status: 200, body: body("v1.2.html")},
		{name: "index page by its clean URL", target: "/a/index", status: 301, body: "./"},
		{name: "index page by its clean URL, with a slash", target: "/a/index/", status: 301, body: "../index"},
		{name: "root index page by its clean URL", target: "/index?q", status: 301, body: "./?q"},
		{name: "index page by name", target: "/a/index.html", status: 301, body: "./"},
		{name: "root", target: "/", status: 200, body: body("index.html")},
		{name: "hidden name", target: "/.secret", status: 404},
		{name: "hidden name by its page", target: "/.secret.html", status: 404},
		{name: "no .html.html", target: "/x.html", status: 404},
		{name: "a directory named .html is no page", target: "/dir", status: 404},
		{name: "missing", target: "/nope", status: 404},
		{name: "missing page", target: "/nope.html", status: 404},
		{name: "non-canonical, dot-dot", target: "/x/../about", status: 404},
		{name: "non-canonical, dot", target: "/./about", status: 404},
		{name: "non-canonical, empty element", target: "//about", status: 404},
		{name: "non-canonical, escaped", target: "/%61bout", status: 404},
		{name: "HEAD", method: "HEAD", target: "/about", status: 200, same: "/about.html"},
		{name: "range", target: "/about", header: []string{"Range", "bytes=0-3"}, status: 206, body: "this"},
		{name: "conditional", target: "/about", header: []string{"If-None-Match", "*"}, status: 304},
		{name: "precompressed sibling", target: "/page", header: []string{"Accept-Encoding", "br"}, status: 200, body: string(s.br), same: "/page.html"},
		{name: "sent from disk", target: "/big", status: 200, body: string(s.big), same: "/big.html"},
		{name: "sent from disk, range", target: "/big", header: []string{"Range", "bytes=1-4"}, status: 206, body: string(s.big[1:5])},
	}
	eachKind(t, h, func(t *testing.T, srv *testsite.Server) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				method := tt.method
				if method == "" {
					method = http.MethodGet
				}
				resp, b := srv.Do(t, srv.NewRequest(t, method, tt.target, tt.header...))
				got := string(b)
				if tt.status == http.StatusMovedPermanently {
					got = resp.Header.Get("Location")
				}
				if resp.StatusCode != tt.status || tt.body != "" && got != tt.body {
					t.Fatalf("%s %s: %d %.60q, want %d %.60q", method, tt.target, resp.StatusCode, got, tt.status, tt.body)
				}
				if tt.status == http.StatusNotFound && strings.Contains(got, "this is") {
					t.Errorf("a 404 with a file's body: %q", got)
				}
				if tt.same == "" {
					return
				}
				ref, _ := srv.Do(t, srv.NewRequest(t, method, tt.same, tt.header...))
				for _, k := range []string{"Etag", "Last-Modified", "Content-Type", "Content-Length", "Content-Encoding", "Vary"} {
					if g, w := resp.Header.Values(k), ref.Header.Values(k); strings.Join(g, ", ") != strings.Join(w, ", ") {
						t.Errorf("%s: %q, want %s's %q", k, g, tt.same, w)
					}
				}
			})
		}
	})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		off := newHandler(t, s.Root, jaws.Options{})
		for _, target := range []string{"/about", "/guide", "/about/"} {
			if w := testsite.Serve(off, "GET", target); w.Code != http.StatusNotFound {
				t.Errorf("GET %s without CleanURLs: %d, want 404", target, w.Code)
			}
		}
	})
}

// TestCleanURLsListing: with DirectoryListing, a directory without an index
// still loses to its page; one without a page is listed as before.
func TestCleanURLsListing(t *testing.T) {
	t.Parallel()
	s := newCleanSite(t)
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true, DirectoryListing: true})
	tests := []struct {
		target string
		status int
		want   string // a body's prefix, or a Location
	}{
		{"/guide", 200, "this is guide.html"},
		{"/guide/", 301, "../guide"},
		{"/empty/", 200, "<!doctype html>"},
		{"/empty", 301, "empty/"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			t.Parallel()
			w := testsite.Serve(h, "GET", tt.target)
			got := w.Body.String()
			if w.Code == http.StatusMovedPermanently {
				got = w.Header().Get("Location")
			}
			if w.Code != tt.status || !strings.HasPrefix(got, tt.want) {
				t.Errorf("GET %s: %d %.60q, want %d %q", tt.target, w.Code, got, tt.status, tt.want)
			}
		})
	}
}

// TestCleanURLsRoot: the root without an index.html has no page: "/"
// never serves "..html", a hidden name.
func TestCleanURLsRoot(t *testing.T) {
	t.Parallel()
	s := testsite.New(t).File("..html", []byte("hidden")).File("a.txt", []byte("a"))
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true, ServeDotFiles: true})
	if w := testsite.Serve(h, "GET", "/"); w.Code != 404 {
		t.Errorf("GET /: %d %q (Location %q), want 404", w.Code, w.Body.String(), w.Header().Get("Location"))
	}
}

// TestCleanURLsServeFile: ServeFile follows CleanURLs, and redirects
// nothing: a trailing slash or an index page's clean name is served.
func TestCleanURLsServeFile(t *testing.T) {
	t.Parallel()
	s := newCleanSite(t)
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true})
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"about", 200, "this is about.html\n"},
		{"/guide/setup", 200, "this is guide/setup.html\n"},
		{"about/", 200, "this is about.html\n"},
		{"guide", 200, "this is guide.html\n"},
		{"file", 200, "this is file\n"},
		{"a/index", 200, "this is a/index.html\n"},
		{".secret", 404, ""},
		{"x/../about", 404, ""},
		{"nope", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			h.ServeFile(w, httptest.NewRequest("GET", "/elsewhere", nil), tt.name)
			if w.Code != tt.status || tt.body != "" && w.Body.String() != tt.body {
				t.Errorf("ServeFile %q: %d %.60q, want %d %q", tt.name, w.Code, w.Body, tt.status, tt.body)
			}
		})
	}
}

// TestCleanURLsServeNext: a page is served by ServeNext; a name with no
// page goes to next.
func TestCleanURLsServeNext(t *testing.T) {
	t.Parallel()
	s := newCleanSite(t)
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true})
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeNext(w, r, next) })
	for target, want := range map[string]int{"/about": 200, "/guide": 200, "/guide/": 301, "/nope": 418, "/.secret": 418, "/empty/": 418} {
		if w := testsite.Serve(front, "GET", target); w.Code != want {
			t.Errorf("GET %s: %d, want %d", target, w.Code, want)
		}
	}
}

// TestCleanURLsFresh: a page is never served in place of what appears
// under its name, by the next request and with no settling: a file, a
// directory with an index page; a directory without one does not take its
// place. A page deleted is 404 at once, a page replaced is served new.
func TestCleanURLsFresh(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true})
	get := func(target string, status int, want string) {
		t.Helper()
		w := testsite.Serve(h, "GET", target)
		got := w.Body.String()
		if w.Code == http.StatusMovedPermanently {
			got = w.Header().Get("Location")
		}
		if w.Code != status || got != want {
			t.Fatalf("GET %s: %d %q, want %d %q", target, w.Code, got, status, want)
		}
	}
	for _, name := range []string{"a/file.html", "a/dir.html", "a/bare.html", "a/gone.html", "a/new.html"} {
		s.File(name, []byte(name))
		get(strings.TrimSuffix("/"+name, ".html"), 200, name) // cached now, twice
		get(strings.TrimSuffix("/"+name, ".html"), 200, name)
	}

	s.File("a/file", []byte("a/file"))
	get("/a/file", 200, "a/file")
	get("/a/file.html", 200, "a/file.html")
	if err := os.Remove(s.Path("a/file")); err != nil {
		t.Fatal(err)
	}
	get("/a/file", 200, "a/file.html")

	s.File("a/dir/index.html", []byte("a/dir/index.html"))
	get("/a/dir", 301, "dir/")
	get("/a/dir/", 200, "a/dir/index.html")

	s.Dir("a/bare")
	get("/a/bare", 200, "a/bare.html")
	s.File("a/bare/index.html", []byte("a/bare/index.html"))
	get("/a/bare", 301, "bare/")

	if err := os.Remove(s.Path("a/gone.html")); err != nil {
		t.Fatal(err)
	}
	get("/a/gone", 404, "404 page not found\n")

	s.Replace("a/new.html", []byte("a/new.html, version 2"))
	get("/a/new", 200, "a/new.html, version 2")
}

// TestCleanURLsFastLane: the lane answers a page by its clean URL once it
// has learnt it through the server, and stops the moment a file or an
// index page appears under the name, or the page goes.
func TestCleanURLsFastLane(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	for _, name := range []string{"a/file.html", "a/dir.html", "a/bare.html", "a/gone.html"} {
		s.File(name, []byte(name))
	}
	h := newHandler(t, s.Root, jaws.Options{CleanURLs: true})
	srv := laneServer(t, h, nil, nil)
	var rw *bufio.ReadWriter
	check := func(step, target string, status int, want string, lanes uint64) {
		t.Helper()
		_, rw = dialLane(t, srv) // a connection the lane did not hand over
		resp, b := laneGet(t, rw, target)
		got := string(b)
		if resp.StatusCode == http.StatusMovedPermanently {
			got = resp.Header.Get("Location")
		}
		if n := h.Stats().Lane.Responses; resp.StatusCode != status || got != want || n != lanes {
			t.Fatalf("%s: GET %s: %d %q, %d lane responses; want %d %q, %d", step, target, resp.StatusCode, got, n,
				status, want, lanes)
		}
	}
	var lanes uint64
	for _, name := range []string{"a/file", "a/dir", "a/bare", "a/gone"} {
		check("learnt through the server", "/"+name, 200, name+".html", lanes)
		lanes++
		check("answered on the lane", "/"+name, 200, name+".html", lanes)
	}

	s.File("a/file", []byte("a/file"))
	check("a file appeared: through the server", "/a/file", 200, "a/file", lanes)
	lanes++
	check("the file, on the lane", "/a/file", 200, "a/file", lanes)

	s.File("a/dir/index.html", []byte("a/dir/index.html"))
	check("an index page appeared: through the server", "/a/dir", 301, "dir/", lanes)

	s.Dir("a/bare")
	lanes++
	check("a directory without index appeared: still the page, on the lane", "/a/bare", 200, "a/bare.html", lanes)

	if err := os.Remove(s.Path("a/gone.html")); err != nil {
		t.Fatal(err)
	}
	check("the page is gone: through the server", "/a/gone", 404, "404 page not found\n", lanes)
}
