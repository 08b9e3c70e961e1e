package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// A metric is what a chart plots on its y axis.
type metric struct {
	title string
	unit  string
	value func(bytes int64, rps float64) float64 // rps is one run, or the median
}

var (
	throughputMetric = metric{
		title: "Throughput",
		unit:  "MB/s of file bytes",
		value: func(bytes int64, rps float64) float64 { return rps * float64(bytes) / 1e6 },
	}
	requestsMetric = metric{
		title: "Requests per second",
		unit:  "requests/s",
		value: func(_ int64, rps float64) float64 { return rps },
	}
)

var serverStyle = map[string]struct {
	color, dash string
	width       float64
}{
	"jaws":        {"#d62728", "", 3},
	"jaws-bare":   {"#ff9896", "6,3", 2},
	"jaws-embed":  {"#ff7f0e", "2,3", 2},
	"stdlib":      {"#1f77b4", "", 1.8},
	"ceiling":     {"#2ca02c", "", 1.8},
	"ceiling-min": {"#2ca02c", "5,4", 1.5},
	"nginx":       {"#9467bd", "", 1.8},
}

const (
	panelW, panelH         = 480, 400
	panelHMany             = 320 // with more than two rows of panels
	marginL, marginR       = 64, 16
	marginT, marginB       = 34, 46
	headerH                = 58
	chartW                 = 2 * panelW
	fontFamily             = "Helvetica, Arial, sans-serif"
	gridColor, axisColor   = "#e4e4e4", "#444"
	markerColor, textColor = "#ff7f0e", "#222"
)

// A panel is one setup of the files or the tls scenario, at a place in the
// chart's grid of two columns.
type panel struct {
	d        *data
	st       setup
	row, col int
}

// panels lays out the setups the summary shows, over the first path: the
// files scenario a row per connection level, a column per mode; the tls
// scenario one row at its primary level, a column per protocol. The other
// path and TLS's other levels are in results.md's tables only, so that the
// chart stays readable.
func (d *data) panels() (out []panel, rows int) {
	for _, x := range d.scenarios() {
		rowOf := map[setup]int{}
		for _, st := range x.setups {
			if !x.shown(st) {
				continue
			}
			r, col := st.group(), rank(modeOrder, st.mode)
			if x.tls {
				r.proto, col = "", rank(protoOrder[1:], st.proto)
			}
			n, ok := rowOf[r]
			if !ok {
				n = rows
				rowOf[r] = n
				rows++
			}
			out = append(out, panel{x, st, n, min(col, 1)})
		}
	}
	return out, rows
}

// chart is one SVG being drawn: its metric, the height of its panels, the
// CacheMaxFileSize it marks, and the scales all its panels share, as log10
// of the file size (x) and of the metric (y).
type chart struct {
	b                  *strings.Builder
	m                  metric
	ph                 int
	cachemax           int64
	xlo, xhi, ylo, yhi float64
}

func (c *chart) p(format string, a ...any) { fmt.Fprintf(c.b, format, a...) }

// frame is a panel's plot area, in the chart's coordinates; ox is the
// panel's left edge.
type frame struct{ ox, left, right, top, bottom float64 }

// px places a file size on the x axis.
func (c *chart) px(f frame, bytes float64) float64 {
	return f.left + (math.Log10(bytes)-c.xlo)/(c.xhi-c.xlo)*(f.right-f.left)
}

// py places a value of the metric on the y axis.
func (c *chart) py(f frame, v float64) float64 {
	return f.bottom - (math.Log10(v)-c.ylo)/(c.yhi-c.ylo)*(f.bottom-f.top)
}

