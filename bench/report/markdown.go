package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// peers are the servers jaws is compared with, in the order of the ratio
// columns.
var peers = []string{"stdlib", "ceiling", "ceiling-min", "nginx"}

// writeMarkdown writes results.md.
func writeMarkdown(w io.Writer, d *data) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	p("# Load benchmark results\n\n")
	p("Written by `bench/run.sh` (through `bench/report`); see `bench/README.md` for what each server is and how it is measured.\n\n")
	if d.hasCharts() {
		p("## Summary\n\n")
		d.writeSummary(&b)
		p("\n")
	}
	if len(d.samples) > 0 {
		d.writeScenario(&b)
	}
	if d.tlsData != nil {
		d.tlsData.writeScenario(&b)
	}
	if d.compress != nil {
		writeCompress(&b, d.compress)
	}
	if d.hasCharts() {
		p("## Charts\n\n")
		p("![throughput](throughput.svg)\n\n![requests per second](requests.svg)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSummaryFile writes summary.md: the summary table alone, for the
// project's README.
func writeSummaryFile(w io.Writer, d *data) error {
	var b strings.Builder
	d.writeSummary(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// hasCharts: the files or the tls scenario was measured, so there is a
// summary and there are charts.
func (d *data) hasCharts() bool { return len(d.samples) > 0 || d.tlsData != nil }

// minNoiseRuns is the fewest runs whose range tells noise from a difference.
const minNoiseRuns = 3

// summaryPeers are the summary's ratios: jaws over http.FileServer, over
// the net/http ceiling (jaws's header set) and over nginx.
var summaryPeers = []string{"stdlib", "ceiling", "nginx"}

// writeSummary writes the short table: a row per size, a column per
// keep-alive setup of the files and tls scenarios, each cell jaws's
// requests/s over stdlib's, the ceiling's and nginx's.
func (d *data) writeSummary(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	type col struct {
		d  *data
		st setup
	}
	var cols []col
	sizes, bytes := []string{}, map[string]int64{}
	for _, x := range d.scenarios() {
		for _, st := range x.setups {
			if st.mode == "keepalive" && x.shown(st) {
				cols = append(cols, col{x, st})
			}
		}
		for _, s := range x.sizes {
			if _, ok := bytes[s]; !ok {
				sizes = append(sizes, s)
				bytes[s] = x.bytes[s]
			}
		}
	}
	slices.SortStableFunc(sizes, func(a, b string) int { return int(bytes[a] - bytes[b]) })
	var shown []string
	for _, peer := range summaryPeers {
		for _, c := range cols {
			if c.d.has(peer) && !slices.Contains(shown, peer) {
				shown = append(shown, peer)
			}
		}
	}
	p("Requests/s of jaws over each peer's, keep-alive, medians of %d run(s): each cell is jaws ÷ %s. ",
		max(d.runs, d.tlsRuns()), strings.Join(shown, " / "))
	p("jaws is the example server (chi router included) over plain HTTP, and `jaws-bare` (the handler alone) over TLS. ")
	p("`≥` marks a ratio whose jaws figure was client-bound (the load generator used ≥ %.0f%% of its core, so jaws may be faster), `≤` one whose peer's was, `~` one where both were (the ratio then compares the client's cost with each server). ", clientBound*100)
	p("Over %s; Connection: close, %sMB/s, CPU per response, the load generator's CPU and the spread are in [results.md](results.md).\n\n", d.summaryNet(), d.summaryRest())
	head := []string{"size"}
	for _, c := range cols {
		g := c.st.group()
		g.net = "" // the first path only: named in the text
		t := c.d.title(g)
		if !c.d.tls && d.tlsData != nil {
			t = "HTTP/1.1" + titled(t) // beside the TLS columns
		}
		if t == "" {
			t = "keep-alive"
		}
		head = append(head, t)
	}
	row(b, head)
	align := []string{"---"}
	for range cols {
		align = append(align, "---:")
	}
	row(b, align)
	for _, size := range sizes {
		r := []string{sizeLabel(bytes[size])}
		for _, c := range cols {
			var parts []string
			for _, peer := range shown {
				if !c.d.has(peer) {
					parts = append(parts, "-")
					continue
				}
				parts = append(parts, c.d.ratioCell(size, c.d.subject(), peer, c.st))
			}
			r = append(r, strings.Join(parts, " / "))
		}
		row(b, r)
	}
}

// summaryNet names the summary's path; summaryRest what else results.md
// has beyond it.
func (d *data) summaryNet() string {
	for _, x := range d.scenarios() {
		return x.nets[0]
	}
	return "loopback"
}

func (d *data) summaryRest() string {
	var rest []string
	for _, x := range d.scenarios() {
		if len(x.nets) > 1 && !slices.Contains(rest, "the other path ("+x.nets[1]+")") {
			rest = append(rest, "the other path ("+x.nets[1]+")")
		}
		if x.tls && len(x.groups()) > len(x.nets)*len(x.protos()) {
			rest = append(rest, "TLS at the other connection levels")
		}
	}
	if len(rest) == 0 {
		return ""
	}
	return strings.Join(rest, ", ") + ", "
}

func (d *data) tlsRuns() int {
	if d.tlsData == nil {
		return 0
	}
	return d.tlsData.runs
}

// writeScenario writes the files or the tls scenario's sections:
// requests/s, MB/s, server CPU, the load generator's CPU, noise, and the
// files scenario's targets.
func (d *data) writeScenario(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	h := "##"
	if d.tls {
		h = "###"
		p("## TLS: HTTP/1.1 and HTTP/2 with h2load\n\n")
		p("The tls scenario: the same files over HTTPS, keep-alive, measured with `h2load` (`--h1` for HTTP/1.1) on one thread. ")
		p("jaws is `jaws-bare` here (`bench/peers -mode jaws -tls`): the example server has no TLS flag. ")
		p("Its transfer path has no zero-copy: `sendfile` needs the plain TCP connection.\n\n")
	}
	if len(d.meta) > 0 {
		for _, kv := range d.meta {
			if kv[0] == "cachemax" {
				continue
			}
			p("- %s: %s\n", kv[0], kv[1])
		}
		p("\n")
	}
	p("Each figure is the median of %d run(s); `±` is that cell's run-to-run spread, (max − min) / median. ", d.runs)
	p("Ratios divide medians. \"jaws path\" is the transfer path jaws took for that size (from its `Stats`).")
	if d.hasClient() {
		p(" \"(client-bound)\" marks a cell where the load generator used ≥ %.0f%% of its core (median of the runs): its figure tells how fast the client went, and the server may be faster; a ratio is marked `≥` when %s's cell was client-bound, `≤` when the peer's was, `~` when both were.", clientBound*100, d.subject())
	}
	if d.showsConns() {
		p(" \"conns\" is the connections used, where a size used fewer than the level (large files, see `bench/README.md`).")
	}
	p("\n\n")

	for _, st := range d.setups {
		p("%s Requests per second%s\n\n", h, titled(d.title(st)))
		d.rpsTable(b, st)
		p("\n")
	}
	for _, g := range d.groups() {
		p("%s Throughput, MB/s of file bytes (10⁶ bytes/s, median)%s\n\n", h, titled(d.title(g)))
		d.mbpsTable(b, g)
		p("\n")
	}
	if d.hasCPU() {
		sections(p, d, h, "Server CPU time per response, µs (median)", func() {
			p("The server's user and system time during a measurement over the responses the load generator counted (clock ticks of 10 ms, so short runs of large files are coarse); it includes the kernel's work for the connection done in the server's system calls, not what the kernel counts as softirq time. It shows what a response costs rather than how fast it goes: where a server is busy all the time it is the inverse of requests/s; where it is not (large files, Connection: close, a client-bound cell), the difference shows how much time it spent waiting. It remains a measure of the server where the client was the bottleneck, though a server that is not kept busy may spend more per response (fewer responses per wake-up).\n\n")
		}, func(g setup) { d.cpuTable(b, g) })
	}
	if d.hasClient() {
		sections(p, d, h, "Load generator CPU, %% of its core (server core busy)", func() {
			p("The load generator's user and system time over its wall time (one thread, on CPU 1), and in parentheses how busy the server's core (CPU 0) was, from `/proc/stat`; medians of the runs. **Bold**: client-bound (≥ %.0f%%). A client-bound cell whose server core was well below 100%% measured the client.\n\n", clientBound*100)
		}, func(g setup) { d.clientTable(b, g) })
	}

	p("%s Noise\n\n", h)
	med, worst, where := d.noise()
	p("Run-to-run spread over all %d cells: median %s, largest %s (%s, %s%s).",
		len(d.cells), pct(med), pct(worst), where.server, sizeLabel(d.bytes[where.size]), titled(d.title(where.st)))
	p(" By server (median spread of its cells):")
	for i, srv := range d.servers {
		var sp []float64
		for k, c := range d.cells {
			if k.server == srv {
				sp = append(sp, c.spread())
			}
		}
		slices.Sort(sp)
		sep := ","
		if i == 0 {
			sep = ""
		}
		p("%s %s %s", sep, srv, pct(median(sp)))
	}
	p(".\n")
	repeated, disturbed, worstOther := 0, 0, 0.0
	for _, s := range d.samples {
		if s.tries > 1 {
			repeated++
		}
		if d.quiet > 0 && s.other > d.quiet {
			disturbed++
		}
		worstOther = max(worstOther, s.other)
	}
	if d.quiet > 0 {
		p("\nOther processes on the machine: %d of %d measurements were repeated because other processes used more than %.2f CPUs meanwhile; %d kept more than that after the retries; the most any kept measurement shared was %.2f CPUs.\n",
			repeated, len(d.samples), d.quiet, disturbed, worstOther)
	}
	if d.hasClient() {
		bound, n := 0, 0
		for _, c := range d.cells {
			if len(c.client) > 0 {
				n++
				if c.clientBound() {
					bound++
				}
			}
		}
		p("\nClient-bound: %d of %d cells.\n", bound, n)
	}
	var bad []string
	for _, st := range d.setups {
		for _, size := range d.sizes {
			for _, srv := range d.servers {
				if c := d.cell(size, srv, st); c != nil && c.errors > 0 {
					bad = append(bad, fmt.Sprintf("%s %s%s: %d", srv, sizeLabel(d.bytes[size]), titled(d.title(st)), c.errors))
				}
			}
		}
	}
	if len(bad) > 0 {
		p("\nThe load generator counted socket errors or non-2xx responses: %s.\n", strings.Join(bad, "; "))
	}
	p("\n")

	if !d.tls {
		p("## Targets\n\n")
		d.targets(b)
		p("\n")
	}
}

// titled is ", " and t, or nothing for an empty t.
func titled(t string) string {
	if t == "" {
		return ""
	}
	return ", " + t
}

func (d *data) hasClient() bool {
	for _, c := range d.cells {
		if len(c.client) > 0 {
			return true
		}
	}
	return false
}

// showsConns reports whether a requests/s table has a "conns" column.
func (d *data) showsConns() bool {
	for _, st := range d.setups {
		if d.connsDiffer(st) {
			return true
		}
	}
	return false
}

// connsDiffer reports whether some cell of a setup used fewer connections
// than its level, or, in older results without levels, whether its sizes
// used different counts: then its table has a "conns" column.
func (d *data) connsDiffer(st setup) bool {
	seen := 0
	for k, c := range d.cells {
		if k.st != st || c.conns == 0 {
			continue
		}
		if st.level > 0 && c.conns != st.level {
			return true
		}
		if seen != 0 && c.conns != seen {
			return true
		}
		seen = c.conns
	}
	return false
}

// measured reports whether any server was measured at size in setup st.
func (d *data) measured(size string, st setup) bool {
	for _, srv := range d.servers {
		if d.cell(size, srv, st) != nil {
			return true
		}
	}
	return false
}

// connsOf is the connections a size was measured with in a setup.
func (d *data) connsOf(size string, st setup) int {
	n := 0
	for _, srv := range d.servers {
		if c := d.cell(size, srv, st); c != nil {
			n = max(n, c.conns)
		}
	}
	return n
}

func (d *data) rpsTable(b *strings.Builder, st setup) {
	subj := d.subject()
	conns := d.connsDiffer(st)
	head := []string{"size", "jaws path"}
	if conns {
		head = append(head, "conns")
	}
	head = append(head, d.servers...)
	var ratios []string
	if d.has(subj) {
		for _, peer := range peers {
			if d.has(peer) {
				ratios = append(ratios, peer)
				head = append(head, subj+"/"+peer)
			}
		}
	}
	row(b, head)
	align := []string{"---", ":---"}
	for range len(head) - 2 {
		align = append(align, "---:")
	}
	row(b, align)
	for _, size := range d.sizes {
		if !d.measured(size, st) {
			continue
		}
		cols := []string{sizeLabel(d.bytes[size]), d.pathOf(size, st.proto)}
		if conns {
			cols = append(cols, fmt.Sprint(d.connsOf(size, st)))
		}
		for _, srv := range d.servers {
			c := d.cell(size, srv, st)
			if c == nil {
				cols = append(cols, "")
				continue
			}
			v := fmt.Sprintf("%s ±%s", rate(c.median()), pct(c.spread()))
			if c.clientBound() {
				v += " (client-bound)"
			}
			cols = append(cols, v)
		}
		for _, peer := range ratios {
			cols = append(cols, d.ratioCell(size, subj, peer, st))
		}
		row(b, cols)
	}
}

// ratioCell is server's median over peer's, marked by which of the two was
// client-bound: "≥" server's (it may be faster), "≤" peer's, "~" both.
func (d *data) ratioCell(size, server, peer string, st setup) string {
	r := d.ratioOf(server, size, peer, st)
	if math.IsNaN(r) {
		return "-"
	}
	s, o := d.bound(size, server, peer, st)
	switch {
	case s && o:
		return "~" + ratio(r)
	case s:
		return "≥" + ratio(r)
	case o:
		return "≤" + ratio(r)
	}
	return ratio(r)
}

// bound reports which of two cells was client-bound.
func (d *data) bound(size, a, b string, st setup) (x, y bool) {
	ca, cb := d.cell(size, a, st), d.cell(size, b, st)
	return ca != nil && ca.clientBound(), cb != nil && cb.clientBound()
}

// met says whether a ratio r of a over b reaches want, where a
// client-bound cell may hide the answer: a bound a makes r a lower bound
// (a may be faster), a bound b an upper one.
func met(r, want float64, aBound, bBound bool) string {
	if r >= want && bBound || r < want && aBound {
		return "unknown (client-bound)"
	}
	return yes(r >= want)
}

func (d *data) mbpsTable(b *strings.Builder, g setup) {
	d.serverTable(b, g, func(c *cell, bytes int64) string {
		return micros(c.mbps(bytes))
	})
}

// serverTable writes one column per mode and server of a group, a row per
// size, each cell formatted by value (empty where there is no measurement).
func (d *data) serverTable(b *strings.Builder, g setup, value func(c *cell, bytes int64) string) {
	var modes []string
	for _, st := range d.setups {
		if st.group() == g {
			modes = append(modes, st.mode)
		}
	}
	head := []string{"size"}
	for _, mode := range modes {
		for _, srv := range d.servers {
			head = append(head, fmt.Sprintf("%s (%s)", srv, modeShort(mode)))
		}
	}
	row(b, head)
	align := []string{"---"}
	for range len(head) - 1 {
		align = append(align, "---:")
	}
	row(b, align)
	for _, size := range d.sizes {
		if !slices.ContainsFunc(modes, func(m string) bool { st := g; st.mode = m; return d.measured(size, st) }) {
			continue
		}
		cols := []string{sizeLabel(d.bytes[size])}
		for _, mode := range modes {
			st := g
			st.mode = mode
			for _, srv := range d.servers {
				v := ""
				if c := d.cell(size, srv, st); c != nil {
					v = value(c, d.bytes[size])
				}
				cols = append(cols, v)
			}
		}
		row(b, cols)
	}
}

func (d *data) hasCPU() bool {
	for _, c := range d.cells {
		if len(c.cpuUS) > 0 {
			return true
		}
	}
	return false
}

// cpuTable shows the server CPU time per response.
func (d *data) cpuTable(b *strings.Builder, g setup) {
	d.serverTable(b, g, func(c *cell, _ int64) string {
		if len(c.cpuUS) == 0 {
			return ""
		}
		return micros(median(c.cpuUS))
	})
}

// clientTable shows the load generator's CPU share, bold where
// client-bound, with the server core's busy share.
func (d *data) clientTable(b *strings.Builder, g setup) {
	d.serverTable(b, g, func(c *cell, _ int64) string {
		if len(c.client) == 0 {
			return ""
		}
		v := pct(median(c.client))
		if c.clientBound() {
			v = "**" + v + "**"
		}
		if len(c.core) > 0 {
			v += " (" + pct(median(c.core)) + ")"
		}
		return v
	})
}

// micros formats a figure in µs or MB/s: whole above 100, one decimal below.
func micros(v float64) string {
	// Against the rounded value, so 99.97 is written 100, not 100.0.
	if math.Round(v*10) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// targets checks the targets of the benchmark's issue at the primary setup
// (plain HTTP/1.1, keep-alive, 32 connections, loopback), and, for "slower
// than stdlib beyond noise", at every setup.
func (d *data) targets(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	prim, ok := d.primary()
	if !d.has("jaws") || !ok {
		p("No jaws measurements.\n")
		return
	}
	if prim.level > 0 || len(d.nets) > 1 {
		p("At %s.\n\n", d.title(prim))
	}
	bare := d.has("jaws-bare")
	targetsHeader(b, bare)
	check := func(target, size, peer string, want float64) {
		if !d.has(peer) || d.bytes[size] == 0 {
			return
		}
		r := d.ratio(size, peer, prim)
		if math.IsNaN(r) {
			return
		}
		measured := fmt.Sprintf("%.3f×", r)
		if m := d.boundNote(size, "jaws", peer, prim); m != "" {
			measured += " (" + m + ")"
		}
		jb, pb := d.bound(size, "jaws", peer, prim)
		cols := []string{target, measured, met(r, want, jb, pb)}
		if bare {
			rb := d.ratioOf("jaws-bare", size, peer, prim)
			bb, pb := d.bound(size, "jaws-bare", peer, prim)
			cols = append(cols, fmt.Sprintf("%.3f× (%s)", rb, strings.Trim(met(rb, want, bb, pb), "*")))
		}
		row(b, cols)
	}
	check("1 KiB keep-alive: jaws ≥ 2.0× stdlib", d.sizeOf(1<<10), "stdlib", 2.0)
	for _, n := range []int64{1 << 10, 16 << 10, 64 << 10} {
		for _, peer := range []string{"ceiling-min", "ceiling"} {
			check(fmt.Sprintf("%s keep-alive: jaws ≥ 0.85× %s", sizeLabel(n), peer), d.sizeOf(n), peer, 0.85)
		}
	}
	if d.has("jaws-embed") && d.has("ceiling-min") {
		// jaws.NewFS over an embed.FS (issue 14's target).
		if size := d.sizeOf(1 << 10); d.bytes[size] != 0 {
			if r := d.ratioOf("jaws-embed", size, "ceiling-min", prim); !math.IsNaN(r) {
				cols := []string{"1 KiB keep-alive: jaws-embed (NewFS over an embed.FS) ≥ 0.9× ceiling-min", fmt.Sprintf("%.3f×", r), yes(r >= 0.9)}
				if bare {
					cols = append(cols, "")
				}
				row(b, cols)
			}
		}
	}
	if d.has("stdlib") {
		// Slower beyond noise: every run of jaws below every run of
		// stdlib, so the ranges do not overlap.
		worst, at, beyond := math.Inf(1), key{}, []string{}
		for _, st := range d.setups {
			for _, size := range d.sizes {
				j, s := d.cell(size, "jaws", st), d.cell(size, "stdlib", st)
				if j == nil || s == nil {
					continue
				}
				r := j.median() / s.median()
				if r < worst {
					worst, at = r, key{size: size, st: st}
				}
				if j.rps[len(j.rps)-1] < s.rps[0] {
					t := d.title(st)
					if strings.Contains(t, ", ") {
						t = "(" + t + ")"
					}
					e := strings.Join([]string{sizeLabel(d.bytes[size]), t, ratio(r)}, " ")
					if m := d.boundNote(size, "jaws", "stdlib", st); m != "" {
						e += " (" + m + ")"
					}
					beyond = append(beyond, e)
				}
			}
		}
		measured := fmt.Sprintf("lowest jaws/stdlib: %s (%s%s)", ratio(worst), sizeLabel(d.bytes[at.size]), titled(d.title(at.st)))
		if len(beyond) > 0 {
			measured += "; slower in every run at " + strings.Join(beyond, ", ")
		}
		verdict := yes(len(beyond) == 0)
		if d.runs < minNoiseRuns {
			// The range of one or two runs says nothing of the noise.
			verdict = fmt.Sprintf("unknown (fewer than %d runs)", minNoiseRuns)
		}
		cols := []string{"no size where jaws is slower than stdlib beyond noise (every jaws run below every stdlib run)", measured, verdict}
		if bare {
			cols = append(cols, "")
		}
		row(b, cols)
	}
}

// boundNote says which of two cells was client-bound, or "".
func (d *data) boundNote(size, a, b string, st setup) string {
	switch x, y := d.bound(size, a, b, st); {
	case x && y:
		return "both client-bound"
	case x:
		return a + " client-bound"
	case y:
		return b + " client-bound"
	}
	return ""
}

// has reports whether server was measured.
func (d *data) has(server string) bool {
	for _, s := range d.servers {
		if s == server {
			return true
		}
	}
	return false
}

// sizeOf names the measured size of n bytes, or "" when none is.
func (d *data) sizeOf(n int64) string {
	for _, s := range d.sizes {
		if d.bytes[s] == n {
			return s
		}
	}
	return ""
}

// ratio is jaws's median over peer's, NaN when either is missing.
func (d *data) ratio(size, peer string, st setup) float64 { return d.ratioOf("jaws", size, peer, st) }

// ratioOf is server's median over peer's.
func (d *data) ratioOf(server, size, peer string, st setup) float64 {
	j, o := d.cell(size, server, st), d.cell(size, peer, st)
	if j == nil || o == nil {
		return math.NaN()
	}
	return j.median() / o.median()
}

func (d *data) pathOf(size, proto string) string {
	if p := d.paths[pathKey(size, proto)]; p != "" {
		return p
	}
	return "?"
}

func row(b *strings.Builder, cols []string) {
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n")
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func modeShort(mode string) string {
	if mode == "keepalive" {
		return "ka"
	}
	return mode
}

// rate formats requests per second: 78.4k, 512, 3.2.
func rate(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v >= 1000:
		return fmt.Sprintf("%.1fk", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f×", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", v*100)
}

// sizeLabel writes n bytes as 1 KiB, 256 KiB, 10 MiB.
func sizeLabel(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// targetsHeader starts a targets table, with a column for jaws-bare when
// it was measured.
func targetsHeader(b *strings.Builder, bare bool) {
	if bare {
		row(b, []string{"target", "measured", "met", "jaws-bare (no router)"})
		row(b, []string{"---", "---", "---", "---"})
		return
	}
	row(b, []string{"target", "measured", "met"})
	row(b, []string{"---", "---", "---"})
}

// sections writes one section a group of d's: its heading, the title and
// then the group's table; intro, once, before the first table.
func sections(p func(string, ...any), d *data, h, title string, intro func(), table func(setup)) {
	for i, g := range d.groups() {
		p("%s "+title+"%s\n\n", h, titled(d.title(g)))
		if i == 0 {
			intro()
		}
		table(g)
		p("\n")
	}
}
