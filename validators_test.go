package jaws_test

// The validators of files sent from disk: built from size and mtime at no
// cost in reads, or from a digest sibling; and those of files in memory,
// their content's, unchanged.

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestETagOfMemoryFilesUnchanged: files served from memory keep the content
// ETag they had before disk files got metadata validators, byte for byte.
func TestETagOfMemoryFilesUnchanged(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	s := testsite.Start(t, testsite.HTTP1, newHandler(t, site.Root, jaws.Options{}))
	for name, want := range map[string]string{
		// Recorded from the release before this change.
		"small.txt": `"hNiYd_DUBB77a_kaFvAkjw"`,
		"empty.txt": `"47DEQpj8HBSa-_TImW-5JA"`,
		"k1.bin":    contentTag(site.data["k1.bin"]),
	} {
		if got := etagOf(t, s, "/"+name); got != want {
			t.Errorf("%s: ETag %s, want %s", name, got, want)
		}
	}
}

// TestETagOnEveryPath: a file sent from disk has its metadata ETag on every
// transfer path and answer (200, HEAD, 206, 304, 412), and every
// precondition compares with it.
func TestETagOnEveryPath(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	data := testsite.Random(2<<20, 5)
	site.FileAt("big.bin", data, diffMtime.Add(123456789))
	tag := metaTag(t, site.Path("big.bin"))
	other := `"` + strings.Repeat("x", 22) + `"`
	for _, c := range []struct {
		name string
		opts jaws.Options
		kind testsite.Kind
		path string // the Stats path expected to serve a GET
	}{
		{"zerocopy", jaws.Options{Transfer: jaws.TransferZeroCopy}, testsite.HTTP1, "zerocopy"},
		{"fallback", jaws.Options{Transfer: jaws.TransferFallback}, testsite.HTTP1, "fallback"},
		{"tls", jaws.Options{}, testsite.TLS1, "fallback"},
		{"h2", jaws.Options{}, testsite.HTTP2, "fallback"},
		{"no-cache", jaws.Options{CacheMaxBytes: -1}, testsite.HTTP1, "zerocopy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHandler(t, site.Root, c.opts)
			s := testsite.Start(t, c.kind, h)
			for _, r := range []struct {
				method string
				header []string
				status int
				body   []byte
			}{
				{"GET", nil, 200, data},
				{"HEAD", nil, 200, nil},
				{"GET", []string{"Range", "bytes=10-19"}, 206, data[10:20]},
				{"GET", []string{"If-None-Match", tag}, 304, nil},
				{"GET", []string{"If-None-Match", "W/" + tag}, 304, nil},
				{"HEAD", []string{"If-None-Match", tag}, 304, nil},
				{"GET", []string{"If-None-Match", other}, 200, data},
				{"GET", []string{"If-Match", tag}, 200, data},
				{"GET", []string{"If-Match", other}, 412, nil},
				{"GET", []string{"Range", "bytes=10-19", "If-Range", tag}, 206, data[10:20]},
				{"GET", []string{"Range", "bytes=10-19", "If-Range", other}, 200, data},
				{"GET", []string{"Range", "bytes=10-19", "If-Range", "W/" + tag}, 200, data}, // §13.1.5: strong only
			} {
				resp, body := s.Do(t, s.NewRequest(t, r.method, "/big.bin", r.header...))
				if resp.StatusCode != r.status || !bytes.Equal(body, r.body) {
					t.Errorf("%s %q: %d with %d bytes, want %d with %d", r.method, r.header, resp.StatusCode, len(body), r.status, len(r.body))
				}
				if got := resp.Header.Get("Etag"); r.status != 412 && got != tag {
					t.Errorf("%s %q: ETag %s, want %s", r.method, r.header, got, tag)
				}
			}
			st := h.Stats()
			served := map[string]uint64{"zerocopy": st.ZeroCopy.Responses, "fallback": st.Fallback.Responses}
			if served[c.path] == 0 {
				t.Errorf("no response took the %s path: %+v", c.path, st)
			}
		})
	}
}

