package jaws

import (
	"path"
	"runtime"
	"strings"
)

// A URL path to a name under the root, and the redirects that make a path
// canonical.

// cleanName turns a URL path into a name relative to the root, or reports that
// no file may answer it. The path is already percent-decoded by net/http, so
// "%2e%2e" and "%2f" arrive here as ".." and "/". A path that cleans to
// another (dot or empty segments) is refused rather than cleaned: a router in
// front, such as chi with an auth group, matched the path as sent, so serving
// what "/x/../private/a" or "//private/a" cleans to would reach a file a
// route guards (net/http.ServeMux redirects such paths before any handler
// sees them). A NUL, which no file name has, and a backslash, a separator on
// Windows, are refused too, and on Windows the spellings it never stores
// (unstorableOnWindows: "private.", "secret.txt::$DATA").
func cleanName(urlPath string, serveDot bool) (name string, ok bool) {
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath // as left by http.StripPrefix
	}
	p, ok := plainPath(urlPath, serveDot)
	if !ok {
		return "", false
	}
	if runtime.GOOS == "windows" && unstorableOnWindows(p) { // below
		return "", false
	}
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// plainPath returns p, which starts with a slash, without its trailing
// slash, if nothing in it needs cleaning or is refused: no NUL or
// backslash, no empty segment, no "." or ".." segment, and unless serveDot
// no name starting with a dot (".git", ".env", ".htpasswd": private by
// convention, often secrets) but "/.well-known" at the top (RFC 8615: ACME
// challenges, security.txt), whose names are judged as any. One pass, as
// every request makes it; path.Clean, then a scan for hidden names, gives
// the same answers (FuzzCleanName).
func plainPath(p string, serveDot bool) (clean string, ok bool) {
	from := 0 // where hidden names start to count: after "/.well-known"
	if rest, ok := strings.CutPrefix(p, wellKnown); ok && (rest == "" || rest[0] == '/') {
		from = len(wellKnown)
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0 || c == '\\':
			return "", false
		case c == '/' && i+1 < len(p) && p[i+1] == '/':
			return "", false
		case c == '.' && p[i-1] == '/':
			if !serveDot && i >= from || isDotSegment(p[i:]) {
				return "", false
			}
		}
	}
	if len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p, true
}

// isDotSegment reports whether rest, the path from the start of a
// segment, starts with a "." or ".." segment, which cleaning would remove.
func isDotSegment(rest string) bool {
	for _, d := range [...]string{".", ".."} {
		if after, ok := strings.CutPrefix(rest, d); ok && (after == "" || after[0] == '/') {
			return true
		}
	}
	return false
}

// wellKnown is the path prefix of RFC 8615's well-known URIs.
const wellKnown = "/.well-known"

// redirectFor returns the relative Location that makes urlPath canonical for a
// directory (trailing slash) or a file (none), exactly as http.FileServer
// does, or "" when urlPath is canonical. Relative targets keep working behind
// http.StripPrefix.
func redirectFor(urlPath string, isDir bool) string {
	if urlPath == "" {
		urlPath = "/"
	}
	slash := urlPath[len(urlPath)-1] == '/'
	switch {
	case isDir && !slash:
		return path.Base(urlPath) + "/"
	case !isDir && slash:
		return "../" + path.Base(urlPath)
	}
	return ""
}

// isIndexRequest reports whether the URL names an index page directly, which
// http.FileServer redirects to its directory ("./").
func isIndexRequest(urlPath string) bool {
	return strings.HasSuffix(urlPath, "/"+indexPage) || urlPath == indexPage
}

// unstorableOnWindows reports whether the cleaned path p has an element
// that Windows never stores: one ending in a dot or a space (the Win32
// layer strips them, so "private." and "private " open private), or one
// holding a colon (a stream: "secret.txt::$DATA" is secret.txt). They are
// refused before anything is opened. Elsewhere these are names like any,
// and the check after the open catches the file systems that alias them
// (FAT on Linux strips trailing dots too).
func unstorableOnWindows(p string) bool {
	for elem := range strings.SplitSeq(p, "/") {
		if elem == "" {
			continue
		}
		if last := elem[len(elem)-1]; last == '.' || last == ' ' || strings.IndexByte(elem, ':') >= 0 {
			return true
		}
	}
	return false
}
