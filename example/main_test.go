//go:build !compressedonly

// The demo site's tests: with -tags compressedonly the built-in site is the
// Vite build, which compressedonly_test.go tests.

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws"
	jawsmw "github.com/jaws-go/jaws/middleware"

	"github.com/jaws-go/jaws/internal/testsite"
)

// running is one call of run in the background.
type running struct {
	url     string // base URL, ending in "/"
	serving string // what run says it serves: a directory, or demoSite
	stop    func() error
}

// stats reads the handler's counters from /debug/jaws.
func (s *running) stats(t *testing.T) jaws.Stats {
	t.Helper()
	resp, body := do(t, noRedirects, "GET", s.url+"debug/jaws", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/debug/jaws: %d %q, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var st jaws.Stats
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("/debug/jaws: %v in %s", err, body)
	}
	return st
}

// startRun calls run with args and returns once it prints the URL it serves
// on. stop cancels run's context and returns its result; it also runs at
// cleanup.
func startRun(t *testing.T, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw, t.Output())
		pw.Close()
		done <- err
	}()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return errors.New("run did not return within 30s of its context's end")
		}
	})
	t.Cleanup(func() { stop() })

	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("reading run's first line: %v (run: %v)", err, stop())
	}
	go io.Copy(io.Discard, br) // run may print more; never block it

	rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "jaws example serving ")
	i := strings.LastIndex(rest, " on ")
	if !ok || i < 0 {
		t.Fatalf("run printed %q, want \"jaws example serving WHAT on URL\"", line)
	}
	return &running{url: rest[i+len(" on "):], serving: rest[:i], stop: stop}
}

