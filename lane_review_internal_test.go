package jaws

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// reviewLaneServer serves root's jaws handler through a fast lane with
// prefix "/"; it returns the server, the handler and the lane.
func reviewLaneServer(t *testing.T, h *Handler, config func(*http.Server)) (*httptest.Server, *lane) {
	t.Helper()
	if !lanePeeks {
		t.Skip("no fast lane here")
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if config != nil {
		config(srv.Config)
	}
	ln := h.FastLane(srv.Listener, srv.Config, "/")
	l, ok := ln.(*lane)
	if !ok {
		t.Fatal("FastLane returned the listener itself")
	}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, l
}

// noteBytes is the bytes of strings a lane's notes hold, and how many
// notes there are.
func noteBytes(l *lane) (total int64, n int) {
	l.notes.mu.RLock()
	defer l.notes.mu.RUnlock()
	for _, note := range l.notes.m {
		n++
		total += int64(len(note.host) + len(note.target) + len(note.path) + len(note.rawPath) + len(note.name))
	}
	return total, n
}

// TestReviewNotesOfTargetsTheLaneCannotRead: the lane reads at most 8 KiB
// of a request (laneBufSize, or MaxHeaderBytes if smaller), but it learns
// from any request net/http reads, up to MaxHeaderBytes (1 MiB by default)
// plus 4 KiB. A client that asks for a public file with a long query (or a
// long Host) leaves a note the lane can never use, holding the target twice
// (target and rawQuery). maxLaneNotes bounds the count, not the bytes:
// 16384 notes of 2 MiB each are 32 GiB. Here 64 requests of 512 KiB queries
// leave 64 MiB behind.
func TestReviewNotesOfTargetsTheLaneCannotRead(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	h := newTestHandler(t, dir, Options{})
	srv, l := reviewLaneServer(t, h, nil)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	must(t, err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(c)
	pad := strings.Repeat("q", 512<<10)
	const n = 64
	for i := range n {
		fmt.Fprintf(c, "GET /a.txt?%d=%s HTTP/1.1\r\nHost: x\r\n\r\n", i, pad)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	total, notes := noteBytes(l)
	t.Logf("%d notes hold %d MiB of targets", notes, total>>20)
	var unusable int
	l.notes.mu.RLock()
	for _, note := range l.notes.m {
		if len("GET ")+len(note.target)+len(" HTTP/1.1\r\nHost: \r\n\r\n")+len(note.host) > laneBufSize {
			unusable++
		}
	}
	l.notes.mu.RUnlock()
	if unusable > 0 {
		t.Errorf("%d of %d notes are of requests larger than the lane reads (%d bytes): never used, %d MiB kept",
			unusable, notes, laneBufSize, total>>20)
	}
}

// TestReviewClosedLanesAccumulate: a Handler keeps every lane it ever made
// (h.lanes only grows), and with it each lane's notes and its
// *http.Server: a process that restarts its server (a reload, a listener
// change, tests) and keeps the handler never lets them go. serverState is
// keyed weakly so that servers that are dropped are collected
// ("a process that starts and drops servers ... does not accumulate them"),
// but the lane's strong reference defeats it. Each learning request and
// each stale note also walks every dead lane (learnFrom, laneStale).
func TestReviewClosedLanesAccumulate(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	h := newTestHandler(t, dir, Options{})
	const restarts = 20
	for range restarts {
		srv, _ := reviewLaneServer(t, h, nil)
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		must(t, err)
		fmt.Fprintf(c, "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		io.Copy(io.Discard, c)
		c.Close()
		srv.Close()
	}
	runtime.GC()
	all := h.allLanes()
	live, notes := 0, 0
	for _, l := range all {
		if !l.shut.Load() {
			live++
		}
		_, n := noteBytes(l)
		notes += n
	}
	if len(all) > live {
		t.Errorf("after %d server restarts the handler holds %d lanes (%d closed), with %d notes and their servers",
			restarts, len(all), len(all)-live, notes)
	}
}

// TestReviewLaneLeaks plays connections that end every way a lane
// connection can (closed at once, reset mid-response, a hand-over after a
// lane answer, half a request, a stalled reader at server Close) and wants
// the process's descriptors and goroutines back where they were once the
// server and the handler are closed. Not parallel, so that the counts are
// this test's.
func TestReviewLaneLeaks(t *testing.T) {
	if !lanePeeks {
		t.Skip("no fast lane here")
	}
	countFDs := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	runtime.GC()
	fds0, g0 := countFDs(), runtime.NumGoroutine()

	dir := tempDir(t)
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), randomBytes(8<<20), 0o644))
	h, err := New(dir, Options{})
	must(t, err)
	srv, _ := reviewLaneServer(t, h, func(s *http.Server) { s.IdleTimeout = 2 * time.Second })
	addr := srv.Listener.Addr().String()
	talk := func(raw string, read int, closeEarly bool) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, raw)
		br := bufio.NewReader(c)
		for range read {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				break
			}
			if closeEarly {
				break
			}
			io.Copy(io.Discard, resp.Body)
		}
		if tc, ok := c.(*net.TCPConn); ok && closeEarly {
			tc.SetLinger(0) // a reset
		}
		c.Close()
	}
	get := func(target string, lines ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + strings.Join(lines, "") + "\r\n"
	}
	talk(get("/a.txt", "Connection: close\r\n"), 1, false)
	talk(get("/big.bin", "Connection: close\r\n"), 1, false)
	t1 := time.Now()
	for range 30 {
		talk("", 0, false)                                        // nothing sent
		talk(get("/a.txt"), 1, false)                             // a lane answer, then the client's close
		talk(get("/big.bin"), 1, true)                            // reset in the middle of a lane answer from disk
		talk(get("/a.txt")+get("/nothing"), 2, false)             // a lane answer, then a hand-over
		talk(get("/a.txt")+"GET /a.txt HTTP/1.1\r\nHo", 1, false) // half a request after an answer
		talk("GET /a.t", 0, false)                                // half a first request
	}
	t.Logf("conversations: %v", time.Since(t1))
	// A stalled reader in the middle of a large answer when the server closes.
	stalled, err := net.Dial("tcp", addr)
	must(t, err)
	stalled.(*net.TCPConn).SetReadBuffer(16 << 10)
	io.WriteString(stalled, get("/big.bin"))
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	srv.Config.Close() // http.Server.Close: the lane ends its connections (httptest's Close alone waits for them)
	srv.Close()
	t.Logf("srv.Close: %v", time.Since(t0))
	must(t, h.Close())
	t.Logf("h.Close: %v", time.Since(t0))
	stalled.Close()

	ok := false
	var fds, g int
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		runtime.GC()
		fds, g = countFDs(), runtime.NumGoroutine()
		if fds <= fds0+2 && g <= g0+3 {
			ok = true
			break
		}
	}
	if !ok {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("after the lane's connections and Close: %d descriptors (%d before), %d goroutines (%d before)\n%s",
			fds, fds0, g, g0, buf)
	}
}

