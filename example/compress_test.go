//go:build !compressedonly

// The demo site's tests: with -tags compressedonly the built-in site is the
// Vite build, which compressedonly_test.go tests.

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws"
	decodepkg "github.com/jaws-go/jaws/internal/decode"
)

var precompress = flag.Bool("precompress", false, "TestPrecompressedSiblings: rewrite site/assets/app.*.js.br from site/assets/app.*.js (brotli quality 11)")

// siblingExts are the suffixes of precompressed siblings jaws serves.
var siblingExts = []string{".br", ".zst", ".gz"}

// decode returns body decoded from the content coding enc ("" for none).
func decode(t testing.TB, enc string, body []byte) []byte {
	t.Helper()
	out, err := decodepkg.Body(enc, body)
	if err != nil {
		t.Fatalf("decoding %q: %v", enc, err)
	}
	return out
}

// decodeDcz is decode for a body that may be in dcz, compressed with dict
// (RFC 9842 §5: 40 bytes naming the dictionary, then a zstd frame made
// with it).
func decodeDcz(t testing.TB, enc string, body, dict []byte) []byte {
	t.Helper()
	if enc != "dcz" {
		return decode(t, enc, body)
	}
	if sum := sha256.Sum256(dict); len(body) < 40 || !bytes.Equal(body[8:40], sum[:]) {
		t.Fatalf("a dcz body of %d bytes that does not name the dictionary", len(body))
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, dict))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(body[40:], nil)
	if err != nil {
		t.Fatalf("decoding dcz: %v", err)
	}
	return out
}

// dictionaryHeld is the Available-Dictionary of a browser holding the
// site's file name as a dictionary.
func dictionaryHeld(t testing.TB, name string) http.Header {
	sum := sha256.Sum256(siteFile(t, name))
	return http.Header{"Available-Dictionary": {":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"}}
}

// TestPrecompressedSiblings: every precompressed sibling in the demo site
// decodes to exactly its original, so a sibling left stale by an edit of
// the original fails here rather than serving old bytes; and the script has
// one, next to it in assets/. (Embedded files have no modification time,
// so jaws cannot tell a stale sibling by its age; it checks a sibling's
// bytes when first asked for it, and ignores a stale one, serving the file
// compressed on request instead. This test makes that a failed build.)
// With -precompress it first rewrites the script's sibling:
//
//	go test ./example -run TestPrecompressedSiblings -precompress
func TestPrecompressedSiblings(t *testing.T) {
	script := appScript(t)
	if *precompress {
		var buf bytes.Buffer
		w := brotli.NewWriterLevel(&buf, brotli.BestCompression)
		w.Write(siteFile(t, script))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// The embedded copy is the old one until the next build, so the
		// checks below read the new file from disk.
		if err := os.WriteFile(filepath.Join("site", script+".br"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote site/%s.br: %d bytes for %d", script, buf.Len(), len(siteFile(t, script)))
	}
	site := os.DirFS("site") // the files as they are now, -precompress's included
	siblings := siblingsIn(t, site)
	if !contains(siblings, script+".br") {
		t.Errorf("no site/%s.br: regenerate it with -precompress (see the test's comment)", script)
	}
	for _, name := range siblings {
		orig := name[:len(name)-len(path.Ext(name))]
		want, err := fs.ReadFile(site, orig)
		if err != nil {
			t.Errorf("site/%s has no original: %v", name, err)
			continue
		}
		packed, err := fs.ReadFile(site, name)
		if err != nil {
			t.Fatal(err)
		}
		enc := map[string]string{".br": "br", ".zst": "zstd", ".gz": "gzip"}[path.Ext(name)]
		if got := decode(t, enc, packed); !bytes.Equal(got, want) {
			t.Errorf("site/%s decodes to %d bytes that are not site/%s (%d bytes): stale; regenerate it with -precompress", name, len(got), orig, len(want))
		}
	}

}

// siblingsIn lists the precompressed siblings in fsys, by their suffix.
func siblingsIn(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var siblings []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, ext := range siblingExts {
			if strings.HasSuffix(name, ext) {
				siblings = append(siblings, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return siblings
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// compressSample is 64 KiB of minified JavaScript from the Go distribution,
// for BenchmarkFirstRequest.
func compressSample(b *testing.B) []byte {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "src", "internal", "trace", "traceviewer", "static", "webcomponents.min.js")
	js, err := os.ReadFile(file)
	if err != nil || len(js) < 64<<10 {
		b.Skipf("no 64 KiB of JavaScript at %s: %v", file, err)
	}
	return js[:64<<10]
}

// BenchmarkFirstRequest times what the first request for a 64 KiB
// JavaScript file costs in each coding and at each Compression.Level: a
// cache miss (open; the file is above the default CacheMaxFileSize, so it
// is sent from disk with an ETag from size and mtime) plus, with a coding,
// reading and compressing the file. Each iteration serves a file name not
// seen before; "identity" is the miss alone. Later requests are served from the cache and cost
// nothing extra. Run it with:
//
//	go test -run '^$' -bench FirstRequest -benchtime 20x ./example
func BenchmarkFirstRequest(b *testing.B) {
	js := compressSample(b)
	levels := []struct {
		name  string
		level jaws.CompressionLevel
	}{{"default", jaws.LevelDefault}, {"fastest", jaws.LevelFastest}, {"best", jaws.LevelBest}}
	for _, lv := range levels {
		for _, enc := range []string{"identity", "br", "zstd", "gzip"} {
			if enc == "identity" && lv.level != jaws.LevelDefault {
				continue
			}
			b.Run(lv.name+"/"+enc, func(b *testing.B) {
				dir := b.TempDir()
				h, err := jaws.New(dir, jaws.Options{Compression: jaws.Compression{Level: lv.level}})
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				var size int
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					name := fmt.Sprintf("app.%d.js", i)
					if err := os.WriteFile(filepath.Join(dir, name), js, 0o644); err != nil {
						b.Fatal(err)
					}
					req := httptest.NewRequest("GET", "/"+name, nil)
					if enc != "identity" {
						req.Header.Set("Accept-Encoding", enc)
					}
					w := httptest.NewRecorder()
					b.StartTimer()
					h.ServeHTTP(w, req)
					b.StopTimer()
					got := w.Header().Get("Content-Encoding")
					if w.Code != http.StatusOK || got != strings.TrimPrefix(enc, "identity") {
						b.Fatalf("%d, Content-Encoding %q, want 200 and %q", w.Code, got, enc)
					}
					size = w.Body.Len()
					b.StartTimer()
				}
				b.ReportMetric(float64(size), "bytes")
				b.ReportMetric(0, "ns/op")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/first-request")
			})
		}
	}
}
