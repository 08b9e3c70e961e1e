package e2e

// TestSharedCacheDictionaries: nginx's proxy_cache in front of the example
// keeps the variants of a path with compression dictionaries apart (br,
// dcz against each dictionary, identity), by the Vary jaws sends, and never
// hands a dcz body to a client that did not name the dictionary.
// TestSharedCacheVaryLines: the same behind handlers that set Vary before
// jaws runs. Both need nginx (Debian's nginx-light; JAWS_NGINX names
// another binary) and skip without it, except in CI (CI=true).

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/decode"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

// nginxPath finds nginx: $JAWS_NGINX, nginx on PATH, or Debian's
// /usr/sbin/nginx (not on every user's PATH).
func nginxPath() string {
	if p := os.Getenv("JAWS_NGINX"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

// needNginx returns nginx's path, or skips the test without it, except in
// CI (CI=true), where it fails.
func needNginx(t *testing.T) string {
	t.Helper()
	exe := nginxPath()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no nginx found: install Debian's nginx-light package or set JAWS_NGINX")
		}
		t.Skip("no nginx found (install Debian's nginx-light package or set JAWS_NGINX)")
	}
	return exe
}

// nginxConfig is the configuration startNginx writes: a caching proxy of
// upstream with everything nginx writes in dir, as a site would configure
// one (nginx's default cache key, $scheme$proxy_host$request_uri, unless
// the directives added say otherwise), and the cache's verdict on each
// response in X-Cache-Status.
const nginxConfig = `daemon off;
master_process on;
worker_processes 1;
%[1]s
pid %[2]s/nginx.pid;
error_log stderr warn;
events { worker_connections 64; }
http {
	access_log %[2]s/access.log combined;
	client_body_temp_path %[2]s/client_body;
	proxy_temp_path %[2]s/proxy;
	fastcgi_temp_path %[2]s/fastcgi;
	uwsgi_temp_path %[2]s/uwsgi;
	scgi_temp_path %[2]s/scgi;
	proxy_cache_path %[2]s/cache levels=1:2 keys_zone=jaws:1m max_size=64m inactive=1h use_temp_path=off;
	server {
		listen %[3]s;
		location / {
			proxy_pass %[4]s;
			proxy_cache jaws;
			proxy_cache_valid 200 1h;
			%[5]s
			add_header X-Cache-Status $upstream_cache_status always;
		}
	}
}
`

// startNginx runs nginx as a caching proxy of upstream (see nginxConfig),
// with directives added to its location (proxy_cache_key, say), and
// returns its base URL. It listens on
// a socket the test made and hands it (nginx's NGINX variable, as for its
// binary upgrade), so there is neither a port to guess nor a start to wait
// for. It stops at cleanup (SIGQUIT, nginx's graceful shutdown), and what
// it logged goes to the test's log if the test failed.
func startNginx(t *testing.T, exe, upstream, directives string) string {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lf, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the workers write the cache in dir, which only root may
	}
	conf := filepath.Join(dir, "nginx.conf")
	err = os.WriteFile(conf, fmt.Appendf(nil, nginxConfig, user, dir, ln.Addr(), upstream, directives), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-p", dir, "-c", conf, "-e", "stderr"}
	if out, err := exec.Command(exe, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "NGINX=3;")
	cmd.ExtraFiles = []*os.File{lf} // fd 3
	var logged syncBuffer
	cmd.Stdout, cmd.Stderr = &logged, &logged
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			access, _ := os.ReadFile(filepath.Join(dir, "access.log"))
			t.Logf("nginx:\n%s\nits access log:\n%s", logged.String(), access)
		}
	})
	return "http://" + ln.Addr().String()
}

// syncBuffer is a bytes.Buffer for a process's output and a test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A client of the shared cache: the headers it sends, and what it must get.
type cacheClient struct {
	name           string
	acceptEncoding string // "" sends none
	dictionary     []byte // the one Available-Dictionary names; nil for none
	want           string // Content-Encoding
}

