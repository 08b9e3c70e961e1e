package middleware

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws"
)

// TestErrorPages: jaws.Options.NotFound and MethodNotAllowed answer for the
// handler used directly and through Mount and SPA; Static leaves misses to
// the application (its next handler), by contract.
func TestErrorPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	custom := f.handler(t, customErrors)
	plain := f.handler(t, jaws.Options{})
	setups := []struct {
		name   string
		mux    func(h *jaws.Handler) http.Handler
		prefix string
		static bool // misses and other methods go to the application
	}{
		{name: "direct", mux: func(h *jaws.Handler) http.Handler { return h }},
		{name: "chi catch-all", mux: func(h *jaws.Handler) http.Handler {
			r := chi.NewRouter()
			r.Handle("/*", h)
			return r
		}},
		{name: "StripPrefix", prefix: "/static", mux: func(h *jaws.Handler) http.Handler {
			return http.StripPrefix("/static", h)
		}},
		{name: "Mount", prefix: "/assets", mux: func(h *jaws.Handler) http.Handler {
			r := chi.NewRouter()
			r.Mount("/assets", Mount("/assets", h))
			return r
		}},
		{name: "SPA", mux: func(h *jaws.Handler) http.Handler { return SPA(h, SPAOptions{})(nil) }},
		{name: "Static", static: true, mux: func(h *jaws.Handler) http.Handler { return Static(h)(teapot{t}) }},
	}
	tests := []struct {
		name, method, path string
		custom             bool
		want               int
		body               string
		allow              string
	}{
		{"missing, custom", "GET", "/nope.js", true, 404, custom404, ""},
		{"hidden, custom", "GET", "/.env", true, 404, custom404, ""},
		{"directory without index, custom", "GET", "/empty/", true, 404, custom404, ""},
		{"POST, custom", "POST", "/style.css", true, 405, custom405, "GET, HEAD"},
		{"DELETE of a missing name, custom", "DELETE", "/nope", true, 405, custom405, "GET, HEAD"},
		{"missing, default", "GET", "/nope.js", false, 404, plain404, ""},
		{"POST, default", "POST", "/style.css", false, 405, "405 Method Not Allowed\n", "GET, HEAD"},
	}
	for _, st := range setups {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				h := plain
				if tt.custom {
					h = custom
				}
				want, body, allow := tt.want, tt.body, tt.allow
				if st.static {
					want, body, allow = 418, "next\n", ""
				}
				w := serve(t, st.mux(h), tt.method, st.prefix+tt.path)
				if w.Code != want || w.Body.String() != body {
					t.Errorf("%s %s: %d %q, want %d %q", tt.method, st.prefix+tt.path, w.Code, w.Body, want, body)
				}
				if got := w.Header().Get("Allow"); got != allow {
					t.Errorf("Allow %q, want %q", got, allow)
				}
			})
		}
	}
}
