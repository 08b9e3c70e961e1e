package jaws_test

// Tests named after the rule they check, for behaviour where net/http is
// wrong or silent (so differential_test.go cannot cover it); the safety
// properties beyond the RFCs are in safety_test.go. The helpers both use
// (newHandler, eachKind, the RFC site) are in helpers_ext_test.go.
//
// RFC 9110 section numbers are in the names: TestRFC9110_13_2_2_... is
// §13.2.2.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// etagRE is a strong entity-tag (RFC 9110 §8.8.3).
var etagRE = regexp.MustCompile(`^"[\x21\x23-\x7e\x80-\xff]*"$`)

type condCase struct {
	name       string
	method     string // "" is GET
	header     []string
	wantStatus int
	wantBody   string // for 200 and 206: "" means the whole file or no check
}

// runConds runs cases against /k1.bin. In header values, "ETAG" stands for
// the file's current ETag.
func runConds(t *testing.T, cases []condCase) {
	t.Parallel()
	site := newRFCSite(t)
	eachKind(t, newHandler(t, site.Root, jaws.Options{}), func(t *testing.T, s *testsite.Server) {
		etag := etagOf(t, s, "/k1.bin")
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				method := c.method
				if method == "" {
					method = http.MethodGet
				}
				hdr := slices.Clone(c.header)
				for i := range hdr {
					hdr[i] = strings.ReplaceAll(hdr[i], "ETAG", strings.Trim(etag, `"`))
				}
				resp, body := s.Do(t, s.NewRequest(t, method, "/k1.bin", hdr...))
				if resp.StatusCode != c.wantStatus {
					t.Fatalf("%s %q: status %d, want %d", method, hdr, resp.StatusCode, c.wantStatus)
				}
				switch {
				case method == http.MethodHead || resp.StatusCode >= 300:
					if len(body) != 0 {
						t.Errorf("%d to %s has a %d-byte body", resp.StatusCode, method, len(body))
					}
				case c.wantStatus == http.StatusOK && !bytes.Equal(body, site.data["k1.bin"]):
					t.Errorf("200 body is not the file (%d bytes)", len(body))
				case c.wantBody != "" && string(body) != c.wantBody:
					t.Errorf("body %q, want %q", body, c.wantBody)
				}
				if resp.StatusCode == http.StatusNotModified || resp.StatusCode < 300 {
					if got := resp.Header.Get("Etag"); got != etag {
						t.Errorf("ETag %q, want %q", got, etag)
					}
				}
			})
		}
	})
}

var (
	past   = httpDate(diffMtime.Add(-time.Hour))
	future = httpDate(diffMtime.Add(time.Hour))
)

// §13.2.2 step 2: If-Unmodified-Since is evaluated only when If-Match is
// absent. net/http gets the order right but, having no ETag, fails every
// If-Match that is not "*".
func TestRFC9110_13_2_2_IfMatchBeforeIfUnmodifiedSince(t *testing.T) {
	runConds(t, []condCase{
		{name: "match-wins-over-past-ius", header: []string{"If-Match", `"ETAG"`, "If-Unmodified-Since", past}, wantStatus: 200},
		{name: "star-wins-over-past-ius", header: []string{"If-Match", "*", "If-Unmodified-Since", past}, wantStatus: 200},
		{name: "mismatch-wins-over-future-ius", header: []string{"If-Match", `"other"`, "If-Unmodified-Since", future}, wantStatus: 412},
		{name: "ius-alone-past", header: []string{"If-Unmodified-Since", past}, wantStatus: 412},
		{name: "head-match-wins", method: "HEAD", header: []string{"If-Match", `"ETAG"`, "If-Unmodified-Since", past}, wantStatus: 200},
	})
}

// §13.1.1: If-Match uses the strong comparison; a list matches if any
// member does; an absent tag means 412.
func TestRFC9110_13_1_1_IfMatch(t *testing.T) {
	runConds(t, []condCase{
		{name: "exact", header: []string{"If-Match", `"ETAG"`}, wantStatus: 200},
		{name: "in-list", header: []string{"If-Match", `"a", "ETAG", "b"`}, wantStatus: 200},
		{name: "second-field-line", header: []string{"If-Match", `"a"`, "If-Match", `"ETAG"`}, wantStatus: 200},
		{name: "star", header: []string{"If-Match", "*"}, wantStatus: 200},
		{name: "other", header: []string{"If-Match", `"other"`}, wantStatus: 412},
		{name: "unquoted", header: []string{"If-Match", `ETAG`}, wantStatus: 412},
		{name: "head-other", method: "HEAD", header: []string{"If-Match", `"other"`}, wantStatus: 412},
		{name: "with-range", header: []string{"If-Match", `"ETAG"`, "Range", "bytes=0-9"}, wantStatus: 206},
		{name: "other-with-range", header: []string{"If-Match", `"other"`, "Range", "bytes=0-9"}, wantStatus: 412},
	})
}

