package jaws

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// After a zero-copy response on a connection that stays open, jaws gives it
// back to the same http.Server, which then serves its next requests as on
// any connection. net/http has no API to take back a hijacked connection,
// only Serve, to which every connection is new; what jaws does around it
// makes a handed-back connection behave as one net/http had kept (the
// steps of conn.serve in net/http/server.go between two requests):
//
//   - jaws, not net/http, waits for the next request, under the server's
//     idle timeout (IdleTimeout, else ReadTimeout), until its first 4 bytes
//     are there, as net/http's Peek(4) does. Only then does it hand the
//     connection over, so that ReadHeaderTimeout and ReadTimeout, which
//     net/http arms at once on a new connection, start when the request
//     does, as they do on a kept one.
//   - The wait runs inside Accept of a one-connection listener that Serve
//     tracks: Shutdown and Close close listeners, and closing this one
//     closes the idle connection, as net/http closes its idle ones.
//   - A connection whose next request has not fully arrived is in state
//     StateNew to net/http, which Shutdown leaves alone for 5 seconds;
//     a kept one would be StateIdle, closed at once. Until the blank line
//     ending its header block has been read, jaws closes it when the
//     server shuts down (RegisterOnShutdown).
//   - SetKeepAlivesEnabled(false) closes net/http's idle connections and
//     tells nobody: while jaws holds idle ones, it looks every
//     keepAliveCheck, and closes them.
//   - The connection itself is handed over, so that ConnContext and
//     ConnState see the *net.TCPConn they saw before, unless jaws must
//     replay bytes net/http had already read (pipelined requests) or watch
//     for the end of a header block still arriving: then a handbackConn,
//     which passes on CloseWrite, ReadFrom, SyscallConn, and offers
//     NetConn for the connection beneath.
//
// This file is the listener and the connection it hands over;
// serverstate.go keeps what jaws knows per server (the connections it holds
// idle or reading, the shutdown hook, the watch on keep-alives).
//
// What cannot be made the same is documented in docs/zerocopy.md ("What
// still differs from net/http") and SECURITY.md: BaseContext and
// ConnContext run again for each hand-back; ConnState goes StateHijacked,
// then StateNew; and the next request's header is held to MaxHeaderBytes
// (plus 4096) like a first request's, without the bytes net/http's buffer
// may hold uncounted on a kept connection.

// requestStart is how many bytes of the next request net/http waits for,
// under the idle timeout, before it arms its request timeouts (Peek(4) in
// conn.serve).
const requestStart = 4

// peekSize is how much of the next request jaws looks at for the end of its
// header block: net/http's read buffer.
const peekSize = 4 << 10

// handBack gives conn back to srv; br holds what net/http had read from it
// past the request just answered.
func (s *mover) handBack(srv *http.Server, conn net.Conn, br *bufio.Reader, sent int64) {
	var pending []byte
	if n := br.Buffered(); n > 0 {
		p, _ := br.Peek(n)
		pending = bytes.Clone(p)
	}
	if hc, ok := conn.(*handbackConn); ok { // handed back before: one wrapper only
		hc.release()
		pending = append(pending, hc.pending...)
		conn = hc.Conn
	}
	l := &handbackListener{st: s.server(srv), srv: srv, addr: conn.LocalAddr(), conn: conn, pending: pending,
		queued: &s.queued, sent: sent}
	if d := idleTimeout(srv); d > 0 {
		l.idleUntil = time.Now().Add(d)
	}
	go func() {
		srv.Serve(l) // returns at the second Accept, or at once when shutting down
		l.Close()
	}()
}

// handbackListener accepts one connection, when its next request begins,
// then reports itself closed.
type handbackListener struct {
	st        *serverState
	srv       *http.Server
	addr      net.Addr
	idleUntil time.Time     // zero: no idle timeout
	queued    *atomic.Int64 // the handler's sum of sent over connections waiting (corkLimit)
	sent      int64         // the body bytes of the response just sent

	mu      sync.Mutex
	conn    net.Conn // until Accept takes it
	pending []byte   // bytes of the next requests already read
	waiting net.Conn // while Accept waits for the next request
	closed  bool
}

func (l *handbackListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c, pending := l.conn, l.pending
	l.conn, l.pending = nil, nil
	if c == nil || l.closed {
		l.mu.Unlock()
		if c != nil {
			c.Close()
		}
		return nil, net.ErrClosed
	}
	l.waiting = c
	l.mu.Unlock()

	var next net.Conn
	err := net.ErrClosed
	if l.st.addIdle(l) {
		// Until the next request starts, the response just sent is
		// probably still in the kernel's queues, being read.
		l.queued.Add(l.sent)
		next, err = l.awaitRequest(c, pending)
		l.queued.Add(-l.sent)
		l.st.removeIdle(l)
	}

	l.mu.Lock()
	l.waiting = nil
	if err == nil && l.closed {
		err = net.ErrClosed
	}
	l.mu.Unlock()
	if err == nil {
		if on, _ := keepAlivesEnabled(l.srv); !on {
			err = net.ErrClosed // turned off while the connection was idle
		}
	}
	if err != nil {
		if hc, ok := next.(*handbackConn); ok {
			hc.release()
		}
		c.Close()
		return nil, net.ErrClosed
	}
	return next, nil
}

