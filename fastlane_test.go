package jaws_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
	"github.com/jaws-go/jaws/middleware"
)

// laneSite is one tree served twice, by two handlers behind the same
// handlers in front: ref as net/http serves any handler, lane through
// jaws's fast lane. What the lane answers must be what ref answers.
type laneSite struct {
	site        *testsite.Site
	ref, lane   *httptest.Server
	refH, laneH *jaws.Handler
	hashed      string // HashName of small.txt
	files       map[string][]byte
}

// versioned names: a bundler's build and the one before it, for
// compression dictionaries.
const (
	oldBuild = "assets/app.0123456789abcdef.js"
	newBuild = "assets/app.fedcba9876543210.js"
)

func newLaneSite(t *testing.T, opts jaws.Options) *laneSite {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fast lane reads connections on Linux only")
	}
	script := func(v int) []byte {
		var b bytes.Buffer
		for i := range 400 {
			fmt.Fprintf(&b, "export function f%d(x) { return x * %d + %d; } // build %d\n", i, i, v, v)
		}
		return b.Bytes()
	}
	s := &laneSite{site: testsite.New(t), files: map[string][]byte{
		"small.txt":       bytes.Repeat([]byte("a small text file, compressible. "), 40),
		"page.html":       []byte("<!doctype html><title>x</title><p>hello</p>\n"),
		"mid.bin":         testsite.Random(200<<10, 1),
		"big.bin":         testsite.Random(1<<20+17, 2),
		"docs/index.html": []byte("<!doctype html><title>docs</title>\n"),
		"style.css":       bytes.Repeat([]byte("body { margin: 0 auto; color: #333; }\n"), 60),
		oldBuild:          script(1),
		newBuild:          script(2),
		"empty.txt":       {},
	}}
	brotliOf := func(b []byte) []byte {
		var br bytes.Buffer
		w := brotli.NewWriterLevel(&br, 5)
		w.Write(b)
		w.Close()
		return br.Bytes()
	}
	s.files["style.css.br"] = brotliOf(s.files["style.css"])
	// A file shipped compressed only, small and past memory.
	s.files["only.js.br"] = brotliOf(script(3))
	s.files["bigonly.js.br"] = brotliOf(bytes.Repeat(script(4), 8))
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for name, data := range s.files {
		s.site.FileAt(name, data, mtime) // siblings no older than their files
	}
	front := func(h http.Handler) http.Handler {
		rules := append([]middleware.CacheRule{{Match: middleware.Glob("/assets/*"), Value: middleware.CacheImmutable}},
			middleware.DefaultCacheRules()...)
		return middleware.CacheControl(rules...)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Frame-Options", "DENY")
			w.Header().Add("Vary", "X-Lane-Test")
			h.ServeHTTP(w, r)
		}))
	}
	if opts.Compression.SpillDir == "" {
		opts.Compression.SpillDir = t.TempDir()
	}
	start := func(lane bool) (*httptest.Server, *jaws.Handler) {
		h := newHandler(t, s.site.Root, opts)
		srv := httptest.NewUnstartedServer(front(h))
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		if lane {
			srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
		}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, h
	}
	s.ref, s.refH = start(false)
	s.lane, s.laneH = start(true)
	hashed, err := s.refH.HashName("small.txt")
	if err != nil {
		t.Fatal(err)
	}
	s.hashed = "/" + hashed
	return s
}

// exchange sends raw on a new connection to srv and returns the first
// response, whole, as the bytes read.
func exchange(t *testing.T, srv *httptest.Server, raw string) []byte {
	t.Helper()
	c := dialRawConn(t, srv)
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	method, _, _ := strings.Cut(raw, " ")
	resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(c, &rec)), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("%q: body: %v", raw, err)
	}
	// The reader may have read past the response: cut at its end.
	return cutResponse(t, rec.Bytes(), method)
}

// cutResponse returns the first response in b.
func cutResponse(t *testing.T, b []byte, method string) []byte {
	t.Helper()
	head, _, ok := bytes.Cut(b, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no header block in %q", b)
	}
	n := len(head) + 4
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodHead && resp.ContentLength > 0 {
		n += int(resp.ContentLength)
	}
	return b[:min(n, len(b))]
}