// decodeDcz checks the dcz framing of body (RFC 9842 §5: a zstd skippable
// frame holding the dictionary's SHA-256) and decodes it with dict.
func decodeDcz(body, dict []byte) ([]byte, error) {
	sum := sha256.Sum256(dict)
	if len(body) < 40 || !bytes.Equal(body[:8], []byte{0x5e, 0x2a, 0x4d, 0x18, 0x20, 0, 0, 0}) || !bytes.Equal(body[8:40], sum[:]) {
		return nil, fmt.Errorf("no dcz header naming the dictionary: % x", body[:min(len(body), 40)])
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, dict), zstd.WithDecoderMaxWindow(8<<20))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.DecodeAll(body[40:], nil)
}

// answer is one response, read whole.
type answer struct {
	status               int
	encoding, etag, hits string
	vary                 []string // the Vary field lines
	body                 []byte
}

// cacheCheck asks for the demo's current script as each of its clients
// would and checks the answers.
type cacheCheck struct {
	cur     string // the script's name under the site
	file    []byte // its bytes
	clients []cacheClient
	hc      *http.Client
	origin  map[string]answer // by client: what the origin sends it
	etags   map[string]bool   // the origin's variants' ETags
}

// newCacheCheck: the demo's current script, and clients of each kind:
// Chromium without a dictionary, with the previous build (the one client
// that must get dcz), with another dictionary, a client with no
// Accept-Encoding, one with the dictionary's hash but no dcz, one with
// dcz but no hash.
func newCacheCheck(t *testing.T) *cacheCheck {
	cur, old := appScript(t), "assets/app.555a5fb1.js" // the current build and the previous one
	file, dict := siteFile(t, cur), siteFile(t, old)
	if bytes.Equal(file, dict) {
		t.Fatal("the builds are the same")
	}
	const chrome = "gzip, deflate, br, zstd"               // Chromium, with no dictionary for the URL
	const chromeDict = "gzip, deflate, br, zstd, dcb, dcz" // with one
	cc := &cacheCheck{cur: cur, file: file, clients: []cacheClient{
		{"no dictionary", chrome, nil, "br"},
		{"the previous build", chromeDict, dict, "dcz"},
		{"another dictionary", chromeDict, []byte("not a build of the script"), "br"},
		{"no Accept-Encoding", "", nil, ""},
		{"the previous build, no dcz", chrome, dict, "br"},
		{"dcz, no dictionary", chromeDict, nil, "br"},
	}, hc: &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second}}
	t.Cleanup(cc.hc.CloseIdleConnections)
	return cc
}

// get asks base for the script as c, with If-None-Match if not "".
func (cc *cacheCheck) get(t *testing.T, url string, c cacheClient, ifNoneMatch string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", c.acceptEncoding)
	}
	if c.dictionary != nil {
		req.Header.Set("Available-Dictionary", availableDictionary(c.dictionary))
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := cc.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, encoding: resp.Header.Get("Content-Encoding"), etag: resp.Header.Get("ETag"),
		vary: resp.Header.Values("Vary"), hits: resp.Header.Get("X-Cache-Status"), body: body}
}

// check checks a 200 for c: its coding, its Vary naming both fields, and
// its body, decoded (dcz with c's dictionary), the file's.
func (cc *cacheCheck) check(t *testing.T, what string, c cacheClient, a answer) {
	t.Helper()
	if a.status != 200 || a.encoding != c.want {
		t.Fatalf("%s: %d, Content-Encoding %q; want 200 and %q", what, a.status, a.encoding, c.want)
	}
	if vary := strings.Join(a.vary, ", "); !accepts(vary, "Accept-Encoding") || !accepts(vary, "Available-Dictionary") {
		t.Errorf("%s: Vary %q", what, a.vary)
	}
	var got []byte
	var err error
	if a.encoding == "dcz" {
		got, err = decodeDcz(a.body, c.dictionary)
	} else {
		got, err = decode.Body(a.encoding, a.body)
	}
	if err != nil || !bytes.Equal(got, cc.file) {
		t.Errorf("%s: the %d-byte %q body does not decode to %s (%v)", what, len(a.body), a.encoding, cc.cur, err)
	}
}

