package jaws

import (
	"bytes"
	"cmp"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// span is a byte range of a file: n bytes starting at off.
type span struct {
	off, n int64
}

func (s span) end() int64 { return s.off + s.n }

// contentRange formats the Content-Range value for s (RFC 9110 §14.4).
func (s span) contentRange(size int64) string {
	return "bytes " + strconv.FormatInt(s.off, 10) + "-" + strconv.FormatInt(s.end()-1, 10) + "/" + strconv.FormatInt(size, 10)
}

// unsatisfiedRange is the Content-Range of a 416 (RFC 9110 §15.5.17).
func unsatisfiedRange(size int64) string {
	return "bytes */" + strconv.FormatInt(size, 10)
}

// rangeVerdict is what a Range header asks of the response.
type rangeVerdict int

const (
	rangeNone          rangeVerdict = iota // no usable Range: 200 with the whole file
	rangePartial                           // 206 with the returned spans
	rangeUnsatisfiable                     // 416: no range overlaps the representation
	rangeMalformed                         // 416: a range-spec is not one
)

// coalesceGap is the gap below which two requested ranges are merged. RFC
// 9110 §14.2 allows coalescing ranges "separated by a gap that is smaller
// than the overhead of sending multiple parts"; a part header is at most
// 166 bytes plus the Content-Type, so merging never makes the response larger
// for any common type.
const coalesceGap = 256

// parseRange interprets a Range header value for a representation of size
// bytes, following RFC 9110 §14.1-14.2. It returns the spans to send in
// the order asked, overlapping and nearby ranges coalesced.
//
// Unlike net/http it ignores unknown range units (§14.2: "MUST ignore"),
// treats "bytes=-0" as unsatisfiable (§14.1.1: a suffix-range is satisfiable
// only with a non-zero length), accepts positions too large for int64, and
// bounds the work and the answer: more than maxRanges ranges, or a multipart
// answer that would be much larger than the file, make it serve the whole file
// instead (CVE-2011-3192). Malformed byte ranges are answered with 416, as
// net/http and nginx do; a range set with no range at all ("bytes=") is
// ignored, as net/http does.
func parseRange(s string, size int64, maxRanges int) ([]span, rangeVerdict) {
	if s == "" || maxRanges < 0 {
		return nil, rangeNone
	}
	unit, set, ok := strings.Cut(s, "=")
	if !ok || !httprule.EqualFold(textproto.TrimString(unit), "bytes") {
		return nil, rangeNone
	}
	var spans []span
	count := 0
	for spec := range strings.SplitSeq(set, ",") {
		spec = textproto.TrimString(spec)
		if spec == "" {
			continue // RFC 9110 §5.6.1: empty list elements are allowed
		}
		if count++; count > maxRanges {
			return nil, rangeNone
		}
		sp, satisfiable, valid := parseRangeSpec(spec, size)
		if !valid {
			return nil, rangeMalformed
		}
		if satisfiable {
			spans = append(spans, sp)
		}
	}
	if count == 0 {
		// "bytes=" or "bytes= , ": no range-spec at all, which net/http
		// ignores (200); §14.2 lets a server ignore an invalid Range.
		return nil, rangeNone
	}
	if size == 0 {
		// Every range of an empty file is unsatisfiable (§14.1.1), but some
		// clients send Range on every request; answer like net/http, with 200.
		return nil, rangeNone
	}
	if len(spans) == 0 {
		return nil, rangeUnsatisfiable
	}
	spans = coalesce(spans)
	if len(spans) > 1 && multipartOverhead(len(spans)) > size {
		// Many small parts cost more in headers than the file itself.
		return nil, rangeNone
	}
	return spans, rangePartial
}

// parseRangeSpec parses one int-range or suffix-range (RFC 9110 §14.1.1).
func parseRangeSpec(spec string, size int64) (sp span, satisfiable, valid bool) {
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return span{}, false, false
	}
	first, last = textproto.TrimString(first), textproto.TrimString(last)
	if first == "" {
		n, ok := httprule.ParseDigits(last)
		if !ok {
			return span{}, false, false
		}
		if n == 0 {
			return span{}, false, true
		}
		n = min(n, size)
		return span{off: size - n, n: n}, n > 0, true
	}
	start, ok := httprule.ParseDigits(first)
	if !ok {
		return span{}, false, false
	}
	end := int64(-1)
	if last != "" {
		if end, ok = httprule.ParseDigits(last); !ok || end < start {
			return span{}, false, false
		}
	}
	if start >= size {
		return span{}, false, true
	}
	if end < 0 || end >= size {
		end = size - 1
	}
	return span{off: start, n: end - start + 1}, true, true
}

// coalesce merges spans that overlap or nearly touch, so the body never
// repeats a byte (§14.2 allows this regardless of request order). The parts
// keep the order of the request, a merged part taking the place of its first
// range (§15.3.7.2: "SHOULD send the parts in the same order").
func coalesce(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	type part struct {
		span
		first int // index of the earliest range merged into this part
	}
	parts := make([]part, len(spans))
	for i, s := range spans {
		parts[i] = part{s, i}
	}
	slices.SortFunc(parts, func(a, b part) int { return cmp.Compare(a.off, b.off) })
	out := parts[:1]
	for _, p := range parts[1:] {
		last := &out[len(out)-1]
		if p.off <= last.end()+coalesceGap {
			last.n = max(last.end(), p.end()) - last.off
			last.first = min(last.first, p.first)
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b part) int { return cmp.Compare(a.first, b.first) })
	spans = spans[:len(out)]
	for i, p := range out {
		spans[i] = p.span
	}
	return spans
}

// multipartOverhead is a generous bound on the bytes a multipart/byteranges
// body adds around n parts.
func multipartOverhead(n int) int64 { return int64(n)*coalesceGap + 64 }

// multipartLayout is a multipart/byteranges body (RFC 9110 §14.6) minus the
// file bytes: heads[i] goes before spans[i], tail after the last span. Any
// transfer path can interleave these with file data, so the zero-copy path can
// send each part's bytes straight from the file.
type multipartLayout struct {
	contentType string // "multipart/byteranges; boundary=..."
	spans       []span
	heads       [][]byte
	tail        []byte
	length      int64 // of the whole body
}

func layoutMultipart(spans []span, ctype string, size int64) multipartLayout {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	l := multipartLayout{
		contentType: "multipart/byteranges; boundary=" + mw.Boundary(),
		spans:       spans,
		heads:       make([][]byte, len(spans)),
	}
	for i, s := range spans {
		h := textproto.MIMEHeader{"Content-Range": {s.contentRange(size)}}
		if ctype != "" {
			h.Set("Content-Type", ctype)
		}
		mw.CreatePart(h) // writes to a bytes.Buffer: cannot fail
		l.heads[i] = bytes.Clone(buf.Bytes())
		l.length += int64(buf.Len()) + s.n
		buf.Reset()
	}
	mw.Close()
	l.tail = bytes.Clone(buf.Bytes())
	l.length += int64(len(l.tail))
	return l
}