// noRedirects is a client that returns redirects instead of following them
// and that does not ask for compression unless a test does.
var noRedirects = &http.Client{
	Timeout:       30 * time.Second,
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends one request and returns the response with its body read.
func do(t *testing.T, c *http.Client, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func siteFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(site, "site/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadedScript matches the script a page loads.
var loadedScript = regexp.MustCompile(`<script src="/(assets/app\.[0-9a-f]+\.js)"`)

// appScript is the name of the demo's current fingerprinted script, the
// assets/app.HASH.js index.html loads.
func appScript(t testing.TB) string { return scriptOf(t, "index.html") }

// previousScript is the previous release's build of the script, kept
// beside the current one as deploys keep them: the one docs/previous.html
// loads.
func previousScript(t testing.TB) string { return scriptOf(t, "docs/previous.html") }

// scriptOf is the assets/app.HASH.js the site's page loads.
func scriptOf(t testing.TB, page string) string {
	t.Helper()
	m := loadedScript.FindSubmatch(siteFile(t, page))
	if m == nil {
		t.Fatalf("%s loads no /assets/app.HASH.js", page)
	}
	return string(m[1])
}

// TestFingerprint: each build of the script is named by the hash of its
// content, as a build tool would write it, so the immutable cache rule is
// honest; the index page loads the current build and docs/previous.html
// the one before, and the site has those two.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(site, "site/assets/app.*.js")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		name = strings.TrimPrefix(name, "site/")
		names[i] = name
		sum := sha256.Sum256(siteFile(t, name))
		if want := "assets/app." + hex.EncodeToString(sum[:])[:8] + ".js"; name != want {
			t.Errorf("site/%s holds content whose name is %s: rename it and update the page that loads it", name, want)
		}
		if !jawsmw.Fingerprinted("/" + name) {
			t.Errorf("%s is not taken for a fingerprinted name", name)
		}
	}
	cur, prev := appScript(t), previousScript(t)
	if want := []string{cur, prev}; len(names) != 2 || !contains(names, cur) || !contains(names, prev) || cur == prev {
		t.Errorf("site/assets has the builds %q; want the current and the previous, %q", names, want)
	}
}

func TestRunDemoSite(t *testing.T) {
	t.Parallel()
	srv := startRun(t, "-addr", "127.0.0.1:0")
	if !strings.HasPrefix(srv.url, "http://127.0.0.1:") || strings.HasSuffix(srv.url, ":0/") {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/ with the listener's real port", srv.url)
	}
	if srv.serving != demoSite {
		t.Errorf("run says it serves %q, want %q", srv.serving, demoSite)
	}

	css, index, script, clip := siteFile(t, "assets/style.css"), siteFile(t, "index.html"), appScript(t), siteFile(t, "assets/video.webm")
	html := http.Header{"Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}}
	// jaws's own table gives these, whatever the host's tables say.
	const (
		htmlType = "text/html; charset=utf-8"
		cssType  = "text/css; charset=utf-8"
		jsType   = "text/javascript; charset=utf-8"
	)
	ae := func(codings string, h ...http.Header) http.Header {
		out := http.Header{"Accept-Encoding": {codings}}
		for _, h := range h {
			for k, v := range h {
				out[k] = v
			}
		}
		return out
	}
	cases := []struct {
		name       string
		method     string
		path       string
		header     http.Header
		wantStatus int
		wantType   string // "" skips the check
		wantBody   []byte // after decoding the Content-Encoding; nil skips the check
		wantCoding string // Content-Encoding; "" is none
		wantHeader map[string]string
		lookups    uint64 // requests the jaws handler sees: 1 unless set
	}{
		{name: "index", method: "GET", path: "", wantStatus: 200, wantType: htmlType, wantBody: index,
			wantHeader: map[string]string{"Cache-Control": "no-cache", "Vary": "Accept-Encoding"}},
		{name: "stylesheet", method: "GET", path: "assets/style.css", wantStatus: 200, wantType: cssType, wantBody: css,
			wantHeader: map[string]string{"Content-Length": strconv.Itoa(len(css)), "Accept-Ranges": "bytes", "Cache-Control": "", "Vary": "Accept-Encoding"}},
		{name: "fingerprinted script", method: "GET", path: script, wantStatus: 200, wantType: jsType, wantBody: siteFile(t, script),
			wantHeader: map[string]string{"Cache-Control": "public, max-age=31536000, immutable", "Vary": "Accept-Encoding, Available-Dictionary",
				"Use-As-Dictionary": `match="/assets/app.*.js", match-dest=("script")`}},
		// The previous build, kept beside it, is a dictionary for it: a
		// browser that holds it gets the difference (dcz).
		{name: "previous build", method: "GET", path: previousScript(t), header: ae("gzip, deflate, br, zstd"), wantStatus: 200, wantBody: siteFile(t, previousScript(t)), wantCoding: "br",
			wantHeader: map[string]string{"Vary": "Accept-Encoding, Available-Dictionary", "Use-As-Dictionary": `match="/assets/app.*.js", match-dest=("script")`}},
		{name: "script as the difference", method: "GET", path: script, header: ae("gzip, deflate, br, zstd, dcb, dcz", dictionaryHeld(t, previousScript(t))),
			wantStatus: 200, wantType: jsType, wantBody: siteFile(t, script), wantCoding: "dcz",
			wantHeader: map[string]string{"Vary": "Accept-Encoding, Available-Dictionary", "Cache-Control": "public, max-age=31536000, immutable"}},
		{name: "logo", method: "GET", path: "assets/logo.svg", wantStatus: 200, wantType: "image/svg+xml", wantBody: siteFile(t, "assets/logo.svg")},
		{name: "video range", method: "GET", path: "assets/video.webm", header: http.Header{"Range": {"bytes=1000-"}}, wantStatus: 206, wantType: "video/webm", wantBody: clip[1000:],
			wantHeader: map[string]string{"Content-Range": fmt.Sprintf("bytes 1000-%d/%d", len(clip)-1, len(clip))}},
		{name: "docs index", method: "GET", path: "docs/", wantStatus: 200, wantType: htmlType, wantBody: siteFile(t, "docs/index.html")},
		{name: "head", method: "HEAD", path: "assets/style.css", wantStatus: 200, wantType: cssType, wantBody: []byte{},
			wantHeader: map[string]string{"Content-Length": strconv.Itoa(len(css))}},
		{name: "range", method: "GET", path: "assets/style.css", header: http.Header{"Range": {"bytes=0-15"}}, wantStatus: 206, wantBody: css[:16],
			wantHeader: map[string]string{"Content-Range": "bytes 0-15/" + strconv.Itoa(len(css))}},
		// jaws compresses text itself, in the coding the client prefers
		// (ties to br, zstd, gzip), with the compressed length.
		{name: "gzip", method: "GET", path: "assets/style.css", header: ae("gzip"), wantStatus: 200, wantType: cssType, wantBody: css, wantCoding: "gzip",
			wantHeader: map[string]string{"Vary": "Accept-Encoding"}},
		{name: "browser's codings", method: "GET", path: "assets/style.css", header: ae("gzip, deflate, br, zstd"), wantStatus: 200, wantBody: css, wantCoding: "br",
			wantHeader: map[string]string{"Vary": "Accept-Encoding"}},
		{name: "zstd preferred by weight", method: "GET", path: "", header: ae("br;q=0.5, zstd, gzip;q=0.8"), wantStatus: 200, wantBody: index, wantCoding: "zstd",
			wantHeader: map[string]string{"Vary": "Accept-Encoding", "Cache-Control": "no-cache"}},
		{name: "precompressed sibling", method: "GET", path: script, header: ae("br"), wantStatus: 200, wantType: jsType,
			wantBody: siteFile(t, script), wantCoding: "br",
			wantHeader: map[string]string{"Content-Length": strconv.Itoa(len(siteFile(t, script+".br"))), "Cache-Control": "public, max-age=31536000, immutable"}},
		{name: "identity refused, nothing else", method: "GET", path: "assets/style.css", header: ae("identity;q=0, deflate"), wantStatus: 200, wantBody: css,
			wantHeader: map[string]string{"Vary": "Accept-Encoding"}},
		{name: "small file not compressed", method: "GET", path: "assets/logo.svg", header: ae("br, gzip"), wantStatus: 200, wantBody: siteFile(t, "assets/logo.svg"),
			wantHeader: map[string]string{"Vary": ""}},
		{name: "video not compressed", method: "GET", path: "assets/video.webm", header: ae("gzip, deflate, br, zstd"), wantStatus: 200, wantBody: clip,
			wantHeader: map[string]string{"Vary": "", "Content-Length": strconv.Itoa(len(clip))}},
		{name: "client route", method: "GET", path: "about", header: html, wantStatus: 200, wantType: htmlType, wantBody: index,
			wantHeader: map[string]string{"Cache-Control": "no-cache", "Vary": "Accept, Accept-Encoding"}, lookups: 2},
		{name: "client route, compressed", method: "GET", path: "video", header: ae("gzip", html), wantStatus: 200, wantBody: index, wantCoding: "gzip",
			wantHeader: map[string]string{"Vary": "Accept, Accept-Encoding"}, lookups: 2},
		{name: "client route without Accept", method: "GET", path: "about", wantStatus: 404, wantBody: []byte("404 page not found\n"), lookups: 2},
		{name: "missing asset", method: "GET", path: "assets/missing.js", header: html, wantStatus: 404, wantType: "text/html; charset=utf-8",
			wantHeader: map[string]string{"Cache-Control": ""}, lookups: 2},
		{name: "missing at the root", method: "GET", path: "no-such-file.js", wantStatus: 404, lookups: 2},
		// The site is served at / alone: no second mount that would put
		// an assets/ folder of its own at /assets/assets/.
		{name: "asset outside assets/", method: "GET", path: "style.css", wantStatus: 404, lookups: 2},
		{name: "assets/assets/", method: "GET", path: "assets/assets/style.css", wantStatus: 404, lookups: 2},
		{name: "assets directory", method: "GET", path: "assets", wantStatus: 404, lookups: 2},
		{name: "directory redirect", method: "GET", path: "docs", wantStatus: 301, wantHeader: map[string]string{"Location": "docs/"}},
		{name: "index.html redirect", method: "GET", path: "index.html", wantStatus: 301, wantHeader: map[string]string{"Location": "./"}},
		{name: "post", method: "POST", path: "", wantStatus: 405, wantHeader: map[string]string{"Allow": "GET, HEAD"}},
		{name: "API", method: "GET", path: "api/time", wantStatus: 200, wantType: "application/json"},
		{name: "API 404", method: "GET", path: "api/nope", header: html, wantStatus: 404, wantType: "application/json"},
	}
	var mu sync.Mutex
	var bodyResponses, bodyBytes, jawsRequests, encoded uint64 // what jaws should count
	compressed := map[string]bool{}                            // coding and file jaws compressed
	t.Run("requests", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				resp, body := do(t, noRedirects, tc.method, srv.url+tc.path, tc.header)
				if resp.StatusCode != tc.wantStatus {
					t.Fatalf("status %d, want %d; body %q", resp.StatusCode, tc.wantStatus, body)
				}
				if got := resp.Header.Get("Content-Type"); tc.wantType != "" && got != tc.wantType {
					t.Errorf("Content-Type %q, want %q", got, tc.wantType)
				}
				enc := resp.Header.Get("Content-Encoding")
				if enc != tc.wantCoding {
					t.Errorf("Content-Encoding %q, want %q", enc, tc.wantCoding)
				}
				if n := resp.Header.Get("Content-Length"); tc.method == "GET" && n != strconv.Itoa(len(body)) && !strings.HasPrefix(tc.path, "api/") {
					t.Errorf("Content-Length %q for a body of %d bytes", n, len(body))
				}
				if tc.wantBody != nil {
					plain := decodeDcz(t, enc, body, siteFile(t, previousScript(t)))
					if string(plain) != string(tc.wantBody) {
						t.Errorf("body (Content-Encoding %q) is %d bytes %.40q..., want %d bytes %.40q...", enc, len(plain), plain, len(tc.wantBody), tc.wantBody)
					}
				}
				for k, want := range tc.wantHeader {
					if got := strings.Join(resp.Header.Values(k), ", "); got != want {
						t.Errorf("%s: %q, want %q", k, got, want)
					}
				}
				n := tc.lookups
				switch {
				case strings.HasPrefix(tc.path, "api/"):
					n = 0
				case n == 0:
					n = 1
				}
				mu.Lock()
				defer mu.Unlock()
				jawsRequests += n
				if (resp.StatusCode == 200 || resp.StatusCode == 206) && n > 0 {
					bodyResponses++
					bodyBytes += uint64(len(body)) // jaws counts what it wrote, compressed or not
					if enc != "" {
						encoded++
						if tc.name != "precompressed sibling" && tc.name != "previous build" {
							compressed[enc+" "+string(tc.wantBody)] = true
						}
					}
				}
			})
		}
	})

	st := srv.stats(t)
	if st.Requests != jawsRequests {
		t.Errorf("Stats.Requests = %d, want %d (one per request case, two for SPA misses; the API and /debug/jaws are not served by jaws)", st.Requests, jawsRequests)
	}
	if n := st.Memory.Responses + st.ZeroCopy.Responses + st.Fallback.Responses; n != bodyResponses {
		t.Errorf("responses counted over all paths = %d, want %d", n, bodyResponses)
	}
	if n := st.Memory.Bytes + st.ZeroCopy.Bytes + st.Fallback.Bytes; n != bodyBytes {
		t.Errorf("bytes counted over all paths = %d, want %d", n, bodyBytes)
	}
	if st.Encoded != encoded {
		t.Errorf("Stats.Encoded = %d, want %d (the responses with a Content-Encoding)", st.Encoded, encoded)
	}
	if st.Compressions != uint64(len(compressed)) {
		t.Errorf("Stats.Compressions = %d, want %d: once per file and coding, none for the precompressed script", st.Compressions, len(compressed))
	}

	resp, body := do(t, noRedirects, "GET", srv.url+"api/files", nil)
	var files []fileInfo
	if err := json.Unmarshal(body, &files); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/api/files: %d, %v in %s", resp.StatusCode, err, body)
	}
	listed := map[string]fileInfo{}
	for _, f := range files {
		listed[f.Name] = f
	}
	if f := listed[script]; f.Size != int64(len(siteFile(t, script))) || f.CacheControl != jawsmw.CacheImmutable {
		t.Errorf("/api/files lists %s as %+v", script, f)
	}
	if f := listed["index.html"]; f.CacheControl != jawsmw.CacheNoCache {
		t.Errorf("/api/files lists index.html as %+v", f)
	}

	if f := listed["docs/index.html"]; f.Size != int64(len(siteFile(t, "docs/index.html"))) {
		t.Errorf("/api/files lists docs/index.html as %+v", f)
	}
	if len(listed) != len(siteFiles(t)) {
		t.Errorf("/api/files lists %d files, the demo site has %d", len(listed), len(siteFiles(t)))
	}

	if err := srv.stop(); err != nil {
		t.Fatalf("run returned %v after its context ended, want nil", err)
	}
	if _, err := http.Get(srv.url); err == nil {
		t.Errorf("GET %s after shutdown succeeded", srv.url)
	}
}

