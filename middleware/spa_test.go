package middleware

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws/internal/testsite"
)

func TestSPA(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	index := string(f.files["index.html"])
	etag := serve(t, h, "GET", "/").Header().Get("Etag")
	if etag == "" {
		t.Fatal("no ETag on the index page")
	}
	spa := SPA(h, SPAOptions{})(nil)
	tests := []struct {
		name, method, target string
		header               []string
		want                 int
		body                 string // "" skips the check
		vary                 string // the Vary tokens wanted, in order
	}{
		{name: "root", method: "GET", target: "/", header: []string{"Accept", browserAccept}, want: 200, body: index, vary: "Accept-Encoding"},
		{name: "client route", method: "GET", target: "/about", header: []string{"Accept", browserAccept}, want: 200, body: index, vary: "Accept, Accept-Encoding"},
		{name: "nested client route", method: "GET", target: "/users/42/", header: []string{"Accept", browserAccept}, want: 200, body: index, vary: "Accept, Accept-Encoding"},
		{name: "client route HEAD", method: "HEAD", target: "/about", header: []string{"Accept", browserAccept}, want: 200, vary: "Accept, Accept-Encoding"},
		{name: "client route, If-None-Match", method: "GET", target: "/about", header: []string{"Accept", browserAccept, "If-None-Match", etag}, want: 304, vary: "Accept, Accept-Encoding"},
		{name: "client route, Accept text/html only", method: "GET", target: "/about", header: []string{"Accept", "text/html"}, want: 200, body: index, vary: "Accept, Accept-Encoding"},
		{name: "client route, text/html;q=0", method: "GET", target: "/about", header: []string{"Accept", "text/html;q=0, */*"}, want: 404, body: custom404, vary: "Accept"},
		{name: "client route, no Accept", method: "GET", target: "/about", want: 404, body: custom404, vary: "Accept"},
		{name: "client route, fetch", method: "GET", target: "/about", header: []string{"Accept", "*/*"}, want: 404, body: custom404, vary: "Accept"},
		{name: "client route, JSON", method: "GET", target: "/api/nope", header: []string{"Accept", "application/json"}, want: 404, body: custom404, vary: "Accept"},
		{name: "file", method: "GET", target: "/style.css", header: []string{"Accept", "text/css,*/*;q=0.1"}, want: 200, body: string(f.files["style.css"]), vary: "Accept-Encoding"},
		{name: "file, navigation", method: "GET", target: "/small.txt", header: []string{"Accept", browserAccept}, want: 200, body: string(f.files["small.txt"]), vary: "Accept-Encoding"},
		{name: "large file", method: "GET", target: "/large.txt", want: 200, body: string(f.files["large.txt"])},
		{name: "other page", method: "GET", target: "/docs/", header: []string{"Accept", browserAccept}, want: 200, body: string(f.files["docs/index.html"])},
		{name: "directory redirect", method: "GET", target: "/docs", header: []string{"Accept", browserAccept}, want: 301},
		{name: "missing asset", method: "GET", target: "/app.js", header: []string{"Accept", "*/*"}, want: 404, body: custom404, vary: "Accept"},
		{name: "missing asset, navigation", method: "GET", target: "/app.js", header: []string{"Accept", browserAccept}, want: 404, body: custom404, vary: "Accept"},
		{name: "hidden file", method: "GET", target: "/.env", header: []string{"Accept", browserAccept}, want: 404, body: custom404, vary: "Accept"},
		{name: "hidden directory", method: "GET", target: "/.git/config", header: []string{"Accept", browserAccept}, want: 200, body: index, vary: "Accept, Accept-Encoding"},
		{name: "POST", method: "POST", target: "/about", header: []string{"Accept", browserAccept}, want: 405, body: custom405},
		{name: "non-canonical", method: "GET", target: "/x/../about", header: []string{"Accept", browserAccept}, want: 301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, spa, tt.method, tt.target, tt.header...)
			if w.Code != tt.want {
				t.Fatalf("%s %s: %d, want %d; body %.60q", tt.method, tt.target, w.Code, tt.want, w.Body)
			}
			if tt.body != "" && w.Body.String() != tt.body {
				t.Errorf("body %.60q (%d bytes), want %.60q (%d bytes)", w.Body, w.Body.Len(), tt.body, len(tt.body))
			}
			// Accept from the SPA's choice of page, Accept-Encoding from the
			// handler's for a compressible file, each once.
			if got := strings.Join(testsite.VaryTokens(w.Header()), ", "); got != tt.vary {
				t.Errorf("Vary %q; want %q", w.Header().Values("Vary"), tt.vary)
			}
			if tt.want == 200 && tt.body == index && w.Header().Get("Etag") != etag {
				t.Errorf("ETag %q, want the index page's %q", w.Header().Get("Etag"), etag)
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD with a %d-byte body", w.Body.Len())
			}
		})
	}
}