// sameAnswer fails t unless the two raw responses are the same but for the
// order of header lines, a Date at most a second apart, and multipart
// boundaries.
func sameAnswer(t *testing.T, lane, ref []byte) {
	t.Helper()
	ln, ld := normalizeAnswer(t, lane)
	rn, rd := normalizeAnswer(t, ref)
	if ln != rn {
		t.Errorf("lane:\n%s\nnet/http:\n%s", ln, rn)
	}
	if d := ld.Sub(rd); d < -2*time.Second || d > 2*time.Second || ld.IsZero() != rd.IsZero() {
		t.Errorf("Date: lane %v, net/http %v", ld, rd)
	}
}

// normalizeAnswer writes a raw response with its header lines sorted, its
// Date left out and returned, and its multipart boundary replaced.
func normalizeAnswer(t *testing.T, raw []byte) (string, time.Time) {
	t.Helper()
	head, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	lines := strings.Split(string(head), "\r\n")
	status, fields := lines[0], lines[1:]
	var boundary string
	var date time.Time
	for i, f := range fields {
		k, v, _ := strings.Cut(f, ": ")
		switch k {
		case "Date":
			d, err := http.ParseTime(v)
			if err != nil {
				t.Fatalf("Date %q: %v", v, err)
			}
			date, fields[i] = d, "Date: (compared apart)"
		case "Content-Type":
			if _, params, err := mime.ParseMediaType(v); err == nil && params["boundary"] != "" {
				boundary = params["boundary"]
				fields[i] = strings.ReplaceAll(f, boundary, "BOUNDARY")
			}
		}
	}
	slices.Sort(fields)
	if boundary != "" {
		body = bytes.ReplaceAll(body, []byte(boundary), []byte("BOUNDARY"))
	}
	sum := sha256.Sum256(body)
	return status + "\n" + strings.Join(fields, "\n") + "\nbody: " + strconv.Itoa(len(body)) + " bytes " +
		base64.RawURLEncoding.EncodeToString(sum[:6]), date
}

