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
	checkCompress(t, md)
	if i, j := strings.Index(md, "\n## Targets"), strings.Index(md, "## Compression"); i < 0 || j < i {
		t.Error("the compression section is not after the files scenario's targets")
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

// checkCompress checks results.md's compression section against
// testdata/raw/compress.csv: three runs of seven cases, with round numbers.
func checkCompress(t *testing.T, md string) {
	t.Helper()
	for _, want := range []string{
		"## Compression: 64 KiB JavaScript, keep-alive",
		"- file: app.js, 65536 bytes of GOROOT/{lib/wasm/wasm_exec.js}",
		// jaws gzip 30k/31k/32k, 32 µs a response, 250 + 19046 bytes.
		"| `jaws` | gzip | 31.0k ±6% | 32.0 | 19046 | 250 | 19296 |  |",
		// chi-compress 2.0k/2.1k/2.2k: 31000 / 2100.
		"| `chi-compress` | gzip | 2.1k ±10% | 476 | 19294 | 220 | 19554 | 14.76× |",
		"| `nginx-gzip` | gzip | 1.6k ±12% | 625 | 19400 | 200 | 19630 | 19.38× |",
		"| `jaws` | identity | 36.0k ±6% | 27.5 | 65536 | 230 | 65766 | 0.86× |",
		"| `stdlib` | identity | 30.0k ±0% | 33.0 | 65536 | 200 | 65736 | 1.03× |",
		// jaws-bare: 34000 / 2100 and 34000 / 45000.
		"| 64 KiB JavaScript, gzip, keep-alive: jaws ≥ 5× chi-compress | 14.762× | yes | 16.190× (yes) |",
		"| 64 KiB JavaScript, keep-alive: jaws gzip ≥ 0.8× jaws identity (no Accept-Encoding) | 0.861× | yes | 0.756× (no) |",
		"19046 body bytes for the file's 65536: 71% saved on the body, 71% on the wire",
		"`Compressions` 1 before and after, so no response was compressed while measuring; `Encoded` grew by 186000 against 186000 gzip responses wrk counted.",
		"**`Compressions` grew from 1 to 2: responses were compressed while measuring**",
		"(**fewer: some gzip requests were answered uncompressed**)",
		"during any of the 21 measurements: 0.30 CPUs; 1 kept more than 0.10 after the retries",
		"chi-compress gzip: 3",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks %q", want)
		}
	}
	if strings.Contains(md, "- jaws stats") {
		t.Error("results.md lists the counters as setup")
	}
}

// Without results.csv (bench/run.sh -compress-only) results.md has the
// compression section alone, and there are no charts.
func TestReportCompressOnly(t *testing.T) {
	raw, out := t.TempDir(), t.TempDir()
	for _, name := range []string{"compress.csv", "compress-meta.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata/raw", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(raw, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(raw, out); err != nil {
		t.Fatal(err)
	}
	md := read(t, filepath.Join(out, "results.md"))
	checkCompress(t, md)
	for _, unwanted := range []string{"## Requests per second", "\n## Targets", "## Charts", ".svg"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("results.md has %q without a files scenario", unwanted)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "throughput.svg")); err == nil {
		t.Error("throughput.svg written without a files scenario")
	}

	// Neither results.csv nor compress.csv: an error.
	if err := run(t.TempDir(), out); err == nil {
		t.Error("no error for a directory without results")
	}
}

func TestParseCompressErrors(t *testing.T) {
	const head = "run,file,bytes,server,encoding,rps\n"
	for name, in := range map[string]string{
		"empty":      "",
		"header":     head,
		"no column":  "run,file,bytes,server,rps\n1,app.js,65536,jaws,100\n",
		"bad number": head + "1,app.js,65536,jaws,gzip,fast\n",
		"short row":  head + "1,app.js,65536,jaws,gzip\n",
	} {
		if _, err := parseCompress(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := parseStats("jaws", "compressions 1 1"); err == nil {
		t.Error("parseStats: no error for a short line")
	}
}

// Results from before run.sh counted the bytes on the wire itself take
// wrk's transfer over its requests.
func TestCompressWireFromWrk(t *testing.T) {
	in := "run,file,bytes,server,encoding,rps,transfer_bps\n" +
		"1,app.js,65536,jaws,gzip,1000,19500000\n" +
		"2,app.js,65536,jaws,gzip,2000,39200000\n"
	c, err := parseCompress(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	// 19500 and 19600 bytes a response: the median is their mean.
	if got := c.cell("jaws", "gzip").wireBytes(); got != 19550 {
		t.Errorf("wire bytes %v, want 19550", got)
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
