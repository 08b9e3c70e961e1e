package main

import (
	"fmt"
	"slices"
	"strings"
)

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
