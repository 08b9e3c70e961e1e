package jaws_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestDictionaryReadsLittle: a request naming a dictionary jaws does not
// know reads nothing a request without one would not (SECURITY.md, "No
// read amplification"): the first such request for a file's entry looks for
// its earlier versions once, hashing at most 1 MiB of them, and no later
// one reads a byte more, however many hashes it makes up. Not
// parallel: rchar counts the whole process.
func TestDictionaryReadsLittle(t *testing.T) {
	const size = 300 << 10 // on disk (above CacheMaxFileSize), compressed in memory
	site := testsite.New(t)
	bundle := func(i int) ([]byte, string) {
		var b bytes.Buffer
		for j := 0; b.Len() < size; j++ {
			fmt.Fprintf(&b, "export const v%d = %d; // build %d\n", j, j*7, i)
		}
		sum := sha256.Sum256(b.Bytes())
		return b.Bytes(), "assets/app." + hex.EncodeToString(sum[:4]) + ".js"
	}
	for i := range 8 { // seven earlier builds kept beside the current one
		data, name := bundle(i)
		site.File(name, data)
	}
	_, cur := bundle(7)
	h := newHandler(t, site.Root, jaws.Options{})
	srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		h.ServeHTTP(w, r)
	})
	const ae = "gzip, deflate, br, zstd, dcb, dcz"
	unknown := func(i int) string {
		sum := sha256.Sum256([]byte(fmt.Sprint("nobody's dictionary ", i)))
		return ":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	read := func(header ...string) (int64, string) {
		t.Helper()
		before := rchar(t)
		w := testsite.Serve(srv, "GET", "/"+cur, header...)
		n := rchar(t) - before
		if w.Code != 200 {
			t.Fatalf("%d", w.Code)
		}
		h.SyncCache()
		return n, w.Header().Get("Content-Encoding")
	}
	read("Accept-Encoding", ae) // builds the entry and the br variant
	plain, enc := read("Accept-Encoding", ae)
	if enc != "br" {
		t.Fatalf("Content-Encoding %q, want br", enc)
	}
	first, enc := read("Accept-Encoding", ae, "Available-Dictionary", unknown(0))
	t.Logf("a br hit read %d bytes; the first unknown hash %d (the look for earlier builds)", plain, first)
	if enc != "br" {
		t.Errorf("unknown hash: Content-Encoding %q, want br", enc)
	}
	if first > plain+1<<20 {
		t.Errorf("the first request naming an unknown hash read %d bytes, more than 1 MiB beyond a br hit's %d", first, plain)
	}
	// rchar's own read of /proc/self/io varies by a few bytes.
	const slack = 1 << 10
	for i := 1; i <= 5; i++ {
		n, enc := read("Accept-Encoding", ae, "Available-Dictionary", unknown(i))
		if enc != "br" || n > plain+slack {
			t.Errorf("unknown hash %d: %q, read %d bytes, a br hit %d", i, enc, n, plain)
		}
	}
	// The newest earlier builds were hashed by that look: naming one gets
	// the difference.
	prev, _ := bundle(6)
	sum := sha256.Sum256(prev)
	if _, enc := read("Accept-Encoding", ae, "Available-Dictionary", ":"+base64.StdEncoding.EncodeToString(sum[:])+":"); enc != "dcz" {
		t.Errorf("the build before: Content-Encoding %q, want dcz", enc)
	}
}
