package jaws

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStraceHitOpensNothing re-runs itself under strace and checks that
// cache hits make no open system call for the file; on Linux they make none
// at all, since one fstatat confirms a hit (statDir).
func TestStraceHitOpensNothing(t *testing.T) {
	if dir := os.Getenv("JAWS_STRACE_CHILD"); dir != "" {
		straceChild(t, dir)
		return
	}
	t.Parallel() // the child runs alone, in a process of its own
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "hit.txt"), []byte("top"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "nested.txt"), []byte("nested"), 0o644))
	lines := underStrace(t, "TestStraceHitOpensNothing", "JAWS_STRACE_CHILD", dir, "open,openat,openat2")
	dirOpens := 0
	for _, l := range lines {
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
	h.store.cache.sync()
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

// TestStraceZeroCopy re-runs itself under strace while serving a large file
// three times on one keep-alive connection: the header goes out in one
// sendmsg with MSG_MORE (corked with the file's first bytes), the body by
// sendfile alone, and no request after the first opens the file. A fourth,
// with corkLimit bytes queued on other connections, sends its header
// alone: without MSG_MORE.
func TestStraceZeroCopy(t *testing.T) {
	if dir := os.Getenv("JAWS_STRACE_ZEROCOPY"); dir != "" {
		straceZeroCopyChild(t, dir)
		return
	}
	t.Parallel() // the child runs alone, in a process of its own
	dir := t.TempDir()
	const size = 1 << 20
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), randomBytes(size), 0o644))
	lines := underStrace(t, "TestStraceZeroCopy", "JAWS_STRACE_ZEROCOPY", dir, "sendfile,sendmsg,write,writev,openat")
	var heads, sendfiles int
	var sent int64
	alone := false
	for _, l := range lines {
		switch {
		case strings.Contains(l, "openat(") && strings.Contains(l, "jaws-strace-alone"):
			alone = true
		case strings.Contains(l, "openat(") && strings.Contains(l, "big.bin"):
			t.Errorf("a request opened the file: %s", l)
		case strings.Contains(l, "sendmsg(") && strings.Contains(l, "HTTP/1.1 200 OK"):
			heads++
			if more := strings.Contains(l, "MSG_MORE"); more == alone {
				t.Errorf("header sent with MSG_MORE %v, want %v: %s", more, !alone, l)
			}
		case strings.Contains(l, "sendfile(") || strings.Contains(l, "sendfile resumed>"):
			// With several threads strace may split a call in two lines,
			// "sendfile(...) <unfinished ...>" and "<... sendfile resumed>) = n".
			if !strings.Contains(l, "resumed>") {
				sendfiles++
			}
			var n int64
			if i := strings.LastIndex(l, "= "); i >= 0 && !strings.Contains(l, "<unfinished") {
				fmt.Sscan(l[i+2:], &n)
			}
			sent += max(n, 0)
		case (strings.Contains(l, "write(") || strings.Contains(l, "writev(")) && strings.Contains(l, "HTTP/1.1 200"):
			t.Errorf("a response header went out by write, not on the zero-copy path: %s", l)
		}
	}
	if heads != 4 || sent != 4*size || !alone {
		t.Errorf("%d headers by sendmsg and %d body bytes in %d sendfile calls; want 4 and %d", heads, sent, sendfiles, 4*size)
	}
}

