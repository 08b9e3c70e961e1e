package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"runtime"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/httprule"
	"github.com/jaws-go/jaws/internal/testsite"
)

func TestIsCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target string
		want   bool
	}{
		{"/", true},
		{"/a/b.css", true},
		{"/a/", true},
		{"/caf%C3%A9.txt", true},      // non-ASCII must be encoded
		{"/100%25.txt", true},         // so must "%"
		{"/a%20b.txt", true},          // and a space
		{"/it's.txt", true},           // a sub-delim as it is
		{"/a//b", false},              // empty segment
		{"//a", false},                // empty first segment
		{"/a/./b", false},             // dot segment
		{"/a/.", false},               // trailing dot
		{"/a/../b", false},            // dot-dot
		{"/..", false},                // dot-dot at the root
		{"/%2e%2e/b", false},          // encoded dot-dot
		{"/a%2Fb", false},             // encoded slash
		{"/a%2fb", false},             // lower case
		{"/priv%61te/key", false},     // encoded letter
		{"/it%27s.txt", true},         // Go's own spelling: no RawPath, router and server agree
		{"/a%2Bb", false},             // an escape Go would not write: the router sees another name
		{"/a%7Eb", false},             // encoded tilde
		{"/..a/b", true},              // a name starting with dots
		{"/a%3Fb", true},              // "?" must be encoded
		{"/a%23b", true},              // so must "#"
		{"/%C3%A9/%2e%2e/", false},    // both
		{"/a/b/", true},               // trailing slash
		{"/.well-known/x", true},      // hidden, but canonical
		{"/...", true},                // three dots is a name
		{"/a/b?x=/../..", true},       // the query is not the path
		{"/a/%252e%252e/b", true},     // an encoded "%2e": the name "%2e%2e"
		{"/a/b/..%2f", false},         // dot-dot hidden by an encoded slash
		{"/a/b%2F..%2F..%2Fc", false}, // and more of it
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.target, nil)
		if got := isCanonical(r); got != tt.want {
			t.Errorf("isCanonical(%q) = %v, want %v (Path %q, RawPath %q)", tt.target, got, tt.want, r.URL.Path, r.URL.RawPath)
		}
	}
}

func TestCanonicalLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		requestURI string // as the client sent it
		path       string // r.URL.Path as the handler sees it, "" for the same
		want       string
		ok         bool
	}{
		{name: "dot-dot", requestURI: "/a/../b.css", want: "/b.css", ok: true},
		{name: "query kept", requestURI: "/a/../b.css?v=1&x=%2F", want: "/b.css?v=1&x=%2F", ok: true},
		{name: "trailing slash kept", requestURI: "/a/./b/", want: "/a/b/", ok: true},
		{name: "empty segments", requestURI: "//a//b", want: "/a/b", ok: true},
		{name: "above the root", requestURI: "/../../a", want: "/a", ok: true},
		{name: "root", requestURI: "/./", want: "/", ok: true},
		{name: "encoded slash", requestURI: "/public%2Fkey", want: "/public/key", ok: true},
		{name: "encoded letters", requestURI: "/priv%61te/key", want: "/private/key", ok: true},
		{name: "encoded sub-delim", requestURI: "/it%27s.txt", want: "/it's.txt", ok: true},
		{name: "needed escapes stay", requestURI: "/caf%C3%A9/%2e/100%25%20off%3F.txt", want: "/caf%C3%A9/100%25%20off%3F.txt", ok: true},
		{name: "no scheme-relative URL", requestURI: "//evil.example/x", want: "/evil.example/x", ok: true},
		{name: "under a stripped prefix", requestURI: "/assets/a/../b.css", path: "/a/../b.css", want: "/assets/b.css", ok: true},
		{name: "already canonical", requestURI: "/a/b.css", path: "/x/../b.css", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "http://example.com"+tt.requestURI, nil)
			r.RequestURI = tt.requestURI
			if tt.path != "" {
				r.URL.Path, r.URL.RawPath = tt.path, ""
			}
			got, ok := canonicalLocation(r)
			if got != tt.want || ok != tt.ok {
				t.Errorf("canonicalLocation(%q) = %q, %v; want %q, %v", tt.requestURI, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzCanonical checks the properties the redirects rely on, for any path:
// a canonical path names the file its segments spell, and the redirect target
// of a non-canonical one is canonical, names the file the original named, and
// is never redirected again.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/a/../b", "//x", "/a%2Fb", "/priv%61te", "/%2e%2e/", "/caf%C3%A9", "/a/./b/", "/it's", "/%252e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !strings.HasPrefix(raw, "/") {
			raw = "/" + raw
		}
		u, err := url.ParseRequestURI(raw)
		if err != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, "?#") {
			return
		}
		r := &http.Request{Method: "GET", URL: u, RequestURI: raw}
		name := path.Clean(u.Path)
		if isCanonical(r) {
			// What the router matched (the raw path, decoded) is the name.
			if got := strings.TrimSuffix(u.Path, "/"); got != strings.TrimSuffix(name, "/") && u.Path != "/" {
				t.Fatalf("%q is canonical, but its path %q cleans to %q", raw, u.Path, name)
			}
			if _, ok := canonicalLocation(r); ok && u.RawPath == "" && httprule.EscapePath(u.Path) == raw {
				t.Fatalf("%q is canonical, yet canonicalLocation offers a redirect", raw)
			}
			return
		}
		loc, ok := canonicalLocation(r)
		if !ok {
			t.Fatalf("%q is not canonical and has no canonical location", raw)
		}
		lu, err := url.ParseRequestURI(loc)
		if err != nil {
			t.Fatalf("location %q of %q does not parse: %v", loc, raw, err)
		}
		if strings.HasPrefix(loc, "//") {
			t.Fatalf("location %q of %q is scheme-relative", loc, raw)
		}
		if path.Clean(lu.Path) != name {
			t.Fatalf("location %q of %q names %q, want %q", loc, raw, path.Clean(lu.Path), name)
		}
		r2 := &http.Request{Method: "GET", URL: lu, RequestURI: loc}
		if !isCanonical(r2) {
			t.Fatalf("location %q of %q is not canonical (Path %q, RawPath %q)", loc, raw, lu.Path, lu.RawPath)
		}
	})
}

// canonicalCases pin, for each kind of escape, the one answer jaws.Handler
// and this package give (httprule.NeedlessEscape and httprule.CleanPath):
// whether target is canonical, and where Mount redirects it when it is not
// ("" for a 404: nothing to offer). A target is sent as a client would, so
// net/url sets RawPath only when the client's spelling is not its own
// encoding of the path; in "/it's/..." the literal "'" (which net/url would
// encode) makes it set one, and the router in front then matches the raw
// path (chi does).
var canonicalCases = []struct {
	name, target string
	file         string // the file the decoded path names, "" for none
	canonical    bool
	loc          string // Mount's redirect when not canonical
}{
	{"%21, no RawPath", "/x%21y.txt", "x!y.txt", true, ""},
	{"%21 in a RawPath", "/it's/x%21y.txt", "it's/x!y.txt", false, "/it's/x!y.txt"},
	{"! as it is", "/it's/x!y.txt", "it's/x!y.txt", true, ""},
	{"%2F", "/x%2Fy.txt", "x/y.txt", false, "/x/y.txt"},
	{"%2f", "/x%2fy.txt", "x/y.txt", false, "/x/y.txt"},
	{"%61", "/x%61y.txt", "xay.txt", false, "/xay.txt"},
	{"%7E", "/x%7Ey.txt", "x~y.txt", false, "/x~y.txt"},
	{"%25, no RawPath", "/x%25y.txt", "x%y.txt", true, ""},
	{"%25 in a RawPath", "/it's/x%25y.txt", "it's/x%y.txt", true, ""},
	{"%20, no RawPath", "/x%20y.txt", "x y.txt", true, ""},
	{"%20 in a RawPath", "/it's/x%20y.txt", "it's/x y.txt", true, ""},
	{"%3A", "/x%3Ay.txt", "x:y.txt", false, "/x:y.txt"},
	{": as it is", "/x:y.txt", "x:y.txt", true, ""},
	{"%40", "/x%40y.txt", "x@y.txt", false, "/x@y.txt"},
	{"@ as it is", "/x@y.txt", "x@y.txt", true, ""},
	{"%2B", "/x%2By.txt", "x+y.txt", false, "/x+y.txt"},
	{"+ as it is", "/x+y.txt", "x+y.txt", true, ""},
	{"%00, no RawPath", "/x%00y.txt", "", true, ""},
	{"%00 in a RawPath", "/it's/x%00y.txt", "", true, ""},
	{"lower-case hex", "/caf%c3%a9.txt", "café.txt", false, "/caf%C3%A9.txt"},
	{"upper-case hex", "/caf%C3%A9.txt", "café.txt", true, ""},
	{"dot-dot", "/it's/../x+y.txt", "x+y.txt", false, "/x+y.txt"},
	{"empty segment", "//x+y.txt", "x+y.txt", false, "/x+y.txt"},
	{"dot segment", "/./x+y.txt", "x+y.txt", false, "/x+y.txt"},
}

