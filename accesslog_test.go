package jaws_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// lineLog is a log buffer that tells each line written: the handler calls
// OnResponse before it writes the log line, and a zero-copy response
// reaches the client before either, so a test that has the response, or
// the record, may not have the line yet.
type lineLog struct {
	testsite.SyncBuffer
	lines chan struct{}
}

func (l *lineLog) Write(p []byte) (int, error) {
	n, err := l.SyncBuffer.Write(p)
	l.lines <- struct{}{}
	return n, err
}

// wait waits for n lines.
func (l *lineLog) wait(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		select {
		case <-l.lines:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d log lines, want %d", i, n)
		}
	}
}

// TestAccessLog: one record per response on every path and for every
// answer, with the bytes actually sent, while large files keep the
// zero-copy path; AccessLog and OnResponse get the same.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	big := testsite.Random(2<<20, 1)
	js := bytes.Repeat([]byte("console.log('hello');\n"), 200)
	site := testsite.New(t).FileAt("big.bin", big, diffMtime).FileAt("app.js", js, diffMtime).
		FileAt("s.txt", []byte("small"), diffMtime).FileAt("dir/index.html", []byte("i"), diffMtime)
	logBuf := &lineLog{lines: make(chan struct{}, 100)}
	rs := newRecords()
	h := newHandler(t, site.Root, jaws.Options{
		AccessLog:  slog.New(slog.NewJSONHandler(logBuf, nil)),
		OnResponse: rs.add,
	})
	s := testsite.Start(t, testsite.HTTP1, h)
	tls := testsite.Start(t, testsite.TLS1, h)
	for _, c := range []struct {
		name     string
		srv      *testsite.Server
		method   string
		path     string
		header   []string
		want     jaws.ResponseRecord
		wantBody int64
	}{
		{"zerocopy", s, "GET", "/big.bin", nil, jaws.ResponseRecord{Status: 200, Transfer: "zerocopy"}, int64(len(big))},
		{"zerocopy-range", s, "GET", "/big.bin", []string{"Range", "bytes=0-1048575"}, jaws.ResponseRecord{Status: 206, Transfer: "zerocopy"}, 1 << 20},
		{"fallback-tls", tls, "GET", "/big.bin", nil, jaws.ResponseRecord{Status: 200, Transfer: "fallback"}, int64(len(big))},
		{"memory", s, "GET", "/s.txt", nil, jaws.ResponseRecord{Status: 200, Transfer: "memory"}, 5},
		{"compressed", s, "GET", "/app.js", []string{"Accept-Encoding", "br"}, jaws.ResponseRecord{Status: 200, Transfer: "memory", Coding: "br"}, -1},
		{"head", s, "HEAD", "/s.txt", nil, jaws.ResponseRecord{Status: 200, Transfer: "memory"}, 0},
		{"304", s, "GET", "/s.txt", []string{"If-None-Match", "*"}, jaws.ResponseRecord{Status: 304}, 0},
		{"404", s, "GET", "/missing", nil, jaws.ResponseRecord{Status: 404}, int64(len("404 page not found\n"))},
		{"405", s, "POST", "/s.txt", nil, jaws.ResponseRecord{Status: 405}, -1},
		{"416", s, "GET", "/s.txt", []string{"Range", "bytes=100-"}, jaws.ResponseRecord{Status: 416}, int64(len("invalid range: failed to overlap\n"))},
		{"redirect", s, "GET", "/dir", nil, jaws.ResponseRecord{Status: 301}, -1},
	} {
		resp, body := c.srv.Do(t, c.srv.NewRequest(t, c.method, c.path, c.header...))
		got := rs.next(t)
		if got.Method != c.method || got.Path != c.path || got.Status != resp.StatusCode || got.Status != c.want.Status ||
			got.Transfer != c.want.Transfer || got.Coding != c.want.Coding || got.Bytes != int64(len(body)) ||
			c.wantBody >= 0 && got.Bytes != c.wantBody || got.Duration <= 0 {
			t.Errorf("%s: record %+v; response %d with %d bytes, want %+v", c.name, got, resp.StatusCode, len(body), c.want)
		}
	}
	if n := zeroCopied(h, 2); n != 2 {
		t.Errorf("%d zero-copy responses with a log, want 2", n)
	}
	logBuf.wait(t, 11)
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d log lines, want 11", len(lines))
	}
	// The whole zero-copy response's line. Lines need not come in the
	// order of the requests: a zero-copy response reaches the client
	// before its line is written.
	var first map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["status"] == 200.0 && m["transfer"] == "zerocopy" {
			first = m
			break
		}
	}
	if first == nil {
		t.Fatalf("no line for the 200 sent zero-copy: %q", lines)
	}
	for k, v := range map[string]any{"level": "INFO", "msg": "jaws", "method": "GET", "path": "/big.bin",
		"bytes": float64(len(big)), "coding": ""} {
		if first[k] != v {
			t.Errorf("log %s = %v, want %v: %v", k, first[k], v, first)
		}
	}
	if _, ok := first["duration"]; !ok {
		t.Errorf("no duration: %v", first)
	}
}

// TestAccessLogAbort: a client that goes away mid-transfer gets a record
// with the bytes sent before it went, fewer than the file's. The file is
// four times Linux's default ceiling of a send buffer (tcp_wmem, 4 MiB), so
// the transfer is mid-file when the client goes; where buffers hold more,
// the record's count says so.
func TestAccessLogAbort(t *testing.T) {
	t.Parallel()
	big := testsite.Random(16<<20, 2)
	site := testsite.New(t).FileAt("big.bin", big, diffMtime)
	rs := newRecords()
	h := newHandler(t, site.Root, jaws.Options{OnResponse: rs.add})
	s := testsite.Start(t, testsite.HTTP1, h)
	c, err := net.Dial("tcp", s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	buf := make([]byte, 64<<10)
	io.ReadFull(c, buf)
	c.(*net.TCPConn).SetLinger(0) // a reset: the server's next write fails
	c.Close()
	got := rs.next(t)
	if got.Status != 200 || got.Transfer != "zerocopy" || got.Bytes <= 0 || got.Bytes >= int64(len(big)) {
		t.Errorf("record %+v; want 200, zerocopy, 0 < bytes < %d", got, len(big))
	}
}

// TestAccessLogServeNextAndNotFound: a request ServeNext hands to the
// application is the application's to log; a custom NotFound page is
// jaws's answer and is recorded with what it wrote.
func TestAccessLogServeNextAndNotFound(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("a.txt", []byte("a"), diffMtime)
	rs := newRecords()
	page := "<h1>not here</h1>"
	h := newHandler(t, site.Root, jaws.Options{OnResponse: rs.add, NotFound: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, page)
	})})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, isJaws := w.(interface{ Unwrap() http.ResponseWriter }); isJaws {
			t.Error("the application got jaws's recorder")
		}
		io.WriteString(w, "app")
	})
	w := testsite.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeNext(w, r, app) }), "GET", "/api")
	if w.Body.String() != "app" {
		t.Fatalf("ServeNext: %q", w.Body.String())
	}
	testsite.Serve(h, "GET", "/nope")
	got := rs.next(t)
	if got.Path != "/nope" || got.Status != 404 || got.Bytes != int64(len(page)) {
		t.Errorf("record %+v", got)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.all) != 1 {
		t.Errorf("%d records, want 1 (none for the application's response)", len(rs.all))
	}
}
