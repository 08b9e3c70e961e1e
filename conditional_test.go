package jaws

import (
	"net/http"
	"testing"
	"time"
)

func TestEvalPreconditions(t *testing.T) {
	t.Parallel()
	const etag = `"abc"`
	mod := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	at := mod.Format(http.TimeFormat)
	before := mod.Add(-time.Hour).Format(http.TimeFormat)
	after := mod.Add(time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name     string
		method   string
		hdr      map[string]string
		status   int
		useRange bool
	}{
		{"none", "GET", nil, 0, true},
		{"If-Match strong match", "GET", map[string]string{"If-Match": `"x", "abc"`}, 0, true},
		{"If-Match star", "GET", map[string]string{"If-Match": "*"}, 0, true},
		{"If-Match miss", "GET", map[string]string{"If-Match": `"x"`}, 412, false},
		{"If-Match weak never matches", "GET", map[string]string{"If-Match": `W/"abc"`}, 412, false},
		{"If-Match over If-Unmodified-Since", "GET", map[string]string{"If-Match": etag, "If-Unmodified-Since": before}, 0, true},
		{"If-Unmodified-Since before", "GET", map[string]string{"If-Unmodified-Since": before}, 412, false},
		{"If-Unmodified-Since equal", "GET", map[string]string{"If-Unmodified-Since": at}, 0, true},
		{"If-Unmodified-Since invalid ignored", "GET", map[string]string{"If-Unmodified-Since": "yesterday"}, 0, true},
		{"If-None-Match weak match GET", "GET", map[string]string{"If-None-Match": `W/"abc"`}, 304, false},
		{"If-None-Match match HEAD", "HEAD", map[string]string{"If-None-Match": etag}, 304, false},
		{"If-None-Match match other method", "POST", map[string]string{"If-None-Match": etag}, 412, false},
		{"If-None-Match star", "GET", map[string]string{"If-None-Match": "*"}, 304, false},
		{"If-None-Match miss", "GET", map[string]string{"If-None-Match": `"zzz"`}, 0, true},
		{"If-None-Match over If-Modified-Since", "GET", map[string]string{"If-None-Match": `"zzz"`, "If-Modified-Since": after}, 0, true},
		{"If-Match before If-None-Match", "GET", map[string]string{"If-Match": `"x"`, "If-None-Match": etag}, 412, false},
		{"If-Modified-Since equal", "GET", map[string]string{"If-Modified-Since": at}, 304, false},
		{"If-Modified-Since after", "GET", map[string]string{"If-Modified-Since": after}, 304, false},
		{"If-Modified-Since before", "GET", map[string]string{"If-Modified-Since": before}, 0, true},
		{"If-Modified-Since ignored for POST", "POST", map[string]string{"If-Modified-Since": after}, 0, false},
		{"Range ignored for HEAD", "HEAD", map[string]string{"Range": "bytes=0-0"}, 0, false},
		{"If-Range strong match", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": etag}, 0, true},
		{"If-Range weak tag", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": `W/"abc"`}, 0, false},
		{"If-Range other tag", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": `"x"`}, 0, false},
		{"If-Range exact date", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": at}, 0, true},
		{"If-Range other date", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": before}, 0, false},
		{"If-Range garbage", "GET", map[string]string{"Range": "bytes=0-0", "If-Range": "soon"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.hdr {
				h.Set(k, v)
			}
			status, useRange := evalPreconditions(tt.method, h, etag, mod)
			if status != tt.status || useRange != tt.useRange {
				t.Errorf("got %d, %v; want %d, %v", status, useRange, tt.status, tt.useRange)
			}
		})
	}
}

func TestMatchListSeveralFieldLines(t *testing.T) {
	t.Parallel()
	h := http.Header{"If-None-Match": {`"a"`, `"b", "c"`}}
	if got := checkIfNoneMatch(h, `"c"`); got != condFalse {
		t.Errorf("tag in the second field line: got %v, want condFalse", got)
	}
	if got := checkIfMatch(http.Header{"If-Match": {""}}, `"c"`); got != condNone {
		t.Errorf("empty If-Match: got %v, want condNone", got)
	}
}

func TestZeroModtimeIgnoresDates(t *testing.T) {
	t.Parallel()
	h := http.Header{"If-Modified-Since": {time.Now().Format(http.TimeFormat)}}
	for _, mod := range []time.Time{{}, time.Unix(0, 0)} {
		if status, _ := evalPreconditions("GET", h, `"a"`, mod); status != 0 {
			t.Errorf("modtime %v: status %d, want 0", mod, status)
		}
	}
}

func TestScanETag(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, tag, rest string }{
		{`"abc"`, `"abc"`, ""},
		{` W/"abc", "d"`, `W/"abc"`, `, "d"`},
		{`abc`, "", ""},
		{`"ab c"`, "", ""},
		{`"unterminated`, "", ""},
	}
	for _, tt := range tests {
		if tag, rest := scanETag(tt.in); tag != tt.tag || rest != tt.rest {
			t.Errorf("scanETag(%q) = %q, %q; want %q, %q", tt.in, tag, rest, tt.tag, tt.rest)
		}
	}
}

// FuzzPreconditions: whatever the headers, the answer is one of the four
// legal outcomes and a 304 is only ever given to GET or HEAD.
func FuzzPreconditions(f *testing.F) {
	f.Add("GET", `"a"`, "", "", "", "")
	f.Add("HEAD", "", `W/"a", *`, "", "", "")
	f.Add("PUT", "*", "", "Mon, 02 Jan 2006 15:04:05 GMT", "", "")
	f.Fuzz(func(t *testing.T, method, im, inm, ims, ius, ir string) {
		h := http.Header{"If-Match": {im}, "If-None-Match": {inm}, "If-Modified-Since": {ims},
			"If-Unmodified-Since": {ius}, "If-Range": {ir}, "Range": {"bytes=0-0"}}
		status, useRange := evalPreconditions(method, h, `"a"`, time.Unix(1e9, 0))
		switch status {
		case 0:
		case http.StatusNotModified:
			if method != "GET" && method != "HEAD" {
				t.Fatalf("304 for %q", method)
			}
		case http.StatusPreconditionFailed:
		default:
			t.Fatalf("status %d", status)
		}
		if status != 0 && useRange {
			t.Fatal("range used on a final status")
		}
	})
}
