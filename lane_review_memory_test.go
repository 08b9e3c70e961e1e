package jaws_test

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestReviewIdleConnMemory: the lane queues up to 64 KiB of responses per
// connection (maxQueued) before it writes, and keeps the queue's capacity
// for as long as the connection lives (connWriter.flush keeps out[:0]),
// and in laneConns after. net/http buffers 4 KiB per connection. A client
// that pipelines a burst of small requests, reads the answers and then
// keeps its connection idle costs the server about ten times the memory
// net/http's costs: 200 such connections here, live heap measured. Not
// parallel: it measures the heap.
func TestReviewIdleConnMemory(t *testing.T) {
	site := testsite.New(t).File("a.txt", []byte(strings.Repeat("x", 300)))
	p := newReviewPair(t, site.Root, jaws.Options{}, nil, nil)
	p.teach(t, getRaw("/a.txt", "Connection: close\r\n"))
	burst := strings.Repeat(getRaw("/a.txt"), 250)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	measure := func(addr string) uint64 {
		before := heap()
		var conns []net.Conn
		for range 200 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(20 * time.Second))
			conns = append(conns, c)
			io.WriteString(c, burst)
			br := bufio.NewReader(c)
			for range 250 {
				if _, _, err := readOne(br, "GET"); err != nil {
					t.Fatal(err)
				}
			}
		}
		after := heap()
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(300 * time.Millisecond) // the servers see the closes
		if after < before {
			return 0
		}
		return after - before
	}
	refBytes := measure(p.ref.Listener.Addr().String())
	laneBytes := measure(p.lane.Listener.Addr().String())
	t.Logf("200 idle connections after a burst: lane side %d KiB, net/http %d KiB", laneBytes>>10, refBytes>>10)
	// net/http holds about 10 KiB per connection here. The bound is an
	// absolute one: heap freed by earlier tests' cleanups while the
	// reference is measured can make that figure small. A queue kept at
	// 64 KiB per connection would be four times the bound.
	if perConn := laneBytes / 200; perConn > 24<<10 {
		t.Errorf("the lane side holds %d KiB for 200 idle connections (%d bytes each), net/http %d KiB", laneBytes>>10, perConn, refBytes>>10)
	}
}
