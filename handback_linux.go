package jaws

import (
	"errors"
	"io"
	"net"

	"golang.org/x/sys/unix"
)

// lanePeeks: the fast lane can look at a connection's first request
// without reading it (peekConn), and so reads connections.
const lanePeeks = true

// peekConn waits, under c's read deadline, until c has bytes to read or its
// peer has closed it, and copies what is there into buf without taking it
// off the socket (MSG_PEEK), so that net/http reads it from the connection
// itself. It fails with io.EOF when the peer closed the connection, and
// with errors.ErrUnsupported when c exposes no socket.
func peekConn(c net.Conn, buf []byte) (int, error) {
	rc, ok := socket(c)
	if !ok {
		return 0, errors.ErrUnsupported
	}
	var n int
	var perr error
	err := rc.Read(func(fd uintptr) bool {
		for {
			n, _, perr = unix.Recvfrom(int(fd), buf, unix.MSG_PEEK|unix.MSG_DONTWAIT)
			if perr != unix.EINTR {
				break
			}
		}
		return perr != unix.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case perr != nil:
		return 0, perr
	case n <= 0:
		return 0, io.EOF
	}
	return n, nil
}
