package jaws_test

// NewFS over the kinds of fs.FS applications serve: an embed.FS (through
// fs.Sub, as it is usually served), os.DirFS, fstest.MapFS, a zip archive,
// and a file system whose files cannot seek.

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// embedSite is the embedded tree as applications serve it: fs.Sub of the
// embed.FS.
func embedSite(t testing.TB) fs.FS {
	t.Helper()
	sub, err := fs.Sub(embedded, "testdata/embedsite")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// TestDifferentialFS compares NewFS with http.FileServerFS over the same
// fs.FS, for every case of TestDifferential.
func TestDifferentialFS(t *testing.T) {
	t.Parallel()
	site := diffSite(t)
	for _, c := range []struct {
		name string
		fsys fs.FS
	}{
		{"embed", embedSite(t)},
		{"dirfs", os.DirFS(site.Root)},
		{"mapfs", mapFS(t, site.Root)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runDifferential(t, newFSHandler(t, c.fsys, jaws.Options{}), http.FileServerFS(c.fsys))
		})
	}
}

// countingFS counts the calls that reach a file system.
type countingFS struct {
	fs.FS
	calls atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.calls.Add(1)
	return c.FS.Open(name)
}

// TestEmbedLooksNothingUp: an embedded file, once its entry is built, is
// served without a call to the file system: embedded files never change.
// A file of any size is served from memory, with no Last-Modified (embedded
// files have no mtime) and the ETag its bytes have from memory on disk.
func TestEmbedLooksNothingUp(t *testing.T) {
	t.Parallel()
	cfs := &countingFS{FS: embedSite(t)}
	h := newFSHandler(t, cfs, jaws.Options{})
	disk := newHandler(t, "testdata/embedsite", jaws.Options{})
	for _, name := range []string{"one.txt", "k1.bin", "k100.bin", "dir/", "app.js"} {
		first := testsite.Serve(h, "GET", "/"+name)
		if first.Code != 200 {
			t.Fatalf("%s: %d", name, first.Code)
		}
		before := cfs.calls.Load()
		for range 3 {
			for _, hdr := range [][]string{nil, {"Range", "bytes=0-0"}, {"If-None-Match", first.Header().Get("Etag")}} {
				w := testsite.Serve(h, "GET", "/"+name, hdr...)
				if w.Code/100 != 2 && w.Code != 304 {
					t.Fatalf("%s %q: %d", name, hdr, w.Code)
				}
			}
		}
		if n := cfs.calls.Load() - before; n != 0 {
			t.Errorf("%s: %d calls to the file system after its first request", name, n)
		}
		if lm := first.Header().Get("Last-Modified"); lm != "" {
			t.Errorf("%s: Last-Modified %q for a file without mtime", name, lm)
		}
		want, err := fs.ReadFile(embedSite(t), strings.TrimSuffix(name, "/")+map[bool]string{true: "/index.html"}[strings.HasSuffix(name, "/")])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Body.Bytes(), want) {
			t.Errorf("%s: body differs", name)
		}
		if et := first.Header().Get("Etag"); et != contentTag(want) {
			t.Errorf("%s: ETag %s, want its content's, %s", name, et, contentTag(want))
		}
		if len(want) <= jaws.DefaultCacheMaxFileSize {
			if d := testsite.Serve(disk, "GET", "/"+name); d.Header().Get("Etag") != first.Header().Get("Etag") {
				t.Errorf("%s: ETag %s embedded, %s from disk", name, first.Header().Get("Etag"), d.Header().Get("Etag"))
			}
		}
	}
	st := h.Stats()
	if st.ZeroCopy.Responses+st.Fallback.Responses != 0 {
		t.Errorf("embedded files not all served from memory: %+v", st)
	}
}

