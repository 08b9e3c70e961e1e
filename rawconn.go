package jaws

import (
	"net"
	"os"
	"syscall"
)

// What the system calls on a connection are handed: its socket's
// syscall.RawConn, and for the OS call the file's descriptor.

// socket returns c's socket; ok is false when c exposes none (a wrapping
// listener's conn).
func socket(c net.Conn) (rc syscall.RawConn, ok bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	return rc, true
}

// rawConns returns what the OS call needs: the socket of c, and the
// descriptor (or handle) of f, which the caller must not use after f is
// closed. ok is false when c exposes no socket.
func rawConns(c net.Conn, f *os.File) (rc syscall.RawConn, fd uintptr, ok bool) {
	rc, ok = socket(c)
	if !ok {
		return nil, 0, false
	}
	fc, err := f.SyscallConn()
	if err != nil {
		return nil, 0, false
	}
	fc.Control(func(d uintptr) { fd = d })
	return rc, fd, true
}
