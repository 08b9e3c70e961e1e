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
	"strconv"
	"strings"
)

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
