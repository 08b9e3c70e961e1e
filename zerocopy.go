package jaws

import (
	"net"
	"net/http"
	"os"
	"time"
)

// The zero-copy path takes an HTTP/1.x connection from net/http, writes the
// response header and the file's bytes with the platform's zero-copy call
// (sendFile, one per OS file), and gives the connection back to the same
// http.Server so keep-alive goes on (handback.go). It is taken only where
// that is provably the same response net/http would send, with the same
// connection handling after it:
//
//   - GET without a body on HTTP/1.x over a plain connection (no TLS, no
//     HTTP/2): net/http discards an unread body, jaws would replay it as the
//     next request;
//   - a ResponseWriter that is net/http's own, unwrapped, whose header has
//     not been written yet: a wrapper may log the status, compress or count
//     the body, and would see none of it; a header already written would go
//     out at the hijack, ahead of jaws's own. Both take the fallback (where
//     net/http still uses sendfile through ReadFrom);
//   - no Content-Encoding or Transfer-Encoding set by an outer handler;
//   - a response of at least ZeroCopyMinSize body bytes from disk, sent
//     from the entry's shared descriptor;
//   - a server whose keep-alive state jaws can read (httpstate.go) and that
//     does not accept unencrypted HTTP/2: to net/http a handed-back
//     connection is a new one, where it would take an HTTP/2 preface that
//     it refuses on a connection it kept;
//   - a connection that stays open, as net/http decides it
//     (replyConnection): with "Connection: close", HTTP/1.0 without
//     keep-alive, a handler's "Connection: close" or keep-alives off, the
//     hijack buys nothing (no keep-alive to hand back), so those take the
//     fallback unless Options.Transfer is TransferZeroCopy.
//
// What the request and its writer tell is checked before the descriptor is
// chosen (zeroCopyCandidate); the server and the connection are asked only
// for a body from disk large enough to go zero-copy (zeroCopyAllowed), so a
// body in memory asks nothing of them. Either way a request that cannot go
// zero-copy is sent from a descriptor of its own, which net/http can
// sendfile.
//
// What a ConnState hook sees for such a connection: StateActive, then
// StateHijacked when jaws takes it; after the transfer, when its next
// request begins and it is handed back, StateNew, StateActive and so on, as
// for a freshly accepted connection. A connection that is not handed back
// (closing, server shutting down, a failed transfer) is closed by jaws and
// reports no further state.

// zeroCopyCandidate reports whether r, answered through w, may take the
// zero-copy path if its file is large enough and zeroCopyAllowed agrees.
func (s *mover) zeroCopyCandidate(w http.ResponseWriter, r *http.Request) bool {
	if !zeroCopySupported || s.never ||
		r.Method != http.MethodGet || r.ProtoMajor != 1 || r.TLS != nil || r.ContentLength != 0 {
		return false
	}
	if bw := baseWriter(w); isOwned(bw) {
		return true // the fast lane's connection: no hijack to check
	} else if !isServerWriter(bw) {
		return false
	} else if written, known := headerWritten(bw); !known || written {
		return false
	}
	return true
}

// zeroCopyAllowed reports whether r's server and connection allow the
// zero-copy path, for a candidate (zeroCopyCandidate) whose body is large
// enough.
func (s *mover) zeroCopyAllowed(w http.ResponseWriter, r *http.Request) bool {
	_, _, ok := s.zeroCopyServer(w, r)
	return ok
}

// need is the descriptor a request needs (fdNeed) and whether it is a
// candidate for zero-copy (zeroCopyCandidate). On a connection jaws owns a
// body from disk goes by sendfile from the shared descriptor whatever its
// size: there is no hijack to pay for.
func (s *mover) need(w http.ResponseWriter, r *http.Request) (zeroCopy bool, need fdNeed) {
	zeroCopy = s.zeroCopyCandidate(w, r)
	switch {
	case r.Method == http.MethodHead:
		return zeroCopy, fdNone
	case zeroCopy && isOwned(baseWriter(w)):
		return zeroCopy, fdSharedAny
	case zeroCopy:
		return zeroCopy, fdShared
	}
	return zeroCopy, fdOwn
}

// zeroCopyServer finds r's server and how net/http would end the response
// on its connection, and reports whether they allow the zero-copy path.
// Asked again at the transfer: keep-alives may have been turned off since.
func (s *mover) zeroCopyServer(w http.ResponseWriter, r *http.Request) (*http.Server, connection, bool) {
	hdr := w.Header()
	if _, ok := hdr["Transfer-Encoding"]; ok {
		return nil, connection{}, false
	}
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || srv.Protocols != nil && srv.Protocols.UnencryptedHTTP2() {
		return nil, connection{}, false
	}
	enabled, known := keepAlivesEnabled(srv)
	if !known {
		return nil, connection{}, false
	}
	conn := replyConnection(r, hdr, enabled)
	return srv, conn, conn.keepAlive || s.always
}

// zeroCopySize reports whether a body of n bytes from disk goes zero-copy
// through net/http's connection.
func (s *mover) zeroCopySize(n int64) bool {
	return s.always || n >= s.minSize
}

