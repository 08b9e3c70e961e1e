package jaws

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak is a bounded soak test, run on demand: JAWS_SOAK=3m go test
// -run '^TestSoak$' -v . (CI runs JAWS_SOAK=15s). Workers over keep-alive
// connections ask for small (memory), medium and large (zero-copy) files,
// whole, ranged, conditional and HEAD, and abort downloads midway, while a
// mutator replaces and deletes files underneath by rename. Every body is
// verified against the version its ETag names; at the end descriptors and
// goroutines are back where they started, the cache held no more than
// CacheMaxBytes by its accounting and its heap within soakCacheOverhead of
// it, and RSS stopped growing after the first quarter.
func TestSoak(t *testing.T) {
	spec := os.Getenv("JAWS_SOAK")
	if spec == "" {
		t.Skip("a soak test: set JAWS_SOAK to a duration to run it, e.g. JAWS_SOAK=3m (CONTRIBUTING.md, Soak)")
	}
	dur, err := time.ParseDuration(spec)
	must(t, err)
	// RSS is held to a bound, so the collector runs at its default pace:
	// testsite.Main runs the suite at GOGC=400, whose heap may grow to five
	// times what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	baseFDs, baseGoroutines := openFDs(), countGoroutines()

	const cacheMax = 1 << 20
	s := newSoakSite(t)
	h, err := New(s.dir, Options{CacheMaxBytes: cacheMax, SendTimeout: 10 * time.Second})
	must(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.IdleTimeout = 2 * time.Second
	srv.Start()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	client := &http.Client{Transport: tr}

	var st soakStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Bool
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf(format, args...)
		}
	}
	const workers = 16
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			for !failed.Load() {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.request(client, srv, rng, &st); err != nil {
					fail("%v", err)
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the mutator: files replaced by rename, deleted and put back
		defer wg.Done()
		rng := rand.New(rand.NewPCG(99, uint64(time.Now().UnixNano())))
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if err := s.mutate(rng); err != nil {
				fail("mutating: %v", err)
				return
			}
			st.faults.Add(1)
		}
	}()

	var peakCache int64
	var quarterRSS int64
	start := time.Now()
	sample := time.NewTicker(100 * time.Millisecond)
	for time.Since(start) < dur && !failed.Load() {
		<-sample.C
		if c := h.Stats().CacheBytes; c > peakCache {
			peakCache = c
		}
		if quarterRSS == 0 && time.Since(start) >= dur/4 {
			quarterRSS = procStatus("VmRSS")
		}
	}
	sample.Stop()
	close(stop)
	wg.Wait()
	endRSS := procStatus("VmRSS")
	if quarterRSS == 0 {
		quarterRSS = endRSS
	}
	stats := h.Stats()
	tr.CloseIdleConnections()
	srv.Close()

	// The cache's heap: what clearing it frees.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.store.cache.bodies.Clear()
	h.store.cache.files.Clear()
	runtime.GC()
	runtime.ReadMemStats(&after)
	cacheHeap := int64(before.HeapAlloc) - int64(after.HeapAlloc)
	must(t, h.Close())

	var fds, goroutines int
	for end := time.Now().Add(5 * time.Second); ; {
		fds, goroutines = openFDs(), countGoroutines()
		if fds <= baseFDs && goroutines <= baseGoroutines || time.Now().After(end) {
			break
		}
	}
	t.Logf("soak %v: %d requests served (%d memory, %d zero-copy, %d fallback responses), %d faults injected (%d file changes, %d aborted downloads), %d bytes verified in %d bodies, %d 404/503 during changes",
		dur, stats.Requests, stats.Memory.Responses, stats.ZeroCopy.Responses, stats.Fallback.Responses,
		st.faults.Load()+st.aborts.Load(), st.faults.Load(), st.aborts.Load(), st.bytes.Load(), st.bodies.Load(), st.gone.Load())
	t.Logf("cache: peak %d bytes by its accounting (CacheMaxBytes %d), %d bytes of heap when full, %d evictions; RSS %d KiB after a quarter, %d KiB at the end, peak (VmHWM) %d KiB; descriptors %d -> %d, goroutines %d -> %d",
		peakCache, cacheMax, cacheHeap, stats.CacheEvictions, quarterRSS, endRSS, procStatus("VmHWM"), baseFDs, fds, baseGoroutines, goroutines)
	if st.bodies.Load() == 0 {
		t.Error("no body verified")
	}
	if peakCache > cacheMax {
		t.Errorf("the cache held %d bytes, over CacheMaxBytes %d", peakCache, cacheMax)
	}
	if cacheHeap > cacheMax+soakCacheOverhead(cacheMax) {
		t.Errorf("the cache's heap is %d bytes, over CacheMaxBytes %d plus %d", cacheHeap, cacheMax, soakCacheOverhead(cacheMax))
	}
	if fds > baseFDs {
		t.Errorf("%d descriptors open at the end, %d at the start", fds, baseFDs)
	}
	if goroutines > baseGoroutines {
		t.Errorf("%d goroutines at the end, %d at the start", goroutines, baseGoroutines)
	}
	if endRSS > quarterRSS+quarterRSS/2+(32<<10) {
		t.Errorf("RSS grew from %d KiB after a quarter of the run to %d KiB at the end", quarterRSS, endRSS)
	}
}