// TestSPAOptions: another index page, another client-route test, and misses
// passed to next.
func TestSPAOptions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	shell, index := string(f.files["shell.html"]), string(f.files["index.html"])
	appRoutes := func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/app/") }
	tests := []struct {
		name           string
		opts           SPAOptions
		next           http.Handler
		target, accept string
		want           int
		body           string
	}{
		{"Index file", SPAOptions{Index: "/shell.html"}, nil, "/about", browserAccept, 200, shell},
		{"Index without slash", SPAOptions{Index: "shell.html"}, nil, "/about", browserAccept, 200, shell},
		{"Index index.html", SPAOptions{Index: "/index.html"}, nil, "/about", browserAccept, 200, index},
		{"Index directory", SPAOptions{Index: "/docs/"}, nil, "/about", browserAccept, 200, string(f.files["docs/index.html"])},
		{"Index missing", SPAOptions{Index: "/gone.html"}, nil, "/about", browserAccept, 404, custom404},
		{"ClientRoute yes", SPAOptions{ClientRoute: appRoutes}, nil, "/app/x.json", "*/*", 200, index},
		{"ClientRoute no", SPAOptions{ClientRoute: appRoutes}, nil, "/about", browserAccept, 404, custom404},
		{"next gets misses", SPAOptions{}, teapotNoCheck{}, "/nope.js", "*/*", 418, "next\n"},
		{"next does not get client routes", SPAOptions{}, teapotNoCheck{}, "/about", browserAccept, 200, index},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, SPA(h, tt.opts)(tt.next), "GET", tt.target, "Accept", tt.accept)
			if w.Code != tt.want || w.Body.String() != tt.body {
				t.Errorf("GET %s: %d %.60q, want %d %.60q", tt.target, w.Code, w.Body, tt.want, tt.body)
			}
			if tt.opts.ClientRoute != nil && slices.Contains(testsite.VaryTokens(w.Header()), "Accept") {
				t.Errorf("Vary %q with a ClientRoute of the application's", w.Header().Values("Vary"))
			}
		})
	}
	w := serve(t, SPA(h, SPAOptions{})(teapotNoCheck{}), "DELETE", "/about")
	if w.Code != 418 {
		t.Errorf("DELETE /about: %d, want next's 418", w.Code)
	}
}

// teapotNoCheck is teapot without the check for an empty header (SPA adds
// Vary before calling next).
type teapotNoCheck struct{}

func (teapotNoCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusTeapot)
	w.Write([]byte("next\n"))
}

// TestSPALookups: a file costs one lookup, as with the handler alone; the
// index for a client route costs two (the miss, then the index).
func TestSPALookups(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name, target string
		want         uint64
	}{
		{"file", "/style.css", 1},
		{"large file", "/large.bin", 1},
		{"client route", "/about", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			spa := SPA(h, SPAOptions{})(nil)
			for i := range 3 {
				before := lookups(h)
				if w := serve(t, spa, "GET", tt.target, "Accept", browserAccept); w.Code != 200 {
					t.Fatalf("GET %s: %d", tt.target, w.Code)
				}
				if n := lookups(h) - before; n != tt.want {
					t.Errorf("request %d: %d lookups, want %d", i+1, n, tt.want)
				}
			}
		})
	}
}

// TestSPAWithChi: the SPA as chi's catch-all next to API routes, and as
// middleware whose misses reach the router's own NotFound.
func TestSPAWithChi(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	index := string(f.files["index.html"])
	catchAll := chi.NewRouter()
	catchAll.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("now\n")) })
	catchAll.Handle("/*", SPA(h, SPAOptions{})(nil))

	asMiddleware := chi.NewRouter()
	asMiddleware.Route("/api", func(r chi.Router) {
		r.Get("/time", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("now\n")) })
	})
	asMiddleware.With(SPA(h, SPAOptions{})).NotFound(teapotNoCheck{}.ServeHTTP)

	tests := []struct {
		name, target, accept string
		want                 int
		body                 string
	}{
		{"API", "/api/time", browserAccept, 200, "now\n"},
		{"file", "/style.css", "*/*", 200, string(f.files["style.css"])},
		{"client route", "/video", browserAccept, 200, index},
		{"missing asset", "/app.js", "*/*", 404, custom404},
	}
	for _, r := range []struct {
		name string
		h    http.Handler
	}{{"catch-all", catchAll}, {"middleware", asMiddleware}} {
		for _, tt := range tests {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				want, body := tt.want, tt.body
				if r.name == "middleware" && want == 404 {
					want, body = 418, "next\n"
				}
				w := serve(t, r.h, "GET", tt.target, "Accept", tt.accept)
				if w.Code != want || w.Body.String() != body {
					t.Errorf("GET %s: %d %.60q, want %d %.60q", tt.target, w.Code, w.Body, want, body)
				}
			})
		}
	}
}

func TestAcceptsHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		accept []string
		want   bool
	}{
		{"none", nil, false},
		{"browser", []string{browserAccept}, true},
		{"exact", []string{"text/html"}, true},
		{"case", []string{"Text/HTML"}, true},
		{"spaces and weight", []string{"application/json , text/html ; q=0.5"}, true},
		{"second header line", []string{"application/json", "text/html"}, true},
		{"q=0", []string{"text/html;q=0"}, false},
		{"q=0.000", []string{"text/html; q=0.000"}, false},
		{"q=0.001", []string{"text/html; q=0.001"}, true},
		{"wildcard", []string{"*/*"}, false},
		{"text wildcard", []string{"text/*"}, false},
		{"xhtml", []string{"application/xhtml+xml"}, false},
		{"prefix", []string{"text/htmlx"}, false},
		{"q=0.", []string{"text/html;q=0."}, false},
		// A weight that is not a qvalue makes the element say nothing
		// (httprule.Weight), as in Accept-Encoding.
		{"malformed: .5", []string{"text/html;q=.5"}, false},
		{"malformed: 2", []string{"text/html;q=2"}, false},
		{"malformed: four decimals", []string{"text/html;q=0.0001"}, false},
		{"malformed: four zeros", []string{"text/html;q=0.0000"}, false},
		{"malformed: empty", []string{"text/html;q="}, false},
		{"malformed: no value", []string{"text/html;q"}, false},
		{"malformed beside a good one", []string{"text/html;q=x, text/html;q=0.5"}, true},
		{"last q counts", []string{"text/html;q=0;q=1"}, true},
		{"last q counts, down", []string{"text/html;q=1;q=0"}, false},
		{"media-type parameters first", []string{"text/html;level=1;q=0.2"}, true},
		{"upper-case Q", []string{"text/html;Q=0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := acceptsHTML(tt.accept); got != tt.want {
				t.Errorf("acceptsHTML(%q) = %v, want %v", tt.accept, got, tt.want)
			}
		})
	}
}

// TestSPACleanURLs: with jaws.Options.CleanURLs a page is the request's own
// file, tried before the request counts as a client route; Index may name
// a page by its clean URL too.
func TestSPACleanURLs(t *testing.T) {
	t.Parallel()
	f := newFixture(t).withPages()
	h := f.handler(t, cleanURLs())
	index, shell := string(f.files["index.html"]), string(f.files["shell.html"])
	tests := []struct {
		name   string
		opts   SPAOptions
		target string
		want   int
		body   string // or, for a 301, the Location
		vary   string // the Vary tokens wanted: no Accept for a page, the request's own file
	}{
		{name: "page", target: "/about", want: 200, body: string(f.files["about.html"])},
		{name: "page beside a directory without index", target: "/guide", want: 200, body: string(f.files["guide.html"])},
		{name: "nested page", target: "/guide/setup", want: 200, body: string(f.files["guide/setup.html"])},
		{name: "page with a slash", target: "/about/", want: 301, body: "../about"},
		{name: "directory with index wins", target: "/docs", want: 301, body: "docs/"},
		{name: "client route", target: "/users/42", want: 200, body: index, vary: "Accept, Accept-Encoding"},
		{name: "hidden page", target: "/.secret", want: 404, body: custom404, vary: "Accept"},
		{name: "non-canonical", target: "/x/../about", want: 301, body: "/about"},
		{name: "Index by its clean URL", opts: SPAOptions{Index: "/shell"}, target: "/users/42", want: 200, body: shell, vary: "Accept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, SPA(h, tt.opts)(nil), "GET", tt.target, "Accept", browserAccept)
			got := w.Body.String()
			if w.Code == 301 {
				got = w.Header().Get("Location")
			}
			if w.Code != tt.want || got != tt.body {
				t.Fatalf("GET %s: %d %.60q, want %d %.60q", tt.target, w.Code, got, tt.want, tt.body)
			}
			if g := strings.Join(testsite.VaryTokens(w.Header()), ", "); w.Code != 301 && g != tt.vary {
				t.Errorf("Vary %q, want %q", g, tt.vary)
			}
		})
	}
}
