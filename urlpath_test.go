package jaws

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jaws-go/jaws/internal/httprule"
)

func TestCleanName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string
		serveDot bool
		want     string
		ok       bool
	}{
		{"root", "/", false, ".", true},
		{"empty", "", false, ".", true},
		{"file", "/a/b.txt", false, "a/b.txt", true},
		{"no leading slash", "a/b.txt", false, "a/b.txt", true},
		{"dotdot refused", "/../../etc/passwd", false, "", false},
		{"dotdot inside refused", "/a/../b", false, "", false},
		{"dot segments refused", "/./a/./b/", false, "", false},
		{"trailing slash kept", "/a/b/", false, "a/b", true},
		{"double slash refused", "//a//b", false, "", false},
		{"NUL", "/a\x00b", false, "", false},
		{"backslash", "/..\\secret", false, "", false},
		{"dotfile", "/.env", false, "", false},
		{"dot directory", "/.git/config", false, "", false},
		{"nested dotfile", "/a/.hidden", false, "", false},
		{"dotfile served", "/.env", true, ".env", true},
		{"well-known public", "/.well-known/x", false, ".well-known/x", true},
		{"well-known dir", "/.well-known/", false, ".well-known", true},
		{"well-known itself", "/.well-known", false, ".well-known", true},
		{"hidden inside well-known", "/.well-known/.x", false, "", false},
		{"well-known below the top", "/a/.well-known/x", false, "", false},
		{"well-known look-alike", "/.well-knownx/y", false, "", false},
		{"dot inside name", "/a.b/c.d", false, "a.b/c.d", true},
		{"trailing dots refused", "/a/..", false, "", false},
		{"root with two slashes refused", "//", false, "", false},
		// Spellings Windows never stores (unstorableOnWindows): refused
		// there, names like any elsewhere.
		{"trailing dot", "/a./b", false, onWindows("", "a./b"), !isWindows},
		{"trailing space", "/a /b", false, onWindows("", "a /b"), !isWindows},
		{"stream", "/a/b::$DATA", false, onWindows("", "a/b::$DATA"), !isWindows},
		{"short name", "/PRIVAT~1/b", false, "PRIVAT~1/b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := cleanName(tt.path, tt.serveDot)
			if got != tt.want || ok != tt.ok {
				t.Errorf("cleanName(%q) = %q, %v; want %q, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestCleanNameSegments: cleanName refuses exactly the paths with empty, "."
// or ".." segments that middleware's httprule.CleanPath refuses, for every
// path of up to eight of '/', '.' and 'a' (dot names served, so that only
// the segments decide).
func TestCleanNameSegments(t *testing.T) {
	t.Parallel()
	paths := []string{""}
	for n := 0; n < 8; n++ {
		for _, p := range paths[len(paths)-pow3(n):] {
			for _, c := range "/.a" {
				paths = append(paths, p+string(c))
			}
		}
	}
	for _, p := range paths {
		if isWindows && unstorableOnWindows(path.Clean("/"+p)) {
			continue // refused on Windows whatever its segments
		}
		if _, ok := cleanName(p, true); ok != httprule.CleanPath(p) {
			t.Errorf("cleanName(%q) ok = %v, httprule.CleanPath = %v", p, ok, !ok)
		}
	}
}

func pow3(n int) int {
	r := 1
	for range n {
		r *= 3
	}
	return r
}

const isWindows = runtime.GOOS == "windows"

// onWindows returns win on Windows, else other.
func onWindows(win, other string) string {
	if isWindows {
		return win
	}
	return other
}

func TestRedirectFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		path  string
		isDir bool
		want  string
	}{
		{"dir without slash", "/docs", true, "docs/"},
		{"nested dir without slash", "/a/docs", true, "docs/"},
		{"dir with slash", "/docs/", true, ""},
		{"root", "/", true, ""},
		{"file", "/a.txt", false, ""},
		{"file with slash", "/a/b.txt/", false, "../b.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := redirectFor(tt.path, tt.isDir); got != tt.want {
				t.Errorf("redirectFor(%q, %v) = %q, want %q", tt.path, tt.isDir, got, tt.want)
			}
		})
	}
}

// FuzzCleanName: cleanName answers as it did in three passes (path.Clean,
// then a scan for hidden names), which plainPath does in one, with
// ServeDotFiles and without.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"/", "//", "/a", "/a/", "/a//b", "a/b", "/.env", "/a/.git/x", "/./a", "/a/..",
		"/.well-known", "/.well-known/", "/.well-known/acme/x", "/.well-known/.x", "/.well-knownx", "/.well-known/../x",
		"/a\x00", "/a\\b", "/a/./", "/...", "/a.b/c.", "", "/.", "/..", "/a/.", "/a/..x", "/..a/b", "/.well-known/.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, dot := range []bool{false, true} {
			got, ok := cleanName(p, dot)
			want, wok := cleanNameSlow(p, dot)
			if got != want || ok != wok {
				t.Fatalf("cleanName(%q, %v) = %q, %v; the slow way %q, %v", p, dot, got, ok, want, wok)
			}
		}
	})
}

