package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/site holds the site benchmark's results with round numbers:
// fits at 32 and 1000 connections (three rounds; nginx client-bound at
// 1000), media at one level of 4 connections (one round, socket errors).
func TestSite(t *testing.T) {
	out := t.TempDir()
	if err := run("testdata/site", out); err != nil {
		t.Fatal(err)
	}
	md := read(t, filepath.Join(out, "site.md"))
	for _, tc := range []struct{ name, want string }{
		{"title from the meta file", "## fits: 288 files, 39.1 MiB"},
		{"set described", "- layout: 8 directories of 36 files"},
		// jaws 30k/31k/32k: median 31k, range 2k; stdlib 20k, nginx 62k,
		// ceiling 31k; jaws-bare 33k.
		{"summary's columns", "| connections | server | requests/s | ÷ `stdlib` | ÷ `ceiling` | ÷ `nginx` |"},
		{"ratios at 32", "| 32 connections | `jaws` | 31.0k ±6% | 1.55× | 1.00× | 0.50× |"},
		{"jaws-bare's ratios", "| 32 connections | `jaws-bare` | 33.0k ±0% | 1.65× | 1.06× | 0.53× |"},
		// The ceiling's row, on a set of small files: over stdlib
		// 31k ÷ 20k; nothing over itself.
		{"the ceiling's row", "| 32 connections | `ceiling` | 31.0k ±0% | 1.55× |  | 0.50× |"},
		// nginx client-bound at 1000: ratios over it are upper bounds.
		{"client-bound peer", "| 1000 connections | `jaws` | 20.0k ±0% | 2.00× | 0.80× | ≤0.50× |"},
		{"the bound explained", "The `ceiling` row's ÷ `stdlib` is about the most a handler under net/http gets"},
		// 20 µs a response everywhere.
		{"CPU ratios", "| 32 connections | `jaws` | 20.0 | 1.00× | 1.00× | 1.00× |"},
		// 31k/s × 15,000 bytes (made_bytes over made); 10 µs user and
		// 10 µs system per request made; wrk 2.5 s of 5; 990 hits of
		// 1000; 50 evictions in 5 s; 8 MiB held.
		{"jaws's row", "| `jaws` | 31.0k ±6% | 465 | 800 µs | 2.5 ms | 20.0 (10.0 + 10.0) | 50% (100%) | 99.0% | 10.0 | 8.0 MiB |"},
		{"client-bound row", "| `nginx` | 40.0k ±0% (client-bound) | 600 | 40.0 ms | 1.20 s | 20.0 (10.0 + 10.0) | **97%** (100%) |  |  |  |"},
		{"transfer paths", "`jaws`'s responses by transfer path, all rounds and levels: memory 90.0%, zero-copy 1.0%, fallback 9.0%."},
		{"memory", "Memory: `ceiling` peak rss 96256 KiB, started in 0.4 s."},
		{"no errors in fits", "No socket errors, no error statuses"},
		{"fewer connections than the level", "### 4 connections (level 32)"},
		{"media's errors", "**wrk counted errors**: `jaws` at 32: 2 socket errors, 0 error statuses."},
		{"repeated", "0 were repeated for it, 0 kept more than 0.10"},
		// media: 3000 MiB/s read; the server process 0.5 s of 5 (33.3
		// µs per MiB), CPU 0 busy 90% (300), CPU 1 30% (100); stdlib
		// the same shares at 2000 MiB/s.
		{"media per MiB heading", "### CPU per MiB read, 4 connections (level 32)"},
		{"jaws per MiB", "| `jaws` | 3000 | 33.3 | 300 | 100 | 400 |"},
		{"stdlib per MiB", "| `stdlib` | 2000 | 50.0 | 450 | 150 | 600 |"},
		{"both cores ratio", "Both cores' CPU per MiB: `jaws` ÷ `stdlib` 0.67×."},
	} {
		if !strings.Contains(md, tc.want) {
			t.Errorf("%s: site.md lacks %q", tc.name, tc.want)
		}
	}
	if i, j := strings.Index(md, "## fits"), strings.Index(md, "## media"); i < 0 || j < i {
		t.Error("the sets are not in the order fits, media")
	} else if strings.Contains(md[i:j], "CPU per MiB read") {
		t.Error("fits, whose mean response is 15 KB, has a per-MiB table")
	}
	// The site benchmark alone: no results.md.
	if _, err := os.Stat(filepath.Join(out, "results.md")); err == nil {
		t.Error("results.md written from the site benchmark's results alone")
	}
}

