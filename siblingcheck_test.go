package jaws

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/testsite"
)

// siblingChecked counts, per sibling, the checks that read it
// (testHookSiblingCheck), with the most any one of them read and decoded.
// Tests use names of their own (checkName), so they can run in parallel.
var siblingChecked sync.Map // file -> *checkCount

type checkCount struct{ checks, read, decoded atomic.Int64 }

func init() {
	testHookSiblingCheck = func(file string, read, decoded int64) {
		v, _ := siblingChecked.LoadOrStore(file, new(checkCount))
		n := v.(*checkCount)
		n.checks.Add(1)
		for _, m := range []struct {
			max *atomic.Int64
			v   int64
		}{{&n.read, read}, {&n.decoded, decoded}} {
			for old := m.max.Load(); m.v > old && !m.max.CompareAndSwap(old, m.v); old = m.max.Load() {
			}
		}
	}
}

// checksOf is the count of checks of the sibling file.
func checksOf(file string) *checkCount {
	v, _ := siblingChecked.LoadOrStore(file, new(checkCount))
	return v.(*checkCount)
}

// checkName is a file name no other test, nor another run of this one
// (-count), uses, ending in ext.
func checkName(t *testing.T, ext string) string {
	return fmt.Sprintf("%s-%d%s", strings.NewReplacer("/", "_", " ", "_", "=", "_", ",", "_").Replace(t.Name()), checkNames.Add(1), ext)
}

var checkNames atomic.Int64

// siblingSizes are where an original lives: in memory, checked whole; on
// disk but no larger than siblingPrefix, checked whole; on disk and larger,
// checked by its recorded size and first siblingPrefix bytes.
var siblingSizes = []struct {
	name string
	n    int
	opts Options
}{
	{"memory", 20 << 10, Options{}},
	{"disk, whole", 20 << 10, Options{CacheMaxFileSize: 1 << 10}},
	{"disk, prefix", 200 << 10, Options{CacheMaxFileSize: 8 << 10}},
}

// skipHeldRename skips a case that renames a file over one jaws holds open
// (a file sent from disk keeps its shared descriptor): Wine, where the
// Windows tests run, refuses such a rename (Access denied) whatever the
// descriptor's sharing mode.
func skipHeldRename(t *testing.T, size string) {
	if runtime.GOOS == "windows" && size != "memory" {
		t.Skip("Wine refuses a rename over a file held open")
	}
}

// siblingSite serves file and its sibling in c, both with compressMtime, and
// logs to the returned buffer; get serves file in c, the cache synced after.
func siblingSite(t *testing.T, opts Options, file string, orig, packed []byte, c coding) (s *testsite.Site, h *Handler, logged *testsite.SyncBuffer, get func() *httptest.ResponseRecorder) {
	t.Helper()
	s = testsite.New(t)
	s.FileAt(file, orig, compressMtime)
	s.FileAt(file+codingExts[c], packed, compressMtime)
	logged = new(testsite.SyncBuffer)
	opts.ErrorLog = log.New(logged, "", 0)
	h = newTestHandler(t, s.Root, opts)
	get = func() *httptest.ResponseRecorder {
		w := testsite.Serve(h, "GET", "/"+file, "Accept-Encoding", c.String())
		h.store.cache.sync()
		return w
	}
	return s, h, logged, get
}

// checkNotSibling fails unless w answers with the file's bytes cur, not
// the sibling's packed, in Content-Encoding want.
func checkNotSibling(t *testing.T, w *httptest.ResponseRecorder, packed, cur []byte, want string) {
	t.Helper()
	enc := w.Header().Get("Content-Encoding")
	if w.Code != 200 || bytes.Equal(w.Body.Bytes(), packed) {
		t.Fatalf("%d, Content-Encoding %q: the stale sibling's %d bytes", w.Code, enc, len(packed))
	}
	if enc != want || !bytes.Equal(decodeAs(t, enc, w.Body.Bytes()), cur) {
		t.Errorf("Content-Encoding %q (want %q), %d bytes that are not the file", enc, want, w.Body.Len())
	}
}