// reference records the origin's answers at base: each client's coding,
// bytes and ETag, three variants in all (br, dcz, identity).
func (cc *cacheCheck) reference(t *testing.T, base string) {
	t.Helper()
	cc.origin, cc.etags = map[string]answer{}, map[string]bool{}
	for _, c := range cc.clients {
		a := cc.get(t, base+"/"+cc.cur, c, "")
		cc.check(t, "origin, "+c.name, c, a)
		cc.origin[c.name] = a
		cc.etags[a.etag] = true
		t.Logf("origin, %s: %q, %d bytes, ETag %s, Vary %q", c.name, a.encoding, len(a.body), a.etag, a.vary)
	}
	if len(cc.etags) != 3 {
		t.Fatalf("the origin's variants have %d ETags, want 3 (br, dcz, identity): %v", len(cc.etags), cc.etags)
	}
}

// orders sends the clients' requests through the cache at proxy in
// several orders, each on a URL of its own (so its own cache entry: the
// query is in nginx's key, and jaws ignores it). Each client asks twice, a
// miss then a hit, and gets what the origin sends it, byte for byte; then,
// once all are cached, each again, in the opposite order: a hit with its
// own variant.
func (cc *cacheCheck) orders(t *testing.T, proxy string) {
	t.Helper()
	orders := [][]int{{0, 1, 2, 3, 4, 5}, {1, 0, 3, 2, 5, 4}, {3, 2, 1, 5, 4, 0}, {2, 4, 5, 1, 0, 3}}
	for n, order := range orders {
		url := fmt.Sprintf("%s/%s?order=%d", proxy, cc.cur, n)
		for _, i := range order {
			c := cc.clients[i]
			for k, want := range []string{"MISS", "HIT"} {
				a := cc.get(t, url, c, "")
				what := fmt.Sprintf("order %d, %s, request %d", n, c.name, k+1)
				cc.check(t, what, c, a)
				if o := cc.origin[c.name]; a.hits != want || a.etag != o.etag || !bytes.Equal(a.body, o.body) {
					t.Errorf("%s: X-Cache-Status %q, ETag %q; want %s and the origin's %q, its bytes", what, a.hits, a.etag, want, o.etag)
				}
			}
		}
		for k := len(order) - 1; k >= 0; k-- {
			c := cc.clients[order[k]]
			a := cc.get(t, url, c, "")
			what := fmt.Sprintf("order %d, %s, once all are cached", n, c.name)
			cc.check(t, what, c, a)
			if a.hits != "HIT" || a.etag != cc.origin[c.name].etag {
				t.Errorf("%s: X-Cache-Status %q, ETag %q; want HIT and %q", what, a.hits, a.etag, cc.origin[c.name].etag)
			}
		}
	}
}

// revalidations sends If-None-Match with each variant's ETag, as each
// client, to the cache at proxy (which has the variants, from orders) and
// to the origin, the reference: 304 only for the ETag of the variant the
// client would get, else that variant, whole.
func (cc *cacheCheck) revalidations(t *testing.T, proxy, origin string) {
	t.Helper()
	for _, c := range cc.clients {
		for etag := range cc.etags {
			for _, base := range []string{proxy, origin} {
				url := base + "/" + cc.cur
				if base == proxy {
					url += "?order=0"
				}
				a := cc.get(t, url, c, etag)
				what := fmt.Sprintf("%s, If-None-Match %s from %s", c.name, etag, base)
				switch own := cc.origin[c.name].etag; {
				case etag == own && a.status != 304:
					t.Errorf("%s: %d, want 304", what, a.status)
				case etag == own && (a.etag != own || len(a.body) != 0):
					t.Errorf("%s: 304 with ETag %q and %d body bytes", what, a.etag, len(a.body))
				case etag != own:
					cc.check(t, what, c, a)
				}
				if base == proxy && a.hits != "HIT" {
					t.Errorf("%s: X-Cache-Status %q, want HIT", what, a.hits)
				}
			}
		}
	}
}

// dictCacheKey is the cache key that keeps the variants apart where the
// cache does not apply Vary itself: nginx's default key and the two fields
// jaws's Vary names.
const dictCacheKey = "proxy_cache_key $scheme$proxy_host$request_uri$http_accept_encoding$http_available_dictionary;"

