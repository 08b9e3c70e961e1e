package jaws_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// The hashed names of HashName, and what a request for one reads (SECURITY.md,
// "No read amplification"). Not parallel: rchar counts the whole process.

const (
	// hashedLarge is the large file of these tests: sparse, so it costs no
	// disk space, and its reads are as real as any. Eight times
	// hashOnRequestMax and hashedReadLimit, so that reading it once where
	// a test allows none, or twice where it allows once, is far over
	// their bounds; no more, as every byte of it is hashed, sent and read.
	hashedLarge = 8 << 20
	// hashedReadLimit is what a request for a hashed name of a file whose
	// hash is not known may read: the 512 bytes of sniffing when its entry
	// is built, the request and the response, far below it.
	hashedReadLimit = 1 << 20
	// wrongHash is nobody's hash.
	wrongHash = "0123456789abcdef"
	// immutable is the Cache-Control of a hashed name.
	immutable = "public, max-age=31536000, immutable"
)

// sparseFile makes name a file of size zero bytes that takes no disk space.
func sparseFile(t *testing.T, site *testsite.Site, name string, size int64) {
	t.Helper()
	site.File(name, nil)
	if err := os.Truncate(site.Path(name), size); err != nil {
		t.Fatal(err)
	}
}

// TestHashedNameWrongHashReadsLittle: a request with a wrong hash for a
// large file (hashedLarge), in either shape of hashed name, by GET or HEAD,
// on every transfer path, reads at most 1 MiB, and so does the next one
// (before, each read the whole file to hash it).
func TestHashedNameWrongHashReadsLittle(t *testing.T) {
	site := testsite.New(t)
	sparseFile(t, site, "movie.mp4", hashedLarge)
	sparseFile(t, site, "disk.iso", hashedLarge)
	for _, c := range []struct {
		name   string
		opts   jaws.Options
		kind   testsite.Kind
		method string
		target string
	}{
		{"get/name.hash.ext", jaws.Options{}, testsite.HTTP1, "GET", "/movie." + wrongHash + ".mp4"},
		{"head/name.hash.ext", jaws.Options{}, testsite.HTTP1, "HEAD", "/movie." + wrongHash + ".mp4"},
		{"get/name.hash", jaws.Options{}, testsite.HTTP1, "GET", "/disk.iso." + wrongHash},
		{"head/name.hash", jaws.Options{}, testsite.HTTP1, "HEAD", "/disk.iso." + wrongHash},
		{"zerocopy", jaws.Options{Transfer: jaws.TransferZeroCopy}, testsite.HTTP1, "GET", "/movie." + wrongHash + ".mp4"},
		{"fallback", jaws.Options{Transfer: jaws.TransferFallback}, testsite.HTTP1, "GET", "/disk.iso." + wrongHash},
		{"no-cache", jaws.Options{CacheMaxBytes: -1}, testsite.HTTP1, "GET", "/movie." + wrongHash + ".mp4"},
		{"h2", jaws.Options{}, testsite.HTTP2, "GET", "/disk.iso." + wrongHash},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := testsite.Start(t, c.kind, newHandler(t, site.Root, c.opts))
			for i := range 2 { // the second finds the entry cached, or not (no-cache)
				before := rchar(t)
				resp, body := s.Do(t, s.NewRequest(t, c.method, c.target))
				read := rchar(t) - before
				t.Logf("request %d: %d, %d body bytes, read %d", i+1, resp.StatusCode, len(body), read)
				if resp.StatusCode != 404 {
					t.Errorf("request %d: %d, want 404", i+1, resp.StatusCode)
				}
				if read > hashedReadLimit {
					t.Errorf("request %d read %d bytes of a %d-byte file for a %d-byte 404; want at most %d",
						i+1, read, hashedLarge, len(body), hashedReadLimit)
				}
			}
		})
	}
}