// cleanNameSlow is cleanName as it was before plainPath.
func cleanNameSlow(urlPath string, serveDot bool) (string, bool) {
	if strings.ContainsAny(urlPath, "\x00\\") {
		return "", false
	}
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath
	}
	p := path.Clean(urlPath)
	if p != urlPath && (p == "/" || p+"/" != urlPath) {
		return "", false
	}
	if !serveDot && hasHiddenElem(p) {
		return "", false
	}
	if runtime.GOOS == "windows" && unstorableOnWindows(p) {
		return "", false
	}
	if p == "/" {
		return ".", true
	}
	return p[1:], true
}

// hasHiddenElem reports whether any element of the cleaned path starts with a
// dot (".git", ".env", ".htpasswd", ".DS_Store"): such names are private by
// convention, and often hold secrets or reveal the tree. One is public by
// definition: "/.well-known/" at the top (RFC 8615), where ACME challenges,
// security.txt and app links live; names inside it are judged as any.
func hasHiddenElem(p string) bool {
	if rest, ok := strings.CutPrefix(p, wellKnown); ok && (rest == "" || rest[0] == '/') {
		p = rest
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && (i == 0 || p[i-1] == '/') {
			return true
		}
	}
	return false
}

// FuzzServePath throws arbitrary decoded paths at a live handler whose root
// sits next to a secret: no panic, no secret, only expected statuses.
func FuzzServePath(f *testing.F) {
	parent := f.TempDir()
	const marker = "TOP-SECRET-MARKER"
	root := filepath.Join(parent, "root")
	must(f, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(f, os.WriteFile(filepath.Join(parent, "secret"), []byte(marker), 0o644))
	must(f, os.WriteFile(filepath.Join(root, "sub", "index.html"), []byte("<p>index</p>"), 0o644))
	must(f, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644))
	must(f, os.WriteFile(filepath.Join(root, ".env"), []byte(marker), 0o644))
	must(f, os.Symlink("../secret", filepath.Join(root, "out")))
	must(f, os.Symlink(parent, filepath.Join(root, "up")))
	h, err := New(root, Options{DirectoryListing: true})
	must(f, err)
	f.Cleanup(func() { h.Close() })

	for _, s := range []string{"/", "/a.txt", "/../secret", "/sub", "/sub/index.html", "/out", "/up/secret",
		"/..\\secret", "/.env", "/a\x00", "/\xc0\xae\xc0\xae/secret", "/%2e%2e/secret", "//..//secret", "/sub/../../secret"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.URL = &url.URL{Path: p}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if bytes.Contains(w.Body.Bytes(), []byte(marker)) {
			t.Fatalf("%q: served the secret", p)
		}
		switch w.Code {
		case 200, 301, 404:
		default:
			t.Fatalf("%q: status %d", p, w.Code)
		}
		if w.Code == 404 && strings.Contains(w.Body.String(), parent) {
			t.Fatalf("%q: error body names the directory", p)
		}
	})
}

var _ http.Handler = (*Handler)(nil)

func TestNameCaseUnstorableOnWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path string
		want       bool
	}{
		{"plain", "/private/secret.txt", false},
		{"root", "/", false},
		{"directory", "/private/", false},
		{"dot inside", "/a.b/c.d", false},
		{"tilde", "/PRIVAT~1/secret.txt", false}, // checked after the open, by the name stored
		{"dotfile", "/.well-known/x", false},
		{"trailing dot, directory", "/private./secret.txt", true},
		{"trailing dots, directory", "/private../secret.txt", true},
		{"trailing dot, file", "/private/secret.txt.", true},
		{"trailing dot, directory with slash", "/private./", true},
		{"trailing space, directory", "/private /secret.txt", true},
		{"trailing space, file", "/private/secret.txt ", true},
		{"dot and space", "/private. /secret.txt", true},
		{"space inside", "/a b/c d.txt", false},
		{"leading space", "/ a.txt", false},
		{"stream", "/private/secret.txt::$DATA", true},
		{"stream, one colon", "/private/secret.txt:$DATA", true},
		{"named stream", "/private/secret.txt:hidden", true},
		{"directory stream", "/private::$INDEX_ALLOCATION/secret.txt", true},
		{"drive", "/C:/Windows/win.ini", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := unstorableOnWindows(tt.path); got != tt.want {
				t.Errorf("unstorableOnWindows(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
