package jaws

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/source"
	"github.com/jaws-go/jaws/internal/testsite"
)

// The helpers shared by this package's tests. A helper only one test file
// uses stays in that file; the external tests (package jaws_test) have
// theirs in helpers_ext_test.go. Directory trees and servers come from
// internal/testsite.

// Responses.

// varyCase is a request and the status and Vary tokens its answer must
// have.
type varyCase struct {
	name, method, target string
	handler              http.Handler
	header               []string
	status               int
	vary                 []string
}

// checkVary makes each case's request, in parallel subtests.
func checkVary(t *testing.T, cases []varyCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := testsite.Serve(tt.handler, tt.method, tt.target, tt.header...)
			if w.Code != tt.status {
				t.Fatalf("%d, want %d", w.Code, tt.status)
			}
			if got := testsite.VaryTokens(w.Header()); !slices.Equal(got, tt.vary) {
				t.Errorf("Vary %q, want %q", got, tt.vary)
			}
		})
	}
}

// Files and handlers.

// uniqueName returns a file name no other test uses.
func uniqueName(t testing.TB, ext string) string {
	return fmt.Sprintf("%s-%d%s", filepath.Base(t.Name()), time.Now().UnixNano(), ext)
}

// newTestHandler is New(dir, o), its source counted (countedSource), closed
// when the test ends.
func newTestHandler(t testing.TB, dir string, o Options) *Handler {
	t.Helper()
	h, err := New(dir, o)
	must(t, err)
	t.Cleanup(func() { h.Close() })
	h.store.src = &countedSource{Source: h.store.src}
	testsite.Made(t, h)
	return h
}

// randomBytes returns n random bytes: incompressible, so no variant is made.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// must ends the test on an error.
func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// zcSite serves files of the given sizes (named "<size>.bin") with small
// thresholds, so every path is exercised with small files.
func zcSite(t *testing.T, o Options, sizes ...int) (dir string, h *Handler, files map[string][]byte) {
	t.Helper()
	dir = tempDir(t)
	files = map[string][]byte{}
	for _, n := range sizes {
		name := fmt.Sprintf("%d.bin", n)
		files[name] = randomBytes(n)
		must(t, os.WriteFile(filepath.Join(dir, name), files[name], 0o644))
	}
	if o.CacheMaxFileSize == 0 {
		o.CacheMaxFileSize = 1024
	}
	if o.ZeroCopyMinSize == 0 {
		o.ZeroCopyMinSize = 4096
	}
	return dir, newTestHandler(t, dir, o), files
}

// writeFiles writes files (names relative to dir, with their content)
// into dir, which exists. They are made in a few directories of their
// own at once, then renamed into dir: making a file takes its directory's
// lock, and on a file system that has seen many deletions (ext4 without a
// journal skips inodes deleted minutes ago, looking at each) a millisecond
// of the kernel's time, so the tests not run in parallel that need
// hundreds of files make them on every core. The tree is the same as if
// each were written in place.
func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	const ways = 4
	stage := tempDir(t)
	names := slices.Sorted(maps.Keys(files))
	var wg sync.WaitGroup
	errs := make([]error, ways)
	for w := range ways {
		wg.Go(func() {
			sub := filepath.Join(stage, strconv.Itoa(w))
			if errs[w] = os.Mkdir(sub, 0o755); errs[w] != nil {
				return
			}
			for i := w; i < len(names); i += ways {
				if errs[w] = os.WriteFile(filepath.Join(sub, strconv.Itoa(i)), files[names[i]], 0o644); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	must(t, errors.Join(errs...))
	for i, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.Rename(filepath.Join(stage, strconv.Itoa(i%ways), strconv.Itoa(i)), p))
	}
}

// tempDir is t.TempDir for the tests that also run under Wine (see
// testsite.TempDir), and for fuzz targets (a *testing.F).
func tempDir(tb testing.TB) string {
	tb.Helper()
	return testsite.TempDir(tb)
}

// warm asks for every name in every coding, so each variant is made and
// cached before parallel subtests ask for it and count on its being there.
func warm(t *testing.T, h *Handler, names ...string) {
	t.Helper()
	for _, name := range names {
		for _, c := range codingCases {
			if w := testsite.Serve(h, "GET", "/"+name, "Accept-Encoding", c.String()); w.Header().Get("Content-Encoding") != c.String() {
				t.Fatalf("%s in %v: Content-Encoding %q", name, c, w.Header().Get("Content-Encoding"))
			}
		}
	}
	h.store.cache.sync()
}

// faultModes are the transfer paths a fault can hit: a body in memory, the
// zero-copy path with its shared descriptor, and the fallback with a
// descriptor of the request's own.
var faultModes = []struct {
	name string
	o    Options
}{
	{"memory", Options{CacheMaxFileSize: 32 << 20}},
	{"zerocopy", Options{CacheMaxFileSize: 1024, ZeroCopyMinSize: 4096}},
	{"fallback", Options{CacheMaxFileSize: 1024, Transfer: TransferFallback}},
}

// Requests.

// get serves one GET in-process and returns the recorder.
func get(h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
	return testsite.Serve(h, "GET", path, hdr...)
}

// get11 is the text of an HTTP/1.1 GET of path, with extra header lines
// (each ending in "\r\n").
func get11(path string, extra ...string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + strings.Join(extra, "") + "\r\n"
}

// Raw connections: what a client reads, byte for byte.

// rawConn is a client connection that reads responses one by one.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

// dialRaw connects to srv, closed when the test ends.
func dialRaw(t *testing.T, srv *httptest.Server) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	must(t, err)
	t.Cleanup(func() { c.Close() })
	return &rawConn{c, bufio.NewReader(c)}
}

