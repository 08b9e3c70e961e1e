//go:build !linux && !windows

package jaws

import "syscall"

// Elsewhere no zero-copy call is wired up: every response takes the
// fallback, where net/http uses what the platform offers.
const zeroCopySupported = false

func sendFile(syscall.RawConn, uintptr, []segment, []byte, sendOpts) (written int64, handled bool, err error) {
	return 0, false, nil
}
