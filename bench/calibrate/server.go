package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jaws-go/jaws"
)

// serve is a child: jaws serving dir with the named path's options, plus
// /debug/jaws with its Stats. It prints its address and serves until its
// standard input closes (the parent is gone) or a signal comes.
func serve(mode, dir string) error {
	i := slices.IndexFunc(paths, func(p pathMode) bool { return p.name == mode })
	if i < 0 {
		return fmt.Errorf("unknown mode %q", mode)
	}
	h, err := jaws.New(dir, jaws.Options{CacheMaxFileSize: paths[i].maxFile, CacheMaxBytes: paths[i].maxBytes})
	if err != nil {
		return err
	}
	defer h.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/jaws", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(h.Stats())
	})
	mux.Handle("/", h)
	host := os.Getenv(envListen)
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		io.Copy(io.Discard, os.Stdin)
		srv.Close()
	}()
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	fmt.Println(ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// server is a running child.
type server struct {
	name  string
	addr  string
	cmd   *exec.Cmd
	stdin io.Closer
}

func start(name, dir string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{self}
	// pinSelf put this process on CPU 1 (so runtime.NumCPU says 1 now):
	// put the servers on CPU 0.
	if taskset, err := exec.LookPath("taskset"); err == nil && os.Getenv(envPinned) != "" {
		args = []string{taskset, "-c", "0", self}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), envServe+"="+name, envDir+"="+dir, "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s server did not start: %w", name, err)
	}
	s.addr = strings.TrimSpace(line)
	return s, nil
}

func (s *server) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// stats fetches the child's counters.
func (s *server) stats() (jaws.Stats, error) {
	var st jaws.Stats
	resp, err := http.Get("http://" + s.addr + "/debug/jaws")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// check fetches every file once from addr and compares its length.
func check(addr string, sizes []int64) error {
	for _, n := range sizes {
		resp, err := http.Get("http://" + addr + "/" + fileName(n))
		if err != nil {
			return err
		}
		got, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || got != n {
			return fmt.Errorf("%s: %s with %d bytes, want 200 with %d", fileName(n), resp.Status, got, n)
		}
	}
	return nil
}
