package jaws

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/conversation"
)

type step = conversation.Step

// handbackCase is one conversation played against http.FileServer and
// against jaws forced onto the zero-copy path, on servers set up alike.
type handbackCase struct {
	name     string
	size     int                             // of /f.bin; 0 means 100 KiB
	tight    bool                            // small socket buffers on both servers (tightListener), so a large body stays in flight
	config   func(*http.Server)              // server settings, both sides
	wrap     func(http.Handler) http.Handler // handlers before the file server, both sides
	steps    func(s side) []step             // the conversation
	zeroCopy uint64                          // zero-copy responses jaws must send: the path under test ran
	expect   string                          // an event both records must hold: what the case is about happened
	// laneSkip says why the case cannot be played on the fast lane: its
	// handlers in front answer per request, which a lane prefix promises
	// they do not.
	laneSkip string
}

const f = "/f.bin"

// req is a GET of /f.bin with extra header lines.
func req(extra ...string) string { return get11(f, extra...) }

// side is one of the two servers a conversation is played against.
type side struct {
	srv  *http.Server
	conn *atomic.Pointer[net.Conn] // the server's end of the connection, once accepted
}

// shutdownStep shuts srv down as a step, and says whether that was quick,
// as with net/http's idle connections, or waited for something.
func shutdownStep(srv *http.Server) func() string {
	return func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		start := time.Now()
		if err := srv.Shutdown(ctx); err != nil {
			return "shutdown: " + err.Error()
		}
		if d := time.Since(start); d > time.Second {
			return "shutdown slow"
		}
		return "shutdown quick"
	}
}

// halfRequest is the start of a request whose header never ends.
const halfRequest = "GET /x HTTP/1.1\r\nHo"

// keepAlivesOff turns srv's keep-alives off, as a step.
func keepAlivesOff(srv *http.Server) func() string {
	return func() string { srv.SetKeepAlivesEnabled(false); return "" }
}