// writeSVG draws m against file size, one panel per setup, one line per
// server (the median, with a bar from the slowest to the fastest run; a
// hollow point where the load generator was client-bound), with jaws's
// CacheMaxFileSize marked.
func writeSVG(w io.Writer, d *data, m metric) error {
	var b strings.Builder
	panels, rows := d.panels()
	c := &chart{b: &b, m: m, ph: panelH}
	if rows > 2 {
		c.ph = panelHMany
	}
	c.writeHeader(d, headerH+rows*c.ph)
	c.writeLegend(panels)
	c.scale(panels)
	for _, pn := range panels {
		c.writePanel(pn)
	}
	c.p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeader opens the SVG and writes its title and what it shows.
func (c *chart) writeHeader(d *data, height int) {
	c.p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="12" fill="%s">`+"\n",
		chartW, height, chartW, height, fontFamily, textColor)
	c.p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	c.p(`<text x="%d" y="20" font-size="15" font-weight="bold">jaws load benchmark: %s (%s) against file size</text>`+"\n",
		marginL, esc(strings.ToLower(c.m.title[:1])+c.m.title[1:]), esc(c.m.unit))
	runs := max(d.runs, d.tlsRuns())
	c.p(`<text x="%d" y="38" font-size="11" fill="#555">median of %d run(s), bar from slowest to fastest run, hollow where the client was the bottleneck; server on 1 CPU, load generator on the other; log scales</text>`+"\n",
		marginL, runs)
}

// writeLegend writes the legend: every server of either scenario, and the
// CacheMaxFileSize marker when it is known, which it keeps for the panels.
func (c *chart) writeLegend(panels []panel) {
	set := map[string]bool{}
	for _, pn := range panels {
		for _, srv := range pn.d.servers {
			set[srv] = true
		}
		c.cachemax = max(c.cachemax, pn.d.cachemax)
	}
	servers := ordered(serverOrder, set)
	x := float64(marginL)
	for _, srv := range servers {
		st := style(srv)
		c.p(`<line x1="%.1f" y1="50" x2="%.1f" y2="50" stroke="%s" stroke-width="%.1f"%s/>`, x, x+22, st.color, st.width, dashAttr(st.dash))
		c.p(`<text x="%.1f" y="54">%s</text>`+"\n", x+27, esc(srv))
		x += 27 + 6.8*float64(len(srv)) + 18
	}
	if c.cachemax > 0 {
		c.p(`<line x1="%.1f" y1="44" x2="%.1f" y2="56" stroke="%s" stroke-width="1.5" stroke-dasharray="4,3"/>`, x, x, markerColor)
		c.p(`<text x="%.1f" y="54">jaws CacheMaxFileSize (memory | file)</text>`+"\n", x+6)
	}
}

// scale sets one y scale for all panels, so they compare, and one x scale
// for all sizes.
func (c *chart) scale(panels []panel) {
	lo, hi := math.Inf(1), math.Inf(-1)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, pn := range panels {
		for _, size := range pn.d.sizes {
			n := float64(pn.d.bytes[size])
			xlo, xhi = math.Min(xlo, math.Log10(n)), math.Max(xhi, math.Log10(n))
			for _, srv := range pn.d.servers {
				cl := pn.d.cell(size, srv, pn.st)
				if cl == nil {
					continue
				}
				for _, v := range []float64{cl.rps[0], cl.rps[len(cl.rps)-1]} {
					if y := c.m.value(pn.d.bytes[size], v); y > 0 {
						lo, hi = math.Min(lo, y), math.Max(hi, y)
					}
				}
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10
	}
	ylo, yhi := math.Log10(step125(lo, false)), math.Log10(step125(hi, true))
	if yhi <= ylo {
		yhi = ylo + 1
	}
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	pad := (xhi - xlo) * 0.04
	c.xlo, c.xhi, c.ylo, c.yhi = xlo-pad, xhi+pad, ylo, yhi
}

// writePanel draws one panel: its title, axes, the marker and a line per
// server, jaws last so it is drawn on top.
func (c *chart) writePanel(pn panel) {
	ox, oy := float64(pn.col*panelW), float64(headerH+pn.row*c.ph)
	f := frame{ox: ox, left: ox + marginL, right: ox + panelW - marginR, top: oy + marginT, bottom: oy + float64(c.ph) - marginB}
	title := pn.d.title(pn.st)
	c.p(`<g>` + "\n")
	c.p(`<text x="%.1f" y="%.1f" font-size="13" font-weight="bold">%s</text>`+"\n", f.left, f.top-12, esc(title))
	c.writeAxes(f, pn.d)
	c.writeMarker(f)
	for _, srv := range drawOrder(pn.d.servers) {
		c.writeServer(f, pn, srv, title)
	}
	c.p(`</g>` + "\n")
}

// writeAxes draws a panel's grid with its y labels (1, 2, 5 in each
// decade), its x ticks at the measured sizes, its frame and the axes'
// names.
func (c *chart) writeAxes(f frame, pd *data) {
	for e := math.Floor(c.ylo); e <= c.yhi; e++ {
		for _, k := range []float64{1, 2, 5} {
			v := k * math.Pow(10, e)
			if l := math.Log10(v); l < c.ylo-1e-9 || l > c.yhi+1e-9 {
				continue
			}
			y := c.py(f, v)
			c.p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, f.left, y, f.right, y, gridColor)
			c.p(`<text x="%.1f" y="%.1f" text-anchor="end" font-size="11">%s</text>`+"\n", f.left-5, y+4, esc(short(v)))
		}
	}
	for _, size := range pd.sizes {
		xx := c.px(f, float64(pd.bytes[size]))
		c.p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, xx, f.top, xx, f.bottom, gridColor)
		c.p(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", xx, f.bottom+15, esc(sizeLabel(pd.bytes[size])))
	}
	c.p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="%s"/>`+"\n", f.left, f.top, f.right-f.left, f.bottom-f.top, axisColor)
	c.p(`<text x="%.1f" y="%.1f" text-anchor="middle">file size</text>`+"\n", (f.left+f.right)/2, f.bottom+33)
	c.p(`<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", f.ox+15, (f.top+f.bottom)/2, esc(c.m.unit))
}

// writeMarker marks the crossover, CacheMaxFileSize, where it falls inside
// the x scale.
func (c *chart) writeMarker(f frame) {
	cm := float64(c.cachemax)
	if inside := cm > 0 && math.Log10(cm) > c.xlo && math.Log10(cm) < c.xhi; !inside {
		return
	}
	xx := c.px(f, cm)
	c.p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="4,3"/>`+"\n", xx, f.top, xx, f.bottom, markerColor)
	c.p(`<text x="%.1f" y="%.1f" text-anchor="end" font-size="10" fill="%s">memory ←</text>`, xx-4, f.bottom-6, markerColor)
	c.p(`<text x="%.1f" y="%.1f" font-size="10" fill="%s">→ file</text>`+"\n", xx+4, f.bottom-6, markerColor)
	c.p(`<text x="%.1f" y="%.1f" font-size="10" fill="%s">CacheMaxFileSize %s</text>`+"\n", xx+4, f.top+12, markerColor, esc(sizeLabel(c.cachemax)))
}

