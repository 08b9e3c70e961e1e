package jaws

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

const zeroCopySupported = true

// testHookSendfile, when set by a test, sees every sendfile call's result.
var testHookSendfile func(n int, err error)

// testHookSendErr, when set by a test, makes a call ("sendmsg" or
// "sendfile") fail before it sends anything with the error it returns, if
// not nil: EINTR as a signal arriving then would, EINVAL as a file that
// cannot be spliced.
var testHookSendErr func(call string) error

// sendFile writes each segment's head and then its span of the file fd to
// the socket sock with sendfile(2), at explicit offsets, so any number of
// transfers share the file. With opts.cork, the head goes out with
// MSG_MORE, so the kernel puts the header and the first file bytes in the
// same packets; without, it goes out at once, alone (see Handler.cork for
// when). Each call sends at most opts.chunk bytes and renews the write
// deadline first (opts.deadlines): a stalled reader fails after the
// timeout, a slow one at the server's WriteTimeout, and one fast reader
// cannot hold the thread for a whole file. A closed opts.stop ends the
// transfer: cancel closes it and then sets a past deadline, so checking it
// after each renewal of the deadline cannot miss it. Every call is handled:
// a file sendfile cannot read ends it with errNoSendfile, the head already
// out, and the caller writes the rest.
//
// As internal/poll's sendfile loop: EINTR is retried at once (waiting for
// writability instead could wait for an event that never comes on an
// empty send buffer), EAGAIN waits for the netpoller, ENOSYS, EINVAL and
// EOPNOTSUPP (a file sendfile cannot read) turn to plain writes, and n
// counts only when positive (the calls return -1 with an error).
func sendFile(sock syscall.RawConn, fd uintptr, segs []segment, tail []byte, opts sendOpts) (written int64, handled bool, err error) {
	s := sender{sock: sock, opts: opts}
	for _, seg := range segs {
		if err := s.sendmsg(seg.head, opts.cork); err != nil {
			return s.written, true, err
		}
		if err := s.sendfile(int(fd), seg.span); err != nil {
			return s.written, true, err
		}
	}
	err = s.sendmsg(tail, false)
	return s.written, true, err
}

// sender is one transfer on a socket: what it was handed, and the bytes it
// has sent.
type sender struct {
	sock    syscall.RawConn
	opts    sendOpts
	written int64
}

// sendmsg sends p, with MSG_MORE if more.
func (s *sender) sendmsg(p []byte, more bool) error {
	flags := unix.MSG_NOSIGNAL
	if more {
		flags |= unix.MSG_MORE
	}
	return s.calls(int64(len(p)), func(sock int, remain int64) (int, error) {
		if testHookSendErr != nil {
			if err := testHookSendErr("sendmsg"); err != nil {
				return 0, err
			}
		}
		return unix.SendmsgN(sock, p[int64(len(p))-remain:], nil, nil, flags)
	})
}

// sendfile sends sp of the file src, at most a chunk a call.
func (s *sender) sendfile(src int, sp span) error {
	off := sp.off
	return s.calls(sp.n, func(sock int, remain int64) (n int, err error) {
		if testHookSendErr != nil {
			err = testHookSendErr("sendfile")
		}
		if err == nil {
			n, err = unix.Sendfile(sock, src, &off, int(min(remain, s.opts.chunk)))
		}
		if testHookSendfile != nil {
			testHookSendfile(n, err)
		}
		switch {
		case err == unix.ENOSYS || err == unix.EINVAL || err == unix.EOPNOTSUPP:
			err = errNoSendfile
		case err == nil && n == 0:
			err = errShortFile // the file ended before its announced size
		}
		return n, err
	})
}

// calls sends n bytes by calls of call, which sends at most a chunk of the
// remain bytes left and returns how many it sent. Before each call once the
// socket is writable, the deadline is renewed and the stop checked; EINTR
// makes the call again at once, EAGAIN waits for the netpoller, or, after
// progress, goes back for a new deadline.
func (s *sender) calls(n int64, call func(sock int, remain int64) (int, error)) error {
	for remain := n; remain > 0; {
		s.opts.deadlines.renew()
		select {
		case <-s.opts.stop:
			return net.ErrClosed
		default:
		}
		var werr error
		err := s.sock.Write(func(fd uintptr) bool {
			for {
				k, e := call(int(fd), remain)
				if k > 0 {
					s.written += int64(k)
					remain -= int64(k)
				}
				switch e {
				case unix.EINTR:
					continue
				case unix.EAGAIN:
					return k > 0
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
