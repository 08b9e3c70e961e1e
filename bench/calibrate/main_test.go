package main

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRecommend(t *testing.T) {
	sizes := []int64{8 << 10, 16 << 10, 32 << 10, 64 << 10}
	for _, c := range []struct {
		name    string
		medians []float64
		best    int64
		crossed bool
	}{
		{"memory wins everywhere", []float64{1.3, 1.2, 1.1, 1.0}, 64 << 10, false},
		{"crosses after 16K", []float64{1.3, 1.1, 0.98, 1.02}, 16 << 10, true},
		{"loses at once", []float64{0.9, 0.9, 0.9, 0.9}, 0, true},
	} {
		v := make([]verdict, len(c.medians))
		for i, m := range c.medians {
			v[i] = verdict{median: m, lo: m, hi: m}
		}
		best, crossed := recommend(sizes, v)
		if best != c.best || crossed != c.crossed {
			t.Errorf("%s: recommend = %d, %v; want %d, %v", c.name, best, crossed, c.best, c.crossed)
		}
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		ratios []float64
		want   string
	}{
		{[]float64{1.2, 1.1, 1.3}, "memory faster"},
		{[]float64{0.9, 0.8, 0.95}, "memory slower"},
		{[]float64{0.9, 1.05, 1.1}, "within noise, memory ahead"},
		{[]float64{0.9, 0.95, 1.1}, "within noise, file ahead"},
	} {
		if got := judge(c.ratios).String(); got != c.want {
			t.Errorf("judge(%v) = %q, want %q", c.ratios, got, c.want)
		}
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("64K, 8K,1M,8K,100")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{100, 8 << 10, 64 << 10, 1 << 20}; !slices.Equal(got, want) {
		t.Errorf("parseSizes = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "K", "-1K", "1G"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}

func TestReadResponse(t *testing.T) {
	const resp = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\ncontent-length: 5\r\n\r\nhello" +
		"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
	br := bufio.NewReader(strings.NewReader(resp))
	if err := readResponse(br, 5); err != nil {
		t.Fatalf("first response: %v", err)
	}
	if err := readResponse(br, 0); err == nil {
		t.Fatal("404 accepted")
	}
}

func TestOthers(t *testing.T) {
	before := procTimes{1: 100, 2: 50}
	after := procTimes{1: 150, 2: 50, 3: 10} // 3 is new: counts from zero
	if got := others(before, after, time.Second); got != 0.6 {
		t.Errorf("others = %v, want 0.6 CPUs", got)
	}
	if got := others(nil, after, time.Second); got != 0 {
		t.Errorf("others without a snapshot = %v, want 0", got)
	}
	if _, ok := readStat("/proc/self/stat"); !ok {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			t.Error("readStat cannot read /proc/self/stat")
		}
	}
}

func TestWrkCommand(t *testing.T) {
	for _, c := range []struct {
		name string
		w    wrk
		want string
	}{
		{"here", wrk{conns: 32}, "wrk -t1 -c32 -d2s --timeout 10s http://127.0.0.1:1/8K.bin"},
		{"in a namespace", wrk{conns: 32, netns: "jaws-bench-1"}, "ip netns exec jaws-bench-1 wrk -t1 -c32 -d2s --timeout 10s http://127.0.0.1:1/8K.bin"},
	} {
		if got := strings.Join(c.w.command("http://127.0.0.1:1/8K.bin", 2*time.Second), " "); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The built-in load generator cannot run in another namespace.
func TestNewLoaderNetns(t *testing.T) {
	if _, err := newLoader("go", 32, "jaws-bench-1"); err == nil {
		t.Error("-load go -netns: no error")
	}
	l, err := newLoader("go", 32, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.(goLoad); !ok {
		t.Errorf("-load go: %T", l)
	}
}
