package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"text/tabwriter"
	"time"
)

// calibrate measures both paths at every size for rounds rounds, writes
// the table of their ratios to out, checks that each server took its path,
// and writes the CacheMaxFileSize it recommends.
func calibrate(sizes []int64, rounds int, duration time.Duration, l loader, out io.Writer) error {
	if len(sizes) == 0 || rounds < 1 {
		return errors.New("need at least one size and one round")
	}
	dir, err := os.MkdirTemp("", "jaws-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeFiles(dir, sizes); err != nil {
		return err
	}
	servers, err := startServers(dir)
	defer stopServers(servers)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	fmt.Fprintf(out, "calibrate: %d sizes x %d rounds x 2 paths x %v, %s; GOMAXPROCS=1, server on CPU 0, load on CPU 1\n",
		len(sizes), rounds, duration, l)
	if err := warmUp(ctx, servers, sizes, l, duration); err != nil {
		return err
	}
	rps, dist, err := measure(ctx, servers, sizes, rounds, l, duration)
	if err != nil {
		return err
	}
	verdicts := writeRatios(out, sizes, rounds, rps)
	fmt.Fprintf(out, "other processes: %d measurements repeated for sharing the machine with more than %.2f CPUs of other work; %d still did after %d retries\n",
		dist.repeated, quietCPUs, dist.disturbed, retries)
	if err := checkPaths(out, servers); err != nil {
		return err
	}
	writeRecommendation(out, sizes, verdicts)
	return nil
}

// writeFiles writes a file of random bytes for each size into dir.
func writeFiles(dir string, sizes []int64) error {
	for _, n := range sizes {
		b := make([]byte, n)
		rand.Read(b)
		if err := os.WriteFile(filepath.Join(dir, fileName(n)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// startServers starts a server for each path, serving dir. On an error it
// returns the servers started so far, for stopServers.
func startServers(dir string) ([]*server, error) {
	var servers []*server
	for _, p := range paths {
		s, err := start(p.name, dir)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
	}
	return servers, nil
}

// stopServers stops the servers, the last started first.
func stopServers(servers []*server) {
	for i := len(servers) - 1; i >= 0; i-- {
		servers[i].stop()
	}
}

// warmUp checks every file of each server and loads it for a while, so
// that connections, heap and cache entries are ready before measuring.
func warmUp(ctx context.Context, servers []*server, sizes []int64, l loader, duration time.Duration) error {
	for _, s := range servers {
		if err := check(s.addr, sizes); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if _, err := l.load(ctx, s.addr, fileName(sizes[0]), sizes[0], duration/2); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// disturbance counts the measurements other processes disturbed: those
// repeated, and those still disturbed after the last retry.
type disturbance struct{ repeated, disturbed int }

// measure runs the rounds and returns the requests/s as
// rps[path][size][round].
func measure(ctx context.Context, servers []*server, sizes []int64, rounds int, l loader, duration time.Duration) ([][][]float64, disturbance, error) {
	var dist disturbance
	rps := make([][][]float64, len(paths))
	for i := range rps {
		rps[i] = make([][]float64, len(sizes))
	}
	for r := range rounds {
		for j, n := range sizes {
			for k := range servers {
				i := (k + r + j) % len(servers) // alternate which goes first
				v, err := measureQuiet(ctx, servers[i], n, l, duration, &dist)
				if err != nil {
					return nil, dist, err
				}
				rps[i][j] = append(rps[i][j], v)
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done\n", r+1, rounds)
	}
	return rps, dist, nil
}

// measureQuiet measures one server at one size, once other processes are
// quiet, and again while they used more than quietCPUs meanwhile, up to
// retries times.
func measureQuiet(ctx context.Context, s *server, n int64, l loader, duration time.Duration, dist *disturbance) (float64, error) {
	for try := 0; ; try++ {
		waitQuiet(ctx)
		before, began := snapshot(), time.Now()
		v, err := l.load(ctx, s.addr, fileName(n), n, duration)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", s.name, fileName(n), err)
		}
		o := others(before, snapshot(), time.Since(began))
		if o < quietCPUs {
			return v, nil
		}
		if try == retries {
			dist.disturbed++
			return v, nil
		}
		dist.repeated++
	}
}

// writeRatios writes a row per size: each path's median requests/s, the
// median ratio memory/file with its range over the rounds, and the
// verdict; it returns the verdicts.
func writeRatios(out io.Writer, sizes []int64, rounds int, rps [][][]float64) []verdict {
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
	return verdicts
}

// checkPaths checks that each server took the path it stands for, from
// its counters.
func checkPaths(out io.Writer, servers []*server) error {
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
	return nil
}

// writeRecommendation writes the crossover and the CacheMaxFileSize to
// use, or why there is none.
func writeRecommendation(out io.Writer, sizes []int64, verdicts []verdict) {
	best, crossed := recommend(sizes, verdicts)
	switch {
	case best == 0:
		fmt.Fprintf(out, "the memory path is slower already at %s; measure smaller -sizes\n", sizeName(sizes[0]))
		return
	case !crossed:
		fmt.Fprintf(out, "the memory path is not slower at any size measured; measure larger -sizes to find the crossover\n")
	default:
		fmt.Fprintf(out, "crossover: above %s the memory path is no longer faster than the file path\n", sizeName(best))
	}
	fmt.Fprintf(out, "CacheMaxFileSize = %d  // %s\n", best, sizeName(best))
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