// §13.1.1: "An origin server MUST use the strong comparison function when
// comparing entity tags for If-Match", and a weak tag never matches
// strongly (§8.8.3.2).
func TestRFC9110_13_1_1_IfMatchStrongCompareRejectsWeak(t *testing.T) {
	runConds(t, []condCase{
		{name: "weak-self", header: []string{"If-Match", `W/"ETAG"`}, wantStatus: 412},
		{name: "weak-in-list", header: []string{"If-Match", `"a", W/"ETAG"`}, wantStatus: 412},
	})
}

// §13.1.2: If-None-Match uses the weak comparison.
func TestRFC9110_13_1_2_IfNoneMatchWeakCompare(t *testing.T) {
	runConds(t, []condCase{
		{name: "strong-self", header: []string{"If-None-Match", `"ETAG"`}, wantStatus: 304},
		{name: "weak-self", header: []string{"If-None-Match", `W/"ETAG"`}, wantStatus: 304},
		{name: "weak-in-list", header: []string{"If-None-Match", `"a", W/"ETAG"`}, wantStatus: 304},
		{name: "second-field-line", header: []string{"If-None-Match", `"a"`, "If-None-Match", `W/"ETAG"`}, wantStatus: 304},
		{name: "star", header: []string{"If-None-Match", "*"}, wantStatus: 304},
		{name: "other", header: []string{"If-None-Match", `"other"`}, wantStatus: 200},
		{name: "weak-other", header: []string{"If-None-Match", `W/"other"`}, wantStatus: 200},
		{name: "head-weak-self", method: "HEAD", header: []string{"If-None-Match", `W/"ETAG"`}, wantStatus: 304},
		{name: "with-range", header: []string{"If-None-Match", `"ETAG"`, "Range", "bytes=0-9"}, wantStatus: 304},
	})
}

// §13.2.2 step 4: If-Modified-Since is evaluated only when If-None-Match is
// absent.
func TestRFC9110_13_2_2_IfNoneMatchBeforeIfModifiedSince(t *testing.T) {
	runConds(t, []condCase{
		{name: "mismatch-wins-over-future-ims", header: []string{"If-None-Match", `"other"`, "If-Modified-Since", future}, wantStatus: 200},
		{name: "match-wins-over-past-ims", header: []string{"If-None-Match", `"ETAG"`, "If-Modified-Since", past}, wantStatus: 304},
		{name: "if-match-fails-first", header: []string{"If-Match", `"other"`, "If-None-Match", `"ETAG"`}, wantStatus: 412},
	})
}

// §15.4.5: a 304 carries the ETag a 200 would have, and no content.
func TestRFC9110_15_4_5_IfNoneMatch304CarriesETag(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	eachKind(t, newHandler(t, site.Root, jaws.Options{}), func(t *testing.T, s *testsite.Server) {
		for _, name := range []string{"small.txt", "k64.bin", "m1.bin", "empty.txt"} {
			etag := etagOf(t, s, "/"+name)
			for _, method := range []string{"GET", "HEAD"} {
				for _, hdr := range [][]string{
					{"If-None-Match", etag},
					{"If-Modified-Since", future},
				} {
					resp, body := s.Do(t, s.NewRequest(t, method, "/"+name, hdr...))
					if resp.StatusCode != http.StatusNotModified {
						t.Fatalf("%s %s %q: %d, want 304", method, name, hdr, resp.StatusCode)
					}
					if got := resp.Header.Get("Etag"); got != etag {
						t.Errorf("%s %s %q: 304 ETag %q, want %q", method, name, hdr, got, etag)
					}
					if len(body) != 0 || resp.Header.Get("Content-Type") != "" || resp.Header.Get("Content-Range") != "" {
						t.Errorf("%s %s %q: 304 with %d body bytes, Content-Type %q, Content-Range %q", method, name, hdr,
							len(body), resp.Header.Get("Content-Type"), resp.Header.Get("Content-Range"))
					}
				}
			}
		}
	})
}

// §13.1.5: If-Range with an entity-tag needs a strong match to keep the
// Range; net/http, having no ETag, always sends the whole file.
func TestRFC9110_13_1_5_IfRangeETagStrong(t *testing.T) {
	runConds(t, []condCase{
		{name: "match", header: []string{"Range", "bytes=0-9", "If-Range", `"ETAG"`}, wantStatus: 206},
		{name: "other", header: []string{"Range", "bytes=0-9", "If-Range", `"other"`}, wantStatus: 200},
		{name: "no-range", header: []string{"If-Range", `"ETAG"`}, wantStatus: 200},
	})
}

