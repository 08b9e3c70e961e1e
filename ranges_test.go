package jaws

import (
	"bytes"
	"cmp"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	t.Parallel()
	const size = 10000
	tests := []struct {
		name    string
		hdr     string
		size    int64
		want    []span
		verdict rangeVerdict
	}{
		{"absent", "", size, nil, rangeNone},
		{"first byte", "bytes=0-0", size, []span{{0, 1}}, rangePartial},
		{"closed", "bytes=10-19", size, []span{{10, 10}}, rangePartial},
		{"open ended", "bytes=9000-", size, []span{{9000, 1000}}, rangePartial},
		{"suffix", "bytes=-100", size, []span{{9900, 100}}, rangePartial},
		{"suffix longer than file", "bytes=-20000", size, []span{{0, size}}, rangePartial},
		{"last clipped to size", "bytes=9990-20000", size, []span{{9990, 10}}, rangePartial},
		{"whitespace and empty elements", "bytes= , 0-0 ,, ", size, []span{{0, 1}}, rangePartial},
		{"unit case-insensitive", "Bytes=0-0", size, []span{{0, 1}}, rangePartial},
		{"huge last saturates", "bytes=0-99999999999999999999999", size, []span{{0, size}}, rangePartial},
		{"huge first unsatisfiable", "bytes=99999999999999999999999-", size, nil, rangeUnsatisfiable},
		{"suffix zero unsatisfiable", "bytes=-0", size, nil, rangeUnsatisfiable},
		{"start past end", "bytes=10000-", size, nil, rangeUnsatisfiable},
		{"one satisfiable of two", "bytes=20000-,0-0", size, []span{{0, 1}}, rangePartial},
		{"unknown unit ignored", "items=0-5", size, nil, rangeNone},
		{"no equals ignored", "bytes", size, nil, rangeNone},
		{"no spec", "bytes=", size, nil, rangeNone},
		{"only commas", "bytes= , ,", size, nil, rangeNone},
		{"no dash", "bytes=5", size, nil, rangeMalformed},
		{"reversed", "bytes=5-4", size, nil, rangeMalformed},
		{"signed", "bytes=+5-6", size, nil, rangeMalformed},
		{"negative suffix", "bytes=--5", size, nil, rangeMalformed},
		{"garbage", "bytes=a-b", size, nil, rangeMalformed},
		{"two separated", "bytes=0-9,5000-5009", size, []span{{0, 10}, {5000, 10}}, rangePartial},
		{"request order kept", "bytes=5000-5009,0-9", size, []span{{5000, 10}, {0, 10}}, rangePartial},
		{"merged part takes its first place", "bytes=8000-8009,5000-5009,0-9,5005-5100", size, []span{{8000, 10}, {5000, 101}, {0, 10}}, rangePartial},
		{"overlapping coalesced", "bytes=0-499,100-999", size, []span{{0, 1000}}, rangePartial},
		{"nearby coalesced", "bytes=0-9,100-109", size, []span{{0, 110}}, rangePartial},
		{"repeated coalesced", "bytes=" + strings.Repeat("0-9999,", 20), size, []span{{0, size}}, rangePartial},
		{"empty file ignored", "bytes=0-", 0, nil, rangeNone},
		{"empty file suffix ignored", "bytes=-5", 0, nil, rangeNone},
		{"too many ranges ignored", "bytes=" + strings.Repeat("0-0,", 33), size, nil, rangeNone},
		{"parts cost more than file", "bytes=0-0,300-300,600-600", 700, nil, rangeNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, v := parseRange(tt.hdr, tt.size, defaultMaxRanges)
			if v != tt.verdict || !slices.Equal(got, tt.want) {
				t.Errorf("parseRange(%q, %d) = %v, %v; want %v, %v", tt.hdr, tt.size, got, v, tt.want, tt.verdict)
			}
		})
	}
}

