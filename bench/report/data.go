package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The servers in the order tables and legends show them; a server missing
// from the results is left out.
var serverOrder = []string{"jaws", "jaws-bare", "jaws-embed", "stdlib", "ceiling", "ceiling-min", "nginx"}

// The connection modes: wrk's default keep-alive, and "Connection: close".
var modeOrder = []string{"keepalive", "close"}

var modeTitle = map[string]string{"keepalive": "keep-alive", "close": "Connection: close"}

// The protocols: "" is plain HTTP/1.1 (results.csv, wrk), "h1" and "h2"
// HTTP/1.1 and HTTP/2 over TLS (tls.csv, h2load).
var protoOrder = []string{"", "h1", "h2"}

var protoTitle = map[string]string{"": "HTTP/1.1", "h1": "HTTP/1.1 over TLS", "h2": "HTTP/2 over TLS"}

// The paths between load generator and server.
var netOrder = []string{"loopback", "veth"}

// clientBound is the share of its core the load generator must use, at the
// median of a cell's runs, for the cell to count as client-bound: then its
// requests/s tell how fast the client went, not the server.
const clientBound = 0.95

// setup is one combination of the axes besides size and server.
type setup struct {
	proto string // see protoOrder
	net   string // see netOrder
	level int    // the connections asked for (run.sh -conns); 0 in results from before the axis
	mode  string // see modeOrder
}

// group is the setup without its mode: the tables with a column per mode
// and server show one group each.
func (s setup) group() setup { s.mode = ""; return s }

// sample is one measurement: one row of results.csv or tls.csv.
type sample struct {
	run    int
	size   string // as named by run.sh: "1K", "10M"
	bytes  int64
	server string
	st     setup
	conns  int // the connections used: the level, or fewer for large files
	rps    float64
	errors int64   // socket errors and non-2xx/3xx responses
	other  float64 // CPUs other processes used meanwhile
	tries  int     // 1 + how often it was repeated for being disturbed
	cpuUS  float64 // the server's CPU time per response in µs; NaN if unknown
	client float64 // the load generator's CPU time over its wall time; NaN if unknown
	core   float64 // the server's core's busy share; NaN if unknown
}

// cell is every run of one server for one size and setup.
type cell struct {
	rps    []float64 // sorted
	cpuUS  []float64 // sorted, the known ones
	client []float64 // the load generator's CPU shares, sorted, the known ones
	core   []float64 // the server core's busy shares, sorted, the known ones
	conns  int       // the connections used (the most, should they differ)
	errors int64
}

func (c *cell) median() float64 { return median(c.rps) }

// clientBound reports whether the load generator used at least clientBound
// of its core, at the median of the runs, in whole percent as the tables
// show it (94.6% is 95%).
func (c *cell) clientBound() bool {
	return len(c.client) > 0 && math.Round(median(c.client)*100) >= clientBound*100
}

// spread is the cell's range relative to its median: (max-min)/median.
func (c *cell) spread() float64 {
	if len(c.rps) == 0 || c.median() == 0 {
		return 0
	}
	return (c.rps[len(c.rps)-1] - c.rps[0]) / c.median()
}

// mbps is the body throughput in MB/s (10^6 bytes) at the median.
func (c *cell) mbps(bytes int64) float64 { return c.median() * float64(bytes) / 1e6 }

type key struct {
	size, server string
	st           setup
}

// data is everything the report shows of one scenario measured with wrk or
// h2load (files, tls), and the other scenarios' results.
type data struct {
	tls      bool     // the tls scenario (tls.csv)
	sizes    []string // ascending by bytes
	bytes    map[string]int64
	servers  []string
	setups   []setup // in the order of the tables: proto, net, level, mode
	nets     []string
	modes    []string
	cells    map[key]*cell
	paths    map[string]string // pathKey(size, proto) -> jaws's transfer path
	meta     [][2]string       // setup, in file order
	cachemax int64             // jaws's CacheMaxFileSize; 0 if unknown
	quiet    float64           // the disturbance limit, in CPUs used by others; 0 if unknown
	runs     int
	samples  []sample
	compress *cdata // the compress scenario's results; nil if none
	tlsData  *data  // the tls scenario's results; nil if none
}

func (d *data) cell(size, server string, st setup) *cell { return d.cells[key{size, server, st}] }

func pathKey(size, proto string) string {
	if proto == "" {
		return size
	}
	return size + " " + proto
}

