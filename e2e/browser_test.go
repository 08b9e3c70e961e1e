package e2e

// TestBrowser loads the example app in a real, headless Chromium and drives
// it over the DevTools protocol: the single-page app renders with every
// asset loaded (text compressed by jaws, brotli for Chromium), client routes
// work both by pushState and on a fresh load, and a video served by jaws
// plays and seeks, with the Range requests Chromium's media stack sends
// answered 206, as the network events and the server's request log show.
// The example runs as a user runs it, in a process of its own (see
// startExample).
//
// It needs Chromium (Debian's chromium package; JAWS_CHROMIUM names another
// binary). Without it the test skips, except in CI (CI=true), where it
// fails. To refresh the screenshot in docs/ (from this directory):
//
//	go test -run '^TestBrowser$' -screenshot ../docs/screenshot.png

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	jawsmw "github.com/jaws-go/jaws/middleware"
)

var screenshotPath = flag.String("screenshot", "", "TestBrowser: write a PNG of the video page to this file")

// chromiumPath finds the browser: $JAWS_CHROMIUM, or the usual names on PATH.
func chromiumPath() string {
	if p := os.Getenv("JAWS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needChromium returns the browser's path, or skips the test without one,
// except in CI (CI=true), where it fails.
func needChromium(t *testing.T) string {
	t.Helper()
	exe := chromiumPath()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no Chromium found: install Debian's chromium package or set JAWS_CHROMIUM")
		}
		t.Skip("no Chromium found (install Debian's chromium package or set JAWS_CHROMIUM)")
	}
	return exe
}

// browserOptions are the flags the browser tests run Chromium with:
// headless, in a container (no sandbox, no GPU, a small /dev/shm), with a
// fresh profile of its own, and nothing that talks to the network but the
// test's own requests; then extra.
func browserOptions(t *testing.T, exe string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	return append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true), // /dev/shm is small in containers
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(960, 640),
	}, extra...)
}

// exchange is one request the browser made and what came back.
type exchange struct {
	url, method string
	kind        network.ResourceType
	sent        network.Headers // request headers as sent on the wire
	status      int64
	header      network.Headers // response headers
	failed      string          // the error of a failed load
	canceled    bool
	done        bool  // finished or failed
	wire        int64 // bytes received for it, headers included (Network.loadingFinished's encodedDataLength)
}

// netlog collects the browser's network events, by request.
type netlog struct {
	mu      sync.Mutex
	byID    map[network.RequestID]*exchange
	order   []network.RequestID
	changed chan struct{} // closed and replaced on every change
}

func (n *netlog) update(id network.RequestID, f func(*exchange)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	x := n.byID[id]
	if x == nil {
		x = &exchange{}
		n.byID[id] = x
		n.order = append(n.order, id)
	}
	f(x)
	close(n.changed)
	n.changed = make(chan struct{})
}

// snapshot returns copies of the exchanges so far, in request order.
func (n *netlog) snapshot() []exchange {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]exchange, 0, len(n.order))
	for _, id := range n.order {
		out = append(out, *n.byID[id])
	}
	return out
}

