package jaws

import (
	"net"

	"golang.org/x/sys/unix"
)

// consumed is how many bytes the process behind c has read from it: what
// its socket received less what waits unread. ok is false when c cannot
// tell (closed, no socket).
func consumed(c net.Conn) (n int64, ok bool) {
	rc, ok := socket(c)
	if !ok {
		return 0, false
	}
	var err error
	if cerr := rc.Control(func(fd uintptr) {
		var info *unix.TCPInfo
		var inq int
		if info, err = unix.GetsockoptTCPInfo(int(fd), unix.SOL_TCP, unix.TCP_INFO); err != nil {
			return
		}
		if inq, err = unix.IoctlGetInt(int(fd), unix.SIOCINQ); err != nil {
			return
		}
		n = int64(info.Bytes_received) - int64(inq)
	}); cerr != nil || err != nil {
		return 0, false
	}
	return n, true
}