// learn has the lane's server answer target once, GET and HEAD, through
// net/http, so that the lane answers it from then on.
func (s *laneSite) learn(t *testing.T, target string) {
	t.Helper()
	for _, m := range []string{"GET", "HEAD"} {
		exchange(t, s.lane, m+" "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	}
}

func TestFastLaneSameAnswer(t *testing.T) {
	t.Parallel()
	s := newLaneSite(t, jaws.Options{})
	etag := func(name string) string {
		b := exchange(t, s.ref, "HEAD /"+name+" HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, _ := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), &http.Request{Method: "HEAD"})
		return resp.Header.Get("Etag")
	}
	tests := []struct {
		name   string
		target string
		lines  string // header lines after Host
		method string // GET unless set
	}{
		{"memory", "/small.txt", "", ""},
		{"memory HEAD", "/small.txt", "", "HEAD"},
		{"memory range", "/small.txt", "Range: bytes=10-19\r\n", ""},
		{"memory ranges", "/small.txt", "Range: bytes=0-4,100-104,-5\r\n", ""},
		{"memory suffix range", "/small.txt", "Range: bytes=-7\r\n", ""},
		{"unsatisfiable range", "/small.txt", "Range: bytes=99999-\r\n", ""},
		{"If-None-Match", "/small.txt", "If-None-Match: " + etag("small.txt") + "\r\n", ""},
		{"If-None-Match other", "/small.txt", "If-None-Match: \"other\"\r\n", ""},
		{"If-Match failing", "/small.txt", "If-Match: \"other\"\r\n", ""},
		{"If-Modified-Since", "/small.txt", "If-Modified-Since: " + httpDate(time.Now().Add(time.Hour)) + "\r\n", ""},
		{"If-Range stale", "/small.txt", "Range: bytes=0-3\r\nIf-Range: \"other\"\r\n", ""},
		{"gzip", "/small.txt", "Accept-Encoding: gzip\r\n", ""},
		{"br over gzip", "/small.txt", "Accept-Encoding: gzip, br\r\n", ""},
		{"zstd", "/small.txt", "Accept-Encoding: zstd\r\n", ""},
		{"gzip HEAD", "/small.txt", "Accept-Encoding: gzip\r\n", "HEAD"},
		{"precompressed sibling", "/style.css", "Accept-Encoding: br\r\n", ""},
		{"sibling range", "/style.css", "Accept-Encoding: br\r\nRange: bytes=0-9\r\n", ""},
		{"html", "/page.html", "Accept-Encoding: gzip\r\n", ""},
		{"empty", "/empty.txt", "", ""},
		{"query", "/small.txt?v=3", "", ""},
		{"index page", "/docs/", "", ""},
		{"hashed name", s.hashed, "", ""},
		{"hashed name HEAD", s.hashed, "", "HEAD"},
		{"from disk", "/mid.bin", "", ""},
		{"from disk HEAD", "/mid.bin", "", "HEAD"},
		{"from disk range", "/mid.bin", "Range: bytes=1000-2999\r\n", ""},
		{"from disk ranges", "/mid.bin", "Range: bytes=0-9,5000-5009,-10\r\n", ""},
		{"from disk 304", "/mid.bin", "If-None-Match: " + etag("mid.bin") + "\r\n", ""},
		{"zero-copy size", "/big.bin", "", ""},
		{"zero-copy size range", "/big.bin", "Range: bytes=100000-\r\n", ""},
		{"Connection: close", "/small.txt", "Connection: close\r\n", ""},
		{"Connection: keep-alive", "/small.txt", "Connection: keep-alive\r\n", ""},
		{"versioned: dictionary offered", "/" + newBuild, "Accept-Encoding: br, zstd, dcz\r\n", ""},
		{"versioned: dictionary used", "/" + newBuild, "Accept-Encoding: br, zstd, dcz\r\nAvailable-Dictionary: " +
			dictionary(s.files[oldBuild]) + "\r\nSec-Fetch-Site: same-origin\r\n", ""},
		{"versioned: cors dictionary refused", "/" + newBuild, "Accept-Encoding: br, zstd, dcz\r\nAvailable-Dictionary: " +
			dictionary(s.files[oldBuild]) + "\r\nSec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n", ""},
		{"fields ignored", "/small.txt", "User-Agent: x\r\nCookie: a=b\r\nAccept: */*\r\n", ""},
		{"compressed only: stored", "/only.js", "Accept-Encoding: br\r\n", ""},
		{"compressed only: decoded", "/only.js", "", ""},
		{"compressed only: range", "/only.js", "Accept-Encoding: br\r\nRange: bytes=10-20\r\n", ""},
		{"compressed only: decoded, spilled", "/bigonly.js", "", ""},
		{"compressed only: range, spilled", "/bigonly.js", "Range: bytes=100000-\r\n", ""},
	}
	learnt := map[string]bool{}
	for _, tc := range tests {
		if !learnt[tc.target] {
			s.learn(t, tc.target)
			learnt[tc.target] = true
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := cmpOr(tc.method, "GET")
			raw := method + " " + tc.target + " HTTP/1.1\r\nHost: x\r\n" + tc.lines + "\r\n"
			before := s.laneH.Stats().Requests
			lanes := s.laneH.Stats().Lane.Responses
			got := exchange(t, s.lane, raw)
			want := exchange(t, s.ref, raw)
			sameAnswer(t, got, want)
			st := s.laneH.Stats()
			if st.Requests != before+1 {
				t.Errorf("%d requests counted, want 1", st.Requests-before)
			}
			if st.Lane.Responses == lanes && statusOf(got) < 300 {
				t.Errorf("the lane did not answer (%d lane responses)", st.Lane.Responses)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func statusOf(raw []byte) int {
	_, rest, _ := bytes.Cut(raw, []byte(" "))
	n, _ := strconv.Atoi(string(rest[:3]))
	return n
}

// laneRefused are requests the lane must hand to the server, with the
// name learnt: what they get is net/http's and jaws's answer through it.
var laneRefused = []struct{ name, raw string }{
	{"POST", "POST /small.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"},
	{"Authorization", "GET /small.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\n\r\n"},
	{"Origin", "GET /small.txt HTTP/1.1\r\nHost: x\r\nOrigin: https://elsewhere.example\r\n\r\n"},
	{"Content-Length: 0", "GET /small.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"},
	{"chunked body", "GET /small.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
	{"Expect", "GET /small.txt HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n"},
	{"Upgrade", "GET /small.txt HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"},
	{"HTTP/1.0", "GET /small.txt HTTP/1.0\r\n\r\n"},
	{"no Host", "GET /small.txt HTTP/1.1\r\n\r\n"},
	{"two Hosts", "GET /small.txt HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"},
	{"another Host", "GET /small.txt HTTP/1.1\r\nHost: y\r\n\r\n"},
	{"obs-fold", "GET /small.txt HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n"},
	{"bare LF", "GET /small.txt HTTP/1.1\nHost: x\n\n"},
	{"space before colon", "GET /small.txt HTTP/1.1\r\nHost: x\r\nRange : bytes=0-1\r\n\r\n"},
	{"absolute form", "GET http://x/small.txt HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"escaped", "GET /sm%61ll.txt HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"dot segments", "GET /docs/../small.txt HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"missing", "GET /missing.txt HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"directory without slash", "GET /docs HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"not learnt yet", "GET /page.html HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"DELETE", "DELETE /small.txt HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"h2c preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"},
	{"garbage", "\x16\x03\x01\x00\x05hello"},
}

// TestFastLaneHandsOver: requests the lane does not answer reach the
// server as they were sent, and get its answer.
func TestFastLaneHandsOver(t *testing.T) {
	t.Parallel()
	s := newLaneSite(t, jaws.Options{})
	s.learn(t, "/small.txt")
	s.learn(t, "/docs/")
	for _, tc := range laneRefused {
		t.Run(tc.name, func(t *testing.T) {
			lanes := s.laneH.Stats().Lane.Responses
			got, want := rawAnswer(t, s.lane, tc.raw), rawAnswer(t, s.ref, tc.raw)
			if (got == nil) != (want == nil) {
				t.Fatalf("lane's server: %q\nnet/http: %q", got, want)
			}
			if got != nil {
				sameAnswer(t, got, want)
			}
			if n := s.laneH.Stats().Lane.Responses; n != lanes {
				t.Errorf("the lane answered (%d responses)", n-lanes)
			}
		})
	}
}

// rawAnswer sends raw on a new connection, half-closed, and returns the
// first response, or nil when the server closed the connection without
// one.
func rawAnswer(t *testing.T, srv *httptest.Server, raw string) []byte {
	t.Helper()
	c := dialRawConn(t, srv)
	defer c.Close()
	io.WriteString(c, raw)
	c.(*net.TCPConn).CloseWrite()
	b, _ := io.ReadAll(c)
	if len(b) == 0 {
		return nil
	}
	method, _, _ := strings.Cut(raw, " ")
	return cutResponse(t, b, method)
}

// laneServer serves h through its fast lane, with config applied first;
// closed when the test ends.
func laneServer(t *testing.T, h *jaws.Handler, front http.Handler, config func(*http.Server)) *httptest.Server {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fast lane reads connections on Linux only")
	}
	if front == nil {
		front = h
	}
	srv := httptest.NewUnstartedServer(front)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if config != nil {
		config(srv.Config)
	}
	srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// get is a GET of target over c, and its response's body.
func laneGet(t *testing.T, c *bufio.ReadWriter, target string, lines ...string) (*http.Response, []byte) {
	t.Helper()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n", target, strings.Join(lines, ""))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(c.Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// dialLane connects to srv, closed when the test ends.
func dialLane(t *testing.T, srv *httptest.Server) (net.Conn, *bufio.ReadWriter) {
	t.Helper()
	c := dialRawConn(t, srv)
	return c, bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c))
}

// TestFastLaneConnHooks: ConnContext gets the *net.TCPConn itself when a
// connection goes to the server before the lane answered on it, and
// ConnState hears the lane's answers (StateNew, StateActive, StateIdle), its
// hand-over (StateHijacked) and then net/http's own.
func TestFastLaneConnHooks(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("a")).File("b.txt", []byte("b"))
	h := newHandler(t, site.Root, jaws.Options{})
	var mu sync.Mutex
	var ctxConn []string
	states := map[net.Conn][]string{}
	srv := laneServer(t, h, nil, func(s *http.Server) {
		s.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			mu.Lock()
			ctxConn = append(ctxConn, fmt.Sprintf("%T", c))
			mu.Unlock()
			return ctx
		}
		s.ConnState = func(c net.Conn, st http.ConnState) {
			mu.Lock()
			if nc, ok := c.(interface{ NetConn() net.Conn }); ok {
				c = nc.NetConn()
			}
			states[c] = append(states[c], st.String())
			mu.Unlock()
		}
	})
	c, rw := dialLane(t, srv)
	laneGet(t, rw, "/a.txt") // learns a.txt: net/http's
	c.Close()
	c, rw = dialLane(t, srv)
	laneGet(t, rw, "/a.txt") // the lane's
	laneGet(t, rw, "/a.txt") // the lane's
	laneGet(t, rw, "/b.txt") // net/http's, from then on
	c.Close()
	if n := h.Stats().Lane.Responses; n != 2 {
		t.Errorf("%d lane responses, want 2", n)
	}
	var got [][]string
	for end := time.Now().Add(5 * time.Second); ; {
		mu.Lock()
		got = got[:0]
		for _, v := range states {
			got = append(got, slices.Clone(v))
		}
		mu.Unlock()
		slices.SortFunc(got, func(a, b []string) int { return len(a) - len(b) })
		if len(got) == 2 && got[0][len(got[0])-1] == "closed" && got[1][len(got[1])-1] == "closed" || time.Now().After(end) {
			break
		}
		time.Sleep(time.Millisecond) // the server sees the close when it reads
	}
	want := [][]string{
		{"new", "active", "idle", "closed"},
		{"new", "active", "idle", "active", "idle", "hijacked", "new", "active", "idle", "closed"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ConnState saw\n\t%v\nwant\n\t%v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ctxConn) != 2 || ctxConn[0] != "*net.TCPConn" {
		t.Errorf("ConnContext saw %q, want *net.TCPConn first", ctxConn)
	}
}

// TestFastLaneLearnsAgain: the headers set in front of jaws are learnt
// from one answer through the server and replayed by the lane, and learnt
// again, from the server, once the file has changed; a request made after
// the change gets the new bytes, never the old ones.
func TestFastLaneLearnsAgain(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("version 1"))
	h := newHandler(t, site.Root, jaws.Options{})
	var calls atomic.Int64
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Front", strconv.FormatInt(calls.Add(1), 10))
		h.ServeHTTP(w, r)
	})
	srv := laneServer(t, h, front, nil)
	_, rw := dialLane(t, srv)
	check := func(step, body, front string, lanes uint64) {
		t.Helper()
		resp, b := laneGet(t, rw, "/a.txt")
		if string(b) != body || resp.Header.Get("X-Front") != front || h.Stats().Lane.Responses != lanes {
			t.Errorf("%s: %q, X-Front %q, %d lane responses; want %q, %q, %d", step, b, resp.Header.Get("X-Front"),
				h.Stats().Lane.Responses, body, front, lanes)
		}
	}
	check("first, through the server", "version 1", "1", 0)
	_, rw = dialLane(t, srv) // the first connection is net/http's
	check("the lane", "version 1", "1", 1)
	check("the lane again", "version 1", "1", 2)
	site.Replace("a.txt", []byte("version 2, longer"))
	_, rw = dialLane(t, srv)
	check("changed: through the server", "version 2, longer", "2", 2)
	_, rw = dialLane(t, srv)
	check("the lane, learnt again", "version 2, longer", "2", 3)
}

// TestFastLaneLearnsOnlyWhatItWouldAnswer: nothing is learnt from a
// request the lane would not have answered, from a response the handlers
// in front see (a wrapping writer) or write themselves, or from an answer
// that is not a file.
func TestFastLaneLearnsOnlyWhatItWouldAnswer(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("a")).Dir("dir")
	tests := []struct {
		name   string
		front  func(h http.Handler) http.Handler
		target string
		first  string // header lines of the first request
		want   uint64 // lane responses of the two requests that follow it
	}{
		{"a plain request", nil, "/a.txt", "", 2},
		{"an Origin", nil, "/a.txt", "Origin: https://y.example\r\n", 1},
		{"Authorization", nil, "/a.txt", "Authorization: Bearer x\r\n", 1},
		{"a wrapping writer", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(struct{ http.ResponseWriter }{w}, r)
			})
		}, "/a.txt", "", 0},
		{"a header written in front", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				h.ServeHTTP(w, r)
			})
		}, "/a.txt", "", 0},
		{"a 404", nil, "/missing", "", 0},
		{"a redirect", nil, "/dir", "", 0},
		{"a directory without index", nil, "/dir/", "", 0},
		{"another handler", func(http.Handler) http.Handler { return http.FileServer(http.Dir(site.Root)) }, "/a.txt", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHandler(t, site.Root, jaws.Options{})
			var front http.Handler = h
			if tc.front != nil {
				front = tc.front(h)
			}
			srv := laneServer(t, h, front, nil)
			_, rw := dialLane(t, srv)
			laneGet(t, rw, tc.target, tc.first)
			for range 2 {
				_, rw = dialLane(t, srv)
				laneGet(t, rw, tc.target)
			}
			if n := h.Stats().Lane.Responses; n != tc.want {
				t.Errorf("%d lane responses, want %d", n, tc.want)
			}
		})
	}
}