// serverRead waits, as a step, until the server has read the first n
// bytes the client sent on the connection (on jaws's side, net/http reads
// them once the connection is handed back). Then a close that follows is a
// FIN on both sides, never the reset of a socket closed with bytes unread,
// and jaws holds the connection in the state the next step is about: back
// with net/http, its next request's header arriving.
func (s side) serverRead(n int) func() string {
	return func() string {
		for end := time.Now().Add(readLimit); ; {
			if c := s.conn.Load(); c != nil {
				if got, ok := consumed(*c); !ok || got >= int64(n) {
					return ""
				}
			}
			if time.Now().After(end) {
				return "the server never read " + strconv.Itoa(n) + " bytes"
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// readLimit bounds a conversation's waits for a state.
const readLimit = 10 * time.Second

// signals are what a conversation waits for instead of pausing: a
// handler that has started, a server's Shutdown that has begun.
type signals struct {
	running  chan struct{} // sent by a handler once it runs
	shutdown chan struct{} // closed when the server's Shutdown begins
}

var serverSignals sync.Map // *http.Server -> *signals

// signalsOf returns srv's signals; the first call, before the
// conversation starts, registers the shutdown hook.
func signalsOf(srv *http.Server) *signals {
	v, loaded := serverSignals.LoadOrStore(srv, &signals{running: make(chan struct{}, 1), shutdown: make(chan struct{})})
	sg := v.(*signals)
	if !loaded {
		srv.RegisterOnShutdown(func() { close(sg.shutdown) })
	}
	return sg
}

// whileRunning is do as a step, once a handler runs.
func (sg *signals) whileRunning(do func() string) func() string {
	return func() string {
		select {
		case <-sg.running:
			return do()
		case <-time.After(readLimit):
			return "the handler never ran"
		}
	}
}

// pipelinedClose: a request asking to close, another behind it; net/http
// answers the first and closes.
func pipelinedClose(first string) func(side) []step {
	return func(side) []step {
		return []step{{Send: first + req(), Read: 2, Closed: closeWithin}}
	}
}

// pipelinedKeep: two requests pipelined, both answered, the connection open.
func pipelinedKeep(first string) func(side) []step {
	return func(side) []step {
		return []step{{Send: first + first, Read: 2, Open: 200 * time.Millisecond}}
	}
}

func setHeader(k, v string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(k, v)
			next.ServeHTTP(w, r)
		})
	}
}

type connTypeKey struct{}

// closeWithin bounds how long a conversation waits for a close that both
// servers make after a timeout of at most 300 ms or at once. It is loose
// because the suite runs in parallel under -race on two cores; a close that
// net/http makes and jaws does not still shows, and the 5 s that net/http
// leaves a StateNew connection alone on Shutdown stays outside it.
const closeWithin = 3 * time.Second

var handbackCases = []handbackCase{
	// 0. Framing: a GET body that reads as a request is a body, never
	// replayed as a request after a hand-back.
	{name: "0/GET with a request as its body", zeroCopy: 1,
		steps: func(side) []step {
			inner := req()
			return []step{{Send: req("Content-Length: "+strconv.Itoa(len(inner))+"\r\n") + inner + req(), Read: 2, Open: 200 * time.Millisecond}}
		}},

	// 1. Close decisions.
	{name: "1/Connection: keep-alive close", zeroCopy: 1,
		steps: pipelinedClose(req("Connection: keep-alive close\r\n"))},
	{name: "1/Connection: foo, close", zeroCopy: 1,
		steps: pipelinedClose(req("Connection: foo, close\r\n"))},
	{name: "1/Connection: keep-alive<TAB>close", zeroCopy: 1,
		steps: pipelinedClose(req("Connection: keep-alive\tclose\r\n"))},
	{name: "1/Connection obs-folded", zeroCopy: 1,
		steps: pipelinedClose(req("Connection: keep-alive\r\n close\r\n"))},
	{name: "1/HTTP/1.0", zeroCopy: 1,
		steps: pipelinedClose("GET " + f + " HTTP/1.0\r\n\r\n")},
	{name: "1/HTTP/1.0 keep-alive", zeroCopy: 2,
		steps: pipelinedKeep("GET " + f + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")},
	{name: "1/HTTP/1.0 keep-alive, close", zeroCopy: 2, // net/http keeps it
		steps: pipelinedKeep("GET " + f + " HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n")},
	{name: "1/handler sets Connection: close", zeroCopy: 1,
		wrap:  setHeader("Connection", "close"),
		steps: pipelinedClose(req())},
	{name: "1/handler sets Connection: foo, close", zeroCopy: 2, // net/http keeps it
		wrap:  setHeader("Connection", "foo, close"),
		steps: pipelinedKeep(req())},
	{name: "1/keep-alives disabled", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Do: keepAlivesOff(s.srv), Send: req() + req(), Read: 2, Closed: closeWithin}}
		}},
	{name: "1/keep-alives disabled while idle", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Send: req(), Read: 1}, {Do: keepAlivesOff(s.srv), Closed: closeWithin}}
		}},
	{name: "1/keep-alives disabled with half a request", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Send: req(), Read: 1}, {Send: halfRequest},
				{Do: s.serverRead(len(req() + halfRequest))}, {Do: keepAlivesOff(s.srv), Closed: closeWithin}}
		}},

	// 2. Timeouts between and within requests.
	{name: "2/ReadHeaderTimeout shorter than IdleTimeout", zeroCopy: 1,
		config: func(s *http.Server) { s.ReadHeaderTimeout, s.IdleTimeout = 200*time.Millisecond, 800*time.Millisecond },
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1, Open: 500 * time.Millisecond, Closed: closeWithin}}
		}},
	{name: "2/ReadTimeout shorter than IdleTimeout", zeroCopy: 1,
		config: func(s *http.Server) { s.ReadTimeout, s.IdleTimeout = 200*time.Millisecond, 800*time.Millisecond },
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1, Open: 500 * time.Millisecond, Closed: closeWithin}}
		}},
	{name: "2/request after a pause longer than ReadHeaderTimeout", zeroCopy: 2,
		config: func(s *http.Server) { s.ReadHeaderTimeout, s.IdleTimeout = 200*time.Millisecond, 2*time.Second },
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1}, {Pause: 400 * time.Millisecond, Send: req(), Read: 1, Open: 100 * time.Millisecond}}
		}},
	{name: "2/ReadHeaderTimeout from the start of the request", zeroCopy: 1,
		config: func(s *http.Server) { s.ReadHeaderTimeout, s.IdleTimeout = 300*time.Millisecond, 2*time.Second },
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1},
				{Pause: 100 * time.Millisecond, Send: "GET " + f + " HTTP/1.1\r\n", Open: 150 * time.Millisecond, Closed: closeWithin}}
		}},
	{name: "2/IdleTimeout alone", zeroCopy: 1,
		config: func(s *http.Server) { s.IdleTimeout = 300 * time.Millisecond },
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1, Closed: closeWithin}}
		}},

	// 3. WriteTimeout over the whole response.
	// The body is far more than the reader takes in WriteTimeout (about
	// 1.3 MiB) and the servers' socket buffers hold (tight): it is cut.
	{name: "3/WriteTimeout cuts a slow reader", zeroCopy: 1, size: 8 << 20, tight: true, expect: "body: cut",
		config: func(s *http.Server) { s.WriteTimeout = 300 * time.Millisecond },
		steps: func(side) []step {
			return []step{{Send: req(), SlowBody: 5 * time.Second}}
		}},

	// 4. Shutdown and idle connections.
	{name: "4/Shutdown with half a request pipelined", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Send: req() + halfRequest, Read: 1},
				{Do: shutdownStep(s.srv), Closed: closeWithin}}
		}},
	{name: "4/Shutdown with half a request sent after the response", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Send: req(), Read: 1}, {Send: halfRequest},
				{Do: s.serverRead(len(req() + halfRequest))}, {Do: shutdownStep(s.srv), Closed: closeWithin}}
		}},
	{name: "4/Shutdown while a request whose header came in pieces runs", zeroCopy: 2,
		laneSkip: "its handler in front acts on one request's header",
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Slow") != "" {
					sg := signalsOf(r.Context().Value(http.ServerContextKey).(*http.Server))
					sg.running <- struct{}{}
					<-sg.shutdown // the handler runs on into Shutdown
				}
				next.ServeHTTP(w, r)
			})
		},
		steps: func(s side) []step {
			sg := signalsOf(s.srv)
			piece := "GET " + f + " HTTP/1.1\r\nX-Sl"
			return []step{{Send: req(), Read: 1},
				{Send: piece},
				{Do: s.serverRead(len(req() + piece)), Send: "ow: 1\r\nHost: x\r\n\r\n"},
				{Do: sg.whileRunning(shutdownStep(s.srv)), Read: 1, Closed: closeWithin}}
		}},
	{name: "4/Shutdown while idle", zeroCopy: 1,
		steps: func(s side) []step {
			return []step{{Send: req(), Read: 1}, {Do: shutdownStep(s.srv), Closed: closeWithin}}
		}},
	{name: "4/IdleTimeout with 2 bytes pipelined", zeroCopy: 1,
		config: func(s *http.Server) { s.IdleTimeout = 300 * time.Millisecond },
		steps: func(side) []step {
			return []step{{Send: req() + "GE", Read: 1, Closed: closeWithin}}
		}},

	// 5. What net/http and the server's hooks see.
	{name: "5/431 half-closes the connection", zeroCopy: 1,
		config: func(s *http.Server) { s.MaxHeaderBytes = 1024 },
		steps: func(side) []step {
			big := "GET /x HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n"
			return []step{{Send: req() + big, Read: 2, Closed: 250 * time.Millisecond}}
		}},
	{name: "5/ConnContext sees the TCP connection", zeroCopy: 3,
		config: func(s *http.Server) {
			s.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
				return context.WithValue(ctx, connTypeKey{}, reflect.TypeOf(c).String())
			}
		},
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				typ, _ := r.Context().Value(connTypeKey{}).(string)
				w.Header().Set("X-Conn", typ)
				next.ServeHTTP(w, r)
			})
		},
		steps: func(side) []step {
			return []step{{Send: req(), Read: 1}, {Send: req(), Read: 1}, {Send: req(), Read: 1}}
		}},
	// The documented difference: a pipelined request is held to
	// MaxHeaderBytes+4096 like a first request; within that, both agree.
	{name: "5/pipelined header within the limit of a first request", zeroCopy: 1,
		config: func(s *http.Server) { s.MaxHeaderBytes = 1024 },
		steps: func(side) []step {
			big := "GET /x HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 4900) + "\r\n\r\n"
			return []step{{Send: req() + big, Read: 2, Open: 100 * time.Millisecond}}
		}},

	// 6. Protocols: an HTTP/2 preface is a request like any other after
	// the first one on a connection.
	{name: "6/HTTP/2 preface after a response", zeroCopy: 0,
		config: func(s *http.Server) {
			s.Protocols = new(http.Protocols)
			s.Protocols.SetHTTP1(true)
			s.Protocols.SetUnencryptedHTTP2(true)
		},
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "PRI" {
					http.Error(w, "no upgrade here", http.StatusBadRequest)
					return
				}
				next.ServeHTTP(w, r)
			})
		},
		steps: func(side) []step {
			return []step{{Send: req() + "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Read: 2, Closed: closeWithin}}
		}},

	// 7. A header written before jaws runs.
	{name: "7/header already written", zeroCopy: 0,
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				next.ServeHTTP(w, r)
			})
		},
		steps: pipelinedKeep(req())},
}

