package jaws

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStraceHitOpensNothing re-runs itself under strace and checks that
// cache hits make no open system call for the file: only the directories
// os.Root walks through for a nested name, with O_DIRECTORY.
func TestStraceHitOpensNothing(t *testing.T) {
	if dir := os.Getenv("JAWS_STRACE_CHILD"); dir != "" {
		straceChild(t, dir)
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "hit.txt"), []byte("top"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "nested.txt"), []byte("nested"), 0o644))
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace,
		os.Args[0], "-test.run=^TestStraceHitOpensNothing$", "-test.count=1")
	cmd.Env = append(os.Environ(), "JAWS_STRACE_CHILD="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child under strace: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	must(t, err)
	lines := strings.Split(string(b), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, "jaws-strace-begin"):
			begin = i
		case strings.Contains(l, "jaws-strace-end"):
			end = i
		}
	}
	if begin < 0 || end < begin {
		t.Fatalf("markers not found in the trace:\n%s", b)
	}
	dirOpens := 0
	for _, l := range lines[begin+1 : end] {
		if strings.Contains(l, "hit.txt") || strings.Contains(l, "nested.txt") {
			t.Errorf("a hit opened the file: %s", l)
		}
		if strings.Contains(l, "O_DIRECTORY") {
			dirOpens++
		}
	}
	t.Logf("100 hits on a top-level and 100 on a nested file: %d directory opens", dirOpens)
}

func straceChild(t *testing.T, dir string) {
	h := newTestHandler(t, dir, Options{})
	for _, p := range []string{"/hit.txt", "/sub/nested.txt"} {
		if w := get(h, p); w.Code != 200 {
			t.Fatalf("%s: %d", p, w.Code)
		}
	}
	h.cache.sync()
	os.Open("/nonexistent/jaws-strace-begin")
	for range 100 {
		get(h, "/hit.txt")
		get(h, "/sub/nested.txt")
	}
	os.Open("/nonexistent/jaws-strace-end")
	if s := h.Stats(); s.CacheHits < 200 {
		t.Fatalf("only %d hits", s.CacheHits)
	}
}
