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
	s := &sender{sock: sock, opts: opts, src: int(fd)}
	// Once per transfer: what RawConn.Write is handed escapes, so a closure
	// per call would be an allocation per call.
	s.try = s.tryCall
	for _, seg := range segs {
		if err := s.sendmsg(seg.head, opts.cork); err != nil {
			return s.written, true, err
		}
		if err := s.sendfile(seg.span); err != nil {
			return s.written, true, err
		}
	}
	err = s.sendmsg(tail, false)
	return s.written, true, err
}

// sender is one transfer on a socket: what it was handed, the bytes it has
// sent, and the call in progress, a sendmsg of p or a sendfile from off.
type sender struct {
	sock    syscall.RawConn
	opts    sendOpts
	src     int // the file
	written int64
	try     func(fd uintptr) bool // tryCall

	file   bool   // sendfile, else sendmsg
	p      []byte // sendmsg's bytes left
	flags  int
	off    int64 // sendfile's next offset
	remain int64 // bytes left
	err    error // how the last try ended
}

// sendmsg sends p, with MSG_MORE if more.
func (s *sender) sendmsg(p []byte, more bool) error {
	s.file, s.p, s.remain, s.flags = false, p, int64(len(p)), unix.MSG_NOSIGNAL
	if more {
		s.flags |= unix.MSG_MORE
	}
	return s.calls()
}

// sendfile sends sp of the file, at most a chunk a call.
func (s *sender) sendfile(sp span) error {
	s.file, s.off, s.remain = true, sp.off, sp.n
	return s.calls()
}

// calls makes the call in progress until its bytes are sent. Before each
// wait for the socket to be writable, the deadline is renewed and the stop
// checked.
func (s *sender) calls() error {
	for s.remain > 0 {
		s.opts.deadlines.renew()
		select {
		case <-s.opts.stop:
			return net.ErrClosed
		default:
		}
		s.err = nil
		if err := s.sock.Write(s.try); err != nil {
			return err
		}
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// tryCall makes the call on the writable socket: EINTR makes it again at
// once; EAGAIN waits for the netpoller, or, after progress, goes back to
// calls for a new deadline.
func (s *sender) tryCall(fd uintptr) bool {
	for {
		n, err := s.call(int(fd))
		if n > 0 {
			s.written += int64(n)
			s.remain -= int64(n)
			if !s.file {
				s.p = s.p[n:]
			}
		}
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return n > 0
		}
		s.err = err
		return true
	}
}

// call is one sendmsg, or one sendfile of at most a chunk.
func (s *sender) call(sock int) (n int, err error) {
	if !s.file {
		if testHookSendErr != nil {
			if err := testHookSendErr("sendmsg"); err != nil {
				return 0, err
			}
		}
		return unix.SendmsgN(sock, s.p, nil, nil, s.flags)
	}
	if testHookSendErr != nil {
		err = testHookSendErr("sendfile")
	}
	if err == nil {
		n, err = unix.Sendfile(sock, s.src, &s.off, int(min(s.remain, s.opts.chunk)))
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
}
