package jaws_test

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// A connection the lane reads counts as idle from its accept (laneIdle),
// before its first request. net/http does not count a new connection as
// idle until it has waited 5 seconds for its first request (closeIdleConns,
// issue 22682): SetKeepAlivesEnabled(false) leaves it alone, and its first
// request is answered (with Connection: close). The lane's keep-alive check
// (serverState.watchKeepAlives, every 100 ms) closes it, without a word.
// (Shutdown closes it too, at once, where net/http waits; but Go 1.26's
// net/http answers no request it reads after Shutdown began, so the client
// sees the same: no answer. That case held up.)

// freshConnAnswer dials srv, waits, runs do (if not nil), waits again,
// then sends a request and reports what came back: "200 ..." or the error.
func freshConnAnswer(t *testing.T, p *reviewPair, lane bool, do func(*http.Server), raw string) string {
	t.Helper()
	srv := p.ref
	if lane {
		srv = p.lane
	}
	c := dialRawConn(t, srv)
	time.Sleep(50 * time.Millisecond) // accepted, and read by the lane
	if do != nil {
		go do(srv.Config)
	}
	time.Sleep(250 * time.Millisecond) // a client's think time; more than the lane's 100 ms check
	if _, err := io.WriteString(c, raw); err != nil {
		return "write: " + err.Error()
	}
	resp, _, err := readOne(bufio.NewReader(c), "GET")
	if err != nil {
		return "no response: " + err.Error()
	}
	return resp.Status
}

// TestReviewKeepAlivesOffKillsNewConns: with keep-alives off (set before
// the server starts, as some operators run, or turned off at run time to
// drain a server), every new connection whose
// client does not send its request within the lane's 100 ms check is closed
// unanswered. net/http answers it (with Connection: close). Browsers'
// preconnects and pooled clients open connections ahead of requests.
func TestReviewKeepAlivesOffKillsNewConns(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello"))
	p := newReviewPair(t, site.Root, jaws.Options{}, nil, func(s *http.Server) { s.SetKeepAlivesEnabled(false) })
	p.teach(t, getRaw("/a.txt"))
	for _, target := range []string{"/a.txt", "/not-learnt"} {
		got := freshConnAnswer(t, p, true, nil, getRaw(target))
		want := freshConnAnswer(t, p, false, nil, getRaw(target))
		if got != want {
			t.Errorf("%s on a new connection, keep-alives off: lane side %q, net/http %q", target, got, want)
		}
	}
}

// TestReviewReadHeaderTimeoutTwice: after a lane answer, the next
// request's header arrives slowly. The lane holds it under
// ReadHeaderTimeout from its first 4 bytes, as net/http does; but when a
// field it refuses (Origin here; any field or byte it does not take) comes
// before the deadline, it hands the connection over, and net/http starts
// ReadHeaderTimeout afresh: a slow client gets almost twice the time net/http
// gives it (docs/fastlane.md lists this only for a first request).
func TestReviewReadHeaderTimeoutTwice(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello")).File("b.txt", []byte("bee"))
	const rht = 400 * time.Millisecond
	p := newReviewPair(t, site.Root, jaws.Options{}, nil, func(s *http.Server) {
		s.ReadHeaderTimeout, s.IdleTimeout = rht, 10*time.Second
	})
	p.teach(t, getRaw("/a.txt"))
	play := func(srv *reviewPair, lane bool) string {
		s := srv.ref
		if lane {
			s = srv.lane
		}
		c := dialRawConn(t, s)
		br := bufio.NewReader(c)
		io.WriteString(c, getRaw("/a.txt"))
		if _, _, err := readOne(br, "GET"); err != nil {
			return "first: " + err.Error()
		}
		io.WriteString(c, "GET /b.txt HTTP/1.1\r\nHost: x\r\n")
		time.Sleep(rht * 3 / 4)
		io.WriteString(c, "Origin: http://y.example\r\n") // the lane refuses it: hand-over
		time.Sleep(rht * 3 / 4)                           // 1.5 × ReadHeaderTimeout since the request began
		io.WriteString(c, "\r\n")
		resp, _, err := readOne(br, "GET")
		if err != nil {
			return "closed: " + err.Error()
		}
		return resp.Status
	}
	var got, want string
	done := make(chan struct{})
	go func() { want = play(p, false); close(done) }()
	got = play(p, true)
	<-done
	if got != want {
		t.Errorf("a header finished at 1.5 × ReadHeaderTimeout after a lane answer: lane side %q, net/http %q", got, want)
	}
}

