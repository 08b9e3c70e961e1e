package e2e

// TestBrowserDictionaries: compression dictionaries (RFC 9842) in a real
// Chromium. The example serves a Vite-style build from a -root directory;
// the site is redeployed under the running server; a browser that loaded
// the first release gets the second as dcz, the difference from what it
// holds, and runs it; a browser with a fresh profile, and one with the
// feature off, get brotli. Then the demo site, as docs/previous.html says
// to try it.
//
// What Chromium needs for it: a secure context (http://127.0.0.1 is one),
// the same profile for both visits (a new browser context has no
// dictionary), and the first response finished before the next release is
// asked for (the test waits for Network.loadingFinished). The HTTP cache is
// left on, as a visitor has it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/audits"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	jawsmw "github.com/jaws-go/jaws/middleware"
)

// A release of a Vite-style build (vite build's dist/): index.html, which
// loads a module script and a stylesheet from assets/, each named
// [name]-[hash] by its content, as Vite names them.
type release struct {
	n               int
	js, css, html   []byte
	jsName, cssName string // "assets/index-HASH.js", "assets/index-HASH.css"
	color           string // what the stylesheet makes #app's color, as getComputedStyle says it
	functions       int    // how many functions the script defines and runs
}

const (
	bundleJSSize  = 300_000 // bytes of the script, about
	bundleCSSSize = 50_000  // of the stylesheet
)

// viteRelease makes release n (1, 2, ...): every release has the same
// script and stylesheet, generated from a fixed seed, but for one line in
// each: the script's RELEASE constant and the color of #app.
func viteRelease(t testing.TB, n int) release {
	t.Helper()
	rel := release{n: n, color: fmt.Sprintf("rgb(%d, %d, %d)", 10*n, 10*n+10, 10*n+20)}
	rel.js, rel.functions = bundleJS(n)
	rel.css = bundleCSS(rel.color)
	rel.jsName, rel.cssName = viteName(t, "index", ".js", rel.js), viteName(t, "index", ".css", rel.css)
	rel.html = fmt.Appendf(nil, `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>jaws: release %d</title>
    <script type="module" crossorigin src="/%s"></script>
    <link rel="stylesheet" crossorigin href="/%s">
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
`, n, rel.jsName, rel.cssName)
	return rel
}

// viteName is assets/STEM-HASH.EXT, with 8 base64url characters of the
// content's SHA-256 for the hash, as Vite's [name]-[hash] (its hash is
// another, of the same form).
func viteName(t testing.TB, stem, ext string, content []byte) string {
	t.Helper()
	sum := sha256.Sum256(content)
	name := "assets/" + stem + "-" + base64.RawURLEncoding.EncodeToString(sum[:])[:8] + ext
	if !jawsmw.Fingerprinted("/" + name) {
		t.Fatalf("%s is not a fingerprinted name to jaws: change the generator's seed", name)
	}
	return name
}

// bundleWords make the generated code's strings.
var bundleWords = strings.Fields(`the quick brown fox jumps over lazy dog render state props
	children effect memo callback reducer context provider consumer fragment portal
	suspense lazy error boundary router route link navigate outlet params query
	fetch response request headers body json text blob stream reader writer
	value index length push pop slice join split map filter reduce find some every`)

