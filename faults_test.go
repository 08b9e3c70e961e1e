package jaws

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFileChangesDuringTransfer changes a large file while a response is in
// flight (after its header and first bytes): grown by an append, replaced by
// a rename over it, deleted. The response in flight is the old version,
// byte for byte and exactly Content-Length long, because the descriptor it
// reads keeps the old file; the next request sees the new state. (Truncation
// in place: TestShrinkingFileAbortsResponse.) The connections have small
// socket buffers (startTight, dialTight), so most of the file is still to
// be read when it changes.
func TestFileChangesDuringTransfer(t *testing.T) {
	t.Parallel()
	const size = 2 << 20
	data := randomBytes(size)
	faults := []struct {
		name   string
		inject func(t *testing.T, path string)
		status int
		after  func(old []byte) []byte // the next response's body
	}{
		{"grown", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.Write([]byte("appended"))
			must(t, err)
			must(t, f.Close())
		}, 200, func(old []byte) []byte { return append(bytes.Clone(old), "appended"...) }},
		{"replaced", func(t *testing.T, p string) {
			must(t, os.WriteFile(p+".new", []byte("the new version"), 0o644))
			must(t, os.Rename(p+".new", p))
		}, 200, func([]byte) []byte { return []byte("the new version") }},
		{"deleted", func(t *testing.T, p string) {
			must(t, os.Remove(p))
		}, 404, nil},
	}
	for _, mode := range faultModes {
		for _, fault := range faults {
			t.Run(mode.name+"/"+fault.name, func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				path := filepath.Join(dir, "big.bin")
				must(t, os.WriteFile(path, data, 0o644))
				h := newTestHandler(t, dir, mode.o)
				srv := startTight(t, h, nil)
				warm := dialTight(t, srv) // the entry (and its descriptor) is cached
				warm.send(t, get11("/big.bin"))
				if _, body := warm.read(t, "GET"); !bytes.Equal(body, data) {
					t.Fatal("warm-up body differs")
				}
				h.store.cache.sync()

				c := dialTight(t, srv)
				c.send(t, get11("/big.bin"))
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				resp, err := http.ReadResponse(c.br, nil)
				must(t, err)
				head := make([]byte, 64<<10)
				_, err = io.ReadFull(resp.Body, head)
				must(t, err)
				fault.inject(t, path)
				rest, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("the response in flight broke: %v after %d bytes", err, len(head)+len(rest))
				}
				if got := append(head, rest...); resp.ContentLength != size || !bytes.Equal(got, data) {
					t.Fatalf("the response in flight: %d bytes, Content-Length %d; not the old version", len(got), resp.ContentLength)
				}

				c.send(t, get11("/big.bin")) // the same connection: keep-alive went on
				resp, body := c.read(t, "GET")
				if resp.StatusCode != fault.status {
					t.Fatalf("next request: %d, want %d", resp.StatusCode, fault.status)
				}
				if fault.after != nil && !bytes.Equal(body, fault.after(data)) {
					t.Fatalf("next request: %d bytes, not the new version", len(body))
				}
				waitTransfers(t, h, 10*time.Second)
				if n := pathResponses(h, mode.name); n < 2 {
					t.Errorf("%d responses on the %s path, want the warm-up and the faulted one", n, mode.name)
				}
			})
		}
	}
}

// TestRootRemovedOrReplaced: the root is the path given to New, as with
// http.Dir. Removed, every name is 404 (cached ones too), and nothing hangs
// or panics; replaced by another directory renamed to its path, the next
// request is served from the new directory, never from a mix of the two.
func TestRootRemovedOrReplaced(t *testing.T) {
	t.Parallel()
	for _, mode := range faultModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			t.Run("removed", func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				root := filepath.Join(dir, "root")
				must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
				big := randomBytes(1 << 20)
				must(t, os.WriteFile(filepath.Join(root, "big.bin"), big, 0o644))
				must(t, os.WriteFile(filepath.Join(root, "sub", "index.html"), []byte("index"), 0o644))
				h := newTestHandler(t, root, mode.o)
				srv := httptest.NewServer(h)
				defer srv.Close()
				c := dialRaw(t, srv)
				for _, p := range []string{"/big.bin", "/sub/"} {
					c.send(t, get11(p))
					if resp, _ := c.read(t, "GET"); resp.StatusCode != 200 {
						t.Fatalf("GET %s: %d", p, resp.StatusCode)
					}
				}
				h.store.cache.sync()
				must(t, os.RemoveAll(root))
				for _, p := range []string{"/big.bin", "/sub/", "/", "/missing"} {
					c.send(t, get11(p))
					if resp, body := c.read(t, "GET"); resp.StatusCode != 404 {
						t.Errorf("GET %s after the root was removed: %d %q, want 404", p, resp.StatusCode, body)
					}
				}
			})
			t.Run("replaced", func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				root := filepath.Join(dir, "root")
				must(t, os.MkdirAll(root, 0o755))
				must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("old a"), 0o644))
				h := newTestHandler(t, root, mode.o)
				srv := httptest.NewServer(h)
				defer srv.Close()
				c := dialRaw(t, srv)
				c.send(t, get11("/a.txt"))
				c.read(t, "GET")
				h.store.cache.sync()
				next := filepath.Join(dir, "next")
				must(t, os.MkdirAll(next, 0o755))
				must(t, os.WriteFile(filepath.Join(next, "a.txt"), []byte("new a"), 0o644))
				must(t, os.WriteFile(filepath.Join(next, "b.txt"), []byte("new b"), 0o644))
				must(t, os.Rename(root, filepath.Join(dir, "old")))
				must(t, os.Rename(next, root))
				for _, tc := range []struct {
					path   string
					status int
					body   string
				}{{"/a.txt", 200, "new a"}, {"/b.txt", 200, "new b"}} {
					c.send(t, get11(tc.path))
					resp, body := c.read(t, "GET")
					if resp.StatusCode != tc.status || tc.status == 200 && string(body) != tc.body {
						t.Errorf("GET %s after the root was replaced: %d %q, want %d %q", tc.path, resp.StatusCode, body, tc.status, tc.body)
					}
				}
			})
		})
	}
}

// pathResponses counts the 200/206 responses on the named transfer path.
func pathResponses(h *Handler, path string) uint64 {
	s := h.Stats()
	switch path {
	case "memory":
		return s.Memory.Responses
	case "zerocopy":
		return s.ZeroCopy.Responses
	}
	return s.Fallback.Responses
}