// TestEmbedCompression: a precompressed sibling inside the embed.FS is
// served, and other text is compressed once.
func TestEmbedCompression(t *testing.T) {
	t.Parallel()
	h := newFSHandler(t, embedSite(t), jaws.Options{})
	want, _ := fs.ReadFile(embedSite(t), "app.js")
	for _, c := range []struct {
		accept, coding string
	}{
		{"gzip", "gzip"},
		{"br", "br"},
		{"", ""},
	} {
		w := testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", c.accept)
		if w.Code != 200 || w.Header().Get("Content-Encoding") != c.coding || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%q: %d, Content-Encoding %q, Vary %q", c.accept, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
		}
		if c.coding == "gzip" {
			sib, _ := fs.ReadFile(embedSite(t), "app.js.gz")
			if !bytes.Equal(w.Body.Bytes(), sib) {
				t.Errorf("gzip: not the sibling's bytes")
			}
			zr, err := gzip.NewReader(w.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := io.ReadAll(zr); !bytes.Equal(got, want) {
				t.Errorf("gzip: decodes to other bytes")
			}
		}
	}
	if st := h.Stats(); st.Compressions != 1 {
		t.Errorf("%d compressions, want 1 (br; gzip is the sibling)", st.Compressions)
	}
}

// TestFSFreshness: a file system that is not an embed.FS is checked on every
// request: a rewrite, a replacement and a removal are seen by the next one.
func TestFSFreshness(t *testing.T) {
	t.Parallel()
	t.Run("dirfs", func(t *testing.T) {
		t.Parallel()
		site := testsite.New(t).FileAt("a.txt", []byte("one"), diffMtime)
		s := testsite.Start(t, testsite.HTTP1, newFSHandler(t, os.DirFS(site.Root), jaws.Options{}))
		for _, step := range []struct {
			change func()
			status int
			body   string
		}{
			{func() {}, 200, "one"},
			{func() { site.FileAt("a.txt", []byte("two"), diffMtime.Add(time.Second)) }, 200, "two"},
			{func() { site.Replace("a.txt", []byte("three!")) }, 200, "three!"},
			{func() { os.Remove(site.Path("a.txt")) }, 404, ""},
		} {
			step.change()
			resp, body := s.Get(t, "/a.txt")
			if resp.StatusCode != step.status || step.status == 200 && string(body) != step.body {
				t.Errorf("%d %q, want %d %q", resp.StatusCode, body, step.status, step.body)
			}
		}
	})
	t.Run("mapfs", func(t *testing.T) {
		t.Parallel()
		m := fstest.MapFS{"a.txt": {Data: []byte("one"), ModTime: diffMtime}}
		h := newFSHandler(t, m, jaws.Options{})
		if w := testsite.Serve(h, "GET", "/a.txt"); w.Body.String() != "one" {
			t.Fatalf("%q", w.Body.String())
		}
		m["a.txt"] = &fstest.MapFile{Data: []byte("two"), ModTime: diffMtime.Add(time.Second)}
		if w := testsite.Serve(h, "GET", "/a.txt"); w.Body.String() != "two" {
			t.Errorf("after a change: %q", w.Body.String())
		}
		delete(m, "a.txt")
		if w := testsite.Serve(h, "GET", "/a.txt"); w.Code != 404 {
			t.Errorf("after removal: %d", w.Code)
		}
	})
}

// noSeekFS hides Seek and ReadAt from its files, as a compressed zip entry
// has neither.
type noSeekFS struct{ fs.FS }

type noSeekFile struct{ f fs.File }

func (f noSeekFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f noSeekFile) Read(p []byte) (int, error) { return f.f.Read(p) }
func (f noSeekFile) Close() error               { return f.f.Close() }

func (n noSeekFS) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return d, nil
	}
	return noSeekFile{f}, nil
}

