package jaws

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The zero-copy path takes an HTTP/1.x connection from net/http, writes the
// response header and the file's bytes with the platform's zero-copy call
// (sendFile, one per OS file), and gives the connection back to the same
// http.Server so keep-alive goes on (handback.go). It is taken only where that is provably
// the same response net/http would send:
//
//   - GET without a body on HTTP/1.x over a plain connection (no TLS, no
//     HTTP/2): net/http discards an unread body, jaws would replay it as the
//     next request;
//   - a ResponseWriter that is net/http's own, unwrapped: a wrapper may log
//     the status, compress or count the body, and would see none of it, so
//     behind any wrapper jaws takes the fallback (where net/http still uses
//     sendfile through ReadFrom);
//   - no Content-Encoding or Transfer-Encoding set by an outer handler;
//   - a file of at least ZeroCopyMinSize bytes with a shared descriptor;
//   - a connection that stays open: with "Connection: close" or HTTP/1.0
//     the hijack buys nothing (no keep-alive to hand back), and the load
//     benchmark measured it 5-14% slower than net/http's own sendfile there,
//     so those take the fallback unless Options.Transfer is TransferZeroCopy.
//
// What a ConnState hook sees for such a connection: StateActive, then
// StateHijacked when jaws takes it; after the transfer, when it is handed
// back, StateNew, StateActive for the next request and so on, as for a
// freshly accepted connection. A connection that is not handed back (HTTP/1.0,
// "Connection: close", server shutting down, a failed transfer) is closed by
// jaws and reports no further state.

// zeroCopyCandidate reports whether r, answered through w, may take the
// zero-copy path if its file is large enough.
func (h *Handler) zeroCopyCandidate(w http.ResponseWriter, r *http.Request) bool {
	return zeroCopySupported && h.opts.Transfer != TransferFallback &&
		r.Method == http.MethodGet && r.ProtoMajor == 1 && r.TLS == nil && r.ContentLength == 0 &&
		(h.opts.Transfer == TransferZeroCopy || r.ProtoAtLeast(1, 1) && !r.Close) &&
		isServerWriter(w)
}

// zeroCopySize reports whether a body of n bytes from disk goes zero-copy.
func (h *Handler) zeroCopySize(n int64) bool {
	return h.opts.Transfer == TransferZeroCopy || n >= h.opts.ZeroCopyMinSize
}

// serverWriterType is net/http's own ResponseWriter type for HTTP/1, learnt
// from the first one seen, so the check per request is one comparison.
var serverWriterType atomic.Pointer[reflect.Type]

func isServerWriter(w http.ResponseWriter) bool {
	t := reflect.TypeOf(w)
	if p := serverWriterType.Load(); p != nil {
		return *p == t
	}
	if t.String() != "*http.response" || t.Elem().PkgPath() != "net/http" {
		return false
	}
	serverWriterType.Store(&t)
	return true
}

// zeroCopy sends resp for file sf over the hijacked connection and counts
// it. handled is false when nothing was written and the connection is still
// net/http's, so the caller serves the request through the fallback.
func (h *Handler) zeroCopy(w http.ResponseWriter, r *http.Request, sf *sharedFile, resp *response) (handled bool) {
	hdr := w.Header()
	if _, ok := hdr["Transfer-Encoding"]; ok {
		return false
	}
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	keepAlive := srv != nil && r.ProtoAtLeast(1, 1) && !r.Close && !h.shuttingDown(srv)
	if !h.transfers.begin() {
		return false // the handler is closing
	}
	defer h.transfers.end()

	conn, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return false
	}
	h.transfers.track(conn, true)
	defer h.transfers.track(conn, false)

	head := responseHead(resp.status, hdr, keepAlive)
	segs, tail := segments(head, resp)
	n, handled, err := sendFile(netConn(conn), sf.f, segs, tail, h.opts.SendTimeout, h.opts.SendChunk, h.transfers.stopped())
	if !handled {
		n, err = copySegments(conn, sf.f, segs, tail, h.opts.SendTimeout)
	}
	// Body bytes, as the other paths count them; none when the client went
	// away during the header. Counted before the connection goes back, so a
	// client's next response on it implies this one is counted.
	h.stats.zeroCopy.add(max(0, n-int64(len(head))))
	if err != nil || !keepAlive {
		conn.Close()
		return true
	}
	conn.SetDeadline(time.Time{})
	h.handBack(srv, conn, brw.Reader)
	return true
}