// bundleJS is release n's script: about bundleJSSize bytes of minified-looking
// functions, one per line, each pushed to a list that the end of the script
// runs, and, halfway, the one line that differs between releases. Running it
// sets window.jawsRelease and window.jawsFunctions and writes to #app.
func bundleJS(n int) (js []byte, functions int) {
	r := rand.New(rand.NewPCG(9842, 1))
	var b bytes.Buffer
	b.WriteString("const jawsFns=[];\n")
	line := func(i int) {
		w := make([]string, 2+r.IntN(4))
		for k := range w {
			w[k] = bundleWords[r.IntN(len(bundleWords))]
		}
		fmt.Fprintf(&b, "function f%d(e,t){const n=e*%d+t^%d;return n%%%d>%d?%q:n.toString(36)}jawsFns.push(f%d);\n",
			i, r.IntN(1<<16), r.IntN(1<<20), 2+r.IntN(97), r.IntN(50), strings.Join(w, " "), i)
	}
	i := 0
	for ; b.Len() < bundleJSSize/2; i++ {
		line(i)
	}
	fmt.Fprintf(&b, "const RELEASE=%q;\n", fmt.Sprint(n)) // the line each release changes
	for ; b.Len() < bundleJSSize; i++ {
		line(i)
	}
	b.WriteString(`let jawsSum=0;for(const f of jawsFns)jawsSum+=String(f(3,4)).length;
window.jawsRelease=RELEASE;window.jawsFunctions=jawsFns.length;
document.getElementById("app").textContent="release "+RELEASE+": "+jawsFns.length+" functions, "+jawsSum;
`)
	return b.Bytes(), i
}

// bundleCSS is a stylesheet of about bundleCSSSize bytes of rules, and
// halfway the one that differs between releases: #app's color.
func bundleCSS(color string) []byte {
	r := rand.New(rand.NewPCG(9842, 2))
	var b bytes.Buffer
	rule := func(i int) {
		fmt.Fprintf(&b, ".c%d{color:#%06x;margin:%dpx %dpx;padding:%dpx;border:1px solid #%06x}\n",
			i, r.IntN(1<<24), r.IntN(40), r.IntN(40), r.IntN(24), r.IntN(1<<24))
	}
	i := 0
	for ; b.Len() < bundleCSSSize/2; i++ {
		rule(i)
	}
	fmt.Fprintf(&b, "#app{color:%s}\n", strings.ReplaceAll(color, " ", ""))
	for ; b.Len() < bundleCSSSize; i++ {
		rule(i)
	}
	return b.Bytes()
}

// deploy writes rel into dir as a deploy does: the new assets beside the
// old ones, then index.html, replaced at once by a rename.
func deploy(t *testing.T, dir string, rel release) {
	t.Helper()
	for name, b := range map[string][]byte{rel.jsName: rel.js, rel.cssName: rel.css} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, ".index.html.new") // hidden: jaws never serves it
	if err := os.WriteFile(tmp, rel.html, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
}

