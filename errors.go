package jaws

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"syscall"
)

// Refusals and errors: 404, 405, 5xx, and the status an error maps to.

// notFound answers a name with nothing to serve: next's business when there
// is a next, else Options.NotFound's, else a plain 404.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, next http.Handler) {
	h.refuse(w, r, next, h.opts.NotFound, http.StatusNotFound)
}

// methodNotAllowed is notFound for methods: the handler only reads.
func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if next == nil {
		w.Header().Set("Allow", "GET, HEAD")
	}
	h.refuse(w, r, next, h.opts.MethodNotAllowed, http.StatusMethodNotAllowed)
}

// refuse answers a request the handler has nothing for: next's business when
// there is a next, else the application's own answer (custom), else a plain
// code.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, next, custom http.Handler, code int) {
	switch {
	case next != nil:
		passOn(w, r, next)
	case custom != nil:
		dropSuccessHeaders(w.Header())
		custom.ServeHTTP(w, r)
	default:
		h.serveError(w, code)
	}
}

// fail answers for err with a status that reveals nothing of the file system
// and logs what the client does not see. A 503 (out of descriptors, a file
// changing under the request, a closed handler) asks the client to retry in
// a second (RFC 9110 §10.2.3).
func (h *Handler) fail(w http.ResponseWriter, err error) {
	code := errorStatus(err)
	switch code {
	case http.StatusInternalServerError:
		h.opts.ErrorLog.Printf("jaws: %v", err)
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	}
	h.serveError(w, code)
}

// dropSuccessHeaders removes what outer handlers set for a successful
// response (a year of "immutable" caching for a fingerprinted name, say)
// before an error page goes out, as net/http does since Go 1.23.
func dropSuccessHeaders(hdr http.Header) {
	for _, k := range []string{"Cache-Control", "Content-Encoding", "Etag", "Last-Modified"} {
		delete(hdr, k)
	}
}

// serveError writes a plain-text error, dropping the validators and caching
// headers meant for a successful response, as net/http does since Go 1.23.
func (h *Handler) serveError(w http.ResponseWriter, code int) {
	text := strconv.Itoa(code) + " " + http.StatusText(code)
	if code == http.StatusNotFound {
		text = "404 page not found" // http.FileServer's wording
	}
	h.serveErrorText(w, code, text)
}

// serveErrorText is serveError with the body's text given.
func (h *Handler) serveErrorText(w http.ResponseWriter, code int, text string) {
	dropSuccessHeaders(w.Header())
	http.Error(w, text, code)
}

// errHook is an application's hook that panicked while an entry was built
// (Options.Header): the program's fault, a 500, logged.
var errHook = errors.New("panic in Options.Header")

// errorStatus maps a resolution error to a status that reveals
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
	case errors.Is(err, syscall.EIO), errors.Is(err, syscall.ENOMEM), errors.Is(err, errCorrupt), errors.Is(err, errHook):
		return 500
	case errors.Is(err, errSpillFull):
		return 503
	case notAcceptable(err):
		return 406
	}
	return 404
}
