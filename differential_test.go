package jaws_test

// Differential tests: the same request is sent to jaws and to
// http.FileServer over the same directory, over HTTP/1.1, TLS and HTTP/2,
// and the answers must agree wherever net/http is right.
//
// Known, intended differences stay out of the table below; rfc_test.go
// checks them against the RFCs instead:
//   - jaws sends a strong ETag; because of it, a 304 carries no
//     Last-Modified (RFC 9110 §15.4.5, net/http's own rule when an ETag is
//     set), so Last-Modified is not compared on 304s;
//   - methods other than GET/HEAD get 405 with Allow: GET, HEAD;
//   - dotfiles are 404; a directory without index.html is 404 (listing is
//     off by default);
//   - "bytes=-0" is 416, unknown range units are ignored (200), the unit is
//     case-insensitive, overlapping or nearby (< 256 bytes apart) ranges
//     are coalesced, more than 32 ranges are ignored, an invalid range gets
//     a Content-Range on its 416, and the cut-off for "too many small parts"
//     differs (net/http: sum of ranges > size);
//   - If-Range with a date for a file whose mtime is the Unix epoch: neither
//     sends Last-Modified for it, but net/http still matches the date
//     (206) while jaws has no date to match (200, §13.1.5);
//   - HEAD with Range: RFC 9110 §14.2 says to ignore Range on anything but
//     GET, and net/http does not, so it is not compared here.

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// diffSite builds the directory both servers serve.
func diffSite(t *testing.T) *testsite.Site {
	s := testsite.New(t)
	s.FileAt("empty.txt", nil, diffMtime)
	s.FileAt("one.txt", []byte("x"), diffMtime)
	s.FileAt("k1.bin", testsite.Random(1<<10, 1), diffMtime)
	s.FileAt("k100.bin", testsite.Random(100<<10, 2), diffMtime)
	s.FileAt("m1.bin", testsite.Random(1<<20, 3), diffMtime)
	s.FileAt("a b.txt", []byte("space in the name\n"), diffMtime)
	s.FileAt("style.css", []byte("body { color: red }\n"), diffMtime)
	s.FileAt("app.js", []byte("console.log(1)\n"), diffMtime)
	// No extension: the type is sniffed from the first 512 bytes.
	s.FileAt("page", []byte("<!DOCTYPE html><html><body>hello"+strings.Repeat("<p>paragraph</p>\n", 100)+"</body></html>\n"), diffMtime)
	s.FileAt("notes", []byte("just some text\nover two lines\n"), diffMtime)
	s.FileAt("blob", testsite.Random(600, 4), diffMtime)
	s.FileAt("png", append([]byte("\x89PNG\r\n\x1a\n"), testsite.Random(100, 5)...), diffMtime)
	// An mtime with a fraction of a second: HTTP dates have whole seconds.
	s.FileAt("frac.txt", []byte("fractional mtime\n"), diffMtime.Add(500*time.Millisecond))
	// The Unix epoch counts as "no mtime": no Last-Modified, dates ignored.
	s.FileAt("epoch.txt", []byte("epoch\n"), time.Unix(0, 0))
	s.FileAt("index.html", []byte("<h1>root</h1>\n"), diffMtime)
	s.FileAt("dir/index.html", []byte("<h1>dir</h1>\n"), diffMtime)
	s.FileAt("dir/file.txt", []byte("file in dir\n"), diffMtime)
	s.FileAt("dir/sub/index.html", []byte("<h1>sub</h1>\n"), diffMtime)
	return s
}

type diffCase struct {
	name   string
	method string   // "" is GET
	target string   // path and query
	header []string // name, value pairs
}