// laneTransfer starts a lane connection that is in the middle of a large
// response its client does not read, and one that waits idle; h has
// learnt both names.
func laneTransfer(t *testing.T, h *jaws.Handler, srv *httptest.Server) (busy, idle net.Conn) {
	t.Helper()
	for _, target := range []string{"/big.bin", "/a.txt"} {
		_, rw := dialLane(t, srv)
		laneGet(t, rw, target, "Connection: close\r\n")
	}
	idle, rw := dialLane(t, srv)
	laneGet(t, rw, "/a.txt")
	busy, _ = dialLane(t, srv)
	busy.(*net.TCPConn).SetReadBuffer(64 << 10)
	io.WriteString(busy, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
	// The lane counts a response when it is done; the idle connection's
	// is, the busy one's is not.
	for end := time.Now().Add(5 * time.Second); h.Stats().Requests < 4; {
		if time.Now().After(end) {
			t.Fatal("the large response never started")
		}
		time.Sleep(time.Millisecond)
	}
	return busy, idle
}

// closedWithin reports whether the server closes c within d: a read ends
// in EOF or a reset, after any bytes c has yet to read.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// laneShutdownSite is a site with a file too large to fit the socket
// buffers of a connection whose client does not read.
func laneShutdownSite(t *testing.T) *testsite.Site {
	return testsite.New(t).File("a.txt", []byte("a")).File("big.bin", testsite.Random(16<<20, 3))
}

// TestFastLaneServerClose: http.Server.Close ends the lane's connections
// at once, idle or in the middle of a response.
func TestFastLaneServerClose(t *testing.T) {
	t.Parallel()
	h := newHandler(t, laneShutdownSite(t).Root, jaws.Options{})
	srv := laneServer(t, h, nil, nil)
	busy, idle := laneTransfer(t, h, srv)
	srv.Config.Close()
	if !closedWithin(idle, 2*time.Second) {
		t.Error("the idle connection is still open")
	}
	busy.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := io.Copy(io.Discard, busy)
	if n >= 16<<20 || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the busy connection: %d bytes, %v: not ended at once", n, err)
	}
}

