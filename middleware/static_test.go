package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestStatic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	chiRouter := func() http.Handler {
		r := chi.NewRouter()
		r.Use(Static(h))
		r.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("time\n")) })
		r.NotFound(teapot{t}.ServeHTTP)
		r.MethodNotAllowed(teapot{t}.ServeHTTP)
		return r
	}
	mux := func() http.Handler {
		m := http.NewServeMux()
		m.Handle("/", Static(h)(teapot{t}))
		return m
	}
	stacks := []struct {
		name string
		h    http.Handler
	}{
		{"bare", Static(h)(teapot{t})},
		{"chi Use", chiRouter()},
		{"ServeMux", mux()},
	}
	tests := []struct {
		name, method, target string
		header               []string
		want                 int
		body                 string // "" skips the check
		location             string
	}{
		{name: "file", method: "GET", target: "/style.css", want: 200, body: string(f.files["style.css"])},
		{name: "HEAD of a file", method: "HEAD", target: "/style.css", want: 200},
		{name: "large file", method: "GET", target: "/large.bin", want: 200, body: string(f.files["large.bin"])},
		{name: "range", method: "GET", target: "/small.txt", header: []string{"Range", "bytes=10-19"}, want: 206, body: string(f.files["small.txt"][10:20])},
		{name: "directory index", method: "GET", target: "/docs/", want: 200, body: string(f.files["docs/index.html"])},
		{name: "directory redirect", method: "GET", target: "/docs", want: 301, location: "docs/"},
		{name: "index.html redirect", method: "GET", target: "/docs/index.html", want: 301, location: "./"},
		{name: "missing", method: "GET", target: "/nope.js", want: 418, body: "next\n"},
		{name: "hidden", method: "GET", target: "/.env", want: 418, body: "next\n"},
		{name: "directory without index", method: "GET", target: "/empty/", want: 418, body: "next\n"},
		{name: "POST", method: "POST", target: "/style.css", want: 418, body: "next\n"},
		{name: "OPTIONS", method: "OPTIONS", target: "/style.css", want: 418, body: "next\n"},
		{name: "dot-dot", method: "GET", target: "/docs/../style.css", want: 418, body: "next\n"},
		{name: "empty segment", method: "GET", target: "//style.css", want: 418, body: "next\n"},
		{name: "encoded slash", method: "GET", target: "/docs%2Findex.html", want: 418, body: "next\n"},
		{name: "encoded letter", method: "GET", target: "/styl%65.css", want: 418, body: "next\n"},
	}
	for _, st := range stacks {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					if st.name == "ServeMux" && (tt.name == "dot-dot" || tt.name == "empty segment") {
						// ServeMux redirects these to the clean path itself.
						tt.want, tt.body, tt.location = 307, "", "/style.css"
					}
					w := serve(t, st.h, tt.method, tt.target, tt.header...)
					if w.Code != tt.want {
						t.Fatalf("%s %s: %d, want %d; body %.60q", tt.method, tt.target, w.Code, tt.want, w.Body)
					}
					if tt.body != "" && w.Body.String() != tt.body {
						t.Errorf("%s %s: body %.60q (%d bytes), want %.60q (%d bytes)", tt.method, tt.target, w.Body, w.Body.Len(), tt.body, len(tt.body))
					}
					if got := w.Header().Get("Location"); got != tt.location {
						t.Errorf("Location %q, want %q", got, tt.location)
					}
				})
			}
		})
	}
}

// TestStaticOneLookup: a file Static serves costs the handler one lookup, as
// ServeHTTP alone does; the existence check is that same lookup.
func TestStaticOneLookup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct{ name, target string }{
		{"small file", "/style.css"},
		{"large file", "/large.bin"},
		{"index", "/docs/"},
		{"miss", "/nope.css"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			s := Static(h)(teapot{t})
			for i := range 3 { // a miss, then hits
				before := lookups(h)
				serve(t, s, "GET", tt.target)
				if n := lookups(h) - before; n != 1 {
					t.Fatalf("request %d for %s: %d lookups, want 1", i+1, tt.target, n)
				}
			}
			if got := h.Stats().Requests; got != 3 {
				t.Errorf("Stats.Requests = %d, want 3", got)
			}
		})
	}
}

// TestStaticNextUntouched: what Static passes on reaches next with the very
// same writer and request.
func TestStaticNextUntouched(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	for _, target := range []string{"/nope", "/.env", "/docs/../style.css"} {
		req := httptest.NewRequest("GET", target, nil)
		w := httptest.NewRecorder()
		var gotW http.ResponseWriter
		var gotR *http.Request
		Static(h)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gotW, gotR = w, r })).ServeHTTP(w, req)
		if gotW != w || gotR != req {
			t.Errorf("%s: next got writer %p and request %p, want %p and %p", target, gotW, gotR, w, req)
		}
	}
}

// TestStaticCleanURLs: with jaws.Options.CleanURLs a page is a file Static
// serves; a name with no page still goes to next.
func TestStaticCleanURLs(t *testing.T) {
	t.Parallel()
	f := newFixture(t).withPages()
	s := Static(f.handler(t, cleanURLs()))(teapot{t})
	tests := []struct {
		target string
		want   int
		body   string // or, for a 301, the Location
	}{
		{"/about", 200, string(f.files["about.html"])},
		{"/guide", 200, string(f.files["guide.html"])},
		{"/guide/setup", 200, string(f.files["guide/setup.html"])},
		{"/about/", 301, "../about"},
		{"/docs", 301, "docs/"},
		{"/nope", 418, "next\n"},
		{"/.secret", 418, "next\n"},
		{"/empty/", 418, "next\n"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			t.Parallel()
			w := serve(t, s, "GET", tt.target)
			got := w.Body.String()
			if w.Code == 301 {
				got = w.Header().Get("Location")
			}
			if w.Code != tt.want || got != tt.body {
				t.Errorf("GET %s: %d %.60q, want %d %.60q", tt.target, w.Code, got, tt.want, tt.body)
			}
		})
	}
}
