package middleware_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

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
