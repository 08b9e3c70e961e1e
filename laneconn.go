package jaws

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// laneConn is one connection the fast lane reads (fastlane.go). Its first
// request is looked at without being read (MSG_PEEK), so that a connection
// handed over before its first answer reaches net/http untouched. Once it
// has answered, it reads as any server does, and hands the connection over
// with what it read of the next request replayed (handbackConn).
type laneConn struct {
	l     *lane
	c     net.Conn     // as ln accepted it: what srv gets, and what is read, written and closed
	tc    *net.TCPConn // beneath it: what is peeked at, and sendfile writes to
	state atomic.Int32 // laneIdle, laneBusy, laneClosed

	buf       []byte      // what was read: buf[r:n] is not answered yet
	r, n      int         //
	idling    bool        // waiting for the next request, until idleUntil
	idleUntil time.Time   // zero: no idle timeout
	since     time.Time   // when the next request's first 4 bytes were there
	limit     int         // the most a request may take: the buffer, or MaxHeaderBytes
	deadline  time.Time   // the read deadline set
	answered  atomic.Bool // a request was answered here: srv.ConnState knows it
	handed    bool        // the connection is srv's

	p      laneRequest
	cw     connWriter
	req    *http.Request
	cancel context.CancelFunc // req's context
	url    url.URL
	rhdr   http.Header           // the request's fields
	whdr   http.Header           // the response's
	vals   [maxLaneValues]string // the request's field values, kept while a client repeats them
	ans    laneAnswer
	key    []byte // the note key of the request answered (appendKey)
}

const (
	laneIdle   int32 = iota // waiting for a request, or reading one: Shutdown closes it
	laneBusy                // answering
	laneClosed              // closed by Close, Shutdown or keep-alives turned off
)

// laneBufSize is the lane's read buffer: a request whose header block does
// not fit goes to net/http.
const laneBufSize = 8 << 10

var laneConns = sync.Pool{New: func() any {
	return &laneConn{buf: make([]byte, laneBufSize), rhdr: make(http.Header), whdr: make(http.Header)}
}}

func newLaneConn(l *lane, c net.Conn, tc *net.TCPConn) *laneConn {
	lc := laneConns.Get().(*laneConn)
	lc.l, lc.c, lc.tc = l, c, tc
	lc.state.Store(laneIdle)
	lc.limit = min(len(lc.buf), maxHeaderBytes(l.srv))
	// A context of the connection's own, ended with it, as net/http ends
	// a request's when its connection goes: a wait for a compression slot
	// stops with it.
	ctx, cancel := context.WithCancel(l.ctx)
	lc.req, lc.cancel = new(http.Request).WithContext(ctx), cancel
	lc.cw.conn, lc.cw.sock, lc.cw.srv = c, tc, l.srv
	return lc
}

// release returns lc to the pool, holding nothing of its connection.
func (lc *laneConn) release() {
	lc.cancel()
	lc.l, lc.c, lc.tc, lc.req, lc.cancel = nil, nil, nil, nil, nil
	lc.r, lc.n, lc.since, lc.deadline = 0, 0, time.Time{}, time.Time{}
	lc.idling, lc.idleUntil = false, time.Time{}
	lc.answered.Store(false)
	lc.handed = false
	lc.cw = connWriter{out: lc.cw.out[:0], bufs: lc.cw.bufs[:0]}
	clear(lc.rhdr)
	clear(lc.whdr)
	lc.vals = [maxLaneValues]string{}
	lc.ans = laneAnswer{}
	laneConns.Put(lc)
}

// serve reads and answers lc's requests until the connection closes or goes
// to srv.
func (lc *laneConn) serve() {
	defer lc.end()
	if lc.first() {
		for lc.next() {
		}
	}
}

// first answers the connection's first request, looked at without being
// read, or hands the connection over untouched.
func (lc *laneConn) first() bool {
	c, srv := lc.c, lc.l.srv
	if d := readHeaderTimeout(srv); d > 0 {
		lc.setReadDeadline(time.Now().Add(d)) // from the accept, as net/http's
	}
	n, err := peekConn(lc.tc, lc.buf[:lc.limit])
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		lc.handOver()
		return false
	case err != nil:
		return false // closed, or timed out before a byte: as net/http, without a word
	}
	if parseLaneRequest(lc.buf[:n], lc.limit, &lc.p) != laneOK || !lc.answer(0) {
		lc.handOver()
		return false
	}
	// Answered: now read what was looked at.
	if _, err := io.ReadFull(c, lc.buf[:n]); err != nil {
		return false
	}
	lc.r, lc.n = lc.p.size, n
	return lc.afterAnswer()
}

