package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

// BenchmarkRouter_1K is one hit on a 1 KiB file through the example's whole
// handler (the site's CacheControl and SPA in front of chi, which a file
// never reaches), BenchmarkBare_1K the same
// through the jaws handler alone: the difference is what the router costs.
func BenchmarkRouter_1K(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "1K.bin"), make([]byte, 1024), 0o644)
	h, fsys, err := newHandler(dir, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	router, err := newRouter(h, fsys, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/1K.bin", nil)
	w := &testsite.Discard{H: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.H)
		router.ServeHTTP(w, r)
	}
}

func BenchmarkBare_1K(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "1K.bin"), make([]byte, 1024), 0o644)
	h, _, err := newHandler(dir, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	r := httptest.NewRequest("GET", "/1K.bin", nil)
	w := &testsite.Discard{H: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.H)
		h.ServeHTTP(w, r)
	}
}
