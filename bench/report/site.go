package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The site benchmark (bench/site.sh): a SPECweb99-style file set per
// raw/site-SET.csv and raw/site-SET-meta.txt, each server replaying the
// same request list with wrk, at a few connection levels.

// siteSets are the sets in the order site.md shows them; others follow by
// name.
var siteSets = []string{"fits", "spills", "media"}

// siteServers are the servers in the order the tables show them.
var siteServers = []string{"jaws", "jaws-lane", "jaws-bare", "stdlib", "ceiling", "fasthttp", "nginx"}

// siteSubjects are the servers measured against the peers: jaws as an
// application mounts it (the example), the same on its fast lane, and the
// bare handler.
var siteSubjects = []string{"jaws", "jaws-lane", "jaws-bare"}

// sitePeers are the servers the subjects are compared with.
var sitePeers = []string{"stdlib", "ceiling", "fasthttp", "nginx"}

// siteKey is one cell of a set: a server at a connection level.
type siteKey struct {
	server string
	level  int
}

// siteCell is every round of one cell, each slice sorted.
type siteCell struct {
	cell                         // rps, cpuUS (user + system), client, core, conns
	user, sys []float64          // server CPU µs per response
	mbps      []float64          // file bytes per second, in MB/s (10^6)
	p50, p99  []float64          // µs
	hit       []float64          // jaws: cache hits / (hits + misses)
	evict     []float64          // jaws: evictions per second
	held      []float64          // jaws: CacheBytes after the run
	jaws      bool               // the counters were read
	sockErr   int64              // wrk's socket errors, all rounds
	non2xx    int64              // wrk's error statuses, all rounds (site.sh fails on any)
	mibps     []float64          // MiB read per second (wrk's transfer rate, headers included)
	perMiB    map[int][4]float64 // by round: µs of CPU per MiB read, the server process, CPU 0, CPU 1, both cores
	meanBytes float64            // file bytes per request made, in the last round
	most      float64            // the most CPUs other processes used in a round
	retried   int                // rounds repeated for being disturbed
	paths     [4]float64         // jaws: memory, zero-copy, fallback, fast lane responses, all rounds
}

// siteSet is one set's results.
type siteSet struct {
	name    string
	meta    [][2]string
	levels  []int
	servers []string
	cells   map[siteKey]*siteCell
	rounds  int
	others  []float64
	quiet   float64
}

func (s *siteSet) cell(server string, level int) *siteCell {
	return s.cells[siteKey{server, level}]
}

// metaValue is the value of the first meta line with key k, or "".
func (s *siteSet) metaValue(k string) string {
	for _, kv := range s.meta {
		if kv[0] == k {
			return kv[1]
		}
	}
	return ""
}

