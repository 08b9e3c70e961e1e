package jaws

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// connWriter is the http.ResponseWriter of a connection jaws owns: the fast
// lane's (fastlane.go). For the calls a handler makes it writes what
// net/http's own writer would (appendHead: the status line, the fields,
// Date, Connection), but queued, so that the responses to pipelined
// requests leave in one write, and with a body from memory sent from where
// it lies. A body from disk goes by sendfile on the connection itself
// (mover.zeroCopyOwned), with no hijack: the connection is jaws's already.
//
// One connWriter serves a connection's requests one after another; reset
// readies it for the next.
type connWriter struct {
	conn       net.Conn // written to
	sock       net.Conn // the TCP connection beneath, for sendfile
	srv        *http.Server
	req        *http.Request
	hdr        http.Header
	writeLimit time.Time // the server's WriteTimeout for this response; zero: none

	status    int
	clen      int64 // the Content-Length the handler set, -1 for none
	written   int64 // body bytes written
	wrote     bool  // WriteHeader was called, or a first Write
	headAt    int   // where the head goes in out, while it waits for the body (-1: written)
	reply     connection
	closeNext bool  // the connection closes after this response
	err       error // a write failed: the connection is done

	// The queue: out, and when a body is held by reference, bufs, the
	// pieces before out[mark:]: earlier parts of out and the bodies held.
	out     []byte
	mark    int
	bufs    net.Buffers
	held    int         // bytes in bufs
	writing net.Buffers // bufs, as WriteTo consumes it
}

var (
	_ http.ResponseWriter = (*connWriter)(nil)
	_ io.ReaderFrom       = (*connWriter)(nil)
)

// maxQueued is how many response bytes a connWriter queues before it
// writes them, whatever requests wait.
const maxQueued = 64 << 10

// heldMin is the size from which a body in memory is written from where it
// lies (writev) rather than copied into the queue.
const heldMin = 8 << 10

// autoLengthMax is net/http's bufferBeforeChunkingSize: a handler that set
// no Content-Length and finished within this many bytes gets one.
const autoLengthMax = 2048

// reset readies cw for the response to req, whose header map is hdr.
func (cw *connWriter) reset(req *http.Request, hdr http.Header) {
	cw.req, cw.hdr = req, hdr
	cw.status, cw.clen, cw.written, cw.wrote, cw.headAt = 0, -1, 0, false, -1
	cw.closeNext = false
}

// armWrite starts the server's WriteTimeout for the response, as net/http
// does once it has read the request.
func (cw *connWriter) armWrite() {
	if d := cw.srv.WriteTimeout; d > 0 {
		cw.writeLimit = time.Now().Add(d)
		cw.conn.SetWriteDeadline(cw.writeLimit)
	}
}

func (cw *connWriter) Header() http.Header { return cw.hdr }

// WriteHeader writes the head, unless net/http would wait for the body to
// write it: no Content-Length on a status with a body, where it adds one
// for a body it holds whole (finish).
func (cw *connWriter) WriteHeader(code int) {
	if cw.wrote || code < 200 {
		return // no interim responses here: jaws sends none
	}
	cw.wrote, cw.status = true, code
	if v := first(cw.hdr, "Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			cw.clen = n
		} else {
			delete(cw.hdr, "Content-Length") // as net/http does
		}
	}
	enabled, _ := keepAlivesEnabled(cw.srv)
	cw.reply = replyConnection(cw.req, cw.hdr, enabled)
	cw.closeNext = !cw.reply.keepAlive
	if cw.clen < 0 && bodyAllowed(code) && cw.req.Method != http.MethodHead {
		cw.headAt = len(cw.out) // finish writes it, before the body
		return
	}
	cw.out = appendHead(cw.out, cw.req, code, cw.hdr, cw.reply, -1, "")
}

func (cw *connWriter) Write(p []byte) (int, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	switch {
	case cw.err != nil:
		return 0, cw.err
	case cw.req.Method == http.MethodHead:
		return len(p), nil // as net/http: the body of a HEAD is dropped
	case !bodyAllowed(cw.status):
		return 0, http.ErrBodyNotAllowed
	case cw.clen >= 0 && cw.written+int64(len(p)) > cw.clen:
		return 0, http.ErrContentLength
	}
	if cw.headAt >= 0 && len(cw.out)-cw.headAt+len(p) > autoLengthMax {
		// More than net/http holds before it chunks: jaws never writes
		// such a body, but should anything, it ends with the connection.
		cw.writeDeferredHead(-1)
		cw.closeNext = true
	}
	cw.out = append(cw.out, p...)
	cw.written += int64(len(p))
	if cw.queued() >= maxQueued && cw.headAt < 0 {
		cw.flush()
	}
	return len(p), cw.err
}