// siteFiles lists the regular files of the demo site.
func siteFiles(t *testing.T) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(site, "site", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			names = append(names, strings.TrimPrefix(name, "site/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestRunNoTempDir: the demo site is served from the binary's own bytes,
// with no copy on disk, so a run without -root leaves the temporary
// directory as it found it, while serving and after. It sets TMPDIR, so it
// cannot run in parallel.
func TestRunNoTempDir(t *testing.T) {
	tmp := t.TempDir()
	for _, v := range []string{"TMPDIR", "TMP", "TEMP"} { // TMP and TEMP on Windows
		t.Setenv(v, tmp)
	}
	if os.TempDir() != tmp {
		t.Skipf("os.TempDir() is %q despite TMPDIR=%q", os.TempDir(), tmp)
	}
	empty := func(when string) {
		t.Helper()
		entries, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("%s: %s in the temporary directory", when, e.Name())
		}
	}
	srv := startRun(t, "-addr", "127.0.0.1:0")
	for _, name := range siteFiles(t) {
		resp, body := do(t, noRedirects, "GET", srv.url+name, nil)
		if want := siteFile(t, name); resp.StatusCode/100 != 2 && resp.StatusCode/100 != 3 || resp.StatusCode == 200 && !bytes.Equal(body, want) {
			t.Errorf("GET /%s: %d, %d bytes", name, resp.StatusCode, len(body))
		}
	}
	empty("while serving")
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	empty("after the run")
}

// TestNotFoundPage: the 404 page links the stylesheet by the name
// HashName gives it, which the site's route serves as the stylesheet with
// the immutable policy, while the same name with another hash is 404.
func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	srv := startRun(t, "-addr", "127.0.0.1:0")
	css := siteFile(t, "assets/style.css")
	sum := sha256.Sum256(css)
	want := "/assets/style." + hex.EncodeToString(sum[:8]) + ".css"

	html := http.Header{"Accept": {"text/html"}}
	resp, page := do(t, noRedirects, "GET", srv.url+"assets/missing.js", html)
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || resp.Header.Get("Cache-Control") != "" {
		t.Fatalf("GET /assets/missing.js: %d, %q, Cache-Control %q; want 404 text/html with no Cache-Control",
			resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	m := regexp.MustCompile(`<link rel="stylesheet" href="([^"]*)">`).FindSubmatch(page)
	if m == nil || string(m[1]) != want {
		t.Fatalf("the 404 page links %q, want the stylesheet as %s:\n%s", m, want, page)
	}

	resp, body := do(t, noRedirects, "GET", strings.TrimSuffix(srv.url, "/")+want, nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, css) || resp.Header.Get("Cache-Control") != jawsmw.CacheImmutable {
		t.Errorf("GET %s: %d, %d bytes, Cache-Control %q; want 200, style.css, %q",
			want, resp.StatusCode, len(body), resp.Header.Get("Cache-Control"), jawsmw.CacheImmutable)
	}
	stale := "/assets/style.0123456789abcdef.css"
	if resp, _ := do(t, noRedirects, "GET", strings.TrimSuffix(srv.url, "/")+stale, nil); resp.StatusCode != 404 || resp.Header.Get("Cache-Control") != "" {
		t.Errorf("GET %s: %d, Cache-Control %q; want 404 without", stale, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	// Plain text for clients that do not ask for HTML.
	if resp, body := do(t, noRedirects, "GET", srv.url+"assets/missing.js", nil); resp.StatusCode != 404 || string(body) != "404 page not found\n" {
		t.Errorf("GET /assets/missing.js without Accept: %d %q", resp.StatusCode, body)
	}
}

// viteNames is a Vite 8 build's output, as middleware's bundler fixtures
// record it: name -> hashed by Vite.
func viteNames(t *testing.T) map[string]bool {
	t.Helper()
	list, err := os.ReadFile(filepath.Join("..", "middleware", "testdata", "bundlers", "vite", "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for line := range strings.Lines(string(list)) {
		kind, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && (kind == "hashed" || kind == "plain") {
			names[name] = kind == "hashed"
		}
	}
	if len(names) < 10 {
		t.Fatalf("names.txt lists %d names", len(names))
	}
	return names
}

// TestRunVite serves a Vite build's dist/ with -root, as
// "vite build && go run ./example -root dist" does: the page loads its
// script and stylesheet from Vite's own /assets/, the hashed names are
// immutable and the page is revalidated, client routes get the page, and
// missing assets are 404.
func TestRunVite(t *testing.T) {
	t.Parallel()
	names := viteNames(t)
	dist := t.TempDir()
	content := func(name string) string { return "/* " + name + " */\n" }
	var script, style string
	for name := range names {
		switch {
		case strings.HasPrefix(name, "assets/index-") && strings.HasSuffix(name, ".js"):
			script = name
		case strings.HasPrefix(name, "assets/index-") && strings.HasSuffix(name, ".css"):
			style = name
		}
	}
	if script == "" || style == "" {
		t.Fatalf("no hashed entry script and stylesheet in names.txt (%q, %q)", script, style)
	}
	index := `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <title>vite-project</title>
    <script type="module" crossorigin src="/` + script + `"></script>
    <link rel="stylesheet" crossorigin href="/` + style + `">
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`
	for name := range names {
		body := content(name)
		if name == "index.html" {
			body = index
		}
		if err := os.MkdirAll(filepath.Join(dist, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startRun(t, "-root", dist, "-addr", "127.0.0.1:0")
	base := strings.TrimSuffix(srv.url, "/")
	html := http.Header{"Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}}

	cases := []struct {
		name        string
		path        string
		header      http.Header
		wantStatus  int
		wantBody    string // "" skips the check
		wantCache   string // Cache-Control
		wantInclude string // a part of the body
	}{
		{name: "page", path: "/", wantStatus: 200, wantBody: index, wantCache: jawsmw.CacheNoCache},
		{name: "script", path: "/" + script, wantStatus: 200, wantBody: content(script), wantCache: jawsmw.CacheImmutable},
		{name: "stylesheet", path: "/" + style, wantStatus: 200, wantBody: content(style), wantCache: jawsmw.CacheImmutable},
		{name: "svg", path: "/assets/react-rDj2OWAV.svg", wantStatus: 200, wantBody: content("assets/react-rDj2OWAV.svg"), wantCache: jawsmw.CacheImmutable},
		{name: "public file", path: "/favicon.svg", wantStatus: 200, wantBody: content("favicon.svg"), wantCache: ""},
		{name: "client route", path: "/about", header: html, wantStatus: 200, wantBody: index, wantCache: jawsmw.CacheNoCache},
		{name: "nested client route", path: "/users/42", header: html, wantStatus: 200, wantBody: index, wantCache: jawsmw.CacheNoCache},
		{name: "missing asset", path: "/assets/index-XXXXXXXX.js", wantStatus: 404, wantBody: "404 page not found\n"},
		// A browser loading a missing asset by hand gets the app's 404
		// page, without a stylesheet: dist/ has no assets/style.css.
		{name: "missing asset, browser", path: "/assets/index-XXXXXXXX.js", header: html, wantStatus: 404, wantInclude: "404: not found"},
		{name: "assets/assets/", path: "/assets/" + script, wantStatus: 404},
		{name: "outside assets/", path: "/" + path.Base(script), wantStatus: 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, body := do(t, noRedirects, "GET", base+tc.path, tc.header)
			if resp.StatusCode != tc.wantStatus || tc.wantBody != "" && string(body) != tc.wantBody || !strings.Contains(string(body), tc.wantInclude) {
				t.Errorf("%d %q, want %d %q", resp.StatusCode, body, tc.wantStatus, cmp.Or(tc.wantBody, tc.wantInclude))
			}
			if cc := resp.Header.Get("Cache-Control"); cc != tc.wantCache {
				t.Errorf("Cache-Control %q, want %q", cc, tc.wantCache)
			}
			if resp.StatusCode == 404 && strings.Contains(string(body), "stylesheet") {
				t.Errorf("the 404 page links a stylesheet dist/ does not have: %s", body)
			}
		})
	}

	// What the page links, and every file of the build, at its own name.
	t.Run("linked", func(t *testing.T) {
		t.Parallel()
		links := regexp.MustCompile(`(?:src|href)="(/[^"]*)"`).FindAllStringSubmatch(index, -1)
		if len(links) != 3 {
			t.Fatalf("index.html links %q, want 3", links)
		}
		for _, m := range links {
			if resp, _ := do(t, noRedirects, "GET", base+m[1], nil); resp.StatusCode != 200 {
				t.Errorf("index.html links %s: %d", m[1], resp.StatusCode)
			}
		}
	})
	t.Run("every file", func(t *testing.T) {
		t.Parallel()
		failed := 0
		for name := range names {
			want := content(name)
			if name == "index.html" {
				continue
			}
			resp, body := do(t, noRedirects, "GET", base+"/"+name, nil)
			if resp.StatusCode != 200 || string(body) != want {
				t.Errorf("GET /%s: %d %q, want 200 %q", name, resp.StatusCode, body, want)
				if failed++; failed == 5 {
					t.Fatalf("and more: %d files", len(names))
				}
			}
		}
	})
}

// TestRunRoot serves a -root directory, as the load benchmark does, and
// checks which transfer path jaws took for each request: nothing in front of
// the static routes wraps the writer, so large files go zero-copy whatever
// their type, text and precompressed siblings included.
func TestRunRoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := strings.Repeat("\x00\x01jaws", 1<<10) // as the load benchmark's NAME.bin
	bigBin := strings.Repeat("\x00\x01jaws", 100<<10)
	// Text too large to compress on the fly (over Compression.MaxSize, 1
	// MiB) and hardly compressible, so that its gzip sibling is still over
	// the zero-copy threshold (512 KiB).
	random := make([]byte, 900<<10)
	rand.NewChaCha8([32]byte{}).Read(random)
	log := base64.StdEncoding.EncodeToString(random)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(log))
	zw.Close()
	page := strings.Repeat("<p>hello, jaws</p>\n", 200)
	for name, content := range map[string]string{"hello.txt": "hello, jaws\n", ".secret": "token", "10k.bin": bin, "1m.bin": bigBin,
		"big.log.txt": log, "big.log.txt.gz": gz.String(), "page.html": page} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Enough files for /api/files to list more than 1 KiB, which the API's
	// compressor compresses.
	for i := range 12 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%02d.txt", i)), []byte("note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The map wrote the files in any order; a sibling older than its
	// original would be ignored as stale.
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, "big.log.txt.gz"), now, now); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "big.log.txt"), now, now); err != nil {
		t.Fatal(err)
	}
	srv := startRun(t, "-root", dir, "-addr", "127.0.0.1:0")
	if srv.serving != dir {
		t.Errorf("run says it serves %q, want %q", srv.serving, dir)
	}
	browser := http.Header{"Accept-Encoding": {"gzip, deflate, br, zstd"}}
	cases := []struct {
		name        string
		path        string
		header      http.Header
		wantStatus  int
		wantBody    string // as sent, before any decoding; "" skips the check
		wantDecoded string // after decoding; "" skips the check
		wantCoding  string
		wantVary    string
		wantPath    string // the transfer path jaws took: memory, zerocopy, fallback; "" none
	}{
		{name: "file", path: "hello.txt", wantStatus: 200, wantBody: "hello, jaws\n", wantPath: "memory"},
		{name: "no second mount", path: "assets/hello.txt", wantStatus: 404, wantBody: "404 page not found\n"},
		{name: "binary file", path: "10k.bin", wantStatus: 200, wantBody: bin, wantPath: "memory"},
		{name: "large binary", path: "1m.bin", header: browser, wantStatus: 200, wantBody: bigBin, wantPath: "zerocopy"},
		{name: "large text", path: "big.log.txt", wantStatus: 200, wantBody: log, wantVary: "Accept-Encoding", wantPath: "zerocopy"},
		{name: "large text, precompressed", path: "big.log.txt", header: browser, wantStatus: 200, wantBody: gz.String(), wantCoding: "gzip",
			wantVary: "Accept-Encoding", wantPath: "zerocopy"},
		{name: "page compressed", path: "page.html", header: browser, wantStatus: 200, wantDecoded: page, wantCoding: "br", wantVary: "Accept-Encoding", wantPath: "memory"},
		{name: "API compressed by gzhttp", path: "api/files", header: browser, wantStatus: 200, wantCoding: "zstd", wantVary: "Accept-Encoding"},
		{name: "dotfile", path: ".secret", wantStatus: 404, wantBody: "404 page not found\n"},
		{name: "directory without index", path: "", wantStatus: 404, wantBody: "404 page not found\n"},
	}
	stats := srv.stats
	// One at a time, so that each request's path shows in the counters.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := stats(t)
			resp, body := do(t, noRedirects, "GET", srv.url+tc.path, tc.header)
			after := stats(t)
			if resp.StatusCode != tc.wantStatus || tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("got %d %d bytes %.40q, want %d %d bytes %.40q", resp.StatusCode, len(body), body, tc.wantStatus, len(tc.wantBody), tc.wantBody)
			}
			if enc := resp.Header.Get("Content-Encoding"); enc != tc.wantCoding {
				t.Errorf("Content-Encoding %q, want %q", enc, tc.wantCoding)
			} else if plain := decode(t, enc, body); tc.wantDecoded != "" && string(plain) != tc.wantDecoded {
				t.Errorf("decodes to %d bytes %.40q, want %d bytes %.40q", len(plain), plain, len(tc.wantDecoded), tc.wantDecoded)
			}
			// The benchmark's files reach jaws with no compression wrapper
			// in between (nothing adds Vary but jaws, for files with
			// variants) and no cache policy (their names are neither
			// fingerprinted nor HTML).
			if vary := resp.Header.Get("Vary"); resp.StatusCode == 200 && vary != tc.wantVary {
				t.Errorf("Vary %q, want %q", vary, tc.wantVary)
			}
			if cc := resp.Header.Get("Cache-Control"); resp.StatusCode == 200 && path.Ext(tc.path) != ".html" && !strings.HasPrefix(tc.path, "api/") && cc != "" {
				t.Errorf("Cache-Control %q, want none", cc)
			}
			took := ""
			for p, n := range map[string][2]uint64{
				"memory":   {before.Memory.Responses, after.Memory.Responses},
				"zerocopy": {before.ZeroCopy.Responses, after.ZeroCopy.Responses},
				"fallback": {before.Fallback.Responses, after.Fallback.Responses},
			} {
				if n[1] != n[0] {
					took += p
				}
			}
			if took != tc.wantPath {
				t.Errorf("jaws took the %q path, want %q", took, tc.wantPath)
			}
		})
	}
	if err := srv.stop(); err != nil {
		t.Fatalf("run returned %v, want nil", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil {
		t.Errorf("run must leave a -root directory alone: %v", err)
	}
}

// TestRunCompression follows one stylesheet through jaws's compression in
// the example app: each coding is a representation of its own, with its
// own ETag and length, compressed once; conditional requests and ranges
// apply to the encoded bytes; and every answer says Vary: Accept-Encoding.
func TestRunCompression(t *testing.T) {
	t.Parallel()
	srv := startRun(t, "-addr", "127.0.0.1:0")
	css := siteFile(t, "assets/style.css")
	url := srv.url + "assets/style.css"
	stats := srv.stats

	// The whole file in each coding, twice: the second request is served
	// from the cache, with no compression.
	type variant struct {
		etag string
		body []byte
	}
	variants := map[string]variant{}
	for _, coding := range []string{"", "br", "zstd", "gzip"} {
		t.Run("coding "+cmp.Or(coding, "identity"), func(t *testing.T) {
			header := http.Header{"Accept-Encoding": {cmp.Or(coding, "identity")}}
			before := stats(t)
			resp, body := do(t, noRedirects, "GET", url, header)
			mid := stats(t)
			again, body2 := do(t, noRedirects, "GET", url, header)
			after := stats(t)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != coding {
				t.Fatalf("%d, Content-Encoding %q; want 200, %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), coding)
			}
			if got := decode(t, coding, body); !bytes.Equal(got, css) {
				t.Errorf("decodes to %d bytes, not the %d of style.css", len(got), len(css))
			}
			if coding != "" && len(body) >= len(css) {
				t.Errorf("%d bytes for %d: not compressed", len(body), len(css))
			}
			if n := resp.Header.Get("Content-Length"); n != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %q, want %d", n, len(body))
			}
			if v := resp.Header.Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", v)
			}
			if !bytes.Equal(body2, body) || again.Header.Get("ETag") != resp.Header.Get("ETag") {
				t.Errorf("a second request got other bytes or another ETag")
			}
			wantCompressions := uint64(1)
			if coding == "" {
				wantCompressions = 0
			}
			if n := mid.Compressions - before.Compressions; n != wantCompressions {
				t.Errorf("first request: %d compressions, want %d", n, wantCompressions)
			}
			if n := after.Compressions - mid.Compressions; n != 0 {
				t.Errorf("second request: %d compressions, want none (the variant is cached)", n)
			}
			for c, v := range variants {
				if v.etag == resp.Header.Get("ETag") {
					t.Errorf("ETag %s is also %q's", v.etag, cmp.Or(c, "identity"))
				}
			}
			variants[coding] = variant{etag: resp.Header.Get("ETag"), body: body}
		})
	}
	gz := variants["gzip"]
	if gz.body == nil {
		t.Fatal("no gzip variant")
	}

	cases := []struct {
		name       string
		header     http.Header
		wantStatus int
		wantCoding string
		wantBody   []byte // as sent
		wantHeader map[string]string
	}{
		{name: "a range is of the file", header: http.Header{"Accept-Encoding": {"gzip"}, "Range": {"bytes=10-19"}},
			wantStatus: 206, wantCoding: "", wantBody: variants[""].body[10:20],
			wantHeader: map[string]string{"Content-Range": fmt.Sprintf("bytes 10-19/%d", len(variants[""].body)), "Content-Length": "10", "ETag": variants[""].etag}},
		{name: "If-Range with the variant's ETag", header: http.Header{"Accept-Encoding": {"gzip"}, "Range": {"bytes=-5"}, "If-Range": {gz.etag}},
			wantStatus: 200, wantCoding: "", wantBody: variants[""].body},
		{name: "If-Range with the file's ETag", header: http.Header{"Accept-Encoding": {"gzip"}, "Range": {"bytes=-5"}, "If-Range": {variants[""].etag}},
			wantStatus: 206, wantCoding: "", wantBody: variants[""].body[len(variants[""].body)-5:]},
		{name: "revalidated", header: http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {gz.etag}},
			wantStatus: 304, wantBody: []byte{}, wantHeader: map[string]string{"ETag": gz.etag, "Vary": "Accept-Encoding"}},
		{name: "revalidated by another coding's ETag", header: http.Header{"Accept-Encoding": {"br"}, "If-None-Match": {gz.etag}},
			wantStatus: 200, wantCoding: "br", wantBody: variants["br"].body},
		{name: "identity revalidated", header: http.Header{"If-None-Match": {variants[""].etag}},
			wantStatus: 304, wantBody: []byte{}, wantHeader: map[string]string{"Vary": "Accept-Encoding"}},
		{name: "HEAD", header: http.Header{"Accept-Encoding": {"zstd"}},
			wantStatus: 200, wantCoding: "zstd", wantHeader: map[string]string{"Content-Length": strconv.Itoa(len(variants["zstd"].body))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := "GET"
			if tc.name == "HEAD" {
				method = "HEAD"
			}
			resp, body := do(t, noRedirects, method, url, tc.header)
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("Content-Encoding") != tc.wantCoding {
				t.Fatalf("%d, Content-Encoding %q; want %d, %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), tc.wantStatus, tc.wantCoding)
			}
			if tc.wantBody != nil && !bytes.Equal(body, tc.wantBody) {
				t.Errorf("body is %d bytes %.20q, want %d bytes %.20q", len(body), body, len(tc.wantBody), tc.wantBody)
			}
			for k, want := range tc.wantHeader {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s: %q, want %q", k, got, want)
				}
			}
		})
	}
	if st := stats(t); st.Compressions != 3 {
		t.Errorf("Stats.Compressions = %d, want 3: style.css once in each coding", st.Compressions)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	cases := []struct {
		name string
		args []string
		want error // nil: any error
	}{
		{"help", []string{"-h"}, flag.ErrHelp},
		{"unknown flag", []string{"-nope"}, nil},
		{"extra argument", []string{"-addr", "127.0.0.1:0", "public"}, nil},
		{"missing root", []string{"-root", missing, "-addr", "127.0.0.1:0"}, fs.ErrNotExist},
		{"bad address", []string{"-addr", "127.0.0.1:99999"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout strings.Builder
			err := run(context.Background(), tc.args, &stdout, io.Discard)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("run(%q) = %v, want an error matching %v", tc.args, err, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("run(%q) printed %q, want nothing", tc.args, stdout.String())
			}
		})
	}
}

func TestServeURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		addr net.Addr
		want string
	}{
		{"loopback", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080/"},
		{"IPv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 80}, "http://[::1]:80/"},
		{"IPv4 any", &net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://localhost:8080/"},
		{"IPv6 any", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://localhost:8080/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := serveURL(tc.addr); got != tc.want {
				t.Errorf("serveURL(%v) = %q, want %q", tc.addr, got, tc.want)
			}
		})
	}
}

// TestReadmeMounts checks the ways README.md and the package docs show to
// mount a Handler, at the root and under a prefix, with net/http and with
// chi.
func TestReadmeMounts(t *testing.T) {
	t.Parallel()
	sub, err := fs.Sub(site, "site")
	if err != nil {
		t.Fatal(err)
	}
	h, err := jaws.NewFS(sub, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	cases := []struct {
		name   string
		prefix string // where the site's root appears, "" or "/name"
		spa    bool   // client routes get index.html
		mux    func() http.Handler
	}{
		{name: "net/http root", mux: func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/", h)
			return mux
		}},
		{name: "net/http StripPrefix", prefix: "/static", mux: func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/static/", http.StripPrefix("/static", h))
			return mux
		}},
		{name: "net/http StripPrefix with slash", prefix: "/files", mux: func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/files/", http.StripPrefix("/files/", h))
			return mux
		}},
		{name: "net/http middleware.Mount", prefix: "/assets", mux: func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/assets/", jawsmw.Mount("/assets", h))
			return mux
		}},
		{name: "chi catch-all", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Handle("/*", h)
			return r
		}},
		{name: "chi Mount", prefix: "/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Get("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app") })
			r.Mount("/assets", jawsmw.Mount("/assets", h))
			return r
		}},
		{name: "chi Mount with CacheControl", prefix: "/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.With(jawsmw.CacheControl()).Mount("/assets", jawsmw.Mount("/assets", h))
			return r
		}},
		{name: "chi Mount with StripPrefix", prefix: "/assets", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Get("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app") })
			r.Mount("/assets", http.StripPrefix("/assets", h))
			return r
		}},
		{name: "chi Use Static", mux: func() http.Handler {
			r := chi.NewRouter()
			r.Use(jawsmw.Static(h))
			r.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "now") })
			return r
		}},
		{name: "chi SPA", spa: true, mux: func() http.Handler {
			r := chi.NewRouter()
			r.Get("/api/time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "now") })
			r.Handle("/*", jawsmw.SPA(h, jawsmw.SPAOptions{})(nil))
			return r
		}},
		{name: "net/http SPA", spa: true, mux: func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/", jawsmw.SPA(h, jawsmw.SPAOptions{})(nil))
			return mux
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(tc.mux())
			t.Cleanup(ts.Close)
			c := ts.Client()
			base := ts.URL + tc.prefix

			resp, body := do(t, c, "GET", base+"/assets/style.css", nil)
			if resp.StatusCode != 200 || string(body) != string(siteFile(t, "assets/style.css")) {
				t.Errorf("GET %s/assets/style.css: %d, %d bytes; want 200 and the file", tc.prefix, resp.StatusCode, len(body))
			}
			resp, body = do(t, c, "GET", base+"/", nil)
			if resp.StatusCode != 200 || string(body) != string(siteFile(t, "index.html")) {
				t.Errorf("GET %s/: %d, %d bytes; want 200 and index.html", tc.prefix, resp.StatusCode, len(body))
			}
			// The directory redirect is relative, so it stays under the prefix.
			resp, body = do(t, c, "GET", base+"/docs", nil)
			if resp.StatusCode != 200 || resp.Request.URL.Path != tc.prefix+"/docs/" || string(body) != string(siteFile(t, "docs/index.html")) {
				t.Errorf("GET %s/docs: %d at %s; want 200 and docs/index.html at %s/docs/", tc.prefix, resp.StatusCode, resp.Request.URL.Path, tc.prefix)
			}
			resp, _ = do(t, c, "GET", base+"/no-such-file", nil)
			if resp.StatusCode != 404 {
				t.Errorf("GET %s/no-such-file: %d, want 404", tc.prefix, resp.StatusCode)
			}
			html := http.Header{"Accept": {"text/html"}}
			resp, body = do(t, c, "GET", base+"/about", html)
			if tc.spa && (resp.StatusCode != 200 || string(body) != string(siteFile(t, "index.html"))) {
				t.Errorf("GET %s/about: %d, %d bytes; want 200 and index.html", tc.prefix, resp.StatusCode, len(body))
			}
			if !tc.spa && resp.StatusCode != 404 {
				t.Errorf("GET %s/about: %d, want 404", tc.prefix, resp.StatusCode)
			}
		})
	}
}

