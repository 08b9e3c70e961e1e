package jaws

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// handBack gives conn back to srv, which serves its next request as on any
// accepted connection. Bytes net/http had already read from it (pipelined
// requests) are replayed first.
//
// To net/http a handed-back connection is a new one, and a new connection
// waits for its first request with neither IdleTimeout (which applies
// between requests) nor, unless ReadHeaderTimeout or ReadTimeout is set, any
// deadline; and Shutdown does not count it as idle until it is 5 seconds
// old. So until the first byte of the next request arrives, handbackConn
// keeps the server's idle timeout on its reads, and the server's shutdown
// closes it, as both would do for a keep-alive connection net/http had kept.
func (h *Handler) handBack(srv *http.Server, conn net.Conn, br *bufio.Reader) {
	var pending []byte
	if n := br.Buffered(); n > 0 {
		p, _ := br.Peek(n)
		pending = bytes.Clone(p)
	}
	if hc, ok := conn.(*handbackConn); ok { // a connection handed back before: one wrapper only
		pending = append(pending, hc.pending...)
		conn = hc.Conn
	}
	hc := &handbackConn{Conn: conn, pending: pending}
	if len(pending) == 0 {
		hc.awaitRequest(h.server(srv), srv)
	}
	l := &handbackListener{}
	var c net.Conn = hc
	l.conn.Store(&c)
	go func() {
		srv.Serve(l) // returns at the second Accept, or at once when shutting down
		if c := l.take(); c != nil {
			c.Close() // never accepted: the server is shutting down
		}
	}()
}

// handbackListener accepts one connection, then reports itself closed.
type handbackListener struct {
	conn atomic.Pointer[net.Conn]
}

func (l *handbackListener) take() net.Conn {
	if p := l.conn.Swap(nil); p != nil {
		return *p
	}
	return nil
}

func (l *handbackListener) Accept() (net.Conn, error) {
	if c := l.take(); c != nil {
		return c, nil
	}
	return nil, net.ErrClosed
}

func (l *handbackListener) Close() error { return nil }

func (l *handbackListener) Addr() net.Addr { return dummyAddr{} }

type dummyAddr struct{}

func (dummyAddr) Network() string { return "tcp" }
func (dummyAddr) String() string  { return "jaws-handback" }

// handbackConn is a connection jaws gave back to its server: it reads
// pending before the connection itself and, while idle (no byte of the next
// request read yet), bounds reads by the server's idle timeout and lets the
// server's shutdown close it.
type handbackConn struct {
	net.Conn
	pending []byte

	mu     sync.Mutex
	srv    *serverState // set while idle
	idleAt time.Time    // the idle deadline; zero: none
	rd     time.Time    // the read deadline net/http asked for
}

// awaitRequest starts the idle wait, under srv's idle timeout as net/http
// reckons it (IdleTimeout, else ReadTimeout).
func (c *handbackConn) awaitRequest(st *serverState, srv *http.Server) {
	d := srv.IdleTimeout
	if d == 0 {
		d = srv.ReadTimeout
	}
	if d > 0 {
		c.idleAt = time.Now().Add(d)
		c.Conn.SetReadDeadline(c.idleAt)
	}
	if !st.addIdle(c) {
		c.Conn.Close() // the server is shutting down
		return
	}
	c.srv = st
}

// active ends the idle wait: a byte of a request arrived, or the connection
// is closing.
func (c *handbackConn) active() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv == nil {
		return
	}
	c.srv.removeIdle(c)
	c.srv, c.idleAt = nil, time.Time{}
	c.Conn.SetReadDeadline(c.rd)
}

func (c *handbackConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.active()
	}
	return n, err
}

// ReadFrom passes the connection's own ReadFrom on, so that net/http's
// sendfile still serves fallback responses on a handed-back connection.
func (c *handbackConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

func (c *handbackConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd = t
	if !c.idleAt.IsZero() && (t.IsZero() || c.idleAt.Before(t)) {
		t = c.idleAt
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *handbackConn) SetDeadline(t time.Time) error {
	c.Conn.SetWriteDeadline(t)
	return c.SetReadDeadline(t)
}

func (c *handbackConn) Close() error {
	c.active()
	return c.Conn.Close()
}

// netConn returns the connection beneath jaws's own wrapper, for sendFile.
func netConn(c net.Conn) net.Conn {
	if hc, ok := c.(*handbackConn); ok {
		return hc.Conn
	}
	return c
}

// serverState is what jaws knows of one http.Server: whether it is shutting
// down, and the handed-back connections idle on it, which its shutdown
// closes.
type serverState struct {
	mu   sync.Mutex
	down atomic.Bool
	idle map[*handbackConn]struct{}
}

func (s *serverState) addIdle(c *handbackConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down.Load() {
		return false
	}
	if s.idle == nil {
		s.idle = make(map[*handbackConn]struct{})
	}
	s.idle[c] = struct{}{}
	return true
}

func (s *serverState) removeIdle(c *handbackConn) {
	s.mu.Lock()
	delete(s.idle, c)
	s.mu.Unlock()
}

// shutdown marks the server down and closes its idle handed-back
// connections, as http.Server.Shutdown closes its own idle ones.
func (s *serverState) shutdown() {
	s.mu.Lock()
	s.down.Store(true)
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for c := range idle {
		c.Conn.Close()
	}
}

// shuttingDown reports whether srv is shutting down, as far as jaws has
// heard.
func (h *Handler) shuttingDown(srv *http.Server) bool {
	return h.server(srv).down.Load()
}

// server returns jaws's state of srv: it registers with each server it
// meets, once, to hear of its shutdown.
func (h *Handler) server(srv *http.Server) *serverState {
	if v, ok := h.servers.Load(srv); ok {
		return v.(*serverState)
	}
	v, loaded := h.servers.LoadOrStore(srv, new(serverState))
	st := v.(*serverState)
	if !loaded {
		srv.RegisterOnShutdown(st.shutdown)
	}
	return st
}