// loadSite reads every raw/site-SET.csv of dir (and its meta file), in
// siteSets' order; nil and no error when there is none.
func loadSite(dir string) ([]*siteSet, error) {
	names, err := filepath.Glob(filepath.Join(dir, "site-*.csv"))
	if err != nil {
		return nil, err
	}
	var out []*siteSet
	for _, name := range names {
		set := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "site-"), ".csv")
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		s, err := parseSite(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
		s.name = set
		if f, err := os.Open(filepath.Join(dir, "site-"+set+"-meta.txt")); err == nil {
			s.meta, err = parseMeta(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("site-%s-meta.txt: %w", set, err)
			}
			s.quiet, _ = strconv.ParseFloat(s.metaValue("quiet"), 64)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b *siteSet) int {
		if c := rank(siteSets, a.name) - rank(siteSets, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return out, nil
}

// parseSite reads the CSV site.sh writes for one set, finding columns by
// name.
func parseSite(r io.Reader) (*siteSet, error) {
	t, err := readTable(r, "run", "server", "conns_level", "conns", "requests", "rps")
	if err != nil {
		return nil, err
	}
	s := &siteSet{cells: map[siteKey]*siteCell{}}
	servers := map[string]bool{}
	_, hasCore := t.col["server_core_busy"]
	_, hasClientCore := t.col["client_core_busy"]
	for n := range t.rows {
		v, err := t.nums(n, "run", "conns_level", "conns", "duration_s", "start", "requests", "rps", "p50_us", "p99_us",
			"socket_errors", "non2xx", "made", "made_bytes", "other_cpus", "retries", "server_user_s", "server_sys_s",
			"client_cpu_s", "client_wall_s", "server_core_busy", "client_core_busy", "transfer_bps")
		if err != nil {
			return nil, err
		}
		c := s.cellFor(siteKey{t.str(n, "server"), int(v["conns_level"])}, servers)
		c.addRound(v)
		s.others = append(s.others, v["other_cpus"])
		c.addPerResponse(v)
		if v["client_wall_s"] > 0 {
			c.client = append(c.client, v["client_cpu_s"]/v["client_wall_s"])
		}
		if hasCore {
			c.core = append(c.core, v["server_core_busy"])
		}
		if hasClientCore {
			c.addPerMiB(v)
		}
		if t.strOr(n, "jaws_hits", "") != "" {
			if err := c.addJaws(t, n, v); err != nil {
				return nil, err
			}
		}
		s.rounds = max(s.rounds, int(v["run"]))
	}
	for _, c := range s.cells {
		for _, v := range [][]float64{c.rps, c.cpuUS, c.client, c.core, c.user, c.sys, c.mbps, c.p50, c.p99, c.hit, c.evict, c.held, c.mibps} {
			slices.Sort(v)
		}
	}
	slices.Sort(s.levels)
	s.servers = ordered(siteServers, servers)
	return s, nil
}

// cellFor is the cell of k, made on its first round, when its server and
// level join the set's.
func (s *siteSet) cellFor(k siteKey, servers map[string]bool) *siteCell {
	c := s.cells[k]
	if c == nil {
		c = &siteCell{}
		s.cells[k] = c
		servers[k.server] = true
		if !slices.Contains(s.levels, k.level) {
			s.levels = append(s.levels, k.level)
		}
	}
	return c
}

// addRound adds a round's requests/s, latencies, errors and disturbance.
func (c *siteCell) addRound(v map[string]float64) {
	c.rps = append(c.rps, v["rps"])
	c.conns = max(c.conns, int(v["conns"]))
	c.p50 = append(c.p50, v["p50_us"])
	c.p99 = append(c.p99, v["p99_us"])
	c.sockErr += int64(v["socket_errors"])
	c.non2xx += int64(v["non2xx"])
	c.errors += int64(v["socket_errors"] + v["non2xx"])
	c.most = max(c.most, v["other_cpus"])
	c.retried += min(int(v["retries"]), 1)
}

// addPerResponse adds a round's server CPU per response and file bytes per
// second.
func (c *siteCell) addPerResponse(v map[string]float64) {
	// Per response: over the requests made, which the server
	// answered (jaws's lookups match them), not only those wrk
	// counted before it stopped: at 1000 connections the ones in
	// flight are a good part of a short run.
	req := v["requests"]
	if v["made"] > 0 {
		req = v["made"]
	}
	if req > 0 {
		c.user = append(c.user, v["server_user_s"]/req*1e6)
		c.sys = append(c.sys, v["server_sys_s"]/req*1e6)
		c.cpuUS = append(c.cpuUS, (v["server_user_s"]+v["server_sys_s"])/req*1e6)
	}
	if v["made"] > 0 {
		c.mbps = append(c.mbps, v["rps"]*v["made_bytes"]/v["made"]/1e6)
		c.meanBytes = v["made_bytes"] / v["made"]
	}
}

// addPerMiB adds a round's CPU per MiB read, where the round has a
// transfer rate and both cores' busy shares.
func (c *siteCell) addPerMiB(v map[string]float64) {
	// Per MiB: each CPU's share of the measured window over the
	// MiB read per second in it. Over loopback the kernel does the
	// receiving side's TCP work on whichever core makes it run, so
	// the server's own time (or its core's) shifts with how fast
	// each side goes; the two cores together are the cost of a
	// MiB to the machine. See bench/README.md, "What a server's
	// CPU per MiB says over loopback".
	rate := v["transfer_bps"] / (1 << 20)
	if rate <= 0 || v["client_wall_s"] <= 0 {
		return
	}
	proc := (v["server_user_s"] + v["server_sys_s"]) / v["client_wall_s"]
	b0, b1 := v["server_core_busy"], v["client_core_busy"]
	var r [4]float64
	for i, share := range []float64{proc, b0, b1, b0 + b1} {
		r[i] = share / rate * 1e6
	}
	if c.perMiB == nil {
		c.perMiB = map[int][4]float64{}
	}
	c.perMiB[int(v["run"])] = r
	c.mibps = append(c.mibps, rate)
}

// addJaws adds a round's jaws counters of row n: hit ratio, evictions,
// cache held and responses by transfer path.
func (c *siteCell) addJaws(t *table, n int, v map[string]float64) error {
	j, err := t.nums(n, "jaws_hits", "jaws_misses", "jaws_evictions", "jaws_cache_bytes", "jaws_memory", "jaws_zerocopy", "jaws_fallback", "jaws_lane")
	if err != nil {
		return err
	}
	c.jaws = true
	if l := j["jaws_hits"] + j["jaws_misses"]; l > 0 {
		c.hit = append(c.hit, j["jaws_hits"]/l)
	}
	if v["client_wall_s"] > 0 {
		c.evict = append(c.evict, j["jaws_evictions"]/v["client_wall_s"])
	}
	c.held = append(c.held, j["jaws_cache_bytes"])
	c.paths[0] += j["jaws_memory"]
	c.paths[1] += j["jaws_zerocopy"]
	c.paths[2] += j["jaws_fallback"]
	c.paths[3] += j["jaws_lane"] // 0 in results from before the fast lane, which have no column
	return nil
}