// availableDictionary is the Available-Dictionary value naming dict: its
// SHA-256 as an RFC 8941 Byte Sequence.
func availableDictionary(dict []byte) string {
	sum := sha256.Sum256(dict)
	return ":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// tab is a browser tab the test drives, its network events and the issues
// DevTools reported (Audits), such as a dictionary Chromium refused.
type tab struct {
	name   string
	ctx    context.Context
	net    *netlog
	mu     sync.Mutex
	issues []string
}

// openTab opens a tab in ctx (a new browser for an allocator's context,
// with opts such as chromedp.WithLogf; a new browser context in a
// browser's, with chromedp.WithNewBrowserContext) and watches it.
func openTab(t *testing.T, ctx context.Context, name string, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(ctx, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("%s: starting the browser: %v", name, err)
	}
	tb := &tab{name: name, ctx: ctx, net: watch(ctx)}
	issues := chromedp.Events(ctx, audits.IssueAdded)
	go func() {
		for ev, err := range issues {
			if err != nil {
				return
			}
			b, _ := json.Marshal(ev.Issue)
			tb.mu.Lock()
			tb.issues = append(tb.issues, string(b))
			tb.mu.Unlock()
		}
	}()
	if _, err := chromedp.Call(ctx, audits.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("%s: Audits.enable: %v", name, err)
	}
	return tb
}

// loaded is what a tab got for an asset of a release: the exchange (its
// bytes on the wire, headers included) and, from the page's Resource
// Timing, the body's bytes as sent (encodedBodySize) and decoded.
type loaded struct {
	x             exchange
	body, decoded int64
}

// load navigates tb to base's start page, which must be rel's, and waits
// until its script has run and its stylesheet applies; it returns the
// exchanges of the script and the stylesheet.
func (tb *tab) load(t *testing.T, base string, rel release) (js, css loaded) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("%s: loading release %d: %v", tb.name, rel.n, err)
	}
	ready := fmt.Sprintf(`window.jawsRelease === %q && window.jawsFunctions === %d && getComputedStyle(document.getElementById('app')).color === %q`,
		fmt.Sprint(rel.n), rel.functions, rel.color)
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](ready, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		got, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`JSON.stringify({release: window.jawsRelease, functions: window.jawsFunctions, color: getComputedStyle(document.getElementById('app')).color, title: document.title})`))
		t.Fatalf("%s: release %d does not run: %v (%s)", tb.name, rel.n, err, got)
	}
	find := func(xs []exchange, name string) (exchange, bool) {
		for _, x := range xs {
			if pathOf(base, x.url) == "/"+name && x.done {
				return x, true
			}
		}
		return exchange{}, false
	}
	err := tb.net.wait(tb.ctx, func(xs []exchange) bool {
		_, ok1 := find(xs, rel.jsName)
		_, ok2 := find(xs, rel.cssName)
		return ok1 && ok2
	})
	if err != nil {
		t.Fatalf("%s: release %d: the script and the stylesheet did not finish loading: %v", tb.name, rel.n, err)
	}
	type entry struct {
		Encoded int64 `json:"encoded"`
		Decoded int64 `json:"decoded"`
	}
	result := func(name string) loaded {
		t.Helper()
		x, _ := find(tb.net.snapshot(), name)
		if x.status != 200 || x.failed != "" {
			t.Fatalf("%s: %s: status %d, %q", tb.name, name, x.status, x.failed)
		}
		e, err := chromedp.Run(tb.ctx, chromedp.Evaluate[entry](fmt.Sprintf(
			`(e => ({encoded: e.encodedBodySize, decoded: e.decodedBodySize}))(performance.getEntriesByName(%q)[0])`, base+"/"+name)))
		if err != nil {
			t.Fatalf("%s: resource timing of %s: %v", tb.name, name, err)
		}
		return loaded{x: x, body: e.Encoded, decoded: e.Decoded}
	}
	return result(rel.jsName), result(rel.cssName)
}

func TestBrowserDictionaries(t *testing.T) {
	exe := needChromium(t)
	t.Run("redeploy", func(t *testing.T) { testRedeploy(t, exe) })
	t.Run("demo site", func(t *testing.T) { testDemoDictionary(t, exe) })
}

