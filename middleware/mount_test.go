package middleware

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws/internal/testsite"
)

// TestMount serves the fixture under a prefix in every router setup the
// README and Mount's doc show and checks files, redirects (which must land under the
// prefix), custom 404 and 405 pages and non-canonical paths.
func TestMount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	setups := []struct {
		name   string
		prefix string // where the root appears
		mux    func() http.Handler
		own405 bool // the router answers other methods itself
	}{
		{name: "chi Mount", prefix: "/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Get("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "home") })
			r.Mount("/assets", Mount("/assets", h))
			return r
		}},
		{name: "chi Route", prefix: "/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Route("/assets", func(r chi.Router) {
				r.Handle("/*", Mount("/assets", h))
			})
			return r
		}},
		{name: "chi Mount, prefix with slash", prefix: "/static", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Mount("/static", Mount("/static/", h))
			return r
		}},
		{name: "ServeMux", prefix: "/assets", mux: func() http.Handler {
			m := http.NewServeMux()
			m.Handle("/assets/", Mount("/assets", h))
			return m
		}},
		{name: "ServeMux GET pattern", prefix: "/assets", own405: true, mux: func() http.Handler {
			m := http.NewServeMux()
			m.Handle("GET /assets/{path...}", Mount("/assets", h))
			return m
		}},
		{name: "ServeMux GET prefix pattern", prefix: "/assets", own405: true, mux: func() http.Handler {
			m := http.NewServeMux()
			m.Handle("GET /assets/", Mount("/assets", h))
			return m
		}},
		{name: "inside StripPrefix", prefix: "/app/assets", mux: func() http.Handler {
			m := http.NewServeMux()
			m.Handle("/app/", http.StripPrefix("/app", Mount("/assets", h)))
			return m
		}},
		{name: "nested chi routers", prefix: "/app/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Route("/app", func(r chi.Router) {
				r.Mount("/assets", Mount("/app/assets", h))
			})
			return r
		}},
		{name: "root inside StripPrefix with slash", prefix: "/files", mux: func() http.Handler {
			m := http.NewServeMux()
			m.Handle("/files/", http.StripPrefix("/files/", Mount("", h)))
			return m
		}},
		{name: "root", prefix: "", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Handle("/*", Mount("/", h))
			return r
		}},
	}
	tests := []struct {
		name, method, path string // path under the prefix
		redirect           bool   // the first answer is a redirect
		wantStatus         int    // after redirects
		wantPath           string // where the redirects lead, under the prefix
		wantBody           string
	}{
		{name: "file", method: "GET", path: "/style.css", wantStatus: 200, wantPath: "/style.css", wantBody: string(f.files["style.css"])},
		{name: "HEAD", method: "HEAD", path: "/style.css", wantStatus: 200, wantPath: "/style.css"},
		{name: "large file", method: "GET", path: "/large.bin", wantStatus: 200, wantPath: "/large.bin", wantBody: string(f.files["large.bin"])},
		{name: "index", method: "GET", path: "/", wantStatus: 200, wantPath: "/", wantBody: string(f.files["index.html"])},
		{name: "bare prefix", method: "GET", path: "", redirect: true, wantStatus: 200, wantPath: "/", wantBody: string(f.files["index.html"])},
		{name: "bare prefix with query", method: "GET", path: "?v=1", redirect: true, wantStatus: 200, wantPath: "/", wantBody: string(f.files["index.html"])},
		{name: "directory", method: "GET", path: "/docs", redirect: true, wantStatus: 200, wantPath: "/docs/", wantBody: string(f.files["docs/index.html"])},
		{name: "index.html", method: "GET", path: "/docs/index.html", redirect: true, wantStatus: 200, wantPath: "/docs/", wantBody: string(f.files["docs/index.html"])},
		{name: "file with slash", method: "GET", path: "/style.css/", redirect: true, wantStatus: 200, wantPath: "/style.css", wantBody: string(f.files["style.css"])},
		{name: "dot-dot", method: "GET", path: "/docs/../style.css", redirect: true, wantStatus: 200, wantPath: "/style.css", wantBody: string(f.files["style.css"])},
		{name: "encoded letter", method: "GET", path: "/styl%65.css", redirect: true, wantStatus: 200, wantPath: "/style.css", wantBody: string(f.files["style.css"])},
		{name: "missing", method: "GET", path: "/nope.js", wantStatus: 404, wantPath: "/nope.js", wantBody: custom404},
		{name: "hidden", method: "GET", path: "/.env", wantStatus: 404, wantPath: "/.env", wantBody: custom404},
		{name: "POST", method: "POST", path: "/style.css", wantStatus: 405, wantPath: "/style.css", wantBody: custom405},
	}
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			srv := testsite.Start(t, testsite.HTTP1, st.mux())
			follow := &http.Client{Transport: srv.Client.Transport}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					if (st.prefix == "" || strings.HasSuffix(st.name, "with slash")) && (tt.path == "" || strings.HasPrefix(tt.path, "?")) {
						t.Skip("no bare prefix at the root")
					}
					target := st.prefix + tt.path
					first, _ := srv.Do(t, srv.NewRequest(t, tt.method, target))
					if isRedirect := first.StatusCode/100 == 3; isRedirect != tt.redirect {
						t.Fatalf("%s %s: %d (Location %q); redirect %v, want %v", tt.method, target, first.StatusCode, first.Header.Get("Location"), isRedirect, tt.redirect)
					}
					req := srv.NewRequest(t, tt.method, target)
					resp, body := testsite.Fetch(t, follow, req)
					wantStatus := tt.wantStatus
					if st.own405 && wantStatus == 405 {
						if resp.StatusCode != 405 {
							t.Errorf("%s %s: %d, want the router's 405", tt.method, target, resp.StatusCode)
						}
						return
					}
					if resp.StatusCode != wantStatus {
						t.Fatalf("%s %s: %d at %s, want %d", tt.method, target, resp.StatusCode, resp.Request.URL.Path, wantStatus)
					}
					if got, want := resp.Request.URL.Path, st.prefix+tt.wantPath; got != want {
						t.Errorf("%s %s ended at %s, want %s", tt.method, target, got, want)
					}
					if tt.wantBody != "" && string(body) != tt.wantBody {
						t.Errorf("%s %s: body %.60q (%d bytes), want %.60q (%d bytes)", tt.method, target, body, len(body), tt.wantBody, len(tt.wantBody))
					}
					if resp.StatusCode == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
						t.Errorf("405 with Allow %q, want \"GET, HEAD\"", resp.Header.Get("Allow"))
					}
				})
			}
		})
	}
}

