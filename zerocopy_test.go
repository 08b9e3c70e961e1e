package jaws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestZeroCopyBodies: byte-exact bodies around every threshold, for whole
// files and ranges at the ends, each on the path its size calls for.
func TestZeroCopyBodies(t *testing.T) {
	t.Parallel()
	_, h, files := zcSite(t, Options{}, 0, 1, 1023, 1024, 1025, 4095, 4096, 4097, 1<<20+3)
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := dialRaw(t, srv) // one keep-alive connection for all
	wantZC := uint64(0)
	for _, n := range []int{0, 1, 1023, 1024, 1025, 4095, 4096, 4097, 1<<20 + 3} {
		name := fmt.Sprintf("%d.bin", n)
		data := files[name]
		type rng struct{ hdr, want string }
		cases := []rng{{"", ""}}
		if n > 0 {
			cases = append(cases, rng{"bytes=0-0", "0-0"}, rng{"bytes=-1", fmt.Sprint(n-1, "-", n-1)},
				rng{fmt.Sprint("bytes=", n-1, "-"), fmt.Sprint(n-1, "-", n-1)})
		}
		if n > 1000 {
			cases = append(cases, rng{fmt.Sprint("bytes=0-99,", n-100, "-"), "multipart"})
		}
		for _, rc := range cases {
			extra := ""
			if rc.hdr != "" {
				extra = "Range: " + rc.hdr + "\r\n"
			}
			c.send(t, get11("/"+name, extra))
			resp, body := c.read(t, "GET")
			var want []byte
			switch {
			case rc.hdr == "":
				want = data
				if resp.StatusCode != 200 {
					t.Fatalf("%s: %d", name, resp.StatusCode)
				}
			case rc.want == "multipart":
				checkMultipart(t, resp, body, data, []span{{0, 100}, {int64(n - 100), 100}})
				want = body
			default:
				var a, b int
				fmt.Sscanf(rc.want, "%d-%d", &a, &b)
				want = data[a : b+1]
				if resp.StatusCode != 206 || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes %d-%d/%d", a, b, n) {
					t.Fatalf("%s %s: %d %q", name, rc.hdr, resp.StatusCode, resp.Header.Get("Content-Range"))
				}
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("%s %q: body of %d bytes differs from the %d expected", name, rc.hdr, len(body), len(want))
			}
			if n > 1024 && len(body) >= 4096 {
				wantZC++
			}
		}
	}
	// A last response on the connection: every earlier one is counted.
	c.send(t, get11("/1.bin"))
	c.read(t, "GET")
	if s := h.Stats(); s.ZeroCopy.Responses != wantZC {
		t.Errorf("%d zero-copy responses, want %d", s.ZeroCopy.Responses, wantZC)
	}
}

// TestZeroCopyKeepAlive: several zero-copy responses, pipelined requests
// among them, on one connection that the server keeps serving.
func TestZeroCopyKeepAlive(t *testing.T) {
	t.Parallel()
	_, h, files := zcSite(t, Options{}, 100, 70000)
	srv := httptest.NewUnstartedServer(h)
	states := make(chan http.ConnState, 100)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) { states <- s }
	srv.Start()
	defer srv.Close()
	c := dialRaw(t, srv)
	for i := range 3 {
		c.send(t, get11("/70000.bin"))
		if _, body := c.read(t, "GET"); !bytes.Equal(body, files["70000.bin"]) {
			t.Fatalf("response %d differs", i)
		}
	}
	// Pipelined: all three requests in one write, before any response.
	c.send(t, get11("/70000.bin"), get11("/100.bin"), get11("/70000.bin", "Range: bytes=5-9\r\n"))
	for i, want := range [][]byte{files["70000.bin"], files["100.bin"], files["70000.bin"][5:10]} {
		if _, body := c.read(t, "GET"); !bytes.Equal(body, want) {
			t.Fatalf("pipelined response %d differs", i)
		}
	}
	if s := h.Stats(); s.ZeroCopy.Responses != 4 {
		t.Errorf("%d zero-copy responses, want 4", s.ZeroCopy.Responses)
	}
	hijacked := 0
	for len(states) > 0 {
		if <-states == http.StateHijacked {
			hijacked++
		}
	}
	if hijacked != 4 {
		t.Errorf("ConnState saw %d hijacks, want 4", hijacked)
	}
}

