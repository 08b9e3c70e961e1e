package jaws

import (
	"context"
	"net"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// The fast lane (docs/fastlane.md) reads plain connections before net/http
// does and answers, itself, requests for public files it has seen jaws
// answer through the server once: net/http's per-request work (the parse
// into an *http.Request, the header maps, its buffered writer) is the
// largest cost left on a hit. Everything else goes to the same
// http.Server with its bytes intact.
//
//   - fastlane.go: FastLane, the listener it returns, its connections'
//     registry.
//   - laneclose.go: closing the lane with the server (Close, Shutdown) and
//     with the handler.
//   - lanelearn.go: what the lane learns from jaws's answers through the
//     server (notes), and the answer on the lane.
//   - laneconn.go: one connection: reading, answering, handing over.
//   - laneparse.go: the parser, a strict subset of HTTP/1.1.
//   - connwriter.go: the ResponseWriter of a connection jaws owns.

// FastLane returns a listener for srv.Serve that makes jaws the first reader
// of every plain TCP connection ln accepts:
//
//	srv.Serve(h.FastLane(ln, srv, "/static/"))
//
// prefix is a promise: every name under it is a public file whose response
// does not depend on who asks.
//
// jaws answers a GET or HEAD for such a name on the lane, with no work of
// net/http's. It does so only after it answered that name through
// srv.Handler, on net/http's own ResponseWriter. The headers the handlers
// in front of it set then are replayed on every lane answer. They are
// learnt again when the file changes.
//
// These go to srv as if the lane did not exist: the first request for a
// name, names jaws does not serve, other methods, requests with a body,
// credentials or an Origin, anything the lane's parser is not sure of, and
// the rest of a connection after such a request. A connection handed over
// before its first answer reaches srv as ln accepted it.
//
// The lane keeps srv's ReadHeaderTimeout, ReadTimeout, IdleTimeout,
// WriteTimeout, MaxHeaderBytes and SetKeepAlivesEnabled, and reports its
// connections to srv.ConnState. srv.Close ends its connections at once;
// srv.Shutdown closes the idle ones at once and the others after their
// response; Handler.Shutdown waits for them.
//
// FastLane returns ln itself, and so changes nothing, on systems other
// than Linux and where jaws cannot read net/http's connection state
// (httpstate.go). A TLS connection is handed over at its first byte: the
// lane reads plain HTTP/1.1 only. docs/fastlane.md has the contract.
func (h *Handler) FastLane(ln net.Listener, srv *http.Server, prefix string) net.Listener {
	if !lanePeeks || !serverFlags.ok || srv == nil || h.isClosed() {
		return ln
	}
	l := &lane{h: h, srv: srv, prefix: prefix, ln: ln, ctx: laneContext(srv),
		handed: make(chan net.Conn), errs: make(chan error), closed: make(chan struct{})}
	l.notes.init()
	h.addLane(l)
	h.tx.server(srv).addLane(l)
	return l
}

// lane is one FastLane: the listener srv serves, and the connections it
// owns.
type lane struct {
	h      *Handler
	srv    *http.Server
	prefix string
	ln     net.Listener
	ctx    context.Context // of the lane's requests
	notes  laneNotes

	handed  chan net.Conn // connections for srv, through Accept
	errs    chan error    // ln's errors, for srv's Serve to judge
	start   sync.Once     // the accept loop
	closed  chan struct{} // closed by Close
	closing sync.Once
	off     atomic.Bool // the handler is closing: hand everything over
	shut    atomic.Bool // the listener is closed: nothing more to learn

	mu       sync.Mutex
	conns    map[*laneConn]struct{}
	draining atomic.Bool   // idle connections close, busy ones after their response; set under mu
	empty    chan struct{} // closed when conns empties while someone waits
}

// Accept returns the next connection for srv: one ln accepted that the
// lane does not read, or one it hands over.
func (l *lane) Accept() (net.Conn, error) {
	l.start.Do(func() { go l.acceptLoop() })
	select {
	case c := <-l.handed:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *lane) Addr() net.Addr { return l.ln.Addr() }

// acceptLoop accepts ln's connections: each plain TCP connection the lane
// reads, any other goes to srv.
func (l *lane) acceptLoop() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			select {
			case l.errs <- err: // Serve backs off, or returns and closes l
			case <-l.closed:
				return
			}
			continue
		}
		tc, ok := tcpConn(c)
		if !ok || !l.reads() {
			l.handOver(c)
			continue
		}
		lc := newLaneConn(l, c, tc)
		if !l.add(lc) {
			lc.release()
			l.handOver(c)
			continue
		}
		go lc.serve()
	}
}

// tcpConn returns the TCP connection c is, or wraps: through a NetConn
// method, or an embedded net.Conn field named Conn, as
// golang.org/x/net/netutil.LimitListener's connections have. So a listener
// that limits connections, wrapped by FastLane, still counts the lane's.
func tcpConn(c net.Conn) (*net.TCPConn, bool) {
	for range 4 {
		switch x := c.(type) {
		case *net.TCPConn:
			return x, true
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
			continue
		}
		v := reflect.ValueOf(c)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := v.Type().FieldByName("Conn")
		if !ok || !f.Anonymous || f.Type != reflect.TypeFor[net.Conn]() || len(f.Index) != 1 {
			return nil, false
		}
		inner, _ := v.Field(f.Index[0]).Interface().(net.Conn)
		if inner == nil {
			return nil, false
		}
		c = inner
	}
	return nil, false
}

// reads reports whether the lane reads new connections: not when the
// handler is closing, nor where net/http would take unencrypted HTTP/2 on
// a connection that is new to it (a handed-over one) and not on one it had
// kept.
func (l *lane) reads() bool {
	p := l.srv.Protocols
	return !l.off.Load() && (p == nil || !p.UnencryptedHTTP2())
}

// handOver gives c to srv, through Accept; false when the lane is closed,
// and c with it.
func (l *lane) handOver(c net.Conn) bool {
	select {
	case l.handed <- c:
		return true
	case <-l.closed:
		c.Close()
		return false
	}
}

// add registers a connection the lane reads, unless it is draining.
func (l *lane) add(lc *laneConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.draining.Load() {
		return false
	}
	if l.conns == nil {
		l.conns = make(map[*laneConn]struct{})
	}
	l.conns[lc] = struct{}{}
	return true
}

// remove forgets a connection the lane no longer reads. The last one of a
// closed lane lets the handler forget the lane.
func (l *lane) remove(lc *laneConn) {
	l.mu.Lock()
	delete(l.conns, lc)
	empty := len(l.conns) == 0
	if empty && l.empty != nil {
		close(l.empty)
		l.empty = nil
	}
	l.mu.Unlock()
	if empty && l.shut.Load() {
		l.h.forgetLane(l)
	}
}

// idle reports whether the lane reads no connection.
func (l *lane) idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns) == 0
}

// readHeaderTimeout is net/http's Server.readHeaderTimeout.
func readHeaderTimeout(srv *http.Server) time.Duration {
	if srv.ReadHeaderTimeout > 0 {
		return srv.ReadHeaderTimeout
	}
	return srv.ReadTimeout
}

// maxHeaderBytes is net/http's Server.maxHeaderBytes.
func maxHeaderBytes(srv *http.Server) int {
	if srv.MaxHeaderBytes > 0 {
		return srv.MaxHeaderBytes
	}
	return http.DefaultMaxHeaderBytes
}