// soakCacheOverhead is the heap the cache may take beyond CacheMaxBytes:
// ristretto's admission counters and maps (fixed, sized by NumCounters) and
// the slack of its cost accounting, a quarter.
func soakCacheOverhead(cacheMax int64) int64 { return cacheMax/4 + 4<<20 }

type soakStats struct {
	bodies, bytes, faults, aborts, gone atomic.Int64
}

// soakSite is the served tree and every version of its files the checks
// may meet, by ETag (which is a hash of the content).
type soakSite struct {
	dir   string
	names []string
	large []string // never changed
	mu    sync.Mutex
	byTag map[string][]byte   // ETag -> content
	tags  map[string][]string // name -> its recent ETags, oldest first
	gen   int
}

// soakKeep is how many versions of a file are kept for checking: far more
// than can change during one request.
const soakKeep = 8

func newSoakSite(t *testing.T) *soakSite {
	s := &soakSite{dir: tempDir(t), byTag: map[string][]byte{}, tags: map[string][]string{}}
	for i := range 40 {
		s.names = append(s.names, fmt.Sprintf("s%02d.txt", i))
	}
	for i := range 12 {
		s.names = append(s.names, fmt.Sprintf("m%02d.bin", i))
	}
	for _, n := range s.names {
		must(t, s.write(n, rand.New(rand.NewPCG(1, 2))))
	}
	for i, size := range []int{8 << 20, 16 << 20, 24 << 20} {
		name := fmt.Sprintf("l%d.bin", i)
		s.large = append(s.large, name)
		data := randomBytes(size)
		p := filepath.Join(s.dir, name)
		must(t, os.WriteFile(p, data, 0o644))
		info, err := os.Stat(p)
		must(t, err)
		s.remember(name, data, info)
	}
	return s
}

// remember records a version of name by the ETag it is served under: its
// content's when it is small enough for memory, its metadata's otherwise.
func (s *soakSite) remember(name string, data []byte, info os.FileInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tag := metaETag(info.Size(), info.ModTime())
	if len(data) <= defaultCacheMaxFileSize {
		tag = etagOfBytes(data)
	}
	s.byTag[tag] = data
	tags := append(s.tags[name], tag)
	if len(tags) > soakKeep {
		delete(s.byTag, tags[0])
		tags = tags[1:]
	}
	s.tags[name] = tags
}

func (s *soakSite) version(tag string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byTag[tag]
}

// write puts a new version of name in place by rename.
func (s *soakSite) write(name string, rng *rand.Rand) error {
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.mu.Unlock()
	size := 100 + rng.IntN(16<<10)
	if strings.HasPrefix(name, "m") {
		size = 64<<10 + rng.IntN(1<<20)
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	copy(data, fmt.Sprintf("%s v%d\n", name, gen))
	p := filepath.Join(s.dir, name)
	if err := os.WriteFile(p+".tmp", data, 0o644); err != nil {
		return err
	}
	info, err := os.Stat(p + ".tmp")
	if err != nil {
		return err
	}
	s.remember(name, data, info) // before any request can see it
	return os.Rename(p+".tmp", p)
}

// mutate replaces a file, or now and then deletes one and puts it back.
func (s *soakSite) mutate(rng *rand.Rand) error {
	name := s.names[rng.IntN(len(s.names))]
	if rng.IntN(10) == 0 {
		if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
			return err
		}
		time.Sleep(time.Millisecond) // a window in which it is missing
	}
	return s.write(name, rng)
}