// TestHandbackLikeNetHTTP plays each conversation against http.FileServer
// and against jaws on the zero-copy path, with the same server settings and
// the same handlers in front, and wants the same record: responses, the
// headers that decide framing and the connection, bodies, and who closes
// the connection when. The conversations mostly wait, for timeouts and
// through the windows in which a connection must stay open or close, so
// all of them are played at once, and each case's subtest then checks its
// record: the test takes as long as its longest conversation, not each
// conversation a slot of -parallel.
func TestHandbackLikeNetHTTP(t *testing.T) {
	t.Parallel()
	playHandbackCases(t, false)
}

// TestFastLaneLikeNetHTTP plays the same conversations with jaws's server
// reading through its fast lane (FastLane), the file learnt beforehand, so
// that the lane answers them where it can: it must keep net/http's
// connection rules as the hand-back does.
func TestFastLaneLikeNetHTTP(t *testing.T) {
	t.Parallel()
	if !lanePeeks {
		t.Skip("no fast lane on " + runtime.GOOS)
	}
	playHandbackCases(t, true)
}

func playHandbackCases(t *testing.T, lane bool) {
	quiet := log.New(io.Discard, "", 0)
	type play struct {
		h         *Handler
		want, got []string
		done      chan struct{}
	}
	plays := make([]*play, len(handbackCases))
	for i, tc := range handbackCases {
		if lane && tc.laneSkip != "" {
			continue
		}
		dir := t.TempDir()
		size := tc.size
		if size == 0 {
			size = 100 << 10
		}
		must(t, os.WriteFile(filepath.Join(dir, "f.bin"), randomBytes(size), 0o644))
		h := newTestHandler(t, dir, Options{Transfer: TransferZeroCopy, CacheMaxFileSize: 1024})
		start := func(handler http.Handler, h *Handler) (string, side) {
			if tc.wrap != nil {
				handler = tc.wrap(handler)
			}
			srv := httptest.NewUnstartedServer(handler)
			if tc.tight {
				srv.Listener = tightListener{srv.Listener}
			}
			srv.Config.ErrorLog = quiet
			if tc.config != nil {
				tc.config(srv.Config)
			}
			if h != nil {
				srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
			}
			s := side{srv: srv.Config, conn: new(atomic.Pointer[net.Conn])}
			hook := srv.Config.ConnState
			srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
				if st == http.StateNew {
					s.conn.CompareAndSwap(nil, &c) // jaws's hand-backs are the same socket
				}
				if hook != nil {
					hook(c, st)
				}
			}
			srv.Start()
			t.Cleanup(func() {
				srv.Close()
				serverSignals.Delete(srv.Config)
			})
			addr := srv.Listener.Addr().String()
			if h != nil {
				// The lane answers a name once jaws has answered it
				// through the server.
				conversation.Run(addr, []step{{Send: req("Connection: close\r\n"), Read: 1}})
				s.conn.Store(nil) // the conversation's connection is the next one
			}
			return addr, s
		}
		refAddr, ref := start(http.FileServer(http.Dir(dir)), nil)
		var laned *Handler
		if lane {
			laned = h
		}
		zcAddr, zc := start(h, laned)
		p := &play{h: h, done: make(chan struct{})}
		go func() {
			defer close(p.done)
			var wg sync.WaitGroup
			wg.Go(func() { p.want = conversation.Run(refAddr, tc.steps(ref)) })
			wg.Go(func() { p.got = conversation.Run(zcAddr, tc.steps(zc)) })
			wg.Wait()
		}()
		plays[i] = p
	}
	for i, tc := range handbackCases {
		p := plays[i]
		t.Run(tc.name, func(t *testing.T) {
			if p == nil {
				t.Skip(tc.laneSkip)
			}
			<-p.done
			if !slices.Equal(p.got, p.want) {
				t.Errorf("jaws:\n\t%s\nnet/http:\n\t%s", strings.Join(p.got, "\n\t"), strings.Join(p.want, "\n\t"))
			}
			if tc.expect != "" && !slices.Contains(p.want, tc.expect) {
				t.Errorf("net/http's record lacks %q: the case did not happen:\n\t%s", tc.expect, strings.Join(p.want, "\n\t"))
			}
			waitTransfers(t, p.h, 10*time.Second)
			st := p.h.Stats()
			if lane {
				t.Logf("lane %d, zero-copy %d", st.Lane.Responses, st.ZeroCopy.Responses)
				return
			}
			if n := st.ZeroCopy.Responses; n != tc.zeroCopy {
				t.Errorf("%d zero-copy responses, want %d", n, tc.zeroCopy)
			}
		})
	}
}