// testRedeploy: a Vite-style build in a -root directory, redeployed under
// the running server (see TestBrowserDictionaries).
func testRedeploy(t *testing.T, exe string) {
	r1, r2 := viteRelease(t, 1), viteRelease(t, 2)
	dir := t.TempDir()
	deploy(t, dir, r1)
	ex := startExample(t, "-root", dir)
	base := ex.url

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Two browsers, each with a fresh profile: Chromium as it ships, and
	// Chromium with compression dictionaries off. Canceling an
	// allocator's context ends its browser.
	on, closeOn := chromedp.NewExecAllocator(ctx, browserOptions(t, exe)...)
	defer closeOn()
	off, closeOff := chromedp.NewExecAllocator(ctx, browserOptions(t, exe,
		chromedp.Flag("disable-features", "CompressionDictionaryTransport"))...)
	defer closeOff()
	returning := openTab(t, on, "returning visitor", chromedp.WithLogf(t.Logf))
	noDict := openTab(t, off, "dictionaries off", chromedp.WithLogf(t.Logf))

	// The first visit: both browsers get release 1 in brotli, offered as
	// dictionaries for the names of later releases.
	js1, css1 := returning.load(t, base, r1)
	noDict.load(t, base, r1)
	secure, err := chromedp.Run(returning.ctx, chromedp.Evaluate[bool](`isSecureContext`))
	if err != nil {
		t.Fatal(err)
	}
	version, err := chromedp.Run(returning.ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("browser: %s; %s a secure context: %v", version, base, secure)
	for _, l := range []struct {
		name, pattern, dest string
		got                 loaded
	}{
		{r1.jsName, "/assets/index-*.js", "script", js1},
		{r1.cssName, "/assets/index-*.css", "style", css1},
	} {
		h, sent := l.got.x.header, l.got.x.sent
		if enc := get(h, "Content-Encoding"); enc != "br" {
			t.Errorf("first visit: %s: Content-Encoding %q (Accept-Encoding %q), want br", l.name, enc, get(sent, "Accept-Encoding"))
		}
		if ad := get(sent, "Available-Dictionary"); ad != "" {
			t.Errorf("first visit: %s asked for with Available-Dictionary %q", l.name, ad)
		}
		want := fmt.Sprintf(`match="%s", match-dest=("%s")`, l.pattern, l.dest)
		if got := get(h, "Use-As-Dictionary"); got != want {
			t.Errorf("first visit: %s: Use-As-Dictionary %q, want %q", l.name, got, want)
		}
		if got := get(h, "Vary"); got != "Accept-Encoding, Available-Dictionary" {
			t.Errorf("first visit: %s: Vary %q", l.name, got)
		}
		if got := get(h, "Cache-Control"); got != jawsmw.CacheImmutable {
			t.Errorf("first visit: %s: Cache-Control %q, want %q", l.name, got, jawsmw.CacheImmutable)
		}
	}

	// The redeploy, under the running server.
	deploy(t, dir, r2)

	// The returning visitor asks for release 2 naming release 1 as its
	// dictionary, gets dcz, and runs it.
	js2, css2 := returning.load(t, base, r2)
	for _, l := range []struct {
		name string
		dict []byte
		got  loaded
	}{{r2.jsName, r1.js, js2}, {r2.cssName, r1.css, css2}} {
		h, sent := l.got.x.header, l.got.x.sent
		if ad, want := get(sent, "Available-Dictionary"), availableDictionary(l.dict); ad != want {
			t.Errorf("after the redeploy: %s asked for with Available-Dictionary %q, want %q (release 1's)", l.name, ad, want)
		}
		if ae := get(sent, "Accept-Encoding"); !accepts(ae, "dcz") {
			t.Errorf("after the redeploy: %s asked for with Accept-Encoding %q: no dcz", l.name, ae)
		}
		if enc := get(h, "Content-Encoding"); enc != "dcz" {
			t.Errorf("after the redeploy: %s: Content-Encoding %q, want dcz", l.name, enc)
		}
		t.Logf("after the redeploy: %s asked for with Available-Dictionary %q, Accept-Encoding %q, Sec-Fetch-Site %q, Sec-Fetch-Mode %q, Sec-Fetch-Dest %q: %d, Content-Encoding %q",
			l.name, get(sent, "Available-Dictionary"), get(sent, "Accept-Encoding"), get(sent, "Sec-Fetch-Site"), get(sent, "Sec-Fetch-Mode"), get(sent, "Sec-Fetch-Dest"), l.got.x.status, get(h, "Content-Encoding"))
	}

	// A browser without the feature sends no Available-Dictionary, and a
	// first visit has no dictionary: both get release 2 in brotli. The
	// first visit is a new browser context (a fresh profile) in the
	// browser that has the feature on.
	offJS, offCSS := noDict.load(t, base, r2)
	fresh := openTab(t, returning.ctx, "first visit", chromedp.WithNewBrowserContext())
	freshJS, freshCSS := fresh.load(t, base, r2)
	for _, l := range []struct {
		who, name string
		got       loaded
	}{
		{"dictionaries off", r2.jsName, offJS}, {"dictionaries off", r2.cssName, offCSS},
		{"first visit", r2.jsName, freshJS}, {"first visit", r2.cssName, freshCSS},
	} {
		if ad := get(l.got.x.sent, "Available-Dictionary"); ad != "" {
			t.Errorf("%s: %s asked for with Available-Dictionary %q", l.who, l.name, ad)
		}
		if enc := get(l.got.x.header, "Content-Encoding"); enc != "br" {
			t.Errorf("%s: %s: Content-Encoding %q (Accept-Encoding %q), want br", l.who, l.name, enc, get(l.got.x.sent, "Accept-Encoding"))
		}
	}
	if offJS.body != freshJS.body || offCSS.body != freshCSS.body {
		t.Errorf("brotli bodies differ between browsers: script %d and %d, stylesheet %d and %d bytes",
			offJS.body, freshJS.body, offCSS.body, freshCSS.body)
	}

	// The bytes on the wire: the dcz answer against what a first visit
	// gets for the same file, brotli.
	for _, c := range []struct {
		name     string
		dcz, br  loaded
		size     int
		maxShare float64 // of br's wire bytes
	}{
		{"script", js2, freshJS, len(r2.js), 0.02},        // the issue's target for a 300 KB bundle
		{"stylesheet", css2, freshCSS, len(r2.css), 0.10}, // 90% less at least
	} {
		share := float64(c.dcz.x.wire) / float64(c.br.x.wire)
		t.Logf("%s (%d bytes): first visit br %d bytes on the wire (%d body), after the redeploy dcz %d (%d body): %.2f%% of br on the wire, %.2f%% of its body",
			c.name, c.size, c.br.x.wire, c.br.body, c.dcz.x.wire, c.dcz.body, 100*share, 100*float64(c.dcz.body)/float64(c.br.body))
		if share > c.maxShare {
			t.Errorf("%s: dcz %d bytes on the wire, %.2f%% of br's %d: want at most %.0f%%", c.name, c.dcz.x.wire, 100*share, c.br.x.wire, 100*c.maxShare)
		}
		for _, l := range []loaded{c.dcz, c.br} {
			// The body and at most 1 KiB of headers; decoded, the file.
			if l.body <= 0 || l.x.wire <= l.body || l.x.wire > l.body+1024 || l.decoded != int64(c.size) {
				t.Errorf("%s: %d bytes on the wire, Resource Timing's body %d bytes encoded and %d decoded; want the body and its headers, and %d decoded",
					c.name, l.x.wire, l.body, l.decoded, c.size)
			}
		}
	}

	// The server's view: its counters, then its access log once the
	// browsers have quit and it has shut down.
	resp, err := http.Get(base + "/debug/jaws")
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ DictionaryEncoded, DictionarySaved int64 }
	err = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	saved := freshJS.body - js2.body + freshCSS.body - css2.body
	if stats.DictionaryEncoded != 2 || stats.DictionarySaved != saved {
		t.Errorf("/debug/jaws: DictionaryEncoded %d, DictionarySaved %d; want 2 and %d, what the browser's dcz bodies saved on its brotli ones",
			stats.DictionaryEncoded, stats.DictionarySaved, saved)
	}
	// DevTools reports a dictionary Chromium refuses as an issue; with the
	// feature off, each offer is one (WriteErrorFeatureDisabled).
	for _, tb := range []*tab{returning, noDict, fresh} {
		tb.mu.Lock()
		for _, is := range tb.issues {
			if strings.Contains(is, "SharedDictionary") && !(tb == noDict && strings.Contains(is, `"WriteErrorFeatureDisabled"`)) {
				t.Errorf("%s: DevTools issue: %s", tb.name, is)
			} else {
				t.Logf("%s: DevTools issue: %s", tb.name, is)
			}
		}
		tb.mu.Unlock()
	}
	closeOn()
	closeOff()
	log, err := ex.stop()
	if err != nil {
		t.Errorf("the example's exit after SIGINT: %v", err)
	}
	want := map[string][]string{ // path -> "coding bytes" of each answer, in any order
		"/" + r2.jsName:  {fmt.Sprint("dcz ", js2.body), fmt.Sprint("br ", freshJS.body), fmt.Sprint("br ", freshJS.body)},
		"/" + r2.cssName: {fmt.Sprint("dcz ", css2.body), fmt.Sprint("br ", freshCSS.body), fmt.Sprint("br ", freshCSS.body)},
	}
	got := map[string][]string{}
	for _, line := range log {
		r, ok := parseRequest(line)
		if !ok {
			t.Logf("server: %s", line)
			continue
		}
		if _, ok := want[r.path]; ok {
			got[r.path] = append(got[r.path], fmt.Sprint(r.coding, " ", r.bytes))
		}
	}
	for p, w := range want {
		if !sameItems(got[p], w) {
			t.Errorf("access log: %s answered %q, want %q", p, got[p], w)
		}
	}
}

