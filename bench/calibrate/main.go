// Command calibrate measures, on this machine, jaws's memory path against its
// file path for file sizes around the crossover, and prints the
// CacheMaxFileSize to use: the largest size up to which serving from memory
// is not slower.
//
//	go run ./bench/calibrate
//	go run ./bench/calibrate -sizes 16K,32K,64K,128K -rounds 7 -duration 2s
//	bench/calibrate.sh -net veth   # with wrk behind a veth pair (root)
//
// It starts two servers, child processes of itself, each with GOMAXPROCS=1 and
// pinned to CPU 0 when taskset is there, serving the same files with jaws:
// one with CacheMaxFileSize: 1 GiB (every file from memory), one with
// CacheMaxFileSize: -1 (every file from the file, by whatever path jaws takes
// for files that are not in memory). It drives them in turn, pinned to CPU 1,
// with wrk (-t1 -c32, as the load benchmark does) or, without wrk, with a
// keep-alive load generator of its own. Each round measures both servers
// back to back for every size, so a disturbance of the machine hits both;
// the result for a size is the median over the rounds of the ratio
// memory/file, with its range. CacheMaxFileSize is the largest size up to
// which that median is at least 1 at every size: past it, the two paths are
// within noise or memory loses, and a body in memory would only take room
// from smaller files. It takes about two minutes with the defaults.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/jaws-go/jaws"
)

const (
	envServe  = "JAWS_CALIBRATE_SERVE" // memory or file: run as a server child
	envDir    = "JAWS_CALIBRATE_DIR"
	envPinned = "JAWS_CALIBRATE_PINNED"
	envListen = "JAWS_CALIBRATE_LISTEN" // the servers' IP address (-listen)
)

// pathMode is one way of serving, by its cache options.
type pathMode struct {
	name     string
	maxFile  int64 // Options.CacheMaxFileSize
	maxBytes int64 // Options.CacheMaxBytes
}

// The two ways of serving.
var paths = []pathMode{
	{"memory", 1 << 30, 1 << 30},
	{"file", -1, 0},
}