func build(samples []sample) *data {
	d := &data{bytes: map[string]int64{}, cells: map[key]*cell{}, paths: map[string]string{}, samples: samples}
	servers, modes, nets, setups := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[setup]bool{}
	for _, s := range samples {
		if _, ok := d.bytes[s.size]; !ok {
			d.sizes = append(d.sizes, s.size)
		}
		d.bytes[s.size] = s.bytes
		servers[s.server], modes[s.st.mode], nets[s.st.net], setups[s.st] = true, true, true, true
		k := key{s.size, s.server, s.st}
		c := d.cells[k]
		if c == nil {
			c = &cell{}
			d.cells[k] = c
		}
		c.rps = append(c.rps, s.rps)
		if !math.IsNaN(s.cpuUS) {
			c.cpuUS = append(c.cpuUS, s.cpuUS)
		}
		if !math.IsNaN(s.client) {
			c.client = append(c.client, s.client)
		}
		if !math.IsNaN(s.core) {
			c.core = append(c.core, s.core)
		}
		c.conns = max(c.conns, s.conns)
		c.errors += s.errors
		d.runs = max(d.runs, s.run)
	}
	for _, c := range d.cells {
		slices.Sort(c.rps)
		slices.Sort(c.cpuUS)
		slices.Sort(c.client)
		slices.Sort(c.core)
	}
	slices.SortStableFunc(d.sizes, func(a, b string) int { return int(d.bytes[a] - d.bytes[b]) })
	d.servers = ordered(serverOrder, servers)
	d.modes = ordered(modeOrder, modes)
	d.nets = ordered(netOrder, nets)
	for st := range setups {
		d.setups = append(d.setups, st)
	}
	slices.SortFunc(d.setups, compareSetups)
	return d
}

// compareSetups orders setups by protocol, path, connections and mode.
func compareSetups(a, b setup) int {
	if c := cmp.Compare(rank(protoOrder, a.proto), rank(protoOrder, b.proto)); c != 0 {
		return c
	}
	if c := cmp.Compare(rank(netOrder, a.net), rank(netOrder, b.net)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.level, b.level); c != 0 {
		return c
	}
	return cmp.Compare(rank(modeOrder, a.mode), rank(modeOrder, b.mode))
}

// rank is v's place in known, or past its end (then by name, through the
// callers' stable order) when it is not there.
func rank(known []string, v string) int {
	if i := slices.Index(known, v); i >= 0 {
		return i
	}
	return len(known)
}

// protos lists the protocols measured, in order.
func (d *data) protos() []string {
	var out []string
	for _, st := range d.setups {
		if !slices.Contains(out, st.proto) {
			out = append(out, st.proto)
		}
	}
	return out
}

// groups lists the setups without their modes, in order.
func (d *data) groups() []setup {
	var out []setup
	for _, st := range d.setups {
		if g := st.group(); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// title names a setup, or a group, in headings: its protocol over TLS, its
// path when there is more than loopback, its connections when known, its
// mode. An empty title is the files scenario's only group in older results.
func (d *data) title(st setup) string {
	var parts []string
	if st.proto != "" {
		parts = append(parts, protoTitle[st.proto])
	}
	if st.net != "" && (len(d.nets) > 1 || st.net != "loopback") {
		parts = append(parts, st.net)
	}
	if st.level > 0 {
		parts = append(parts, fmt.Sprintf("%d connections", st.level))
	}
	if st.mode != "" {
		parts = append(parts, modeTitle[st.mode])
	}
	return strings.Join(parts, ", ")
}

// subject is the jaws server the ratios are taken of: the example ("jaws")
// when measured, else the bare handler (the tls scenario has only it).
func (d *data) subject() string {
	if !d.has("jaws") && d.has("jaws-bare") {
		return "jaws-bare"
	}
	return "jaws"
}

// primary is the setup the targets are checked at: plain HTTP/1.1 over
// loopback, keep-alive, 32 connections (or the fewest measured).
func (d *data) primary() (setup, bool) { return d.primaryOf("") }

// primaryOf is the primary setup of a protocol: over the first path,
// keep-alive, 32 connections or the fewest measured.
func (d *data) primaryOf(proto string) (setup, bool) {
	best, ok := setup{}, false
	for _, st := range d.setups {
		if st.proto != proto || st.mode != "keepalive" || st.net != d.nets[0] {
			continue
		}
		if !ok || st.level == 32 || (best.level != 32 && st.level < best.level) {
			best, ok = st, true
		}
	}
	return best, ok
}

// ordered lists the names in set, those of known first in known's order.
func ordered(known []string, set map[string]bool) []string {
	var out, rest []string
	for _, k := range known {
		if set[k] {
			out = append(out, k)
		}
	}
	for k := range set {
		if !slices.Contains(known, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// median of sorted values.
func median(v []float64) float64 {
	n := len(v)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// noise summarises the spreads of all cells: their median and maximum, and
// the cell with the maximum.
func (d *data) noise() (med, worst float64, where key) {
	var all []float64
	worst = -1
	for k, c := range d.cells {
		s := c.spread()
		all = append(all, s)
		if s > worst || (s == worst && less(k, where)) {
			worst, where = s, k
		}
	}
	slices.Sort(all)
	return median(all), worst, where
}

func less(a, b key) bool {
	if a.size+a.server != b.size+b.server {
		return a.size+a.server < b.size+b.server
	}
	return compareSetups(a.st, b.st) < 0
}

// scenarios are the files and tls scenarios that were measured.
func (d *data) scenarios() []*data {
	var out []*data
	for _, x := range []*data{d, d.tlsData} {
		if x != nil && len(x.samples) > 0 {
			out = append(out, x)
		}
	}
	return out
}

// shown reports whether the summary and the charts show setup st of
// scenario x: those over the first path, and of TLS those at its primary
// level only; results.md's tables have the rest.
func (x *data) shown(st setup) bool {
	if st.net != x.nets[0] {
		return false
	}
	if !x.tls {
		return true
	}
	prim, ok := x.primaryOf(x.setups[0].proto)
	return ok && st.level == prim.level
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