// TestRunLog: with -log, jaws logs the site's files itself (AccessLog), so
// a large file keeps the zero-copy path, and chi's logger the API's routes;
// no request is logged twice.
func TestRunLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("\x00\x01jaws", 200<<10)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr testsite.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-root", dir, "-addr", "127.0.0.1:0", "-log"}, pw, &stderr)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	base := line[strings.LastIndex(line, " on ")+len(" on ") : len(line)-1]
	if resp, body := do(t, noRedirects, "GET", base+"big.bin", nil); resp.StatusCode != 200 || len(body) != len(big) {
		t.Fatalf("big.bin: %d, %d bytes", resp.StatusCode, len(body))
	}
	do(t, noRedirects, "GET", base+"api/time", nil)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	logged := stderr.String()
	if !regexp.MustCompile(`msg=jaws method=GET path=/big.bin status=200 bytes=` + strconv.Itoa(len(big)) + ` duration=\S+ transfer=zerocopy`).MatchString(logged) {
		t.Errorf("no access-log line for the zero-copy file:\n%s", logged)
	}
	if !strings.Contains(logged, `"GET http://`) || !strings.Contains(logged, `/api/time HTTP/1.1" from`) {
		t.Errorf("no chi log line for the API:\n%s", logged)
	}
	if strings.Count(logged, "big.bin") != 1 {
		t.Errorf("big.bin logged %d times:\n%s", strings.Count(logged, "big.bin"), logged)
	}
}

