package jaws

import (
	"bytes"
	"testing"
)

// TestSkipSegments: what is left of a layout once a prefix of it was sent
// is the same bytes as the layout's own suffix, wherever the prefix ends (in
// a head, in a span, at a boundary, in the tail), and the layout itself is
// left as it was.
func TestSkipSegments(t *testing.T) {
	t.Parallel()
	file := []byte("0123456789abcdefghij")
	segs := []segment{{[]byte("HEAD"), span{2, 5}}, {[]byte("--p2"), span{10, 3}}, {nil, span{15, 4}}}
	tail := []byte("--end")
	whole := render(t, file, segs, tail)
	for n := range int64(len(whole)) + 1 {
		before := render(t, file, segs, tail)
		rest, rtail := skipSegments(segs, tail, n)
		if got := render(t, file, rest, rtail); !bytes.Equal(got, whole[n:]) {
			t.Errorf("after %d bytes: %q, want %q", n, got, whole[n:])
		}
		if after := render(t, file, segs, tail); !bytes.Equal(after, before) {
			t.Fatalf("after %d bytes the layout changed: %q", n, after)
		}
	}
}

// render writes a layout with the walk every path uses.
func render(t *testing.T, file []byte, segs []segment, tail []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := writeSegments(&b, sectionSource{bytes.NewReader(file)}, segs, tail)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("writeSegments: %d bytes reported, %d written, %v", n, b.Len(), err)
	}
	return b.Bytes()
}
