package jaws

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReviewSmugglingProbes plays framing tricks against jaws behind
// net/http and behind its lane, alone and behind a lane answer on the same
// connection, as FuzzFastLane does, with hand-picked streams: the two must
// read them alike. All held up.
func TestReviewSmugglingProbes(t *testing.T) {
	t.Parallel()
	if !lanePeeks {
		t.Skip("no fast lane here")
	}
	s := newLaneFuzzSite(t)
	const g = "GET /small.txt HTTP/1.1\r\nHost: x\r\n"
	probes := []string{
		g + "Content-Length : 5\r\n\r\nhello",
		g + "Content-Length\t: 5\r\n\r\nhello",
		g + "Transfer-Encoding: identity\r\n\r\n",
		g + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
		g + "X: y\r\n\tTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		g + "X: a\x00b\r\n\r\n",
		g + "Host: y\r\n\r\n",
		g + strings.Repeat("Range: bytes=0-1\r\n", 17) + "\r\n",
		g + "Connection: close, keep-alive\r\n\r\n" + g + "\r\n",
		g + "Connection: keep-alive\r\nConnection: close\r\n\r\n" + g + "\r\n",
		"GET /small.txt?%zz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt\x7f HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nX-Long: " + strings.Repeat("a", 9000) + "\r\n\r\n" + g + "\r\n",
		g + "\r\n\r\n" + g + "\r\n",
		g + "Expect: 100-continue\r\nContent-Length: 4\r\n\r\nGET " + g[4:] + "\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\n\rX: y\r\n\r\n",
		"GET /small.txt HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n",
		"HEAD /big.bin HTTP/1.1\r\nHost: x\r\n\r\n" + g + "Range: bytes=5-1\r\n\r\n",
		g + "If-None-Match: *\r\nIf-Match: *\r\n\r\n",
	}
	const first = "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, raw := range probes {
		for _, behind := range []bool{false, true} {
			steps := []step{{Send: raw, HalfClose: true, Drain: 2 * time.Second}}
			if behind {
				steps = []step{{Send: first, Read: 1}, {Send: raw, HalfClose: true, Drain: 2 * time.Second}}
			}
			got, want := s.both(steps)
			if !slices.Equal(got, want) {
				t.Errorf("%q (behind a lane answer: %v)\nlane:\n\t%s\nnet/http:\n\t%s", raw, behind,
					strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		}
	}
}
