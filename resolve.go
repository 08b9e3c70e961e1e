package jaws

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"syscall"
)

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
	if strings.ContainsAny(urlPath, "\x00\\") {
		return "", false
	}
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath // as left by http.StripPrefix
	}
	p := path.Clean(urlPath)
	if p != urlPath && (p == "/" || p+"/" != urlPath) { // a trailing slash is canonical
		return "", false
	}
	if !serveDot && hasHiddenElem(p) {
		return "", false
	}
	if runtime.GOOS == "windows" && unstorableOnWindows(p) { // namecase.go
		return "", false
	}
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// hasHiddenElem reports whether any element of the cleaned path starts with a
// dot (".git", ".env", ".htpasswd", ".DS_Store"): such names are private by
// convention, and often hold secrets or reveal the tree. One is public by
// definition: "/.well-known/" at the top (RFC 8615), where ACME challenges,
// security.txt and app links live; names inside it are judged as any.
func hasHiddenElem(p string) bool {
	if rest, ok := strings.CutPrefix(p, wellKnown); ok && (rest == "" || rest[0] == '/') {
		p = rest
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && (i == 0 || p[i-1] == '/') {
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

// errorStatus maps a resolution error to a status and a body that reveals
// nothing about the file system. Escapes from the root, loops, bad names and
// special files all look like absent files: each is "nothing to serve here".
// Running out of descriptors (EMFILE for the process, ENFILE for the system)
// is a passing overload, not a fault: 503, which the handler sends with
// Retry-After, so clients back off while cache hits, which open nothing,
// go on being served.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return 403
	case errors.Is(err, os.ErrClosed), errors.Is(err, errChanged),
		errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return 503
	case errors.Is(err, syscall.EIO), errors.Is(err, syscall.ENOMEM):
		return 500
	}
	return 404
}