func TestSiteOnly(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		wantErr   bool
	}{
		{"site results", "testdata/site", false},
		{"run.sh's results only", "testdata/raw", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			err := runSite(tc.raw, out)
			if (err != nil) != tc.wantErr {
				t.Fatalf("runSite: %v, want an error: %v", err, tc.wantErr)
			}
			if _, err := os.Stat(filepath.Join(out, "results.md")); err == nil {
				t.Error("-site wrote results.md")
			}
		})
	}
	// run.sh's results: no site.md.
	out := t.TempDir()
	if err := run("testdata/raw", out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "site.md")); err == nil {
		t.Error("site.md written without site results")
	}
}

// The per-MiB ratio is by both cores over loopback, where the client's
// receive work may run on the server's core, and by the server core over
// the steered veth pair.
func TestSitePerMiBBy(t *testing.T) {
	// jaws's CPU 1 at 60%: 200 µs per MiB, both cores 500 against
	// stdlib's 600; the server cores 300 against 450.
	csv := strings.Replace(read(t, "testdata/site/site-media.csv"), "5.000,0.90,0.30,100,", "5.000,0.90,0.60,100,", 1)
	for _, tc := range []struct{ name, meta, want string }{
		{"no meta: loopback", "", "Both cores' CPU per MiB: `jaws` ÷ `stdlib` 0.83×."},
		{"loopback", "net: loopback\n", "Both cores' CPU per MiB: `jaws` ÷ `stdlib` 0.83×."},
		{"veth", "net: veth (load generator in a namespace of its own)\n", "The server core's CPU per MiB: `jaws` ÷ `stdlib` 0.67×."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, out := t.TempDir(), t.TempDir()
			write(t, filepath.Join(raw, "site-media.csv"), csv)
			if tc.meta != "" {
				write(t, filepath.Join(raw, "site-media-meta.txt"), tc.meta)
			}
			if err := runSite(raw, out); err != nil {
				t.Fatal(err)
			}
			if md := read(t, filepath.Join(out, "site.md")); !strings.Contains(md, tc.want) {
				t.Errorf("site.md lacks %q", tc.want)
			}
		})
	}
}

// The ceiling over http.FileServer is given for small files only: on
// large ones sendfile may beat the ceiling's writes from memory.
func TestSiteBound(t *testing.T) {
	raw, out := t.TempDir(), t.TempDir()
	copyFiles(t, raw, "testdata/site", "site-fits.csv", "site-fits-meta.txt")
	// media with a ceiling: a copy of its stdlib row, the last.
	csv := strings.TrimSpace(read(t, "testdata/site/site-media.csv"))
	stdlib := csv[strings.LastIndex(csv, "\n")+1:]
	write(t, filepath.Join(raw, "site-media.csv"), csv+"\n"+strings.Replace(stdlib, ",stdlib,", ",ceiling,", 1)+"\n")
	if err := runSite(raw, out); err != nil {
		t.Fatal(err)
	}
	md := read(t, filepath.Join(out, "site.md"))
	i := strings.Index(md, "## media")
	if i < 0 {
		t.Fatal("site.md has no media")
	}
	if !strings.Contains(md[:i], "| 32 connections | `ceiling` |") {
		t.Error("fits has no `ceiling` row in its summary")
	}
	if !strings.Contains(md[i:], "| ÷ `ceiling` |") {
		t.Error("media has no ceiling: the test does not test the row's absence")
	}
	if strings.Contains(md[i:], "connections (level 32) | `ceiling` |") || strings.Contains(md[i:], "row's ÷ `stdlib`") {
		t.Error("media, a set of large files, has the ceiling over stdlib")
	}
}

// Each round's ratio comes from the two servers' figures of that round.
func TestSitePerMiBRounds(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(read(t, "testdata/site/site-media.csv")), "\n")
	csv := strings.Join(lines, "\n") + "\n"
	// Round 2: jaws's CPU 0 at 60% (200 µs per MiB), stdlib's at 45%
	// (225). Rounds' ratios 300/450 and 200/225: median 0.78, range
	// 0.67–0.89; the medians' ratio 250/337.5 = 0.74.
	for _, l := range lines[1:] {
		l = "2" + strings.TrimPrefix(l, "1")
		l = strings.Replace(l, "5.000,0.90,0.30,100,", "5.000,0.60,0.30,100,", 1)
		l = strings.Replace(l, "5.000,0.90,0.30,,", "5.000,0.45,0.30,,", 1)
		csv += l + "\n"
	}
	raw, out := t.TempDir(), t.TempDir()
	write(t, filepath.Join(raw, "site-media.csv"), csv)
	write(t, filepath.Join(raw, "site-media-meta.txt"), "net: veth\n")
	if err := runSite(raw, out); err != nil {
		t.Fatal(err)
	}
	want := "The server core's CPU per MiB: `jaws` ÷ `stdlib` 0.74× (by round 0.78×, 0.67×–0.89×)."
	if md := read(t, filepath.Join(out, "site.md")); !strings.Contains(md, want) {
		t.Errorf("site.md lacks %q", want)
	}
}

