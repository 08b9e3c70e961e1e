package jaws

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/jaws-go/jaws/internal/testsite"
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
	// jaws-header: with Options.Header setting three fields per file.
	hh, err := New(dir, Options{Header: func(_ string, h http.Header) {
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Add("Link", "</style.css>; rel=preload; as=style")
	}})
	must(b, err)
	b.Cleanup(func() { hh.Close() })
	return dir, map[string]http.Handler{"jaws": h, "jaws-header": hh, "stdlib": http.FileServer(http.Dir(dir))}
}

// BenchmarkHandler measures one GET in the handler alone, per size and
// peer; jaws-header is jaws with Options.Header set, which must allocate
// nothing more.
func BenchmarkHandler(b *testing.B) {
	_, peers := benchPeers(b)
	for _, s := range benchSizes {
		for _, peer := range []string{"jaws", "jaws-header", "stdlib"} {
			b.Run(s.name+"/"+peer, func(b *testing.B) {
				h := peers[peer]
				r := httptest.NewRequest("GET", "/"+s.name+".bin", nil)
				w := &testsite.Discard{H: http.Header{}}
				b.SetBytes(int64(s.size))
				b.ReportAllocs()
				for b.Loop() {
					clear(w.H)
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

// BenchmarkCompressed measures one GET of 64 KiB of JavaScript in the
// handler alone: jaws without Accept-Encoding, jaws answering from its
// cached compressed variants, and chi's Compress middleware in front of
// http.FileServer, which compresses on every request.
func BenchmarkCompressed(b *testing.B) {
	dir := b.TempDir()
	var src []byte
	for _, f := range []string{"net/http/server.go", "net/http/fs.go", "net/http/transport.go"} {
		text, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		must(b, err)
		src = append(src, text...)
	}
	src = src[:64<<10]
	must(b, os.WriteFile(filepath.Join(dir, "app.js"), src, 0o644))
	h, err := New(dir, Options{})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	peers := []struct {
		name, accept string
		h            http.Handler
	}{
		{"jaws/identity", "", h},
		{"jaws/gzip", "gzip", h},
		{"jaws/br", "br", h},
		{"jaws/zstd", "zstd", h},
		{"chi-compress/gzip", "gzip", chimw.Compress(5)(http.FileServer(http.Dir(dir)))},
	}
	for _, p := range peers {
		b.Run(p.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/app.js", nil)
			if p.accept != "" {
				r.Header.Set("Accept-Encoding", p.accept)
			}
			w := &testsite.Discard{H: http.Header{}}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				clear(w.H)
				p.h.ServeHTTP(w, r)
			}
			if got := w.H.Get("Content-Encoding"); got != p.accept {
				b.Fatalf("Content-Encoding %q, want %q", got, p.accept)
			}
		})
	}
}

// BenchmarkDictionary measures a hit of a versioned script (a bundler's
// hashed name, immutable) in brotli: with compression dictionaries off, on
// (the offer: Use-As-Dictionary, and Vary), and its answer in dcz to a
// browser holding the previous build, from the cached delta.
func BenchmarkDictionary(b *testing.B) {
	rel := newReleases(64<<10, 40)
	dir := b.TempDir()
	must(b, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	must(b, os.WriteFile(filepath.Join(dir, rel.oldName), rel.old, 0o644))
	must(b, os.WriteFile(filepath.Join(dir, rel.curName), rel.cur, 0o644))
	for _, c := range []struct {
		name, accept, available, want string
		opts                          Options
	}{
		{"off", "br", "", "br", Options{Compression: Compression{DisableDictionaries: true}}},
		{"offer", "br", "", "br", Options{}},
		{"dcz", dictBrowser, availableDictionary(rel.old), "dcz", Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			h, err := New(dir, c.opts)
			must(b, err)
			b.Cleanup(func() { h.Close() })
			r := httptest.NewRequest("GET", "/"+rel.curName, nil)
			r.Header.Set("Accept-Encoding", c.accept)
			if c.available != "" {
				r.Header.Set("Available-Dictionary", c.available)
			}
			w := &testsite.Discard{H: http.Header{}}
			cc := []string{"public, max-age=31536000, immutable"}
			serve := func() {
				clear(w.H)
				w.H["Cache-Control"] = cc
				h.ServeHTTP(w, r)
			}
			serve()
			h.store.cache.sync()
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
			if got := w.H.Get("Content-Encoding"); got != c.want {
				b.Fatalf("Content-Encoding %q, want %q", got, c.want)
			}
		})
	}
}

// BenchmarkFirstDelta measures what the first request for a pair costs
// over a hit: compressing a 300 KB bundle with the previous build as its
// dictionary (dcz, once per pair) against compressing it with brotli at the
// default level (once per version), as the encoder does each.
func BenchmarkFirstDelta(b *testing.B) {
	rel := newReleases(300<<10, 41)
	sum := sha256.Sum256(rel.old)
	enc := newEncoder(LevelDefault, 1)
	b.Run("br", func(b *testing.B) {
		b.SetBytes(int64(len(rel.cur)))
		for b.Loop() {
			_, err := enc.compress(brotliCoding, rel.cur)
			must(b, err)
		}
	})
	b.Run("dcz", func(b *testing.B) {
		b.SetBytes(int64(len(rel.cur)))
		for b.Loop() {
			_, err := enc.dcz(rel.cur, rel.old, &sum)
			must(b, err)
		}
	})
}

// BenchmarkImageFromDisk measures a GET of a 200 KiB image, sent from disk
// (above CacheMaxFileSize), in the handler alone, with a browser's
// Accept-Encoding and without: an image is not compressed, so both are
// answered from the file, and both look once for what the root names
// (TestOneLookPerRequest).
func BenchmarkImageFromDisk(b *testing.B) {
	dir := b.TempDir()
	must(b, os.WriteFile(filepath.Join(dir, "photo.jpg"), randomBytes(200<<10), 0o644))
	h, err := New(dir, Options{})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	for _, accept := range []string{"", "gzip, deflate, br, zstd"} {
		b.Run("accept="+strings.ReplaceAll(accept, " ", ""), func(b *testing.B) {
			r := httptest.NewRequest("GET", "/photo.jpg", nil)
			if accept != "" {
				r.Header.Set("Accept-Encoding", accept)
			}
			w := &testsite.Discard{H: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.H)
				h.ServeHTTP(w, r)
			}
			if w.H.Get("Content-Encoding") != "" || w.H.Get("Content-Length") != strconv.Itoa(200<<10) {
				b.Fatalf("headers %v", w.H)
			}
		})
	}
}

// BenchmarkCompressedFromDisk measures a brotli hit on a 200 KiB script,
// sent from disk when asked for uncompressed (above CacheMaxFileSize) and
// from its variant in memory here: the hit reads nothing of the file, so it
// makes no fstat of the file's descriptor (holdsVersion is for requests
// that read it).
func BenchmarkCompressedFromDisk(b *testing.B) {
	dir := b.TempDir()
	must(b, os.WriteFile(filepath.Join(dir, "big.js"), bytes.Repeat([]byte("export const someName = 12345;\n"), 200<<10/31), 0o644))
	h, err := New(dir, Options{})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	r := httptest.NewRequest("GET", "/big.js", nil)
	r.Header.Set("Accept-Encoding", "br")
	for range 3 { // the variant is made, then cached
		h.ServeHTTP(&testsite.Discard{H: http.Header{}}, r)
		h.store.cache.sync()
	}
	for b.Loop() {
		h.ServeHTTP(&testsite.Discard{H: http.Header{}}, r)
	}
}

// BenchmarkFastLane measures one GET over a keep-alive loopback connection
// with a raw client that allocates nothing, so that allocs/op are the
// server's: jaws through net/http, and jaws on its fast lane (FastLane),
// per size (1K to 64K from memory, 1M from disk by sendfile).
func BenchmarkFastLane(b *testing.B) {
	if !lanePeeks {
		b.Skip("no fast lane here")
	}
	dir, _ := benchPeers(b)
	for _, s := range benchSizes {
		for _, lane := range []bool{false, true} {
			name := s.name + "/net-http"
			if lane {
				name = s.name + "/lane"
			}
			b.Run(name, func(b *testing.B) {
				h, err := New(dir, Options{})
				must(b, err)
				defer h.Close()
				srv := httptest.NewUnstartedServer(h)
				if lane {
					srv.Listener = h.FastLane(srv.Listener, srv.Config, "/")
				}
				srv.Start()
				defer srv.Close()
				get := []byte("GET /" + s.name + ".bin HTTP/1.1\r\nHost: x\r\n\r\n")
				c := rawClient(b, srv.Listener.Addr().String())
				c.exchange(b, get) // learns the name
				c.Close()
				c = rawClient(b, srv.Listener.Addr().String())
				defer c.Close()
				b.SetBytes(int64(s.size))
				b.ReportAllocs()
				for b.Loop() {
					c.exchange(b, get)
				}
				if lane && h.Stats().Lane.Responses == 0 {
					b.Fatal("the lane answered nothing")
				}
			})
		}
	}
}

// benchClient is a keep-alive client that reads a response into a buffer
// of its own, allocating nothing per request.
type benchClient struct {
	net.Conn
	buf []byte
}

func rawClient(b *testing.B, addr string) *benchClient {
	c, err := net.Dial("tcp", addr)
	must(b, err)
	return &benchClient{Conn: c, buf: make([]byte, 256<<10)}
}

// exchange sends req and reads its response: the header block, then
// Content-Length bytes of body.
func (c *benchClient) exchange(b *testing.B, req []byte) {
	if _, err := c.Write(req); err != nil {
		b.Fatal(err)
	}
	n, end := 0, -1
	for end < 0 {
		m, err := c.Read(c.buf[n:])
		if err != nil {
			b.Fatal(err)
		}
		n += m
		end = bytes.Index(c.buf[:n], []byte("\r\n\r\n"))
	}
	head := c.buf[:end]
	i := bytes.Index(head, []byte("Content-Length: "))
	if i < 0 {
		b.Fatalf("no Content-Length in %q", head)
	}
	j := bytes.IndexByte(head[i:], '\r')
	if j < 0 {
		j = len(head) - i
	}
	length, _ := strconv.Atoi(string(head[i+16 : i+j]))
	for left := end + 4 + length - n; left > 0; {
		m, err := c.Read(c.buf[:min(left, len(c.buf))])
		if err != nil {
			b.Fatal(err)
		}
		left -= m
	}
}

// BenchmarkCompressedOnly measures a hit in the handler alone of a file
// shipped compressed only (app.js.br, no app.js), in its stored coding and
// decoded, against the same hits of the file shipped plain with its
// sibling: they should cost about the same.
func BenchmarkCompressedOnly(b *testing.B) {
	dir := b.TempDir()
	src := hexText(16<<10, 1)
	must(b, os.WriteFile(filepath.Join(dir, "plain.js"), src, 0o644))
	must(b, os.WriteFile(filepath.Join(dir, "plain.js.br"), encodeAs(brotliCoding, src, ""), 0o644))
	must(b, os.WriteFile(filepath.Join(dir, "only.js.br"), encodeAs(brotliCoding, src, ""), 0o644))
	h, err := New(dir, Options{})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	for _, tc := range []struct{ name, path, accept string }{
		{"plain/identity", "/plain.js", ""},
		{"only/identity", "/only.js", ""},
		{"plain/br", "/plain.js", "br"},
		{"only/br", "/only.js", "br"},
	} {
		b.Run(tc.name, func(b *testing.B) { benchHits(b, h, tc.path, tc.accept) })
	}
}

// BenchmarkCleanURLs: a hit of a page by its clean URL (Options.CleanURLs)
// against a hit by its own name, from memory.
func BenchmarkCleanURLs(b *testing.B) {
	dir := b.TempDir()
	must(b, os.WriteFile(filepath.Join(dir, "about.html"), hexText(4<<10, 1), 0o644))
	h, err := New(dir, Options{CleanURLs: true})
	must(b, err)
	b.Cleanup(func() { h.Close() })
	for _, tc := range []struct{ name, path string }{
		{"own name", "/about.html"},
		{"clean URL", "/about"},
	} {
		b.Run(tc.name, func(b *testing.B) { benchHits(b, h, tc.path, "") })
	}
}

// benchHits measures h's hits of path, asked with accept, once built.
func benchHits(b *testing.B, h *Handler, path, accept string) {
	r := httptest.NewRequest("GET", path, nil)
	if accept != "" {
		r.Header.Set("Accept-Encoding", accept)
	}
	w := &testsite.Discard{H: http.Header{}}
	h.ServeHTTP(w, r) // built
	h.store.cache.sync()
	b.ReportAllocs()
	for b.Loop() {
		clear(w.H)
		h.ServeHTTP(w, r)
	}
}