// TestETagFollowsRewrites: an in-place rewrite or a replacement that changes
// size or mtime changes the ETag, and the old one no longer validates.
func TestETagFollowsRewrites(t *testing.T) {
	t.Parallel()
	a, b := testsite.Random(1<<20, 1), testsite.Random(1<<20, 2)
	for _, c := range []struct {
		name   string
		change func(s *testsite.Site)
	}{
		{"size", func(s *testsite.Site) { s.FileAt("f.bin", a[1:], diffMtime) }},
		{"mtime-1ns", func(s *testsite.Site) { s.FileAt("f.bin", b, diffMtime.Add(time.Nanosecond)) }},
		{"touch", func(s *testsite.Site) { s.Chtime("f.bin", diffMtime.Add(time.Second)) }},
		{"rename-over", func(s *testsite.Site) { s.Replace("f.bin", b) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			site := testsite.New(t).FileAt("f.bin", a, diffMtime)
			h := newHandler(t, site.Root, jaws.Options{})
			s := testsite.Start(t, testsite.HTTP1, h)
			before := etagOf(t, s, "/f.bin")
			c.change(site)
			after := etagOf(t, s, "/f.bin")
			if after == before || after != metaTag(t, site.Path("f.bin")) {
				t.Errorf("ETag %s before, %s after; want a new one, %s", before, after, metaTag(t, site.Path("f.bin")))
			}
			if resp, _ := s.Get(t, "/f.bin", "If-None-Match", before); resp.StatusCode != 200 {
				t.Errorf("If-None-Match with the old ETag: %d, want 200", resp.StatusCode)
			}
			if resp, _ := s.Get(t, "/f.bin", "Range", "bytes=0-0", "If-Range", before); resp.StatusCode != 200 {
				t.Errorf("If-Range with the old ETag: %d, want 200", resp.StatusCode)
			}
			if resp, _ := s.Get(t, "/f.bin", "If-Match", before); resp.StatusCode != 412 {
				t.Errorf("If-Match with the old ETag: %d, want 412", resp.StatusCode)
			}
		})
	}
}

// TestETagBlindSpot documents the one change a metadata ETag cannot see:
// other bytes of the same size with the mtime restored. jaws still serves
// the new bytes (the entry follows ctime and inode), under the old ETag; a
// digest sibling, written with the new bytes, closes the gap.
func TestETagBlindSpot(t *testing.T) {
	t.Parallel()
	a, b := testsite.Random(1<<20, 1), testsite.Random(1<<20, 2)
	for _, withSibling := range []bool{false, true} {
		t.Run(fmt.Sprint("sibling=", withSibling), func(t *testing.T) {
			t.Parallel()
			site := testsite.New(t).FileAt("f.bin", a, diffMtime)
			if withSibling {
				site.FileAt("f.bin.sha256", sha256sumLine(a, "f.bin"), diffMtime)
			}
			s := testsite.Start(t, testsite.HTTP1, newHandler(t, site.Root, jaws.Options{}))
			before := etagOf(t, s, "/f.bin")
			site.FileAt("f.bin", b, diffMtime)
			if withSibling {
				site.FileAt("f.bin.sha256", sha256sumLine(b, "f.bin"), diffMtime)
			}
			resp, body := s.Get(t, "/f.bin")
			if !bytes.Equal(body, b) {
				t.Fatalf("old bytes served after the rewrite")
			}
			if same := resp.Header.Get("Etag") == before; same == withSibling {
				t.Errorf("ETag %s before, %s after the rewrite", before, resp.Header.Get("Etag"))
			}
		})
	}
}

