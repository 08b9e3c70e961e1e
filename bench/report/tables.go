package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// peers are the servers jaws is compared with, in the order of the ratio
// columns.
var peers = []string{"stdlib", "ceiling", "ceiling-min", "nginx"}

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

func (d *data) mbpsTable(b *strings.Builder, g setup) {
	d.serverTable(b, g, func(c *cell, bytes int64) string {
		return micros(c.mbps(bytes))
	})
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

func (d *data) pathOf(size, proto string) string {
	if p := d.paths[pathKey(size, proto)]; p != "" {
		return p
	}
	return "?"
}