// The fast lane and fasthttp: jaws-lane is a subject beside jaws, fasthttp
// a peer, and the lane's responses are a share of their own.
func TestSiteLane(t *testing.T) {
	head := "run,set,server,conns_level,conns,duration_s,start,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,made,made_bytes,other_cpus,retries," +
		"server_user_s,server_sys_s,client_cpu_s,client_wall_s,server_core_busy,client_core_busy," +
		"jaws_hits,jaws_misses,jaws_evictions,jaws_cache_bytes,jaws_memory,jaws_zerocopy,jaws_fallback,jaws_lane\n"
	// line: one round at 32 connections, 5 s: rps (and as many requests
	// made a second), the server's user and system seconds (each the
	// same), wrk's CPU seconds of 5, jaws's counters.
	line := func(server string, rps int, cpu float64, client, counters string) string {
		return fmt.Sprintf("1,fits,%s,32,32,5,0,%d,%d,0,800,2500,0,0,%d,%d,0.02,0,%.2f,%.2f,%s,5.000,1.00,0.50,%s\n",
			server, rps*5, rps, rps*5, rps*5*15000, cpu, cpu, client, counters)
	}
	// Server CPU per response: jaws 20 µs, jaws-lane 10, stdlib 40,
	// ceiling 20, fasthttp 12, nginx 10. wrk used 98% of its core on
	// jaws-lane: client-bound.
	csv := head +
		line("jaws", 30000, 1.50, "2.500", "990,10,0,8388608,900,10,90,0") +
		line("jaws-lane", 60000, 1.50, "4.900", "990,10,0,8388608,10,0,0,990") +
		line("stdlib", 20000, 2.00, "2.500", ",,,,,,,") +
		line("ceiling", 40000, 2.00, "2.500", ",,,,,,,") +
		line("fasthttp", 50000, 1.50, "2.500", ",,,,,,,") +
		line("nginx", 80000, 2.00, "2.500", ",,,,,,,")
	raw, out := t.TempDir(), t.TempDir()
	write(t, filepath.Join(raw, "site-fits.csv"), csv)
	write(t, filepath.Join(raw, "site-fits-meta.txt"), "fasthttp: v1.79.0\n")
	if err := runSite(raw, out); err != nil {
		t.Fatal(err)
	}
	md := read(t, filepath.Join(out, "site.md"))
	for _, tc := range []struct{ name, want string }{
		{"fasthttp's version", "- fasthttp: v1.79.0"},
		{"the peers", "| connections | server | requests/s | ÷ `stdlib` | ÷ `ceiling` | ÷ `fasthttp` | ÷ `nginx` |"},
		// 60k over 20k, 40k, 50k, 80k; client-bound, so each a
		// lower bound.
		{"jaws-lane's ratios", "| 32 connections | `jaws-lane` | 60.0k ±0% (client-bound) | ≥3.00× | ≥1.50× | ≥1.20× | ≥0.75× |"},
		{"jaws's ratios", "| 32 connections | `jaws` | 30.0k ±0% | 1.50× | 0.75× | 0.60× | 0.38× |"},
		{"the ceiling's row", "| 32 connections | `ceiling` | 40.0k ±0% | 2.00× |  | 0.80× | 0.50× |"},
		{"not bound by the ceiling", "`jaws-lane` is not bound by it"},
		{"CPU's columns", "| connections | server | server CPU µs/response | `stdlib` ÷ | `ceiling` ÷ | `fasthttp` ÷ | `nginx` ÷ |"},
		// 40, 20, 12 and 10 µs over jaws-lane's 10.
		{"jaws-lane's CPU", "| 32 connections | `jaws-lane` | 10.0 | 4.00× | 2.00× | 1.20× | 1.00× |"},
		{"jaws's CPU", "| 32 connections | `jaws` | 20.0 | 2.00× | 1.00× | 0.60× | 0.50× |"},
		{"the lane's share", "`jaws-lane`'s responses by transfer path, all rounds and levels: memory 1.0%, zero-copy 0.0%, fallback 0.0%, on the fast lane 99.0%."},
		{"no lane for jaws", "`jaws`'s responses by transfer path, all rounds and levels: memory 90.0%, zero-copy 1.0%, fallback 9.0%."},
		{"the lane explained", "`jaws-lane` is the example with its fast lane at `/`"},
		{"fasthttp in the level's table", "| `fasthttp` | 50.0k ±0% |"},
	} {
		if !strings.Contains(md, tc.want) {
			t.Errorf("%s: site.md lacks %q", tc.name, tc.want)
		}
	}
	if i, j := strings.Index(md, "| `jaws` | 30.0k"), strings.Index(md, "| `jaws-lane` | 60.0k"); i < 0 || j < i {
		t.Error("the table of 32 connections does not have jaws before jaws-lane")
	}
}
