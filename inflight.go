package jaws

import (
	"net"
	"sync"
	"time"
)

// transfers tracks zero-copy transfers in flight, whose connections no
// http.Server tracks while jaws holds them, so that Close and Shutdown can
// end or wait for them.
type transfers struct {
	mu      sync.Mutex
	closing bool
	active  int
	conns   map[net.Conn]struct{} // hijacked connections, for cancel to close
	idle    chan struct{}         // closed when active drops to 0 while someone waits
	stop    chan struct{}         // made by the first begin or cancel, closed by cancel
}

// begin counts a transfer in, unless the handler is closing, and returns
// the channel closed when the transfers in flight must end.
func (t *transfers) begin() (stop <-chan struct{}, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing {
		return nil, false
	}
	t.active++
	return t.stopChan(), true
}

// attach records c, the hijacked connection of a transfer begun, for
// cancel to close.
func (t *transfers) attach(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = make(map[net.Conn]struct{})
	}
	t.conns[c] = struct{}{}
}

// end counts a transfer out; c, its connection if attached, is forgotten.
func (t *transfers) end(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c != nil {
		delete(t.conns, c)
	}
	t.active--
	if t.active == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
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

// isClosing reports whether wait or cancel has begun: the handler is
// shutting down or closed.
func (t *transfers) isClosing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closing
}

// stopChan returns t.stop, made if need be; t.mu is held.
func (t *transfers) stopChan() chan struct{} {
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
	t.mu.Lock()
	t.closing = true
	select {
	case <-t.stopChan():
	default:
		close(t.stop)
	}
	for c := range t.conns {
		c.SetDeadline(time.Unix(1, 0))
	}
	t.mu.Unlock()
	t.wait(nil)
}