// TestRunFastLane: with -fastlane the site's files are answered on jaws's
// fast lane once learnt, with the same headers as through the router, and
// the API, client routes and the counters still go through it.
func TestRunFastLane(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fast lane reads connections on Linux only")
	}
	s := startRun(t, "-addr", "127.0.0.1:0", "-fastlane")
	// A connection per request: the lane answers a connection whose
	// first request it knows.
	fresh := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true},
		CheckRedirect: noRedirects.CheckRedirect}
	first, firstBody := do(t, fresh, "GET", s.url, nil)
	before := s.stats(t).Lane.Responses
	again, againBody := do(t, fresh, "GET", s.url, nil)
	if n := s.stats(t).Lane.Responses; n != before+1 {
		t.Fatalf("lane responses %d, then %d: the second request was not the lane's", before, n)
	}
	if !bytes.Equal(firstBody, againBody) || again.StatusCode != 200 {
		t.Errorf("the lane's answer: %d, %d bytes; the router's: %d bytes", again.StatusCode, len(againBody), len(firstBody))
	}
	for _, k := range []string{"Cache-Control", "Content-Type", "Etag", "Vary", "Content-Length"} {
		if again.Header.Get(k) != first.Header.Get(k) {
			t.Errorf("%s: lane %q, router %q", k, again.Header.Get(k), first.Header.Get(k))
		}
	}
	if resp, body := do(t, fresh, "GET", s.url+"api/time", nil); resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"time"`)) {
		t.Errorf("/api/time: %d %q", resp.StatusCode, body)
	}
	if resp, body := do(t, fresh, "GET", s.url+"settings/profile", http.Header{"Accept": {"text/html"}}); resp.StatusCode != 200 || !bytes.Equal(body, firstBody) {
		t.Errorf("a client route: %d, %d bytes; want index.html", resp.StatusCode, len(body))
	}
	if err := s.stop(); err != nil {
		t.Errorf("run: %v", err)
	}
}