func TestMountOutsidePrefix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.handler(t, customErrors)
	m := Mount("/assets", h)
	for _, target := range []string{"/style.css", "/assetsstyle.css", "/other/assets/style.css"} {
		if w := serve(t, m, "GET", target); w.Code != 404 {
			t.Errorf("GET %s: %d, want 404", target, w.Code)
		}
	}
}

// TestMountRecorder: Mount through a ResponseRecorder, as users' unit tests
// call it, for both transfer paths.
func TestMountRecorder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name, file string
		memory     bool
	}{
		{"memory path", "style.css", true},
		{"fallback path", "large.bin", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			w := serve(t, Mount("/assets", h), "GET", "/assets/"+tt.file)
			if w.Code != 200 || w.Body.String() != string(f.files[tt.file]) {
				t.Fatalf("GET /assets/%s: %d, %d bytes; want 200 and the file's %d", tt.file, w.Code, w.Body.Len(), len(f.files[tt.file]))
			}
			s := h.Stats()
			if got := s.Memory.Responses == 1; got != tt.memory || s.Memory.Responses+s.Fallback.Responses != 1 {
				t.Errorf("Stats: memory %+v, fallback %+v; want one response on the %s", s.Memory, s.Fallback, tt.name)
			}
		})
	}
}

// TestMountCleanURLs: with jaws.Options.CleanURLs, pages are served under
// the prefix by their clean URLs, and every redirect (a page's trailing
// slash, an index page's clean URL, a directory's, a non-canonical path)
// lands under the prefix.
func TestMountCleanURLs(t *testing.T) {
	t.Parallel()
	f := newFixture(t).withPages()
	h := f.handler(t, cleanURLs())
	setups := []struct {
		name, prefix string
		mux          func() http.Handler
	}{
		{"ServeMux", "/assets", func() http.Handler {
			m := http.NewServeMux()
			m.Handle("/assets/", Mount("/assets", h))
			return m
		}},
		{"chi Mount", "/assets", func() http.Handler {
			r := chi.NewRouter()
			r.Mount("/assets", Mount("/assets", h))
			return r
		}},
		{"inside StripPrefix", "/app/assets", func() http.Handler {
			m := http.NewServeMux()
			m.Handle("/app/", http.StripPrefix("/app", Mount("/assets", h)))
			return m
		}},
	}
	tests := []struct {
		name, path string // path under the prefix
		redirect   bool   // the first answer is a redirect
		wantStatus int    // after redirects
		wantPath   string // where the redirects lead, under the prefix
		wantBody   string
	}{
		{"page", "/about", false, 200, "/about", string(f.files["about.html"])},
		{"page beside a directory without index", "/guide", false, 200, "/guide", string(f.files["guide.html"])},
		{"nested page", "/guide/setup", false, 200, "/guide/setup", string(f.files["guide/setup.html"])},
		{"page by its name", "/about.html", false, 200, "/about.html", string(f.files["about.html"])},
		{"page with a slash", "/about/", true, 200, "/about", string(f.files["about.html"])},
		{"directory without index, with a slash", "/guide/", true, 200, "/guide", string(f.files["guide.html"])},
		{"directory with index wins", "/docs", true, 200, "/docs/", string(f.files["docs/index.html"])},
		{"index page by its clean URL", "/docs/index", true, 200, "/docs/", string(f.files["docs/index.html"])},
		{"root index page by its clean URL", "/index", true, 200, "/", string(f.files["index.html"])},
		{"non-canonical", "/x/../about", true, 200, "/about", string(f.files["about.html"])},
		{"hidden page", "/.secret", false, 404, "/.secret", custom404},
		{"missing", "/nope", false, 404, "/nope", custom404},
	}
	for _, st := range setups {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			srv := testsite.Start(t, testsite.HTTP1, st.mux())
			follow := &http.Client{Transport: srv.Client.Transport}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					target := st.prefix + tt.path
					first, _ := srv.Get(t, target)
					if isRedirect := first.StatusCode/100 == 3; isRedirect != tt.redirect {
						t.Fatalf("GET %s: %d (Location %q); redirect %v, want %v", target, first.StatusCode, first.Header.Get("Location"), isRedirect, tt.redirect)
					}
					resp, body := testsite.Fetch(t, follow, srv.NewRequest(t, "GET", target))
					if got, want := resp.Request.URL.Path, st.prefix+tt.wantPath; resp.StatusCode != tt.wantStatus || got != want {
						t.Fatalf("GET %s: %d at %s, want %d at %s", target, resp.StatusCode, got, tt.wantStatus, want)
					}
					if string(body) != tt.wantBody {
						t.Errorf("GET %s: body %.60q, want %.60q", target, body, tt.wantBody)
					}
				})
			}
		})
	}
}
