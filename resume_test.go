package jaws_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// resumeText is n bytes of compressible text, lines numbered from seed.
func resumeText(n, seed int) []byte {
	var b bytes.Buffer
	for i := seed; b.Len() < n; i++ {
		fmt.Fprintf(&b, ".rule-%d { margin: %dpx; color: #%06x; }\n", i, i%64, i*7919%0xffffff)
	}
	return b.Bytes()[:n]
}

func gzipped(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(b)
	must(t, err)
	must(t, zw.Close())
	return out.Bytes()
}

// TestCurlResume runs curl as a user resuming a download does: curl
// --compressed -C - continues from the size of the file it saved, decoded.
// The range must be a range of the file, so the file ends whole, for a file
// compressed on request, one with a precompressed sibling served from disk,
// and one shipped compressed only; over HTTP/1.1, TLS and the fast lane.
func TestCurlResume(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is missing")
		}
		t.Skip("no curl")
	}
	files := map[string][]byte{
		"style.css": resumeText(30<<10, 1), // compressed on request, from memory
		"big.css":   resumeText(3<<20, 2),  // a .gz sibling; identity from disk
		"only.css":  resumeText(40<<10, 3), // only.css.gz and nothing else
	}
	mtime := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	site := testsite.New(t)
	site.FileAt("style.css", files["style.css"], mtime)
	site.FileAt("big.css", files["big.css"], mtime)
	site.FileAt("big.css.gz", gzipped(t, files["big.css"]), mtime)
	site.FileAt("only.css.gz", gzipped(t, files["only.css"]), mtime)

	for _, kind := range []string{"http", "tls", "lane"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			h, err := jaws.New(site.Root, jaws.Options{})
			must(t, err)
			t.Cleanup(func() { h.Close() })
			var url string
			switch kind {
			case "http":
				url = testsite.Start(t, testsite.HTTP1, h).URL
			case "tls":
				url = testsite.Start(t, testsite.TLS1, h).URL
			case "lane":
				url = laneServer(t, h, nil, nil).URL
			}
			dir := t.TempDir()
			for name, want := range files {
				out := filepath.Join(dir, name)
				// Twice: the lane answers a request once it has learnt it.
				for range 2 {
					run := func(args ...string) {
						t.Helper()
						args = append([]string{"-sS", "-k", "--compressed", "-o", out}, args...)
						if b, err := exec.Command(curl, append(args, url+"/"+name)...).CombinedOutput(); err != nil {
							t.Fatalf("curl %q: %v\n%s", args, err, b)
						}
					}
					run()
					if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
						t.Fatalf("%s: downloaded %d bytes, not the file's %d", name, len(got), len(want))
					}
					cut := len(want) / 3
					must(t, os.WriteFile(out, want[:cut], 0o644))
					run("-C", "-")
					if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
						t.Fatalf("%s resumed at %d: %d bytes, not the file's %d", name, cut, len(got), len(want))
					}
				}
			}
			if kind == "lane" && h.Stats().Lane.Responses == 0 {
				t.Error("the lane answered nothing")
			}
		})
	}
}
