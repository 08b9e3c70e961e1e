package jaws

import (
	"runtime"
	"slices"
)

// Closing the lane: with srv.Close or srv.Shutdown (through the listener's
// Close), and with Handler.Close or Shutdown.

// Close closes ln. Called by srv.Close it also closes the lane's
// connections; by srv.Shutdown, those idle (the others close after their
// response, when net/http's keep-alives say no). From anyone else it
// leaves them, as net/http leaves its connections when Serve returns.
func (l *lane) Close() error {
	call := serverCall()
	var err error
	l.closing.Do(func() {
		err = l.ln.Close()
		close(l.closed)
		l.h.tx.server(l.srv).removeLane(l)
		l.shut.Store(true)
		l.h.retireLane(l)
	})
	switch call {
	case "Close":
		l.closeAll()
	case "Shutdown":
		l.drain()
	}
	return err
}

// serverCall tells which of http.Server's Close and Shutdown, if either,
// the calling goroutine is in: both close the listeners first, and only
// they say which it is. Read from the stack, as a ConnState hook reads
// nothing; should a Go release rename them, TestFastLaneServerCall fails.
func serverCall() string {
	var pcs [24]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "net/http.(*Server).Close":
			return "Close"
		case "net/http.(*Server).Shutdown":
			return "Shutdown"
		}
		if !more {
			return ""
		}
	}
}

// each calls f for every connection the lane reads now, under the lane's
// lock: a connection leaves (remove) only under it, so f never meets one
// that has gone back to the pool. f must not block.
func (l *lane) each(f func(*laneConn)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for lc := range l.conns {
		f(lc)
	}
}

// drain closes the idle connections now, new ones included, and makes the
// others close after their response: srv's Shutdown, after which net/http
// answers nothing it reads.
func (l *lane) drain() {
	l.mu.Lock()
	l.draining.Store(true)
	l.mu.Unlock()
	l.each(func(lc *laneConn) { lc.closeIfIdle(true) })
}

// closeIdle closes the connections waiting for their next request, when
// srv's keep-alives are turned off. A new one, which has yet to send its
// first, is left to answer it (with "Connection: close"), as net/http
// leaves its new connections.
func (l *lane) closeIdle() { l.each(func(lc *laneConn) { lc.closeIfIdle(false) }) }

// closeAll closes every connection at once.
func (l *lane) closeAll() {
	l.mu.Lock()
	l.draining.Store(true)
	l.mu.Unlock()
	l.each((*laneConn).close)
}

// wait waits until the lane reads no connection, or done is closed; it
// reports whether none is left.
func (l *lane) wait(done <-chan struct{}) bool {
	l.mu.Lock()
	if len(l.conns) == 0 {
		l.mu.Unlock()
		return true
	}
	if l.empty == nil {
		l.empty = make(chan struct{})
	}
	empty := l.empty
	l.mu.Unlock()
	select {
	case <-empty:
		return true
	case <-done:
		return false
	}
}

// addLane registers l with the handler, which learns for it.
func (h *Handler) addLane(l *lane) {
	for {
		old := h.lanes.Load()
		var lanes []*lane
		if old != nil {
			lanes = slices.Clone(*old)
		}
		lanes = append(lanes, l)
		if h.lanes.CompareAndSwap(old, &lanes) {
			return
		}
	}
}

// retireLane stops the handler learning for l, whose listener closed; l
// stays among the lanes Shutdown and Close end until its last connection
// is gone.
func (h *Handler) retireLane(l *lane) {
	for {
		old := h.lanes.Load()
		if old == nil || !slices.Contains(*old, l) {
			break
		}
		var lanes *[]*lane
		if rest := slices.DeleteFunc(slices.Clone(*old), func(x *lane) bool { return x == l }); len(rest) > 0 {
			lanes = &rest
		}
		if h.lanes.CompareAndSwap(old, lanes) {
			break
		}
	}
	h.laneMu.Lock()
	if h.retired == nil {
		h.retired = make(map[*lane]struct{})
	}
	h.retired[l] = struct{}{}
	h.laneMu.Unlock()
	if l.idle() {
		h.forgetLane(l)
	}
}

// forgetLane lets go of l, retired and without connections.
func (h *Handler) forgetLane(l *lane) {
	h.laneMu.Lock()
	delete(h.retired, l)
	h.laneMu.Unlock()
}

// allLanes is every lane that may read connections: those serving, and
// those retired with connections left.
func (h *Handler) allLanes() []*lane {
	var all []*lane
	if lanes := h.lanes.Load(); lanes != nil {
		all = append(all, *lanes...)
	}
	h.laneMu.Lock()
	for l := range h.retired {
		all = append(all, l)
	}
	h.laneMu.Unlock()
	return all
}

// endLanes stops every lane reading connections. With graceful, it waits
// for those it reads to finish their response, until done is closed, and
// reports whether they all did; else it closes them at once.
func (h *Handler) endLanes(graceful bool, done <-chan struct{}) bool {
	lanes := h.allLanes()
	ok := true
	for _, l := range lanes {
		l.off.Store(true)
		if !graceful {
			l.closeAll()
			continue
		}
		l.drain()
		if !l.wait(done) {
			l.closeAll()
			ok = false
		}
	}
	for _, l := range lanes {
		l.wait(nil)
	}
	return ok
}

// isClosed reports whether Close or Shutdown has begun.
func (h *Handler) isClosed() bool { return h.tx.transfers.isClosing() }