// responseHead is the status line and header block, as net/http would write
// them for these headers.
func responseHead(status int, hdr http.Header, keepAlive bool) []byte {
	var b bytes.Buffer
	b.Grow(512)
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(status))
	b.WriteByte(' ')
	b.WriteString(http.StatusText(status))
	b.WriteString("\r\n")
	if _, ok := hdr["Date"]; !ok {
		b.WriteString("Date: ")
		b.WriteString(time.Now().UTC().Format(http.TimeFormat))
		b.WriteString("\r\n")
	}
	if !keepAlive {
		b.WriteString("Connection: close\r\n")
	}
	hdr.WriteSubset(&b, excludedHead)
	b.WriteString("\r\n")
	return b.Bytes()
}

// excludedHead are headers jaws decides itself on this path.
var excludedHead = map[string]bool{"Connection": true}

// segment is bytes to write followed by a span of the file to send.
type segment struct {
	head []byte
	span span
}

// segments lays resp out behind the response head: one segment per part,
// the multipart closing delimiter as tail.
func segments(head []byte, resp *response) ([]segment, []byte) {
	if resp.mp == nil {
		return []segment{{head, resp.part}}, nil
	}
	segs := make([]segment, len(resp.mp.spans))
	for i, s := range resp.mp.spans {
		segs[i] = segment{resp.mp.heads[i], s}
	}
	segs[0].head = append(head, segs[0].head...)
	return segs, resp.mp.tail
}

// copySegments is the zero-copy path's own fallback, for a hijacked
// connection that exposes no descriptor (a wrapping listener's conn): plain
// writes with the same deadlines.
func copySegments(c net.Conn, f readerAt, segs []segment, tail []byte, timeout time.Duration) (int64, error) {
	var n int64
	dw := deadlineWriter{c, timeout}
	for _, s := range segs {
		k, err := dw.Write(s.head)
		n += int64(k)
		if err != nil {
			return n, err
		}
		m, err := io.Copy(dw, io.NewSectionReader(f, s.span.off, s.span.n))
		n += m
		if err == nil && m < s.span.n {
			err = errShortFile
		}
		if err != nil {
			return n, err
		}
	}
	k, err := dw.Write(tail)
	return n + int64(k), err
}

type readerAt = io.ReaderAt

// deadlineWriter renews the write deadline before every write.
type deadlineWriter struct {
	c       net.Conn
	timeout time.Duration
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	d.c.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.c.Write(p)
}

// rawConns returns what a zero-copy call needs: the socket of c, and the
// descriptor (or handle) of f, which the caller must not use after f is
// closed. ok is false when c exposes no socket.
func rawConns(c net.Conn, f *os.File) (rc syscall.RawConn, fd uintptr, ok bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, 0, false
	}
	fc, err := f.SyscallConn()
	if err != nil {
		return nil, 0, false
	}
	fc.Control(func(d uintptr) { fd = d })
	return rc, fd, true
}

// transfers tracks zero-copy transfers in flight, whose connections no
// http.Server tracks while jaws holds them, so that Close and Shutdown can
// end or wait for them.
type transfers struct {
	mu      sync.Mutex
	closing bool
	active  int
	conns   map[net.Conn]struct{}
	idle    chan struct{} // closed when active drops to 0 while someone waits
	stop    chan struct{} // closed by cancel
}

func (t *transfers) begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing {
		return false
	}
	t.active++
	return true
}

func (t *transfers) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active--
	if t.active == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
}

func (t *transfers) track(c net.Conn, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = make(map[net.Conn]struct{})
	}
	if on {
		t.conns[c] = struct{}{}
	} else {
		delete(t.conns, c)
	}
}

// wait stops new transfers and waits until none is in flight, or done is
// closed; it reports whether none is.
func (t *transfers) wait(done <-chan struct{}) bool {
	t.mu.Lock()
	t.closing = true
	if t.active == 0 {
		t.mu.Unlock()
		return true
	}
	if t.idle == nil {
		t.idle = make(chan struct{})
	}
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-done:
		return false
	}
}

// inFlight counts the transfers in flight.
func (t *transfers) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.active
}

// stopped is closed when the transfers in flight must end.
func (t *transfers) stopped() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stop == nil {
		t.stop = make(chan struct{})
	}
	return t.stop
}

// cancel ends the transfers in flight and waits for them to return: a
// deadline in the past fails a send waiting in the netpoller, and the closed
// stop channel makes sendFile cancel an operation the netpoller does not see
// (a pending TransmitFile).
func (t *transfers) cancel() {
	t.stopped() // makes t.stop
	t.mu.Lock()
	t.closing = true
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	for c := range t.conns {
		c.SetDeadline(time.Unix(1, 0))
	}
	t.mu.Unlock()
	t.wait(nil)
}
