package jaws

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestZeroCopyLongPipeline: a client pipelining hundreds of zero-copy
// requests on one connection gets every response by sendfile, and the
// connection handed back each time is wrapped once, not once per transfer
// (which would grow without bound and slow every read). Not parallel: it
// counts the package's sendfile bytes.
func TestZeroCopyLongPipeline(t *testing.T) {
	_, h, files := zcSite(t, Options{}, 70000)
	srv := httptest.NewUnstartedServer(h)
	var nested atomic.Int64
	srv.Config.ConnState = func(c net.Conn, _ http.ConnState) {
		if hc, ok := c.(*handbackConn); ok {
			if _, ok := hc.Conn.(*handbackConn); ok {
				nested.Add(1)
			}
		}
	}
	srv.Start()
	defer srv.Close()
	const n = 300 // about 12 KB of requests: more than net/http reads at once
	before := sendfileBytes.Load()
	c := dialRaw(t, srv)
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = get11("/70000.bin")
	}
	go io.WriteString(c, strings.Join(reqs, ""))
	for i := range n {
		if _, body := c.read(t, "GET"); !bytes.Equal(body, files["70000.bin"]) {
			t.Fatalf("response %d differs", i)
		}
	}
	waitTransfers(t, h, 10*time.Second)
	if s := h.Stats(); s.ZeroCopy.Responses != n {
		t.Errorf("%d zero-copy responses, want %d", s.ZeroCopy.Responses, n)
	}
	if moved := sendfileBytes.Load() - before; moved < n*70000 {
		t.Errorf("sendfile moved %d bytes of %d", moved, n*70000)
	}
	if k := nested.Load(); k > 0 {
		t.Errorf("%d connection states on a wrapper inside a wrapper", k)
	}
}