// straceServe serves dir on an httptest server for a child under strace,
// asks for path once on a keep-alive connection (caching its entry and
// descriptor) and writes the trace's begin marker: what follows, on the
// connection it returns, is traced.
func straceServe(t *testing.T, dir, path string) (*Handler, *rawConn) {
	h := newTestHandler(t, dir, Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := dialRaw(t, srv)
	c.send(t, get11(path))
	c.read(t, "GET")
	os.Open("/nonexistent/jaws-strace-begin")
	return h, c
}

func straceZeroCopyChild(t *testing.T, dir string) {
	h, c := straceServe(t, dir, "/big.bin")
	for i := range 4 {
		if i == 3 {
			h.tx.queued.Add(corkLimit) // as if other connections held that much
			os.Open("/nonexistent/jaws-strace-alone")
		}
		c.send(t, get11("/big.bin"))
		if resp, body := c.read(t, "GET"); resp.StatusCode != 200 || len(body) != 1<<20 {
			t.Fatalf("%d, %d bytes", resp.StatusCode, len(body))
		}
	}
	os.Open("/nonexistent/jaws-strace-end")
	waitTransfers(t, h, 10*time.Second) // the last is counted once it ends, after its client read it
	if s := h.Stats(); s.ZeroCopy.Responses != 5 {
		t.Fatalf("%d zero-copy responses, want 5", s.ZeroCopy.Responses)
	}
}

// TestStraceFallbackLease re-runs itself under strace while serving a
// mid-size file (sent by the fallback) five times on one keep-alive
// connection, and answering three conditional GETs for it with 304s: no
// request after the first opens the file, net/http still sends the leased
// descriptor by sendfile, and only a request that sends the body takes
// the lease (one lseek each).
func TestStraceFallbackLease(t *testing.T) {
	if dir := os.Getenv("JAWS_STRACE_LEASE"); dir != "" {
		_, c := straceServe(t, dir, "/mid.bin")
		for range 5 {
			c.send(t, get11("/mid.bin"))
			if resp, body := c.read(t, "GET"); resp.StatusCode != 200 || len(body) != midSize {
				t.Fatalf("%d, %d bytes", resp.StatusCode, len(body))
			}
		}
		for range 3 {
			c.send(t, get11("/mid.bin", "If-None-Match: *\r\n"))
			if resp, _ := c.read(t, "GET"); resp.StatusCode != 304 {
				t.Fatalf("%d, want 304", resp.StatusCode)
			}
		}
		os.Open("/nonexistent/jaws-strace-end")
		return
	}
	t.Parallel() // the child runs alone, in a process of its own
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "mid.bin"), randomBytes(midSize), 0o644))
	lines := underStrace(t, "TestStraceFallbackLease", "JAWS_STRACE_LEASE", dir, "sendfile,openat,openat2,lseek")
	var sent int64
	seeks := 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, "lseek("):
			seeks++
		case strings.Contains(l, "mid.bin"):
			t.Errorf("a request opened the file: %s", l)
		case strings.Contains(l, "sendfile(") || strings.Contains(l, "sendfile resumed>"):
			var n int64
			if i := strings.LastIndex(l, "= "); i >= 0 && !strings.Contains(l, "<unfinished") {
				fmt.Sscan(l[i+2:], &n)
			}
			sent += max(n, 0)
		}
	}
	// net/http writes a body's first 512 bytes with the header, then
	// hands the rest to sendfile (response.ReadFrom).
	if want := int64(5 * (midSize - sniffLen)); sent < want || sent > 5*midSize {
		t.Errorf("%d body bytes by sendfile, want %d to %d", sent, want, 5*midSize)
	}
	if seeks != 5 {
		t.Errorf("%d lseek calls for 5 bodies and 3 304s, want 5", seeks)
	}
}

// underStrace re-runs test in a child process under strace, tracing the
// given system calls, with env set to dir so the child knows its part, and
// returns the trace lines the child wrote between its begin and end markers
// (failed opens of /nonexistent/jaws-strace-begin and -end).
func underStrace(t *testing.T, test, env, dir, calls string) []string {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace="+calls, "-o", trace,
		os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+dir)
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
	return lines[begin+1 : end]
}

// TestStraceMissLooksForNoLinks: a request for a name that is not there
// costs its failed open, a stat of each sibling that could hold it
// compressed (a compressed-only file, compressedonly.go), and no look for
// symbolic links on its path, which only a name that was found needs
// (internal/source's watcher.cover).
func TestStraceMissLooksForNoLinks(t *testing.T) {
	if dir := os.Getenv("JAWS_STRACE_MISS"); dir != "" {
		h := newTestHandler(t, dir, Options{})
		os.Open("/nonexistent/jaws-strace-begin")
		for range 50 {
			if w := get(h, "/sub/missing.txt"); w.Code != 404 {
				t.Fatalf("%d", w.Code)
			}
		}
		os.Open("/nonexistent/jaws-strace-end")
		return
	}
	t.Parallel() // the child runs alone, in a process of its own
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	lines := underStrace(t, "TestStraceMissLooksForNoLinks", "JAWS_STRACE_MISS", dir, "openat,newfstatat,fstatat64,statx")
	opens, siblings := 0, 0
	for _, l := range lines {
		switch {
		case !strings.Contains(l, "missing.txt"):
		case strings.Contains(l, "openat(") && strings.Contains(l, `missing.txt"`):
			opens++
		case strings.Contains(l, `missing.txt.br"`), strings.Contains(l, `missing.txt.zst"`), strings.Contains(l, `missing.txt.gz"`):
			siblings++
		default:
			t.Errorf("a miss looked at its name: %s", l)
		}
	}
	if opens > 50 || siblings > 3*50 {
		t.Errorf("%d opens of missing.txt and %d looks at its siblings for 50 requests", opens, siblings)
	}
}