func TestSharedCacheDictionaries(t *testing.T) {
	exe := needNginx(t)
	ex := startExample(t)
	cc := newCacheCheck(t)
	cc.reference(t, ex.url)

	for _, tt := range []struct {
		name, directives string
		mixes            bool // variants mixed: the control
	}{
		// nginx applies Vary by itself: the default key keeps every
		// variant apart, and a key with the fields changes nothing.
		{"default key", "", false},
		{"key with the dictionary's fields", dictCacheKey, false},
		// A cache told to ignore Vary mixes them, and hands a dcz body to
		// a client without the dictionary: the control, which shows the
		// checks see it. With the fields in the key, it is right again.
		{"Vary ignored", "proxy_ignore_headers Vary;", true},
		{"Vary ignored, key with the dictionary's fields", "proxy_ignore_headers Vary; " + dictCacheKey, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			proxy := startNginx(t, exe, ex.url, tt.directives)
			if tt.mixes {
				url := proxy + "/" + cc.cur
				with, without := cc.clients[1], cc.clients[0]
				cc.check(t, "a client with the dictionary", with, cc.get(t, url, with, ""))
				a := cc.get(t, url, without, "")
				if a.encoding != "dcz" || a.hits != "HIT" {
					t.Fatalf("a client without the dictionary, after one with it: Content-Encoding %q, X-Cache-Status %q; want the cached dcz body (the cache mixes variants)", a.encoding, a.hits)
				}
				t.Logf("with %q, nginx sends a client without the dictionary the dcz body cached for one with it", tt.directives)
				return
			}
			cc.orders(t, proxy)
			cc.revalidations(t, proxy, ex.url)
		})
	}
}

// TestSharedCacheVaryLines: the same clients, through nginx's cache, of
// jaws behind handlers that set Vary before it runs, as docs/compression.md
// says jaws may be: gzhttp in front (which jaws recognises and still
// compresses beneath), and an application's own Vary: Accept-Encoding on
// net/http's writer. jaws joins its Vary tokens into the line the handler
// in front set. nginx before 1.23.0 caches by the last Vary line only (nginx
// ticket #1423), so a second line would mix the variants there: a dcz body
// for a client without dcz, brotli for one with no Accept-Encoding. With the
// fields in the key, they are kept apart whatever the nginx.
func TestSharedCacheVaryLines(t *testing.T) {
	exe := needNginx(t)
	h, err := jaws.NewFS(site, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	gz, err := gzhttp.NewWrapper()
	if err != nil {
		t.Fatal(err)
	}
	version, _ := exec.Command(exe, "-v").CombinedOutput()
	t.Logf("%s", bytes.TrimSpace(version))
	for _, stack := range []struct {
		name    string
		handler http.Handler
	}{
		{"gzhttp", gz(h)},
		{"Vary: Accept-Encoding set before jaws", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Vary", "Accept-Encoding")
			h.ServeHTTP(w, r)
		})},
	} {
		origin := httptest.NewServer(jawsmw.CacheControl()(stack.handler))
		t.Cleanup(origin.Close)
		for _, key := range []struct{ name, directives string }{
			{"default key", ""},
			{"key with the dictionary's fields", dictCacheKey},
		} {
			t.Run(stack.name+"/"+key.name, func(t *testing.T) {
				cc := newCacheCheck(t)
				cc.reference(t, origin.URL)
				proxy := startNginx(t, exe, origin.URL, key.directives)
				// Two probes, each on a URL of its own: a client that must
				// not get what the one before it got.
				for n, p := range []struct{ first, then cacheClient }{
					{cc.clients[1], cc.clients[4]}, // dcz, then the same hash without dcz in Accept-Encoding
					{cc.clients[0], cc.clients[3]}, // br, then no Accept-Encoding
				} {
					url := fmt.Sprintf("%s/%s?probe=%d", proxy, cc.cur, n)
					cc.check(t, "probe: "+p.first.name, p.first, cc.get(t, url, p.first, ""))
					if a := cc.get(t, url, p.then, ""); a.encoding != p.then.want {
						t.Errorf("probe: %s, after %s: Content-Encoding %q (X-Cache-Status %s, Vary lines %q), want %q",
							p.then.name, p.first.name, a.encoding, a.hits, cc.origin[p.then.name].vary, p.then.want)
					}
				}
				cc.orders(t, proxy)
			})
		}
	}
}