// drawOrder is servers with jaws-bare and then jaws moved to the end, so
// that jaws is drawn on top.
func drawOrder(servers []string) []string {
	order := append([]string{}, servers...)
	for _, lead := range []string{"jaws-bare", "jaws"} {
		for j, srv := range order {
			if srv == lead {
				order = append(append(order[:j:j], order[j+1:]...), lead)
				break
			}
		}
	}
	return order
}

// writeServer draws one server's line in a panel, then a point per size
// with its bar from the slowest to the fastest run.
func (c *chart) writeServer(f frame, pn panel, srv, title string) {
	pd, st := pn.d, style(srv)
	var pts, marks []string
	q := func(format string, a ...any) { marks = append(marks, fmt.Sprintf(format, a...)) }
	for _, size := range pd.sizes {
		cl := pd.cell(size, srv, pn.st)
		if cl == nil {
			continue
		}
		n := pd.bytes[size]
		v := c.m.value(n, cl.median())
		if v <= 0 {
			continue
		}
		xx := c.px(f, float64(n))
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xx, c.py(f, v)))
		vlo, vhi := c.m.value(n, cl.rps[0]), c.m.value(n, cl.rps[len(cl.rps)-1])
		if vlo > 0 && vhi > vlo {
			q(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`, xx, c.py(f, vlo), xx, c.py(f, vhi), st.color)
		}
		paint, note := fmt.Sprintf(`fill="%s"`, st.color), ""
		if cl.clientBound() {
			paint, note = fmt.Sprintf(`fill="#fff" stroke="%s" stroke-width="1.5"`, st.color), " (client-bound)"
		}
		q(`<circle cx="%.1f" cy="%.1f" r="%.1f" %s><title>%s %s %s: %s%s</title></circle>`+"\n",
			xx, c.py(f, v), 1.2+st.width/1.5, paint, esc(srv), esc(sizeLabel(n)), esc(title), esc(short(v)+" "+c.m.unit), note)
	}
	// The line first, so that the points (hollow ones too) are on it.
	if len(pts) > 1 {
		c.p(`<polyline class="%s" points="%s" fill="none" stroke="%s" stroke-width="%.1f"%s/>`+"\n",
			esc(srv), strings.Join(pts, " "), st.color, st.width, dashAttr(st.dash))
	}
	c.p("%s", strings.Join(marks, ""))
}

// step125 rounds v down (or up) to 1, 2 or 5 times a power of ten.
func step125(v float64, up bool) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	steps := []float64{1, 2, 5, 10}
	if up {
		for _, f := range steps {
			if f*e >= v*(1-1e-9) {
				return f * e
			}
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i]*e <= v*(1+1e-9) {
			return steps[i] * e
		}
	}
	return e
}

func style(server string) struct {
	color, dash string
	width       float64
} {
	if st, ok := serverStyle[server]; ok {
		return st
	}
	return struct {
		color, dash string
		width       float64
	}{"#7f7f7f", "", 1.5}
}

func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return fmt.Sprintf(` stroke-dasharray="%s"`, dash)
}

// short writes an axis value: 500, 2k, 10k, 1.5M, 0.5.
func short(v float64) string {
	switch {
	case v >= 1e6:
		return trim(v/1e6) + "M"
	case v >= 1e3:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

func trim(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace
