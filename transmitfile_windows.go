package jaws

import (
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

const zeroCopySupported = true

// maxTransmit is the most one TransmitFile call may send.
const maxTransmit = 1<<31 - 1

// clientSlots limits concurrent TransmitFile calls on client editions of
// Windows, which allow two and queue the rest; nil on servers. Like Go's own
// net package, jaws falls back rather than wait for a slot.
var clientSlots = func() chan struct{} {
	const workstation = 1 // VER_NT_WORKSTATION
	if windows.RtlGetVersion().ProductType == workstation {
		return make(chan struct{}, 2)
	}
	return nil
}()

// sendFile sends each segment with TransmitFile on the socket sock: its
// head in the head buffer, as JAWS measured it (so always corked with the
// file's first bytes, whatever opts.cork says: Linux's measurements of when
// not to are loopback's), its span from the file handle fd at an explicit
// offset, the tail after the last span, in calls of at most opts.chunk
// bytes, each bounded by opts.deadlines. handled is false when no slot is
// free on a client edition, or the call cannot be set up (no event, an
// empty span, which TransmitFile would read as the whole file); nothing was
// written then. A closed opts.stop cancels the call in flight.
func sendFile(sock syscall.RawConn, fd uintptr, segs []segment, tail []byte, opts sendOpts) (written int64, handled bool, err error) {
	file := windows.Handle(fd)
	if clientSlots != nil {
		select {
		case clientSlots <- struct{}{}:
			defer func() { <-clientSlots }()
		default:
			return 0, false, nil
		}
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return 0, false, nil
	}
	defer windows.CloseHandle(ev)

	for _, s := range segs {
		if s.span.n <= 0 {
			return 0, false, nil // 0 would tell TransmitFile to send the whole file
		}
	}
	chunk := min(max(opts.chunk, 1), maxTransmit)
	for i, s := range segs {
		head := s.head
		off, remain := s.span.off, s.span.n
		for first := true; first || remain > 0; first = false {
			n := min(remain, chunk)
			var t []byte
			if i == len(segs)-1 && n == remain {
				t = tail
			}
			sent, err := transmitFile(sock, file, ev, head, t, off, uint32(n), opts.deadlines.next(), opts.stop)
			written += sent
			if err != nil {
				return written, true, err
			}
			if want := int64(len(head)) + n + int64(len(t)); sent < want {
				return written, true, errShortFile // the file ended before its announced size
			}
			head = nil
			off += n
			remain -= n
		}
	}
	return written, true, nil
}

// transmitFile makes one TransmitFile call and waits for it. The event's
// low bit keeps the completion away from Go's own I/O completion port; the
// call may complete at once or report ERROR_IO_PENDING, and both are
// handled.
// RawConn.Write cannot wait for writability on Windows, so the call is made
// once inside it and the wait is on the event.
func transmitFile(rc syscall.RawConn, file, ev windows.Handle, head, tail []byte, off int64, n uint32, deadline time.Time, stop <-chan struct{}) (int64, error) {
	select {
	case <-stop:
		return 0, net.ErrClosed
	default:
	}
	// The kernel reads the buffers and writes the OVERLAPPED after the call
	// returns: pin them until it is done.
	var pin runtime.Pinner
	defer pin.Unpin()
	ov := new(windows.Overlapped)
	bufs := new(windows.TransmitFileBuffers)
	pin.Pin(ov)
	pin.Pin(bufs)
	ov.Offset = uint32(off)
	ov.OffsetHigh = uint32(off >> 32)
	ov.HEvent = ev | 1
	windows.ResetEvent(ev)
	if len(head) > 0 {
		pin.Pin(&head[0])
		bufs.Head = uintptr(unsafe.Pointer(&head[0]))
		bufs.HeadLength = uint32(len(head))
	}
	if len(tail) > 0 {
		pin.Pin(&tail[0])
		bufs.Tail = uintptr(unsafe.Pointer(&tail[0]))
		bufs.TailLength = uint32(len(tail))
	}
	var sock windows.Handle
	var callErr error
	err := rc.Write(func(fd uintptr) bool {
		sock = windows.Handle(fd)
		callErr = windows.TransmitFile(sock, file, n, 0, ov, bufs, 0)
		return true
	})
	if err != nil {
		return 0, err
	}
	if callErr != nil && callErr != windows.ERROR_IO_PENDING {
		return 0, callErr
	}
	finished := make(chan struct{})
	cancelled := make(chan struct{})
	go func() {
		select {
		case <-stop:
			windows.CancelIoEx(sock, ov)
			close(cancelled)
		case <-finished:
		}
	}()
	r, _ := windows.WaitForSingleObject(ev, uint32(max(0, time.Until(deadline).Milliseconds())))
	close(finished)
	if r == uint32(windows.WAIT_TIMEOUT) {
		windows.CancelIoEx(sock, ov)
		var done uint32
		windows.GetOverlappedResult(sock, ov, &done, true)
		return int64(done), os.ErrDeadlineExceeded
	}
	select {
	case <-cancelled:
		var done uint32
		windows.GetOverlappedResult(sock, ov, &done, true)
		return int64(done), net.ErrClosed
	default:
	}
	var done uint32
	if err := windows.GetOverlappedResult(sock, ov, &done, true); err != nil {
		return int64(done), err
	}
	return int64(done), nil
}