// TestDigestSibling: a digest sibling in sha256sum's format, not older than
// its file, gives a file sent from disk its content ETag (the one the same
// bytes have in memory) and a Repr-Digest (RFC 9530) on 200, 206 and HEAD.
// A stale, malformed or misnamed one is ignored and logged.
func TestDigestSibling(t *testing.T) {
	t.Parallel()
	data := testsite.Random(1<<20, 7)
	sum := sha256.Sum256(data)
	digest := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	hexSum := hex.EncodeToString(sum[:])
	for _, c := range []struct {
		name    string
		sibling string
		age     time.Duration // sibling's mtime relative to the file's
		trusted bool
		logged  bool
	}{
		{"sha256sum", hexSum + "  v.mp4\n", 0, true, false},
		{"binary-mode", hexSum + " *v.mp4\n", 0, true, false},
		{"path", hexSum + "  dist/media/v.mp4\n", time.Hour, true, false},
		{"digits-only", hexSum, 0, true, false},
		{"upper-case", strings.ToUpper(hexSum) + "  v.mp4\r\n", 0, true, false},
		{"older", hexSum + "  v.mp4\n", -time.Second, false, true},
		{"other-name", hexSum + "  w.mp4\n", 0, false, true},
		{"short", hexSum[:63] + "  v.mp4\n", 0, false, true},
		{"not-hex", "z" + hexSum[1:] + "  v.mp4\n", 0, false, true},
		{"one-space", hexSum + " v.mp4\n", 0, false, true},
		{"empty", "", 0, false, true},
		{"wrong-sum", strings.Repeat("0", 64) + "  v.mp4\n", 0, true, false}, // believed: it is the deploy's word
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			site := testsite.New(t).FileAt("v.mp4", data, diffMtime)
			site.FileAt("v.mp4.sha256", []byte(c.sibling), diffMtime.Add(c.age))
			var logs testsite.SyncBuffer
			h := newHandler(t, site.Root, jaws.Options{ErrorLog: log.New(&logs, "", 0)})
			s := testsite.Start(t, testsite.HTTP1, h)
			wantTag, wantDigest := metaTag(t, site.Path("v.mp4")), ""
			if c.trusted {
				hs, _ := hex.DecodeString(strings.ToLower(c.sibling[:64]))
				wantTag = `"` + base64.RawURLEncoding.EncodeToString(hs[:16]) + `"`
				wantDigest = "sha-256=:" + base64.StdEncoding.EncodeToString(hs) + ":"
				if c.name != "wrong-sum" && (wantTag != contentTag(data) || wantDigest != digest) {
					t.Fatalf("test bug: %s %s", wantTag, wantDigest)
				}
			}
			for _, r := range []struct {
				method string
				header []string
				status int
			}{
				{"GET", nil, 200},
				{"HEAD", nil, 200},
				{"GET", []string{"Range", "bytes=0-9"}, 206},
				{"GET", []string{"Range", "bytes=0-9", "If-Range", wantTag}, 206},
				{"GET", []string{"If-None-Match", wantTag}, 304},
			} {
				resp, _ := s.Do(t, s.NewRequest(t, r.method, "/v.mp4", r.header...))
				if resp.StatusCode != r.status {
					t.Errorf("%s %q: %d, want %d", r.method, r.header, resp.StatusCode, r.status)
				}
				if got := resp.Header.Get("Etag"); got != wantTag {
					t.Errorf("%s %q: ETag %s, want %s", r.method, r.header, got, wantTag)
				}
				want := wantDigest
				if r.status == 304 {
					want = "" // representation metadata, not sent with a 304 (§15.4.5)
				}
				if got := resp.Header.Get("Repr-Digest"); got != want {
					t.Errorf("%s %q: Repr-Digest %q, want %q", r.method, r.header, got, want)
				}
			}
			if got := strings.Contains(logs.String(), "v.mp4.sha256"); got != c.logged {
				t.Errorf("logged %v, want %v: %q", got, c.logged, logs.String())
			}
		})
	}
}

// TestDigestSiblingNotForMemoryFiles: a file served from memory has its own
// hash; its sibling is not even looked at, and no Repr-Digest is added to
// small responses.
func TestDigestSiblingNotForMemoryFiles(t *testing.T) {
	t.Parallel()
	data := []byte("small file\n")
	site := testsite.New(t).FileAt("s.txt", data, diffMtime)
	site.FileAt("s.txt.sha256", []byte(strings.Repeat("0", 64)+"  s.txt\n"), diffMtime)
	s := testsite.Start(t, testsite.HTTP1, newHandler(t, site.Root, jaws.Options{}))
	resp, _ := s.Get(t, "/s.txt")
	if got := resp.Header.Get("Etag"); got != contentTag(data) {
		t.Errorf("ETag %s, want %s", got, contentTag(data))
	}
	if got := resp.Header.Get("Repr-Digest"); got != "" {
		t.Errorf("Repr-Digest %q on a file in memory", got)
	}
}

// TestConcurrentFirstRequestsLargeFile: many first requests for a large file
// at once are all answered, each with the same ETag; none waits on a read of
// the whole file (TestFirstRequestReadsLittle counts the bytes).
func TestConcurrentFirstRequestsLargeFile(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	data := testsite.Random(4<<20, 3)
	site.FileAt("l.bin", data, diffMtime)
	s := testsite.Start(t, testsite.HTTP1, newHandler(t, site.Root, jaws.Options{}))
	want := metaTag(t, site.Path("l.bin"))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			resp, body := s.Get(t, "/l.bin", "Range", "bytes=100-199")
			if resp.StatusCode != 206 || !bytes.Equal(body, data[100:200]) || resp.Header.Get("Etag") != want {
				t.Errorf("%d, %d bytes, ETag %s", resp.StatusCode, len(body), resp.Header.Get("Etag"))
			}
		})
	}
	wg.Wait()
}

// metaTag is the ETag of a file sent from disk, worked out independently of
// the package: mtime in nanoseconds and size, in hex.
func metaTag(t *testing.T, path string) string {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`"%x.%x"`, info.ModTime().UnixNano(), info.Size())
}
