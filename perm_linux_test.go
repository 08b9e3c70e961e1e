package jaws

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPermissionsAsNobody runs the permission tests, which skip as root
// (root reads every file), as the user nobody: the test binary is copied to
// a directory nobody can reach and re-run with nobody's credentials.
func TestPermissionsAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the permission tests run as this user directly")
	}
	t.Parallel()
	dir, err := os.MkdirTemp(os.TempDir(), "jaws-nobody")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "jaws.test")
	src, err := os.Open(os.Args[0])
	must(t, err)
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	must(t, err)
	_, err = io.Copy(dst, src)
	src.Close()
	must(t, err)
	must(t, dst.Close())

	const tests = "^(TestPermissionDenied|TestPermissionChangedWhileCached)$"
	cmd := exec.Command(bin, "-test.run="+tests, "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+os.TempDir(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Skipf("cannot run the tests as nobody (uid 65534): %v", err)
		}
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	for _, name := range []string{"TestPermissionDenied", "TestPermissionChangedWhileCached"} {
		if !bytes.Contains(out, []byte("--- PASS: "+name)) {
			t.Errorf("%s did not pass as nobody:\n%s", name, out)
		}
	}
	t.Logf("as nobody:\n%s", strings.TrimSpace(string(out)))
}

// TestPermissionChangedWhileCached: a file served, and cached, whose read
// permission is then taken away is 403 on the very next request, on every
// transfer path (a chmod changes the ctime the cache checks), with no byte
// of it; given back, it is served again. As root every file is readable, so
// this runs as another user (TestPermissionsAsNobody).
func TestPermissionChangedWhileCached(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not deny anything (see TestPermissionsAsNobody)")
	}
	for _, mode := range faultModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "f.bin")
			data := randomBytes(256 << 10)
			must(t, os.WriteFile(path, data, 0o644))
			h := newTestHandler(t, dir, mode.o)
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := dialRaw(t, srv)
			expect := func(status int) {
				t.Helper()
				c.send(t, get11("/f.bin"))
				resp, body := c.read(t, "GET")
				if resp.StatusCode != status {
					t.Fatalf("%d, want %d", resp.StatusCode, status)
				}
				if status == 200 && !bytes.Equal(body, data) {
					t.Fatal("body differs")
				}
				if status != 200 && bytes.Contains(body, data[:64]) {
					t.Fatal("a denied response carries the file's bytes")
				}
			}
			expect(200)
			h.store.cache.sync()
			expect(200) // a hit
			must(t, os.Chmod(path, 0))
			expect(403)
			must(t, os.Chmod(path, 0o644))
			expect(200)
		})
	}
}
