package middleware

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/httprule"
)

// Mount returns a handler serving h's files under prefix: the request for
// prefix+"/css/site.css" gets the file css/site.css under h's root. It is
// meant for routers that hand a mounted handler the whole path:
//
//	r.Mount("/assets", middleware.Mount("/assets", h))       // chi
//	mux.Handle("/assets/", middleware.Mount("/assets", h))   // net/http
//	mux.Handle("GET /assets/", middleware.Mount("/assets", h))
//
// Everything under the prefix is h's to answer: files, canonical redirects
// (relative, so they stay under the prefix), and h's own 404 and 405
// (jaws.Options.NotFound and MethodNotAllowed). The prefix alone, without
// its trailing slash, redirects to prefix+"/", so relative links in an
// index page resolve under it. A path that is not in canonical form
// redirects to its canonical form, so the router, and the authentication
// it applies, sees the name that is served. A request outside the prefix
// means the router and the prefix disagree; it gets a plain 404.
//
// prefix is a URL path such as "/assets" or "/assets/"; "" or "/" mounts h
// at the root.
func Mount(prefix string, h *jaws.Handler) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	if prefix != "" && prefix[0] != '/' {
		prefix = "/" + prefix
	}
	// The redirect from the bare prefix: its last element with a slash,
	// relative, so it holds under any outer prefix as well.
	base := path.Base(prefix)
	toDir := "./" + httprule.EscapePath(base+"/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isGetOrHead(r) {
			h.ServeHTTP(w, r) // 405, whatever the path
			return
		}
		p := r.URL.Path
		rest, ok := strings.CutPrefix(p, prefix)
		switch {
		case prefix != "" && (!ok || rest != "" && rest[0] != '/'):
			http.NotFound(w, r)
			return
		case !isCanonical(r):
			redirectCanonical(w, r)
			return
		case rest == "" && prefix != "":
			loc := toDir
			if q := r.URL.RawQuery; q != "" {
				loc += "?" + q
			}
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		h.ServeHTTP(w, withPath(r, rest, strings.TrimPrefix(r.URL.RawPath, prefix)))
	})
}

// withPath returns a shallow copy of r whose URL has path p (and raw path
// raw, which is dropped unless it is an encoding of p). The original is
// left as it was, for the handlers and loggers around this one.
func withPath(r *http.Request, p, raw string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.Path = p
	r2.URL.RawPath = ""
	if raw != "" && raw != r.URL.RawPath {
		if d, err := url.PathUnescape(raw); err == nil && d == p {
			r2.URL.RawPath = raw
		}
	}
	return r2
}
