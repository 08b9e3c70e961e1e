package middleware

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// isCanonical reports whether r's path is one a router and a file server
// read the same way. Routers match the path as the client spelled it (chi
// matches the raw path when there is one), a file server the decoded,
// cleaned name, so the two disagree on a path with empty, "." or ".."
// segments (a trailing slash aside), and on one that percent-encodes a
// character that needs no encoding: "/priv%61te/key" and "/private%2Fkey"
// are not routed as "/private/..." but name the file private/key.
func isCanonical(r *http.Request) bool {
	return cleanPath(r.URL.Path) && !hasNeedlessEscape(r.URL.RawPath)
}

// cleanPath reports whether p, with or without its leading slash, has no
// empty, "." or ".." segment; the last segment may be empty (a trailing
// slash).
func cleanPath(p string) bool {
	p = strings.TrimPrefix(p, "/")
	for p != "" {
		seg, rest, more := strings.Cut(p, "/")
		if seg == "." || seg == ".." || seg == "" && more {
			return false
		}
		p = rest
	}
	return true
}

// hasNeedlessEscape reports whether raw percent-encodes a slash or a
// character a path segment may hold as it is (RFC 3986 §3.3: unreserved
// characters, sub-delims, ":" and "@"). Escapes of anything else (a space,
// "%", "?", "#", non-ASCII bytes) are the only spelling and change nothing.
func hasNeedlessEscape(raw string) bool {
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != '%' {
			continue
		}
		hi, ok1 := unhex(raw[i+1])
		lo, ok2 := unhex(raw[i+2])
		if ok1 && ok2 && isPathChar(hi<<4|lo) {
			return true
		}
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isPathChar reports whether c may appear unencoded in a URL path: pchar of
// RFC 3986 §3.3, and the slash between segments.
func isPathChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
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
	loc = escapePath(clean)
	if loc == sent {
		return "", false
	}
	if u.RawQuery != "" {
		loc += "?" + u.RawQuery
	}
	return loc, true
}

// escapePath percent-encodes the bytes of p that a URL path cannot hold as
// they are, and only those, so the result passes isCanonical.
func escapePath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isPathChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
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
