package jaws_test

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
)

// reviewPair is one tree served twice, behind the same handlers in front:
// ref by net/http alone (the reference), lane through jaws's fast lane
// with prefix "/". Any answer that differs between them, beyond
// docs/fastlane.md's "What differs", is a finding.
type reviewPair struct {
	ref, lane   *httptest.Server
	refH, laneH *jaws.Handler
}

// newReviewPair builds a pair over root; front wraps each side's handler
// (nil: jaws alone), config adjusts each side's server before it starts.
func newReviewPair(t *testing.T, root string, opts jaws.Options, front func(*jaws.Handler) http.Handler, config func(*http.Server)) *reviewPair {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fast lane reads connections on Linux only")
	}
	start := func(lane bool) (*httptest.Server, *jaws.Handler) {
		h := newHandler(t, root, opts)
		var handler http.Handler = h
		if front != nil {
			handler = front(h)
		}
		srv := httptest.NewUnstartedServer(handler)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		if config != nil {
			config(srv.Config)
		}
		if lane {
			srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
		}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, h
	}
	p := &reviewPair{}
	p.ref, p.refH = start(false)
	p.lane, p.laneH = start(true)
	return p
}

// teach has the lane side answer raw once through net/http (a new
// connection's first request for a name goes to srv), so that the lane
// learns it.
func (p *reviewPair) teach(t *testing.T, raw string) {
	t.Helper()
	exchange(t, p.lane, raw)
}

// both sends raw to each side on a new connection and returns the lane's
// and the reference's first response, whole.
func (p *reviewPair) both(t *testing.T, raw string) (lane, ref []byte) {
	t.Helper()
	return exchange(t, p.lane, raw), exchange(t, p.ref, raw)
}

// laneAnswered runs f and reports how many responses the lane sent
// meanwhile.
func (p *reviewPair) laneAnswered(f func()) uint64 {
	before := p.laneH.Stats().Lane.Responses
	f()
	return p.laneH.Stats().Lane.Responses - before
}

// bodyOf is the body of a raw response, as read.
func bodyOf(raw []byte) string {
	_, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	return string(body)
}

// headerOf is the value of a field of a raw response.
func headerOf(t *testing.T, raw []byte, key string) string {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Get(key)
}

// getRaw is a GET of target for Host x with extra header lines.
func getRaw(target string, lines ...string) string {
	return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + strings.Join(lines, "") + "\r\n"
}

// openFDs counts this process's open descriptors (Linux).
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// settle waits up to d for cond, polling.
func settle(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dialRawConn dials srv and returns the connection, closed when the test
// ends.
func dialRawConn(t *testing.T, srv *httptest.Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// readOne reads one response of method from br, whole, or returns the
// error that ended the read.
func readOne(br *bufio.Reader, method string) (*http.Response, string, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

var _ = strconv.Itoa
