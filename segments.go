package jaws

import (
	"errors"
	"io"
	"time"
)

// A response body as the transfers send it: segments, each bytes to write
// (a part header; on the zero-copy path, the response head before the
// first) followed by a span of the file, then a tail (the multipart closing
// delimiter). The memory and fallback paths write it with writeSegments;
// the zero-copy path hands it to the OS call (sendFile, one per OS file),
// and writes with writeSegments what the call leaves.

// segment is bytes to write followed by a span of the file to send.
type segment struct {
	head []byte
	span span
}

// segments lays resp out behind head (nil for none): one segment per part,
// the multipart closing delimiter as tail.
func segments(head []byte, resp *response) ([]segment, []byte) {
	if resp.mp == nil {
		return []segment{{head, resp.part}}, nil
	}
	segs := make([]segment, len(resp.mp.spans))
	for i, s := range resp.mp.spans {
		segs[i] = segment{resp.mp.heads[i], s}
	}
	if len(head) > 0 {
		segs[0].head = append(head, segs[0].head...)
	}
	return segs, resp.mp.tail
}

// writeSegments writes segs and tail to w, the spans' bytes from src, and
// returns the bytes written.
func writeSegments(w io.Writer, src bodySource, segs []segment, tail []byte) (int64, error) {
	var n int64
	for _, s := range segs {
		k, err := w.Write(s.head)
		n += int64(k)
		if err != nil {
			return n, err
		}
		m, err := src.writeSpan(w, s.span)
		n += m
		if err != nil {
			return n, err
		}
	}
	k, err := w.Write(tail)
	return n + int64(k), err
}

// skipSegments is what is left of segs and tail once their first n bytes
// were sent; segs is not changed.
func skipSegments(segs []segment, tail []byte, n int64) ([]segment, []byte) {
	for len(segs) > 0 && n > 0 {
		s := segs[0]
		k := min(n, int64(len(s.head)))
		s.head, n = s.head[k:], n-k
		k = min(n, s.span.n)
		s.span, n = span{s.span.off + k, s.span.n - k}, n-k
		if len(s.head) > 0 || s.span.n > 0 {
			return append([]segment{s}, segs[1:]...), tail
		}
		segs = segs[1:]
	}
	return segs, tail[min(n, int64(len(tail))):]
}

// sendOpts is what the OS call is handed besides the socket, the file and
// the layout: everything it needs to decide, so that it calls nothing above
// it.
type sendOpts struct {
	// cork lets the first head wait for the file's first bytes, so they
	// share packets (Linux's MSG_MORE); see Handler.cork for when. Windows
	// always sends them together, in TransmitFile's head buffer.
	cork bool
	// chunk is the most file bytes one call sends: one fast reader cannot
	// hold the thread for a whole file.
	chunk int64
	// deadlines bound each call, renewed before it.
	deadlines deadlines
	// stop, closed, ends the transfer (Handler.Close, Shutdown's end).
	stop <-chan struct{}
}

// errNoSendfile: the OS call cannot read this file (sendfile's ENOSYS,
// EINVAL, EOPNOTSUPP). It has sent what it reports written; the rest goes by
// plain writes.
var errNoSendfile = errors.New("jaws: sendfile not supported for this file")

// deadlines bound the writes of one zero-copy response: each chunk by
// timeout (Options.SendTimeout), the whole response by limit (the server's
// WriteTimeout; zero: none).
type deadlines struct {
	conn    writeDeadliner // the connection written to
	timeout time.Duration
	limit   time.Time
}

// writeDeadliner is a connection's SetWriteDeadline.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// next is the write deadline for the next chunk: never past the limit.
func (d deadlines) next() time.Time {
	t := time.Now().Add(d.timeout)
	if !d.limit.IsZero() && d.limit.Before(t) {
		return d.limit
	}
	return t
}

// renew sets the connection's write deadline for the next chunk.
func (d deadlines) renew() { d.conn.SetWriteDeadline(d.next()) }

// deadlineWriter renews the write deadline before every write.
type deadlineWriter struct {
	w  io.Writer
	dl deadlines
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	d.dl.renew()
	return d.w.Write(p)
}
