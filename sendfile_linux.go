package jaws

import (
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

const zeroCopySupported = true

// testHookSendfile, when set by a test, sees every sendfile call's result.
var testHookSendfile func(n int, err error)

// sendFile writes each segment's head and then its span of f to c with
// sendfile(2), at explicit offsets, so any number of transfers share f.
// The head goes out with MSG_MORE, so the kernel puts the header and the
// first file bytes in the same packets. Each call sends at most chunk bytes
// and renews the write deadline first: a stalled reader fails after timeout,
// and one fast reader cannot hold the thread for a whole file. handled is
// false when c has no socket to hand to the kernel; nothing was written then.
// A closed stop ends the transfer: cancel closes it and then sets a past
// deadline, so checking it after each renewal of the deadline cannot miss it.
func sendFile(c net.Conn, f *os.File, segs []segment, tail []byte, timeout time.Duration, chunk int64, stop <-chan struct{}) (written int64, handled bool, err error) {
	rc, fd, ok := rawConns(c, f)
	if !ok {
		return 0, false, nil
	}
	src := int(fd)

	renew := func() error {
		c.SetWriteDeadline(time.Now().Add(timeout))
		select {
		case <-stop:
			return net.ErrClosed
		default:
			return nil
		}
	}
	send := func(p []byte, more bool) error {
		flags := 0
		if more {
			flags = unix.MSG_MORE
		}
		for len(p) > 0 {
			if err := renew(); err != nil {
				return err
			}
			var werr error
			err := rc.Write(func(fd uintptr) bool {
				n, e := unix.SendmsgN(int(fd), p, nil, nil, flags|unix.MSG_NOSIGNAL)
				if e == unix.EAGAIN {
					return false
				}
				if e == unix.EINTR {
					return false
				}
				written += int64(n)
				p = p[n:]
				werr = e
				return true
			})
			if err != nil {
				return err
			}
			if werr != nil {
				return werr
			}
		}
		return nil
	}
	for _, s := range segs {
		if err := send(s.head, true); err != nil {
			return written, true, err
		}
		off, remain := s.span.off, s.span.n
		for remain > 0 {
			if err := renew(); err != nil {
				return written, true, err
			}
			var werr error
			err := rc.Write(func(fd uintptr) bool {
				n, e := unix.Sendfile(int(fd), src, &off, int(min(remain, chunk)))
				if testHookSendfile != nil {
					testHookSendfile(n, e)
				}
				if e == unix.EAGAIN || e == unix.EINTR {
					if n > 0 {
						written += int64(n)
						remain -= int64(n)
					}
					return n > 0 // progress: back to the loop for a new deadline; none: wait
				}
				switch {
				case e != nil:
					werr = e
				case n == 0:
					werr = errShortFile // the file ended before its announced size
				}
				written += int64(n)
				remain -= int64(n)
				return true
			})
			if err != nil {
				return written, true, err
			}
			if werr != nil {
				return written, true, werr
			}
		}
	}
	if err := send(tail, false); err != nil {
		return written, true, err
	}
	return written, true, nil
}