func TestParseRangeMaxRangesNegativeIgnoresRange(t *testing.T) {
	t.Parallel()
	if got, v := parseRange("bytes=0-0", 10, -1); v != rangeNone || got != nil {
		t.Errorf("got %v, %v; want ignored", got, v)
	}
}

// TestLayoutMultipart checks that the layout's length is exact and that a
// standard multipart reader gets every part with the right headers and bytes.
func TestLayoutMultipart(t *testing.T) {
	t.Parallel()
	file := make([]byte, 5000)
	for i := range file {
		file[i] = byte(i * 7)
	}
	tests := []struct {
		name  string
		spans []span
		ctype string
	}{
		{"two parts", []span{{0, 10}, {4000, 1000}}, "text/plain; charset=utf-8"},
		{"no content type", []span{{1, 1}, {3000, 5}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := layoutMultipart(tt.spans, tt.ctype, int64(len(file)))
			var body bytes.Buffer
			for i, s := range tt.spans {
				body.Write(l.heads[i])
				body.Write(file[s.off:s.end()])
			}
			body.Write(l.tail)
			if int64(body.Len()) != l.length {
				t.Fatalf("length = %d, body is %d", l.length, body.Len())
			}
			mt, params, err := mime.ParseMediaType(l.contentType)
			if err != nil || mt != "multipart/byteranges" {
				t.Fatalf("content type %q: %v", l.contentType, err)
			}
			mr := multipart.NewReader(&body, params["boundary"])
			for i, s := range tt.spans {
				p, err := mr.NextPart()
				if err != nil {
					t.Fatalf("part %d: %v", i, err)
				}
				if got, want := p.Header.Get("Content-Range"), s.contentRange(int64(len(file))); got != want {
					t.Errorf("part %d Content-Range = %q, want %q", i, got, want)
				}
				if got := p.Header.Get("Content-Type"); got != tt.ctype {
					t.Errorf("part %d Content-Type = %q, want %q", i, got, tt.ctype)
				}
				b, _ := io.ReadAll(p)
				if !bytes.Equal(b, file[s.off:s.end()]) {
					t.Errorf("part %d body differs", i)
				}
			}
			if _, err := mr.NextPart(); err != io.EOF {
				t.Errorf("after last part: %v, want EOF", err)
			}
		})
	}
}

// FuzzParseRange checks the invariants every answer must keep: spans lie
// inside the file and disjoint, and a multipart answer is never
// much larger than the file (no amplification).
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-0", "bytes=-0", "bytes=-5", "bytes=5-", "bytes=0-1,3-4", "bytes=1-0",
		"bytes=0-0,0-0,0-0", "bytes= 0 - 1 , -2", "items=1-2", "bytes=99999999999999999999-", "bytes=,,,"} {
		f.Add(s, int64(1000))
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, hdr string, size int64) {
		if size < 0 {
			size = -size
			if size < 0 {
				return
			}
		}
		spans, v := parseRange(hdr, size, defaultMaxRanges)
		if v != rangePartial {
			if spans != nil {
				t.Fatalf("verdict %v with spans %v", v, spans)
			}
			return
		}
		if len(spans) == 0 || len(spans) > defaultMaxRanges {
			t.Fatalf("%d spans", len(spans))
		}
		var total int64
		sorted := slices.SortedFunc(slices.Values(spans), func(a, b span) int { return cmp.Compare(a.off, b.off) })
		for i, s := range sorted {
			if s.off < 0 || s.n <= 0 || s.end() > size {
				t.Fatalf("span %v outside file of %d", s, size)
			}
			if i > 0 && s.off <= sorted[i-1].end() {
				t.Fatalf("spans overlap: %v", spans)
			}
			total += s.n
		}
		if total > size {
			t.Fatalf("%d bytes of spans for a file of %d", total, size)
		}
		if len(spans) > 1 {
			if l := layoutMultipart(spans, "application/octet-stream", size); l.length > 2*size+256 {
				t.Fatalf("multipart body of %d bytes for a file of %d", l.length, size)
			}
		}
	})
}
