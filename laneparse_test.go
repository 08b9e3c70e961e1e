package jaws

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseLaneRequest(t *testing.T) {
	t.Parallel()
	const ok = "GET /a.css HTTP/1.1\r\nHost: example.com\r\n\r\n"
	tests := []struct {
		name string
		in   string
		want laneVerdict
	}{
		{"get", ok, laneOK},
		{"head", "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", laneOK},
		{"fields jaws reads", "GET /a?v=1 HTTP/1.1\r\nhost: x:8080\r\nRange: bytes=0-1\r\naccept-encoding:  br , gzip \t\r\nIf-None-Match: \"x\"\r\nConnection: Keep-Alive\r\n\r\n", laneOK},
		{"fields jaws ignores", "GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: wrk\r\nCookie: a=b; c=d\r\nX-Empty:\r\n\r\n", laneOK},
		{"connection close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", laneOK},
		{"empty host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", laneOK},
		{"pipelined: the first", ok + ok, laneOK},

		{"partial request line", "GET /a.c", lanePartial},
		{"partial method", "HE", lanePartial},
		{"partial field", "GET / HTTP/1.1\r\nHost: x\r\nAcc", lanePartial},
		{"partial end", "GET / HTTP/1.1\r\nHost: x\r\n\r", lanePartial},
		{"empty", "", lanePartial},

		{"post", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", laneRefuse},
		{"lower-case method", "get / HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"http/1.0", "GET / HTTP/1.0\r\nHost: x\r\n\r\n", laneRefuse},
		{"http/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", laneRefuse},
		{"absolute form", "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"asterisk", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"two spaces", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"tab in target", "GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"utf-8 in target", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"bare LF", "GET / HTTP/1.1\nHost: x\n\n", laneRefuse},
		{"bare LF in fields", "GET / HTTP/1.1\r\nHost: x\nX: y\r\n\r\n", laneRefuse},
		{"bare CR", "GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", laneRefuse},
		{"CR CR LF", "GET / HTTP/1.1\r\r\nHost: x\r\n\r\n", laneRefuse},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", laneRefuse},
		{"space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", laneRefuse},
		{"empty name", "GET / HTTP/1.1\r\nHost: x\r\n: y\r\n\r\n", laneRefuse},
		{"NUL in value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", laneRefuse},
		{"obs-text in value", "GET / HTTP/1.1\r\nHost: x\r\nX: caf\xc3\xa9\r\n\r\n", laneRefuse},
		{"no host", "GET / HTTP/1.1\r\nX: y\r\n\r\n", laneRefuse},
		{"two hosts", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", laneRefuse},
		{"host with a space", "GET / HTTP/1.1\r\nHost: x y\r\n\r\n", laneRefuse},
		{"host with a slash", "GET / HTTP/1.1\r\nHost: x/y\r\n\r\n", laneRefuse},
		{"content-length", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", laneRefuse},
		{"transfer-encoding", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", laneRefuse},
		{"expect", "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n", laneRefuse},
		{"upgrade", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", laneRefuse},
		{"authorization", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\n\r\n", laneRefuse},
		{"proxy-authorization", "GET / HTTP/1.1\r\nHost: x\r\nProxy-Authorization: Basic YTpi\r\n\r\n", laneRefuse},
		{"origin", "GET / HTTP/1.1\r\nHost: x\r\nOrigin: https://y\r\n\r\n", laneRefuse},
		{"connection upgrade", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n\r\n", laneRefuse},
		{"connection list", "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n", laneRefuse},
		{"two connections", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nConnection: close\r\n\r\n", laneRefuse},
		{"leading CRLF", "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"TLS handshake", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", laneRefuse},
		{"too long", "GET /" + strings.Repeat("a", laneBufSize) + " HTTP/1.1\r\nHost: x\r\n\r\n", laneRefuse},
		{"too many values", "GET / HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("Range: bytes=0-1\r\n", maxLaneValues+1) + "\r\n", laneRefuse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p laneRequest
			if got := parseLaneRequest([]byte(tc.in), laneBufSize, &p); got != tc.want {
				t.Fatalf("verdict %d, want %d", got, tc.want)
			}
			if tc.want == laneOK {
				checkLaneAgainstNetHTTP(t, []byte(tc.in), &p)
			}
		})
	}
}

func TestParseLaneRequestFields(t *testing.T) {
	t.Parallel()
	in := "HEAD /x.js?v=2 HTTP/1.1\r\nHost: a.example:80\r\nRange: bytes=1-2\r\nrange:  bytes=3-4 \r\nConnection: close\r\n\r\nGET"
	var p laneRequest
	if v := parseLaneRequest([]byte(in), 8192, &p); v != laneOK {
		t.Fatalf("verdict %d", v)
	}
	b := []byte(in)
	if !p.head || string(b[p.targetAt:p.targetEnd]) != "/x.js?v=2" || string(b[p.hostAt:p.hostEnd]) != "a.example:80" || !p.closeConn {
		t.Fatalf("parsed %+v", p)
	}
	if p.size != len(in)-len("GET") {
		t.Errorf("size %d, want %d", p.size, len(in)-3)
	}
	var vals []string
	for _, v := range p.values[:p.nvalues] {
		vals = append(vals, laneFields[v.field]+"="+string(b[v.start:v.end]))
	}
	want := []string{"Range=bytes=1-2", "Range=bytes=3-4", "Connection=close"}
	if !slices.Equal(vals, want) {
		t.Errorf("values %q, want %q", vals, want)
	}
}

// FuzzLaneParse holds the lane's parser to net/http's reader: every request
// it accepts in a stream, request after request, is the one net/http reads
// at the same place (checkLaneAgainstNetHTTP).
func FuzzLaneParse(f *testing.F) {
	for _, s := range []string{
		"GET /a.css HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nIf-Range: \"e\"\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br;q=1, gzip\r\nAvailable-Dictionary: :AAAA:\r\nSec-Fetch-Mode: cors\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
		"GET / HTTP/1.1\nHost: x\n\n",
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		"GET / HTTP/1.1\r\nhOsT: x\r\nIF-NONE-MATCH: W/\"a\", \"b\"\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for at := 0; at < len(data); {
			var p laneRequest
			v := parseLaneRequest(data[at:], laneBufSize, &p)
			if v != laneOK {
				return
			}
			checkLaneAgainstNetHTTP(t, data[at:], &p)
			at += p.size
		}
	})
}

// checkLaneAgainstNetHTTP fails t unless net/http reads the request the
// lane parsed into p, at the start of b, as the lane does: its method,
// target, version, Host and the fields jaws reads, ending where the lane's
// ends; and unless an http.Server, reading those bytes, hands its handler
// that request rather than answering with an error.
func checkLaneAgainstNetHTTP(t *testing.T, b []byte, p *laneRequest) {
	t.Helper()
	rd := bytes.NewReader(b)
	br := bufio.NewReader(rd)
	req, err := http.ReadRequest(br)
	if err != nil {
		t.Fatalf("lane accepts %q, net/http: %v", b[:p.size], err)
	}
	if used := len(b) - br.Buffered() - rd.Len(); used != p.size {
		t.Fatalf("lane reads %d bytes of %q, net/http %d", p.size, b, used)
	}
	compareLaneRequest(t, b, p, req)
	got := serveOnce(t, b[:p.size])
	if got == nil {
		t.Fatalf("lane accepts %q, http.Server answers it itself", b[:p.size])
	}
	compareLaneRequest(t, b, p, got)
}

// compareLaneRequest fails t unless req is the request p describes.
func compareLaneRequest(t *testing.T, b []byte, p *laneRequest, req *http.Request) {
	t.Helper()
	method := "GET"
	if p.head {
		method = "HEAD"
	}
	host := req.Host
	if h, ok := req.Header["Host"]; ok && len(h) == 1 {
		host = h[0] // http.ReadRequest keeps it in the header too
	}
	if req.Method != method || req.RequestURI != string(b[p.targetAt:p.targetEnd]) || req.Proto != "HTTP/1.1" ||
		host != string(b[p.hostAt:p.hostEnd]) {
		t.Fatalf("lane reads %s %s %s host %q, net/http %s %s %s host %q", method, b[p.targetAt:p.targetEnd], "HTTP/1.1",
			b[p.hostAt:p.hostEnd], req.Method, req.RequestURI, req.Proto, req.Host)
	}
	for k, name := range laneFields {
		var lane []string
		for _, v := range p.values[:p.nvalues] {
			if int(v.field) == k {
				lane = append(lane, string(b[v.start:v.end]))
			}
		}
		if !slices.Equal(lane, req.Header[name]) {
			t.Fatalf("%s: lane reads %q, net/http %q", name, lane, req.Header[name])
		}
	}
	if p.closeConn != req.Close {
		t.Fatalf("lane reads close %v, net/http %v", p.closeConn, req.Close)
	}
	if req.ContentLength != 0 || len(req.TransferEncoding) > 0 {
		t.Fatalf("lane accepts a request with a body: %q", b[:p.size])
	}
}

// serveOnce has an http.Server read raw from a connection of its own and
// returns the request its handler got, or nil when the server answered
// itself (400, 431, 505).
func serveOnce(t *testing.T, raw []byte) *http.Request {
	t.Helper()
	got := make(chan *http.Request, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		w.WriteHeader(http.StatusNoContent)
	}), ErrorLog: log.New(io.Discard, "", 0)}
	client, server := net.Pipe()
	defer client.Close()
	l := &oneConnListener{c: server, done: make(chan struct{})}
	go srv.Serve(l)
	defer srv.Close()
	client.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		client.Write(raw)
	}()
	resp, err := http.ReadResponse(bufio.NewReader(client), nil)
	if err != nil {
		t.Fatalf("no response from http.Server to %q: %v", raw, err)
	}
	io.Copy(io.Discard, resp.Body)
	select {
	case r := <-got:
		return r
	default:
		return nil
	}
}

// oneConnListener accepts c, then waits until closed.
type oneConnListener struct {
	c    net.Conn
	done chan struct{}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if c := l.c; c != nil {
		l.c = nil
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return &net.TCPAddr{} }