// §13.1.5: "A valid entity-tag can be distinguished from a valid HTTP-date
// by examining the first three characters for a DQUOTE", and a weak tag
// never matches strongly: the Range is ignored.
func TestRFC9110_13_1_5_IfRangeWeakETagIgnoresRange(t *testing.T) {
	runConds(t, []condCase{
		{name: "weak-self", header: []string{"Range", "bytes=0-9", "If-Range", `W/"ETAG"`}, wantStatus: 200},
		{name: "weak-self-multi", header: []string{"Range", "bytes=0-9,500-509", "If-Range", `W/"ETAG"`}, wantStatus: 200},
	})
}

// rangeCase is a Range request for one file of newRFCSite and the parts it
// must produce (nil: 200 with the whole file; empty: 416).
type rangeCase struct {
	name  string
	file  string
	spec  string
	opts  jaws.Options
	parts [][2]int64 // first, last
}

// checkRange sends c and checks status, Content-Range and body bytes.
func checkRange(t *testing.T, s *testsite.Server, data []byte, method, spec string, parts [][2]int64) {
	t.Helper()
	size := int64(len(data))
	resp, body := s.Do(t, s.NewRequest(t, method, "/file", "Range", spec))
	switch {
	case parts == nil:
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Range") != "" {
			t.Fatalf("Range %.60q: %d, Content-Range %q; want 200 without", spec, resp.StatusCode, resp.Header.Get("Content-Range"))
		}
		if method == http.MethodGet && !bytes.Equal(body, data) {
			t.Errorf("Range %.60q: 200 body of %d bytes is not the file", spec, len(body))
		}
		if resp.ContentLength != size {
			t.Errorf("Range %.60q: Content-Length %d, want %d", spec, resp.ContentLength, size)
		}
	case len(parts) == 0:
		want := "bytes */" + strconv.FormatInt(size, 10)
		if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable || resp.Header.Get("Content-Range") != want {
			t.Fatalf("Range %.60q: %d, Content-Range %q; want 416 with %q", spec, resp.StatusCode, resp.Header.Get("Content-Range"), want)
		}
	case len(parts) == 1:
		want := fmt.Sprintf("bytes %d-%d/%d", parts[0][0], parts[0][1], size)
		if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != want {
			t.Fatalf("Range %.60q: %d, Content-Range %q, Content-Type %q; want 206 with %q", spec, resp.StatusCode,
				resp.Header.Get("Content-Range"), resp.Header.Get("Content-Type"), want)
		}
		if method == http.MethodGet && !bytes.Equal(body, data[parts[0][0]:parts[0][1]+1]) {
			t.Errorf("Range %.60q: body of %d bytes is not the range", spec, len(body))
		}
	default:
		if resp.StatusCode != http.StatusPartialContent {
			t.Fatalf("Range %.60q: %d, want 206", spec, resp.StatusCode)
		}
		if method != http.MethodGet {
			return
		}
		got := testsite.Parts(t, resp.Header.Get("Content-Type"), body)
		if len(got) != len(parts) {
			var crs []string
			for _, p := range got {
				crs = append(crs, p.ContentRange)
			}
			t.Fatalf("Range %.60q: %d parts %q, want %d", spec, len(got), crs, len(parts))
		}
		for i, p := range got {
			want := fmt.Sprintf("bytes %d-%d/%d", parts[i][0], parts[i][1], size)
			if p.ContentRange != want || !bytes.Equal(p.Body, data[parts[i][0]:parts[i][1]+1]) {
				t.Errorf("Range %.60q: part %d is %q with %d bytes, want %q", spec, i, p.ContentRange, len(p.Body), want)
			}
		}
	}
}

// runRanges serves each case's file as /file with its options over every
// kind.
func runRanges(t *testing.T, cases []rangeCase) {
	t.Parallel()
	site := newRFCSite(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := testsite.New(t)
			s.File("file", site.data[c.file])
			eachKind(t, newHandler(t, s.Root, c.opts), func(t *testing.T, srv *testsite.Server) {
				checkRange(t, srv, site.data[c.file], http.MethodGet, c.spec, c.parts)
			})
		})
	}
}

// §14.1.1: "a suffix-range with a suffix-length of zero" is unsatisfiable;
// net/http sends 206 or 200.
func TestRFC9110_14_1_1_SuffixZeroUnsatisfiable(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "alone", file: "k1.bin", spec: "bytes=-0", parts: [][2]int64{}},
		{name: "with-satisfiable", file: "k1.bin", spec: "bytes=-0,0-4", parts: [][2]int64{{0, 4}}},
	})
}

