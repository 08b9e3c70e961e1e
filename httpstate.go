package jaws

import (
	"net/http"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// net/http keeps private three facts that decide whether a response may go
// zero-copy and what follows it:
//
//   - whether the server's keep-alives are on: SetKeepAlivesEnabled has no
//     getter, and net/http closes the connection after a response (and says
//     so with "Connection: close") when they are off;
//   - whether the server is shutting down: Close, unlike Shutdown, calls no
//     hook jaws could register;
//   - whether the response's header was already written by a handler before
//     jaws: Hijack then flushes that header, and a response from jaws behind
//     it would be a second one on the wire.
//
// No public API tells them, and none of them can be observed without
// changing the response, so jaws reads them. Each is looked up once, by
// name and type; should a Go release rename or retype one, the lookup
// fails and the zero-copy path is not taken at all (net/http's own path
// serves everything, correctly), and TestHTTPStateFound fails to say so.

// serverFlags are the offsets of http.Server's disableKeepAlives and
// inShutdown; ok is false when they are not found as atomic.Bool fields.
var serverFlags = func() (f struct {
	disableKeepAlives, inShutdown uintptr
	ok                            bool
}) {
	t := reflect.TypeFor[http.Server]()
	want := reflect.TypeFor[atomic.Bool]()
	dka, ok1 := t.FieldByName("disableKeepAlives")
	ins, ok2 := t.FieldByName("inShutdown")
	if !ok1 || !ok2 || dka.Type != want || ins.Type != want {
		return f
	}
	f.disableKeepAlives, f.inShutdown, f.ok = dka.Offset, ins.Offset, true
	return f
}()

// keepAlivesEnabled is net/http's Server.doKeepAlives: keep-alives not
// disabled and the server not shutting down. known is false when jaws
// cannot tell.
func keepAlivesEnabled(srv *http.Server) (enabled, known bool) {
	if !serverFlags.ok || srv == nil {
		return false, false
	}
	p := unsafe.Pointer(srv)
	disabled := (*atomic.Bool)(unsafe.Add(p, serverFlags.disableKeepAlives)).Load()
	down := (*atomic.Bool)(unsafe.Add(p, serverFlags.inShutdown)).Load()
	return !disabled && !down, true
}

// serverWriter is net/http's own ResponseWriter type for HTTP/1, learnt
// from the first one seen so that the check per request is one comparison,
// with the index of its wroteHeader field (-1: not found as a bool).
type serverWriter struct {
	t           reflect.Type
	wroteHeader int
}

var serverWriterType atomic.Pointer[serverWriter]

// isServerWriter reports whether w is net/http's own HTTP/1 writer,
// unwrapped.
func isServerWriter(w http.ResponseWriter) bool {
	t := reflect.TypeOf(w)
	if p := serverWriterType.Load(); p != nil {
		return p.t == t
	}
	if t.String() != "*http.response" || t.Elem().PkgPath() != "net/http" {
		return false
	}
	sw := &serverWriter{t, -1}
	if f, ok := t.Elem().FieldByName("wroteHeader"); ok && len(f.Index) == 1 && f.Type.Kind() == reflect.Bool {
		sw.wroteHeader = f.Index[0]
	}
	serverWriterType.Store(sw)
	return true
}

// headerWritten reports whether w, net/http's own HTTP/1 writer (see
// isServerWriter), has had its header written by WriteHeader, Write or
// Flush, and whether jaws can tell.
func headerWritten(w http.ResponseWriter) (written, known bool) {
	sw := serverWriterType.Load()
	if sw == nil || sw.wroteHeader < 0 {
		return false, false
	}
	return reflect.ValueOf(w).Elem().Field(sw.wroteHeader).Bool(), true
}
