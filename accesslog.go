package jaws

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// ResponseRecord describes one response the handler completed: what
// Options.AccessLog logs and Options.OnResponse receives. Requests that
// ServeNext hands to its next handler are the application's, and have no
// record.
type ResponseRecord struct {
	Method string
	Path   string // r.URL.Path, as the handler saw it
	Status int
	// Bytes is the body bytes written: all of them, or, for a response the
	// client cut short, those written before it ended.
	Bytes int64
	// Duration runs from the handler's start to the response's last byte
	// (for a zero-copy response, to the end of the transfer).
	Duration time.Duration
	// Transfer is how the body of a 200 or 206 went: "memory", "zerocopy",
	// "fallback" or "lane" (Handler.FastLane), as counted by Stats; "" for
	// every other answer (304, 404, redirects).
	Transfer string
	// Coding is the body's content coding, "br", "zstd", "gzip" or "dcz"
	// (compressed with a dictionary the client held), or "" for the file's
	// own bytes.
	Coding string
}

// recorder is the ResponseWriter jaws serves through when a record is
// wanted: it counts what the handler writes, as a logging middleware would,
// but jaws knows it, so the zero-copy path still runs beneath it and
// reports its own bytes. It exposes what net/http's writer has for the
// fallback (ReadFrom, so net/http's sendfile still runs, and Flush), and
// Unwrap for http.ResponseController; never Hijack, which would let bytes
// past it.
type recorder struct {
	w        http.ResponseWriter
	status   int
	bytes    int64
	transfer string
	coding   coding
	passed   bool // handed to the application's next handler: not jaws's response
}

var (
	_ http.ResponseWriter = (*recorder)(nil)
	_ io.ReaderFrom       = (*recorder)(nil)
	_ http.Flusher        = (*recorder)(nil)
)

var recorders = sync.Pool{New: func() any { return new(recorder) }}

func (rec *recorder) Header() http.Header { return rec.w.Header() }

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 && code >= 200 { // 1xx are interim
		rec.status = code
	}
	rec.w.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.w.Write(p)
	rec.bytes += int64(n)
	return n, err
}

func (rec *recorder) ReadFrom(src io.Reader) (int64, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := readFrom(rec.w, src)
	rec.bytes += n
	return n, err
}

func (rec *recorder) Flush() {
	if f, ok := rec.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rec *recorder) Unwrap() http.ResponseWriter { return rec.w }

// beneath is the writer the recorder records: the one a transfer may take
// over (baseWriter).
func (rec *recorder) beneath() http.ResponseWriter { return rec.w }

// noteTransfer tells w's recorder, if any, how a body went.
func (rec *recorder) noteTransfer(transfer string, c coding) {
	rec.transfer, rec.coding = transfer, c
}

// noteSent records what a transfer beneath the recorder sent.
func (rec *recorder) noteSent(status int, n int64) {
	rec.status, rec.bytes = status, n
}

// passOn hands a request jaws does not answer to the application's next
// handler, with the writer it came with.
func passOn(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if rec, ok := w.(*recorder); ok {
		rec.passed = true
		w = rec.w
	}
	next.ServeHTTP(w, r)
}

// recording reports whether Options want a record of each response. Then a
// request is served through a recorder around its writer (startRecord),
// which finishRecord, deferred, hands on once the response is complete,
// also when serving panics (a client gone, a file shrinking).
func (h *Handler) recording() bool { return h.opts.AccessLog != nil || h.opts.OnResponse != nil }

func (h *Handler) startRecord(w http.ResponseWriter) *recorder {
	rec := recorders.Get().(*recorder)
	*rec = recorder{w: w}
	return rec
}

func (h *Handler) finishRecord(rec *recorder, r *http.Request, start time.Time) {
	if !rec.passed {
		h.record(r, rec, time.Since(start))
	}
	*rec = recorder{}
	recorders.Put(rec)
}

func (h *Handler) record(r *http.Request, rec *recorder, d time.Duration) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http sends 200
	}
	coding := ""
	if rec.coding != identity {
		coding = rec.coding.String()
	}
	rr := ResponseRecord{Method: r.Method, Path: r.URL.Path, Status: status, Bytes: rec.bytes,
		Duration: d, Transfer: rec.transfer, Coding: coding}
	if h.opts.OnResponse != nil {
		h.opts.OnResponse(rr)
	}
	if l := h.opts.AccessLog; l != nil {
		l.LogAttrs(context.WithoutCancel(r.Context()), slog.LevelInfo, "jaws",
			slog.String("method", rr.Method),
			slog.String("path", rr.Path),
			slog.Int("status", rr.Status),
			slog.Int64("bytes", rr.Bytes),
			slog.Duration("duration", rr.Duration),
			slog.String("transfer", rr.Transfer),
			slog.String("coding", rr.Coding))
	}
}
