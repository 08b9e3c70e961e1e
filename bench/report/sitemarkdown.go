package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// writeSiteFile writes out/site.md from sets.
func writeSiteFile(out string, sets []*siteSet) error {
	var b strings.Builder
	if err := writeSite(&b, sets); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "site.md"), []byte(b.String()), 0o644)
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

// writeSiteSet writes one set's section: its setup, the summary tables, a
// table per level, CPU per MiB for large files, jaws's transfer paths,
// memory, errors and other processes.
func writeSiteSet(b *strings.Builder, s *siteSet) {
	s.writeHeading(b)
	subjects, peers := s.present(siteSubjects), s.present(sitePeers)
	if len(subjects) > 0 && len(peers) > 0 {
		writeSiteSummary(b, s, subjects, peers)
	}
	for _, l := range s.levels {
		s.writeLevel(b, l)
	}
	if s.large() {
		writePerMiB(b, s, subjects)
	}
	s.writePaths(b, subjects)
	s.writeMemory(b)
	s.writeErrors(b)
	s.writeDisturbed(b)
}

// writeHeading writes the set's heading, its files and bytes, and its
// setup from the meta file.
func (s *siteSet) writeHeading(b *strings.Builder) {
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
}

// present lists the servers of names the set measured, in names' order.
func (s *siteSet) present(names []string) []string {
	var out []string
	for _, x := range names {
		if slices.Contains(s.servers, x) {
			out = append(out, x)
		}
	}
	return out
}

// writeLevel writes a level's table, a row per server.
func (s *siteSet) writeLevel(b *strings.Builder, l int) {
	fmt.Fprintf(b, "### %s\n\n", s.levelLabel(l))
	row(b, []string{"server", "requests/s", "MB/s", "p50", "p99", "server CPU µs/response (user + system)", "wrk CPU (server core)", "hit ratio", "evictions/s", "jaws cache held"})
	row(b, []string{"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"})
	for _, srv := range s.servers {
		c := s.cell(srv, l)
		if c == nil {
			continue
		}
		hit, evict, held := "", "", ""
		if c.jaws {
			hit, evict, held = hitRatio(median(c.hit)), rate(median(c.evict)), mib(median(c.held))
		}
		row(b, []string{"`" + srv + "`", s.rps(srv, l), micros(median(c.mbps)), latency(median(c.p50)), latency(median(c.p99)),
			c.cpuSplit(), c.clientShare(), hit, evict, held})
	}
	fmt.Fprintf(b, "\n")
}

// cpuSplit is the cell's server CPU per response, with its user and
// system parts.
func (c *siteCell) cpuSplit() string {
	if len(c.cpuUS) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s + %s)", micros(median(c.cpuUS)), micros(median(c.user)), micros(median(c.sys)))
}

// clientShare is wrk's share of its core, bold where client-bound, with
// the server core's busy share.
func (c *siteCell) clientShare() string {
	if len(c.client) == 0 {
		return "-"
	}
	client := pct(median(c.client))
	if c.clientBound() {
		client = "**" + client + "**"
	}
	if len(c.core) > 0 {
		client += " (" + pct(median(c.core)) + ")"
	}
	return client
}

// writePaths writes jaws's transfer paths, from its counters; the fast
// lane's responses are counted apart from the three paths'.
func (s *siteSet) writePaths(b *strings.Builder, subjects []string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
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
}

// writeMemory writes each server's memory, from the meta file.
func (s *siteSet) writeMemory(b *strings.Builder) {
	var mem []string
	for _, srv := range s.servers {
		if v := s.metaValue(srv + " memory"); v != "" {
			mem = append(mem, fmt.Sprintf("`%s` %s", srv, v))
		}
	}
	if len(mem) > 0 {
		fmt.Fprintf(b, "Memory: %s.\n\n", strings.Join(mem, "; "))
	}
}

// writeErrors lists the cells in which wrk counted errors, or says there
// were none.
func (s *siteSet) writeErrors(b *strings.Builder) {
	var errs []string
	for _, srv := range s.servers {
		for _, l := range s.levels {
			if c := s.cell(srv, l); c != nil && (c.sockErr > 0 || c.non2xx > 0) {
				errs = append(errs, fmt.Sprintf("`%s` at %d: %d socket errors, %d error statuses", srv, l, c.sockErr, c.non2xx))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(b, "**wrk counted errors**: %s.\n\n", strings.Join(errs, "; "))
	} else {
		fmt.Fprintf(b, "No socket errors, no error statuses (site.sh fails on any status of 400 or more, and checks every file of the set once before measuring).\n\n")
	}
}

// writeDisturbed writes the most other processes used during a
// measurement, and, when site.sh recorded its limit, how many
// measurements were repeated for it and how many stayed above it.
func (s *siteSet) writeDisturbed(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	worst, retried := 0.0, 0
	for _, c := range s.cells {
		worst = max(worst, c.most)
		retried += c.retried
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
