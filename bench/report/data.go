package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
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

// errNoResults: a raw directory holds none of run.sh's scenarios.
var errNoResults = errors.New("no results.csv, tls.csv or compress.csv")

// load reads results.csv, paths.csv and meta.txt (the files scenario),
// tls.csv, tls-paths.csv and tls-meta.txt (the tls scenario), and
// compress.csv and compress-meta.txt (the compress scenario) from dir; one
// of results.csv, tls.csv and compress.csv is required.
func load(dir string) (*data, error) {
	c, err := loadCompress(dir)
	if err != nil {
		return nil, err
	}
	t, err := loadScenario(dir, "tls.csv", "tls-paths.csv", "tls-meta.txt")
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.tls = true
	}
	d, err := loadScenario(dir, "results.csv", "paths.csv", "meta.txt")
	if err != nil {
		return nil, err
	}
	if d == nil {
		if c == nil && t == nil {
			return nil, fmt.Errorf("%w in %s", errNoResults, dir)
		}
		d = build(nil)
	}
	d.compress, d.tlsData = c, t
	return d, nil
}

// loadScenario reads one scenario's measurements, transfer paths and
// setup; nil and no error when there are no measurements.
func loadScenario(dir, results, paths, meta string) (*data, error) {
	f, err := os.Open(filepath.Join(dir, results))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, err := parseResults(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", results, err)
	}
	d := build(samples)
	if f, err := os.Open(filepath.Join(dir, paths)); err == nil {
		defer f.Close()
		if d.paths, err = parsePaths(f); err != nil {
			return nil, fmt.Errorf("%s: %w", paths, err)
		}
	}
	if f, err := os.Open(filepath.Join(dir, meta)); err == nil {
		defer f.Close()
		if d.meta, err = parseMeta(f); err != nil {
			return nil, fmt.Errorf("%s: %w", meta, err)
		}
		for _, kv := range d.meta {
			switch kv[0] {
			case "cachemax":
				d.cachemax, _ = strconv.ParseInt(kv[1], 10, 64)
			case "quiet":
				d.quiet, _ = strconv.ParseFloat(kv[1], 64)
			}
		}
	}
	return d, nil
}

// table is a CSV file run.sh wrote, its columns found by name, so
// columns added later do not break older results.
type table struct {
	rows [][]string // the data rows, each as wide as the header
	col  map[string]int
}

// readTable reads a CSV file with a header line holding at least the
// required column names.
func readTable(r io.Reader, required ...string) (*table, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) < 2 {
		return nil, errors.New("no measurements")
	}
	t := &table{rows: rows[1:], col: map[string]int{}}
	for i, name := range rows[0] {
		t.col[name] = i
	}
	for _, name := range required {
		if _, ok := t.col[name]; !ok {
			return nil, fmt.Errorf("no column %q", name)
		}
	}
	return t, nil
}

// nums parses the named columns of data row n; a column the file lacks
// reads 0.
func (t *table) nums(n int, names ...string) (map[string]float64, error) {
	row, v := t.rows[n], make(map[string]float64, len(names))
	for _, name := range names {
		i, ok := t.col[name]
		if !ok {
			continue
		}
		var err error
		if v[name], err = strconv.ParseFloat(row[i], 64); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n+2, name, err)
		}
	}
	return v, nil
}

// str is the named column of data row n.
func (t *table) str(n int, name string) string { return t.rows[n][t.col[name]] }

// strOr is the named column of data row n, or def when the file has no
// such column or the row leaves it empty.
func (t *table) strOr(n int, name, def string) string {
	if i, ok := t.col[name]; ok && t.rows[n][i] != "" {
		return t.rows[n][i]
	}
	return def
}

// parseResults reads the CSV run.sh writes for the files scenario
// (results.csv) or the tls scenario (tls.csv, with a proto column), finding
// columns by name. Columns added with an axis are optional, so results from
// before it still read: proto (plain HTTP/1.1 without), net (loopback),
// conns_level (0, unknown), client_cpu_s and client_wall_s (the load
// generator's CPU share, unknown), server_core_busy (unknown).
func parseResults(r io.Reader) ([]sample, error) {
	t, err := readTable(r, "run", "size", "bytes", "server", "mode", "rps")
	if err != nil {
		return nil, err
	}
	_, hasCPU := t.col["server_cpu_s"]
	_, hasClient := t.col["client_cpu_s"]
	_, hasCore := t.col["server_core_busy"]
	var out []sample
	for n := range t.rows {
		v, err := t.nums(n, "run", "bytes", "rps", "socket_errors", "non2xx", "other_cpus", "retries", "requests",
			"server_cpu_s", "conns", "conns_level", "client_cpu_s", "client_wall_s", "server_core_busy")
		if err != nil {
			return nil, err
		}
		st := setup{proto: t.strOr(n, "proto", ""), net: t.strOr(n, "net", "loopback"),
			level: int(v["conns_level"]), mode: t.str(n, "mode")}
		s := sample{size: t.str(n, "size"), server: t.str(n, "server"), st: st, conns: int(v["conns"]),
			run: int(v["run"]), bytes: int64(v["bytes"]), rps: v["rps"], errors: int64(v["socket_errors"] + v["non2xx"]),
			other: v["other_cpus"], tries: 1 + int(v["retries"]), cpuUS: math.NaN(), client: math.NaN(), core: math.NaN()}
		if hasCPU && v["requests"] > 0 {
			s.cpuUS = v["server_cpu_s"] / v["requests"] * 1e6
		}
		if hasClient && v["client_wall_s"] > 0 {
			s.client = v["client_cpu_s"] / v["client_wall_s"]
		}
		if hasCore {
			s.core = v["server_core_busy"]
		}
		out = append(out, s)
	}
	return out, nil
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

// parsePaths reads paths.csv (size,bytes,path) or tls-paths.csv
// (size,bytes,path,proto) into pathKey(size, proto) -> path.
func parsePaths(r io.Reader) (map[string]string, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i, row := range rows {
		if i == 0 || len(row) < 3 {
			continue
		}
		proto := ""
		if len(row) > 3 {
			proto = row[3]
		}
		m[pathKey(row[0], proto)] = row[2]
	}
	return m, nil
}

// parseMeta reads "key: value" lines.
func parseMeta(r io.Reader) ([][2]string, error) {
	var out [][2]string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return out, sc.Err()
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
