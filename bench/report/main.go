// Command report turns the raw results of bench/run.sh into results.md and
// two charts, throughput.svg and requests.svg:
//
//	report -raw bench/results/raw -out bench/results
//
// It reads raw/results.csv (one wrk measurement a line), and, when present,
// raw/paths.csv (the transfer path jaws took for each size) and raw/meta.txt
// ("key: value" lines describing the setup; "cachemax" places the crossover
// marker). The charts are plain SVG written here, with no dependency.
//
// raw/compress.csv and raw/compress-meta.txt, when present, hold the compress
// scenario's measurements; results.md then has a section for them. Either
// results.csv or compress.csv may be missing, not both; without results.csv
// there are no charts.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	raw := flag.String("raw", "bench/results/raw", "directory holding results.csv, paths.csv and meta.txt")
	out := flag.String("out", "bench/results", "directory to write results.md, throughput.svg and requests.svg to")
	flag.Parse()
	if err := run(*raw, *out); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(raw, out string) error {
	d, err := load(raw)
	if err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"results.md", func(b *bytes.Buffer) error { return writeMarkdown(b, d) }},
		{"throughput.svg", func(b *bytes.Buffer) error { return writeSVG(b, d, throughputMetric) }},
		{"requests.svg", func(b *bytes.Buffer) error { return writeSVG(b, d, requestsMetric) }},
	}
	if len(d.samples) == 0 {
		files = files[:1] // no files scenario, no charts
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
