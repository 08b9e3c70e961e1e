package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/raw holds three runs of two sizes with round numbers, so the
// expected medians, spreads and ratios can be worked out by hand.
func TestReport(t *testing.T) {
	out := t.TempDir()
	if err := run("testdata/raw", out); err != nil {
		t.Fatal(err)
	}
	md := read(t, filepath.Join(out, "results.md"))
	for _, want := range []string{
		// 1 KiB keep-alive: jaws 60k/61k/62k, stdlib 29.5k/30k/30.5k,
		// ceiling 69k-71k, ceiling-min 72k, nginx 79k-81k.
		"| 1 KiB | memory | 61.0k ±3% | 30.0k ±3% | 70.0k ±3% | 72.0k ±0% | 80.0k ±2% | 2.03× | 0.87× | 0.85× | 0.76× |",
		// 64 KiB close: jaws 10k ±10%, stdlib 15k.
		"| 64 KiB | fallback | 10.0k ±10% | 15.0k ±7% | 11.0k ±0% | 11.0k ±0% | 14.0k ±0% | 0.67× | 0.91× | 0.91× | 0.71× |",
		// MB/s: 61000 responses of 1024 bytes.
		"| 1 KiB | 62.5 | 30.7 | 71.7 | 73.7 | 81.9 |",
		"- cpu: test CPU, 2 CPUs",
		// CPU per response: server_cpu_s over requests.
		"| 1 KiB | 16.0 | 33.0 | 14.0 | 14.0 | 12.0 | 16.0 |",
		"| 1 KiB keep-alive: jaws ≥ 2.0× stdlib | 2.033× | yes |",
		"| 1 KiB keep-alive: jaws ≥ 0.85× ceiling | 0.871× | yes |",
		// 0.847 shows as 0.85 with two decimals, hence three here.
		"| 1 KiB keep-alive: jaws ≥ 0.85× ceiling-min | 0.847× | **no** |",
		"| 64 KiB keep-alive: jaws ≥ 0.85× ceiling-min | 0.833× | **no** |",
		"lowest jaws/stdlib: 0.67× (64 KiB, Connection: close); slower in every run at 64 KiB Connection: close 0.67×",
		"Run-to-run spread over all 20 cells: median 0%, largest 10% (jaws, 64 KiB, Connection: close)",
		"2 of 60 measurements were repeated",
		"1 kept more than that",
		"![throughput](throughput.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks %q", want)
		}
	}
	if strings.Contains(md, "cachemax") {
		t.Error("results.md shows the internal cachemax line")
	}

	for _, name := range []string{"throughput.svg", "requests.svg"} {
		svg := read(t, filepath.Join(out, name))
		wellFormed(t, name, svg)
		for _, want := range []string{
			`class="jaws"`, `class="stdlib"`, `class="ceiling"`, `class="ceiling-min"`, `class="nginx"`,
			"CacheMaxFileSize 16 KiB", "keep-alive", "Connection: close", ">1 KiB<", ">64 KiB<",
		} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if svg := read(t, filepath.Join(out, "throughput.svg")); !strings.Contains(svg, "jaws 1 KiB keep-alive: 62.5 MB/s") {
		t.Error("throughput.svg lacks jaws's 1 KiB point at 62.5 MB/s")
	}
	if svg := read(t, filepath.Join(out, "requests.svg")); !strings.Contains(svg, "jaws 1 KiB keep-alive: 61k requests/s") {
		t.Error("requests.svg lacks jaws's 1 KiB point at 61k requests/s")
	}
}

func TestParseResultsErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":      "",
		"header":     "run,size,bytes,server,mode,rps\n",
		"no column":  "run,size,bytes,server,mode\n1,1K,1024,jaws,keepalive\n",
		"bad number": "run,size,bytes,server,mode,rps\n1,1K,1024,jaws,keepalive,fast\n",
	} {
		if _, err := parseResults(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStep125(t *testing.T) {
	for _, c := range []struct {
		v        float64
		up       bool
		want     float64
		wantDown float64
	}{
		{v: 6.3, want: 10, wantDown: 5},
		{v: 1000, want: 1000, wantDown: 1000},
		{v: 1500, want: 2000, wantDown: 1000},
		{v: 31000, want: 50000, wantDown: 20000},
	} {
		if got := step125(c.v, true); got != c.want {
			t.Errorf("step125(%v, up) = %v, want %v", c.v, got, c.want)
		}
		if got := step125(c.v, false); got != c.wantDown {
			t.Errorf("step125(%v, down) = %v, want %v", c.v, got, c.wantDown)
		}
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wellFormed(t *testing.T, name, doc string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
	}
}
