package jaws

import (
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

var benchSizes = []struct {
	name string
	size int
}{
	{"1K", 1 << 10},
	{"16K", 16 << 10},
	{"64K", 64 << 10},
	{"1M", 1 << 20},
}

// benchPeers serves one directory with jaws and with http.FileServer.
func benchPeers(b *testing.B) (dir string, peers map[string]http.Handler) {
	dir = b.TempDir()
	for _, s := range benchSizes {
		buf := make([]byte, s.size)
		rand.Read(buf)
		must(b, os.WriteFile(filepath.Join(dir, s.name+".bin"), buf, 0o644))
	}
	h, err := New(dir, Options{})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	return dir, map[string]http.Handler{"jaws": h, "stdlib": http.FileServer(http.Dir(dir))}
}

// discardWriter is the cheapest ResponseWriter: it measures the handler, not
// the writer. ReadFrom keeps io.Copy from allocating a buffer per call.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(io.Discard, r)
}

// BenchmarkHandler measures one GET in the handler alone, per size and peer.
func BenchmarkHandler(b *testing.B) {
	_, peers := benchPeers(b)
	for _, s := range benchSizes {
		for _, peer := range []string{"jaws", "stdlib"} {
			b.Run(s.name+"/"+peer, func(b *testing.B) {
				h := peers[peer]
				r := httptest.NewRequest("GET", "/"+s.name+".bin", nil)
				w := &discardWriter{h: http.Header{}}
				b.SetBytes(int64(s.size))
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					h.ServeHTTP(w, r)
				}
			})
		}
	}
}

// BenchmarkLoopback measures one GET end to end over a keep-alive loopback
// connection, client included; the load benchmark in bench/ is the real
// measure, this one is for quick comparisons.
func BenchmarkLoopback(b *testing.B) {
	_, peers := benchPeers(b)
	for _, s := range benchSizes {
		for _, peer := range []string{"jaws", "stdlib"} {
			b.Run(s.name+"/"+peer, func(b *testing.B) {
				srv := httptest.NewServer(peers[peer])
				defer srv.Close()
				c := srv.Client()
				url := srv.URL + "/" + s.name + ".bin"
				b.SetBytes(int64(s.size))
				b.ReportAllocs()
				for b.Loop() {
					resp, err := c.Get(url)
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
	}
}