// TestHashedNameGrowingFile: a file appended to between requests is a new
// version for each; a wrong-hash request for it reads no more than for a
// file at rest (before, every request read the whole file again). A file
// up to the bound below which a request may hash it reads at most that
// bound per version.
func TestHashedNameGrowingFile(t *testing.T) {
	for _, c := range []struct {
		name  string
		size  int64
		limit int64
	}{
		{"large", hashedLarge, hashedReadLimit},
		{"768KiB", 768 << 10, 1<<20 + 64<<10}, // hashed on request: the bound, plus the request
	} {
		t.Run(c.name, func(t *testing.T) {
			site := testsite.New(t)
			sparseFile(t, site, "log.bin", c.size)
			h := newHandler(t, site.Root, jaws.Options{})
			s := testsite.Start(t, testsite.HTTP1, h)
			f, err := os.OpenFile(site.Path("log.bin"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for i := range 4 {
				if _, err := f.Write([]byte("x")); err != nil {
					t.Fatal(err)
				}
				before := rchar(t)
				resp, _ := s.Get(t, "/log."+wrongHash+".bin")
				read := rchar(t) - before
				t.Logf("request %d: %d, read %d", i+1, resp.StatusCode, read)
				if resp.StatusCode != 404 {
					t.Errorf("request %d: %d, want 404", i+1, resp.StatusCode)
				}
				if read > c.limit {
					t.Errorf("request %d after an append read %d bytes; want at most %d", i+1, read, c.limit)
				}
			}
		})
	}
}

// TestHashedNameClientGone: a client that sends a wrong-hash request for a
// large file and goes away at once leaves nothing to read behind it (before,
// the server read the whole file after the client had gone). The server's
// handler is waited for, so every byte it read is counted.
func TestHashedNameClientGone(t *testing.T) {
	for _, c := range []struct {
		name, method, target string
	}{
		{"get/name.hash.ext", "GET", "/movie." + wrongHash + ".mp4"},
		{"head/name.hash", "HEAD", "/movie.mp4." + wrongHash},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := testsite.New(t)
			sparseFile(t, site, "movie.mp4", hashedLarge)
			h := newHandler(t, site.Root, jaws.Options{})
			done := make(chan struct{}, 1)
			s := testsite.Start(t, testsite.HTTP1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r)
				done <- struct{}{}
			}))
			// The client goes once its request is on the wire: its
			// connection cancels the request and closes as soon as the
			// request's bytes are in the socket. (httptrace's WroteRequest
			// comes before the transport flushes them: a cancel there can
			// leave the server no request, and no handler to wait for.)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tr := s.Client.Transport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := new(net.Dialer).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return cancelOnWrite{c, cancel}, nil
			}
			req := s.NewRequest(t, c.method, c.target).WithContext(ctx)
			before := rchar(t)
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err == nil {
				resp.Body.Close() // the answer was quicker than the close
			}
			select {
			case <-done:
			case <-time.After(time.Minute): // a failure, not a pause: the handler returns at once
				t.Fatal("the handler did not return")
			}
			read := rchar(t) - before
			t.Logf("client gone (%v); the server read %d bytes", err, read)
			if read > hashedReadLimit {
				t.Errorf("read %d bytes for a client that had gone; want at most %d", read, hashedReadLimit)
			}
		})
	}
}

// cancelOnWrite is a client connection that cancels its request, and
// closes, once it has written to the socket: the client of a request that
// goes at once.
type cancelOnWrite struct {
	net.Conn
	cancel context.CancelFunc
}

func (c cancelOnWrite) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.cancel()
	c.Conn.Close()
	return n, err
}

// TestHashNameLargeFile: HashName reads a large file without a digest
// sibling once per version; a request for the name it returns is then
// served immutable and reads what it sends, whether the file's entry is
// still cached or not (CacheMaxBytes: 1 keeps none: every request builds
// its entry anew, as after an eviction).
func TestHashNameLargeFile(t *testing.T) {
	const allowance = 256 << 10 // requests, responses, sniffing
	for _, c := range []struct {
		name string
		opts jaws.Options
	}{
		{"cached", jaws.Options{}},
		{"evicted", jaws.Options{CacheMaxBytes: 1}},
		{"no-cache", jaws.Options{CacheMaxBytes: -1}},
		{"fallback-evicted", jaws.Options{CacheMaxBytes: 1, Transfer: jaws.TransferFallback}},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := testsite.New(t)
			sparseFile(t, site, "media/movie.mp4", hashedLarge)
			h := newHandler(t, site.Root, c.opts)
			s := testsite.Start(t, testsite.HTTP1, h)
			before := rchar(t)
			name, err := h.HashName("media/movie.mp4")
			if err != nil {
				t.Fatal(err)
			}
			read := rchar(t) - before
			t.Logf("HashName: read %d", read)
			if read > hashedLarge+allowance {
				t.Errorf("HashName read %d bytes of a %d-byte file; want it once", read, hashedLarge)
			}
			before = rchar(t)
			if again, err := h.HashName("/media/movie.mp4"); err != nil || again != name {
				t.Errorf("HashName again: %q, %v; want %q", again, err, name)
			}
			read = rchar(t) - before
			t.Logf("HashName again: read %d", read)
			if read > allowance {
				t.Errorf("HashName of the same version read %d bytes; want it known", read)
			}
			if !strings.HasPrefix(name, "media/movie.") || !strings.HasSuffix(name, ".mp4") {
				t.Fatalf("HashName = %q", name)
			}
			for _, r := range []struct {
				method, rng string
				status      int
				sent        int64
			}{
				{"HEAD", "", 200, 0},
				{"GET", "bytes=0-1023", 206, 1024},
				{"GET", "", 200, hashedLarge},
			} {
				if r.sent == hashedLarge && c.name == "evicted" {
					// Not on zero-copy with a cache that keeps nothing:
					// store.build can lose the shared descriptor to the
					// cache's rejection of the entry (a race of its own,
					// not of hashing); fallback-evicted sends it whole.
					continue
				}
				req := s.NewRequest(t, r.method, "/"+name)
				if r.rng != "" {
					req.Header.Set("Range", r.rng)
				}
				before := rchar(t)
				resp, body := s.Do(t, req)
				read := rchar(t) - before
				t.Logf("%s %s %q: %d, read %d", r.method, name, r.rng, resp.StatusCode, read)
				if resp.StatusCode != r.status || int64(len(body)) != r.sent {
					t.Errorf("%s %q: %d with %d bytes, want %d with %d", r.method, r.rng, resp.StatusCode, len(body), r.status, r.sent)
				}
				if cc := resp.Header.Get("Cache-Control"); cc != immutable {
					t.Errorf("%s %q: Cache-Control %q", r.method, r.rng, cc)
				}
				if read > 2*r.sent+allowance { // the client, in this process too, reads the body once more
					t.Errorf("%s %q read %d bytes to send %d; want at most twice that plus %d", r.method, r.rng, read, r.sent, allowance)
				}
			}
			if c.opts.CacheMaxBytes == 1 {
				if st := h.Stats(); st.CacheBytes != 0 {
					t.Errorf("the cache holds %d bytes; this case wants no entry kept", st.CacheBytes)
				}
			}
		})
	}
}

