package jaws

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws/internal/testsite"
)

// TestRefusedField: the fields Options.Header may not set, by canonical
// name, and the names and values that are no field.
func TestRefusedField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		key  string
		vals []string
		why  string
	}{
		{"allowed", "Cache-Control", []string{"public, max-age=60"}, ""},
		{"allowed, obs-text and tab", "X-Note", []string{"caf\xe9\tok"}, ""},
		{"allowed, empty value", "X-Empty", []string{""}, ""},
		{"hop-by-hop", "Connection", []string{"close"}, whyHopByHop},
		{"hop-by-hop TE", "Te", []string{"trailers"}, whyHopByHop},
		{"hop-by-hop Transfer-Encoding", "Transfer-Encoding", []string{"chunked"}, whyHopByHop},
		{"Set-Cookie", "Set-Cookie", []string{"a=b"}, whyCookie},
		{"jaws's Vary", "Vary", []string{"Origin"}, whyOwned},
		{"jaws's ETag", "Etag", []string{`"x"`}, whyOwned},
		{"jaws's Content-Type", "Content-Type", []string{"text/plain"}, whyType},
		{"the bytes'", "Content-Digest", []string{"sha-256=:x:"}, whyBytes},
		{"a space in the name", "Bad Name", []string{"x"}, whyName},
		{"a colon in the name", "Trailer:X", []string{"x"}, whyName},
		{"no name", "", []string{"x"}, whyName},
		{"CR LF", "X-Split", []string{"a\r\nX-Injected: b"}, whyValue},
		{"LF in a second value", "X-Split", []string{"a", "b\nc"}, whyValue},
		{"NUL", "X-Nul", []string{"a\x00"}, whyValue},
		{"DEL", "X-Del", []string{"a\x7f"}, whyValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := refusedField(tc.key, tc.vals); got != tc.why {
				t.Errorf("refusedField(%q, %q) = %q, want %q", tc.key, tc.vals, got, tc.why)
			}
		})
	}
}

// TestFileHeadersOf: what the hook sets is kept canonical, merged by name
// and sorted, each value slice clipped, refused fields left out and said
// once per name; nothing kept is nil.
func TestFileHeadersOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(http.Header)
		want []headerField
		said []string // names said refused
	}{
		{"none", func(http.Header) {}, nil, nil},
		{"empty values", func(h http.Header) { h["X-A"] = nil; h["X-B"] = []string{} }, nil, nil},
		{"only refused", func(h http.Header) { h.Set("Vary", "Origin") }, nil, []string{"Vary"}},
		{"canonical and sorted", func(h http.Header) {
			h["x-b"] = []string{"2"}
			h["cache-control"] = []string{"no-cache"}
			h["X-A"] = []string{"1"}
		}, []headerField{{"Cache-Control", []string{"no-cache"}}, {"X-A", []string{"1"}}, {"X-B", []string{"2"}}}, nil},
		{"merged", func(h http.Header) {
			h["link"] = []string{"<b>"}
			h["Link"] = []string{"<a>", "<c>"}
		}, []headerField{{"Link", []string{"<a>", "<c>", "<b>"}}}, nil},
		{"refused left out", func(h http.Header) {
			h.Set("X-Ok", "1")
			h["set-cookie"] = []string{"a=b"}
			h.Set("Content-Length", "3")
			h.Set("X-Bad", "a\r\nb")
		}, []headerField{{"X-Ok", []string{"1"}}}, []string{"Content-Length", "Set-Cookie", "X-Bad"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logged bytes.Buffer
			fh := newFileHeaders(func(string, http.Header) {}, log.New(&logged, "", 0))
			fh.fn = func(_ string, h http.Header) { tc.set(h) }
			for range 3 { // said once, however often
				got, err := fh.of("a.txt")
				if err != nil {
					t.Fatal(err)
				}
				if tc.want == nil && got != nil {
					t.Fatalf("got %v, want nil", got)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				for i, f := range got {
					if f.key != tc.want[i].key || !slices.Equal(f.val, tc.want[i].val) {
						t.Errorf("field %d: %s %q, want %s %q", i, f.key, f.val, tc.want[i].key, tc.want[i].val)
					}
					if cap(f.val) != len(f.val) {
						t.Errorf("%s: capacity %d, length %d", f.key, cap(f.val), len(f.val))
					}
				}
			}
			lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
			if logged.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tc.said) {
				t.Fatalf("said %q, want one line for each of %q", lines, tc.said)
			}
			for _, k := range tc.said {
				if !strings.Contains(logged.String(), `"`+k+`"`) {
					t.Errorf("%s not said:\n%s", k, logged.String())
				}
			}
		})
	}
	if newFileHeaders(nil, log.Default()) != nil {
		t.Error("no hook, yet a fileHeaders")
	}
	fh := newFileHeaders(func(string, http.Header) { panic("bug") }, log.Default())
	if got, err := fh.of("a.txt"); got != nil || !errors.Is(err, errHook) || errorStatus(err) != http.StatusInternalServerError {
		t.Errorf("a hook that panics: %v, %v (status %d), want errHook, a 500", got, err, errorStatus(err))
	}
}