// tightBuffer is the socket buffer, each way, of the connections of tight
// servers (startTight) and of tight raw clients (dialTight). A buffer set
// no longer autotunes (Linux grows a send buffer up to tcp_wmem's 4 MiB,
// and further where that is raised), so a body of a few times it is still
// in flight when its client stops reading, on any machine: the tests of
// stalled, aborted and interrupted transfers need no files of tens of MiB.
const tightBuffer = 64 << 10

// startTight starts an httptest server for h whose connections have socket
// buffers of tightBuffer; config, if not nil, sets its http.Server up
// first. It is closed when the test ends.
func startTight(t *testing.T, h http.Handler, config func(*http.Server)) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = tightListener{srv.Listener}
	if config != nil {
		config(srv.Config)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

type tightListener struct{ net.Listener }

func (l tightListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tightenBuffers(tc)
	}
	return c, err
}

func tightenBuffers(c *net.TCPConn) {
	c.SetWriteBuffer(tightBuffer)
	c.SetReadBuffer(tightBuffer)
}

// dialTight is dialRaw with socket buffers of tightBuffer.
func dialTight(t *testing.T, srv *httptest.Server) *rawConn {
	t.Helper()
	c := dialRaw(t, srv)
	tightenBuffers(c.Conn.(*net.TCPConn))
	return c
}