// awaitRequest waits, under the idle timeout, for the first bytes of the
// next request, and returns the connection net/http is to serve.
func (l *handbackListener) awaitRequest(c net.Conn, pending []byte) (net.Conn, error) {
	var peeked []byte
	if len(pending) < requestStart {
		c.SetReadDeadline(l.idleUntil)
		buf := make([]byte, peekSize)
		if len(pending) == 0 {
			n, err := peekConn(c, buf)
			if err != nil && err != errors.ErrUnsupported {
				return nil, err
			}
			peeked = buf[:n]
		}
		if len(peeked) < requestStart {
			// Fewer bytes than net/http waits for, or no way to look
			// without reading: read them, as net/http's Peek(4) does.
			for len(pending) < requestStart {
				n, err := c.Read(buf)
				pending = append(pending, buf[:n]...)
				if err != nil {
					return nil, err
				}
			}
			peeked = nil
		}
		c.SetReadDeadline(time.Time{})
	}
	if len(pending) == 0 && headerEnds(peeked) {
		return c, nil // net/http reads the whole header block at once
	}
	return l.st.replay(c, pending)
}

// replay returns c as a handbackConn that replays pending, the first bytes
// of a request already read from c. While that request's header block has
// not fully arrived, the server's shutdown closes it; fails when the server
// is shutting down.
func (s *serverState) replay(c net.Conn, pending []byte) (*handbackConn, error) {
	hc := &handbackConn{Conn: c, pending: pending}
	var scan headScan
	if !scan.feed(pending) {
		hc.scan = scan
		if !s.addReading(hc) {
			return hc, net.ErrClosed // the server is shutting down
		}
		hc.st.Store(s)
	}
	return hc, nil
}

// Close ends a wait for the next request by closing the connection, as
// Shutdown and Close of the server close their idle connections.
func (l *handbackListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.waiting != nil {
		l.waiting.Close()
	}
	if l.conn != nil { // never accepted: the server was shutting down
		l.conn.Close()
		l.conn = nil
	}
	return nil
}

// Addr is the connection's local address, which a BaseContext hook
// might look at.
func (l *handbackListener) Addr() net.Addr { return l.addr }

// handbackConn is a handed-back connection that replays bytes net/http had
// already read from it, or whose next request's header block has not fully
// arrived: until it has, the server's shutdown closes it.
type handbackConn struct {
	net.Conn
	pending []byte

	scan headScan                    // the next request's bytes read so far
	st   atomic.Pointer[serverState] // set while that request's header is arriving
}

func (c *handbackConn) Read(p []byte) (n int, err error) {
	if len(c.pending) > 0 {
		n = copy(p, c.pending)
		c.pending = c.pending[n:]
	} else {
		n, err = c.Conn.Read(p)
	}
	if c.st.Load() != nil && c.scan.feed(p[:n]) {
		c.release()
	}
	return n, err
}

// release ends the shutdown hook's hold on c.
func (c *handbackConn) release() {
	if st := c.st.Swap(nil); st != nil {
		st.removeReading(c)
	}
}

func (c *handbackConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// NetConn returns the connection beneath, for a ConnContext or ConnState
// hook that looks for a *net.TCPConn.
func (c *handbackConn) NetConn() net.Conn { return c.Conn }

// ReadFrom passes the connection's own ReadFrom on, so that net/http's
// sendfile still serves fallback responses on a handed-back connection.
func (c *handbackConn) ReadFrom(r io.Reader) (int64, error) { return readFrom(c.Conn, r) }

// CloseWrite passes the half-close on: net/http uses it to end a connection
// whose client may still be sending (after a 431, say) without a reset.
func (c *handbackConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// SyscallConn passes the socket on, for hooks that set options on it.
func (c *handbackConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// netConn returns the connection beneath jaws's own wrapper, for sendFile.
func netConn(c net.Conn) net.Conn {
	if hc, ok := c.(*handbackConn); ok {
		return hc.Conn
	}
	return c
}

// headScan follows the bytes of a request up to the blank line ending its
// header block ("\n" or "\r\n" on a line of its own, as net/textproto reads
// lines). The zero value is at the start of the request, where a blank line
// also makes net/http answer without waiting for more (a malformed request).
type headScan uint8

const (
	scanLineStart headScan = iota
	scanInLine
	scanCR // "\r" at the start of a line
	scanDone
)

// feed scans p and reports whether the header block has ended.
func (s *headScan) feed(p []byte) bool {
	st := *s
	for _, b := range p {
		if st == scanDone {
			break
		}
		switch {
		case b == '\n' && st != scanInLine:
			st = scanDone
		case b == '\n':
			st = scanLineStart
		case b == '\r' && st == scanLineStart:
			st = scanCR
		default:
			st = scanInLine
		}
	}
	*s = st
	return st == scanDone
}

// headerEnds reports whether p holds the end of a request's header block.
func headerEnds(p []byte) bool {
	var s headScan
	return s.feed(p)
}