// TestReviewCloseAllTouchesReleasedConns: lane.each snapshots the lane's
// connections under its mutex and then calls close (or closeIfIdle) on
// each without it. A connection that ends meanwhile by itself (its client
// hung up) has been released: lc.c is nil, and laneConn.close calls
// lc.c.Close() on it, a nil dereference that panics in Handler.Close, or
// in http.Server.Close (lane.Close), in the goroutine shutting the process
// down. laneConns is a pool every lane of the process shares: a released
// laneConn that newLaneConn has handed to a new connection of another
// server (B here) is closed instead, before its first answer. Under -race
// the read of lc.c races with release's write. Here server A's 400 clients
// hang up as A's handler closes, while server B serves new connections;
// a few rounds, as it is a race.
func TestReviewCloseAllTouchesReleasedConns(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	warmUp := func(s *httptest.Server) {
		c, err := net.Dial("tcp", s.Listener.Addr().String())
		must(t, err)
		io.WriteString(c, "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		io.Copy(io.Discard, c)
		c.Close()
	}
	hB := newTestHandler(t, dir, Options{})
	srvB, _ := reviewLaneServer(t, hB, nil)
	warmUp(srvB)
	// B's clients: new connections, 8 at a time.
	stop := make(chan struct{})
	failed := make(chan string, 100000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", srvB.Listener.Addr().String())
				if err != nil {
					continue
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
				if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
					failed <- err.Error()
				}
				c.Close()
			}
		})
	}
	var panics []any
	for round := 0; round < 8 && len(panics) == 0; round++ {
		hA, err := New(dir, Options{})
		must(t, err)
		srvA, _ := reviewLaneServer(t, hA, nil)
		warmUp(srvA)
		// A's clients: keep-alive connections after a lane answer.
		var idle []net.Conn
		for range 400 {
			c, err := net.Dial("tcp", srvA.Listener.Addr().String())
			must(t, err)
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			must(t, err)
			io.Copy(io.Discard, resp.Body)
			idle = append(idle, c)
		}
		go func() {
			for _, c := range idle {
				c.Close()
			}
		}()
		func() {
			defer func() {
				if p := recover(); p != nil {
					panics = append(panics, p)
				}
			}()
			hA.Close()
		}()
		srvA.Close()
	}
	close(stop)
	wg.Wait()
	close(failed)
	var fails []string
	for f := range failed {
		fails = append(fails, f)
	}
	if len(panics) > 0 {
		t.Errorf("Handler.Close panicked: %v", panics[0])
	}
	if len(fails) > 0 {
		t.Errorf("server B's clients got no answer %d times while A's handler closed: %q", len(fails), fails[:min(3, len(fails))])
	}
}
