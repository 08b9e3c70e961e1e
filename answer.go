package jaws

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/jaws-go/jaws/internal/httprule"
)

// Answering for one regular file, once it is found: its validators and the
// request's preconditions, the plan of its body (ranges), and the transfer.

// serveEntry answers for one regular file, f's target (the file or its
// variant): validators, preconditions, ranges, then the transfer.
// outerEncoded: an outer handler set Content-Encoding and encodes what jaws
// writes; f.zeroCopy: the request may take the zero-copy path
// (zeroCopyCandidate), if its response is large enough and its connection
// allows it; d what it makes of dictionaries. An answer that is not the
// file's (412, 416, an error) goes without f.fields. It returns the body
// the caller writes (mover.send).
func (h *Handler) serveEntry(w http.ResponseWriter, r *http.Request, f *found, outerEncoded bool, d *dictUse) unsent {
	t := &f.t
	useRange, done := h.preconditions(w, r, t.e, f.fields)
	if done {
		return unsent{}
	}
	resp, ok := h.plan(w, r, t.e, useRange, outerEncoded, f.fields)
	if !ok {
		return unsent{}
	}
	if t.e.coding != identity {
		h.variants.encoded.Add(1)
	}
	h.variants.respond(w.Header(), d, t.e, resp.status, r.Method)
	if t.e.body == nil && r.Method != http.MethodHead {
		// The descriptor the transfer reads: the shared one for zero-copy,
		// else one of the request's own, where net/http can use sendfile.
		// On a connection jaws owns (the fast lane), at any size.
		resp.zeroCopy = !resp.transformed && (f.need == fdSharedAny ||
			f.zeroCopy && h.tx.zeroCopySize(resp.length) && h.tx.zeroCopyAllowed(w, r))
		if err := h.store.acquire(t, resp.zeroCopy); err != nil {
			h.failFound(w, f, err)
			return unsent{}
		}
	}
	return h.tx.send(w, r, t, &resp)
}

// preconditions sets e's validators and evaluates the request's
// preconditions against them (RFC 9110 §13.2.2), answering a 304 or 412
// itself (done); useRange reports whether a Range may be honoured. fields
// (Options.Header's) stay on a 304 and leave a 412.
func (h *Handler) preconditions(w http.ResponseWriter, r *http.Request, e *entry, fields []headerField) (useRange, done bool) {
	hdr := w.Header()
	mod, lastMod := e.rep.mod, e.rep.hdrLastModified
	if e.rep.mtimeAhead {
		// RFC 9110 §8.8.2.1: a Last-Modified later than Date must be
		// replaced by Date. The dates of preconditions still compare with
		// the file's own, which is later than any date this server sent:
		// If-Modified-Since never gets a 304 for a file changed since (a
		// touch to an hour ahead, as net/http's TestDirectoryIfNotModified
		// does), and If-Range by date never matches.
		if now := time.Now(); mod.After(now) {
			lastMod = []string{now.UTC().Format(http.TimeFormat)}
		}
	}
	if lastMod != nil {
		hdr["Last-Modified"] = lastMod
	}
	// An ETag set by an outer handler is the one preconditions compare
	// with, as in http.ServeContent: how an application pins validators
	// to a release.
	etag := keepOuter(hdr, "Etag", e.rep.hdrETag)
	status, useRange := evalPreconditions(r.Method, r.Header, etag, mod)
	switch status {
	case http.StatusNotModified:
		writeNotModified(w)
		return false, true
	case http.StatusPreconditionFailed:
		// Not the file: an outer policy for it (a year of immutable
		// caching) must not stick to the refusal, nor the file's own.
		delete(hdr, "Cache-Control")
		dropFields(hdr, fields)
		w.WriteHeader(status)
		return false, true
	}
	return useRange, false
}

// asksRange reports whether r is a GET with a Range of bytes: it is
// answered from the file itself, never a variant in a content coding
// (serveFound). Other units are ignored, and so is a Range on HEAD.
func asksRange(r *http.Request) bool {
	unit, _, ok := strings.Cut(first(r.Header, "Range"), "=")
	return ok && r.Method == http.MethodGet && httprule.EqualFold(textproto.TrimString(unit), "bytes")
}

// plan lays out the response for e (RFC 9110 §14: the range, if one is to be
// honoured, or several as multipart/byteranges) and sets its headers,
// answering a 416 itself (ok false), without fields (Options.Header's).
func (h *Handler) plan(w http.ResponseWriter, r *http.Request, e *entry, useRange, outerEncoded bool, fields []headerField) (response, bool) {
	hdr := w.Header()
	// A Content-Type set by an outer handler wins, as in http.ServeContent.
	ctype := keepOuter(hdr, "Content-Type", e.rep.hdrCtype)
	size := e.size()
	rangeHdr := ""
	if useRange {
		rangeHdr = first(r.Header, "Range")
	}
	maxRanges := h.opts.MaxRanges
	if e.body == nil && !e.seekable {
		maxRanges = -1 // a file that can only be read from its start: all of it
	}
	resp := planResponse(rangeHdr, size, ctype, maxRanges)
	if resp.status == http.StatusRequestedRangeNotSatisfiable {
		hdr.Set("Content-Range", unsatisfiedRange(size))
		dropFields(hdr, fields)
		h.serveErrorText(w, resp.status, resp.reason)
		return resp, false
	}
	hdr["Accept-Ranges"] = hdrAcceptRanges
	switch {
	case resp.mp != nil:
		hdr.Set("Content-Type", resp.mp.contentType)
	case resp.status == http.StatusPartialContent:
		hdr.Set("Content-Range", resp.part.contentRange(size))
	}
	if e.rep.hdrEncoding != nil {
		hdr["Content-Encoding"] = e.rep.hdrEncoding
	}
	if e.rep.hdrDigest != nil {
		hdr["Repr-Digest"] = e.rep.hdrDigest
	}
	// As in http.ServeContent: an outer handler that set Content-Encoding is
	// transforming the body, so its length is unknown unless this is a range.
	switch {
	case resp.status == http.StatusPartialContent:
		hdr.Set("Content-Length", strconv.FormatInt(resp.length, 10))
	case !outerEncoded:
		hdr["Content-Length"] = e.rep.hdrLength
	}
	resp.transformed = outerEncoded
	return resp, true
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
