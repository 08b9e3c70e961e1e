package jaws

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestMetaETag(t *testing.T) {
	t.Parallel()
	mtime := time.Date(2024, 3, 4, 5, 6, 7, 890, time.UTC)
	for _, c := range []struct {
		name  string
		size  int64
		mtime time.Time
		want  string
	}{
		{"ordinary", 1 << 20, mtime, `"17b9775b2a58b97a.100000"`},
		{"empty", 0, mtime, `"17b9775b2a58b97a.0"`},
		{"epoch", 5, time.Unix(0, 0), `"0.5"`},
		{"before-epoch", 5, time.Unix(-1, 0), `"-3b9aca00.5"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := metaETag(c.size, c.mtime)
			if got != c.want {
				t.Errorf("metaETag = %s, want %s", got, c.want)
			}
			// Never a content ETag's shape: those hold 22 base64url characters and no dot.
			if !strings.Contains(got, ".") {
				t.Errorf("%s has no dot", got)
			}
			if tag, rest := scanETag(got); tag != got || rest != "" {
				t.Errorf("%s does not scan as one entity-tag", got)
			}
		})
	}
}

func TestReadDigest(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("x"))
	hx := hex.EncodeToString(sum[:])
	for _, c := range []struct {
		name, in, file string
		ok             bool
	}{
		{"text-mode", hx + "  a.mp4\n", "a.mp4", true},
		{"binary-mode", hx + " *a.mp4\n", "a.mp4", true},
		{"nested", hx + "  out/a.mp4\n", "media/a.mp4", true},
		{"alone", hx, "a.mp4", true},
		{"alone-newline", hx + "\n", "a.mp4", true},
		{"crlf", hx + "  a.mp4\r\n", "a.mp4", true},
		{"second-line-ignored", hx + "  a.mp4\nzz\n", "a.mp4", true},
		{"other-file", hx + "  b.mp4\n", "a.mp4", false},
		{"one-space", hx + " a.mp4\n", "a.mp4", false},
		{"tab", hx + "\ta.mp4\n", "a.mp4", false},
		{"short", hx[:62], "a.mp4", false},
		{"odd", hx[:63] + "g", "a.mp4", false},
		{"bsd-format", "SHA256 (a.mp4) = " + hx, "a.mp4", false},
		{"empty", "", "a.mp4", false},
		{"too-long-line", hx + "  " + strings.Repeat("a", maxDigestSibling), "a.mp4", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := readDigest(strings.NewReader(c.in), c.file)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if ok && got != sum {
				t.Errorf("sum %x, want %x", got, sum)
			}
		})
	}
}

// FuzzReadDigest: any sibling's bytes give an answer, never a panic, and a
// digest believed is the hex that starts the first line.
func FuzzReadDigest(f *testing.F) {
	sum := sha256.Sum256(nil)
	hx := hex.EncodeToString(sum[:])
	for _, s := range []string{hx + "  a\n", hx + " *a", hx, "", "\n", hx[:10]} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := readDigest(bytes.NewReader(in), "dir/a")
		if !ok {
			return
		}
		want, err := hex.DecodeString(string(in[:64]))
		if err != nil || !bytes.Equal(got[:], want) {
			t.Errorf("believed %x from %q", got, in)
		}
	})
}