// TestStaleSiblingNotServed: a deploy rebuilt the file and left its sibling,
// both with the same mtime (a reproducible build). The sibling was served
// byte for byte while it held the file; it no longer is: the file is
// compressed on request instead, or sent as it is, and the sibling is
// logged once and checked once per version, however many requests follow.
func TestStaleSiblingNotServed(t *testing.T) {
	t.Parallel()
	for _, size := range siblingSizes {
		for _, c := range codingCases {
			for _, compress := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%v/compression=%v", size.name, c, compress), func(t *testing.T) {
					t.Parallel()
					skipHeldRename(t, size.name)
					old, cur := jsText(size.n, 20), jsText(size.n, 21)
					file := checkName(t, ".js")
					sib := file + codingExts[c]
					packed := encodeAs(c, old, "old")
					opts := size.opts
					opts.Compression.DisableCompression = !compress
					s, h, logged, get := siblingSite(t, opts, file, old, packed, c)

					for range 3 {
						if w := get(); !bytes.Equal(w.Body.Bytes(), packed) || w.Header().Get("Content-Encoding") != c.String() {
							t.Fatalf("good sibling: Content-Encoding %q, %d bytes, not the sibling's %d", w.Header().Get("Content-Encoding"), w.Body.Len(), len(packed))
						}
					}
					if n := checksOf(sib).checks.Load(); n != 1 {
						t.Errorf("good sibling: %d checks for 3 requests, want 1", n)
					}

					s.Replace(file, cur).Chtime(file, compressMtime) // the sibling left as it was
					want := ""
					if compress {
						want = c.String()
					}
					for range 3 {
						checkNotSibling(t, get(), packed, cur, want)
					}
					if n := checksOf(sib).checks.Load(); n != 2 {
						t.Errorf("%d checks in all, want 2: one per version of the file", n)
					}
					line := "jaws: ignoring " + sib + ": does not decode to " + file
					if n := strings.Count(logged.String(), line); n != 1 {
						t.Errorf("ErrorLog has %d lines with %q, want 1: %q", n, line, logged.String())
					}
					if n := h.Stats().Compressions; compress && n != 1 {
						t.Errorf("%d compressions for 3 requests, want 1", n)
					}
				})
			}
		}
	}
}

// TestStaleSiblingFS: the same through NewFS, whose files are not *os.File.
func TestStaleSiblingFS(t *testing.T) {
	t.Parallel()
	for _, size := range siblingSizes {
		for _, c := range codingCases {
			t.Run(fmt.Sprintf("%s/%v", size.name, c), func(t *testing.T) {
				t.Parallel()
				old, cur := jsText(size.n, 22), jsText(size.n, 23)
				packed := encodeAs(c, old, "old")
				fsys := fstest.MapFS{
					"app.js":                 {Data: cur, ModTime: compressMtime},
					"app.js" + codingExts[c]: {Data: packed, ModTime: compressMtime},
				}
				opts := size.opts
				opts.ErrorLog = log.New(new(testsite.SyncBuffer), "", 0)
				h, err := NewFS(fsys, opts)
				must(t, err)
				t.Cleanup(func() { h.Close() })
				for range 2 {
					checkNotSibling(t, testsite.Serve(h, "GET", "/app.js", "Accept-Encoding", c.String()), packed, cur, c.String())
					h.store.cache.sync()
				}
			})
		}
	}
}

// TestCorruptSibling: a sibling that does not decode, or decodes to more
// than the file, is ignored and logged.
func TestCorruptSibling(t *testing.T) {
	t.Parallel()
	src := jsText(20<<10, 24)
	tests := []struct {
		name   string
		packed func(c coding) []byte
	}{
		{"empty", func(coding) []byte { return nil }},
		{"garbage", func(coding) []byte { return testsite.Random(4<<10, 25) }},
		{"truncated", func(c coding) []byte { b := encodeAs(c, src, ""); return b[:len(b)/2] }},
		{"a byte flipped", func(c coding) []byte {
			b := bytes.Clone(encodeAs(c, src, ""))
			b[len(b)/2] ^= 0x55
			return b
		}},
		{"bytes after the stream", func(c coding) []byte { return append(bytes.Clone(encodeAs(c, src, "")), "trailing"...) }},
		{"two streams", func(c coding) []byte {
			return append(bytes.Clone(encodeAs(c, src, "")), encodeAs(c, []byte("more"), "")...)
		}},
		{"one byte short", func(c coding) []byte { return encodeAs(c, src[:len(src)-1], "") }},
		{"one byte long", func(c coding) []byte { return encodeAs(c, append(bytes.Clone(src), '\n'), "") }},
	}
	for _, tt := range tests {
		for _, c := range codingCases {
			t.Run(tt.name+"/"+c.String(), func(t *testing.T) {
				t.Parallel()
				file := checkName(t, ".js")
				packed := tt.packed(c)
				_, _, logged, get := siblingSite(t, Options{}, file, src, packed, c)
				for range 2 {
					checkNotSibling(t, get(), packed, src, c.String())
				}
				if n := checksOf(file + codingExts[c]).checks.Load(); n != 1 {
					t.Errorf("%d checks, want 1", n)
				}
				if !strings.Contains(logged.String(), "jaws: ignoring "+file+codingExts[c]+": does not decode to "+file) {
					t.Errorf("ErrorLog %q", logged.String())
				}
			})
		}
	}
}