// handbackSite serves one root twice: through net/http's own writes (the
// fallback) and on the zero-copy path wherever it applies.
type handbackSite struct {
	ref, zc *httptest.Server
}

func newHandbackSite(tb testing.TB) *handbackSite {
	root := fuzzRoot(tb)
	opts := Options{CacheMaxFileSize: 1024, ZeroCopyMinSize: 4096, SendTimeout: time.Second}
	opts.Transfer = TransferFallback
	s := &handbackSite{ref: fuzzServer(tb, root, opts, false)}
	opts.Transfer = TransferZeroCopy
	s.zc = fuzzServer(tb, root, opts, false)
	return s
}

// fuzzRoot writes the tree the fuzzers of the hand-back and of the fast lane
// serve: files on each path, an index page, a hidden file.
func fuzzRoot(tb testing.TB) string {
	root := tempDir(tb)
	must(tb, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	for name, n := range map[string]int{"small.txt": 100, "mid.bin": 3000, "big.bin": 70001, "sub/index.html": 57, ".env": 10} {
		must(tb, os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), randomBytes(n), 0o644))
	}
	return root
}

// fuzzServer serves root with jaws under opts, through its fast lane if
// lane, with both logs quiet; closed when tb ends.
func fuzzServer(tb testing.TB, root string, opts Options, lane bool) *httptest.Server {
	quiet := log.New(io.Discard, "", 0)
	opts.ErrorLog = quiet
	h, err := New(root, opts)
	must(tb, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = quiet
	if lane {
		srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
	}
	srv.Start()
	tb.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return srv
}

// FuzzHandback plays raw request bytes after a request answered zero-copy,
// pipelined behind it or sent once its response is read, and wants what
// net/http decides on a connection it kept: the same responses, Connection
// headers, bodies, and the same end of the connection, as when the whole
// conversation rides net/http.
func FuzzHandback(f *testing.F) {
	s := newHandbackSite(f)
	for _, seed := range []string{
		"GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: keep-alive close\r\n\r\nGET /mid.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n close\r\n\r\nGET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\nGET /big.bin HTTP/1.0\r\n\r\nGET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-10,-20\r\n\r\nHEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"POST /big.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello\r\nGET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /big.bin HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
		"GET /x HTTP/1.1\r\nHo",
		"GE",
		"\r\n\r\n",
		"GET /sub HTTP/1.1\r\nHost: x\r\n\r\nGET /.env HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	const first = "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n"
	f.Fuzz(func(t *testing.T, raw []byte, split bool) {
		steps := []step{{Send: first + string(raw), HalfClose: true, Drain: 2 * time.Second}}
		if split {
			steps = []step{{Send: first, Read: 1}, {Send: string(raw), HalfClose: true, Drain: 2 * time.Second}}
		}
		var want, got []string
		var wg sync.WaitGroup
		wg.Go(func() { want = conversation.Run(s.ref.Listener.Addr().String(), steps) })
		wg.Go(func() { got = conversation.Run(s.zc.Listener.Addr().String(), steps) })
		wg.Wait()
		if !slices.Equal(got, want) {
			t.Fatalf("after %q (split %v)\njaws zero-copy:\n\t%s\nnet/http:\n\t%s", raw, split,
				strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	})
}

// TestServerStateDropped: jaws's state of a server goes when the server
// does, so a process that starts and drops servers keeps none of them.
func TestServerStateDropped(t *testing.T) {
	_, h, _ := zcSite(t, Options{}, 1<<20)
	for range 20 {
		srv := httptest.NewServer(h)
		c := dialRaw(t, srv)
		c.send(t, get11("/1048576.bin"))
		c.read(t, "GET")
		c.Close()
		srv.Close()
	}
	if n := h.serverCount(); n == 0 {
		t.Fatal("no server state kept while serving")
	}
	for end := time.Now().Add(10 * time.Second); h.serverCount() > 0 && time.Now().Before(end); {
		runtime.GC()
		runtime.Gosched() // cleanups run on their own goroutine
	}
	if n := h.serverCount(); n != 0 {
		t.Errorf("state of %d dropped servers still kept", n)
	}
}

// TestShutdownCloses: Shutdown releases what Close does, and Close after
// it is harmless.
func TestShutdownCloses(t *testing.T) {
	t.Parallel()
	_, h, _ := zcSite(t, Options{}, 10)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := get(h, "/10.bin"); w.Code != 503 {
		t.Errorf("after Shutdown: %d, want 503", w.Code)
	}
	if err := h.Close(); err != nil {
		t.Errorf("Close after Shutdown: %v", err)
	}
}

// TestCorkAccounting: while a connection that took a zero-copy response
// waits for its next request, the response's bytes count as queued; they
// stop counting when the request comes or the connection goes, and past
// corkLimit headers are no longer corked.
func TestCorkAccounting(t *testing.T) {
	_, h, _ := zcSite(t, Options{}, 1<<20)
	srv := httptest.NewServer(h)
	defer srv.Close()
	waitQueued := func(want int64) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); h.tx.queued.Load() != want; {
			if time.Now().After(end) {
				t.Fatalf("queued %d, want %d", h.tx.queued.Load(), want)
			}
			runtime.Gosched()
		}
	}
	c := dialRaw(t, srv)
	for range 2 {
		c.send(t, get11("/1048576.bin"))
		c.read(t, "GET")
		waitQueued(1 << 20)
	}
	c.Close()
	waitQueued(0)
	if !h.tx.cork() {
		t.Error("not corking with nothing queued")
	}
	h.tx.queued.Add(corkLimit)
	if h.tx.cork() {
		t.Error("corking past corkLimit")
	}
	h.tx.queued.Add(-corkLimit)
}
