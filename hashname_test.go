package jaws_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

func hash16(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// TestHashName: the hashed name of a file, for both constructors, and what
// a request for it gets: the file, immutable, while the hash is current.
func TestHashName(t *testing.T) {
	t.Parallel()
	app := []byte("console.log('app')\n")
	big := testsite.Random(200<<10, 4)
	site := testsite.New(t).
		FileAt("js/app.js", app, diffMtime).
		FileAt("LICENSE", []byte("MIT\n"), diffMtime).
		FileAt("vendor.min.css", []byte("a{}"), diffMtime).
		FileAt("media/big.bin", big, diffMtime)
	for _, c := range []struct {
		name string
		h    *jaws.Handler
	}{
		{"New", newHandler(t, site.Root, jaws.Options{})},
		{"NewFS", newFSHandler(t, mapFS(t, site.Root), jaws.Options{})},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := testsite.Start(t, testsite.HTTP1, c.h)
			for _, f := range []struct {
				name, want string
				data       []byte
			}{
				{"js/app.js", "js/app." + hash16(app) + ".js", app},
				{"/js/app.js", "js/app." + hash16(app) + ".js", app},
				{"LICENSE", "LICENSE." + hash16([]byte("MIT\n")), []byte("MIT\n")},
				{"vendor.min.css", "vendor.min." + hash16([]byte("a{}")) + ".css", []byte("a{}")},
				{"media/big.bin", "media/big." + hash16(big) + ".bin", big}, // read once to hash
			} {
				got, err := c.h.HashName(f.name)
				if err != nil || got != f.want {
					t.Errorf("HashName(%q) = %q, %v; want %q", f.name, got, err, f.want)
					continue
				}
				plain, _ := s.Get(t, "/"+strings.TrimPrefix(f.name, "/"))
				for _, r := range []struct {
					header []string
					status int
				}{
					{nil, 200},
					{[]string{"Range", "bytes=0-0"}, 206},
					{[]string{"If-None-Match", plain.Header.Get("Etag")}, 304},
				} {
					resp, body := s.Get(t, "/"+got, r.header...)
					if resp.StatusCode != r.status {
						t.Errorf("GET /%s %q: %d, want %d", got, r.header, resp.StatusCode, r.status)
					}
					if r.status == 200 && string(body) != string(f.data) {
						t.Errorf("GET /%s: other bytes", got)
					}
					if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
						t.Errorf("GET /%s %q: Cache-Control %q", got, r.header, cc)
					}
					if resp.Header.Get("Etag") != plain.Header.Get("Etag") {
						t.Errorf("GET /%s: ETag %s, the file's is %s", got, resp.Header.Get("Etag"), plain.Header.Get("Etag"))
					}
				}
				if plain.Header.Get("Cache-Control") != "" {
					t.Errorf("the plain name got Cache-Control %q", plain.Header.Get("Cache-Control"))
				}
			}
		})
	}
}

// TestHashNameStale: after the file changes, its old hashed name is 404,
// never the new bytes under the old name, and not cacheable for a year.
func TestHashNameStale(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("app.js", []byte("v1"), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	s := testsite.Start(t, testsite.HTTP1, h)
	old, err := h.HashName("app.js")
	if err != nil {
		t.Fatal(err)
	}
	site.Replace("app.js", []byte("v2"))
	h.SettleEvents()
	resp, _ := s.Get(t, "/"+old)
	if resp.StatusCode != 404 || resp.Header.Get("Cache-Control") != "" {
		t.Errorf("old hashed name after a change: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	cur, _ := h.HashName("app.js")
	if cur == old {
		t.Fatalf("same hashed name %s for new content", cur)
	}
	if resp, body := s.Get(t, "/"+cur); resp.StatusCode != 200 || string(body) != "v2" {
		t.Errorf("new hashed name: %d %q", resp.StatusCode, body)
	}
	// A hash of the right shape that is nobody's.
	if resp, _ := s.Get(t, "/app.0000000000000000.js"); resp.StatusCode != 404 {
		t.Errorf("made-up hash: %d", resp.StatusCode)
	}
}

// TestHashNameOuterCacheControl: a Cache-Control an outer handler set is
// kept.
func TestHashNameOuterCacheControl(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("a.css", []byte("b{}"), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	name, _ := h.HashName("a.css")
	w := testsite.Serve(h, "GET", "/"+name, "Cache-Control", "x") // a request header: ignored
	if w.Header().Get("Cache-Control") == "" {
		t.Fatal("no Cache-Control")
	}
	r := testsite.Serve(wrapCacheControl(h, "no-store"), "GET", "/"+name)
	if r.Code != 200 || r.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("%d, Cache-Control %q; want the outer handler's", r.Code, r.Header().Get("Cache-Control"))
	}
}

// TestHashNameErrors: missing, hidden, escaping, non-canonical names and
// directories are errors.
func TestHashNameErrors(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("a.txt", []byte("a"), diffMtime).FileAt(".env", []byte("secret"), diffMtime).
		FileAt("d/index.html", []byte("i"), diffMtime)
	site.Symlink("out", "/etc/passwd")
	h := newHandler(t, site.Root, jaws.Options{})
	for _, c := range []struct {
		name string
		err  error
	}{
		{"missing.txt", fs.ErrNotExist},
		{".env", fs.ErrInvalid},
		{"../a.txt", fs.ErrInvalid},
		{"d/../a.txt", fs.ErrInvalid},
		{"", fs.ErrInvalid},
		{"/", fs.ErrInvalid},
		{"d", nil},
		{"d/", fs.ErrInvalid},
		{"a.txt\x00", fs.ErrInvalid},
		{"out", fs.ErrNotExist}, // a link out of the root
	} {
		if c.name == "out" && fsSource {
			continue // os.DirFS follows links out of its directory
		}
		got, err := h.HashName(c.name)
		if err == nil {
			t.Errorf("HashName(%q) = %q, want an error", c.name, got)
			continue
		}
		if c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("HashName(%q): %v, want %v", c.name, err, c.err)
		}
	}
}

// TestHashNameRealFileWins: a file whose own name looks hashed (a bundler's
// output) is served as itself, whatever its content.
func TestHashNameRealFileWins(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).FileAt("app.js", []byte("plain"), diffMtime).
		FileAt("app.0123456789abcdef.js", []byte("bundled"), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	w := testsite.Serve(h, "GET", "/app.0123456789abcdef.js")
	if w.Code != 200 || w.Body.String() != "bundled" || w.Header().Get("Cache-Control") != "" {
		t.Errorf("%d %q, Cache-Control %q", w.Code, w.Body.String(), w.Header().Get("Cache-Control"))
	}
}

// TestHashNameUsesDigestSibling: a large file with a digest sibling is
// hashed from the sibling, without reading the file (the sibling's sum is
// taken at its word, so a made-up one shows it was used).
func TestHashNameUsesDigestSibling(t *testing.T) {
	t.Parallel()
	made := strings.Repeat("ab", 32)
	site := testsite.New(t).FileAt("v.mp4", testsite.Random(300<<10, 1), diffMtime).
		FileAt("v.mp4.sha256", []byte(made+"  v.mp4\n"), diffMtime)
	h := newHandler(t, site.Root, jaws.Options{})
	if got, err := h.HashName("v.mp4"); err != nil || got != "v."+made[:16]+".mp4" {
		t.Errorf("HashName = %q, %v", got, err)
	}
}

// wrapCacheControl sets Cache-Control before h runs, as an outer
// middleware would.
func wrapCacheControl(h http.Handler, v string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", v)
		h.ServeHTTP(w, r)
	})
}
