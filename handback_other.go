//go:build !linux

package jaws

import (
	"errors"
	"net"
)

// lanePeeks is Linux's only: elsewhere FastLane hands every connection
// over.
const lanePeeks = false

// peekConn is Linux's only: elsewhere jaws reads the first bytes of the next
// request itself and replays them (handbackConn).
func peekConn(net.Conn, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}
