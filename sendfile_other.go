//go:build !linux && !windows

package jaws

import (
	"net"
	"os"
)

// Elsewhere no zero-copy call is wired up: every response takes the
// fallback, where net/http uses what the platform offers.
const zeroCopySupported = false

func sendFile(net.Conn, *os.File, []segment, []byte, bool, deadlines, int64, <-chan struct{}) (int64, bool, error) {
	return 0, false, nil
}
