package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A loader drives a server with keep-alive GET requests for one file for a
// while and returns the responses per second.
type loader interface {
	load(ctx context.Context, addr, name string, size int64, d time.Duration) (float64, error)
	String() string
}

func newLoader(name string, conns int, netns string) (loader, error) {
	if netns != "" {
		// The built-in generator would run in this process's namespace.
		if name == "go" {
			return nil, errors.New("-netns needs wrk (-load wrk or auto)")
		}
		name = "wrk"
	}
	switch name {
	case "auto":
		if _, err := exec.LookPath("wrk"); err == nil {
			return wrk{conns: conns, netns: netns}, nil
		}
		fmt.Fprintln(os.Stderr, "calibrate: wrk not found; using the built-in load generator, which may not keep the server busy")
		return goLoad{conns}, nil
	case "wrk":
		if _, err := exec.LookPath("wrk"); err != nil {
			return nil, err
		}
		return wrk{conns: conns, netns: netns}, nil
	case "go":
		return goLoad{conns}, nil
	}
	return nil, fmt.Errorf("unknown -load %q: want auto, wrk or go", name)
}

// wrk is the load generator of the load benchmark, with one thread; it
// inherits this process's CPU. With netns it runs in that network
// namespace.
type wrk struct {
	conns int
	netns string
}

func (w wrk) String() string {
	if w.netns != "" {
		return fmt.Sprintf("wrk -t1 -c%d in %s", w.conns, w.netns)
	}
	return fmt.Sprintf("wrk -t1 -c%d", w.conns)
}

// command is the command line of one measurement of url.
func (w wrk) command(url string, d time.Duration) []string {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	args := []string{"wrk", "-t1", fmt.Sprintf("-c%d", w.conns), fmt.Sprintf("-d%ds", secs), "--timeout", "10s", url}
	if w.netns != "" {
		args = append([]string{"ip", "netns", "exec", w.netns}, args...)
	}
	return args
}

func (w wrk) load(ctx context.Context, addr, name string, size int64, d time.Duration) (float64, error) {
	args := w.command("http://"+addr+"/"+name, d)
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %w: %s", err, out)
	}
	var rps float64
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			rps, err = strconv.ParseFloat(f[1], 64)
		case strings.Contains(line, "Non-2xx"), strings.HasPrefix(strings.TrimSpace(line), "Socket errors"):
			return 0, fmt.Errorf("wrk: %s", strings.TrimSpace(line))
		}
	}
	if rps == 0 || err != nil {
		return 0, fmt.Errorf("wrk: no Requests/sec in %q", out)
	}
	return rps, nil
}

// goLoad is a lean load generator of its own, for machines without wrk. It
// may leave the server idle part of the time, which narrows differences.
type goLoad struct{ conns int }

func (g goLoad) String() string {
	return fmt.Sprintf("built-in load generator, %d connections", g.conns)
}

// load drives addr with conns keep-alive connections, each sending GET for
// name and reading the response, for d, and returns the responses per second.
func (g goLoad) load(ctx context.Context, addr, name string, size int64, d time.Duration) (float64, error) {
	conns := g.conns
	req := []byte("GET /" + name + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	var done atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, conns)
	start := time.Now()
	stop := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			br := bufio.NewReaderSize(c, 256<<10)
			for time.Now().Before(stop) && ctx.Err() == nil {
				if _, err := c.Write(req); err != nil {
					errc <- err
					return
				}
				if err := readResponse(br, size); err != nil {
					errc <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	close(errc)
	if err := <-errc; err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(done.Load()) / elapsed.Seconds(), nil
}

// readResponse reads one response, which must be a 200 with a body of size
// bytes, and discards the body.
func readResponse(br *bufio.Reader, size int64) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("response %q", bytes.TrimSpace(line))
	}
	length := int64(-1)
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
			length, err = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return err
			}
		}
	}
	if length != size {
		return fmt.Errorf("Content-Length %d, want %d", length, size)
	}
	_, err = br.Discard(int(length))
	return err
}