// zeroCopy sends resp for file sf over the hijacked connection and counts
// it. handled is false when nothing was written and the connection is still
// net/http's, so the caller serves the request through the fallback.
func (s *mover) zeroCopy(w http.ResponseWriter, r *http.Request, sf *sharedFile, resp *response) (handled bool) {
	if cw, ok := ownedWriter(w); ok {
		s.zeroCopyOwned(cw, w, sf, resp)
		return true
	}
	srv, conn, ok := s.zeroCopyServer(w, r)
	if !ok {
		return false
	}
	hdr := w.Header()
	stop, ok := s.transfers.begin()
	if !ok {
		return false // the handler is closing
	}
	var hijacked net.Conn
	defer func() { s.transfers.end(hijacked) }()

	// net/http bounds the whole response by WriteTimeout from the end of
	// the request (readRequest); Hijack clears that deadline, so jaws sets
	// it again, from when it takes the connection.
	var limit time.Time
	if d := srv.WriteTimeout; d > 0 {
		limit = time.Now().Add(d)
	}
	c, brw, err := baseWriter(w).(http.Hijacker).Hijack()
	if err != nil {
		return false
	}
	hijacked = c
	s.transfers.attach(c)

	head := responseHead(r, resp.status, hdr, conn)
	segs, tail := segments(head, resp)
	n, err := transmit(c, sf.f, segs, tail, sendOpts{cork: s.cork(), chunk: s.chunk,
		deadlines: deadlines{conn: c, timeout: s.timeout, limit: limit}, stop: stop})
	// Body bytes, as the other paths count them; none when the client went
	// away during the header. Counted before the connection goes back, so a
	// client's next response on it implies this one is counted.
	body := max(0, n-int64(len(head)))
	s.zeroCopied.add(body)
	noteSent(w, resp.status, body)
	if err != nil || !conn.keepAlive {
		c.Close()
		return true
	}
	// As net/http checks again after each response (conn.serve).
	if on, _ := keepAlivesEnabled(srv); !on {
		c.Close()
		return true
	}
	c.SetDeadline(time.Time{})
	s.handBack(srv, c, brw.Reader, body)
	return true
}

// zeroCopyOwned is zeroCopy on a connection jaws owns (the fast lane's):
// no hijack and no hand-back. The head, and the responses queued before it,
// go out ahead of the file's bytes, corked as zeroCopy corks.
func (s *mover) zeroCopyOwned(cw *connWriter, w http.ResponseWriter, sf *sharedFile, resp *response) {
	cw.WriteHeader(resp.status)
	q := cw.takeQueued()
	segs, tail := segments(q, resp)
	// Counted before its bytes leave: a client that has them finds it
	// counted. Its bytes are counted once they have left.
	s.lane.responses.Add(1)
	n, err := transmit(cw.sock, sf.f, segs, tail, sendOpts{cork: s.cork(), chunk: s.chunk,
		deadlines: deadlines{conn: cw.sock, timeout: s.timeout, limit: cw.writeLimit}})
	body := max(0, n-int64(len(q)))
	cw.written += body
	if err != nil {
		cw.err = err
	}
	// The chunks' deadlines end with the response: the server's
	// WriteTimeout, or none, for what follows on the connection.
	cw.conn.SetWriteDeadline(cw.writeLimit)
	s.lane.bytes.Add(uint64(body))
	noteSent(w, resp.status, body)
}

// isOwned reports whether w is a connWriter.
func isOwned(w http.ResponseWriter) bool {
	_, ok := w.(*connWriter)
	return ok
}

// transmit sends segs and tail on c, the spans from f: by the OS call
// where it takes them, and by plain writes, with the same deadlines, what
// it leaves (a connection that exposes no socket, no slot free on a client
// edition of Windows, a file sendfile cannot read).
func transmit(c net.Conn, f *os.File, segs []segment, tail []byte, opts sendOpts) (int64, error) {
	var n int64
	var err error
	handled := false
	if sock, fd, ok := rawConns(netConn(c), f); ok {
		n, handled, err = sendFile(sock, fd, segs, tail, opts)
	}
	if handled && err != errNoSendfile {
		return n, err
	}
	segs, tail = skipSegments(segs, tail, n)
	m, err := writeSegments(deadlineWriter{c, opts.deadlines}, sectionSource{f}, segs, tail)
	return n + m, err
}

// corkLimit is the response bytes jaws may hold in the kernel's send
// queues, summed over its keep-alive connections waiting for their next
// request, below which a zero-copy response's header is corked: held back
// to go out with the file's first bytes, in the same packets (MSG_MORE).
// Corking wins while little is queued and loses once the queues are full
// (bench/README.md, "Header coalescing", has the measurements and the
// choice of the limit). JAWS's rule: choose per request, from what the
// server sees. Not to be confused with ranges.go's coalesce, which merges
// ranges.
const corkLimit = 512 << 20

// cork reports whether the next zero-copy response's header waits for its
// first file bytes (see corkLimit).
func (s *mover) cork() bool { return s.queued.Load() < corkLimit }