// writeHeld writes body, bytes that never change (a cached entry's), from
// where they lie when they are large: the queue holds them by reference.
func (cw *connWriter) writeHeld(body []byte) (int, error) {
	if len(body) < heldMin || cw.headAt >= 0 || cw.req.Method == http.MethodHead {
		return cw.Write(body)
	}
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.err != nil {
		return 0, cw.err
	}
	if cw.clen >= 0 && cw.written+int64(len(body)) > cw.clen {
		return 0, http.ErrContentLength
	}
	cw.bufs = append(cw.bufs, cw.out[cw.mark:], body)
	cw.held += len(cw.out) - cw.mark + len(body)
	cw.mark = len(cw.out)
	cw.written += int64(len(body))
	if cw.queued() >= maxQueued {
		cw.flush()
	}
	return len(body), cw.err
}

// ReadFrom writes what is queued, then src by the connection's own
// ReadFrom: sendfile for a file.
func (cw *connWriter) ReadFrom(src io.Reader) (int64, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.headAt >= 0 || cw.req.Method == http.MethodHead || !bodyAllowed(cw.status) {
		return io.Copy(writerOnly{cw}, src)
	}
	if cw.flush(); cw.err != nil {
		return 0, cw.err
	}
	n, err := io.Copy(cw.conn, src)
	cw.written += n
	if err != nil {
		cw.err = err
	}
	return n, err
}

// finish completes the response once the handler has returned, as
// net/http's finishRequest does: a head still waiting gets the length of
// the body held, and a body shorter than its Content-Length closes the
// connection.
func (cw *connWriter) finish() {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.headAt >= 0 {
		cw.writeDeferredHead(cw.written)
	}
	if cw.clen >= 0 && cw.written != cw.clen && cw.req.Method != http.MethodHead {
		cw.closeNext = true
	}
}

// writeDeferredHead puts the head in front of the body it waited for, with
// Content-Length clen (-1: none), and the type net/http would sniff.
func (cw *connWriter) writeDeferredHead(clen int64) {
	body := cw.out[cw.headAt:]
	ctype := ""
	if _, typed := cw.hdr["Content-Type"]; !typed && first(cw.hdr, "Content-Encoding") == "" && len(body) > 0 {
		ctype = http.DetectContentType(body)
	}
	if clen < 0 {
		enabled, _ := keepAlivesEnabled(cw.srv)
		cw.reply = closingConnection(cw.req, cw.hdr, enabled, cw.reply)
	}
	held := append([]byte(nil), body...)
	cw.out = appendHead(cw.out[:cw.headAt], cw.req, cw.status, cw.hdr, cw.reply, clen, ctype)
	cw.out = append(cw.out, held...)
	cw.headAt = -1
}

// keptQueue is the queue's capacity a connection keeps while it waits for
// a request: one usual response and more; a burst's is let go.
const keptQueue = 16 << 10

// shrink lets go of a queue grown past keptQueue, once it is empty.
func (cw *connWriter) shrink() {
	if cap(cw.out) > keptQueue && len(cw.out) == 0 {
		cw.out = nil
	}
	if cap(cw.bufs) > 16 && len(cw.bufs) == 0 {
		cw.bufs, cw.writing = nil, nil
	}
}

// queued is the bytes waiting to be written.
func (cw *connWriter) queued() int { return cw.held + len(cw.out) - cw.mark }

// takeQueued returns what is queued, as one slice, and empties the queue,
// for a transfer that sends it ahead of a file's bytes (bodies held by
// reference are written first). The slice is valid until the next write.
func (cw *connWriter) takeQueued() []byte {
	if len(cw.bufs) > 0 {
		cw.flush()
	}
	q := cw.out
	cw.out = cw.out[:0]
	return q
}

// flush writes what is queued. A failed write is kept: the connection is
// done.
func (cw *connWriter) flush() error {
	if cw.err != nil {
		return cw.err
	}
	var err error
	switch {
	case len(cw.bufs) > 0:
		if cw.mark < len(cw.out) {
			cw.bufs = append(cw.bufs, cw.out[cw.mark:])
		}
		cw.writing = cw.bufs // WriteTo consumes its slice
		_, err = cw.writing.WriteTo(cw.conn)
		clear(cw.bufs) // the bodies held go back to the cache's care
		cw.bufs, cw.held = cw.bufs[:0], 0
	case len(cw.out) > 0:
		_, err = cw.conn.Write(cw.out)
	}
	cw.out, cw.mark = cw.out[:0], 0
	cw.err = err
	return err
}
