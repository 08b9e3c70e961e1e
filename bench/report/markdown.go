package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

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

// hasCharts: the files or the tls scenario was measured, so there is a
// summary and there are charts.
func (d *data) hasCharts() bool { return len(d.samples) > 0 || d.tlsData != nil }

// writeScenario writes the files or the tls scenario's sections:
// requests/s, MB/s, server CPU, the load generator's CPU, noise, and the
// files scenario's targets.
func (d *data) writeScenario(b *strings.Builder) {
	// The tls scenario's sections sit under a heading of its own.
	h := "##"
	if d.tls {
		h = "###"
	}
	d.writeScenarioIntro(b)
	d.writeScenarioTables(b, h)
	d.writeNoise(b, h)
	if !d.tls {
		fmt.Fprintf(b, "## Targets\n\n")
		d.targets(b)
		fmt.Fprintf(b, "\n")
	}
}

// writeScenarioIntro writes the tls scenario's heading, the setup and what
// the figures are.
func (d *data) writeScenarioIntro(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if d.tls {
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
}

// writeScenarioTables writes the tables: requests/s per setup, then MB/s,
// server CPU and the load generator's CPU per group.
func (d *data) writeScenarioTables(b *strings.Builder, h string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
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
}

// writeNoise writes the noise section: the spread over all cells and by
// server, other processes, client-bound cells and errors.
func (d *data) writeNoise(b *strings.Builder, h string) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("%s Noise\n\n", h)
	med, worst, where := d.noise()
	p("Run-to-run spread over all %d cells: median %s, largest %s (%s, %s%s).",
		len(d.cells), pct(med), pct(worst), where.server, sizeLabel(d.bytes[where.size]), titled(d.title(where.st)))
	p(" By server (median spread of its cells):")
	for i, srv := range d.servers {
		sep := ","
		if i == 0 {
			sep = ""
		}
		p("%s %s %s", sep, srv, pct(d.serverSpread(srv)))
	}
	p(".\n")
	d.writeDisturbed(b)
	if d.hasClient() {
		d.writeClientBoundCount(b)
	}
	d.writeErrors(b)
	p("\n")
}

// serverSpread is the median spread of a server's cells.
func (d *data) serverSpread(srv string) float64 {
	var sp []float64
	for k, c := range d.cells {
		if k.server == srv {
			sp = append(sp, c.spread())
		}
	}
	slices.Sort(sp)
	return median(sp)
}

// writeDisturbed says how many measurements other processes disturbed,
// when run.sh recorded its limit for them.
func (d *data) writeDisturbed(b *strings.Builder) {
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
		fmt.Fprintf(b, "\nOther processes on the machine: %d of %d measurements were repeated because other processes used more than %.2f CPUs meanwhile; %d kept more than that after the retries; the most any kept measurement shared was %.2f CPUs.\n",
			repeated, len(d.samples), d.quiet, disturbed, worstOther)
	}
}

// writeClientBoundCount says how many of the cells with the load
// generator's CPU known were client-bound.
func (d *data) writeClientBoundCount(b *strings.Builder) {
	bound, n := 0, 0
	for _, c := range d.cells {
		if len(c.client) > 0 {
			n++
			if c.clientBound() {
				bound++
			}
		}
	}
	fmt.Fprintf(b, "\nClient-bound: %d of %d cells.\n", bound, n)
}

// writeErrors lists the cells in which the load generator counted errors.
func (d *data) writeErrors(b *strings.Builder) {
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
		fmt.Fprintf(b, "\nThe load generator counted socket errors or non-2xx responses: %s.\n", strings.Join(bad, "; "))
	}
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