func main() {
	if mode := os.Getenv(envServe); mode != "" {
		if err := serve(mode, os.Getenv(envDir)); err != nil {
			fmt.Fprintln(os.Stderr, "calibrate server:", err)
			os.Exit(1)
		}
		return
	}
	sizes := flag.String("sizes", "8K,16K,24K,32K,48K,64K,96K,128K,192K,256K", "comma-separated file `sizes` to measure (K and M suffixes)")
	rounds := flag.Int("rounds", 5, "measurements of each size and path")
	duration := flag.Duration("duration", time.Second, "length of one measurement")
	conns := flag.Int("conns", 32, "keep-alive connections of the load generator")
	gen := flag.String("load", "auto", "load generator: `wrk`, go (built in), or auto: wrk when it is installed")
	listen := flag.String("listen", "127.0.0.1", "the servers' `IP` address")
	netns := flag.String("netns", "", "run wrk in the network `namespace` NAME (ip netns exec), reaching the servers at -listen; bench/calibrate.sh -net veth sets both")
	flag.Parse()
	os.Setenv(envListen, *listen)
	if err := pinSelf(); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
	list, err := parseSizes(*sizes)
	var l loader
	if err == nil {
		l, err = newLoader(*gen, *conns, *netns)
	}
	if err == nil {
		err = calibrate(list, *rounds, *duration, l, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

// pinSelf runs the load generator on CPU 1: it re-executes the command under
// taskset, since only a process started pinned has all its threads pinned.
// Without taskset or a second CPU it carries on unpinned.
func pinSelf() error {
	runtime.GOMAXPROCS(1)
	if os.Getenv(envPinned) != "" || runtime.NumCPU() < 2 {
		return nil
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate: taskset not found; server and load generator are not pinned")
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(taskset, append([]string{"-c", "1", self}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envPinned+"=1", "GOMAXPROCS=1")
	signal.Ignore(os.Interrupt) // the child gets it too and cleans up
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}

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

func calibrate(sizes []int64, rounds int, duration time.Duration, l loader, out io.Writer) error {
	if len(sizes) == 0 || rounds < 1 {
		return errors.New("need at least one size and one round")
	}
	dir, err := os.MkdirTemp("", "jaws-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, n := range sizes {
		b := make([]byte, n)
		rand.Read(b)
		if err := os.WriteFile(filepath.Join(dir, fileName(n)), b, 0o644); err != nil {
			return err
		}
	}
	servers := make([]*server, len(paths))
	for i, p := range paths {
		s, err := start(p.name, dir)
		if err != nil {
			return err
		}
		defer s.stop()
		servers[i] = s
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	fmt.Fprintf(out, "calibrate: %d sizes x %d rounds x 2 paths x %v, %s; GOMAXPROCS=1, server on CPU 0, load on CPU 1\n",
		len(sizes), rounds, duration, l)
	// rps[path][size][round]
	rps := make([][][]float64, len(paths))
	for i := range rps {
		rps[i] = make([][]float64, len(sizes))
	}
	for _, s := range servers { // warm up: connections, heap, cache entries
		if err := check(s.addr, sizes); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if _, err := l.load(ctx, s.addr, fileName(sizes[0]), sizes[0], duration/2); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	repeated, disturbed := 0, 0
	for r := range rounds {
		for j, n := range sizes {
			for k := range servers {
				i := (k + r + j) % len(servers) // alternate which goes first
				var v float64
				for try := 0; ; try++ {
					waitQuiet(ctx)
					before, start := snapshot(), time.Now()
					v, err = l.load(ctx, servers[i].addr, fileName(n), n, duration)
					if err != nil {
						return fmt.Errorf("%s %s: %w", servers[i].name, fileName(n), err)
					}
					o := others(before, snapshot(), time.Since(start))
					if o < quietCPUs {
						break
					}
					if try == retries {
						disturbed++
						break
					}
					repeated++
				}
				rps[i][j] = append(rps[i][j], v)
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done\n", r+1, rounds)
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size\tmemory req/s\tfile req/s\tmemory/file\tround ratios\tverdict\t")
	verdicts := make([]verdict, len(sizes))
	for j, n := range sizes {
		ratios := make([]float64, rounds)
		for r := range rounds {
			ratios[r] = rps[0][j][r] / rps[1][j][r]
		}
		v := judge(ratios)
		verdicts[j] = v
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.2f\t%.2f-%.2f\t%s\t\n", sizeName(n), med(rps[0][j]), med(rps[1][j]), v.median, v.lo, v.hi, v)
	}
	tw.Flush()
	fmt.Fprintf(out, "other processes: %d measurements repeated for sharing the machine with more than %.2f CPUs of other work; %d still did after %d retries\n",
		repeated, quietCPUs, disturbed, retries)

	// Check that each server took the path it stands for.
	for i, s := range servers {
		st, err := s.stats()
		if err != nil {
			return err
		}
		fileResp := st.ZeroCopy.Responses + st.Fallback.Responses
		fmt.Fprintf(out, "%s server: %d responses from memory, %d zero-copy, %d fallback\n", paths[i].name, st.Memory.Responses, st.ZeroCopy.Responses, st.Fallback.Responses)
		if (i == 0 && fileResp > 0) || (i == 1 && st.Memory.Responses > 0) {
			return fmt.Errorf("%s server took the other path", paths[i].name)
		}
	}
	best, crossed := recommend(sizes, verdicts)
	switch {
	case best == 0:
		fmt.Fprintf(out, "the memory path is slower already at %s; measure smaller -sizes\n", sizeName(sizes[0]))
		return nil
	case !crossed:
		fmt.Fprintf(out, "the memory path is not slower at any size measured; measure larger -sizes to find the crossover\n")
	default:
		fmt.Fprintf(out, "crossover: above %s the memory path is no longer faster than the file path\n", sizeName(best))
	}
	fmt.Fprintf(out, "CacheMaxFileSize = %d  // %s\n", best, sizeName(best))
	return nil
}

// verdict sums up the rounds at one size.
type verdict struct {
	median, lo, hi float64 // of the ratios memory/file
}

func judge(ratios []float64) verdict {
	s := slices.Sorted(slices.Values(ratios))
	return verdict{median: med(s), lo: s[0], hi: s[len(s)-1]}
}

func (v verdict) String() string {
	switch {
	case v.lo > 1:
		return "memory faster"
	case v.hi < 1:
		return "memory slower"
	case v.median >= 1:
		return "within noise, memory ahead"
	}
	return "within noise, file ahead"
}

// recommend picks CacheMaxFileSize: the largest size up to which the memory
// path's median is at least the file path's at every size. Past it the two
// are within noise or memory loses, and a body in memory would only take
// room from smaller files. crossed reports whether such a size was found
// before the end of the list; best is 0 when memory loses at the smallest.
func recommend(sizes []int64, v []verdict) (best int64, crossed bool) {
	for j, n := range sizes {
		if v[j].median < 1 {
			return best, true
		}
		best = n
	}
	return best, false
}

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

func parseSizes(list string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		mult := int64(1)
		switch {
		case strings.HasSuffix(f, "K"):
			mult, f = 1<<10, strings.TrimSuffix(f, "K")
		case strings.HasSuffix(f, "M"):
			mult, f = 1<<20, strings.TrimSuffix(f, "M")
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, n*mult)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func sizeName(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}

func fileName(n int64) string { return sizeName(n) + ".bin" }

func med(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