// request makes one request of a random kind and verifies the answer.
func (s *soakSite) request(c *http.Client, srv *httptest.Server, rng *rand.Rand, st *soakStats) error {
	var name string
	switch k := rng.IntN(100); {
	case k < 8:
		return s.abort(srv, s.large[rng.IntN(len(s.large))], rng, st)
	case k < 14:
		name = s.large[rng.IntN(len(s.large))]
	default:
		name = s.names[rng.IntN(len(s.names))]
	}
	req, _ := http.NewRequest("GET", srv.URL+"/"+name, nil)
	switch k := rng.IntN(100); {
	case k < 25:
		a := rng.IntN(70000)
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", a, a+rng.IntN(200000)))
	case k < 32:
		req.Header.Set("Range", fmt.Sprintf("bytes=0-99,%d-%d,-%d", 1000+rng.IntN(5000), 9000+rng.IntN(5000), 1+rng.IntN(500)))
	case k < 37:
		req.Method = "HEAD"
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %v", req.Method, name, err)
	}
	defer resp.Body.Close()
	mutable := !strings.HasPrefix(name, "l")
	switch resp.StatusCode {
	case 404, 503:
		if !mutable {
			return fmt.Errorf("GET %s: %d for a file that never changes", name, resp.StatusCode)
		}
		io.Copy(io.Discard, resp.Body)
		st.gone.Add(1)
		return nil
	case 200, 206:
	case 416:
		io.Copy(io.Discard, resp.Body)
		return nil // a range past the end of a small version
	default:
		return fmt.Errorf("GET %s: status %d", name, resp.StatusCode)
	}
	if req.Method == "HEAD" {
		return nil
	}
	data := s.version(resp.Header.Get("Etag"))
	if data == nil {
		return fmt.Errorf("GET %s: ETag %s names no version written", name, resp.Header.Get("Etag"))
	}
	var n int64
	if resp.StatusCode == 200 {
		// Compared as it arrives: large bodies are not held in memory.
		n, err = compareStream(resp.Body, data)
	} else {
		var body []byte
		body, err = io.ReadAll(resp.Body)
		n = int64(len(body))
		if err == nil {
			err = verifyBody(resp, body, data)
		}
	}
	if err != nil {
		return fmt.Errorf("GET %s %q: %v", name, req.Header.Get("Range"), err)
	}
	if n != resp.ContentLength {
		return fmt.Errorf("GET %s: %d body bytes, Content-Length %d", name, n, resp.ContentLength)
	}
	st.bodies.Add(1)
	st.bytes.Add(n)
	return nil
}

// compareStream reads r to its end and checks it is exactly data.
func compareStream(r io.Reader, data []byte) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			if n+int64(k) > int64(len(data)) || !bytes.Equal(buf[:k], data[n:n+int64(k)]) {
				return n, fmt.Errorf("a 200 body differs from the version its ETag names at byte %d", n)
			}
			n += int64(k)
		}
		if err == io.EOF {
			if n != int64(len(data)) {
				return n, fmt.Errorf("a 200 body of %d bytes for a version of %d", n, len(data))
			}
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("body: %v after %d bytes", err, n)
		}
	}
}

// verifyBody checks a 200 or 206 body against the version data.
func verifyBody(resp *http.Response, body, data []byte) error {
	if resp.StatusCode == 200 {
		if !bytes.Equal(body, data) {
			return fmt.Errorf("a 200 of %d bytes that is not the %d-byte version its ETag names", len(body), len(data))
		}
		return nil
	}
	span := func(cr string, b []byte) error {
		var first, last, size int64
		if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &first, &last, &size); err != nil {
			return fmt.Errorf("Content-Range %q", cr)
		}
		if size != int64(len(data)) || last >= size || !bytes.Equal(b, data[first:last+1]) {
			return fmt.Errorf("part %q is not the version's bytes", cr)
		}
		return nil
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		return span(resp.Header.Get("Content-Range"), body)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(p)
		if err := span(p.Header.Get("Content-Range"), b); err != nil {
			return err
		}
	}
}

// abort starts a download on a connection of its own, reads part of it and
// hangs up.
func (s *soakSite) abort(srv *httptest.Server, name string, rng *rand.Rand, st *soakStats) error {
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, get11("/"+name)); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return fmt.Errorf("aborted download of %s: %v", name, err)
	}
	want := rng.Int64N(resp.ContentLength)
	got, _ := io.CopyN(io.Discard, resp.Body, want)
	if got != want {
		return fmt.Errorf("aborted download of %s: %d of the first %d bytes", name, got, want)
	}
	st.aborts.Add(1)
	return nil
}

// procStatus reads a "kB" field of /proc/self/status, in KiB; 0 where there
// is none.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
