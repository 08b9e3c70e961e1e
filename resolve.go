package jaws

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

const indexPage = "index.html"

// cleanName turns a URL path into a name relative to the root, or reports that
// no file may answer it. The path is already percent-decoded by net/http, so
// "%2e%2e" and "%2f" arrive here as ".." and "/" and path.Clean removes them;
// what remains can still hold a NUL, which no file name has, or a backslash,
// which is a separator on Windows and must not become one.
func cleanName(urlPath string, serveDot bool) (name string, ok bool) {
	if strings.ContainsAny(urlPath, "\x00\\") {
		return "", false
	}
	p := path.Clean("/" + urlPath)
	if !serveDot && hasHiddenElem(p) {
		return "", false
	}
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// hasHiddenElem reports whether any element of the cleaned path starts with a
// dot (".git", ".env"): such names are private by convention.
func hasHiddenElem(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && (i == 0 || p[i-1] == '/') {
			return true
		}
	}
	return false
}

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
	return strings.HasSuffix(urlPath, "/"+indexPage)
}

// openRegular opens name under root without following it out of the root and
// without blocking on FIFOs (see openFlags), and returns it with its
// metadata if it is a regular file or a directory.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() && !info.IsDir() {
		f.Close()
		return nil, nil, errNotRegular
	}
	return f, info, nil
}

var errNotRegular = errors.New("jaws: not a regular file")

// errorStatus maps a resolution error to a status and a body that reveals
// nothing about the file system. Escapes from the root, loops, bad names and
// special files all look like absent files: each is "nothing to serve here".
func errorStatus(err error) int {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return 403
	case errors.Is(err, os.ErrClosed):
		return 503
	case errors.Is(err, syscall.EIO), errors.Is(err, syscall.EMFILE),
		errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.ENOMEM):
		return 500
	}
	return 404
}