// next answers the whole requests read, writes the answers, and reads on;
// false when the connection is done: closed, or srv's.
func (lc *laneConn) next() bool {
	for lc.r < lc.n {
		v := parseLaneRequest(lc.buf[lc.r:lc.n], lc.limit, &lc.p)
		if v == lanePartial || lc.n-lc.r < requestStart {
			// net/http reads nothing of the next request on a connection
			// it kept until 4 bytes of it are there: a hand-over waits
			// for them, under the idle timeout, as the hand-back does.
			break
		}
		if v == laneRefuse && !headerEnds(lc.buf[lc.r:lc.n]) && lc.n-lc.r < lc.limit {
			// Not the lane's, but its header still arriving: it is read
			// whole first, under the ReadHeaderTimeout that counts from its
			// start, which net/http would begin anew.
			break
		}
		if v == laneRefuse || !lc.answer(lc.r) {
			if lc.cw.flush() == nil {
				lc.handOver()
			}
			return false
		}
		lc.r += lc.p.size
		if !lc.afterAnswer() {
			return false
		}
	}
	if lc.cw.flush() != nil || !lc.keepAlive() {
		return false
	}
	if lc.r == lc.n {
		lc.r, lc.n = 0, 0
		lc.cw.shrink() // idle: a burst's queue is not kept for a connection that waits
	} else if lc.r > 0 {
		lc.n = copy(lc.buf, lc.buf[lc.r:lc.n])
		lc.r = 0
	}
	lc.setReadDeadline(lc.readDeadline())
	m, err := lc.c.Read(lc.buf[lc.n:lc.limit])
	lc.n += m
	if err == io.EOF && lc.n >= requestStart {
		// The client ended in the middle of a request. net/http answers
		// that (400) once it has the 4 bytes it waits for between two
		// requests; with fewer it closes without a word, as the lane does.
		lc.handOver()
		return false
	}
	return err == nil
}

// readDeadline is the deadline of the next read, as net/http's between two
// requests: the idle timeout from the last response until the next
// request's first 4 bytes are there (its Peek), then ReadHeaderTimeout from
// then.
func (lc *laneConn) readDeadline() time.Time {
	srv := lc.l.srv
	if lc.n < requestStart {
		if !lc.idling {
			lc.idling, lc.idleUntil = true, time.Time{}
			if d := idleTimeout(srv); d > 0 {
				lc.idleUntil = time.Now().Add(d)
			}
		}
		return lc.idleUntil
	}
	if lc.since.IsZero() {
		lc.since = time.Now()
	}
	if d := readHeaderTimeout(srv); d > 0 {
		return lc.since.Add(d)
	}
	return time.Time{}
}

// afterAnswer follows an answer: the connection stays open, as net/http
// decides it after each response; false when it closes.
func (lc *laneConn) afterAnswer() bool {
	cw := &lc.cw
	if cw.err != nil {
		return false
	}
	if cw.closeNext || !lc.keepAlive() {
		cw.flush()
		return false
	}
	if cw.queued() >= maxQueued {
		if cw.flush() != nil {
			return false
		}
	}
	lc.state.CompareAndSwap(laneBusy, laneIdle)
	lc.connState(http.StateIdle)
	lc.idling, lc.since = false, time.Time{} // the wait for the next request starts
	return true
}

// keepAlive reports whether the connection may wait for another request:
// net/http's keep-alives on, and the lane not draining.
func (lc *laneConn) keepAlive() bool {
	on, _ := keepAlivesEnabled(lc.l.srv)
	return on && !lc.l.draining.Load() && lc.state.Load() != laneClosed
}

// answer answers the request parsed into lc.p, at buf[at:], if the lane
// can: its target learnt for its host, its file still that version. false
// means nothing was written, and the request goes to srv.
func (lc *laneConn) answer(at int) bool {
	b := lc.buf[at:]
	p := &lc.p
	lc.key = appendKey(lc.key[:0], p.head, b[p.hostAt:p.hostEnd], b[p.fhostAt:p.fhostEnd],
		b[p.fprotoAt:p.fprotoEnd], b[p.targetAt:p.targetEnd])
	note := lc.l.notes.find(lc.key)
	if note == nil || !lc.state.CompareAndSwap(laneIdle, laneBusy) {
		return false
	}
	lc.prepare(note, b)
	h := lc.l.h
	if !h.laneFind(&lc.cw, lc.req, note, &lc.ans) {
		lc.state.CompareAndSwap(laneBusy, laneIdle)
		return false
	}
	if !lc.answered.Load() {
		lc.connState(http.StateNew)
		lc.answered.Store(true)
	}
	lc.connState(http.StateActive)
	lc.cw.armWrite()
	h.laneServe(&lc.cw, lc.req, &lc.ans)
	lc.ans = laneAnswer{}
	lc.cw.finish()
	return true
}

