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
	if len(d.samples) > 0 {
		d.writeFiles(&b)
	}
	if d.compress != nil {
		writeCompress(&b, d.compress)
	}
	if len(d.samples) > 0 {
		p("## Charts\n\n")
		p("![throughput](throughput.svg)\n\n![requests per second](requests.svg)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFiles writes the files scenario's sections: requests/s, MB/s, CPU,
// noise and targets.
func (d *data) writeFiles(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
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
	p("Ratios divide medians. \"jaws path\" is the transfer path jaws took for that size (from its `Stats`).\n\n")

	for _, mode := range d.modes {
		p("## Requests per second, %s\n\n", modeTitle[mode])
		d.rpsTable(b, mode)
		p("\n")
	}
	p("## Throughput, MB/s of file bytes (10⁶ bytes/s, median)\n\n")
	d.mbpsTable(b)
	p("\n")
	if d.hasCPU() {
		p("## Server CPU time per response, µs (median)\n\n")
		p("The server's user and system time during a measurement over the responses wrk counted (clock ticks of 10 ms, so short runs of large files are coarse); it includes the kernel's work for the connection done in the server's system calls, not what the kernel counts as softirq time. It shows what a response costs rather than how fast it goes: where a server is busy all the time it is the inverse of requests/s; where it is not (large files, Connection: close), the difference shows how much time it spent waiting.\n\n")
		d.cpuTable(b)
		p("\n")
	}

	p("## Noise\n\n")
	med, worst, where := d.noise()
	p("Run-to-run spread over all %d cells: median %s, largest %s (%s, %s, %s).",
		len(d.cells), pct(med), pct(worst), where.server, sizeLabel(d.bytes[where.size]), modeTitle[where.mode])
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
	var bad []string
	for _, size := range d.sizes {
		for _, srv := range d.servers {
			for _, mode := range d.modes {
				if c := d.cell(size, srv, mode); c != nil && c.errors > 0 {
					bad = append(bad, fmt.Sprintf("%s %s %s: %d", srv, sizeLabel(d.bytes[size]), modeTitle[mode], c.errors))
				}
			}
		}
	}
	if len(bad) > 0 {
		p("\nwrk counted socket errors or non-2xx responses: %s.\n", strings.Join(bad, "; "))
	}
	p("\n")

	p("## Targets\n\n")
	d.targets(b)
	p("\n")
}

func (d *data) rpsTable(b *strings.Builder, mode string) {
	head := []string{"size", "jaws path"}
	head = append(head, d.servers...)
	var ratios []string
	if d.has("jaws") {
		for _, peer := range peers {
			if d.has(peer) {
				ratios = append(ratios, peer)
				head = append(head, "jaws/"+peer)
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
		cols := []string{sizeLabel(d.bytes[size]), d.pathOf(size)}
		for _, srv := range d.servers {
			c := d.cell(size, srv, mode)
			if c == nil {
				cols = append(cols, "")
				continue
			}
			cols = append(cols, fmt.Sprintf("%s ±%s", rate(c.median()), pct(c.spread())))
		}
		for _, peer := range ratios {
			cols = append(cols, ratio(d.ratio(size, peer, mode)))
		}
		row(b, cols)
	}
}

func (d *data) mbpsTable(b *strings.Builder) {
	d.serverTable(b, func(c *cell, bytes int64) string {
		return throughput(c.mbps(bytes))
	})
}

// serverTable writes one column per mode and server, a row per size, each
// cell formatted by value (empty where there is no measurement).
func (d *data) serverTable(b *strings.Builder, value func(c *cell, bytes int64) string) {
	head := []string{"size"}
	for _, mode := range d.modes {
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
		cols := []string{sizeLabel(d.bytes[size])}
		for _, mode := range d.modes {
			for _, srv := range d.servers {
				v := ""
				if c := d.cell(size, srv, mode); c != nil {
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

// cpuTable shows the server CPU time per response, with stdlib's and the
// ceiling's over jaws's (how many times more CPU they spend per response).
func (d *data) cpuTable(b *strings.Builder) {
	d.serverTable(b, func(c *cell, _ int64) string {
		if len(c.cpuUS) == 0 {
			return ""
		}
		return micros(median(c.cpuUS))
	})
}

func micros(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// targets checks the targets of the benchmark's issue.
func (d *data) targets(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if !d.has("jaws") {
		p("No jaws measurements.\n")
		return
	}
	bare := d.has("jaws-bare")
	targetsHeader(b, bare)
	check := func(target, size, peer string, want float64) {
		if !d.has(peer) || d.bytes[size] == 0 {
			return
		}
		r := d.ratio(size, peer, "keepalive")
		if math.IsNaN(r) {
			return
		}
		cols := []string{target, fmt.Sprintf("%.3f×", r), yes(r >= want)}
		if bare {
			rb := d.ratioOf("jaws-bare", size, peer, "keepalive")
			cols = append(cols, fmt.Sprintf("%.3f× (%s)", rb, yesNo(rb >= want)))
		}
		row(b, cols)
	}
	check("1 KiB keep-alive: jaws ≥ 2.0× stdlib", d.sizeOf(1<<10), "stdlib", 2.0)
	for _, n := range []int64{1 << 10, 16 << 10, 64 << 10} {
		for _, peer := range []string{"ceiling-min", "ceiling"} {
			check(fmt.Sprintf("%s keep-alive: jaws ≥ 0.85× %s", sizeLabel(n), peer), d.sizeOf(n), peer, 0.85)
		}
	}
	if d.has("stdlib") {
		// Slower beyond noise: every run of jaws below every run of
		// stdlib, so the ranges do not overlap.
		worst, at, beyond := math.Inf(1), key{}, []string{}
		for _, size := range d.sizes {
			for _, mode := range d.modes {
				j, s := d.cell(size, "jaws", mode), d.cell(size, "stdlib", mode)
				if j == nil || s == nil {
					continue
				}
				r := j.median() / s.median()
				if r < worst {
					worst, at = r, key{size: size, mode: mode}
				}
				if j.rps[len(j.rps)-1] < s.rps[0] {
					beyond = append(beyond, fmt.Sprintf("%s %s %s", sizeLabel(d.bytes[size]), modeTitle[mode], ratio(r)))
				}
			}
		}
		measured := fmt.Sprintf("lowest jaws/stdlib: %s (%s, %s)", ratio(worst), sizeLabel(d.bytes[at.size]), modeTitle[at.mode])
		if len(beyond) > 0 {
			measured += "; slower in every run at " + strings.Join(beyond, ", ")
		}
		cols := []string{"no size where jaws is slower than stdlib beyond noise (every jaws run below every stdlib run)", measured, yes(len(beyond) == 0)}
		if bare {
			cols = append(cols, "")
		}
		row(b, cols)
	}
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
func (d *data) ratio(size, peer, mode string) float64 { return d.ratioOf("jaws", size, peer, mode) }

// ratioOf is server's median over peer's.
func (d *data) ratioOf(server, size, peer, mode string) float64 {
	j, o := d.cell(size, server, mode), d.cell(size, peer, mode)
	if j == nil || o == nil {
		return math.NaN()
	}
	return j.median() / o.median()
}

func (d *data) pathOf(size string) string {
	if p := d.paths[size]; p != "" {
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

func throughput(v float64) string {
	if v >= 100 {
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