// testDemoDictionary: the demo site, as its docs/previous.html says to try
// it: that page loads the previous build of the script, and the start page
// then gets the current one as dcz, the difference from the previous.
func testDemoDictionary(t *testing.T, exe string) {
	ex := startExample(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	browser, closeBrowser := chromedp.NewExecAllocator(ctx, browserOptions(t, exe)...)
	defer closeBrowser()
	tb := openTab(t, browser, "demo", chromedp.WithLogf(t.Logf))
	cur, prev := appScript(t), "assets/app.555a5fb1.js"
	done := func(name string) func([]exchange) bool {
		return func(xs []exchange) bool {
			for _, x := range xs {
				if pathOf(ex.url, x.url) == "/"+name && x.done {
					return true
				}
			}
			return false
		}
	}
	find := func(name string) exchange {
		for _, x := range tb.net.snapshot() {
			if pathOf(ex.url, x.url) == "/"+name {
				return x
			}
		}
		return exchange{}
	}
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(ex.url+"/docs/previous.html")); err != nil {
		t.Fatal(err)
	}
	if err := tb.net.wait(tb.ctx, done(prev)); err != nil {
		t.Fatalf("docs/previous.html: %s did not load: %v", prev, err)
	}
	if x := find(prev); x.status != 200 || get(x.header, "Use-As-Dictionary") != `match="/assets/app.*.js", match-dest=("script")` {
		t.Fatalf("%s: %d, Use-As-Dictionary %q", prev, x.status, get(x.header, "Use-As-Dictionary"))
	}
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(ex.url+"/")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](`document.querySelector('#app h1')?.textContent === 'jaws demo'`)); err != nil {
		t.Fatalf("the start page does not render: %v", err)
	}
	if err := tb.net.wait(tb.ctx, done(cur)); err != nil {
		t.Fatalf("%s did not load: %v", cur, err)
	}
	x := find(cur)
	body, err := chromedp.Run(tb.ctx, chromedp.Evaluate[int64](fmt.Sprintf(`performance.getEntriesByName(%q)[0].encodedBodySize`, ex.url+"/"+cur)))
	if err != nil {
		t.Fatal(err)
	}
	sibling := int64(len(siteFile(t, cur+".br")))
	t.Logf("%s: %d, Content-Encoding %q (Available-Dictionary %q): %d body bytes, for %d of brotli (its sibling)",
		cur, x.status, get(x.header, "Content-Encoding"), get(x.sent, "Available-Dictionary"), body, sibling)
	if x.status != 200 || get(x.header, "Content-Encoding") != "dcz" || get(x.sent, "Available-Dictionary") != availableDictionary(siteFile(t, prev)) {
		t.Errorf("%s: %d, Content-Encoding %q, asked for with Available-Dictionary %q; want 200 dcz, naming %s",
			cur, x.status, get(x.header, "Content-Encoding"), get(x.sent, "Available-Dictionary"), prev)
	}
	resp, err := http.Get(ex.url + "/debug/jaws")
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ DictionaryEncoded, DictionarySaved int64 }
	err = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stats.DictionaryEncoded != 1 || stats.DictionarySaved != sibling-body {
		t.Errorf("/debug/jaws: DictionaryEncoded %d, DictionarySaved %d; want 1 and %d", stats.DictionaryEncoded, stats.DictionarySaved, sibling-body)
	}
}

// sameItems reports whether a and b hold the same strings, in any order.
func sameItems(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for _, s := range a {
		n[s]++
	}
	for _, s := range b {
		n[s]--
	}
	for _, c := range n {
		if c != 0 {
			return false
		}
	}
	return true
}