// §14.1.1: a last-pos past the end is clipped, however many digits it has.
// net/http answers 416 to positions that overflow int64.
func TestRFC9110_14_1_1_HugePositions(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "huge-last", file: "k1.bin", spec: "bytes=0-99999999999999999999999", parts: [][2]int64{{0, 1023}}},
		{name: "huge-suffix", file: "k1.bin", spec: "bytes=-99999999999999999999999", parts: [][2]int64{{0, 1023}}},
		{name: "huge-first", file: "k1.bin", spec: "bytes=99999999999999999999999-", parts: [][2]int64{}},
	})
}

// §14.1: range unit names are case-insensitive; net/http only knows
// "bytes=".
func TestRFC9110_14_1_RangeUnitCaseInsensitive(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "upper", file: "k1.bin", spec: "BYTES=0-4", parts: [][2]int64{{0, 4}}},
		{name: "mixed", file: "k1.bin", spec: "Bytes=5-9", parts: [][2]int64{{5, 9}}},
	})
}

// §14.2: "An origin server MUST ignore a Range header field that contains
// a range unit it does not understand." net/http answers 416.
func TestRFC9110_14_2_UnknownUnitIgnored(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "items", file: "k1.bin", spec: "items=0-5"},
		{name: "none", file: "k1.bin", spec: "none"},
		{name: "bytesx", file: "k1.bin", spec: "bytesx=0-5"},
		{name: "no-equals", file: "k1.bin", spec: "bytes 0-5"},
	})
}

// §14.2: a server MAY coalesce ranges that overlap or are separated by a
// gap smaller than the overhead of another part; jaws does, so no byte is
// sent twice.
func TestRFC9110_14_2_OverlappingRangesCoalesced(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "overlap", file: "k1.bin", spec: "bytes=0-99,50-149", parts: [][2]int64{{0, 149}}},
		{name: "contained", file: "k1.bin", spec: "bytes=0-999,10-19", parts: [][2]int64{{0, 999}}},
		{name: "adjacent-descending", file: "k1.bin", spec: "bytes=100-199,0-99", parts: [][2]int64{{0, 199}}},
		{name: "small-gap", file: "k1.bin", spec: "bytes=0-9,100-109", parts: [][2]int64{{0, 109}}},
		{name: "same-thrice", file: "k1.bin", spec: "bytes=5-5,5-5,5-5", parts: [][2]int64{{5, 5}}},
		{name: "suffix-and-open", file: "k1.bin", spec: "bytes=-100,900-", parts: [][2]int64{{900, 1023}}},
		{name: "partly-merged", file: "m1.bin", spec: "bytes=0-9,5-19,500000-500009", parts: [][2]int64{{0, 19}, {500000, 500009}}},
	})
}

// §15.3.7.2: "the server SHOULD send the parts in the same order that the
// corresponding range-spec appeared in the received Range header field,
// excluding those ranges that were deemed unsatisfiable or that were
// coalesced into other ranges."
func TestRFC9110_15_3_7_2_PartsInRequestOrder(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "descending", file: "m1.bin", spec: "bytes=500000-500099,0-99", parts: [][2]int64{{500000, 500099}, {0, 99}}},
	})
}

// §14.2: more than MaxRanges (default 32) ranges are ignored: 200 with the
// whole file.
func TestRFC9110_14_2_RangeCountCapped(t *testing.T) {
	spread := func(n int) (string, [][2]int64) {
		var specs []string
		var parts [][2]int64
		for i := range n {
			off := int64(i) * 32 << 10
			specs = append(specs, fmt.Sprintf("%d-%d", off, off))
			parts = append(parts, [2]int64{off, off})
		}
		return "bytes=" + strings.Join(specs, ","), parts
	}
	spec32, parts32 := spread(32)
	spec33, _ := spread(33)
	spec2, parts2 := spread(2)
	spec3, _ := spread(3)
	runRanges(t, []rangeCase{
		{name: "32-served", file: "m1.bin", spec: spec32, parts: parts32},
		{name: "33-ignored", file: "m1.bin", spec: spec33},
		{name: "33-with-empty-elements", file: "m1.bin", spec: strings.ReplaceAll(spec33, ",", ",,")},
		{name: "max2-2-served", file: "m1.bin", spec: spec2, opts: jaws.Options{MaxRanges: 2}, parts: parts2},
		{name: "max2-3-ignored", file: "m1.bin", spec: spec3, opts: jaws.Options{MaxRanges: 2}},
		{name: "negative-ignores-all", file: "m1.bin", spec: "bytes=0-0", opts: jaws.Options{MaxRanges: -1}},
	})
}

