package jaws

import (
	"errors"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

const zeroCopySupported = true

// errNoSendfile: sendfile cannot read this file.
var errNoSendfile = errors.New("jaws: sendfile not supported for this file")

// testHookSendfile, when set by a test, sees every sendfile call's result.
var testHookSendfile func(n int, err error)

// testHookSendErr, when set by a test, makes a call ("sendmsg" or
// "sendfile") fail before it sends anything with the error it returns, if
// not nil: EINTR as a signal arriving then would, EINVAL as a file that
// cannot be spliced.
var testHookSendErr func(call string) error

// sendFile writes each segment's head and then its span of f to c with
// sendfile(2), at explicit offsets, so any number of transfers share f.
// With coalesce, the head goes out with MSG_MORE, so the kernel puts the
// header and the first file bytes in the same packets; without, it goes
// out at once, alone (see Handler.coalesce for when). Each call sends at most chunk bytes
// and renews the write deadline first (dl): a stalled reader fails after
// the timeout, a slow one at the server's WriteTimeout, and one fast reader
// cannot hold the thread for a whole file. handled is false when c has no
// socket to hand to the kernel; nothing was written then. A closed stop
// ends the transfer: cancel closes it and then sets a past deadline, so
// checking it after each renewal of the deadline cannot miss it.
//
// As internal/poll's sendfile loop: EINTR is retried at once (waiting for
// writability instead could wait for an event that never comes on an
// empty send buffer), EAGAIN waits for the netpoller, ENOSYS, EINVAL and
// EOPNOTSUPP (a file sendfile cannot read) turn to plain writes, and n
// counts only when positive (the calls return -1 with an error).
func sendFile(c net.Conn, f *os.File, segs []segment, tail []byte, coalesce bool, dl deadlines, chunk int64, stop <-chan struct{}) (written int64, handled bool, err error) {
	rc, fd, ok := rawConns(c, f)
	if !ok {
		return 0, false, nil
	}
	src := int(fd)

	renew := func() error {
		c.SetWriteDeadline(dl.next())
		select {
		case <-stop:
			return net.ErrClosed
		default:
			return nil
		}
	}
	send := func(p []byte, more bool) error {
		flags := unix.MSG_NOSIGNAL
		if more {
			flags |= unix.MSG_MORE
		}
		for len(p) > 0 {
			if err := renew(); err != nil {
				return err
			}
			var werr error
			err := rc.Write(func(fd uintptr) bool {
				for {
					var n int
					var e error
					if testHookSendErr != nil {
						e = testHookSendErr("sendmsg")
					}
					if e == nil {
						n, e = unix.SendmsgN(int(fd), p, nil, nil, flags)
					}
					if n > 0 {
						written += int64(n)
						p = p[n:]
					}
					switch e {
					case unix.EINTR:
						continue
					case unix.EAGAIN:
						return false
					}
					werr = e
					return true
				}
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
	for i, s := range segs {
		if err := send(s.head, coalesce); err != nil {
			return written, true, err
		}
		off, remain := s.span.off, s.span.n
		for remain > 0 {
			if err := renew(); err != nil {
				return written, true, err
			}
			var werr error
			err := rc.Write(func(fd uintptr) bool {
				for {
					var n int
					var e error
					if testHookSendErr != nil {
						e = testHookSendErr("sendfile")
					}
					if e == nil {
						n, e = unix.Sendfile(int(fd), src, &off, int(min(remain, chunk)))
					}
					if testHookSendfile != nil {
						testHookSendfile(n, e)
					}
					if n > 0 {
						written += int64(n)
						remain -= int64(n)
					}
					switch {
					case e == unix.EINTR:
						continue
					case e == unix.EAGAIN:
						return n > 0 // progress: back to the loop for a new deadline; none: wait
					case e == unix.ENOSYS || e == unix.EINVAL || e == unix.EOPNOTSUPP:
						werr = errNoSendfile
					case e != nil:
						werr = e
					case n == 0:
						werr = errShortFile // the file ended before its announced size
					}
					return true
				}
			})
			if err != nil {
				return written, true, err
			}
			if werr == errNoSendfile {
				// The head is out already: the rest goes by plain writes.
				rest := append([]segment{{nil, span{off, remain}}}, segs[i+1:]...)
				n, err := copySegments(c, f, rest, tail, dl)
				return written + n, true, err
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