// malformedCases are raw paths no URL net/url parses can have (net/http
// answers 400 before any handler runs), as a handler in front might set
// them in RawPath over a path with the same bytes: never served, by either.
var malformedCases = []string{"/x%G1y.txt", "/x%", "/x%2"}

// canonicalSite is a tree with every file canonicalCases names, and a
// jaws.Handler over it (by jaws.NewFS with JAWS_TEST_SOURCE=dirfs).
func canonicalSite(t *testing.T) *jaws.Handler {
	t.Helper()
	site := testsite.New(t)
	for _, c := range canonicalCases {
		if c.file != "" && !(runtime.GOOS == "windows" && strings.ContainsAny(c.file, ":")) {
			site.File(c.file, []byte("file "+c.file+"\n"))
		}
	}
	return (&fixture{Site: site}).handler(t, jaws.Options{})
}

// TestCanonicalOneAnswer: for each case the handler alone, Mount, Static and
// SPA agree on whether the file is served; what none of them serves,
// Mount and SPA redirect to the canonical spelling, which all of them serve.
func TestCanonicalOneAnswer(t *testing.T) {
	t.Parallel()
	h := canonicalSite(t)
	handlers := []struct {
		name string
		h    http.Handler
	}{
		{"Handler", h},
		{"Mount", Mount("", h)},
		{"Static", Static(h)(teapot{t})},
		{"SPA", SPA(h, SPAOptions{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot) // SPA adds "Vary: Accept" first
		}))},
	}
	for _, c := range canonicalCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.file != "" && runtime.GOOS == "windows" && strings.ContainsAny(c.file, ":") {
				t.Skip("Windows stores no ':' in a name")
			}
			r := httptest.NewRequest("GET", c.target, nil) // as net/http parses it
			if got := isCanonical(r); got != c.canonical {
				t.Fatalf("isCanonical(%q) = %v, want %v (Path %q, RawPath %q)", c.target, got, c.canonical, r.URL.Path, r.URL.RawPath)
			}
			body := "file " + c.file + "\n"
			for _, hh := range handlers {
				w := serve(t, hh.h, "GET", c.target)
				served := w.Code == 200 && w.Body.String() == body
				if want := c.canonical && c.file != ""; served != want {
					t.Errorf("%s: GET %s: %d %.40q, served %v, want %v", hh.name, c.target, w.Code, w.Body, served, want)
				}
				switch {
				case served || c.canonical:
				case hh.name == "Handler":
					if w.Code != 404 {
						t.Errorf("%s: GET %s: %d, want 404", hh.name, c.target, w.Code)
					}
				case hh.name == "Static":
					if w.Code != http.StatusTeapot {
						t.Errorf("%s: GET %s: %d, want next's 418", hh.name, c.target, w.Code)
					}
				default: // Mount and SPA
					if w.Code != 301 || w.Header().Get("Location") != c.loc {
						t.Errorf("%s: GET %s: %d Location %q, want 301 to %q", hh.name, c.target, w.Code, w.Header().Get("Location"), c.loc)
					}
				}
			}
			if c.canonical {
				return
			}
			// Where the redirect leads, every one of them serves the file.
			for _, hh := range handlers {
				if w := serve(t, hh.h, "GET", c.loc); w.Code != 200 || w.Body.String() != body {
					t.Errorf("%s: GET %s (the location of %s): %d %.40q, want 200 and the file", hh.name, c.loc, c.target, w.Code, w.Body)
				}
			}
		})
	}
	for _, raw := range malformedCases {
		t.Run(raw, func(t *testing.T) {
			t.Parallel()
			r := &http.Request{Method: "GET", URL: &url.URL{Path: raw, RawPath: raw}, RequestURI: raw, Header: http.Header{}}
			if isCanonical(r) {
				t.Fatalf("isCanonical(%q) = true, want false", raw)
			}
			for _, hh := range handlers {
				w := httptest.NewRecorder()
				hh.h.ServeHTTP(w, r)
				want := 404
				if hh.name == "Static" {
					want = http.StatusTeapot
				}
				if w.Code != want {
					t.Errorf("%s: GET %s (RawPath set by hand): %d, want %d", hh.name, raw, w.Code, want)
				}
			}
		})
	}
}