// wait blocks until ok holds for the exchanges, or ctx ends.
func (n *netlog) wait(ctx context.Context, ok func([]exchange) bool) error {
	for {
		n.mu.Lock()
		ch := n.changed
		n.mu.Unlock()
		if ok(n.snapshot()) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// watch subscribes to the network events of the browser tab in ctx.
func watch(ctx context.Context) *netlog {
	n := &netlog{byID: map[network.RequestID]*exchange{}, changed: make(chan struct{})}
	follow := func(seq func(yield func(network.RequestID, func(*exchange)) bool)) {
		go seq(func(id network.RequestID, f func(*exchange)) bool {
			n.update(id, f)
			return true
		})
	}
	sent := chromedp.Events(ctx, network.RequestWillBeSent)
	extra := chromedp.Events(ctx, network.RequestWillBeSentExtraInfo)
	resp := chromedp.Events(ctx, network.ResponseReceived)
	failed := chromedp.Events(ctx, network.LoadingFailed)
	finished := chromedp.Events(ctx, network.LoadingFinished)
	follow(func(yield func(network.RequestID, func(*exchange)) bool) {
		for ev, err := range sent {
			if err != nil || !yield(ev.RequestID, func(x *exchange) { x.url, x.method, x.kind = ev.Request.URL, ev.Request.Method, ev.Type }) {
				return
			}
		}
	})
	follow(func(yield func(network.RequestID, func(*exchange)) bool) {
		for ev, err := range extra {
			if err != nil || !yield(ev.RequestID, func(x *exchange) { x.sent = ev.Headers }) {
				return
			}
		}
	})
	follow(func(yield func(network.RequestID, func(*exchange)) bool) {
		for ev, err := range resp {
			if err != nil || !yield(ev.RequestID, func(x *exchange) {
				x.status, x.header = ev.Response.Status, ev.Response.Headers
				if x.url == "" {
					x.url = ev.Response.URL
				}
			}) {
				return
			}
		}
	})
	follow(func(yield func(network.RequestID, func(*exchange)) bool) {
		for ev, err := range failed {
			if err != nil || !yield(ev.RequestID, func(x *exchange) { x.failed, x.canceled, x.done = ev.ErrorText, ev.Canceled, true }) {
				return
			}
		}
	})
	follow(func(yield func(network.RequestID, func(*exchange)) bool) {
		for ev, err := range finished {
			if err != nil || !yield(ev.RequestID, func(x *exchange) {
				x.done, x.wire = true, int64(ev.EncodedDataLength)
			}) {
				return
			}
		}
	})
	return n
}

// get returns a header's value, whatever the case of its name.
func get(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// pathOf is the path of u if u is on base's origin, else "".
func pathOf(base, u string) string {
	if !strings.HasPrefix(u, base) {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Path
}

func TestBrowser(t *testing.T) {
	exe := needChromium(t)
	ex := startExample(t)
	base := ex.url
	script := appScript(t)
	clip := siteFile(t, "assets/video.webm")

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Canceling the allocator's context ends the browser's process.
	ctx, closeBrowser := chromedp.NewExecAllocator(ctx, browserOptions(t, exe)...)
	defer closeBrowser()
	ctx, cancel = chromedp.NewContext(ctx, chromedp.WithLogf(t.Logf))
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	version, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("browser: %s", version)
	net := watch(ctx)

	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	poll := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr)); err != nil {
			t.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
	}

	t.Run("SPA renders with every asset", func(t *testing.T) {
		run("loading "+base+"/", chromedp.Navigate(base+"/"))
		poll("the home page", `document.querySelector('#app h1')?.textContent === 'jaws demo'`)
		poll("the counters and the server time", `document.querySelectorAll('#stats tbody tr').length === 3 && document.getElementById('server-time').textContent.includes('T')`)
		want := map[string]bool{ // path -> seen
			"/": false, "/assets/style.css": false, "/" + script: false,
			"/assets/logo.svg": false, "/debug/jaws": false, "/api/time": false,
		}
		err := net.wait(ctx, func(xs []exchange) bool {
			for _, x := range xs {
				if _, ok := want[pathOf(base, x.url)]; ok && x.done {
					want[pathOf(base, x.url)] = true
				}
			}
			for _, seen := range want {
				if !seen {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("not every asset loaded: %v (seen %v)", err, want)
		}
		checkExchanges(t, base, net.snapshot())

		// The page's own view: the Resource Timing entries of its assets.
		entries, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct {
			Name    string `json:"name"`
			Status  int    `json:"status"`
			Encoded int    `json:"encoded"`
			Decoded int    `json:"decoded"`
		}](`performance.getEntriesByType('resource').map(e => ({name: e.name, status: e.responseStatus, encoded: e.encodedBodySize, decoded: e.decodedBodySize}))`))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := pathOf(base, e.Name)
			if p == "" {
				continue
			}
			if e.Status != 200 && e.Status != 304 {
				t.Errorf("resource timing: %s status %d", p, e.Status)
			}
			// The browser sends br; text from the size where jaws
			// compresses travels compressed, and the script as the
			// precompressed sibling's bytes.
			if name := siteName(p); name != "" && e.Status == 200 {
				if want, _ := expectCoding(t, name, "br"); want != "" && e.Encoded >= e.Decoded {
					t.Errorf("resource timing: %s is %d bytes on the wire for %d decoded: not compressed", p, e.Encoded, e.Decoded)
				}
				if sib, err := fs.ReadFile(site, name+".br"); err == nil && e.Encoded != len(sib) {
					t.Errorf("resource timing: %s is %d bytes on the wire, want the %d of site/%s.br", p, e.Encoded, len(sib), name)
				}
			}
			t.Logf("resource timing: %s %d, %d bytes encoded, %d decoded", p, e.Status, e.Encoded, e.Decoded)
		}
	})

	t.Run("client routes", func(t *testing.T) {
		documents := func() int {
			n := 0
			for _, x := range net.snapshot() {
				if x.kind == network.ResourceTypeDocument {
					n++
				}
			}
			return n
		}
		before := documents()
		run("clicking About", chromedp.Click(chromedp.CSS(`nav a[href="/about"]`)))
		poll("the About page", `location.pathname === '/about' && document.querySelector('#app h1')?.textContent === 'About'`)
		if n := documents(); n != before {
			t.Errorf("following a client route loaded %d new documents, want none (pushState)", n-before)
		}
		run("going back", chromedp.NavigateBack())
		poll("the home page again", `location.pathname === '/' && document.querySelector('#app h1')?.textContent === 'jaws demo'`)

		// A fresh load of a client route: the server answers with index.html.
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/files"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 200 || get(resp.Headers, "Cache-Control") != "no-cache" {
			t.Errorf("GET /files: %d, Cache-Control %q; want 200 and no-cache", resp.Status, get(resp.Headers, "Cache-Control"))
		}
		poll("the file list", `document.querySelector('#app h1')?.textContent === 'Files' && document.querySelectorAll('#files tbody tr').length > 3`)
		if got := text("#files"); !strings.Contains(got, script) || !strings.Contains(got, jawsmw.CacheImmutable) {
			t.Errorf("the file list does not show %s as immutable: %q", script, got)
		}
		// The download of the video goes at 16 kB/s, less than its bit
		// rate, as over a slow network, so that the player seeks before it
		// has the file.
		throttle(t, ctx, base+"/assets/video.webm", 16000)
		run("clicking Video", chromedp.Click(chromedp.CSS(`nav a[href="/video"]`)))
		poll("the Video page", `location.pathname === '/video' && document.getElementById('clip') !== null`)
	})

	t.Run("video plays and seeks", func(t *testing.T) {
		// Play from the start, then seek near the end while the throttled
		// download is still near the start, so the player must ask for the
		// middle of the file. Once it has, lift the throttle.
		type state struct {
			Duration, CurrentTime, Target, Resumed float64
			ReadyState, Error, Width, Height       int
			Times                                  map[string]int // ms from the start to each step
		}
		const player = `
			const v = document.getElementById('clip');
			window.jawsTest ??= {t0: performance.now(), times: {}};
			const failed = new Promise((_, fail) => v.addEventListener('error', () => fail(new Error('media error ' + v.error.code + ': ' + v.error.message)), {once: true}));
			// Each step gets 30 s, and a failure says where the player was.
			const step = (what, p) => Promise.race([p.then(x => { jawsTest.times[what] = Math.round(performance.now() - jawsTest.t0); return x; }), failed,
				new Promise((_, fail) => setTimeout(() => fail(new Error(what + ': no progress in 30 s: readyState ' + v.readyState +
					', networkState ' + v.networkState + ', currentTime ' + v.currentTime + ', paused ' + v.paused)), 30000))]);
			const reached = t => new Promise(ok => {
				const tick = () => { if (v.currentTime >= t) { v.removeEventListener('timeupdate', tick); ok(); } };
				v.addEventListener('timeupdate', tick);
				tick();
			});
			const state = () => ({Duration: v.duration, CurrentTime: v.currentTime, Target: jawsTest.target, Resumed: jawsTest.resumed,
				ReadyState: v.readyState, Error: v.error ? v.error.code : 0, Width: v.videoWidth, Height: v.videoHeight, Times: jawsTest.times});
		`
		userGesture := func(p *runtime.EvaluateParams) { p.UserGesture = new(true) }
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(async () => {`+player+`
			if (v.readyState < 1) {
				await step('loadedmetadata', new Promise(ok => v.addEventListener('loadedmetadata', ok, {once: true})));
			}
			await step('play', v.play());
			await step('playing', reached(0.1));
			jawsTest.target = Math.round(v.duration * 0.85 * 100) / 100;
			jawsTest.seeked = step('seeked', new Promise(ok => v.addEventListener('seeked', ok, {once: true})));
			v.currentTime = jawsTest.target;
			return state();
		})()`, chromedp.EvalAwaitPromise, userGesture)); err != nil {
			t.Fatalf("playing and seeking: %v", err)
		}
		err := net.wait(ctx, func(xs []exchange) bool {
			for _, x := range xs {
				if pathOf(base, x.url) == "/assets/video.webm" && rangeStart(get(x.sent, "Range")) > 0 {
					return true
				}
			}
			return false
		})
		if err != nil {
			t.Fatalf("waiting for a Range request from the middle of the video: %v", err)
		}
		throttle(t, ctx, "", 0) // off
		st, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(async () => {`+player+`
			await jawsTest.seeked;
			await step('playing after the seek', reached(jawsTest.target + 0.3));
			v.pause();
			jawsTest.resumed = v.currentTime;
			// Back to the seek target, for the screenshot.
			const back = step('seeked back', new Promise(ok => v.addEventListener('seeked', ok, {once: true})));
			v.currentTime = jawsTest.target;
			await back;
			return state();
		})()`, chromedp.EvalAwaitPromise, userGesture))
		if err != nil {
			t.Fatalf("playing after the seek: %v", err)
		}
		t.Logf("video: %+v", st)
		switch {
		case st.Error != 0:
			t.Errorf("media error %d", st.Error)
		case st.Duration < 9 || st.Duration > 11:
			t.Errorf("duration %.2f s, want the clip's 10 s", st.Duration)
		case st.CurrentTime < st.Target-0.1 || st.CurrentTime > st.Target+0.1:
			t.Errorf("seeked to %.2f s, want %.2f s", st.CurrentTime, st.Target)
		case st.Resumed < st.Target+0.3:
			t.Errorf("playback after the seek reached %.2f s, want past %.2f s", st.Resumed, st.Target+0.3)
		case st.Width != 320 || st.Height != 180 || st.ReadyState < 2:
			t.Errorf("after the seek: %dx%d, readyState %d; want 320x180 and a frame", st.Width, st.Height, st.ReadyState)
		}

		// The browser's view: Range requests, answered 206, as sent and
		// received on the wire. Chromium asks for media with Range and
		// resumes with If-Range; a seek past what it has loaded is a Range
		// request from the middle of the file.
		var ranges []string
		var seeks int
		for _, x := range net.snapshot() {
			if pathOf(base, x.url) != "/assets/video.webm" || x.status == 0 {
				continue
			}
			rng, cr := get(x.sent, "Range"), get(x.header, "Content-Range")
			ranges = append(ranges, fmt.Sprintf("%s (If-Range %q, If-None-Match %q) -> %d %s",
				rng, get(x.sent, "If-Range"), get(x.sent, "If-None-Match"), x.status, cr))
			start := rangeStart(rng)
			switch {
			case start < 0 || x.status != 206 || !strings.HasSuffix(cr, fmt.Sprintf("/%d", len(clip))):
				t.Errorf("video request with Range %q: %d, Content-Range %q; want a Range request answered 206", rng, x.status, cr)
			case !strings.HasPrefix(cr, fmt.Sprintf("bytes %d-", start)):
				t.Errorf("Range %q answered with Content-Range %q", rng, cr)
			case start > 0:
				seeks++
			}
			if enc := get(x.header, "Content-Encoding"); enc != "" {
				t.Errorf("video sent with Content-Encoding %q", enc)
			}
			if x.failed != "" && !x.canceled {
				t.Errorf("video request failed: %s", x.failed)
			}
		}
		if len(ranges) == 0 {
			t.Fatal("the browser made no request for the video")
		}
		t.Logf("video requests (browser): %q", ranges)

		if seeks == 0 {
			t.Errorf("no Range request from the middle of the video: the seek was not served by a range")
		}
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if *screenshotPath != "" {
			if err := os.WriteFile(*screenshotPath, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", *screenshotPath, len(shot))
		}
	})

	// No request of the whole visit failed, apart from media requests the
	// player canceled itself (it does when it has what it needs).
	for _, x := range net.snapshot() {
		if x.failed != "" && !(x.canceled && x.kind == network.ResourceTypeMedia) {
			t.Errorf("%s %s failed: %s", x.method, x.url, x.failed)
		}
	}

	// The server's view, from its request log once the browser has quit
	// and the server has shut down, so that every request is in it: each
	// request for the video answered 206, or 304 when Chromium revalidates
	// what its cache holds with If-None-Match. The shutdown itself is
	// graceful: the example exits with status 0.
	closeBrowser()
	log, err := ex.stop()
	if err != nil {
		t.Errorf("the example's exit after SIGINT: %v", err)
	}
	var video int
	for _, line := range log {
		r, ok := parseRequest(line)
		switch {
		case !ok:
			t.Logf("server: %s", line) // the handler's error log
		case r.path != "/assets/video.webm":
		case r.status != 206 && r.status != 304:
			t.Errorf("server: %s %s answered %d, want 206 (304 for a revalidation)", r.method, r.path, r.status)
		default:
			video++
			t.Logf("server: %s %s -> %d, %d bytes", r.method, r.path, r.status, r.bytes)
		}
	}
	if video == 0 {
		t.Errorf("the server logged no request for the video")
	}
}