// bombs are siblings that decode to 8 MiB: the file's bytes, or zeros,
// followed by zeros.
var bombs = sync.OnceValue(func() map[string][]byte {
	m := map[string][]byte{}
	zeros := make([]byte, 8<<20)
	for _, c := range codingCases {
		src := jsText(20<<10, 26)
		m["file then zeros"+codingExts[c]] = encodeAs(c, append(bytes.Clone(src), zeros...), "")
		m["zeros"+codingExts[c]] = encodeAs(c, zeros, "")
	}
	return m
})

// padded is src encoded in c behind pad bytes the decoder must read and
// that decode to nothing: empty stored deflate blocks for gzip, a skippable
// frame for zstd.
func padded(c coding, src []byte, pad int) []byte {
	var b bytes.Buffer
	switch c {
	case gzipCoding:
		b.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
		for range pad / 5 {
			b.Write([]byte{0, 0, 0, 0xff, 0xff}) // a stored block, not the last, of no bytes
		}
		w, _ := flate.NewWriter(&b, 6)
		w.Write(src)
		w.Close()
		binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(src))
		binary.Write(&b, binary.LittleEndian, uint32(len(src)))
	case zstdCoding:
		binary.Write(&b, binary.LittleEndian, uint32(0x184D2A50))
		binary.Write(&b, binary.LittleEndian, uint32(pad))
		b.Write(make([]byte, pad))
		e, _ := zstd.NewWriter(nil)
		b.Write(e.EncodeAll(src, nil))
	default:
		panic("no padding for " + c.String())
	}
	return b.Bytes()
}

// TestSiblingBombBounded: a sibling that decodes to far more than its file,
// or makes the decoder read far more than the file could compress to, costs
// a bounded check: at most the file's size plus a byte decoded (or
// siblingPrefix, for a file sent from disk), and at most siblingSlack more
// compressed bytes read; it is not served.
func TestSiblingBombBounded(t *testing.T) {
	t.Parallel()
	src := jsText(20<<10, 26)
	large := jsText(200<<10, 27)
	type row struct {
		name   string
		opts   Options
		orig   []byte
		c      coding
		packed func() []byte
	}
	var tests []row
	for _, c := range codingCases {
		tests = append(tests,
			row{"memory, file then zeros/" + c.String(), Options{}, src, c, func() []byte { return bombs()["file then zeros"+codingExts[c]] }},
			row{"disk, zeros/" + c.String(), Options{CacheMaxFileSize: 8 << 10}, large, c, func() []byte { return bombs()["zeros"+codingExts[c]] }})
	}
	for _, c := range []coding{gzipCoding, zstdCoding} {
		tests = append(tests,
			row{"memory, padded/" + c.String(), Options{}, src, c, func() []byte { return padded(c, src, 1<<20) }},
			row{"disk, padded/" + c.String(), Options{CacheMaxFileSize: 8 << 10}, large, c, func() []byte { return padded(c, large, 1<<20) }})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := checkName(t, ".js")
			packed := tt.packed()
			if got := decodeAs(t, tt.c.String(), packed); len(got) < len(tt.orig) {
				t.Fatalf("the bomb decodes to %d bytes only", len(got))
			}
			_, _, _, get := siblingSite(t, tt.opts, file, tt.orig, packed, tt.c)
			for range 2 {
				checkNotSibling(t, get(), packed, tt.orig, tt.c.String())
			}
			n := checksOf(file + codingExts[tt.c])
			maxDecoded := int64(siblingPrefix) // the file sent from disk: its first bytes
			if len(tt.orig) <= siblingPrefix {
				maxDecoded = int64(len(tt.orig)) + 1 // the whole file, and a byte more
			}
			maxRead := int64(min(len(tt.orig), siblingPrefix)) + siblingSlack + zstd.HeaderMaxSize // and its recorded size
			t.Logf("decoded %d bytes and read %d of a %d-byte sibling", n.decoded.Load(), n.read.Load(), len(packed))
			if n.checks.Load() != 1 || n.decoded.Load() > maxDecoded || n.read.Load() > maxRead {
				t.Errorf("%d checks, the most decoding %d bytes (bound %d) and reading %d (bound %d) of a %d-byte sibling",
					n.checks.Load(), n.decoded.Load(), maxDecoded, n.read.Load(), maxRead, len(packed))
			}
		})
	}
}