// TestFSRangesNeedSeek: files read through io.ReaderAt or io.Seeker honour
// Range; files that can do neither are sent whole, with 200 (RFC 9110
// §14.2 lets a server ignore Range), never with wrong bytes. A zip archive
// is the real case.
func TestFSRangesNeedSeek(t *testing.T) {
	t.Parallel()
	big := testsite.Random(200<<10, 8)
	small := []byte("0123456789")
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, data := range map[string][]byte{"big.bin": big, "small.txt": small} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(zbuf.Bytes()), int64(zbuf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	mfs := fstest.MapFS{"big.bin": {Data: big, ModTime: diffMtime}, "small.txt": {Data: small, ModTime: diffMtime}}
	for _, c := range []struct {
		name     string
		fsys     fs.FS
		rangesOK bool // for files sent from the file system
	}{
		{"mapfs", mfs, true},
		{"noseek", noSeekFS{mfs}, false},
		{"zip", zr, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := testsite.Start(t, testsite.HTTP1, newFSHandler(t, c.fsys, jaws.Options{}))
			for _, f := range []struct {
				name     string
				data     []byte
				inMemory bool
			}{{"big.bin", big, false}, {"small.txt", small, true}} {
				resp, body := s.Get(t, "/"+f.name, "Range", "bytes=2-5")
				switch {
				case c.rangesOK || f.inMemory:
					if resp.StatusCode != 206 || !bytes.Equal(body, f.data[2:6]) {
						t.Errorf("%s: %d %d bytes, want 206 with bytes 2-5", f.name, resp.StatusCode, len(body))
					}
				default:
					if resp.StatusCode != 200 || !bytes.Equal(body, f.data) {
						t.Errorf("%s: %d %d bytes, want 200 with the whole file", f.name, resp.StatusCode, len(body))
					}
				}
				resp, body = s.Get(t, "/"+f.name)
				if resp.StatusCode != 200 || !bytes.Equal(body, f.data) {
					t.Errorf("%s: GET %d, %d bytes", f.name, resp.StatusCode, len(body))
				}
			}
		})
	}
}

// TestDirFSZeroCopy: the files of os.DirFS are *os.File, so large ones take
// the zero-copy path as with New.
func TestDirFSZeroCopy(t *testing.T) {
	t.Parallel()
	data := testsite.Random(2<<20, 9)
	site := testsite.New(t).FileAt("big.bin", data, diffMtime)
	h := newFSHandler(t, os.DirFS(site.Root), jaws.Options{})
	s := testsite.Start(t, testsite.HTTP1, h)
	for range 2 {
		if resp, body := s.Get(t, "/big.bin"); resp.StatusCode != 200 || !bytes.Equal(body, data) {
			t.Fatalf("%d, %d bytes", resp.StatusCode, len(body))
		}
	}
	if n := zeroCopied(h, 2); n != 2 {
		t.Errorf("%d zero-copy responses, want 2: %+v", n, h.Stats())
	}
}

// TestNewFSNil: a nil fs.FS is an error, not a handler that panics later.
func TestNewFSNil(t *testing.T) {
	t.Parallel()
	if h, err := jaws.NewFS(nil, jaws.Options{}); err == nil {
		h.Close()
		t.Error("NewFS(nil) succeeded")
	}
}

// TestNewFSClosed: a Handler of an fs.FS answers 503 once closed, as one of
// a directory does, an embedded site's cached entries included.
func TestNewFSClosed(t *testing.T) {
	t.Parallel()
	for name, fsys := range map[string]fs.FS{
		"MapFS":    fstest.MapFS{"a.txt": {Data: []byte("a")}},
		"embed.FS": embedded,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newFSHandler(t, fsys, jaws.Options{})
			target := "/a.txt"
			if name == "embed.FS" {
				target = "/testdata/embedsite/app.js"
			}
			if w := testsite.Serve(h, "GET", target); w.Code != 200 {
				t.Fatalf("%s: %d", target, w.Code)
			}
			h.Close()
			if w := testsite.Serve(h, "GET", target); w.Code != 503 {
				t.Errorf("after Close: %d, want 503", w.Code)
			}
		})
	}
}
