package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// writeSummaryFile writes summary.md: the summary table alone, for the
// project's README.
func writeSummaryFile(w io.Writer, d *data) error {
	var b strings.Builder
	d.writeSummary(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

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