// §14.2 and CVE-2011-3192: whatever the Range header, the body is at most
// about twice the file and never repeats a byte.
func TestRFC9110_14_2_NoAmplification(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	headers := func(size int64) map[string]string {
		rep := func(n int, f func(i int64) string) string {
			var s []string
			for i := range n {
				s = append(s, f(int64(i)))
			}
			return "bytes=" + strings.Join(s, ",")
		}
		step := max(size/32, 1)
		return map[string]string{
			"32-whole":            rep(32, func(int64) string { return "0-" }),
			"32-suffix-whole":     rep(32, func(int64) string { return "-" + strconv.FormatInt(size, 10) }),
			"32-one-byte-packed":  rep(32, func(i int64) string { return fmt.Sprintf("%d-%d", 2*i, 2*i) }),
			"32-one-byte-spread":  rep(32, func(i int64) string { return fmt.Sprintf("%d-%d", i*step, i*step) }),
			"32-spread-desc":      rep(32, func(i int64) string { o := (31 - i) * step; return fmt.Sprintf("%d-%d", o, o) }),
			"32-open-staggered":   rep(32, func(i int64) string { return fmt.Sprintf("%d-", i*step) }),
			"32-halves":           rep(32, func(i int64) string { return fmt.Sprintf("%d-%d", i%2*size/4, size/2+i%2*size/4) }),
			"32-every-300":        rep(32, func(i int64) string { return fmt.Sprintf("%d-%d", i*300, i*300) }),
			"1000-first-byte":     rep(1000, func(int64) string { return "0-0" }),
			"1000-whole":          rep(1000, func(int64) string { return "0-" }),
			"empty-elements":      "bytes=" + strings.Repeat(",", 10000) + "0-0",
			"32-suffix-staggered": rep(32, func(i int64) string { return fmt.Sprintf("-%d", size-i*step) }),
		}
	}
	for _, name := range []string{"small.txt", "k1.bin", "k64.bin", "m1.bin"} {
		data := site.data[name]
		size := int64(len(data))
		h := newHandler(t, site.Root, jaws.Options{})
		t.Run(name, func(t *testing.T) {
			eachKind(t, h, func(t *testing.T, s *testsite.Server) {
				for hname, spec := range headers(size) {
					t.Run(hname, func(t *testing.T) {
						t.Parallel()
						resp, body := s.Get(t, "/"+name, "Range", spec)
						if limit := 2*size + 1024; int64(len(body)) > limit {
							t.Fatalf("%d-byte file: %d-byte body (limit %d), status %d", size, len(body), limit, resp.StatusCode)
						}
						switch resp.StatusCode {
						case http.StatusOK:
							if !bytes.Equal(body, data) {
								t.Fatalf("200 body is not the file")
							}
						case http.StatusPartialContent:
							var parts []testsite.Part
							if strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/") {
								parts = testsite.Parts(t, resp.Header.Get("Content-Type"), body)
							} else {
								parts = []testsite.Part{{ContentRange: resp.Header.Get("Content-Range"), Body: body}}
							}
							var sent int64
							var seen [][2]int64 // parts keep request order: check overlap against all
							for _, p := range parts {
								var first, last, total int64
								if _, err := fmt.Sscanf(p.ContentRange, "bytes %d-%d/%d", &first, &last, &total); err != nil || total != size {
									t.Fatalf("part Content-Range %q", p.ContentRange)
								}
								if !bytes.Equal(p.Body, data[first:last+1]) {
									t.Fatalf("part %q: wrong bytes", p.ContentRange)
								}
								for _, s := range seen {
									if first <= s[1] && s[0] <= last {
										t.Errorf("part %q overlaps bytes %d-%d, sent before", p.ContentRange, s[0], s[1])
									}
								}
								seen = append(seen, [2]int64{first, last})
								sent += int64(len(p.Body))
							}
							if sent > size {
								t.Errorf("%d file bytes sent for a %d-byte file", sent, size)
							}
						case http.StatusRequestedRangeNotSatisfiable:
						default:
							t.Fatalf("status %d", resp.StatusCode)
						}
					})
				}
			})
		})
	}
}

// §14.1.1: every range of an empty representation is unsatisfiable, so a
// 206 is never right; 200 (ignoring the Range, as net/http does) or 416 are.
func TestRFC9110_14_1_1_EmptyFileRangeNot206(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	eachKind(t, newHandler(t, site.Root, jaws.Options{}), func(t *testing.T, s *testsite.Server) {
		for _, spec := range []string{"bytes=0-0", "bytes=0-", "bytes=-1", "bytes=-0", "bytes=0-0,5-9", "bytes=10-"} {
			resp, body := s.Get(t, "/empty.txt", "Range", spec)
			switch resp.StatusCode {
			case http.StatusOK:
				if len(body) != 0 || resp.Header.Get("Content-Range") != "" {
					t.Errorf("%q: 200 with %d bytes, Content-Range %q", spec, len(body), resp.Header.Get("Content-Range"))
				}
			case http.StatusRequestedRangeNotSatisfiable:
				if cr := resp.Header.Get("Content-Range"); cr != "bytes */0" {
					t.Errorf("%q: 416 with Content-Range %q", spec, cr)
				}
			default:
				t.Errorf("%q: status %d, want 200 or 416", spec, resp.StatusCode)
			}
		}
	})
}

