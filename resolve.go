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
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath
	}
	p := path.Clean(urlPath)
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
	return strings.HasSuffix(urlPath, "/"+indexPage) || urlPath == indexPage
}

// openRegular opens name under root without following it out of the root and
// without blocking on FIFOs (see openFlags), and returns it with its
// metadata if it is a regular file or a directory.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	if testHookOpen != nil {
		testHookOpen(name)
	}
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

// testHookOpen, when set by a test, sees every file the handler opens.
var testHookOpen func(name string)

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

// target is what a request name resolved to: a file entry, or a directory
// without an index page.
type target struct {
	e   *entry   // nil for a directory without index page
	f   *os.File // open file when e has no body in memory; the directory when e is nil
	hit bool     // e came from the cache
}

func (t *target) isDir() bool { return t.e == nil || t.e.dirIndex }

func (t *target) close() {
	if t.f != nil {
		t.f.Close()
	}
}

// resolve finds what name refers to now. A cached entry is used only once it
// is confirmed against the file system: for a body in memory by one stat
// (fstatat through the root), skipped within Options.Revalidate; for a file
// sent from disk by the fstat of the descriptor about to be read.
func (h *Handler) resolve(name string) (target, error) {
	if e := h.cache.get(name); e != nil {
		if t, ok := h.confirm(e); ok {
			h.cache.hits.Add(1)
			return t, nil
		}
		h.cache.drop(name)
	}
	h.cache.miss.Add(1)
	f, info, err := openRegular(h.root, name)
	if err != nil {
		return target{}, err
	}
	file, dirIndex := name, false
	if info.IsDir() {
		index := path.Join(name, indexPage)
		fi, iinfo, err := openRegular(h.root, index)
		if err != nil || iinfo.IsDir() {
			if err == nil {
				fi.Close()
			}
			return target{f: f}, nil
		}
		f.Close()
		f, info, file, dirIndex = fi, iinfo, index, true
	}
	e, err := h.cache.build(name, info, func() (*entry, error) {
		return newEntry(file, dirIndex, f, info, h.cache.maxBody)
	})
	if err != nil {
		f.Close()
		return target{}, err
	}
	if e.body != nil {
		f.Close()
		f = nil
	}
	return target{e: e, f: f}, nil
}

// confirm checks a cached entry against the file it describes.
func (h *Handler) confirm(e *entry) (target, bool) {
	if e.body == nil {
		f, info, err := openRegular(h.root, e.file)
		if err != nil {
			return target{}, false
		}
		if !e.matches(info) {
			f.Close()
			return target{}, false
		}
		return target{e: e, f: f, hit: true}, true
	}
	now := h.cache.now()
	if h.cache.trusted(e, now) {
		return target{e: e, hit: true}, true
	}
	same, handled := h.statDir.unchanged(e.file, e.ver)
	if !handled {
		info, err := h.root.Stat(e.file)
		same = err == nil && e.matches(info)
	}
	if !same {
		return target{}, false
	}
	e.checked.Store(now)
	return target{e: e, hit: true}, true
}
