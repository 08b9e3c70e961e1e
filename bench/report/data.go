package main

import (
	"bufio"
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
var serverOrder = []string{"jaws", "jaws-bare", "stdlib", "ceiling", "ceiling-min", "nginx"}

// The connection modes: wrk's default keep-alive, and "Connection: close".
var modeOrder = []string{"keepalive", "close"}

var modeTitle = map[string]string{"keepalive": "keep-alive", "close": "Connection: close"}

// sample is one wrk measurement: one row of results.csv.
type sample struct {
	run    int
	size   string // as named by run.sh: "1K", "10M"
	bytes  int64
	server string
	mode   string
	rps    float64
	errors int64   // socket errors and non-2xx/3xx responses
	other  float64 // CPUs other processes used meanwhile
	tries  int     // 1 + how often it was repeated for being disturbed
	cpuUS  float64 // the server's CPU time per response in µs; NaN if unknown
}

// cell is every run of one server for one size and mode.
type cell struct {
	rps    []float64 // sorted
	cpuUS  []float64 // sorted, the known ones
	errors int64
}

func (c *cell) median() float64 { return median(c.rps) }

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
	size, server, mode string
}

// data is everything the report shows.
type data struct {
	sizes    []string // ascending by bytes
	bytes    map[string]int64
	servers  []string
	modes    []string
	cells    map[key]*cell
	paths    map[string]string // size -> jaws's transfer path
	meta     [][2]string       // setup, in file order
	cachemax int64             // jaws's CacheMaxFileSize; 0 if unknown
	quiet    float64           // the disturbance limit, in CPUs used by others; 0 if unknown
	runs     int
	samples  []sample
	compress *cdata // the compress scenario's results; nil if none
}

func (d *data) cell(size, server, mode string) *cell { return d.cells[key{size, server, mode}] }

// load reads results.csv, paths.csv and meta.txt (the files scenario), and
// compress.csv and compress-meta.txt (the compress scenario) from dir; one
// of results.csv and compress.csv is required.
func load(dir string) (*data, error) {
	c, err := loadCompress(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "results.csv"))
	if errors.Is(err, os.ErrNotExist) && c != nil {
		d := build(nil)
		d.compress = c
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, err := parseResults(f)
	if err != nil {
		return nil, fmt.Errorf("results.csv: %w", err)
	}
	d := build(samples)
	d.compress = c
	if f, err := os.Open(filepath.Join(dir, "paths.csv")); err == nil {
		defer f.Close()
		if d.paths, err = parsePaths(f); err != nil {
			return nil, fmt.Errorf("paths.csv: %w", err)
		}
	}
	if f, err := os.Open(filepath.Join(dir, "meta.txt")); err == nil {
		defer f.Close()
		if d.meta, err = parseMeta(f); err != nil {
			return nil, fmt.Errorf("meta.txt: %w", err)
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

// parseResults reads the CSV run.sh writes, finding columns by name.
func parseResults(r io.Reader) ([]sample, error) {
	t, err := readTable(r, "run", "size", "bytes", "server", "mode", "rps")
	if err != nil {
		return nil, err
	}
	_, hasCPU := t.col["server_cpu_s"]
	var out []sample
	for n := range t.rows {
		v, err := t.nums(n, "run", "bytes", "rps", "socket_errors", "non2xx", "other_cpus", "retries", "requests", "server_cpu_s")
		if err != nil {
			return nil, err
		}
		s := sample{size: t.str(n, "size"), server: t.str(n, "server"), mode: t.str(n, "mode"),
			run: int(v["run"]), bytes: int64(v["bytes"]), rps: v["rps"], errors: int64(v["socket_errors"] + v["non2xx"]),
			other: v["other_cpus"], tries: 1 + int(v["retries"]), cpuUS: math.NaN()}
		if hasCPU && v["requests"] > 0 {
			s.cpuUS = v["server_cpu_s"] / v["requests"] * 1e6
		}
		out = append(out, s)
	}
	return out, nil
}

func build(samples []sample) *data {
	d := &data{bytes: map[string]int64{}, cells: map[key]*cell{}, paths: map[string]string{}, samples: samples}
	servers, modes := map[string]bool{}, map[string]bool{}
	for _, s := range samples {
		if _, ok := d.bytes[s.size]; !ok {
			d.sizes = append(d.sizes, s.size)
		}
		d.bytes[s.size] = s.bytes
		servers[s.server], modes[s.mode] = true, true
		k := key{s.size, s.server, s.mode}
		c := d.cells[k]
		if c == nil {
			c = &cell{}
			d.cells[k] = c
		}
		c.rps = append(c.rps, s.rps)
		if !math.IsNaN(s.cpuUS) {
			c.cpuUS = append(c.cpuUS, s.cpuUS)
		}
		c.errors += s.errors
		d.runs = max(d.runs, s.run)
	}
	for _, c := range d.cells {
		slices.Sort(c.rps)
		slices.Sort(c.cpuUS)
	}
	slices.SortStableFunc(d.sizes, func(a, b string) int { return int(d.bytes[a] - d.bytes[b]) })
	d.servers = ordered(serverOrder, servers)
	d.modes = ordered(modeOrder, modes)
	return d
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
		m[row[0]] = row[2]
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
	return a.size+a.server+a.mode < b.size+b.server+b.mode
}