// limitListener is golang.org/x/net/netutil.LimitListener, in short: at
// most n connections accepted and not yet closed.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// TestReviewLimitListenerBypassed: a server that bounds its connections with
// a limiting listener (netutil.LimitListener) wraps ln, the listener the
// lane reads from: the lane then reads the TCP connection beneath each
// wrapped one (tcpConn) and closes it through the wrapper, so the limit
// counts the lane's connections too. Here the limit is 2: net/http serves
// two keep-alive clients and leaves a third waiting, and so does the lane.
// (A limiting listener around FastLane's own bounds only what the lane
// hands over: docs/fastlane.md says so.)
func TestReviewLimitListenerBypassed(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello"))
	limit := func(ln net.Listener) net.Listener { return &limitListener{Listener: ln, sem: make(chan struct{}, 2)} }
	serve := func(lane bool) (*httptest.Server, *jaws.Handler) {
		h := newHandler(t, site.Root, jaws.Options{})
		srv := httptest.NewUnstartedServer(h)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		if lane {
			srv.Listener = h.FastLane(limit(srv.Listener), srv.Config, "/")
		} else {
			srv.Listener = limit(srv.Listener)
		}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, h
	}
	answered := func(srv *httptest.Server) int {
		n := 0
		for range 3 {
			c := dialRawConn(t, srv)
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			io.WriteString(c, getRaw("/a.txt")) // keep-alive: the connection stays open
			if _, _, err := readOne(bufio.NewReader(c), "GET"); err == nil {
				n++
			}
		}
		return n
	}
	ref, _ := serve(false)
	lane, h := serve(true)
	c := dialRawConn(t, lane)
	io.WriteString(c, getRaw("/a.txt", "Connection: close\r\n")) // learnt, through srv
	io.Copy(io.Discard, c)
	got, want := answered(lane), answered(ref)
	if got != want || h.Stats().Lane.Responses == 0 {
		t.Errorf("3 keep-alive clients, at most 2 connections: lane side answered %d (%d lane answers), net/http %d",
			got, h.Stats().Lane.Responses, want)
	}
}

// TestReviewStaleWriteDeadlineAfterSendfile: a lane answer from disk goes
// by zeroCopyOwned, whose writes renew the connection's write deadline to
// SendTimeout ahead, chunk by chunk; nothing clears it afterwards. With no
// WriteTimeout (the example's server, net/http's default) the next answer
// on the connection, on the lane or by net/http after a hand-over, is
// written under that old deadline: once the client has paused longer than
// SendTimeout (60 s by default; 300 ms here), the write fails and the
// connection ends without a response. net/http + jaws clears the deadline
// when its zero-copy path hands the connection back.
func TestReviewStaleWriteDeadlineAfterSendfile(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("big.bin", testsite.Random(256<<10, 7)).File("a.txt", []byte("hello")).File("b.txt", []byte("bee"))
	const send = 300 * time.Millisecond
	p := newReviewPair(t, site.Root, jaws.Options{SendTimeout: send, CacheMaxFileSize: 1024}, nil, nil)
	p.teach(t, getRaw("/big.bin", "Connection: close\r\n"))
	p.teach(t, getRaw("/a.txt", "Connection: close\r\n"))
	play := func(lane bool, next string) string {
		s := p.ref
		if lane {
			s = p.lane
		}
		c := dialRawConn(t, s)
		br := bufio.NewReader(c)
		io.WriteString(c, getRaw("/big.bin"))
		if _, body, err := readOne(br, "GET"); err != nil || len(body) != 256<<10 {
			return "big.bin: " + fmtErr(err)
		}
		time.Sleep(2 * send) // the client reads the page, then asks for more
		io.WriteString(c, getRaw(next))
		resp, body, err := readOne(br, "GET")
		if err != nil {
			return "no response: " + err.Error()
		}
		return resp.Status + " " + body
	}
	for _, next := range []string{"/a.txt", "/b.txt"} { // answered on the lane; handed over
		want := play(false, next)
		if got := play(true, next); got != want {
			t.Errorf("%s after a pause longer than SendTimeout: lane side %q, net/http %q", next, got, want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "short"
	}
	return err.Error()
}