// send writes the requests in one write, so they arrive pipelined.
func (c *rawConn) send(t *testing.T, reqs ...string) {
	t.Helper()
	var b strings.Builder
	for _, r := range reqs {
		b.WriteString(r)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
}

// read reads the next response, as an answer to method, and its body.
func (c *rawConn) read(t *testing.T, method string) (*http.Response, []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return resp, body
}

// checkMultipart checks that resp is a 206 multipart/byteranges response
// whose parts are the spans of data.
func checkMultipart(t *testing.T, resp *http.Response, body, data []byte, spans []span) {
	t.Helper()
	if resp.StatusCode != 206 {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	parts := testsite.Parts(t, resp.Header.Get("Content-Type"), body)
	if len(parts) < len(spans) {
		t.Fatalf("%d parts, want %d", len(parts), len(spans))
	}
	for i, s := range spans {
		if !bytes.Equal(parts[i].Body, data[s.off:s.end()]) {
			t.Fatalf("part %d differs", i)
		}
	}
}

// Counters: files opened, transfers, descriptors, goroutines.

// opens counts, per name, the files handlers made by newTestHandler open
// (countedSource). Tests use names of their own, so they can run in
// parallel.
var opens sync.Map // name -> *atomic.Int64

// statted counts, per name, the names handlers made by newTestHandler stat
// (countedSource), as opens does the files they open.
var statted sync.Map // name -> *atomic.Int64

// countedSource is a handler's source, with the files it opens counted
// (opens) and how often it looks for what its root names (looks: one
// epoll_wait with events, or a stat of the root path): Open and Fresh look,
// and OpenIn in a tree (the one Fresh found) does not, as its doc says
// (internal/source holds it to that). newTestHandler puts it in.
type countedSource struct {
	source.Source
	looks atomic.Int64
}

func (c *countedSource) Open(name string) (fs.File, fs.FileInfo, *source.Tree, error) {
	count(&opens, name)
	c.looks.Add(1)
	return c.Source.Open(name)
}

func (c *countedSource) OpenIn(at *source.Tree, name string) (fs.File, fs.FileInfo, *source.Tree, error) {
	count(&opens, name)
	if at == nil {
		c.looks.Add(1)
	}
	return c.Source.OpenIn(at, name)
}

func (c *countedSource) Stat(name string) (fs.FileInfo, error) {
	count(&statted, name)
	return c.Source.Stat(name)
}

func (c *countedSource) Fresh(ref *source.Ref, body []byte, now func() int64) bool {
	c.looks.Add(1)
	return c.Source.Fresh(ref, body, now)
}

// count adds one to m's counter for key, allocating only the first time,
// so that the benchmarks' allocations are the handler's.
func count(m *sync.Map, key any) {
	c, ok := m.Load(key)
	if !ok {
		c, _ = m.LoadOrStore(key, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(1)
}

// lookCount is how many times h's source looked for what its root names.
func lookCount(h *Handler) int64 { return h.store.src.(*countedSource).looks.Load() }

// openCount is how many times handlers opened the file name.
func openCount(name string) int64 { return countOf(&opens, name) }

// statCount is how many times handlers looked at name by stat.
func statCount(name string) int64 { return countOf(&statted, name) }

func countOf(m *sync.Map, name string) int64 {
	if c, ok := m.Load(name); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

// waitTransfers waits, at most limit, until no zero-copy transfer is in flight.
func waitTransfers(t *testing.T, h *Handler, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	timer := time.AfterFunc(limit, func() { close(done) })
	defer timer.Stop()
	h.tx.transfers.mu.Lock()
	closing := h.tx.transfers.closing
	h.tx.transfers.mu.Unlock()
	if !h.tx.transfers.wait(done) {
		t.Fatalf("a transfer is still in flight after %v", limit)
	}
	h.tx.transfers.mu.Lock()
	h.tx.transfers.closing = closing // wait stops new transfers; this test goes on
	h.tx.transfers.mu.Unlock()
}

// openFDs counts this process's descriptors, or -1 where it cannot.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// openFilesUnder lists this process's descriptors of files under dir, by
// /proc/self/fd (none where there is no such thing).
func openFilesUnder(t testing.TB, dir string) []string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	ents, _ := os.ReadDir("/proc/self/fd")
	var open []string
	for _, e := range ents {
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil &&
			(link == real || strings.HasPrefix(link, real+string(filepath.Separator))) {
			open = append(open, link)
		}
	}
	return open
}

// countGoroutines counts goroutines once exiting ones have had a chance to
// finish: it yields until the count stops falling, for at most a second.
func countGoroutines() int {
	n := runtime.NumGoroutine()
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		runtime.Gosched()
		if m := runtime.NumGoroutine(); m < n {
			n, end = m, time.Now().Add(100*time.Millisecond)
		}
	}
	return n
}

// goroutines lists the goroutines alive now, each by its id (never
// reused), with its stack.
func goroutines() map[string]string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	all := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if rest, ok := strings.CutPrefix(g, "goroutine "); ok {
			id, _, _ := strings.Cut(rest, " ")
			all[id] = g
		}
	}
	return all
}

// newGoroutines waits, polling for at most limit, until every goroutine
// alive was alive in before, and returns the stacks of those that were not.
// Stronger than comparing counts, which a goroutine of before that ends
// can balance, and with nothing to settle first: a goroutine that is
// ending when before is taken does not count.
func newGoroutines(before map[string]string, limit time.Duration) []string {
	for end := time.Now().Add(limit); ; time.Sleep(5 * time.Millisecond) {
		var started []string
		for id, g := range goroutines() {
			if _, ok := before[id]; !ok {
				started = append(started, g)
			}
		}
		if len(started) == 0 || time.Now().After(end) {
			return started
		}
	}
}

// onlyCacheRef reports whether name's shared descriptor is referenced by the
// cache alone, once requests that just ended have released theirs (they do
// so right after their transfer is counted out).
func onlyCacheRef(h *Handler, name string) bool {
	e := h.store.cache.get(name)
	if e == nil || e.sf == nil {
		return false
	}
	for end := time.Now().Add(time.Second); time.Now().Before(end); runtime.Gosched() {
		if e.sf.refCount() == 1 {
			return true
		}
	}
	return false
}

// inFlight counts the zero-copy transfers in flight.
func (t *transfers) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.active
}

// serverCount is how many servers jaws keeps state for.
func (h *Handler) serverCount() int {
	n := 0
	h.tx.servers.Range(func(any, any) bool { n++; return true })
	return n
}
