package jaws

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/conversation"
)

// callerListener records which http.Server call closed it (serverCall).
type callerListener struct {
	net.Listener
	mu    sync.Mutex
	calls []string
}

func (l *callerListener) Close() error {
	l.mu.Lock()
	l.calls = append(l.calls, serverCall())
	l.mu.Unlock()
	return l.Listener.Close()
}

// TestFastLaneServerCall: the lane tells http.Server's Close from its
// Shutdown by the stack of the goroutine that closes its listener; should a
// Go release rename them, this fails.
func TestFastLaneServerCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want string
		end  func(*http.Server)
	}{
		{"Close", func(s *http.Server) { s.Close() }},
		{"Shutdown", func(s *http.Server) { s.Shutdown(context.Background()) }},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		cl := &callerListener{Listener: ln}
		accepted := make(chan struct{}, 1)
		srv := &http.Server{Handler: http.NotFoundHandler(), ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				accepted <- struct{}{}
			}
		}}
		served := make(chan struct{})
		go func() { srv.Serve(cl); close(served) }()
		// Serve tracks the listener before its first Accept: wait for one.
		c, err := net.Dial("tcp", ln.Addr().String())
		must(t, err)
		<-accepted
		c.Close()
		tc.end(srv)
		<-served
		cl.mu.Lock()
		if len(cl.calls) == 0 || cl.calls[0] != tc.want {
			t.Errorf("%s: serverCall saw %q", tc.want, cl.calls)
		}
		cl.mu.Unlock()
	}
}

// laneFuzzSite serves one root twice with jaws: through net/http alone,
// and through the fast lane, with every name learnt.
type laneFuzzSite struct {
	ref, lane *httptest.Server
}

// both plays steps on the lane and on net/http at once, and returns what
// each conversation recorded.
func (s *laneFuzzSite) both(steps []step) (lane, ref []string) {
	var wg sync.WaitGroup
	wg.Go(func() { ref = conversation.Run(s.ref.Listener.Addr().String(), steps) })
	wg.Go(func() { lane = conversation.Run(s.lane.Listener.Addr().String(), steps) })
	wg.Wait()
	return lane, ref
}

func newLaneFuzzSite(tb testing.TB) *laneFuzzSite {
	root := fuzzRoot(tb)
	opts := Options{CacheMaxFileSize: 1024, ZeroCopyMinSize: 4096, SendTimeout: time.Second}
	s := &laneFuzzSite{ref: fuzzServer(tb, root, opts, false), lane: fuzzServer(tb, root, opts, true)}
	for _, target := range []string{"/small.txt", "/mid.bin", "/big.bin", "/sub/"} {
		conversation.Run(s.lane.Listener.Addr().String(), []step{{Send: "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", Read: 1}})
	}
	return s
}

// FuzzFastLane plays raw request bytes against jaws behind net/http alone
// and behind its fast lane, with every name learnt, alone or behind a
// request the lane answers, and wants the same record: what the lane
// answers is what net/http and jaws answer, what it hands over reaches
// net/http intact, and the connection ends the same way. It is the
// smuggling test of the lane: any stream the two read differently shows.
func FuzzFastLane(f *testing.F) {
	if !lanePeeks {
		f.Skip("no fast lane here")
	}
	s := newLaneFuzzSite(f)
	for _, seed := range []string{
		"GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 36\r\n\r\nGET /mid.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nX: y\r\n Content-Length: 5\r\n\r\nhello",
		"GET /small.txt HTTP/1.1\nHost: x\nContent-Length: 4\n\nGET /",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /mid.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-10,-20\r\n\r\nHEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET /sub HTTP/1.1\r\nHost: x\r\n\r\nGET /.env HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
		"GET /x HTTP/1.1\r\nHo",
		"\r\n\r\n",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	const first = "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n"
	f.Fuzz(func(t *testing.T, raw []byte, behind bool) {
		steps := []step{{Send: string(raw), HalfClose: true, Drain: 2 * time.Second}}
		if behind {
			steps = []step{{Send: first, Read: 1}, {Send: string(raw), HalfClose: true, Drain: 2 * time.Second}}
		}
		got, want := s.both(steps)
		if !slices.Equal(got, want) {
			t.Fatalf("%q (behind a lane answer: %v)\nlane:\n\t%s\nnet/http:\n\t%s", raw, behind,
				strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	})
}
