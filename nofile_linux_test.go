package jaws

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOutOfDescriptors re-runs itself in a child process whose RLIMIT_NOFILE
// is lowered, so this process keeps its own limit. In the child, every
// descriptor is used up while clients hold keep-alive connections: a request
// that must open a file gets a fast 503 with Retry-After, cache hits (a body
// in memory, a shared descriptor for zero-copy) go on being served, and once
// descriptors are free again the same request is served.
func TestOutOfDescriptors(t *testing.T) {
	if dir := os.Getenv("JAWS_NOFILE_CHILD"); dir != "" {
		noFileChild(t, dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "hit.txt"), []byte("cached body"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), randomBytes(256<<10), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "miss.txt"), []byte("opened after the flood"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "nested.txt"), []byte("nested"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutOfDescriptors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "JAWS_NOFILE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestOutOfDescriptors")) {
		t.Fatalf("child did not run the test:\n%s", out)
	}
	t.Logf("child:\n%s", out)
}

func noFileChild(t *testing.T, dir string) {
	must(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 256, Max: 256}))
	h := newTestHandler(t, dir, Options{CacheMaxFileSize: 1024, ZeroCopyMinSize: 4096})
	srv := httptest.NewServer(h)
	defer srv.Close()
	conns := make([]*rawConn, 4)
	for i := range conns {
		conns[i] = dialRaw(t, srv)
	}
	expect := func(c *rawConn, path string, status int) (time.Duration, []byte) {
		t.Helper()
		start := time.Now()
		c.send(t, get11(path))
		resp, body := c.read(t, "GET")
		if resp.StatusCode != status {
			t.Fatalf("GET %s: %d %q, want %d", path, resp.StatusCode, body, status)
		}
		if status == 503 && resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("GET %s: 503 without Retry-After: 1", path)
		}
		return time.Since(start), body
	}
	// Warm the cache: a body in memory, a shared descriptor, a nested name.
	for _, p := range []string{"/hit.txt", "/big.bin", "/sub/nested.txt"} {
		expect(conns[0], p, 200)
	}
	h.store.cache.sync()

	var held []int
	for {
		fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			if err != syscall.EMFILE {
				t.Fatalf("filling the descriptor table: %v", err)
			}
			break
		}
		held = append(held, fd)
	}
	release := func() {
		for _, fd := range held {
			syscall.Close(fd)
		}
		held = nil
	}
	defer release()
	t.Logf("holding %d descriptors: none left", len(held))

	for i := range 20 {
		c := conns[i%len(conns)]
		if d, _ := expect(c, "/miss.txt", 503); d > time.Second {
			t.Errorf("the 503 took %v", d)
		}
		if _, body := expect(c, "/hit.txt", 200); string(body) != "cached body" {
			t.Fatalf("hit: %q", body)
		}
		if _, body := expect(c, "/big.bin", 200); len(body) != 256<<10 {
			t.Fatalf("zero-copy hit: %d bytes", len(body))
		}
	}
	expect(conns[1], "/sub/nested.txt", 200)
	waitTransfers(t, h, 10*time.Second) // the last hit is counted once it ends, after its client read it
	if s := h.Stats(); s.ZeroCopy.Responses < 20 {
		t.Errorf("%d zero-copy responses: the hits did not take the shared descriptor", s.ZeroCopy.Responses)
	}

	release()
	_, body := expect(conns[2], "/miss.txt", 200)
	if string(body) != "opened after the flood" {
		t.Fatalf("after release: %q", body)
	}
	c := dialRaw(t, srv) // new connections are accepted again
	expect(c, "/miss.txt", 200)
	t.Log("recovered once descriptors were free")
}