// TestZeroCopyCloses: HTTP/1.0 and "Connection: close" get their body and
// then the end of the connection: by the fallback by default (zero-copy buys
// nothing on a connection that closes), zero-copy when forced. HTTP/1.0 with
// "Connection: keep-alive" stays open, as net/http keeps it, and so goes
// zero-copy either way.
func TestZeroCopyCloses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		transfer Transfer
		wantZC   uint64
	}{{"auto", TransferAuto, 1}, {"forced", TransferZeroCopy, 3}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, h, files := zcSite(t, Options{Transfer: tt.transfer}, 70000)
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, req := range []string{
				"GET /70000.bin HTTP/1.0\r\n\r\n",
				"GET /70000.bin HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
				"GET /70000.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
			} {
				c := dialRaw(t, srv)
				c.send(t, req)
				resp, body := c.read(t, "GET")
				if !bytes.Equal(body, files["70000.bin"]) || !resp.Close && !strings.Contains(req, "keep-alive") {
					t.Errorf("%q: %d bytes, close %v", req, len(body), resp.Close)
				}
				if !resp.Close {
					continue // net/http keeps an HTTP/1.0 keep-alive connection open
				}
				if n, err := c.br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
					t.Errorf("%q: after the body: %d, %v; want EOF", req, n, err)
				}
			}
			// A transfer counts its response after its last byte left, which
			// the client may have read, and gone on to the next connection,
			// before that.
			waitTransfers(t, h, 10*time.Second)
			if s := h.Stats(); s.ZeroCopy.Responses != tt.wantZC {
				t.Errorf("%d zero-copy responses, want %d", s.ZeroCopy.Responses, tt.wantZC)
			}
		})
	}
}

// TestZeroCopyOnlyWhereItApplies: TLS, HTTP/2, HEAD, wrapped writers and
// outer Content-Encoding take the fallback, with correct bodies.
func TestZeroCopyOnlyWhereItApplies(t *testing.T) {
	// Not parallel: the hook is global.
	_, h, files := zcSite(t, Options{}, 70000)
	closing := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		h.ServeHTTP(w, r)
	}
	// What needs no file to decide is decided before the descriptor is
	// chosen: these get one of their own, which net/http can sendfile,
	// never the shared one at explicit offsets.
	var shared atomic.Int64
	testHookSharedFallback = func(got *mover) {
		if got == &h.tx {
			shared.Add(1)
		}
	}
	t.Cleanup(func() { testHookSharedFallback = nil })
	tests := []struct {
		name    string
		handler http.Handler
		tls, h2 bool
		config  func(*http.Server)
	}{
		{"keep-alives off", h, false, false, func(s *http.Server) { s.SetKeepAlivesEnabled(false) }},
		{"a handler's Connection: close", http.HandlerFunc(closing), false, false, nil},
		{"unencrypted HTTP/2 allowed", h, false, false, func(s *http.Server) {
			s.Protocols = new(http.Protocols)
			s.Protocols.SetHTTP1(true)
			s.Protocols.SetUnencryptedHTTP2(true)
		}},
		{"outer Transfer-Encoding", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Transfer-Encoding", "chunked")
			h.ServeHTTP(w, r)
		}), false, false, nil},
		{"TLS", h, true, false, nil},
		{"HTTP/2", h, true, true, nil},
		{"wrapped writer", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(struct{ http.ResponseWriter }{w}, r)
		}), false, false, nil},
		{"outer Content-Encoding", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "identity")
			h.ServeHTTP(w, r)
		}), false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(tt.handler)
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // net/http's note on the outer Transfer-Encoding
			srv.EnableHTTP2 = tt.h2
			if tt.config != nil {
				tt.config(srv.Config)
			}
			if tt.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			resp, err := srv.Client().Get(srv.URL + "/70000.bin")
			must(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(body, files["70000.bin"]) {
				t.Errorf("body differs")
			}
			if tt.h2 && resp.ProtoMajor != 2 {
				t.Errorf("protocol %s", resp.Proto)
			}
		})
	}
	if s := h.Stats(); s.ZeroCopy.Responses != 0 || s.Fallback.Responses != uint64(len(tests)) {
		t.Errorf("stats %+v: want every response on the fallback", s)
	}
	if n := shared.Load(); n != 0 {
		t.Errorf("%d responses on the fallback from the descriptor chosen for zero-copy", n)
	}
}

