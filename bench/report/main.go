// Command report turns the raw results of bench/run.sh into results.md,
// summary.md (its short table, for the project's README) and two charts,
// throughput.svg and requests.svg:
//
//	report -raw bench/results/raw -out bench/results
//
// It reads raw/results.csv (the files scenario, one wrk measurement a line),
// and, when present, raw/paths.csv (the transfer path jaws took for each
// size) and raw/meta.txt ("key: value" lines describing the setup;
// "cachemax" places the crossover marker). raw/tls.csv, raw/tls-paths.csv and
// raw/tls-meta.txt are the same for the tls scenario (h2load, a proto
// column). Each measurement belongs to a setup: protocol, path (net),
// connection level and mode; every setup gets its tables and a panel in the
// charts. The charts are plain SVG written here, with no dependency.
//
// raw/compress.csv and raw/compress-meta.txt, when present, hold the compress
// scenario's measurements; results.md then has a section for them. Any two
// of results.csv, tls.csv and compress.csv may be missing, not all three;
// with compress.csv alone there is no summary and there are no charts.
//
// raw/site-SET.csv and raw/site-SET-meta.txt (bench/site.sh, one pair per
// file set) become site.md, on its own; with -site, site.md is all it
// writes, and without those files nothing else is needed.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	raw := flag.String("raw", "bench/results/raw", "directory holding results.csv, tls.csv, compress.csv and their paths and meta files")
	out := flag.String("out", "bench/results", "directory to write results.md, summary.md, throughput.svg, requests.svg and site.md to")
	site := flag.Bool("site", false, "write site.md only, from raw/site-*.csv")
	flag.Parse()
	f := run
	if *site {
		f = runSite
	}
	if err := f(*raw, *out); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(raw, out string) error {
	sets, err := loadSite(raw)
	if err != nil {
		return err
	}
	if sets != nil {
		if err := writeSiteFile(out, sets); err != nil {
			return err
		}
	}
	d, err := load(raw)
	if errors.Is(err, errNoResults) && sets != nil {
		return nil // the site benchmark's results alone
	}
	if err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"results.md", func(b *bytes.Buffer) error { return writeMarkdown(b, d) }},
		{"summary.md", func(b *bytes.Buffer) error { return writeSummaryFile(b, d) }},
		{"throughput.svg", func(b *bytes.Buffer) error { return writeSVG(b, d, throughputMetric) }},
		{"requests.svg", func(b *bytes.Buffer) error { return writeSVG(b, d, requestsMetric) }},
	}
	if !d.hasCharts() {
		files = files[:1] // neither the files nor the tls scenario: no summary, no charts
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, f.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runSite writes site.md alone.
func runSite(raw, out string) error {
	sets, err := loadSite(raw)
	if err != nil {
		return err
	}
	if sets == nil {
		return fmt.Errorf("no site-*.csv in %s", raw)
	}
	return writeSiteFile(out, sets)
}