// TestHashNameRewrite: a file rewritten after HashName is a new version:
// its old hashed name is 404 without reading the file, even when the
// rewrite kept size and mtime, and its new one is served once HashName has
// read the new bytes.
func TestHashNameRewrite(t *testing.T) {
	for _, c := range []struct {
		name    string
		rewrite func(t *testing.T, site *testsite.Site)
	}{
		{"in-place-same-mtime", func(t *testing.T, site *testsite.Site) {
			p := site.Path("movie.mp4")
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteAt([]byte("x"), hashedLarge/2)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Chtimes(p, info.ModTime(), info.ModTime())
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed-over", func(t *testing.T, site *testsite.Site) {
			sparseFile(t, site, "new.tmp", hashedLarge)
			f, err := os.OpenFile(site.Path("new.tmp"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteAt([]byte("y"), 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(site.Path("new.tmp"), site.Path("movie.mp4"))
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := testsite.New(t)
			sparseFile(t, site, "movie.mp4", hashedLarge)
			h := newHandler(t, site.Root, jaws.Options{CacheMaxBytes: 1}) // no entry keeps the hash
			s := testsite.Start(t, testsite.HTTP1, h)
			old, err := h.HashName("movie.mp4")
			if err != nil {
				t.Fatal(err)
			}
			if resp, _ := s.Do(t, s.NewRequest(t, "HEAD", "/"+old)); resp.StatusCode != 200 {
				t.Fatalf("HEAD %s before the rewrite: %d", old, resp.StatusCode)
			}
			c.rewrite(t, site)
			for _, method := range []string{"HEAD", "GET"} {
				before := rchar(t)
				resp, _ := s.Do(t, s.NewRequest(t, method, "/"+old))
				read := rchar(t) - before
				t.Logf("%s %s after the rewrite: %d, read %d", method, old, resp.StatusCode, read)
				if resp.StatusCode != 404 || resp.Header.Get("Cache-Control") != "" {
					t.Errorf("%s %s after the rewrite: %d, Cache-Control %q; want 404 and none", method, old, resp.StatusCode, resp.Header.Get("Cache-Control"))
				}
				if read > hashedReadLimit {
					t.Errorf("%s %s after the rewrite read %d bytes; want at most %d", method, old, read, hashedReadLimit)
				}
			}
			cur, err := h.HashName("movie.mp4")
			if err != nil || cur == old {
				t.Fatalf("HashName after the rewrite: %q, %v (before: %q)", cur, err, old)
			}
			if resp, _ := s.Do(t, s.NewRequest(t, "HEAD", "/"+cur)); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != immutable {
				t.Errorf("HEAD %s: %d, Cache-Control %q", cur, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
			if resp, _ := s.Do(t, s.NewRequest(t, "HEAD", "/"+old)); resp.StatusCode != 404 {
				t.Errorf("HEAD %s, the old name: %d", old, resp.StatusCode)
			}
		})
	}
}
