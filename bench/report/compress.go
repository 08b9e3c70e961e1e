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

// The compression scenario: one JavaScript file served by each server with
// and without Accept-Encoding: gzip (raw/compress.csv, raw/compress-meta.txt).

// The cases in the order the table shows them: jaws first, then the peers
// compressing, then the uncompressed ones.
var caseOrder = []ckey{
	{"jaws", "gzip"}, {"jaws-bare", "gzip"}, {"chi-compress", "gzip"}, {"nginx-gzip", "gzip"},
	{"jaws", "identity"}, {"jaws-bare", "identity"}, {"stdlib", "identity"},
}

// ckey is one case: a server answering in an encoding.
type ckey struct{ server, encoding string }

func (k ckey) String() string { return k.server + " " + k.encoding }

// ccell is every run of one case.
type ccell struct {
	cell
	wire   []float64 // bytes on the wire per response, from wrk: transfer/s over requests/s; sorted
	header int64     // header bytes of one response (status line included), from run.sh's check
	body   int64     // body bytes of one response (chunked framing removed), from run.sh's check
	raw    int64     // bytes on the wire of one response, from run.sh's check; 0 if unknown
	most   float64   // the most CPUs other processes used during a run
}

// cdata is the compression scenario's results.
type cdata struct {
	file    string // "app.js"
	bytes   int64  // its size
	cases   []ckey
	cells   map[ckey]*ccell
	meta    [][2]string
	runs    int
	samples int
	others  []float64 // the CPUs other processes used during each measurement
	quiet   float64   // run.sh's limit for them; 0 if unknown
	stats   []jawsStats
}

// jawsStats are a jaws server's counters around the measurements.
type jawsStats struct {
	server                 string
	comp0, comp1           int64 // Stats.Compressions before and after
	enc0, enc1             int64 // Stats.Encoded before and after
	counted                int64 // the gzip responses wrk counted
	compOK, encOK, present bool
}

