package middleware

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// browserAccept is what Chromium sends with a navigation.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8"

// Sizes of the fixture's files either side of jaws's default
// CacheMaxFileSize (64 KiB): small ones take the memory path, large ones the
// zero-copy path where it applies and the fallback path elsewhere.
const (
	smallSize = 4 << 10
	largeSize = 2 << 20
)

// fixture is a site with a file of each kind the middleware treats apart.
type fixture struct {
	*testsite.Site
	files map[string][]byte // name -> content
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{Site: testsite.New(t), files: map[string][]byte{}}
	add := func(name string, data []byte) {
		f.File(name, data)
		f.files[name] = data
	}
	add("index.html", []byte("<!doctype html>\n<title>app</title>\n"+strings.Repeat("<p>the single-page app's shell</p>\n", 40)))
	add("shell.html", []byte("<!doctype html>\n<title>other shell</title>\n"))
	add("style.css", []byte(strings.Repeat("body { margin: 0 auto; max-width: 40em; }\n", 30)))
	add("app.3f9a1c2b.js", []byte(strings.Repeat("console.log('fingerprinted');\n", 40)))
	add("small.txt", text(smallSize))
	add("large.txt", text(largeSize))
	add("large.bin", testsite.Random(largeSize, 1))
	add("docs/index.html", []byte("<!doctype html>\n<title>docs</title>\n"))
	add("private/secret.txt", []byte("the secret\n"))
	add(".env", []byte("TOKEN=hidden\n"))
	f.Dir("empty")
	return f
}

// withPages adds to f pages as static site generators write them for
// jaws.Options.CleanURLs: about.html, guide.html beside guide/setup.html
// (a directory without an index), docs.html beside docs/index.html, and a
// hidden .secret.html. It returns f.
func (f *fixture) withPages() *fixture {
	for _, name := range []string{"about.html", "guide.html", "guide/setup.html", "docs.html", ".secret.html"} {
		data := []byte("<!doctype html>\n<title>" + name + "</title>\n")
		f.File(name, data)
		f.files[name] = data
	}
	return f
}

// cleanURLs is customErrors with jaws.Options.CleanURLs.
func cleanURLs() jaws.Options {
	o := customErrors
	o.CleanURLs = true
	return o
}

// text returns n bytes of compressible, line-numbered text.
func text(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%08d the quick brown fox jumps over the lazy dog\n", i)
	}
	return []byte(b.String()[:n])
}

// handler returns a new jaws.Handler over the fixture, closed when the test
// ends. Each has its own counters.
//
// With JAWS_TEST_SOURCE=dirfs it is made by jaws.NewFS over os.DirFS of the
// fixture, so the same tests prove NewFS behaves as New does.
func (f *fixture) handler(t testing.TB, opts jaws.Options) *jaws.Handler {
	t.Helper()
	var h *jaws.Handler
	var err error
	if os.Getenv("JAWS_TEST_SOURCE") == "dirfs" {
		h, err = jaws.NewFS(os.DirFS(f.Root), opts)
	} else {
		h, err = jaws.New(f.Root, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	testsite.Made(t, h)
	return h
}

// customErrors are jaws.Options with custom 404 and 405 pages, told apart from
// net/http's and jaws's own by their bodies.
var customErrors = jaws.Options{
	NotFound: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<h1>custom 404</h1>\n")
	}),
	MethodNotAllowed: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "custom 405\n")
	}),
}

const (
	custom404 = "<h1>custom 404</h1>\n"
	custom405 = "custom 405\n"
	plain404  = "404 page not found\n"
)

// serve runs one request through h with a ResponseRecorder, as a user's unit
// test would. header holds name, value pairs.
func serve(t testing.TB, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return testsite.Serve(h, method, target, header...)
}

// teapot is a next handler that answers 418 and records that it ran and
// whether the header it got was untouched.
type teapot struct {
	t testing.TB
}

func (n teapot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(w.Header()) != 0 {
		n.t.Errorf("%s %s: next got headers %v, want none", r.Method, r.URL, w.Header())
	}
	w.WriteHeader(http.StatusTeapot)
	io.WriteString(w, "next\n")
}

// lookups is how many cache lookups (hits and misses) h made.
func lookups(h *jaws.Handler) uint64 {
	s := h.Stats()
	return s.CacheHits + s.CacheMisses
}
