package main

import (
	"io/fs"
	"log"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/klauspost/compress/gzhttp"

	"github.com/jaws-go/jaws"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

// newRouter builds the application: its API, the counters, and the site,
// the files of fsys served by h at / as a single-page app. A non-nil
// requestLog gets a line per request to the API and the counters (the
// site's are h's, Options.AccessLog).
func newRouter(h *jaws.Handler, fsys fs.FS, requestLog *log.Logger) (http.Handler, error) {
	// The API's answers are made per request, so a streaming compressor
	// suits them. gzhttp rather than chi's middleware.Compress: it leaves
	// bodies under MinSize alone (/api/time is a few dozen bytes, and a
	// compressed answer would be larger), offers zstd as well as gzip with
	// proper q-value negotiation, and comes from klauspost/compress, which
	// jaws already depends on.
	gz, err := gzhttp.NewWrapper(gzhttp.MinSize(apiCompressMinSize))
	if err != nil {
		return nil, err
	}
	compressAPI := func(next http.Handler) http.Handler { return gz(next) }
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.NotFound(h.ServeHTTP)

	// The application's routes, logged by chi's logger when asked to.
	var app chi.Router = r
	if requestLog != nil {
		app = r.With(middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: requestLog, NoColor: true}))
	}
	app.Get("/debug/jaws", statsHandler(h))
	app.Route("/api", func(r chi.Router) {
		r.Use(middleware.SetHeader("Cache-Control", "no-store"), compressAPI)
		r.Get("/time", timeHandler)
		r.Get("/files", filesHandler(fsys))
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such API route"})
		})
	})

	// The site, at / only, as a bundler lays it out: /assets/NAME is the
	// file assets/NAME. Files first, in front of chi, so a file costs one
	// lookup and nothing of the router (chi copies each request it routes
	// into a context of its own); what the site has no file for goes on
	// to chi's routes. Cache policy, then jaws, with nothing in between
	// that touches the body. jaws compresses by itself (jaws.Options
	// Compression): a wrapping compressor here would compress again on
	// every request what jaws compresses once, hide its precompressed
	// siblings, and take the zero-copy path away from large files. A miss
	// that is a client route gets index.html; any other miss that no route
	// takes, the 404 page.
	return filesFirst(r, jawsmw.CacheControl(), jawsmw.SPA(h, jawsmw.SPAOptions{})), nil
}

// filesFirst serves every path but the application's own (/api/...,
// /debug/jaws) through the site's middleware, which passes what it has no
// file for on to app; the application's paths go straight to app: the
// site never answers for them, not even with index.html for a browser that
// navigates to one.
func filesFirst(app http.Handler, site ...func(http.Handler) http.Handler) http.Handler {
	served := chi.Chain(site...).Handler(app)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/debug/jaws" || p == "/api" || strings.HasPrefix(p, "/api/") {
			app.ServeHTTP(w, r)
			return
		}
		served.ServeHTTP(w, r)
	})
}

// apiCompressMinSize is the smallest API answer compressed, as jaws's own
// default Compression.MinSize: below about a packet, compression saves no
// round trip.
const apiCompressMinSize = 1 << 10

// statsHandler answers with h.Stats() as indented JSON.
func statsHandler(h *jaws.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, h.Stats())
	}
}