// §15.5.17: a 416 SHOULD carry Content-Range with the current length, also
// when the range was malformed (net/http sends none then).
func TestRFC9110_15_5_17_416CarriesContentRange(t *testing.T) {
	runRanges(t, []rangeCase{
		{name: "reversed", file: "k1.bin", spec: "bytes=10-5", parts: [][2]int64{}},
		{name: "letters", file: "k1.bin", spec: "bytes=a-b", parts: [][2]int64{}},
		{name: "no-dash", file: "k1.bin", spec: "bytes=5", parts: [][2]int64{}},
		{name: "beyond", file: "k1.bin", spec: "bytes=4096-", parts: [][2]int64{}},
	})
}

// §14.2: "A server MUST ignore a Range header field received with a request
// method that is unrecognized or for which range handling is not defined.
// For this specification, GET is the only method for which range handling
// is defined." So HEAD with Range is answered as a plain HEAD. net/http
// answers 206.
func TestRFC9110_14_2_RangeIgnoredForHEAD(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	s := testsite.New(t)
	s.File("file", site.data["k1.bin"])
	eachKind(t, newHandler(t, s.Root, jaws.Options{}), func(t *testing.T, srv *testsite.Server) {
		for _, spec := range []string{"bytes=0-9", "bytes=0-9,500-509", "bytes=5000-"} {
			checkRange(t, srv, site.data["k1.bin"], http.MethodHead, spec, nil)
		}
	})
}

// §8.8.2.1: "An origin server with a clock MUST NOT generate a
// Last-Modified date that is later than the server's time of message
// origination (Date)"; a future mtime (clock skew, an archive from another
// machine) must be replaced by the Date. net/http sends the mtime as is.
func TestRFC9110_8_8_2_1_FutureMtimeNotSent(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	s.FileAt("future.txt", []byte("from the future"), time.Now().Add(48*time.Hour))
	eachKind(t, newHandler(t, s.Root, jaws.Options{}), func(t *testing.T, srv *testsite.Server) {
		resp, _ := srv.Get(t, "/future.txt")
		date, err := http.ParseTime(resp.Header.Get("Date"))
		if err != nil {
			t.Fatalf("Date %q: %v", resp.Header.Get("Date"), err)
		}
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			if m, err := http.ParseTime(lm); err != nil || m.After(date) {
				t.Errorf("Last-Modified %q is later than Date %q", lm, resp.Header.Get("Date"))
			}
		}
	})
}

// §15.5.6: a 405 lists the allowed methods in Allow. jaws serves only GET
// and HEAD; net/http's FileServer answers every method as GET.
func TestRFC9110_15_5_6_MethodNotAllowed(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	eachKind(t, newHandler(t, site.Root, jaws.Options{}), func(t *testing.T, s *testsite.Server) {
		for _, method := range []string{"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "TRACE"} {
			for _, target := range []string{"/small.txt", "/missing", "/"} {
				resp, body := s.Do(t, s.NewRequest(t, method, target, "If-None-Match", "*", "Range", "bytes=0-1"))
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
					t.Errorf("%s %s: %d, Allow %q; want 405 with \"GET, HEAD\"", method, target, resp.StatusCode, resp.Header.Get("Allow"))
				}
				if bytes.Contains(body, site.data["small.txt"]) || resp.Header.Get("Etag") != "" || resp.Header.Get("Last-Modified") != "" {
					t.Errorf("%s %s: 405 reveals the file: body %q, ETag %q", method, target, body, resp.Header.Get("Etag"))
				}
			}
		}
	})
}