// TestSiblingVerdictKept: a sibling is checked once per version of it and
// of its file: a sibling entry built again (evicted, say) is not decoded
// again.
func TestSiblingVerdictKept(t *testing.T) {
	t.Parallel()
	for _, size := range siblingSizes {
		for _, c := range codingCases {
			t.Run(size.name+"/"+c.String(), func(t *testing.T) {
				t.Parallel()
				src := jsText(size.n, 28)
				file := checkName(t, ".js")
				packed := encodeAs(c, src, "good")
				_, h, _, get := siblingSite(t, size.opts, file, src, packed, c)
				for i := range 3 {
					if w := get(); !bytes.Equal(w.Body.Bytes(), packed) {
						t.Fatalf("request %d: %d bytes, not the sibling's %d", i, w.Body.Len(), len(packed))
					}
					h.store.cache.drop(file + "\x00" + c.String()) // the sibling's entry, as an eviction would
					h.store.cache.sync()
				}
				if n := checksOf(file + codingExts[c]).checks.Load(); n != 1 {
					t.Errorf("%d checks for 3 builds of the sibling's entry, want 1", n)
				}
			})
		}
	}
}

// TestSiblingRechecked: a sibling that changes is checked again: a good
// one replaced by a stale one stops serving at once; a stale one replaced
// by a good one serves once looked at again, at most staleRelook after it
// was found stale.
func TestSiblingRechecked(t *testing.T) {
	t.Parallel()
	for _, size := range siblingSizes {
		for _, c := range codingCases {
			t.Run(size.name+"/"+c.String(), func(t *testing.T) {
				t.Parallel()
				skipHeldRename(t, size.name)
				src := jsText(size.n, 29)
				file := checkName(t, ".js")
				sib := file + codingExts[c]
				good := encodeAs(c, src, "good")
				s, h, _, get := siblingSite(t, size.opts, file, src, good, c)
				var clock atomic.Int64
				clock.Store(compressMtime.UnixNano())
				h.store.cache.now = clock.Load
				if w := get(); !bytes.Equal(w.Body.Bytes(), good) {
					t.Fatalf("%d bytes, not the sibling's %d", w.Body.Len(), len(good))
				}

				stale := encodeAs(c, jsText(size.n, 30), "stale")
				s.Replace(sib, stale).Chtime(sib, compressMtime)
				for range 2 {
					checkNotSibling(t, get(), stale, src, c.String())
				}
				if n := checksOf(sib).checks.Load(); n != 2 {
					t.Errorf("good, then stale: %d checks, want 2", n)
				}

				fixed := encodeAs(c, src, "fixed")
				s.Replace(sib, fixed).Chtime(sib, compressMtime)
				clock.Add(int64(staleRelook) - 1)
				if w := get(); bytes.Equal(w.Body.Bytes(), fixed) || checksOf(sib).checks.Load() != 2 {
					t.Errorf("looked at again before staleRelook: %d checks", checksOf(sib).checks.Load())
				}
				clock.Add(1)
				for i := range 2 {
					if w := get(); !bytes.Equal(w.Body.Bytes(), fixed) || w.Header().Get("Content-Encoding") != c.String() {
						t.Fatalf("request %d after the fix: Content-Encoding %q, %d bytes, not the sibling's %d", i, w.Header().Get("Content-Encoding"), w.Body.Len(), len(fixed))
					}
				}
				if n := checksOf(sib).checks.Load(); n != 3 {
					t.Errorf("good, stale, fixed: %d checks, want 3", n)
				}
			})
		}
	}
}

