package jaws

import (
	"net/http"
	"os"
)

// response is the plan the semantics stage hands to the transfer stage:
// status, body length and the file bytes to send, nothing left to decide.
type response struct {
	status int
	length int64            // Content-Length of the body
	spans  []span           // file bytes, in order
	mp     *multipartLayout // non-nil: multipart/byteranges around spans
}

// planResponse turns a Range header (already cleared by If-Range when it
// must be ignored) into a plan for a file of size bytes.
func planResponse(rangeHdr string, size int64, ctype string, maxRanges int) response {
	spans, v := parseRange(rangeHdr, size, maxRanges)
	switch {
	case v == rangeUnsatisfiable:
		return response{status: http.StatusRequestedRangeNotSatisfiable}
	case v == rangeNone:
		return response{status: http.StatusOK, length: size, spans: []span{{0, size}}}
	case len(spans) == 1:
		return response{status: http.StatusPartialContent, length: spans[0].n, spans: spans}
	}
	mp := layoutMultipart(spans, ctype, size)
	return response{status: http.StatusPartialContent, length: mp.length, spans: spans, mp: &mp}
}

// send writes the status line and body of resp for file f, choosing the
// transfer path. Headers are already set.
func (h *Handler) send(w http.ResponseWriter, r *http.Request, f *os.File, resp *response) {
	n := sendFallback(w, r, f, resp)
	h.stats.fallback.add(n)
}