// TestCanonicalBehindChi: a chi route guarding a path with a sub-delim in it
// ("/p!r!v/*", "/a+b/*") is not passed by a spelling that encodes the
// sub-delim while a RawPath is set, whichever of the handler, Mount, Static
// and SPA serves the rest: chi matches the raw path, so such a request goes
// to the catch-all, and jaws must not serve it the guarded file (RFC 3986
// §2.2: "%2B" is not "+").
func TestCanonicalBehindChi(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	const secret = "the secret\n"
	site.File("p!r!v/secret.txt", []byte(secret))
	site.File("a+b/secret.txt", []byte(secret))
	site.File("public.txt", []byte("public\n"))
	h := (&fixture{Site: site}).handler(t, jaws.Options{})
	guard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "guarded", http.StatusUnauthorized) })
	for _, rest := range []struct {
		name string
		h    http.Handler
	}{
		{"Handler", h},
		{"Mount", Mount("", h)},
		{"Static", Static(h)(http.NotFoundHandler())},
		{"SPA", SPA(h, SPAOptions{})(nil)},
	} {
		r := chi.NewRouter()
		r.Handle("/p!r!v/*", guard)
		r.Handle("/a+b/*", guard)
		r.Handle("/*", rest.h)
		for _, target := range []string{
			"/p!r!v/secret.txt",
			"/p%21r%21v/secret.txt", // no RawPath: chi matches the decoded path
			"/p!r%21v/secret.txt",   // RawPath: chi sees "%21"
			"/p%21r!v/secret.txt",
			"/a+b/secret.txt",
			"/a%2Bb/secret.txt",
			"/a%2bb/secret.txt",
			"/a+b%2Fsecret.txt",
		} {
			t.Run(rest.name+" "+target, func(t *testing.T) {
				t.Parallel()
				loc := target
				for range 4 { // follow redirects
					w := serve(t, r, "GET", loc)
					if strings.Contains(w.Body.String(), secret) {
						t.Fatalf("GET %s, at %s: %d, served the guarded file", target, loc, w.Code)
					}
					if w.Code != 301 {
						return
					}
					loc = w.Header().Get("Location")
				}
				t.Fatalf("GET %s: redirected more than 3 times", target)
			})
		}
		if w := serve(t, r, "GET", "/public.txt"); w.Code != 200 {
			t.Errorf("%s: GET /public.txt: %d, want 200", rest.name, w.Code)
		}
	}
}
