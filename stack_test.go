package jaws

import (
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"testing"
	"unsafe"
)

// writeStackBudget is the most stack a response whose body jaws writes
// whole (from memory, or from disk through the fallback, by sendfile) may use beyond
// what a handler writing the same bytes the same way uses, from the
// handler's entry to the socket write of the response. The collector
// halves the stack of a goroutine that uses under a quarter of it, as every
// idle keep-alive connection's does, so on a server with many connections
// each request that outgrows the halved stack copies its whole stack
// first. net/http alone takes most of 8 KiB there (its header writer's
// frame is nearly 3), and an application's middleware sits on top of
// jaws's frames, so jaws writes such a body from its top frame
// (mover.finish): on go1.26 144 bytes more than a plain handler from memory
// (336 recording responses) and 368 from disk, where writing it three calls
// down took 1,104, 1,152 and 1,112 (bench/README.md, "Stack depth").
const writeStackBudget = 512

// stackMark returns an address in the frame of a call made from where it
// is called: the depth of the stack there, to compare with another mark of
// the same goroutine.
//
//go:noinline
func stackMark() uintptr {
	var x byte
	return uintptr(unsafe.Pointer(&x))
}

// markConn records, at the first write after armed is set, how far the
// stack has grown since armed's mark.
type markConn struct {
	net.Conn
	armed, depth *atomic.Uintptr
}

func (c markConn) Write(p []byte) (int, error) {
	if top := c.armed.Swap(0); top != 0 {
		c.depth.Store(top - stackMark())
	}
	return c.Conn.Write(p)
}

// ReadFrom keeps net/http's sendfile path (response.ReadFrom takes it only
// from a connection that is an io.ReaderFrom). The header, flushed before
// it, is the write marked.
func (c markConn) ReadFrom(r io.Reader) (int64, error) {
	return c.Conn.(io.ReaderFrom).ReadFrom(r)
}

type markListener struct {
	net.Listener
	armed, depth *atomic.Uintptr
}

func (l markListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return markConn{c, l.armed, l.depth}, nil
}

// writeDepth is the stack that serving path through h takes, from the
// server's call of the handler to the socket write of the response, on the
// third request of one keep-alive connection: by then its goroutine's
// stack has grown to what a request needs, and with the collector off
// nothing shrinks or moves it between the two marks.
func writeDepth(t *testing.T, h http.Handler, path string) uintptr {
	t.Helper()
	var armed, depth atomic.Uintptr
	marked := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		armed.Store(stackMark())
		h.ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(marked)
	srv.Listener = markListener{srv.Listener, &armed, &depth}
	srv.Start()
	defer srv.Close()
	c := dialRaw(t, srv)
	for range 3 {
		c.send(t, get11(path))
		if resp, _ := c.read(t, "GET"); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
	}
	d := depth.Load()
	if d == 0 || d > 1<<20 {
		t.Fatalf("GET %s: no depth measured (%d)", path, d)
	}
	return d
}

// TestWriteStackDepth: a body jaws writes whole adds at most
// writeStackBudget bytes of stack to what net/http's own write of the same
// response takes.
func TestWriteStackDepth(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("instrumented code has frames of other sizes")
	}
	// Nothing may move the stack between the two marks: no collection,
	// whatever GOGC and GOMEMLIMIT say.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	fromMemory := func(w http.ResponseWriter, _ string, body []byte) { w.Write(body) }
	for _, tt := range []struct {
		name string
		size int // over net/http's 2 KiB response buffer and its connection's 4 KiB: the header goes out inside the handler's call
		opts Options
		path func(Stats) PathStats
		// plain writes the file's bytes as jaws's path does: one Write
		// from memory; io.CopyN from the *os.File, to net/http's ReadFrom
		// and its sendfile.
		plain func(w http.ResponseWriter, file string, body []byte)
	}{
		{"memory", 8000, Options{}, func(s Stats) PathStats { return s.Memory }, fromMemory},
		{"memory, recorded", 8000, Options{OnResponse: func(ResponseRecord) {}}, func(s Stats) PathStats { return s.Memory }, fromMemory},
		{"fallback", 100 << 10, Options{}, func(s Stats) PathStats { return s.Fallback }, func(w http.ResponseWriter, file string, body []byte) {
			f, err := os.Open(file)
			if err != nil {
				panic(err)
			}
			defer f.Close()
			io.CopyN(w, f, int64(len(body)))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tempDir(t)
			h := newTestHandler(t, dir, tt.opts)
			name := "f.bin"
			file := filepath.Join(dir, name)
			body := randomBytes(tt.size)
			must(t, os.WriteFile(file, body, 0o644))
			plain := writeDepth(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hdr := w.Header()
				hdr["Content-Type"] = []string{"application/octet-stream"}
				hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
				w.WriteHeader(http.StatusOK)
				tt.plain(w, file, body)
			}), "/"+name)
			before := tt.path(h.Stats()).Responses
			served := writeDepth(t, h, "/"+name)
			if n := tt.path(h.Stats()).Responses - before; n != 3 {
				t.Fatalf("%d of 3 responses by the %s path: %+v", n, tt.name, h.Stats())
			}
			extra := int(served) - int(plain)
			t.Logf("stack to the socket write: %d bytes through jaws, %d by a plain handler: %d more", served, plain, extra)
			if extra > writeStackBudget {
				t.Errorf("jaws takes %d bytes of stack more than a plain handler's write, over the budget of %d", extra, writeStackBudget)
			}
		})
	}
}
