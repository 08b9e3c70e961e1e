package main

import (
	"errors"
	"fmt"
	"io"
	"math"
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
	samples   int                // rounds
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
	for n := range t.rows {
		v, err := t.nums(n, "run", "conns_level", "conns", "duration_s", "start", "requests", "rps", "p50_us", "p99_us",
			"socket_errors", "non2xx", "made", "made_bytes", "other_cpus", "retries", "server_user_s", "server_sys_s",
			"client_cpu_s", "client_wall_s", "server_core_busy", "client_core_busy", "transfer_bps")
		if err != nil {
			return nil, err
		}
		k := siteKey{t.str(n, "server"), int(v["conns_level"])}
		c := s.cells[k]
		if c == nil {
			c = &siteCell{}
			s.cells[k] = c
			servers[k.server] = true
			if !slices.Contains(s.levels, k.level) {
				s.levels = append(s.levels, k.level)
			}
		}
		c.samples++
		c.rps = append(c.rps, v["rps"])
		c.conns = max(c.conns, int(v["conns"]))
		c.p50 = append(c.p50, v["p50_us"])
		c.p99 = append(c.p99, v["p99_us"])
		c.sockErr += int64(v["socket_errors"])
		c.non2xx += int64(v["non2xx"])
		c.errors += int64(v["socket_errors"] + v["non2xx"])
		c.most = max(c.most, v["other_cpus"])
		c.retried += min(int(v["retries"]), 1)
		s.others = append(s.others, v["other_cpus"])
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
		if v["client_wall_s"] > 0 {
			c.client = append(c.client, v["client_cpu_s"]/v["client_wall_s"])
		}
		if _, ok := t.col["server_core_busy"]; ok {
			c.core = append(c.core, v["server_core_busy"])
		}
		// Per MiB: each CPU's share of the measured window over the
		// MiB read per second in it. Over loopback the kernel does the
		// receiving side's TCP work on whichever core makes it run, so
		// the server's own time (or its core's) shifts with how fast
		// each side goes; the two cores together are the cost of a
		// MiB to the machine. See bench/README.md, "What a server's
		// CPU per MiB says over loopback".
		_, hasClientCore := t.col["client_core_busy"]
		if rate := v["transfer_bps"] / (1 << 20); rate > 0 && v["client_wall_s"] > 0 && hasClientCore {
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
		if t.strOr(n, "jaws_hits", "") != "" {
			j, err := t.nums(n, "jaws_hits", "jaws_misses", "jaws_evictions", "jaws_cache_bytes", "jaws_memory", "jaws_zerocopy", "jaws_fallback", "jaws_lane")
			if err != nil {
				return nil, err
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

// ratio is a's median requests/s over b's at a level, marked by which of
// the two was client-bound, as the files scenario's tables do: "≥" a's
// (it may be faster), "≤" b's, "~" both.
func (s *siteSet) ratio(a, b string, level int) string {
	x, y := s.cell(a, level), s.cell(b, level)
	if x == nil || y == nil {
		return "-"
	}
	r := ratio(x.median() / y.median())
	switch xb, yb := x.clientBound(), y.clientBound(); {
	case xb && yb:
		return "~" + r
	case xb:
		return "≥" + r
	case yb:
		return "≤" + r
	}
	return r
}

// latency writes µs as µs or ms.
func latency(us float64) string {
	switch {
	case math.IsNaN(us):
		return "-"
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}

// writeSite writes site.md.
func writeSite(w io.Writer, sets []*siteSet) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Site benchmark results\n\n")
	p("Written by `bench/site.sh` (through `bench/report`); see \"The site benchmark\" in `bench/README.md` for the sets, the request lists and how they are replayed. ")
	p("Each server replays the same request list (SPECweb99's classes, Zipf popularity; `bench/siteset`) with `wrk -t1` and `bench/site.lua`, server on CPU 0 with `GOMAXPROCS=1`, wrk on CPU 1; in a round every server starts at the same place in the list. ")
	p("Each figure is the median of a set's rounds; `±` is the range of requests/s over the rounds, (max − min) / median. ")
	p("\"(client-bound)\": wrk used ≥ %.0f%% of its core (median of the rounds), so the figure tells how fast the client went; a ratio of requests/s is marked `≥` when the row's cell was client-bound (that server may be faster), `≤` when the column's was, `~` when both were. ", clientBound*100)
	p("MB/s counts file bytes (the bytes of the files the requests asked for), not headers. ")
	p("Server CPU is its user and system time over the requests made (those wrk counted and those in flight when it stopped). ")
	if slices.ContainsFunc(sets, func(s *siteSet) bool { return slices.Contains(s.servers, "jaws-lane") }) {
		p("`jaws-lane` is the example with its fast lane at `/` (`Handler.FastLane`), which answers a name only once jaws has answered it through net/http: before the first round every server was asked for every distinct path of the list once, so the lane had learnt them all. ")
	}
	p("Hit ratio and evictions are jaws's own counters (`jaws.Stats` from `/debug/jaws`, read before and after each run): the example serves them on its router (`jaws-lane` too, its lane's responses counted apart), `jaws-bare` on a listener of its own.\n\n")
	for _, s := range sets {
		writeSiteSet(&b, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSiteSet(b *strings.Builder, s *siteSet) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	title := s.name
	if files, bytes := s.metaValue("set files"), s.metaValue("set bytes"); files != "" {
		if _, l, ok := strings.Cut(bytes, "("); ok {
			bytes = strings.TrimSuffix(l, ")")
		}
		title += fmt.Sprintf(": %s files, %s", files, bytes)
	}
	p("## %s\n\n", title)
	listed := false
	for _, k := range []string{"set layout", "set requested files", "set requested bytes", "set mean response", "set class shares",
		"set requests", "set seed", "set list sha256", "date", "commit", "cpu", "kernel", "go", "wrk", "nginx", "fasthttp", "rounds", "duration", "warm-up", "connections", "net", "load before", "load after"} {
		if v := s.metaValue(k); v != "" {
			p("- %s: %s\n", strings.TrimPrefix(k, "set "), v)
			listed = true
		}
	}
	if listed {
		p("\n")
	}

	var subjects, peers []string
	for _, x := range siteSubjects {
		if slices.Contains(s.servers, x) {
			subjects = append(subjects, x)
		}
	}
	for _, x := range sitePeers {
		if slices.Contains(s.servers, x) {
			peers = append(peers, x)
		}
	}
	if len(subjects) > 0 && len(peers) > 0 {
		writeSiteSummary(b, s, subjects, peers)
	}

	for _, l := range s.levels {
		p("### %s\n\n", s.levelLabel(l))
		row(b, []string{"server", "requests/s", "MB/s", "p50", "p99", "server CPU µs/response (user + system)", "wrk CPU (server core)", "hit ratio", "evictions/s", "jaws cache held"})
		row(b, []string{"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"})
		for _, srv := range s.servers {
			c := s.cell(srv, l)
			if c == nil {
				continue
			}
			cpu := "-"
			if len(c.cpuUS) > 0 {
				cpu = fmt.Sprintf("%s (%s + %s)", micros(median(c.cpuUS)), micros(median(c.user)), micros(median(c.sys)))
			}
			client := "-"
			if len(c.client) > 0 {
				client = pct(median(c.client))
				if c.clientBound() {
					client = "**" + client + "**"
				}
				if len(c.core) > 0 {
					client += " (" + pct(median(c.core)) + ")"
				}
			}
			hit, evict, held := "", "", ""
			if c.jaws {
				hit, evict, held = hitRatio(median(c.hit)), rate(median(c.evict)), mib(median(c.held))
			}
			row(b, []string{"`" + srv + "`", s.rps(srv, l), micros(median(c.mbps)), latency(median(c.p50)), latency(median(c.p99)),
				cpu, client, hit, evict, held})
		}
		p("\n")
	}

	if s.large() {
		writePerMiB(b, s, subjects)
	}

	// jaws's transfer paths, from its counters; the fast lane's
	// responses are counted apart from the three paths'.
	for _, srv := range subjects {
		var n [4]float64
		for _, l := range s.levels {
			if c := s.cell(srv, l); c != nil {
				for i := range n {
					n[i] += c.paths[i]
				}
			}
		}
		if all := n[0] + n[1] + n[2] + n[3]; all > 0 {
			p("`%s`'s responses by transfer path, all rounds and levels: memory %s, zero-copy %s, fallback %s",
				srv, hitRatio(n[0]/all), hitRatio(n[1]/all), hitRatio(n[2]/all))
			if n[3] > 0 {
				p(", on the fast lane %s", hitRatio(n[3]/all))
			}
			p(".\n\n")
		}
	}

	var mem []string
	for _, srv := range s.servers {
		if v := s.metaValue(srv + " memory"); v != "" {
			mem = append(mem, fmt.Sprintf("`%s` %s", srv, v))
		}
	}
	if len(mem) > 0 {
		p("Memory: %s.\n\n", strings.Join(mem, "; "))
	}

	var errs []string
	worst := 0.0
	retried := 0
	for _, srv := range s.servers {
		for _, l := range s.levels {
			c := s.cell(srv, l)
			if c == nil {
				continue
			}
			if c.sockErr > 0 || c.non2xx > 0 {
				errs = append(errs, fmt.Sprintf("`%s` at %d: %d socket errors, %d error statuses", srv, l, c.sockErr, c.non2xx))
			}
			worst = max(worst, c.most)
			retried += c.retried
		}
	}
	if len(errs) > 0 {
		p("**wrk counted errors**: %s.\n\n", strings.Join(errs, "; "))
	} else {
		p("No socket errors, no error statuses (site.sh fails on any status of 400 or more, and checks every file of the set once before measuring).\n\n")
	}
	p("The most other processes used during any of the %d measurements: %.2f CPUs", len(s.others), worst)
	if s.quiet > 0 {
		n := 0
		for _, o := range s.others {
			if o > s.quiet {
				n++
			}
		}
		p("; %d were repeated for it, %d kept more than %.2f", retried, n, s.quiet)
	}
	p(".\n\n")
}

// writeSiteSummary writes a set's two summary tables, a row for each
// subject at each level: its requests/s over each peer's, then each
// peer's server CPU per response over its own, so that in both a figure
// above 1× puts the row's server ahead. On a set of small files the
// ceiling gets a row too: how far net/http itself gets over
// http.FileServer, and how far behind servers without it it stays.
func writeSiteSummary(b *strings.Builder, s *siteSet, subjects, peers []string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	rows := slices.Clip(subjects)
	// Not on a set of large files, where sendfile may beat the ceiling's
	// writes and its row would say nothing.
	bound := !s.large() && slices.Contains(s.servers, "ceiling") && slices.Contains(s.servers, "stdlib")
	if bound {
		rows = append(rows, "ceiling")
	}
	table := func(what string, peerHead func(string) string, value func(string, int) string, vs func(srv, peer string, l int) string) {
		head := []string{"connections", "server", what}
		align := []string{"---", "---", "---:"}
		for _, peer := range peers {
			head = append(head, peerHead(peer))
			align = append(align, "---:")
		}
		row(b, head)
		row(b, align)
		for _, l := range s.levels {
			for _, srv := range rows {
				if s.cell(srv, l) == nil {
					continue
				}
				cols := []string{s.levelLabel(l), "`" + srv + "`", value(srv, l)}
				for _, peer := range peers {
					if peer == srv {
						cols = append(cols, "")
						continue
					}
					cols = append(cols, vs(srv, peer, l))
				}
				row(b, cols)
			}
		}
		p("\n")
	}

	table("requests/s", func(peer string) string { return "÷ `" + peer + "`" }, s.rps, s.ratio)
	p("Requests/s of the row's server over the column's.")
	if bound {
		p(" The `ceiling` row's ÷ `stdlib` is about the most a handler under net/http gets over http.FileServer on this set and machine: the ceiling answers every file from a map in memory with jaws's headers and does nothing else, and a handler beats it only by moving bytes more cheaply than its writes (sendfile, for the largest files).")
		if slices.Contains(subjects, "jaws-lane") {
			p(" `jaws-lane` is not bound by it: the fast lane answers without net/http.")
		}
	}
	p("\n\n")

	table("server CPU µs/response", func(peer string) string { return "`" + peer + "` ÷" }, s.cpuPerResponse, s.cpuRatio)
	p("Server CPU per response of the column's server over the row's: above 1× the row's spent less CPU on a response. It measures the server in a client-bound cell too.\n\n")
}

// cpuPerResponse is a cell's median server CPU per response, in µs.
func (s *siteSet) cpuPerResponse(server string, level int) string {
	c := s.cell(server, level)
	if c == nil || len(c.cpuUS) == 0 {
		return "-"
	}
	return micros(median(c.cpuUS))
}

// cpuRatio is peer's median server CPU per response over server's at a
// level.
func (s *siteSet) cpuRatio(server, peer string, level int) string {
	x, y := s.cell(server, level), s.cell(peer, level)
	if x == nil || y == nil || len(x.cpuUS) == 0 || len(y.cpuUS) == 0 {
		return "-"
	}
	return ratio(median(y.cpuUS) / median(x.cpuUS))
}

// perMiBFrom is the mean response, in bytes, from which a set's report
// gives its CPU per MiB read: where responses are this large the bytes,
// not the requests, are the work.
const perMiBFrom = 1 << 20

// large reports whether the set's responses are perMiBFrom or more on
// average (the median over its cells of the bytes per request made).
func (s *siteSet) large() bool {
	var mean []float64
	for _, c := range s.cells {
		if c.meanBytes > 0 {
			mean = append(mean, c.meanBytes)
		}
	}
	slices.Sort(mean)
	return len(mean) > 0 && median(mean) >= perMiBFrom
}

// writePerMiB writes, per level, each server's CPU per MiB read (its own
// time, each core's, both cores'), and the subjects' figure over each
// peer's: the server core's where the load generator's receive work ran
// on its own core (bench/site.sh -net veth), both cores' over loopback.
func writePerMiB(b *strings.Builder, s *siteSet, subjects []string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	steered := strings.HasPrefix(s.metaValue("net"), "veth")
	by, byName := 3, "Both cores'"
	if steered {
		by, byName = 1, "The server core's"
	}
	for _, l := range s.levels {
		p("### CPU per MiB read, %s\n\n", s.levelLabel(l))
		p("µs of CPU per MiB wrk read (its transfer rate, headers included), medians of the rounds: the server process's user and system time, each core's busy time from `/proc/stat` (the server on CPU 0, wrk on CPU 1), and the two cores together. ")
		if steered {
			p("Over the veth pair each end's receive work runs on its own side's core, as on two hosts, so CPU 0 is what a MiB costs the server's machine: compare servers by it.\n\n")
		} else {
			p("Over loopback the receiving side's kernel TCP work runs on whichever core makes it run, often the sender's, so a server that sends faster shows more on its own core and leaves less on wrk's: compare servers by both cores, or measure with `-net veth` (bench/README.md, \"What a server's CPU per MiB says over loopback\").\n\n")
		}
		row(b, []string{"server", "MiB/s read", "server process", "CPU 0 (server)", "CPU 1 (wrk)", "both cores"})
		row(b, []string{"---", "---:", "---:", "---:", "---:", "---:"})
		for _, srv := range s.servers {
			c := s.cell(srv, l)
			if c == nil || len(c.mibps) == 0 {
				continue
			}
			cols := []string{"`" + srv + "`", fmt.Sprintf("%.0f", median(c.mibps))}
			for i := range 4 {
				cols = append(cols, micros(c.medianPerMiB(i)))
			}
			row(b, cols)
		}
		p("\n")
		var ratios []string
		for _, j := range subjects {
			x := s.cell(j, l)
			for _, peer := range sitePeers {
				y := s.cell(peer, l)
				if x == nil || y == nil || len(x.mibps) == 0 || len(y.mibps) == 0 {
					continue
				}
				// The servers of a round run one after the other, so
				// a round's ratio is less drift than the medians'.
				var rounds []float64
				for run, xr := range x.perMiB {
					if yr, ok := y.perMiB[run]; ok && yr[by] > 0 {
						rounds = append(rounds, xr[by]/yr[by])
					}
				}
				slices.Sort(rounds)
				r := ratio(x.medianPerMiB(by) / y.medianPerMiB(by))
				if len(rounds) > 1 {
					r += fmt.Sprintf(" (by round %s, %s–%s)", ratio(median(rounds)), ratio(rounds[0]), ratio(rounds[len(rounds)-1]))
				}
				ratios = append(ratios, fmt.Sprintf("`%s` ÷ `%s` %s", j, peer, r))
			}
		}
		if len(ratios) > 0 {
			p("%s CPU per MiB: %s.\n\n", byName, strings.Join(ratios, ", "))
		}
	}
}

// medianPerMiB is the median over the cell's rounds of its i'th CPU per
// MiB figure (perMiB).
func (c *siteCell) medianPerMiB(i int) float64 {
	v := make([]float64, 0, len(c.perMiB))
	for _, r := range c.perMiB {
		v = append(v, r[i])
	}
	slices.Sort(v)
	return median(v)
}

// levelLabel names a level, with the connections used when fewer.
func (s *siteSet) levelLabel(l int) string {
	used := 0
	for _, srv := range s.servers {
		if c := s.cell(srv, l); c != nil {
			used = max(used, c.conns)
		}
	}
	if used > 0 && used != l {
		return fmt.Sprintf("%d connections (level %d)", used, l)
	}
	return fmt.Sprintf("%d connections", l)
}

// rps is a cell's median requests/s, its spread and its client-bound mark.
func (s *siteSet) rps(server string, level int) string {
	c := s.cell(server, level)
	if c == nil {
		return "-"
	}
	v := fmt.Sprintf("%s ±%s", rate(c.median()), pct(c.spread()))
	if c.clientBound() {
		v += " (client-bound)"
	}
	return v
}

// hitRatio writes a share with one decimal: 99.5%.
func hitRatio(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", v*100)
}

func mib(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", v/(1<<20))
}

// writeSiteFile writes out/site.md from sets.
func writeSiteFile(out string, sets []*siteSet) error {
	var b strings.Builder
	if err := writeSite(&b, sets); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "site.md"), []byte(b.String()), 0o644)
}