// TestFastLaneShutdown: http.Server.Shutdown closes the lane's idle
// connections at once and a busy one after its response, which the client
// gets whole; Handler.Shutdown waits for it.
func TestFastLaneShutdown(t *testing.T) {
	t.Parallel()
	h := newHandler(t, laneShutdownSite(t).Root, jaws.Options{})
	srv := laneServer(t, h, nil, nil)
	busy, idle := laneTransfer(t, h, srv)
	if err := srv.Config.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(idle, 2*time.Second) {
		t.Error("the idle connection is still open")
	}
	hdone := make(chan error, 1)
	go func() { hdone <- h.Shutdown(context.Background()) }()
	select {
	case err := <-hdone:
		t.Fatalf("Handler.Shutdown returned before the response was done: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	busy.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if n != 16<<20 || err != nil {
		t.Errorf("the busy connection's response: %d bytes, %v; want it whole", n, err)
	}
	if resp.Header.Get("Connection") != "" {
		t.Errorf("Connection: %q, though keep-alives were on when it began", resp.Header.Get("Connection"))
	}
	if err := <-hdone; err != nil {
		t.Errorf("Handler.Shutdown: %v", err)
	}
	if !closedWithin(busy, 2*time.Second) {
		t.Error("the connection stays open after its response")
	}
}

// TestFastLaneHandlerClose: Handler.Close ends the lane's connections, and
// the server gets every connection from then on.
func TestFastLaneHandlerClose(t *testing.T) {
	t.Parallel()
	h := newHandler(t, laneShutdownSite(t).Root, jaws.Options{})
	srv := laneServer(t, h, nil, nil)
	busy, idle := laneTransfer(t, h, srv)
	h.Close()
	if !closedWithin(idle, 2*time.Second) || !closedWithin(busy, 2*time.Second) {
		t.Fatal("a lane connection is still open")
	}
	_, rw := dialLane(t, srv)
	if resp, _ := laneGet(t, rw, "/a.txt"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d, want 503", resp.StatusCode)
	}
}

// TestFastLaneRecords: AccessLog, OnResponse and Stats see the lane's
// responses, on a transfer path of their own.
func TestFastLaneRecords(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello")).File("big.bin", testsite.Random(1<<20, 4))
	var mu sync.Mutex
	var recs []jaws.ResponseRecord
	var logged testsite.SyncBuffer
	h := newHandler(t, site.Root, jaws.Options{
		OnResponse: func(r jaws.ResponseRecord) { mu.Lock(); recs = append(recs, r); mu.Unlock() },
		AccessLog:  slog.New(slog.NewTextHandler(&logged, nil)),
	})
	srv := laneServer(t, h, nil, nil)
	for _, target := range []string{"/a.txt", "/big.bin"} {
		_, rw := dialLane(t, srv)
		laneGet(t, rw, target)
	}
	_, rw := dialLane(t, srv)
	laneGet(t, rw, "/a.txt")
	laneGet(t, rw, "/big.bin", "Range: bytes=0-99\r\n")
	laneGet(t, rw, "/a.txt", "If-None-Match: *\r\n")
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, r := range recs[2:] {
		got = append(got, fmt.Sprintf("%s %s %d %d %q", r.Method, r.Path, r.Status, r.Bytes, r.Transfer))
	}
	want := []string{`GET /a.txt 200 5 "lane"`, `GET /big.bin 206 100 "lane"`, `GET /a.txt 304 0 ""`}
	if !slices.Equal(got, want) {
		t.Errorf("records\n\t%q\nwant\n\t%q", got, want)
	}
	if st := h.Stats(); st.Lane.Responses != 2 || st.Lane.Bytes != 105 || st.Requests != 5 {
		t.Errorf("Stats: lane %+v, %d requests; want 2 responses of 105 bytes, 5 requests", st.Lane, st.Requests)
	}
	if n := strings.Count(logged.String(), "transfer=lane"); n != 2 {
		t.Errorf("%d access log records with transfer=lane, want 2:\n%s", n, logged.String())
	}
}

// TestFastLanePipelined: pipelined requests are answered in order, the
// lane's and then, from the first it does not answer on, net/http's.
func TestFastLanePipelined(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	for i := range 8 {
		site.File(fmt.Sprintf("%d.txt", i), bytes.Repeat([]byte{'0' + byte(i)}, 100*i+1))
	}
	h := newHandler(t, site.Root, jaws.Options{})
	srv := laneServer(t, h, nil, nil)
	for i := range 6 {
		_, rw := dialLane(t, srv)
		laneGet(t, rw, fmt.Sprintf("/%d.txt", i), "Connection: close\r\n")
	}
	var reqs strings.Builder
	order := []int{0, 1, 2, 3, 4, 5, 0, 1, 6, 2, 7, 3} // 6 and 7 are new to the lane
	for _, i := range order {
		fmt.Fprintf(&reqs, "GET /%d.txt HTTP/1.1\r\nHost: x\r\n\r\n", i)
	}
	c, rw := dialLane(t, srv)
	io.WriteString(c, reqs.String())
	for k, i := range order {
		resp, err := http.ReadResponse(rw.Reader, nil)
		if err != nil {
			t.Fatalf("response %d: %v", k, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if want := bytes.Repeat([]byte{'0' + byte(i)}, 100*i+1); !bytes.Equal(body, want) {
			t.Fatalf("response %d: %d bytes of %q, want /%d.txt", k, len(body), body[:1], i)
		}
	}
	if n := h.Stats().Lane.Responses; n != 8 {
		t.Errorf("%d lane responses, want 8 (up to the first name it did not know)", n)
	}
}

// TestFastLaneOtherProtocols: TLS (the listener served by ServeTLS) and
// unencrypted HTTP/2 go to the server whole.
func TestFastLaneOtherProtocols(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello"))
	t.Run("TLS", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the fast lane reads connections on Linux only")
		}
		h := newHandler(t, site.Root, jaws.Options{})
		srv := httptest.NewUnstartedServer(h)
		srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
		srv.StartTLS()
		t.Cleanup(srv.Close)
		for range 3 {
			resp, err := srv.Client().Get(srv.URL + "/a.txt")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "hello" {
				t.Fatalf("%q", body)
			}
		}
		if n := h.Stats().Lane.Responses; n != 0 {
			t.Errorf("%d lane responses over TLS", n)
		}
	})
	t.Run("unencrypted HTTP/2", func(t *testing.T) {
		h := newHandler(t, site.Root, jaws.Options{})
		srv := laneServer(t, h, nil, func(s *http.Server) {
			s.Protocols = new(http.Protocols)
			s.Protocols.SetHTTP1(true)
			s.Protocols.SetUnencryptedHTTP2(true)
		})
		tr := &http.Transport{Protocols: new(http.Protocols)}
		tr.Protocols.SetUnencryptedHTTP2(true)
		defer tr.CloseIdleConnections()
		for range 3 {
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL + "/a.txt")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "hello" || resp.ProtoMajor != 2 {
				t.Fatalf("%s %q", resp.Proto, body)
			}
		}
		if n := h.Stats().Lane.Responses; n != 0 {
			t.Errorf("%d lane responses", n)
		}
	})
}

