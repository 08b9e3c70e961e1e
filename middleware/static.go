package middleware

import (
	"net/http"

	"github.com/jaws-go/jaws"
)

// Static returns middleware that serves, with h, the GET and HEAD requests
// naming something h serves: a file under its root, a directory's index
// page, or the canonical redirect to one. Every other request (another
// method, a missing or hidden name, a directory h would not list, a path
// that is not in canonical form) goes to next with w and r untouched, so the
// application's routes and its own 404 answer it.
//
// h decides with the single lookup a served request makes anyway
// (jaws.Handler.ServeNext): a hit costs no second stat.
//
//	r := chi.NewRouter()
//	r.Use(middleware.Static(h))   // files first, then the routes below
//	r.Get("/api/time", timeHandler)
//
// Static serves under the path it is given; behind a prefix, strip it first
// (http.StripPrefix) or use Mount. Everything under h's root is public to the
// requests that reach Static: put it after authentication, or give files
// that need it a root of their own.
func Static(h *jaws.Handler) func(next http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isGetOrHead(r) || !isCanonical(r) {
				next.ServeHTTP(w, r)
				return
			}
			h.ServeNext(w, r, next)
		})
	}
}