// TestZeroCopyStalledReader: a client that stops reading is cut off after
// SendTimeout (its body ends early), and its transfer and descriptor
// reference are released. The connection has small socket buffers
// (startTight, dialTight), so most of the file is unsent when it stalls.
func TestZeroCopyStalledReader(t *testing.T) {
	t.Parallel()
	const size = 2 << 20
	_, h, _ := zcSite(t, Options{SendTimeout: 100 * time.Millisecond}, size)
	srv := startTight(t, h, nil)
	c := dialTight(t, srv)
	c.send(t, get11("/2097152.bin"))
	resp, err := http.ReadResponse(c.br, nil) // the header, then no more reading
	if err != nil {
		t.Fatal(err)
	}
	waitTransfers(t, h, 20*time.Second)
	if !onlyCacheRef(h, "2097152.bin") {
		t.Errorf("shared descriptor still referenced by the ended transfer")
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := io.Copy(io.Discard, resp.Body); err == nil || n >= size {
		t.Errorf("%d bytes of %d, %v: the stalled transfer was not cut off", n, size, err)
	}
}

// TestZeroCopyShutdown: Shutdown waits for transfers, and ends those still
// running when its context ends; Close ends them at once.
func TestZeroCopyShutdown(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"Shutdown", "Close"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			const size = 2 << 20
			_, h, _ := zcSite(t, Options{}, size)
			srv := startTight(t, h, nil) // small socket buffers: most of the file is unsent
			c := dialTight(t, srv)
			c.send(t, get11("/2097152.bin"))
			if _, err := http.ReadResponse(c.br, nil); err != nil { // in flight, stalled
				t.Fatal(err)
			}
			if n := h.tx.transfers.inFlight(); n != 1 {
				t.Fatalf("%d transfers in flight before %s, want the stalled one", n, how)
			}
			if how == "Shutdown" {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Shutdown: %v, want the context's deadline", err)
				}
			} else {
				h.Close()
			}
			if n := h.tx.transfers.inFlight(); n != 0 {
				t.Errorf("%d transfers still in flight after %s", n, how)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := io.Copy(io.Discard, c.br); err != nil {
				t.Errorf("the connection did not end cleanly: %v", err)
			} else if n >= size {
				t.Errorf("the whole body was sent (%d bytes): the transfer was not ended by %s", n, how)
			}
		})
	}
}

// TestZeroCopyClientAbort: a client that goes away mid-transfer leaks no
// descriptor and no goroutine. Not parallel: it counts the process's. The
// connections have small socket buffers (startTight, dialTight), so the
// transfer is mid-file when its client goes.
func TestZeroCopyClientAbort(t *testing.T) {
	// A short SendTimeout bounds a send to a peer that is gone but not yet
	// noticed (Wine's emulated TransmitFile notices late).
	_, h, _ := zcSite(t, Options{SendTimeout: 2 * time.Second}, 2<<20)
	srv := startTight(t, h, nil)
	defer srv.Close()
	warm := dialTight(t, srv) // the shared descriptor is cached before counting
	warm.send(t, get11("/2097152.bin"))
	warm.read(t, "GET")
	warm.Close()
	checkNoLeaks(t) // from here on; polled for, as Wine closes its own descriptors late
	for range 5 {
		c := dialTight(t, srv)
		c.send(t, get11("/2097152.bin"))
		io.ReadFull(c.br, make([]byte, 4096))
		c.Close()
	}
	waitTransfers(t, h, 20*time.Second)
	if !onlyCacheRef(h, "2097152.bin") {
		t.Fatalf("shared descriptor references not released")
	}
}

// readFromConn records whether its ReadFrom was used.
type readFromConn struct {
	net.Conn
	used bool
}

func (c *readFromConn) ReadFrom(r io.Reader) (int64, error) {
	c.used = true
	return io.Copy(io.Discard, r)
}

// TestHandbackConnKeepsReadFrom: net/http finds io.ReaderFrom on a handed-
// back connection, so its own sendfile still works there.
func TestHandbackConnKeepsReadFrom(t *testing.T) {
	t.Parallel()
	inner := &readFromConn{}
	var c net.Conn = &handbackConn{Conn: inner}
	rf, ok := c.(io.ReaderFrom)
	if !ok {
		t.Fatal("handbackConn hides io.ReaderFrom")
	}
	if _, err := rf.ReadFrom(strings.NewReader("x")); err != nil || !inner.used {
		t.Errorf("ReadFrom not passed on: %v, used %v", err, inner.used)
	}
}

// goneListener's connections read as usual but fail every write after the
// first limit bytes, as a client that went away; they expose no socket, so
// the zero-copy path writes through them (writeSegments).
type goneListener struct {
	net.Listener
	limit int
}

func (l goneListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &goneConn{Conn: c, left: l.limit}, nil
}

type goneConn struct {
	net.Conn
	left int
}

func (c *goneConn) Write(p []byte) (int, error) {
	n := min(len(p), c.left)
	c.left -= n
	if n < len(p) {
		c.Conn.Write(p[:n])
		return n, syscall.EPIPE
	}
	return c.Conn.Write(p)
}

// TestZeroCopyStatsClientGone: a client gone during the response header
// counts a response and no body bytes, not a negative number of them.
func TestZeroCopyStatsClientGone(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 20} {
		t.Run(fmt.Sprint("after ", limit, " bytes"), func(t *testing.T) {
			t.Parallel()
			_, h, _ := zcSite(t, Options{}, 70000)
			srv := httptest.NewUnstartedServer(h)
			srv.Listener = goneListener{srv.Listener, limit}
			srv.Start()
			defer srv.Close()
			c := dialRaw(t, srv)
			c.send(t, get11("/70000.bin"))
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			io.Copy(io.Discard, c)
			waitTransfers(t, h, 10*time.Second)
			if s := h.Stats().ZeroCopy; s.Responses != 1 || s.Bytes != 0 {
				t.Errorf("zero-copy stats %+v, want 1 response and 0 bytes", s)
			}
		})
	}
}
