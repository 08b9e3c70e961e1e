package e2e

import (
	"context"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jaws-go/jaws/internal/decode"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

// compressedOnly is the example's compressed-only site, the Vite build
// example/site-compressed/ holds (example/vite/README.md).
var compressedOnly = os.DirFS("../example/site-compressed")

// viteBuild reads the compressed-only site, by the names a client asks
// for: each name shipped as siblings decoded, which must agree.
func viteBuild(t *testing.T) map[string]decode.Shipped {
	t.Helper()
	files, err := decode.Tree(compressedOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f := files["index.html"]; f.Siblings["br"] == nil {
		t.Fatal("../example/site-compressed has no index.html.br: not the compressed-only build")
	}
	return files
}

// builtName is the file of the Vite build the example answers the URL
// path p with: the file itself, a directory's index.html, or index.html
// for a client route.
func builtName(files map[string]decode.Shipped, p string) string {
	name := strings.TrimPrefix(p, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if _, ok := files[name]; !ok {
		return "index.html"
	}
	return name
}

// TestBrowserCompressedOnly loads a real Vite build (a React app, its
// shared chunk, CSS, SVG, PNG, a web font and JSON) that the example,
// built with -tags compressedonly, holds compressed-only: its text only as
// .br, .zst and .gz files. In headless Chromium the app renders and every
// request is answered 200, the text in brotli as the .br file's bytes (the
// network events and Resource Timing agree) and the PNG and font as they
// are; a client route and a directory's index page, compressed-only too,
// load fresh. A client that takes no coding gets each file decoded, and
// one that takes gzip or zstd the sibling's bytes.
//
// It needs Chromium as TestBrowser does, and fails rather than skips
// without it when CI=true. From this directory:
//
//	go test -run '^TestBrowserCompressedOnly$' -v .
func TestBrowserCompressedOnly(t *testing.T) {
	exe := needChromium(t)
	files := viteBuild(t)
	ex := startExampleBuilt(t, []string{"-tags", "compressedonly"})
	base := ex.url

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ctx, closeBrowser := chromedp.NewExecAllocator(ctx, browserOptions(t, exe)...)
	defer closeBrowser()
	ctx, cancel = chromedp.NewContext(ctx, chromedp.WithLogf(t.Logf))
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	net := watch(ctx)

	run := func(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	poll := func(t *testing.T, what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr)); err != nil {
			t.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
	}
	// waitFor waits until the browser has finished a request for each of
	// the build's files, by name.
	waitFor := func(t *testing.T, names []string) {
		t.Helper()
		err := net.wait(ctx, func(xs []exchange) bool {
			for _, name := range names {
				if !slices.ContainsFunc(xs, func(x exchange) bool {
					p := pathOf(base, x.url)
					return x.done && p != "" && builtName(files, p) == name
				}) {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("the browser did not load all of %q: %v", names, err)
		}
	}
	// check holds every exchange so far, on the example's origin, to what
	// the build says: 200, and the .br file's bytes for a compressed-only
	// file (Chromium sends "gzip, deflate, br, zstd"), the file as it is
	// for one kept so. An exchange with no request headers on the wire was
	// answered from the browser's cache, with what an earlier one got.
	checked := map[string]bool{} // the paths checked
	check := func(t *testing.T) {
		t.Helper()
		for _, x := range net.snapshot() {
			p := pathOf(base, x.url)
			if p == "" || !x.done {
				continue
			}
			name := builtName(files, p)
			f := files[name]
			enc, accept := get(x.header, "Content-Encoding"), get(x.sent, "Accept-Encoding")
			cached := x.sent == nil
			want := ""
			if f.Siblings != nil && (cached || accepts(accept, "br")) {
				want = "br"
			}
			if x.status != 200 || x.failed != "" || enc != want {
				t.Errorf("%s %s (%s): %d %q, Content-Encoding %q for Accept-Encoding %q (from the cache: %v); want 200 and %q",
					x.method, p, name, x.status, x.failed, enc, accept, cached, want)
			}
			if vary := get(x.header, "Vary"); f.Siblings != nil && !strings.Contains(vary, "Accept-Encoding") {
				t.Errorf("%s: Vary %q, want Accept-Encoding in it", p, vary)
			}
			if cc := get(x.header, "Cache-Control"); jawsmw.Fingerprinted(p) && cc != jawsmw.CacheImmutable {
				t.Errorf("%s: Cache-Control %q, want %q", p, cc, jawsmw.CacheImmutable)
			}
			if !checked[p] && !cached {
				checked[p] = true
				t.Logf("%s %s (%s): %d %s, Content-Encoding %q (Accept-Encoding %q), %d bytes on the wire",
					x.method, p, name, x.status, get(x.header, "Content-Type"), enc, accept, x.wire)
			}
		}
	}
	// timings holds the page's Resource Timing entries (the document's
	// included) to the build: the .br file's size on the wire for a
	// compressed-only file, the file's decoded.
	timings := func(t *testing.T) {
		t.Helper()
		entries, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
			Name    string `json:"name"`
			Status  int    `json:"status"`
			Encoded int    `json:"encoded"`
			Decoded int    `json:"decoded"`
		}](`[...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map(e => ({name: e.name, status: e.responseStatus, encoded: e.encodedBodySize, decoded: e.decodedBodySize}))`))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			p := pathOf(base, e.Name)
			if p == "" {
				continue
			}
			n++
			f := files[builtName(files, p)]
			wantEncoded := len(f.Plain)
			if br, ok := f.Siblings["br"]; ok {
				wantEncoded = len(br)
			}
			if e.Status != 200 || e.Encoded != wantEncoded || e.Decoded != len(f.Plain) {
				t.Errorf("resource timing: %s: %d, %d bytes encoded, %d decoded; want 200, %d and %d",
					p, e.Status, e.Encoded, e.Decoded, wantEncoded, len(f.Plain))
			}
		}
		t.Logf("resource timing: %d entries of the page checked", n)
	}

	// What the start page loads: every file of the build but the guide's
	// own, the WOFF (Chromium takes the WOFF2) and the icon (headless
	// Chromium may not ask for it).
	var home []string
	for name := range files {
		if !strings.HasPrefix(name, "guide/") && !strings.Contains(name, "/guide-") &&
			!strings.HasSuffix(name, ".woff") && name != "favicon.svg" {
			home = append(home, name)
		}
	}
	slices.Sort(home)

	t.Run("the app renders with every asset", func(t *testing.T) {
		run(t, "loading "+base+"/", chromedp.Navigate(base+"/"))
		poll(t, "the app", `document.querySelector('#root h1')?.textContent === 'jaws + Vite'`)
		poll(t, "the features, from JSON", `document.querySelectorAll('#features li').length === 8`)
		poll(t, "the picture", `(i => i?.complete && i.naturalWidth === 96)(document.getElementById('waves'))`)
		poll(t, "the logo", `(i => i?.complete && i.naturalWidth > 0)(document.querySelector('.brand img'))`)
		poll(t, "the stylesheet", `getComputedStyle(document.querySelector('header.top')).display === 'flex'`)
		poll(t, "the web font", `[...document.fonts].some(f => f.family.replaceAll('"', '') === 'Inter' && f.status === 'loaded')`)
		waitFor(t, home)
		check(t)
		timings(t)
	})

	t.Run("a client route, fresh", func(t *testing.T) {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/about"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || get(resp.Headers, "Content-Encoding") != "br" {
			t.Errorf("GET /about: %d, Content-Encoding %q; want 200 and br (index.html.br)", resp.Status, get(resp.Headers, "Content-Encoding"))
		}
		poll(t, "the About page", `document.querySelector('#root h1')?.textContent === 'About' && document.getElementById('about') !== null`)
		run(t, "clicking Home", chromedp.Click(chromedp.CSS(`nav a[href="/"]`)))
		poll(t, "the start page, by pushState", `location.pathname === '/' && document.querySelectorAll('#features li').length === 8`)
		check(t)
	})

	t.Run("a directory's index page", func(t *testing.T) {
		// /guide is redirected to /guide/, whose guide/index.html is
		// there only as .br, .zst and .gz.
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/guide"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || !strings.HasSuffix(resp.URL, "/guide/") {
			t.Errorf("GET /guide: %d at %s; want 200 at /guide/", resp.Status, resp.URL)
		}
		poll(t, "the guide's script", `document.getElementById('guide-status')?.textContent === 'Script ran; this page came compressed.'`)
		var guide []string
		for name := range files {
			if strings.HasPrefix(name, "guide/") || strings.Contains(name, "/guide-") {
				guide = append(guide, name)
			}
		}
		waitFor(t, guide)
		// The redirect and its target are one request in DevTools: check
		// sees the target.
		check(t)
		timings(t)
	})

	t.Run("clients that take another coding, or none", func(t *testing.T) {
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		defer client.CloseIdleConnections()
		for _, name := range slices.Sorted(maps.Keys(files)) {
			f := files[name]
			p := "/" + strings.TrimSuffix(name, "index.html")
			for _, c := range append([]string{""}, codings...) {
				req, err := http.NewRequestWithContext(ctx, "GET", base+p, nil)
				if err != nil {
					t.Fatal(err)
				}
				if c != "" {
					req.Header.Set("Accept-Encoding", c)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				want, wantEnc := f.Plain, ""
				if sib, ok := f.Siblings[c]; ok {
					want, wantEnc = sib, c
				}
				enc := resp.Header.Get("Content-Encoding")
				if resp.StatusCode != 200 || enc != wantEnc || string(body) != string(want) {
					t.Errorf("GET %s, Accept-Encoding %q: %d, Content-Encoding %q, %d bytes; want 200, %q and %d bytes",
						p, c, resp.StatusCode, enc, len(body), wantEnc, len(want))
				}
				if c == "" {
					t.Logf("GET %s, no Accept-Encoding: %d %s, Content-Encoding %q, %d bytes (the file Vite wrote: %d)",
						p, resp.StatusCode, resp.Header.Get("Content-Type"), enc, len(body), len(f.Plain))
				}
			}
		}
	})

	// The server's side: no error logged (a sibling that did not decode,
	// a stale one), and every request answered 200, but the redirect of
	// /guide and the browser's revalidations of the JSON, which has no
	// fingerprint and so no freshness of its own: 304.
	lines, err := ex.stop()
	if err != nil {
		t.Errorf("the example's exit: %v", err)
	}
	for _, line := range lines {
		if r, ok := parseRequest(line); ok {
			switch {
			case r.status == 200:
			case r.path == "/guide" && r.status == 301:
			case r.path == "/data/features.json" && r.status == 304:
			default:
				t.Errorf("the example's log: %s %s: %d", r.method, r.path, r.status)
			}
			continue
		}
		t.Errorf("the example logged: %s", line)
	}
}
