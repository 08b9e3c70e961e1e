package main

import (
	"fmt"
	"math"
	"strings"
)

// minNoiseRuns is the fewest runs whose range tells noise from a difference.
const minNoiseRuns = 3

// targets checks the targets of the benchmark's issue at the primary setup
// (plain HTTP/1.1, keep-alive, 32 connections, loopback), and, for "slower
// than stdlib beyond noise", at every setup.
func (d *data) targets(b *strings.Builder) {
	prim, ok := d.primary()
	if !d.has("jaws") || !ok {
		fmt.Fprintf(b, "No jaws measurements.\n")
		return
	}
	if prim.level > 0 || len(d.nets) > 1 {
		fmt.Fprintf(b, "At %s.\n\n", d.title(prim))
	}
	bare := d.has("jaws-bare")
	targetsHeader(b, bare)
	d.checkTarget(b, prim, bare, "1 KiB keep-alive: jaws ≥ 2.0× stdlib", d.sizeOf(1<<10), "stdlib", 2.0)
	for _, n := range []int64{1 << 10, 16 << 10, 64 << 10} {
		for _, peer := range []string{"ceiling-min", "ceiling"} {
			d.checkTarget(b, prim, bare, fmt.Sprintf("%s keep-alive: jaws ≥ 0.85× %s", sizeLabel(n), peer), d.sizeOf(n), peer, 0.85)
		}
	}
	if d.has("jaws-embed") && d.has("ceiling-min") {
		d.embedTarget(b, prim, bare)
	}
	if d.has("stdlib") {
		d.noiseTarget(b, bare)
	}
}

// checkTarget writes the row of one target: jaws's requests/s at size over
// peer's at least want, and jaws-bare's figure when bare. A target whose
// size or peer was not measured gets no row.
func (d *data) checkTarget(b *strings.Builder, prim setup, bare bool, target, size, peer string, want float64) {
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

// embedTarget writes the row of jaws.NewFS over an embed.FS (issue 14's
// target): jaws-embed at 1 KiB at least 0.9× ceiling-min.
func (d *data) embedTarget(b *strings.Builder, prim setup, bare bool) {
	size := d.sizeOf(1 << 10)
	if d.bytes[size] == 0 {
		return
	}
	r := d.ratioOf("jaws-embed", size, "ceiling-min", prim)
	if math.IsNaN(r) {
		return
	}
	cols := []string{"1 KiB keep-alive: jaws-embed (NewFS over an embed.FS) ≥ 0.9× ceiling-min", fmt.Sprintf("%.3f×", r), yes(r >= 0.9)}
	if bare {
		cols = append(cols, "")
	}
	row(b, cols)
}

// noiseTarget writes the row of "no size where jaws is slower than stdlib
// beyond noise", over every setup.
func (d *data) noiseTarget(b *strings.Builder, bare bool) {
	worst, at, beyond := d.slowerThanStdlib()
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

// slowerThanStdlib finds jaws's lowest ratio to stdlib and where it is, and
// lists the cells where jaws was slower beyond noise: every run of jaws
// below every run of stdlib, so the ranges do not overlap.
func (d *data) slowerThanStdlib() (worst float64, at key, beyond []string) {
	worst, beyond = math.Inf(1), []string{}
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
				beyond = append(beyond, d.beyondNoise(size, st, r))
			}
		}
	}
	return worst, at, beyond
}

// beyondNoise names a cell where jaws was slower than stdlib in every run:
// its size, setup and ratio, and which side was client-bound.
func (d *data) beyondNoise(size string, st setup, r float64) string {
	t := d.title(st)
	if strings.Contains(t, ", ") {
		t = "(" + t + ")"
	}
	e := strings.Join([]string{sizeLabel(d.bytes[size]), t, ratio(r)}, " ")
	if m := d.boundNote(size, "jaws", "stdlib", st); m != "" {
		e += " (" + m + ")"
	}
	return e
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

// met says whether a ratio r of a over b reaches want, where a
// client-bound cell may hide the answer: a bound a makes r a lower bound
// (a may be faster), a bound b an upper one.
func met(r, want float64, aBound, bBound bool) string {
	if r >= want && bBound || r < want && aBound {
		return "unknown (client-bound)"
	}
	return yes(r >= want)
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
