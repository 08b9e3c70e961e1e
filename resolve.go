package jaws

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
)

const indexPage = "index.html"

// cleanName turns a URL path into a name relative to the root, or reports that
// no file may answer it. The path is already percent-decoded by net/http, so
// "%2e%2e" and "%2f" arrive here as ".." and "/". A path that cleans to
// another (dot or empty segments) is refused rather than cleaned: a router in
// front, such as chi with an auth group, matched the path as sent, so serving
// what "/x/../private/a" or "//private/a" cleans to would reach a file a
// route guards (net/http.ServeMux redirects such paths before any handler
// sees them). A NUL, which no file name has, and a backslash, a separator on
// Windows, are refused too.
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
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// needlessEscape reports whether a raw path percent-encodes "/" or an
// unreserved character (RFC 3986 §2.3 says those must not be encoded):
// routers match "/priv%61te/a" and "/private%2Fa" as sent, so jaws must not
// serve the file they decode to (see cleanName).
func needlessEscape(raw string) bool {
	for ; ; raw = raw[3:] {
		i := strings.IndexByte(raw, '%')
		if i < 0 || i+3 > len(raw) {
			return false
		}
		raw = raw[i:]
		b, err := strconv.ParseUint(raw[1:3], 16, 8)
		if err != nil || b == '/' || unreserved(byte(b)) {
			return true
		}
	}
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
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
func openRegular(root *linkRoot, name string) (*os.File, fs.FileInfo, error) {
	if testHookOpen != nil {
		testHookOpen(name)
	}
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil && root.escaped(err) {
		f, err = root.openLinked(name, openFlags) // absolute links inside the root (symlink.go)
	}
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

// target is what a request name resolved to: a file entry, or a directory
// without an index page, with the descriptor the transfer will read, if any.
type target struct {
	e  *entry      // nil for a directory without index page
	f  *os.File    // a descriptor of this request's own; the directory when e is nil
	sf *sharedFile // a reference to the entry's shared descriptor
}

func (t *target) isDir() bool { return t.e == nil || t.e.dirIndex }

func (t *target) close() {
	if t.f != nil {
		t.f.Close()
	}
	if t.sf != nil {
		t.sf.release()
	}
}

// fdNeed says which descriptor a request needs, so a hit opens nothing it
// does not use.
type fdNeed int

const (
	fdNone   fdNeed = iota // a body in memory, or HEAD: nothing is read
	fdShared               // zero-copy: the entry's shared descriptor, read at explicit offsets
	fdOwn                  // the fallback: a descriptor whose offset net/http's sendfile may move
)

// resolve finds what name refers to now. A cached entry is used only once it
// is confirmed against the file system: by one stat (fstatat through a
// directory descriptor), skipped within Options.Revalidate, or for a request
// that needs its own descriptor by the fstat of the descriptor it opens.
func (h *Handler) resolve(name string, need fdNeed) (target, error) {
	if t, ok := h.cached(name, "", need); ok {
		return t, nil
	}
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
	return h.build(name, file, dirIndex, f, info, func(e *entry) { h.describeVariants(e, name) })
}

// cached returns the entry cached under key as a target, once confirmed
// against the file system (see resolve), and counts the lookup. An entry
// that is stale, or not of file when file is given, is dropped.
func (h *Handler) cached(key, file string, need fdNeed) (target, bool) {
	if e := h.cache.get(key); e != nil {
		if file == "" || e.file == file {
			if t, ok := h.confirm(e, need); ok {
				h.cache.hits.Add(1)
				return t, true
			}
		}
		h.cache.drop(key)
	}
	h.cache.miss.Add(1)
	return target{}, false
}

// build makes the entry for the open file f, caches it under key and
// returns it as the request's target; finish completes a new entry before
// it is cached. f is the target's or closed.
func (h *Handler) build(key, file string, dirIndex bool, f *os.File, info fs.FileInfo, finish func(*entry)) (target, error) {
	e, err := h.cache.build(key, info, false, func() (*entry, error) {
		e, err := newEntry(file, dirIndex, f, info, h.cache.maxBody)
		if err == nil {
			finish(e)
		}
		return e, err
	})
	if err != nil {
		f.Close()
		return target{}, err
	}
	switch {
	case e.body != nil:
		f.Close()
		return target{e: e}, nil
	case e.sf != nil && e.sf.f == f:
		// This request built the entry, which now owns f. The cache's
		// reference is not released yet, so acquire cannot fail.
		e.sf.acquire()
		return target{e: e, sf: e.sf}, nil
	}
	return target{e: e, f: f}, nil // built by a concurrent request
}

// confirm checks a cached entry against the file it describes and takes the
// descriptor the request needs.
func (h *Handler) confirm(e *entry, need fdNeed) (target, bool) {
	if e.body == nil && need == fdOwn {
		f, info, err := openRegular(h.root, e.file)
		if err != nil {
			return target{}, false
		}
		if !e.matches(info) {
			f.Close()
			return target{}, false
		}
		return target{e: e, f: f}, true
	}
	now := h.cache.now()
	if !h.cache.trusted(e, now) {
		same, handled := h.statDir.unchanged(e.file, e.ver)
		if !handled {
			info, err := h.root.stat(e.file)
			same = err == nil && e.matches(info)
		}
		if !same {
			return target{}, false
		}
		e.checked.Store(now)
	}
	t := target{e: e}
	if e.body == nil && need == fdShared && e.sf != nil && e.sf.acquire() {
		t.sf = e.sf
	}
	return t, true
}

// ownFile opens the entry's file for a request that has no descriptor yet
// (a shared one was evicted meanwhile), checking it is the same version.
func (h *Handler) ownFile(e *entry) (*os.File, error) {
	f, info, err := openRegular(h.root, e.file)
	if err != nil {
		return nil, err
	}
	if !e.matches(info) {
		f.Close()
		return nil, errChanged
	}
	return f, nil
}

var errChanged = errors.New("jaws: file changed while being served")