// §9.3.2: a HEAD response has no content. Over a raw connection, a HEAD is
// pipelined with a GET: if the HEAD response carried any byte of body, the
// GET's response would not parse.
func TestRFC9110_9_3_2_HEADNoBody(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	site.File("dir/index.html", []byte("<p>index</p>"))
	h := newHandler(t, site.Root, jaws.Options{})
	srv := testsite.Start(t, testsite.HTTP1, h)
	for _, c := range []struct {
		target, extra string
		status        int
	}{
		{"/small.txt", "", 200},
		{"/empty.txt", "", 200},
		{"/k64.bin", "", 200},
		{"/m1.bin", "", 200},
		{"/m1.bin", "Range: bytes=0-99999\r\n", 200}, // §14.2: Range is for GET only
		{"/m1.bin", "Range: bytes=0-9,500000-500009\r\n", 200},
		{"/m1.bin", "Range: bytes=5000000-\r\n", 200},
		{"/m1.bin", "If-None-Match: *\r\n", 304},
		{"/missing", "", 404},
		{"/dir", "", 301},
		{"/dir/", "", 200},
	} {
		t.Run(strings.TrimPrefix(c.target, "/")+"/"+strconv.Itoa(c.status), func(t *testing.T) {
			t.Parallel()
			br := srv.Raw(t, "HEAD "+c.target+" HTTP/1.1\r\nHost: example.com\r\n"+c.extra+"\r\n"+
				"GET /small.txt HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
			head, err := http.ReadResponse(br, &http.Request{Method: http.MethodHead})
			if err != nil {
				t.Fatal(err)
			}
			head.Body.Close()
			if head.StatusCode != c.status {
				t.Errorf("HEAD %s: %d, want %d", c.target, head.StatusCode, c.status)
			}
			get, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
			if err != nil {
				t.Fatalf("response after HEAD %s does not parse (HEAD sent a body?): %v", c.target, err)
			}
			body, err := io.ReadAll(get.Body)
			if err != nil || get.StatusCode != 200 || string(body) != "0123456789" {
				t.Fatalf("GET after HEAD %s: %d %q %v", c.target, get.StatusCode, body, err)
			}
			if rest, _ := io.ReadAll(br); len(rest) != 0 {
				t.Errorf("%d stray bytes after the responses: %.60q", len(rest), rest)
			}
		})
	}
	// And through each client: HEAD announces the GET's length, sends nothing.
	eachKind(t, h, func(t *testing.T, s *testsite.Server) {
		for _, name := range []string{"small.txt", "k64.bin", "m1.bin"} {
			resp, body := s.Do(t, s.NewRequest(t, http.MethodHead, "/"+name))
			if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(len(site.data[name])) {
				t.Errorf("HEAD %s: %d, %d body bytes, Content-Length %q", name, resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
			}
		}
	})
}

// §8.8.3: the ETag is strong and the same on replicas: two handlers over
// copies that kept size and mtime (cp -p, rsync -t, tar, container layers)
// agree on every file, over any protocol, and a validator from one works at
// the other. Files served from memory agree whatever their mtimes, since
// their ETag is their content's.
func TestRFC9110_8_8_3_ETagStableAcrossHandlers(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	copied, touched := testsite.New(t), testsite.New(t)
	for name, b := range site.data {
		copied.FileAt(name, b, diffMtime)
		touched.FileAt(name, b, diffMtime.Add(-240*time.Hour))
	}
	a := testsite.Start(t, testsite.HTTP1, newHandler(t, site.Root, jaws.Options{}))
	b := testsite.Start(t, testsite.HTTP2, newHandler(t, copied.Root, jaws.Options{}))
	c := testsite.Start(t, testsite.HTTP1, newHandler(t, touched.Root, jaws.Options{}))
	for name := range site.data {
		ea, eb, ec := etagOf(t, a, "/"+name), etagOf(t, b, "/"+name), etagOf(t, c, "/"+name)
		if ea != eb {
			t.Errorf("%s: ETag %q here, %q on a copy with the same mtime", name, ea, eb)
		}
		inMemory := len(site.data[name]) <= jaws.DefaultCacheMaxFileSize
		if inMemory != (ea == ec) {
			t.Errorf("%s (%d bytes): ETag %q, %q with another mtime; want equal only for files in memory",
				name, len(site.data[name]), ea, ec)
		}
		if !etagRE.MatchString(ea) {
			t.Errorf("%s: ETag %q is not a strong entity-tag", name, ea)
		}
		// A validator from one replica revalidates at the other.
		if resp, _ := b.Get(t, "/"+name, "If-None-Match", ea); resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s: If-None-Match from the other handler: %d, want 304", name, resp.StatusCode)
		}
		if resp, _ := b.Get(t, "/"+name, "Range", "bytes=0-0", "If-Range", ea); len(site.data[name]) > 0 && resp.StatusCode != http.StatusPartialContent {
			t.Errorf("%s: If-Range from the other handler: %d, want 206", name, resp.StatusCode)
		}
	}
}

// §8.8.3: different content, different strong ETag. Files in memory differ
// even at the same size and mtime; files sent from disk differ by size or by
// mtime down to the nanosecond, and at the same size and mtime when a digest
// sibling gives their content's ETag. (The same size and mtime without a
// sibling is the validators' documented blind spot: TestETagBlindSpot.)
func TestRFC9110_8_8_3_ETagChangesWithContent(t *testing.T) {
	t.Parallel()
	big := testsite.Random(1<<20, 99)
	bigFlip := slices.Clone(big)
	bigFlip[len(bigFlip)-1] ^= 1
	type version struct {
		data  []byte
		mtime time.Time
	}
	at := func(b []byte, d time.Duration) version { return version{b, diffMtime.Add(d)} }
	pairs := map[string][2]version{
		"small":            {at([]byte("aaaa"), 0), at([]byte("aaab"), 0)},
		"empty-vs-one":     {at([]byte{}, 0), at([]byte{0}, 0)},
		"big-mtime-1ns":    {at(big, 0), at(bigFlip, time.Nanosecond)},
		"big-size":         {at(big, 0), at(big[1:], 0)},
		"big-digest.bin":   {at(big, 0), at(bigFlip, 0)},
		"big-digest-first": {at(append([]byte{1}, big[1:]...), 0), at(append([]byte{2}, big[1:]...), 0)},
	}
	x, y := testsite.New(t), testsite.New(t)
	for name, p := range pairs {
		x.FileAt(name, p[0].data, p[0].mtime)
		y.FileAt(name, p[1].data, p[1].mtime)
		if strings.Contains(name, "digest") {
			x.FileAt(name+".sha256", sha256sumLine(p[0].data, name), p[0].mtime)
			y.FileAt(name+".sha256", sha256sumLine(p[1].data, name), p[1].mtime)
		}
	}
	sx := testsite.Start(t, testsite.HTTP1, newHandler(t, x.Root, jaws.Options{}))
	sy := testsite.Start(t, testsite.HTTP1, newHandler(t, y.Root, jaws.Options{}))
	for name := range pairs {
		ex, ey := etagOf(t, sx, "/"+name), etagOf(t, sy, "/"+name)
		if ex == ey {
			t.Errorf("%s: same ETag %q for different content", name, ex)
		}
		if resp, _ := sy.Get(t, "/"+name, "If-None-Match", ex); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: the other content's ETag gave %d, want 200", name, resp.StatusCode)
		}
	}
}

