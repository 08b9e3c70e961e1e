package jaws_test

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// The helpers shared by the external tests (package jaws_test), which use
// jaws as applications do. A helper only one test file uses stays in that
// file; the internal tests have theirs in helpers_test.go. Directory trees
// and servers come from internal/testsite.

// Handlers: by jaws.New, or by jaws.NewFS with JAWS_TEST_SOURCE=dirfs.

// fsSource is set by JAWS_TEST_SOURCE=dirfs: the suite's handlers are then
// made by jaws.NewFS over os.DirFS of the directory, not by jaws.New, so the
// same tests prove NewFS behaves as New does (.ci/run runs both).
var fsSource = os.Getenv("JAWS_TEST_SOURCE") == "dirfs"

// rootOnly skips a test of what only New gives: os.Root's containment, which
// os.DirFS does not have (it follows symlinks out of its directory).
func rootOnly(t *testing.T) {
	t.Helper()
	if fsSource {
		t.Skip("os.Root containment: jaws.New only")
	}
}

// newHandler returns a jaws handler for root, closed when the test ends.
func newHandler(t testing.TB, root string, opts jaws.Options) *jaws.Handler {
	t.Helper()
	var h *jaws.Handler
	var err error
	if fsSource {
		h, err = jaws.NewFS(os.DirFS(root), opts)
	} else {
		h, err = jaws.New(root, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	testsite.Made(t, h)
	return h
}

// embedded is testdata/embedsite, as a program embeds its site
// (ExampleNewFS serves it).
//
//go:embed testdata/embedsite
var embedded embed.FS

// newFSHandler returns jaws.NewFS(fsys, opts), closed when the test ends.
func newFSHandler(t testing.TB, fsys fs.FS, opts jaws.Options) *jaws.Handler {
	t.Helper()
	h, err := jaws.NewFS(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	testsite.Made(t, h)
	return h
}

// zeroCopied is h's count of zero-copy responses once it is at least want,
// or after five seconds. A transfer is counted when it ends, which is just
// after its client has read the last byte: a test that reads a count once
// its client has the body polls for it.
func zeroCopied(h *jaws.Handler, want uint64) uint64 {
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if n := h.Stats().ZeroCopy.Responses; n >= want || time.Now().After(end) {
			return n
		}
	}
}

// mapFS copies the files under dir into an fstest.MapFS, mtimes and modes
// included.
func mapFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f := &fstest.MapFile{Mode: info.Mode(), ModTime: info.ModTime()}
		if !d.IsDir() {
			if f.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		m[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Sites and servers.

// diffMtime is the mtime of most files of the differential site.
var diffMtime = time.Date(2024, time.March, 4, 5, 6, 7, 0, time.UTC)

// eachKind serves h over every server kind and runs f for each in a
// parallel subtest.
func eachKind(t *testing.T, h http.Handler, f func(t *testing.T, s *testsite.Server)) {
	t.Helper()
	for _, k := range testsite.Kinds {
		s := testsite.Start(t, k, h)
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			f(t, s)
		})
	}
}

// rfcSite is the tree most tests here serve, with its files' contents.
type rfcSite struct {
	*testsite.Site
	data map[string][]byte
}

// newRFCSite writes the RFC tests' files, all with mtime diffMtime.
func newRFCSite(t *testing.T) rfcSite {
	s := rfcSite{testsite.New(t), map[string][]byte{
		"empty.txt": {},
		"small.txt": []byte("0123456789"),
		"k1.bin":    testsite.Random(1<<10, 11),
		"k64.bin":   testsite.Random(jaws.DefaultCacheMaxFileSize+1, 12), // the smallest sent from disk
		"m1.bin":    testsite.Random(1<<20, 13),
	}}
	for name, b := range s.data {
		s.FileAt(name, b, diffMtime)
	}
	return s
}

// etagOf GETs target and returns its ETag, failing unless it is there.
func etagOf(t *testing.T, s *testsite.Server, target string) string {
	t.Helper()
	resp, _ := s.Get(t, target)
	etag := resp.Header.Get("Etag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("GET %s: %d, ETag %q", target, resp.StatusCode, etag)
	}
	return etag
}

// withPrefix serves h at the root and, behind http.StripPrefix, at /static.
func withPrefix(h http.Handler) http.Handler {
	strip := http.StripPrefix("/static", h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static") {
			strip.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Responses.

// httpDate formats t as HTTP dates are (RFC 9110 §5.6.7).
func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// compareResponses reports where jaws's response (jr, jb) differs from
// net/http's (sr, sb).
func compareResponses(t *testing.T, method string, jr *http.Response, jb []byte, sr *http.Response, sb []byte) {
	t.Helper()
	if jr.StatusCode != sr.StatusCode {
		t.Fatalf("status: jaws %d, net/http %d\njaws body: %.200q\nnet/http body: %.200q", jr.StatusCode, sr.StatusCode, jb, sb)
	}
	status := jr.StatusCode
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Range", "Location", "Last-Modified", "Accept-Ranges"} {
		jv, sv := jr.Header.Values(k), sr.Header.Values(k)
		switch {
		case k == "Last-Modified" && status == http.StatusNotModified:
			// jaws drops it because it sends an ETag (RFC 9110 §15.4.5).
			if len(jv) != 0 || jr.Header.Get("Etag") == "" {
				t.Errorf("304: jaws Last-Modified %q, ETag %q; want no Last-Modified and an ETag", jv, jr.Header.Get("Etag"))
			}
			continue
		case k == "Content-Type" && strings.HasPrefix(sr.Header.Get(k), "multipart/"):
			// The boundary is random; compare the rest.
			jt, jp := parseMediaType(t, jr.Header.Get(k))
			st, sp := parseMediaType(t, sr.Header.Get(k))
			delete(jp, "boundary")
			delete(sp, "boundary")
			if jt != st || len(jp) != len(sp) || len(jv) != 1 || len(sv) != 1 {
				t.Errorf("Content-Type: jaws %q, net/http %q", jv, sv)
			}
			continue
		}
		if strings.Join(jv, "\n") != strings.Join(sv, "\n") {
			t.Errorf("%s: jaws %q, net/http %q", k, jv, sv)
		}
	}
	if jr.ContentLength != sr.ContentLength {
		t.Errorf("ContentLength: jaws %d, net/http %d", jr.ContentLength, sr.ContentLength)
	}
	if method == http.MethodHead {
		if len(jb) != 0 || len(sb) != 0 {
			t.Errorf("HEAD bodies: jaws %d bytes, net/http %d bytes", len(jb), len(sb))
		}
		return
	}
	switch {
	case strings.HasPrefix(sr.Header.Get("Content-Type"), "multipart/byteranges"):
		jp := testsite.Parts(t, jr.Header.Get("Content-Type"), jb)
		sp := testsite.Parts(t, sr.Header.Get("Content-Type"), sb)
		if len(jp) != len(sp) {
			t.Fatalf("parts: jaws %d, net/http %d", len(jp), len(sp))
		}
		for i := range jp {
			if jp[i].ContentRange != sp[i].ContentRange || jp[i].ContentType != sp[i].ContentType || !bytes.Equal(jp[i].Body, sp[i].Body) {
				t.Errorf("part %d: jaws %q %q %d bytes, net/http %q %q %d bytes", i,
					jp[i].ContentRange, jp[i].ContentType, len(jp[i].Body),
					sp[i].ContentRange, sp[i].ContentType, len(sp[i].Body))
			}
		}
	default:
		if !bytes.Equal(jb, sb) {
			t.Errorf("body: jaws %d bytes %.80q, net/http %d bytes %.80q", len(jb), jb, len(sb), sb)
		}
	}
}

// parseMediaType parses a Content-Type value, failing the test on an error.
func parseMediaType(t *testing.T, v string) (string, map[string]string) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(v)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", v, err)
	}
	return mt, params
}

// Validators, worked out independently of the package.

// sha256sumLine is what `sha256sum name` prints for data.
func sha256sumLine(data []byte, name string) []byte {
	sum := sha256.Sum256(data)
	return []byte(hex.EncodeToString(sum[:]) + "  " + name + "\n")
}

// contentTag is the ETag of bytes in memory: the first 128 bits of their
// SHA-256, base64url.
func contentTag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// Logs.

// records collects what OnResponse hands over.
type records struct {
	mu  sync.Mutex
	all []jaws.ResponseRecord
	ch  chan jaws.ResponseRecord
}

func newRecords() *records { return &records{ch: make(chan jaws.ResponseRecord, 100)} }

func (rs *records) add(r jaws.ResponseRecord) {
	rs.mu.Lock()
	rs.all = append(rs.all, r)
	rs.mu.Unlock()
	rs.ch <- r
}

// next waits for the next record.
func (rs *records) next(t *testing.T) jaws.ResponseRecord {
	t.Helper()
	select {
	case r := <-rs.ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no record")
		return jaws.ResponseRecord{}
	}
}

// Writers.

// appendingWriter adds a value to each of the given header fields when the
// status is written, after jaws set them: what a wrapper that decorates
// responses (a tracing or security-header middleware) may do.
type appendingWriter struct {
	http.ResponseWriter
	keys []string
}

func (w appendingWriter) WriteHeader(code int) {
	for _, k := range w.keys {
		w.Header().Add(k, "added")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w appendingWriter) Write(p []byte) (int, error) { return w.ResponseWriter.Write(p) }

// Compression dictionaries.

// dictionary is the Available-Dictionary value of data.
func dictionary(data []byte) string {
	sum := sha256.Sum256(data)
	return ":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// must stops the test at an error that is not the test's subject.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
