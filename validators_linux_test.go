package jaws_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// rchar is what this process has read so far, by /proc/self/io: every byte
// through read, pread and sendfile, from the page cache or the disk.
func rchar(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no rchar in /proc/self/io")
	return 0
}

// TestFirstRequestReadsLittle: the first request for a large file reads
// what it sends plus at most the sniffing read-ahead, on every path, however
// large the file: no hash of the whole file in the request path (before,
// a 1-byte range of a 1 GiB file read 1 GiB). Not parallel: rchar counts
// the whole process.
func TestFirstRequestReadsLittle(t *testing.T) {
	const size = 1 << 30              // sparse: no disk space, and reads are as real as any
	const allowance = 1<<20 + 256<<10 // read-ahead, plus requests, responses and TLS
	site := testsite.New(t)
	f, err := os.Create(site.Path("huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		name   string
		opts   jaws.Options
		kind   testsite.Kind
		method string
		rng    string
		sent   int64
	}{
		{"zerocopy-1k", jaws.Options{Transfer: jaws.TransferZeroCopy}, testsite.HTTP1, "GET", "bytes=0-1023", 1024},
		{"auto-1byte", jaws.Options{}, testsite.HTTP1, "GET", "bytes=0-0", 1},
		{"fallback-tail", jaws.Options{Transfer: jaws.TransferFallback}, testsite.HTTP1, "GET", "bytes=-1024", 1024},
		{"auto-8m", jaws.Options{}, testsite.HTTP1, "GET", "bytes=0-8388607", 8 << 20},
		{"tls-1k", jaws.Options{}, testsite.TLS1, "GET", "bytes=0-1023", 1024},
		{"h2-multipart", jaws.Options{}, testsite.HTTP2, "GET", "bytes=0-9,500000000-500000009", 20},
		{"head", jaws.Options{}, testsite.HTTP1, "HEAD", "", 0},
		{"no-cache", jaws.Options{CacheMaxBytes: -1}, testsite.HTTP1, "GET", "bytes=0-1023", 1024},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := testsite.Start(t, c.kind, newHandler(t, site.Root, c.opts))
			req := s.NewRequest(t, c.method, "/huge.bin")
			if c.rng != "" {
				req.Header.Set("Range", c.rng)
			}
			before := rchar(t)
			resp, body := s.Do(t, req)
			read := rchar(t) - before
			if resp.StatusCode/100 != 2 || resp.Header.Get("Etag") == "" {
				t.Fatalf("%d, ETag %q", resp.StatusCode, resp.Header.Get("Etag"))
			}
			if c.method == "GET" && !bytes.Contains(body, make([]byte, min(c.sent, 10))) {
				t.Fatalf("body of %d bytes", len(body))
			}
			t.Logf("sent %d bytes, read %d", c.sent, read)
			if read > 2*c.sent+allowance { // the client, in this process too, reads the body once more
				t.Errorf("read %d bytes to send %d of a %d-byte file; want at most twice that plus %d", read, c.sent, int64(size), allowance)
			}
		})
	}
}
