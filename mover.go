package jaws

import (
	"io/fs"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// response is the plan the semantics stage hands to the transfer stage:
// status, body length and the file bytes to send, nothing left to decide.
type response struct {
	status int
	reason string           // a 416's body, in net/http's words
	length int64            // Content-Length of the body
	part   span             // the file bytes, when they are one part
	mp     *multipartLayout // several parts: multipart/byteranges

	// transformed: an outer handler set Content-Encoding and will encode
	// what jaws writes, so it must see the bytes (no zero-copy).
	transformed bool
	// zeroCopy: the response goes zero-copy if it can, from the target's
	// shared descriptor.
	zeroCopy bool
}

// planResponse turns a Range header (already cleared by If-Range when it
// must be ignored) into a plan for a file of size bytes.
func planResponse(rangeHdr string, size int64, ctype string, maxRanges int) response {
	spans, v := parseRange(rangeHdr, size, maxRanges)
	switch {
	case v == rangeUnsatisfiable:
		return response{status: http.StatusRequestedRangeNotSatisfiable, reason: errNoOverlap}
	case v == rangeMalformed:
		return response{status: http.StatusRequestedRangeNotSatisfiable, reason: errInvalidRange}
	case v == rangeNone:
		return response{status: http.StatusOK, length: size, part: span{0, size}}
	case len(spans) == 1:
		return response{status: http.StatusPartialContent, length: spans[0].n, part: spans[0]}
	}
	mp := layoutMultipart(spans, ctype, size)
	return response{status: http.StatusPartialContent, length: mp.length, mp: &mp}
}

// The bodies of a 416, as net/http writes them: clients and tests match
// on them.
const (
	errNoOverlap    = "invalid range: failed to overlap"
	errInvalidRange = "invalid range"
)

// mover is the transfer layer: it sends a planned response on the path
// chosen for it, and keeps what that needs: the zero-copy settings, the
// transfers in flight, the state of the servers whose connections it hands
// back, and the counters of each path. Nothing in it calls the layers
// above; the handler makes it from Options.
type mover struct {
	never, always bool          // Options.Transfer: TransferFallback, TransferZeroCopy
	minSize       int64         // Options.ZeroCopyMinSize
	timeout       time.Duration // Options.SendTimeout
	chunk         int64         // Options.SendChunk

	memory, zeroCopied, fallback pathCounter
	lane                         pathCounter // every response on a connection jaws owns (fastlane.go)
	transfers                    transfers
	servers                      sync.Map     // weak.Pointer[http.Server] -> *serverState
	queued                       atomic.Int64 // body bytes of zero-copy responses on connections waiting for their next request
}

// pathCounter counts the responses one transfer path sent and their body
// bytes.
type pathCounter struct {
	responses, bytes atomic.Uint64
}

func (c *pathCounter) add(n int64) {
	c.responses.Add(1)
	c.bytes.Add(uint64(n))
}

// noter is a writer that records responses (the access log's recorder,
// which the handler puts in front of the application's writer): the
// transfer tells it which path a response took and, for a zero-copy one,
// what it sent, since none of those bytes pass through a writer.
type noter interface {
	noteTransfer(path string, c coding)
	noteSent(status int, n int64)
	beneath() http.ResponseWriter
}

// baseWriter is w beneath jaws's own recorder, if w is one: the writer
// zero-copy may take over. Any other wrapper is a writer of its own, which
// would see none of the bytes.
func baseWriter(w http.ResponseWriter) http.ResponseWriter {
	if n, ok := w.(noter); ok {
		return n.beneath()
	}
	return w
}

// ownedWriter returns w's connWriter when w answers on a connection jaws
// owns, the fast lane's (beneath jaws's recorder, if any).
func ownedWriter(w http.ResponseWriter) (*connWriter, bool) {
	cw, ok := baseWriter(w).(*connWriter)
	return cw, ok
}

// pathOf is the counter and the record's name of a response that goes on
// the path c names: the fast lane's own for a connection jaws owns, whatever
// moved its bytes.
func (s *mover) pathOf(w http.ResponseWriter, c *pathCounter, name string) (*pathCounter, string) {
	if _, ok := ownedWriter(w); ok {
		return &s.lane, "lane"
	}
	return c, name
}

// noteTransfer tells w, if it records responses, which path served it.
func noteTransfer(w http.ResponseWriter, path string, c coding) {
	if n, ok := w.(noter); ok {
		n.noteTransfer(path, c)
	}
}

// noteSent tells w, if it records responses, what a transfer beneath it
// sent.
func noteSent(w http.ResponseWriter, status int, n int64) {
	if n2, ok := w.(noter); ok {
		n2.noteSent(status, n)
	}
}

// send sends resp on the path chosen for it: a body in memory goes out in
// one write (net/http buffers the header with it); a large file on a plain
// HTTP/1.x connection goes zero-copy; anything else through the portable
// fallback, from the descriptor the target holds.
//
// A body sent whole (one span, not HEAD), from memory or through the
// fallback from the request's own descriptor, is not written here: send
// writes the status and returns the body, with the descriptor, which the
// target then no longer holds, and the handler's top frame writes it
// (finish). Beneath a body's first write net/http formats the header in a
// frame of nearly 3 KiB, and a request whose stack outgrows the one the
// collector shrank its idle connection's to copies its whole stack first:
// on a server of many keep-alive connections, nearly every request
// (bench/README.md, "Stack depth"; stack_test.go). Multipart bodies, HEAD
// and the shared descriptor's fallback, rare, are written here
// (writeResponse).
func (s *mover) send(w http.ResponseWriter, r *http.Request, t *target, resp *response) unsent {
	e := t.e
	whole := resp.mp == nil && r.Method != http.MethodHead
	if e.body != nil {
		pc, name := s.pathOf(w, &s.memory, "memory")
		noteTransfer(w, name, e.coding)
		if whole {
			w.WriteHeader(resp.status)
			return unsent{body: e.body[resp.part.off:resp.part.end()]}
		}
		pc.add(writeResponse(w, r, e, resp))
		return unsent{}
	}
	if resp.zeroCopy && t.sf != nil && s.zeroCopy(w, r, t.sf, resp) {
		_, name := s.pathOf(w, nil, "zerocopy")
		noteTransfer(w, name, e.coding)
		return unsent{}
	}
	pc, name := s.pathOf(w, &s.fallback, "fallback")
	noteTransfer(w, name, e.coding)
	var src bodySource = e // HEAD: never read
	switch {
	case r.Method == http.MethodHead:
	case t.f != nil:
		if whole {
			w.WriteHeader(resp.status)
			f := t.f
			t.f = nil
			return unsent{f: f, part: resp.part}
		}
		src = fileBody(t.f)
	default:
		// Zero-copy was chosen but could not run (a client slot on
		// Windows, a race with keep-alives turned off): the shared
		// descriptor, at explicit offsets, which net/http cannot sendfile.
		if testHookSharedFallback != nil {
			testHookSharedFallback(s)
		}
		src = sectionSource{t.sf.f}
	}
	pc.add(writeResponse(w, r, src, resp))
	return unsent{}
}

// unsent is the body send leaves to the handler's top frame: bytes in
// memory, or part of the file f, which the request owns. Its status is
// written.
type unsent struct {
	body []byte
	f    fs.File
	part span
}

// finish writes and counts the body send left, if any, and closes its
// descriptor.
func (s *mover) finish(w http.ResponseWriter, u unsent) {
	if u.body != nil {
		if cw, ok := ownedWriter(w); ok {
			// A cached body never changes: the lane writes it from where
			// it lies, and tells the recorder, which it passes by.
			n, _ := cw.writeHeld(u.body)
			noteSent(w, cw.status, int64(n))
			s.lane.add(int64(n))
			return
		}
		n, _ := w.Write(u.body)
		s.memory.add(int64(n))
	} else if u.f != nil {
		s.finishFile(w, u.f, u.part)
	}
}
