package middleware_test

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/middleware"
)

// site writes a tiny single-page app to a temporary directory.
func site() string {
	dir, err := os.MkdirTemp("", "jaws-middleware-example")
	if err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>app</title>\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app.3f9a1c2b.js"), []byte("console.log('app')\n"), 0o644)
	return dir
}

// viteBuild writes what `vite build` writes to dist/: the page, hashed
// assets under assets/, and a file from public/ as it is.
func viteBuild() string {
	dir, err := os.MkdirTemp("", "jaws-middleware-example")
	if err != nil {
		log.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "assets"), 0o755)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>app</title>\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "assets", "index-GpEN3EET.js"), []byte("console.log('app')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "favicon.ico"), []byte("icon\n"), 0o644)
	return dir
}

func get(h http.Handler, target, accept string) {
	req := httptest.NewRequest("GET", target, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	body, _ := io.ReadAll(w.Body)
	fmt.Printf("%-22s %d %-36q %q\n", target, w.Code, w.Header().Get("Cache-Control"), body)
}

func Example() {
	dir := site()
	defer os.RemoveAll(dir)
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "now\n") })
	static := middleware.CacheControl() // immutable for fingerprints, no-cache for HTML
	mux.Handle("/assets/", static(middleware.Mount("/assets", h)))
	mux.Handle("/", static(middleware.SPA(h, middleware.SPAOptions{})(nil)))

	const browser = "text/html,*/*;q=0.8"
	get(mux, "/api/time", "")
	get(mux, "/assets/app.3f9a1c2b.js", "")
	get(mux, "/about", browser) // a client route: the index page
	get(mux, "/app.js", "")     // a missing asset
	// Output:
	// /api/time              200 ""                                   "now\n"
	// /assets/app.3f9a1c2b.js 200 "public, max-age=31536000, immutable" "console.log('app')\n"
	// /about                 200 "no-cache"                           "<!doctype html><title>app</title>\n"
	// /app.js                404 ""                                   "404 page not found\n"
}

func ExampleStatic() {
	dir := site()
	defer os.RemoveAll(dir)
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "the application answers "+r.Method+" "+r.URL.Path+"\n")
	})
	handler := middleware.Static(h)(app) // files first, then the application

	get(handler, "/app.3f9a1c2b.js", "")
	get(handler, "/login", "")
	// Output:
	// /app.3f9a1c2b.js       200 ""                                   "console.log('app')\n"
	// /login                 200 ""                                   "the application answers GET /login\n"
}

// Mount serves a Handler's files under a prefix of a chi router (or of an
// http.ServeMux), beside the application's own routes.
func ExampleMount() {
	dir := site()
	defer os.RemoveAll(dir)
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	r := chi.NewRouter()
	r.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "now\n") })
	r.Mount("/assets", middleware.Mount("/assets", h))

	get(r, "/api/time", "")
	get(r, "/assets/app.3f9a1c2b.js", "")
	get(r, "/assets/missing.js", "")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/assets", nil))
	fmt.Println("/assets:", w.Code, w.Header().Get("Location")) // relative: it holds under any outer prefix
	// Output:
	// /api/time              200 ""                                   "now\n"
	// /assets/app.3f9a1c2b.js 200 ""                                   "console.log('app')\n"
	// /assets/missing.js     404 ""                                   "404 page not found\n"
	// /assets: 301 ./assets/
}

// SPA serves a single-page application's build, such as Vite's dist/: its
// files as they are, the index page for the client's routes when a browser
// navigates to one, and 404 for a missing asset or a script's fetch.
func ExampleSPA() {
	dir := viteBuild()
	defer os.RemoveAll(dir)
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	app := middleware.SPA(h, middleware.SPAOptions{})(nil) // nil: jaws answers the misses
	const browser = "text/html,*/*;q=0.8"
	get(app, "/assets/index-GpEN3EET.js", "")
	get(app, "/settings/profile", browser) // a client route
	get(app, "/settings/profile", "")      // the same path fetched by a script
	get(app, "/assets/index-XXXXXXXX.js", "")
	// Output:
	// /assets/index-GpEN3EET.js 200 ""                                   "console.log('app')\n"
	// /settings/profile      200 ""                                   "<!doctype html><title>app</title>\n"
	// /settings/profile      404 ""                                   "404 page not found\n"
	// /assets/index-XXXXXXXX.js 404 ""                                   "404 page not found\n"
}

// CacheControl sets the cache policy of a Vite build: every file under
// assets/ is hashed, so immutable; pages are revalidated (no-cache, which
// jaws's ETag answers with a 304); the rest, such as files from Vite's
// public/ folder, is left to the client. Error responses carry no policy.
func ExampleCacheControl() {
	dir := viteBuild()
	defer os.RemoveAll(dir)
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	rules := append([]middleware.CacheRule{
		{Match: middleware.Glob("/assets/*"), Value: middleware.CacheImmutable},
	}, middleware.DefaultCacheRules()...)
	site := middleware.CacheControl(rules...)(middleware.SPA(h, middleware.SPAOptions{})(nil))

	const browser = "text/html,*/*;q=0.8"
	get(site, "/", browser)
	get(site, "/assets/index-GpEN3EET.js", "")
	get(site, "/favicon.ico", "")
	get(site, "/assets/gone.js", "")
	// Output:
	// /                      200 "no-cache"                           "<!doctype html><title>app</title>\n"
	// /assets/index-GpEN3EET.js 200 "public, max-age=31536000, immutable" "console.log('app')\n"
	// /favicon.ico           200 ""                                   "icon\n"
	// /assets/gone.js        404 ""                                   "404 page not found\n"
}

// Fingerprinted tells the hashed names bundlers write from ordinary names
// that only look hashed.
func ExampleFingerprinted() {
	for _, name := range []string{
		"/assets/index-GpEN3EET.js",     // Vite, Rollup
		"/main.262fc9206c15e6d7bb6a.js", // webpack
		"/js/app.0123456789abcdef.js",   // jaws's Handler.HashName
		"/Inter-SemiBold.woff2",
		"/jquery-3.7.1.min.js",
		"/photo-IMG_1234.jpg",
		"/bundle-20240101.js",
	} {
		fmt.Println(name, middleware.Fingerprinted(name))
	}
	// Output:
	// /assets/index-GpEN3EET.js true
	// /main.262fc9206c15e6d7bb6a.js true
	// /js/app.0123456789abcdef.js true
	// /Inter-SemiBold.woff2 false
	// /jquery-3.7.1.min.js false
	// /photo-IMG_1234.jpg false
	// /bundle-20240101.js false
}

// A chi application keeps chi's request logger for its API and lets jaws
// log its files (jaws.Options.AccessLog), zero-copy responses included: a
// logger that wraps the ResponseWriter would cost the files the zero-copy
// path, since the wrapper could not see what the kernel sends.
func Example_accessLog() {
	dir := site()
	defer os.RemoveAll(dir)
	files := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{} // left out, so the output is the same every run
			}
			return a
		},
	}))
	h, err := jaws.New(dir, jaws.Options{AccessLog: files})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	r := chi.NewRouter()
	r.Use(middleware.Static(h)) // files first, logged by jaws
	r.Group(func(r chi.Router) {
		r.Use(chimw.Logger) // the API, logged by chi (to stderr)
		r.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "now\n") })
	})

	for _, path := range []string{"/app.3f9a1c2b.js", "/api/time"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	// Output:
	// level=INFO msg=jaws method=GET path=/app.3f9a1c2b.js status=200 bytes=19 transfer=memory coding=""
}