// TestFileHeadersSaidBounded: a hook that makes a new refused name for
// every file has at most maxRefusalsSaid said and remembered.
func TestFileHeadersSaidBounded(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	fh := newFileHeaders(func(name string, h http.Header) { h[name+" x"] = []string{"v"} }, log.New(&logged, "", 0))
	for i := range 3 * maxRefusalsSaid {
		fh.of(strings.Repeat("a", i+1))
	}
	if n := strings.Count(logged.String(), "\n"); n != maxRefusalsSaid {
		t.Errorf("%d lines, want %d", n, maxRefusalsSaid)
	}
}

// TestHeaderHookHitAllocations: a hit with Options.Header set allocates
// no more than one without, from memory and from a compressed variant,
// and carries the hook's fields.
func TestHeaderHookHitAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts (sync.Pool drops items)")
	}
	s := testsite.New(t).File("a.txt", bytes.Repeat([]byte("text to be compressed, "), 100))
	hook := func(_ string, h http.Header) {
		h.Set("Cache-Control", "public, max-age=60")
		h.Add("Link", "</a.css>; rel=preload; as=style")
		h.Set("X-Content-Type-Options", "nosniff")
	}
	for _, accept := range []string{"", "gzip"} {
		t.Run("coding "+accept, func(t *testing.T) {
			allocs := func(o Options) (float64, http.Header) {
				h := newTestHandler(t, s.Root, o)
				r := httptest.NewRequest("GET", "/a.txt", nil)
				if accept != "" {
					r.Header.Set("Accept-Encoding", accept)
				}
				w := &testsite.Discard{H: http.Header{}}
				serve := func() {
					clear(w.H)
					h.ServeHTTP(w, r)
				}
				serve()
				h.store.cache.sync()
				serve()
				return testing.AllocsPerRun(200, serve), w.H
			}
			with, hdr := allocs(Options{Header: hook})
			without, _ := allocs(Options{})
			if with > without {
				t.Errorf("a hit allocates %v times with the hook, %v without", with, without)
			}
			if hdr.Get("X-Content-Type-Options") != "nosniff" || hdr.Get("Content-Encoding") != accept {
				t.Errorf("header %v: want the hook's fields, Content-Encoding %q", hdr, accept)
			}
		})
	}
}

// failingFS fails every Open of name once fail is set.
type failingFS struct {
	fstest.MapFS
	name string
	fail atomic.Bool
}

func (f *failingFS) Open(name string) (fs.File, error) {
	if name == f.name && f.fail.Load() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EIO}
	}
	return f.MapFS.Open(name)
}

// TestHeaderHookNotOnErrors: a file whose bytes cannot be read once its
// entry was found is a 500 without the hook's fields: they are the file's
// answer's, not an error's.
func TestHeaderHookNotOnErrors(t *testing.T) {
	t.Parallel()
	fsys := &failingFS{MapFS: fstest.MapFS{"big.bin": {Data: testsite.Random(256<<10, 1), ModTime: time.Now()}}, name: "big.bin"}
	h, err := NewFS(fsys, Options{
		Header:   func(_ string, hdr http.Header) { hdr.Set("X-File", "yes") },
		ErrorLog: log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if w := testsite.Serve(h, "GET", "/big.bin"); w.Code != 200 || w.Header().Get("X-File") != "yes" {
		t.Fatalf("first: %d, X-File %q; want 200 with the field", w.Code, w.Header().Get("X-File"))
	}
	h.store.cache.sync()
	fsys.fail.Store(true) // found, and then not read
	// Asked with a coding, the lookup takes no descriptor: the answer does.
	w := testsite.Serve(h, "GET", "/big.bin", "Accept-Encoding", "gzip")
	if w.Code != 500 || w.Header().Get("X-File") != "" {
		t.Errorf("unreadable: %d, X-File %q; want 500 without it", w.Code, w.Header().Get("X-File"))
	}
}
