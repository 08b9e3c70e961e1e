package jaws

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/conversation"
	"github.com/jaws-go/jaws/internal/testsite"
)

// rawSite is a live server for FuzzRawRequest: files of distinct sizes (so
// a body tells which file it claims to be) on every transfer path, next to
// a secret outside the root that a symlink points at.
type rawSite struct {
	srv    *httptest.Server
	bySize map[int64][]byte
	marker []byte
}

func newRawSite(tb testing.TB) *rawSite {
	parent := tempDir(tb)
	root := filepath.Join(parent, "root")
	marker := []byte("RAW-FUZZ-SECRET-" + strconv.FormatInt(time.Now().UnixNano(), 36))
	must(tb, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(tb, os.WriteFile(filepath.Join(parent, "secret"), marker, 0o644))
	must(tb, os.WriteFile(filepath.Join(root, ".env"), marker, 0o644))
	must(tb, os.Symlink("../secret", filepath.Join(root, "out")))
	s := &rawSite{bySize: map[int64][]byte{}, marker: marker}
	for name, n := range map[string]int{"small.txt": 100, "mid.bin": 3000, "big.bin": 70001, "sub/index.html": 57} {
		data := randomBytes(n)
		if name == "sub/index.html" {
			data = bytes.Repeat([]byte("i"), n)
		}
		s.bySize[int64(n)] = data
		must(tb, os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), data, 0o644))
	}
	h, err := New(root, Options{CacheMaxFileSize: 1024, ZeroCopyMinSize: 4096, SendTimeout: time.Second})
	must(tb, err)
	s.srv = httptest.NewServer(h)
	tb.Cleanup(func() {
		s.srv.Close()
		h.Close()
	})
	return s
}

// exchange writes raw to a new connection, half-closes it and reads what
// the server sends until it closes the connection or the deadline passes.
func (s *rawSite) exchange(raw []byte, limit time.Duration) (out []byte, timedOut bool, err error) {
	c, err := net.Dial("tcp", s.srv.Listener.Addr().String())
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(limit))
	if _, err := c.Write(raw); err != nil {
		return nil, false, nil // the server closed early; nothing to check
	}
	c.(*net.TCPConn).CloseWrite()
	out, err = io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return out, true, nil
	}
	return out, false, nil // a reset is an end like EOF
}

// check verifies the responses in out to the requests in raw: each parses,
// its body is exactly Content-Length bytes, and a 200 or 206 body of a
// file's size is that file's bytes. A response cut by the read deadline
// (not by the server) is not held against it.
func (s *rawSite) check(t *testing.T, raw, out []byte, timedOut bool) {
	if bytes.Contains(out, s.marker) {
		t.Fatalf("served the secret:\n%q", out)
	}
	methods := conversation.Methods(string(raw))
	br := bufio.NewReader(bytes.NewReader(out))
	for i := 0; ; i++ {
		if _, err := br.Peek(1); err == io.EOF {
			return
		}
		method := "GET"
		if i < len(methods) {
			method = methods[i]
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			if timedOut {
				return
			}
			t.Fatalf("response %d unparsable: %v\n%q", i, err, out)
		}
		if method == "HEAD" && rejected(resp) {
			// net/http refused the request before any handler ran (a
			// version or Host it does not take, say), so it is no HEAD to
			// the server: its error body is all that follows.
			rest, _ := io.ReadAll(br)
			if resp.ContentLength >= 0 && int64(len(rest)) != resp.ContentLength {
				t.Fatalf("response %d: %d body bytes, Content-Length %d", i, len(rest), resp.ContentLength)
			}
			return
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			if timedOut {
				return
			}
			t.Fatalf("response %d (%d) to %s: body of %d bytes, Content-Length %d: %v", i, resp.StatusCode, method, len(body), resp.ContentLength, err)
		}
		if method == "HEAD" || resp.StatusCode == 304 || resp.StatusCode == 204 || resp.StatusCode < 200 {
			if len(body) > 0 {
				t.Fatalf("response %d (%d to %s) has a body", i, resp.StatusCode, method)
			}
			continue
		}
		if resp.ContentLength >= 0 && int64(len(body)) != resp.ContentLength {
			t.Fatalf("response %d: %d body bytes, Content-Length %d", i, len(body), resp.ContentLength)
		}
		switch resp.StatusCode {
		case 200:
			if data, ok := s.bySize[int64(len(body))]; ok && resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" && !bytes.Equal(body, data) {
				t.Fatalf("response %d: a 200 of %d bytes that is not the file's", i, len(body))
			}
		case 206:
			s.checkPartial(t, i, resp, body)
		}
	}
}

func (s *rawSite) checkPartial(t *testing.T, i int, resp *http.Response, body []byte) {
	ctype := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ctype); err == nil && mt == "multipart/byteranges" {
		for _, p := range testsite.Parts(t, ctype, body) {
			s.checkSpan(t, i, p.ContentRange, p.Body)
		}
		return
	}
	s.checkSpan(t, i, resp.Header.Get("Content-Range"), body)
}

func (s *rawSite) checkSpan(t *testing.T, i int, cr string, b []byte) {
	var first, last, size int64
	if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &first, &last, &size); err != nil {
		t.Fatalf("response %d: Content-Range %q", i, cr)
	}
	data, ok := s.bySize[size]
	if !ok || first < 0 || last < first || last >= size {
		t.Fatalf("response %d: Content-Range %q names no file", i, cr)
	}
	if !bytes.Equal(b, data[first:last+1]) {
		t.Fatalf("response %d: %q: %d bytes that are not the file's", i, cr, len(b))
	}
}

// rejected reports whether resp is net/http's refusal of a request it could
// not take, which ends the connection: statuses jaws itself never sends.
func rejected(resp *http.Response) bool {
	switch resp.StatusCode {
	case 400, 408, 413, 414, 417, 431, 501, 505:
		return resp.Close
	}
	return false
}

// FuzzRawRequest throws raw request bytes at a live handler, pipelined
// requests and all: no secret from outside the root, every response
// well-formed with exactly Content-Length body bytes, every 206 and 200 the
// file's own bytes, and the server still serves a normal request after.
func FuzzRawRequest(f *testing.F) {
	s := newRawSite(f)
	for _, seed := range []string{
		"GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-10,-20\r\n\r\nGET /mid.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=5-\r\n\r\n",
		"HEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /big.bin HTTP/1.0\r\n\r\n",
		"GET /../secret HTTP/1.1\r\nHost: x\r\n\r\nGET /out HTTP/1.1\r\nHost: x\r\n\r\nGET /%2e%2e/secret HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /sub HTTP/1.1\r\nHost: x\r\n\r\nGET /sub/ HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0,0-0\r\n\r\n",
		"GET /mid.bin HTTP/1.1\r\nHost: x\r\nIf-Range: \"x\"\r\nRange: bytes=1-2\r\n\r\nPOST /small.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"GET /.env HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, timedOut, err := s.exchange(raw, time.Second)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		s.check(t, raw, out, timedOut)
		after, _, err := s.exchange([]byte("GET /small.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 5*time.Second)
		if err != nil || !bytes.HasPrefix(after, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.HasSuffix(after, s.bySize[100]) {
			t.Fatalf("the server no longer serves a normal request after %q: %v %q", raw, err, after)
		}
	})
}
