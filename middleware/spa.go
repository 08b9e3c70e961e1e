package middleware

import (
	"net/http"
	"path"
	"strings"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/httprule"
)

// SPAOptions configure SPA. The zero value serves the root's index.html for
// client routes as IsClientRoute defines them.
type SPAOptions struct {
	// Index is the page served for client routes: a URL path under the
	// handler's root, such as "/app.html" or "/shell/". "" means "/", the
	// root's index.html. A path ending in "/index.html" means its directory,
	// since the handler redirects index.html to its directory.
	Index string

	// ClientRoute reports whether a GET or HEAD request for a name the
	// handler has no file for is a route of the client-side application,
	// answered with Index. nil means IsClientRoute. It is never asked about
	// requests the handler serves, nor about other methods.
	ClientRoute func(r *http.Request) bool
}

// SPA returns middleware that serves a single-page application with h,
// trying the request's own file first:
//
//   - a GET or HEAD request for a file (or a directory's index page, or a
//     canonical redirect) is served as h serves it;
//   - one for a missing name that is a client route (see
//     SPAOptions.ClientRoute) gets the Index page, with its validators, so
//     conditional requests answer 304 as they do for the page itself;
//   - anything else (a missing asset such as /app.js, another method) goes
//     to next, or, when next is nil, to h's own 404 and 405 answers
//     (jaws.Options.NotFound and MethodNotAllowed).
//
// With jaws.Options.CleanURLs a page (about.html for /about) is the
// request's own file, served before any client route.
//
// A request the handler serves costs one lookup, as with h alone. A miss
// costs a second, for the index or for h's 404, and counts twice in
// h.Stats().Requests. CleanURLs adds the page's lookup to a miss. Typical uses:
//
//	r.Handle("/*", middleware.SPA(h, middleware.SPAOptions{})(nil))  // chi: owns what no other route takes
//	r.With(middleware.SPA(h, opts)).NotFound(appNotFound)             // chi: misses to the app's 404
//	http.Handle("/", middleware.SPA(h, middleware.SPAOptions{})(nil))
//
// With the default ClientRoute the answer to a missing name depends on
// Accept, so those answers carry "Vary: Accept". A path that is not in
// canonical form redirects to its canonical form (see Mount).
func SPA(h *jaws.Handler, opts SPAOptions) func(next http.Handler) http.Handler {
	index := opts.Index
	if index == "" {
		index = "/"
	}
	if index[0] != '/' {
		index = "/" + index
	}
	if path.Base(index) == "index.html" {
		index = strings.TrimSuffix(index, "index.html")
	}
	clientRoute, vary := opts.ClientRoute, false
	if clientRoute == nil {
		clientRoute, vary = IsClientRoute, true
	}
	return func(next http.Handler) http.Handler {
		if next == nil {
			// A second call: h's 404 or 405, as it would have answered.
			next = h
		}
		fallback := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if vary {
				w.Header().Add("Vary", "Accept")
			}
			if !clientRoute(r) {
				next.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, withPath(r, index, ""))
		})
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case !isGetOrHead(r):
				next.ServeHTTP(w, r)
			case !isCanonical(r):
				redirectCanonical(w, r)
			default:
				h.ServeNext(w, r, fallback)
			}
		})
	}
}

// IsClientRoute is SPAOptions.ClientRoute's default: a request whose last
// path element has no extension ("/", "/about", "/users/42/") and whose Accept
// header includes text/html, as a browser's navigation does. A missing
// "/app.js", or a fetch asking for JSON, is not a client route and stays 404.
func IsClientRoute(r *http.Request) bool {
	if path.Ext(path.Base(r.URL.Path)) != "" {
		return false
	}
	return acceptsHTML(r.Header.Values("Accept"))
}

// acceptsHTML reports whether the Accept header lists text/html with a
// weight above zero (RFC 9110 §12.5.1); an element whose weight is not a
// qvalue says nothing (httprule.Weight). Wildcards (text/*, */*) do not
// count: a browser navigating names text/html, while fetch and curl send
// */*.
func acceptsHTML(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if !httprule.EqualFold(strings.TrimSpace(mt), "text/html") {
				continue
			}
			if w, ok := httprule.Weight(params); ok && w > 0 {
				return true
			}
		}
	}
	return false
}