// prepare makes lc.req the request parsed into lc.p from b, for note.
func (lc *laneConn) prepare(note *laneNote, b []byte) {
	p := &lc.p
	clear(lc.rhdr)
	for i := range p.nvalues {
		v := p.values[i]
		val := b[v.start:v.end]
		if lc.vals[i] != string(val) {
			lc.vals[i] = string(val)
		}
		key := laneFields[v.field]
		if old, ok := lc.rhdr[key]; ok {
			lc.rhdr[key] = append(old, lc.vals[i])
		} else {
			lc.rhdr[key] = lc.vals[i : i+1 : i+1]
		}
	}
	lc.url = url.URL{Path: note.path, RawPath: note.rawPath, RawQuery: note.rawQuery()}
	r := lc.req
	r.Method = http.MethodGet
	if p.head {
		r.Method = http.MethodHead
	}
	r.URL = &lc.url
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.Header = lc.rhdr
	r.Host = note.host
	r.RequestURI = note.target
	r.Close = p.closeConn
	r.Body = http.NoBody
	r.ContentLength = 0
	clear(lc.whdr)
	lc.cw.reset(r, lc.whdr)
}

// handOver gives the connection to srv: untouched before its first
// answer, else with what the lane read of the next request replayed, once
// srv.ConnState has heard that it leaves the lane (StateHijacked, as for a
// zero-copy response's hand-back).
func (lc *laneConn) handOver() {
	lc.setReadDeadline(time.Time{})
	lc.c.SetWriteDeadline(time.Time{}) // a lane answer's, which net/http would not have left
	if !lc.state.CompareAndSwap(laneIdle, laneClosed) {
		return // closed meanwhile
	}
	lc.handed = true
	lc.l.remove(lc)
	if !lc.answered.Load() {
		lc.l.handOver(lc.c)
		return
	}
	lc.connState(http.StateHijacked)
	pending := bytes.Clone(lc.buf[lc.r:lc.n])
	hc, err := lc.l.h.tx.server(lc.l.srv).replay(lc.c, pending)
	if err != nil {
		hc.Close()
		return
	}
	lc.l.handOver(hc)
}

// end closes the connection unless srv has it, and lets go of it. A panic
// while answering ends here, as in net/http: what was queued is written,
// the connection closed, and any panic but http.ErrAbortHandler logged.
func (lc *laneConn) end() {
	if p := recover(); p != nil {
		if p != http.ErrAbortHandler {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			logf(lc.l.srv, "http: panic serving %v: %v\n%s", lc.c.RemoteAddr(), p, buf)
		}
		lc.cw.flush()
	}
	if !lc.handed {
		lc.state.Store(laneClosed)
		lc.c.Close()
		if lc.answered.Load() {
			lc.connState(http.StateClosed)
		}
		lc.l.remove(lc)
	}
	lc.release()
}

// closeIfIdle closes the connection if it waits for a request: its next
// one, or, with first, its first too.
func (lc *laneConn) closeIfIdle(first bool) {
	if (first || lc.answered.Load()) && lc.state.CompareAndSwap(laneIdle, laneClosed) {
		lc.c.Close()
	}
}

// close closes the connection, whatever it is doing.
func (lc *laneConn) close() {
	lc.state.Store(laneClosed)
	lc.c.Close()
}

func (lc *laneConn) connState(s http.ConnState) {
	if hook := lc.l.srv.ConnState; hook != nil {
		hook(lc.c, s)
	}
}

func (lc *laneConn) setReadDeadline(t time.Time) {
	if t != lc.deadline {
		lc.deadline = t
		lc.c.SetReadDeadline(t)
	}
}

// logf logs as srv does: to its ErrorLog, else the log package's logger.
func logf(srv *http.Server, format string, args ...any) {
	if srv.ErrorLog != nil {
		srv.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

// laneContext is the context of a lane's requests: its server's, as
// net/http's requests carry it.
func laneContext(srv *http.Server) context.Context {
	return context.WithValue(context.Background(), http.ServerContextKey, srv)
}
