package middleware

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// isCanonical reports whether r's path is one a router and a file server
// read the same way. Routers match the path as the client spelled it (chi
// matches the raw path when there is one), a file server the decoded,
// cleaned name, so the two disagree on a path with empty, "." or ".."
// segments (a trailing slash aside), and on one that percent-encodes a
// character that needs no encoding: "/priv%61te/key", "/private%2Fkey" and
// "/a%2Bb/key" are not routed as "/private/..." or "/a+b/..." but name files
// under them. The rule is httprule's, which jaws.Handler applies too, so
// the middleware never passes on a path the handler would refuse as not
// canonical, nor redirects one it would serve.
func isCanonical(r *http.Request) bool {
	return httprule.CleanPath(r.URL.Path) && !httprule.NeedlessEscape(r.URL.RawPath)
}

// canonicalLocation returns the absolute path (with the query) the client
// should ask for instead of r's: the path as the client sent it (so a prefix
// an outer handler stripped is kept), cleaned, and encoded where it must be
// and nowhere else. ok is false when that is what the client sent already,
// as when an inner handler rewrote the path: there is nothing to redirect to.
func canonicalLocation(r *http.Request) (loc string, ok bool) {
	sent := r.URL.EscapedPath()
	u := r.URL
	if r.RequestURI != "" {
		if ru, err := url.ParseRequestURI(r.RequestURI); err == nil {
			u = ru
			sent, _, _ = strings.Cut(r.RequestURI, "?")
		}
	}
	p := u.Path
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	// path.Clean leaves no "//" at the start, so loc cannot turn into a
	// scheme-relative URL pointing at another host.
	loc = httprule.EscapePath(clean)
	if loc == sent {
		return "", false
	}
	if u.RawQuery != "" {
		loc += "?" + u.RawQuery
	}
	return loc, true
}

// redirectCanonical answers a request whose path is not canonical: a
// redirect to the canonical form, or a 404 when there is none to offer.
func redirectCanonical(w http.ResponseWriter, r *http.Request) {
	loc, ok := canonicalLocation(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
}

// isGetOrHead reports whether r reads: the only methods a jaws.Handler serves.
func isGetOrHead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}
