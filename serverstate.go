package jaws

import (
	"net/http"
	"runtime"
	"sync"
	"time"
	"weak"
)

// serverState is what jaws keeps per http.Server: the handed-back
// connections waiting for their next request, and those whose next
// request's header block is still arriving, which net/http would count as
// idle: its shutdown, or keep-alives turned off, close them.
type serverState struct {
	srv weak.Pointer[http.Server] // weak: the state must not keep the server alive

	mu       sync.Mutex
	down     bool
	idle     map[*handbackListener]struct{}
	watching bool // watchKeepAlives runs
	reading  map[*handbackConn]struct{}
	lanes    map[idleCloser]struct{} // the fast lanes serving for the server, whose idle connections count as net/http's idle ones
}

// idleCloser closes the connections it holds that wait for a request: a
// fast lane (fastlane.go).
type idleCloser interface{ closeIdle() }

// keepAliveCheck is how often jaws looks whether keep-alives were turned
// off while it has idle connections: SetKeepAlivesEnabled(false) closes
// net/http's own idle connections at once, and tells nobody.
const keepAliveCheck = 100 * time.Millisecond

// addIdle holds l, waiting for its connection's next request, unless the
// server is shutting down; removeIdle lets it go.
func (s *serverState) addIdle(l *handbackListener) bool { return hold(s, &s.idle, l) }

func (s *serverState) removeIdle(l *handbackListener) { let(s, &s.idle, l) }

// addReading holds c, whose next request's header is arriving, unless the
// server is shutting down; removeReading lets it go.
func (s *serverState) addReading(c *handbackConn) bool { return hold(s, &s.reading, c) }

func (s *serverState) removeReading(c *handbackConn) { let(s, &s.reading, c) }

// addLane holds l, a fast lane of the server, until removeLane: while it
// is held, keep-alives turned off close its idle connections.
func (s *serverState) addLane(l idleCloser) { hold(s, &s.lanes, l) }

func (s *serverState) removeLane(l idleCloser) { let(s, &s.lanes, l) }

// hold adds k to the set, made if need be, and starts watchKeepAlives
// unless it runs, or reports false when the server is shutting down.
func hold[K comparable](s *serverState, set *map[K]struct{}, k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return false
	}
	if *set == nil {
		*set = make(map[K]struct{})
	}
	(*set)[k] = struct{}{}
	if !s.watching {
		s.watching = true
		go s.watchKeepAlives()
	}
	return true
}

// let removes k from the set.
func let[K comparable](s *serverState, set *map[K]struct{}, k K) {
	s.mu.Lock()
	delete(*set, k)
	s.mu.Unlock()
}

// watchKeepAlives closes the connections net/http would count as idle (no
// request, or one whose header is still arriving) when keep-alives are
// turned off, for as long as there are any.
func (s *serverState) watchKeepAlives() {
	t := time.NewTicker(keepAliveCheck)
	defer t.Stop()
	for range t.C {
		on, _ := keepAlivesEnabled(s.srv.Value()) // a server gone counts as off
		s.mu.Lock()
		if len(s.idle) == 0 && len(s.reading) == 0 && len(s.lanes) == 0 {
			s.watching = false
			s.mu.Unlock()
			return
		}
		var idle []*handbackListener
		var reading []*handbackConn
		var lanes []idleCloser
		if !on {
			for l := range s.idle {
				idle = append(idle, l)
			}
			for c := range s.reading {
				reading = append(reading, c)
			}
			for l := range s.lanes {
				lanes = append(lanes, l)
			}
		}
		s.mu.Unlock()
		for _, l := range idle {
			l.Close()
		}
		for _, c := range reading {
			c.Conn.Close()
		}
		for _, l := range lanes {
			l.closeIdle()
		}
	}
}

// shutdown closes the handed-back connections still reading a request's
// header, as http.Server.Shutdown closes its idle ones (where net/http,
// between two requests on a connection, still counts one). Idle ones end
// when Shutdown closes their listener.
func (s *serverState) shutdown() {
	s.mu.Lock()
	s.down = true
	reading := s.reading
	s.reading = nil
	s.mu.Unlock()
	for c := range reading {
		c.Conn.Close()
	}
}

// server returns jaws's state of srv: it registers with each server it
// meets, once, to hear of its shutdown. The state lives as long as the
// server: it is keyed by a weak pointer and dropped when the server is
// collected, so a process that starts and drops servers (tests, reloads)
// does not accumulate them.
func (s *mover) server(srv *http.Server) *serverState {
	key := weak.Make(srv)
	if v, ok := s.servers.Load(key); ok {
		return v.(*serverState)
	}
	v, loaded := s.servers.LoadOrStore(key, &serverState{srv: key})
	st := v.(*serverState)
	if !loaded {
		srv.RegisterOnShutdown(st.shutdown)
		runtime.AddCleanup(srv, func(k weak.Pointer[http.Server]) { s.servers.Delete(k) }, key)
	}
	return st
}