// checkExchanges checks the responses of the first load: every request of
// the app's origin answered 200, 206 or 304; files of the site in the coding
// jaws should negotiate, with Vary; the cache policy on the script and the
// page.
func checkExchanges(t *testing.T, base string, xs []exchange) {
	t.Helper()
	for _, x := range xs {
		p := pathOf(base, x.url)
		if p == "" || !x.done {
			continue
		}
		if x.status != 200 && x.status != 206 && x.status != 304 {
			t.Errorf("%s %s: %d (%s)", x.method, p, x.status, x.failed)
			continue
		}
		// jaws negotiates: the browser lists br (Chromium sends "gzip,
		// deflate, br, zstd"), which jaws prefers, for every text file from
		// 1 KiB and for the script, which has a precompressed sibling.
		// Whatever the coding, responses for such files say Vary.
		enc, accept := get(x.header, "Content-Encoding"), get(x.sent, "Accept-Encoding")
		if name := siteName(p); name != "" && x.status == 200 {
			want, vary := expectCoding(t, name, accept)
			if enc != want {
				t.Errorf("%s (site/%s, %s): Content-Encoding %q for Accept-Encoding %q, want %q", p, name, get(x.header, "Content-Type"), enc, accept, want)
			}
			if got := get(x.header, "Vary"); vary != strings.Contains(got, "Accept-Encoding") {
				t.Errorf("%s: Vary %q; want Accept-Encoding in it: %v", p, got, vary)
			}
		}
		if strings.HasPrefix(p, "/api/") && !accepts(accept, "gzip") && !accepts(accept, "zstd") && enc != "" {
			t.Errorf("%s: Content-Encoding %q, but the browser sent Accept-Encoding %q", p, enc, accept)
		}
		switch cc := get(x.header, "Cache-Control"); {
		case path.Base(p) == appScriptName(base, xs) && cc != jawsmw.CacheImmutable:
			t.Errorf("%s: Cache-Control %q, want %q", p, cc, jawsmw.CacheImmutable)
		case p == "/" && cc != jawsmw.CacheNoCache:
			t.Errorf("%s: Cache-Control %q, want %q", p, cc, jawsmw.CacheNoCache)
		}
		t.Logf("%s %s: %d %s, Content-Encoding %q (Accept-Encoding %q), Cache-Control %q",
			x.method, p, x.status, get(x.header, "Content-Type"), enc, accept, get(x.header, "Cache-Control"))
	}
}

// appScriptName finds the fingerprinted script among the requests.
func appScriptName(base string, xs []exchange) string {
	for _, x := range xs {
		if p := pathOf(base, x.url); jawsmw.Fingerprinted(p) {
			return path.Base(p)
		}
	}
	return "\x00"
}

// throttle limits the browser's download of the URLs matching pattern to
// rate bytes/s, as a slow network would; a rate of 0 lifts every limit.
func throttle(t *testing.T, ctx context.Context, pattern string, rate float64) {
	t.Helper()
	var rules []*network.Conditions
	if rate > 0 {
		rules = append(rules, &network.Conditions{URLPattern: pattern, DownloadThroughput: rate, UploadThroughput: -1})
	}
	_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules})
	if err != nil {
		t.Fatalf("throttling %q to %v B/s: %v", pattern, rate, err)
	}
}

// rangeStart is the first position of a "bytes=N-..." Range header, or -1.
func rangeStart(h string) int64 {
	first, _, ok := strings.Cut(strings.TrimPrefix(h, "bytes="), "-")
	n, err := strconv.ParseInt(first, 10, 64)
	if !ok || err != nil || !strings.HasPrefix(h, "bytes=") {
		return -1
	}
	return n
}