// TestDecodesTo: the check itself, on bytes: what it takes, what it
// refuses, and what the rule for files sent from disk misses (a stale
// sibling that agrees on the first siblingPrefix bytes and, where the
// coding records one, on the size).
func TestDecodesTo(t *testing.T) {
	t.Parallel()
	big := jsText(3*siblingPrefix, 31)
	sameHead := append(bytes.Clone(big[:siblingPrefix]), jsText(2*siblingPrefix, 32)...) // same size, other tail
	longer := append(bytes.Clone(big), "// one more line\n"...)
	zstdAll := func(b []byte) []byte {
		e, _ := zstd.NewWriter(nil)
		return e.EncodeAll(b, nil)
	}
	type row struct {
		name  string
		c     coding
		sib   []byte
		want  []byte // the file
		stale bool
	}
	var tests []row
	for _, c := range codingCases {
		small := jsText(5000, 33)
		enc := func(b []byte) []byte { return encodeAs(c, b, "") }
		tests = append(tests,
			row{"whole: the file", c, enc(small), small, false},
			row{"whole: empty file", c, enc(nil), nil, false},
			row{"whole: other bytes", c, enc(jsText(5000, 34)), small, true},
			row{"whole: longer", c, enc(append(bytes.Clone(small), 'x')), small, true},
			row{"whole: shorter", c, enc(small[:4999]), small, true},
			row{"whole: truncated", c, enc(small)[:20], small, true},
			row{"prefix: the file", c, enc(big), big, false},
			row{"prefix: other first bytes", c, enc(jsText(len(big), 35)), big, true},
			row{"prefix: garbage", c, testsite.Random(1000, 36), big, true},
		)
	}
	tests = append(tests,
		row{"prefix: longer, gzip records the size", gzipCoding, encodeAs(gzipCoding, longer, ""), big, true},
		row{"prefix: longer, zstd records the size", zstdCoding, zstdAll(longer), big, true},
		// What the rule for large files misses, by design: reading more
		// would read in proportion to a file the request does not send.
		row{"miss: longer, brotli records no size", brotliCoding, encodeAs(brotliCoding, longer, ""), big, false},
		row{"miss: longer, zstd frame without size", zstdCoding, encodeAs(zstdCoding, longer, ""), big, false},
		row{"miss: same size and first bytes, gzip", gzipCoding, encodeAs(gzipCoding, sameHead, ""), big, false},
		row{"miss: same size and first bytes, zstd", zstdCoding, zstdAll(sameHead), big, false},
		row{"miss: same size and first bytes, brotli", brotliCoding, encodeAs(brotliCoding, sameHead, ""), big, false},
	)
	for _, tt := range tests {
		t.Run(tt.c.String()+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			want, whole := tt.want, true
			if len(want) > siblingPrefix {
				want, whole = want[:siblingPrefix], false
				b := tt.sib[:min(len(tt.sib), zstd.HeaderMaxSize)]
				if tt.c == gzipCoding {
					b = tt.sib[max(0, len(tt.sib)-8):]
				}
				if rec, mask, ok := recordedSize(tt.c, b); ok && rec != uint64(len(tt.want))&mask {
					if !tt.stale {
						t.Errorf("refused by its recorded size %d, the file has %d", rec, len(tt.want))
					}
					return
				}
			}
			var n siblingCount
			stale, err := decodesTo(tt.c, bytes.NewReader(tt.sib), want, whole, &n)
			if err != nil {
				t.Fatalf("read error %v from memory", err)
			}
			if (stale != nil) != tt.stale {
				t.Errorf("stale: %v, want stale %v", stale, tt.stale)
			}
			if limit := int64(len(want)) + 1; n.decoded > limit {
				t.Errorf("decoded %d bytes, more than %d", n.decoded, limit)
			}
		})
	}
}

// TestSiblingCheckShared: concurrent first requests for a sibling share one
// check, and one line in ErrorLog when it is stale.
func TestSiblingCheckShared(t *testing.T) {
	t.Parallel()
	for _, stale := range []bool{false, true} {
		for _, c := range codingCases {
			t.Run(fmt.Sprintf("%v/stale=%v", c, stale), func(t *testing.T) {
				t.Parallel()
				src := jsText(20<<10, 37)
				file := checkName(t, ".js")
				packed := encodeAs(c, src, "")
				if stale {
					packed = encodeAs(c, jsText(20<<10, 38), "")
				}
				_, h, logged, _ := siblingSite(t, Options{}, file, src, packed, c)
				testsite.Serve(h, "GET", "/"+file) // the file's entry, cached: every request below shares it
				h.store.cache.sync()
				start := make(chan struct{})
				var wg sync.WaitGroup
				for range 16 {
					wg.Go(func() {
						<-start
						w := testsite.Serve(h, "GET", "/"+file, "Accept-Encoding", c.String())
						if served := bytes.Equal(w.Body.Bytes(), packed); served == stale {
							t.Errorf("served the sibling: %v", served)
						}
					})
				}
				close(start)
				wg.Wait()
				if n := checksOf(file + codingExts[c]).checks.Load(); n != 1 {
					t.Errorf("%d checks for 16 concurrent requests, want 1", n)
				}
				want := 0
				if stale {
					want = 1
				}
				if n := strings.Count(logged.String(), "jaws: ignoring "); n != want {
					t.Errorf("%d lines in ErrorLog, want %d: %q", n, want, logged.String())
				}
			})
		}
	}
}
