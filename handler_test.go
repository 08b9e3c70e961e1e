package jaws

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestServeNext: what the handler serves it serves; everything else reaches
// next untouched.
func TestServeNext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "docs", "index.html"), []byte("docs"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".env"), []byte("secret"), 0o644))
	h := newTestHandler(t, dir, Options{})
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(w.Header()) != 0 {
			t.Errorf("%s %s: next got headers %v", r.Method, r.URL.Path, w.Header())
		}
		w.WriteHeader(299)
	})
	tests := []struct {
		name, method, path string
		want               int
	}{
		{"file", "GET", "/a.txt", 200},
		{"HEAD of a file", "HEAD", "/a.txt", 200},
		{"index", "GET", "/docs/", 200},
		{"redirect to index", "GET", "/docs", 301},
		{"missing", "GET", "/nope", 299},
		{"hidden", "GET", "/.env", 299},
		{"directory without index", "GET", "/empty/", 299},
		{"POST", "POST", "/a.txt", 299},
		{"OPTIONS", "OPTIONS", "/a.txt", 299},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			h.ServeNext(w, httptest.NewRequest(tt.method, tt.path, nil), next)
			if w.Code != tt.want {
				t.Errorf("%s %s: %d, want %d", tt.method, tt.path, w.Code, tt.want)
			}
		})
	}
}

func TestNotFoundAndMethodNotAllowedOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	page := func(code int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte(body))
		})
	}
	h := newTestHandler(t, dir, Options{NotFound: page(404, "custom 404"), MethodNotAllowed: page(405, "custom 405")})
	if w := get(h, "/missing"); w.Code != 404 || w.Body.String() != "custom 404" {
		t.Errorf("missing: %d %q", w.Code, w.Body)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("DELETE", "/a.txt", nil))
	if w.Code != 405 || w.Body.String() != "custom 405" || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE: %d %q Allow %q", w.Code, w.Body, w.Header().Get("Allow"))
	}
}

// TestNonCanonicalPaths: a path a router would match differently from what
// it cleans to is 404 (or next's, with ServeNext), so a route guarding
// "/private/*" cannot be bypassed through "/*".
func TestNonCanonicalPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "private"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "private", "secret.txt"), []byte("secret"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a+b.txt"), []byte("plus"), 0o644))
	h := newTestHandler(t, dir, Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tests := []struct {
		name, path string
		want       int
	}{
		{"canonical", "/private/secret.txt", 200},
		{"dot-dot segment", "/x/../private/secret.txt", 404},
		{"dot segment", "/./private/secret.txt", 404},
		{"empty segment", "//private/secret.txt", 404},
		{"encoded unreserved", "/priv%61te/secret.txt", 404},
		{"encoded slash", "/private%2Fsecret.txt", 404},
		{"encoded dot", "/private/secret%2etxt", 404},
		// A sub-delim encoded is not the sub-delim (RFC 3986 §2.2): a
		// router matching "/a+b.txt" does not match it.
		{"encoded sub-delim", "/a%2Bb.txt", 404},
		{"encoded sub-delim, lower case", "/a%2bb.txt", 404},
		// Malformed escapes never reach a handler: net/http answers 400.
		{"malformed escape", "/a%G1.txt", 400},
		{"trailing percent", "/a.txt%", 400},
		{"one hex digit", "/a.txt%2", 400},
		{"plain reserved", "/a+b.txt", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			must(t, err)
			defer c.Close()
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", tt.path)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			must(t, err)
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s: %d, want %d", tt.path, resp.StatusCode, tt.want)
			}
		})
	}
}
