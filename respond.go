package jaws

import (
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
)

// Answers other than a file's body: refusals, redirects, 304s, errors,
// listings.

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

// serveDir answers for a directory without an index page.
func (h *Handler) serveDir(w http.ResponseWriter, r *http.Request, dir fs.File) {
	info, err := dir.Stat()
	if err != nil {
		h.fail(w, err)
		return
	}
	modtime := info.ModTime()
	if checkIfModifiedSince(r.Header, modtime) == condFalse {
		writeNotModified(w)
		return
	}
	rd, ok := dir.(fs.ReadDirFile)
	if !ok {
		h.notFound(w, r, nil)
		return
	}
	entries, err := rd.ReadDir(-1)
	if err != nil {
		h.fail(w, err)
		return
	}
	if !isZeroTime(modtime) {
		w.Header().Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	body := dirListing(entries, h.opts.ServeDotFiles)
	// A HEAD gets GET's length too (RFC 9110 §9.3.2), which net/http can
	// only guess from a body written. An outer handler that set
	// Content-Encoding transforms the body, so its length is not this one.
	if _, encoded := w.Header()["Content-Encoding"]; !encoded {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// keepOuter returns the value an outer handler set for key (a canonical
// key), or sets the entry's own shared values and returns the first.
func keepOuter(hdr http.Header, key string, own []string) string {
	v, ok := hdr[key]
	if !ok {
		if own == nil {
			return ""
		}
		hdr[key] = own
		v = own
	}
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// writeNotModified sends a 304 without representation metadata other than
// the validators (RFC 9110 §15.4.5); Last-Modified goes when an ETag is there.
func writeNotModified(w http.ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Type")
	delete(h, "Content-Length")
	delete(h, "Content-Encoding")
	if h.Get("Etag") != "" {
		delete(h, "Last-Modified")
	}
	w.WriteHeader(http.StatusNotModified)
}

// localRedirect redirects with a relative Location, as http.FileServer does,
// so it stays right under http.StripPrefix and any mount point. Unlike
// http.FileServer it percent-encodes the name: Location is a URI reference
// (RFC 9110 §10.2.2), and a directory named "c#d" or "100%" must not turn
// into a fragment or an unparsable URL. url.URL also guards a first segment
// with a colon ("a:b/"), which would otherwise read as a scheme.
func localRedirect(w http.ResponseWriter, r *http.Request, loc string) {
	loc = (&url.URL{Path: loc}).String()
	if q := r.URL.RawQuery; q != "" {
		loc += "?" + q
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
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