func diffCases() []diffCase {
	var cs []diffCase
	add := func(name, method, target string, header ...string) {
		cs = append(cs, diffCase{name, method, target, header})
	}
	// Whole files of several sizes and types, GET and HEAD.
	for _, f := range []string{
		"empty.txt", "one.txt", "k1.bin", "k100.bin", "m1.bin", "a%20b.txt",
		"style.css", "app.js", "page", "notes", "blob", "png", "frac.txt", "epoch.txt",
	} {
		add("get/"+f, "GET", "/"+f)
		add("head/"+f, "HEAD", "/"+f)
	}
	add("get/query-ignored", "GET", "/one.txt?v=1")

	// index.html for directories.
	add("index/root", "GET", "/")
	add("index/dir", "GET", "/dir/")
	add("index/sub", "GET", "/dir/sub/")
	add("index/head", "HEAD", "/dir/")
	// "/dir//" is not compared: jaws answers paths not in canonical form
	// with 404 (TestNonCanonicalPaths), http.FileServer cleans them.

	// Canonical redirects.
	add("redirect/dir", "GET", "/dir")
	add("redirect/dir-query", "GET", "/dir?q=1&r=a%20b")
	add("redirect/sub", "GET", "/dir/sub")
	add("redirect/dir-head", "HEAD", "/dir")
	add("redirect/index", "GET", "/dir/index.html")
	add("redirect/index-query", "GET", "/dir/index.html?q=1")
	add("redirect/root-index", "GET", "/index.html")
	add("redirect/file-slash", "GET", "/one.txt/")
	add("redirect/file-slash-query", "GET", "/one.txt/?q=1")
	add("redirect/dir-file-slash", "GET", "/dir/file.txt/")
	add("redirect/missing-index", "GET", "/nowhere/index.html")

	// The same behind http.StripPrefix("/static", ...).
	add("prefix/root", "GET", "/static")
	add("prefix/root-slash", "GET", "/static/")
	add("prefix/file", "GET", "/static/k1.bin")
	add("prefix/dir", "GET", "/static/dir")
	add("prefix/dir-query", "GET", "/static/dir?q=1")
	add("prefix/dir-slash", "GET", "/static/dir/")
	add("prefix/index", "GET", "/static/dir/index.html")
	add("prefix/index-query", "GET", "/static/dir/index.html?a=b")
	add("prefix/file-slash", "GET", "/static/one.txt/")
	add("prefix/range", "GET", "/static/k1.bin", "Range", "bytes=10-20")
	add("prefix/missing", "GET", "/static/missing")

	// Not found.
	add("404/missing", "GET", "/missing")
	add("404/missing-head", "HEAD", "/missing")
	add("404/missing-dir", "GET", "/missing/")
	add("404/missing-in-dir", "GET", "/dir/missing.txt")
	add("404/file-as-dir", "GET", "/one.txt/x")

	// Single ranges.
	for _, r := range []struct{ name, file, spec string }{
		{"first-byte", "k1.bin", "bytes=0-0"},
		{"middle", "k1.bin", "bytes=10-20"},
		{"suffix", "k1.bin", "bytes=-100"},
		{"open", "k1.bin", "bytes=500-"},
		{"whole", "k1.bin", "bytes=0-"},
		{"last-byte", "k1.bin", "bytes=1023-1023"},
		{"end-clipped", "k1.bin", "bytes=1000-5000"},
		{"suffix-longer-than-file", "k1.bin", "bytes=-5000"},
		{"spaces", "k1.bin", "bytes= 10-20"},
		{"one-byte-file", "one.txt", "bytes=0-0"},
		{"one-byte-file-suffix", "one.txt", "bytes=-1"},
		{"big-middle", "m1.bin", "bytes=1000-1999"},
		{"big-suffix", "m1.bin", "bytes=-1"},
		{"big-tail", "m1.bin", "bytes=1048000-"},
		{"100k-middle", "k100.bin", "bytes=4096-65535"},
		{"empty-file-ignored", "empty.txt", "bytes=0-0"},
		{"one-satisfiable-of-two", "k1.bin", "bytes=2000-3000,5-9"},
		{"empty-set-ignored", "k1.bin", "bytes="},
		{"only-commas-ignored", "k1.bin", "bytes= , ,"},
	} {
		add("range/"+r.name, "GET", "/"+r.file, "Range", r.spec)
	}

	// Multiple, well separated, ascending ranges: multipart/byteranges.
	for _, r := range []struct{ name, file, spec string }{
		{"two", "k1.bin", "bytes=0-9,500-509"},
		{"three", "k100.bin", "bytes=0-99,1000-1999,50000-50099"},
		{"suffix-last", "m1.bin", "bytes=0-0,4096-8191,-100"},
		{"open-last", "m1.bin", "bytes=0-0,4096-8191,1048000-"},
		{"sniffed", "page", "bytes=0-4,1000-1009"},
	} {
		add("multi/"+r.name, "GET", "/"+r.file, "Range", r.spec)
	}
	// HEAD with Range is not compared: §14.2 defines Range for GET only, so
	// jaws answers 200 where net/http answers 206 (TestRFC9110_14_2_RangeIgnoredForHEAD).

	// Unsatisfiable ranges: 416 with Content-Range: bytes */size.
	for _, r := range []struct{ name, file, spec string }{
		{"at-size", "k1.bin", "bytes=1024-"},
		{"beyond", "k1.bin", "bytes=2000-3000"},
		{"beyond-open", "k1.bin", "bytes=5000-"},
		{"big-at-size", "m1.bin", "bytes=1048576-"},
		{"all-beyond", "k1.bin", "bytes=2000-2001,3000-3001"},
		{"one-byte-file", "one.txt", "bytes=1-"},
	} {
		add("416/"+r.name, "GET", "/"+r.file, "Range", r.spec)
	}

	// Dates around the mtime.
	eq, before, after := httpDate(diffMtime), httpDate(diffMtime.Add(-time.Hour)), httpDate(diffMtime.Add(time.Hour))
	add("ims/equal", "GET", "/k1.bin", "If-Modified-Since", eq)
	add("ims/before", "GET", "/k1.bin", "If-Modified-Since", before)
	add("ims/after", "GET", "/k1.bin", "If-Modified-Since", after)
	add("ims/equal-head", "HEAD", "/k1.bin", "If-Modified-Since", eq)
	add("ims/before-head", "HEAD", "/k1.bin", "If-Modified-Since", before)
	add("ims/fraction-equal", "GET", "/frac.txt", "If-Modified-Since", eq)
	add("ims/epoch", "GET", "/epoch.txt", "If-Modified-Since", eq)
	add("ius/epoch", "GET", "/epoch.txt", "If-Unmodified-Since", before)
	add("ims/invalid", "GET", "/k1.bin", "If-Modified-Since", "yesterday")
	add("ims/index", "GET", "/dir/", "If-Modified-Since", eq)
	add("ims/with-range", "GET", "/k1.bin", "If-Modified-Since", eq, "Range", "bytes=0-9")
	add("ius/equal", "GET", "/k1.bin", "If-Unmodified-Since", eq)
	add("ius/before", "GET", "/k1.bin", "If-Unmodified-Since", before)
	add("ius/after", "GET", "/k1.bin", "If-Unmodified-Since", after)
	add("ius/before-head", "HEAD", "/k1.bin", "If-Unmodified-Since", before)
	add("ius/fraction-equal", "GET", "/frac.txt", "If-Unmodified-Since", eq)
	add("ius/invalid", "GET", "/k1.bin", "If-Unmodified-Since", "tomorrow")
	add("ius/before-with-range", "GET", "/k1.bin", "If-Unmodified-Since", before, "Range", "bytes=0-9")
	add("ius/after-with-range", "GET", "/k1.bin", "If-Unmodified-Since", after, "Range", "bytes=0-9")
	add("ius-and-ims/both-hold", "GET", "/k1.bin", "If-Unmodified-Since", after, "If-Modified-Since", before)

	// If-Range with a date: only an exact match keeps the Range.
	add("if-range/equal", "GET", "/k1.bin", "Range", "bytes=10-20", "If-Range", eq)
	add("if-range/before", "GET", "/k1.bin", "Range", "bytes=10-20", "If-Range", before)
	add("if-range/after", "GET", "/k1.bin", "Range", "bytes=10-20", "If-Range", after)
	add("if-range/equal-multi", "GET", "/m1.bin", "Range", "bytes=0-9,5000-5009", "If-Range", eq)
	add("if-range/fraction", "GET", "/frac.txt", "Range", "bytes=0-4", "If-Range", eq)
	add("if-range/no-range", "GET", "/k1.bin", "If-Range", eq)
	add("if-range/invalid-date", "GET", "/k1.bin", "Range", "bytes=10-20", "If-Range", "soon")
	return cs
}

// TestDifferential compares jaws with http.FileServer on every behaviour
// where net/http is right.
func TestDifferential(t *testing.T) {
	t.Parallel()
	site := diffSite(t)
	jh, err := jaws.New(site.Root, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jh.Close() })
	runDifferential(t, jh, http.FileServer(http.Dir(site.Root)))
}

// runDifferential plays every differential case against jh and std, over
// HTTP/1.1, TLS and HTTP/2, and compares the answers.
func runDifferential(t *testing.T, jh, std http.Handler) {
	for _, kind := range testsite.Kinds {
		js := testsite.Start(t, kind, withPrefix(jh))
		ss := testsite.Start(t, kind, withPrefix(std))
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			for _, c := range diffCases() {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					method := c.method
					if method == "" {
						method = http.MethodGet
					}
					jr, jb := js.Do(t, js.NewRequest(t, method, c.target, c.header...))
					sr, sb := ss.Do(t, ss.NewRequest(t, method, c.target, c.header...))
					compareResponses(t, method, jr, jb, sr, sb)
				})
			}
		})
	}
}