// §8.8.3: the same ETag on 200, 206 (single and multipart), HEAD and 304.
func TestRFC9110_8_8_3_ETagOn200_206_304(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	eachKind(t, newHandler(t, site.Root, jaws.Options{}), func(t *testing.T, s *testsite.Server) {
		for _, name := range []string{"small.txt", "k64.bin", "m1.bin"} {
			etag := etagOf(t, s, "/"+name)
			if !etagRE.MatchString(etag) {
				t.Errorf("%s: ETag %q is not a strong entity-tag", name, etag)
			}
			for _, c := range []struct {
				method string
				header []string
				status int
			}{
				{"HEAD", nil, 200},
				{"GET", []string{"Range", "bytes=1-2"}, 206},
				{"GET", []string{"Range", "bytes=0-0,-1"}, 206},
				{"GET", []string{"If-None-Match", etag}, 304},
				{"HEAD", []string{"If-None-Match", etag}, 304},
				{"GET", []string{"If-Modified-Since", future}, 304},
				{"GET", []string{"Range", "bytes=0-0", "If-Range", etag}, 206},
			} {
				resp, _ := s.Do(t, s.NewRequest(t, c.method, "/"+name, c.header...))
				if resp.StatusCode != c.status || resp.Header.Get("Etag") != etag {
					t.Errorf("%s %s %q: %d with ETag %q, want %d with %q", c.method, name, c.header, resp.StatusCode, resp.Header.Get("Etag"), c.status, etag)
				}
			}
		}
	})
}

// An outer handler's Content-Type wins, as in http.ServeContent, and goes
// into every part of a multipart answer.
func TestOuterContentTypeWins(t *testing.T) {
	t.Parallel()
	site := newRFCSite(t)
	h := newHandler(t, site.Root, jaws.Options{})
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-custom")
		h.ServeHTTP(w, r)
	})
	eachKind(t, outer, func(t *testing.T, s *testsite.Server) {
		resp, _ := s.Get(t, "/small.txt")
		if ct := resp.Header.Get("Content-Type"); ct != "application/x-custom" {
			t.Errorf("200 Content-Type %q", ct)
		}
		resp, body := s.Get(t, "/m1.bin", "Range", "bytes=0-0,500000-500000")
		for i, p := range testsite.Parts(t, resp.Header.Get("Content-Type"), body) {
			if p.ContentType != "application/x-custom" {
				t.Errorf("part %d Content-Type %q", i, p.ContentType)
			}
		}
	})
}
