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
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
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
