package jaws_test

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/jaws-go/jaws"
)

// hostileGlobs is a shared-mime-info table of the kind golang/go#32350 and
// #68591 report: every type of the web wrong.
const hostileGlobs = `50:text/plain:*.woff
50:text/plain:*.ttf
50:application/octet-stream:*.woff2
50:application/octet-stream:*.wasm
50:application/vnd.oasis.opendocument.formula-template:*.otf
50:text/plain:*.webmanifest
50:text/plain:*.js
50:application/octet-stream:*.css
50:application/octet-stream:*.svg
50:application/x-host:*.hostonly
`

// TestContentTypesHostileHost serves files from a process whose host tables
// are hostile. The child runs in a mount namespace of its own, where a tmpfs
// over /usr/local/share holds the globs2 file the mime package reads first.
// jaws's types must not move; an extension outside jaws's table still comes
// from the host.
func TestContentTypesHostileHost(t *testing.T) {
	if os.Getenv("JAWS_HOSTILE_MIME") == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for a mount namespace")
		}
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestContentTypesHostileHost$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "JAWS_HOSTILE_MIME=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("--- PASS: TestContentTypesHostileHost")) {
			t.Fatalf("child did not run the test:\n%s", out)
		}
		return
	}
	must(t, syscall.Mount("tmpfs", "/usr/local/share", "tmpfs", 0, ""))
	must(t, os.MkdirAll("/usr/local/share/mime", 0o755))
	must(t, os.WriteFile("/usr/local/share/mime/globs2", []byte(hostileGlobs), 0o644))
	if got := mime.TypeByExtension(".woff2"); got != "application/octet-stream" {
		t.Fatalf("the host's tables are not the hostile ones: .woff2 is %q", got)
	}

	want := map[string]string{
		"font.woff":        "font/woff",
		"font.woff2":       "font/woff2",
		"font.ttf":         "font/ttf",
		"font.otf":         "font/otf",
		"app.wasm":         "application/wasm",
		"site.webmanifest": "application/manifest+json; charset=utf-8",
		"app.js":           "text/javascript; charset=utf-8",
		"style.css":        "text/css; charset=utf-8",
		"logo.svg":         "image/svg+xml",
		"page.hostonly":    "application/x-host",
	}
	dir := t.TempDir()
	mapfs := fstest.MapFS{}
	for name := range want {
		body := []byte("<!doctype html>" + name) // would sniff as HTML
		must(t, os.WriteFile(filepath.Join(dir, name), body, 0o644))
		mapfs[name] = &fstest.MapFile{Data: body}
	}
	fromDir, err := jaws.New(dir, jaws.Options{})
	must(t, err)
	defer fromDir.Close()
	fromFS, err := jaws.NewFS(mapfs, jaws.Options{})
	must(t, err)
	defer fromFS.Close()

	for _, h := range []struct {
		name    string
		handler http.Handler
	}{{"New", fromDir}, {"NewFS", fromFS}} {
		srv := httptest.NewServer(h.handler)
		for name, ct := range want {
			resp, err := http.Get(srv.URL + "/" + name)
			must(t, err)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ct {
				t.Errorf("%s %s: %d %q, want 200 %q", h.name, name, resp.StatusCode, resp.Header.Get("Content-Type"), ct)
			}
		}
		srv.Close()
	}
}
