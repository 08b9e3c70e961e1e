//go:build !linux

package jaws

import (
	"errors"
	"net"
)

// peekConn is Linux's only: elsewhere jaws reads the first bytes of the next
// request itself and replays them (handbackConn).
func peekConn(net.Conn, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}