// TestFastLaneHeaderHook: the lane's answers carry the hook's fields as
// net/http's do, on 200, 206 and 304, from memory and from disk, in every
// coding, and not on a 412 or 416.
func TestFastLaneHeaderHook(t *testing.T) {
	t.Parallel()
	s := newLaneSite(t, jaws.Options{Header: func(name string, h http.Header) {
		h.Set("X-File", name)
		h.Add("Link", "</a.css>; rel=preload; as=style")
	}})
	tests := []struct {
		name   string
		target string
		lines  string
		method string
		file   string // "": no field of the hook's
	}{
		{"memory", "/small.txt", "", "GET", "small.txt"},
		{"memory HEAD", "/small.txt", "", "HEAD", "small.txt"},
		{"memory range", "/small.txt", "Range: bytes=10-19\r\n", "GET", "small.txt"},
		{"304", "/small.txt", "If-None-Match: *\r\n", "GET", "small.txt"},
		{"gzip", "/small.txt", "Accept-Encoding: gzip\r\n", "GET", "small.txt"},
		{"precompressed sibling", "/style.css", "Accept-Encoding: br\r\n", "GET", "style.css"},
		{"index page", "/docs/", "", "GET", "docs/index.html"},
		{"hashed name", s.hashed, "", "GET", "small.txt"},
		{"from disk", "/mid.bin", "", "GET", "mid.bin"},
		{"from disk range", "/mid.bin", "Range: bytes=1000-2999\r\n", "GET", "mid.bin"},
		{"zero-copy size", "/big.bin", "", "GET", "big.bin"},
		{"dcz", "/" + newBuild, "Accept-Encoding: br, zstd, dcz\r\nAvailable-Dictionary: " +
			dictionary(s.files[oldBuild]) + "\r\nSec-Fetch-Site: same-origin\r\n", "GET", newBuild},
		{"412", "/small.txt", "If-Match: \"other\"\r\n", "GET", ""},
		{"416", "/small.txt", "Range: bytes=99999-\r\n", "GET", ""},
	}
	for _, tc := range tests {
		s.learn(t, tc.target)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.method + " " + tc.target + " HTTP/1.1\r\nHost: x\r\n" + tc.lines + "\r\n"
			lanes := s.laneH.Stats().Lane.Responses
			got := exchange(t, s.lane, raw)
			sameAnswer(t, got, exchange(t, s.ref, raw))
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), &http.Request{Method: tc.method})
			if err != nil {
				t.Fatal(err)
			}
			if s.laneH.Stats().Lane.Responses == lanes && resp.StatusCode < 300 {
				t.Errorf("the lane did not answer")
			}
			if tc.file == "" {
				if v := resp.Header.Values("X-File"); v != nil {
					t.Errorf("X-File %q on a %d", v, resp.StatusCode)
				}
				return
			}
			if v := resp.Header.Values("X-File"); !slices.Equal(v, []string{tc.file}) {
				t.Errorf("X-File %q, want %q", v, tc.file)
			}
			if v := resp.Header.Values("Link"); len(v) != 1 {
				t.Errorf("Link %q, want the hook's", v)
			}
			if cc := resp.Header.Get("Cache-Control"); tc.target == s.hashed && !strings.Contains(cc, "immutable") {
				t.Errorf("a hashed name's Cache-Control %q", cc)
			}
		})
	}
}