// loadCompress reads compress.csv and compress-meta.txt from dir; it
// returns nil and no error when there is no compress.csv.
func loadCompress(dir string) (*cdata, error) {
	f, err := os.Open(filepath.Join(dir, "compress.csv"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := parseCompress(f)
	if err != nil {
		return nil, fmt.Errorf("compress.csv: %w", err)
	}
	if f, err := os.Open(filepath.Join(dir, "compress-meta.txt")); err == nil {
		defer f.Close()
		if c.meta, err = parseMeta(f); err != nil {
			return nil, fmt.Errorf("compress-meta.txt: %w", err)
		}
		for _, kv := range c.meta {
			if kv[0] == "quiet" {
				c.quiet, _ = strconv.ParseFloat(kv[1], 64)
			}
			if srv, ok := strings.CutSuffix(kv[0], " stats"); ok {
				s, err := parseStats(srv, kv[1])
				if err != nil {
					return nil, fmt.Errorf("compress-meta.txt: %s: %w", kv[0], err)
				}
				c.stats = append(c.stats, s)
			}
		}
	}
	return c, nil
}

// parseStats reads "compressions 1 1, encoded 10 2000, wrk gzip responses 1990".
func parseStats(server, v string) (jawsStats, error) {
	s := jawsStats{server: server, present: true}
	n, err := fmt.Sscanf(v, "compressions %d %d, encoded %d %d, wrk gzip responses %d",
		&s.comp0, &s.comp1, &s.enc0, &s.enc1, &s.counted)
	if err != nil || n != 5 {
		return s, fmt.Errorf("cannot read %q", v)
	}
	s.compOK = s.comp1 == s.comp0
	s.encOK = s.enc1-s.enc0 >= s.counted
	return s, nil
}

// parseCompress reads the CSV run.sh writes for the compress scenario,
// finding columns by name.
func parseCompress(r io.Reader) (*cdata, error) {
	t, err := readTable(r, "run", "file", "bytes", "server", "encoding", "rps")
	if err != nil {
		return nil, err
	}
	_, hasCPU := t.col["server_cpu_s"]
	c := &cdata{cells: map[ckey]*ccell{}}
	seen := map[ckey]bool{}
	for n := range t.rows {
		v, err := t.nums(n, "run", "bytes", "rps", "socket_errors", "non2xx", "other_cpus", "retries",
			"requests", "server_cpu_s", "transfer_bps", "header_bytes", "body_bytes", "wire_bytes",
			"client_cpu_s", "client_wall_s", "server_core_busy")
		if err != nil {
			return nil, err
		}
		k := ckey{t.str(n, "server"), t.str(n, "encoding")}
		c.file, c.bytes = t.str(n, "file"), int64(v["bytes"])
		cc := c.cells[k]
		if cc == nil {
			cc = &ccell{}
			c.cells[k] = cc
		}
		seen[k] = true
		cc.rps = append(cc.rps, v["rps"])
		cc.errors += int64(v["socket_errors"] + v["non2xx"])
		if hasCPU && v["requests"] > 0 {
			cc.cpuUS = append(cc.cpuUS, v["server_cpu_s"]/v["requests"]*1e6)
		}
		if v["client_wall_s"] > 0 {
			cc.client = append(cc.client, v["client_cpu_s"]/v["client_wall_s"])
		}
		if v["rps"] > 0 && v["transfer_bps"] > 0 {
			cc.wire = append(cc.wire, v["transfer_bps"]/v["rps"])
		}
		cc.header, cc.body, cc.raw = int64(v["header_bytes"]), int64(v["body_bytes"]), int64(v["wire_bytes"])
		cc.most = max(cc.most, v["other_cpus"])
		c.others = append(c.others, v["other_cpus"])
		c.runs = max(c.runs, int(v["run"]))
		c.samples++
	}
	for _, cc := range c.cells {
		slices.Sort(cc.rps)
		slices.Sort(cc.cpuUS)
		slices.Sort(cc.wire)
		slices.Sort(cc.client)
	}
	for _, k := range caseOrder {
		if seen[k] {
			c.cases = append(c.cases, k)
		}
	}
	var rest []ckey
	for k := range seen {
		if !slices.Contains(caseOrder, k) {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(rest, func(a, b ckey) int { return strings.Compare(a.String(), b.String()) })
	c.cases = append(c.cases, rest...)
	return c, nil
}

// wireBytes is the bytes on the wire of one response: as run.sh counted
// them, else wrk's estimate; NaN if neither is known.
func (cc *ccell) wireBytes() float64 {
	if cc.raw > 0 {
		return float64(cc.raw)
	}
	return median(cc.wire)
}

func (c *cdata) cell(server, encoding string) *ccell { return c.cells[ckey{server, encoding}] }

// ratio is a's median requests/s over b's; NaN when either is missing.
func (c *cdata) ratio(a, b ckey) float64 {
	x, y := c.cells[a], c.cells[b]
	if x == nil || y == nil {
		return math.NaN()
	}
	return x.median() / y.median()
}

// writeCompress writes the compression section of results.md.
func writeCompress(b *strings.Builder, c *cdata) {
	c.writeIntro(b)
	c.writeCases(b)
	c.writeTargets(b)
	c.writeSaving(b)
	c.writeCounters(b)
	c.writeOthers(b)
}

// writeIntro writes the section's heading, what the figures are and the
// setup.
func (c *cdata) writeIntro(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("## Compression: %s JavaScript, keep-alive\n\n", sizeLabel(c.bytes))
	p("From `bench/run.sh`'s compress scenario; see `bench/README.md`. ")
	p("`%s` is %d bytes of real JavaScript; each server is asked for it with `Accept-Encoding: gzip` (gzip) or without (identity). ", c.file, c.bytes)
	p("Each figure is the median of %d run(s); `±` is that case's run-to-run spread, (max − min) / median. ", c.runs)
	p("\"(client-bound)\": wrk used ≥ %.0f%% of its core (median of the runs), so the figure tells how fast the client went. ", clientBound*100)
	p("Body and header bytes are those of one response as `run.sh` checked it (the header's with the status line); bytes on the wire are all of it as sent, chunked framing included (`curl --raw`), or, from older results, wrk's transfer over its requests.\n\n")
	if len(c.meta) > 0 {
		for _, kv := range c.meta {
			if strings.HasSuffix(kv[0], " stats") {
				continue
			}
			p("- %s: %s\n", kv[0], kv[1])
		}
		p("\n")
	}
}

// writeCases writes the table of the cases, a row each.
func (c *cdata) writeCases(b *strings.Builder) {
	jawsGzip := ckey{"jaws", "gzip"}
	row(b, []string{"server", "encoding", "requests/s", "server CPU µs/response", "body bytes", "header bytes", "bytes on the wire", "jaws gzip ÷ this"})
	row(b, []string{"---", "---", "---:", "---:", "---:", "---:", "---:", "---:"})
	for _, k := range c.cases {
		cc := c.cells[k]
		cpu, wire := "", ""
		if len(cc.cpuUS) > 0 {
			cpu = micros(median(cc.cpuUS))
		}
		if w := cc.wireBytes(); !math.IsNaN(w) {
			wire = fmt.Sprintf("%.0f", w)
		}
		vs := ""
		if k != jawsGzip {
			vs = ratio(c.ratio(jawsGzip, k))
		}
		rps := fmt.Sprintf("%s ±%s", rate(cc.median()), pct(cc.spread()))
		if cc.clientBound() {
			rps += " (client-bound)"
		}
		row(b, []string{"`" + k.server + "`", k.encoding, rps,
			cpu, strconv.FormatInt(cc.body, 10), strconv.FormatInt(cc.header, 10), wire, vs})
	}
	fmt.Fprintf(b, "\n")
}

// writeTargets writes the scenario's targets: jaws's gzip against
// chi-compress, and against its own identity responses.
func (c *cdata) writeTargets(b *strings.Builder) {
	fmt.Fprintf(b, "### Targets\n\n")
	bare := c.cell("jaws-bare", "gzip") != nil
	targetsHeader(b, bare)
	size := sizeLabel(c.bytes)
	for _, t := range []struct {
		target string
		peer   ckey
		bare   ckey // jaws-bare's own peer
		want   float64
	}{
		{fmt.Sprintf("%s JavaScript, gzip, keep-alive: jaws ≥ 5× chi-compress", size),
			ckey{"chi-compress", "gzip"}, ckey{"chi-compress", "gzip"}, 5},
		{fmt.Sprintf("%s JavaScript, keep-alive: jaws gzip ≥ 0.8× jaws identity (no Accept-Encoding)", size),
			ckey{"jaws", "identity"}, ckey{"jaws-bare", "identity"}, 0.8},
	} {
		r := c.ratio(ckey{"jaws", "gzip"}, t.peer)
		if math.IsNaN(r) {
			continue
		}
		cols := []string{t.target, fmt.Sprintf("%.3f×", r), yes(r >= t.want)}
		if bare {
			rb := c.ratio(ckey{"jaws-bare", "gzip"}, t.bare)
			v := "-"
			if !math.IsNaN(rb) {
				v = fmt.Sprintf("%.3f× (%s)", rb, yesNo(rb >= t.want))
			}
			cols = append(cols, v)
		}
		row(b, cols)
	}
	fmt.Fprintf(b, "\n")
}

// writeSaving says how much smaller jaws's gzip response is than its
// identity one.
func (c *cdata) writeSaving(b *strings.Builder) {
	g, id := c.cell("jaws", "gzip"), c.cell("jaws", "identity")
	if g == nil || id == nil || id.body <= 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("jaws's gzip response carries %d body bytes for the file's %d: %s saved on the body", g.body, id.body, pct(1-float64(g.body)/float64(id.body)))
	if gw, iw := g.wireBytes(), id.wireBytes(); !math.IsNaN(gw) && !math.IsNaN(iw) {
		p(", %s on the wire (headers included)", pct(1-gw/iw))
	}
	p(". The demo site's bytes on the wire per encoding are in [wire.md](wire.md).\n\n")
}

// writeCounters writes what jaws's counters say of the measurements: no
// compression while measuring, and an encoded response for each gzip
// response wrk counted.
func (c *cdata) writeCounters(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	for _, s := range c.stats {
		p("%s's counters (`Stats`, from `/debug/jaws`) over the measurements: ", "`"+s.server+"`")
		if s.compOK {
			p("`Compressions` %d before and after, so no response was compressed while measuring", s.comp0)
		} else {
			p("**`Compressions` grew from %d to %d: responses were compressed while measuring**", s.comp0, s.comp1)
		}
		p("; `Encoded` grew by %d against %d gzip responses wrk counted", s.enc1-s.enc0, s.counted)
		switch {
		case s.enc1-s.enc0 > s.counted:
			p(" (the difference: responses in flight when wrk stopped)")
		case !s.encOK:
			p(" (**fewer: some gzip requests were answered uncompressed**)")
		}
		p(".\n\n")
	}
}

// writeOthers writes how much other processes used during the
// measurements, and the errors wrk counted.
func (c *cdata) writeOthers(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	var bad []string
	worstOther := 0.0
	for _, k := range c.cases {
		cc := c.cells[k]
		if cc.errors > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d", k, cc.errors))
		}
		worstOther = max(worstOther, cc.most)
	}
	p("The most other processes used during any of the %d measurements: %.2f CPUs", c.samples, worstOther)
	if c.quiet > 0 {
		n := 0
		for _, o := range c.others {
			if o > c.quiet {
				n++
			}
		}
		p("; %d kept more than %.2f after the retries", n, c.quiet)
	}
	p(".")
	if len(bad) > 0 {
		p(" wrk counted socket errors or non-2xx responses: %s.", strings.Join(bad, "; "))
	}
	p("\n\n")
}
