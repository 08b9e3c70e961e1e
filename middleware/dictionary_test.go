package middleware

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestDictionaryMounted: jaws offers a fingerprinted script as a
// compression dictionary (RFC 9842) with a pattern of the URL the client
// sees, under http.StripPrefix, Mount and both, with CacheControl's
// immutable policy in front; a browser holding the old build gets the new
// one compressed with it (dcz), whatever the mount.
func TestDictionaryMounted(t *testing.T) {
	t.Parallel()
	old := text(30 << 10)
	cur := bytes.Replace(old, []byte("00000100 the quick"), []byte("00000100 a quick"), 1)
	name := func(data []byte) string {
		sum := sha256.Sum256(data)
		return "assets/app." + hex.EncodeToString(sum[:4]) + ".js"
	}
	site := testsite.New(t)
	site.File(name(old), old)
	site.File(name(cur), cur)
	h, err := jaws.New(site.Root, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	cc := CacheControl()
	chiMount := chi.NewRouter()
	chiMount.With(cc).Mount("/static", Mount("/static", h))
	mux := http.NewServeMux()
	mux.Handle("/static/", cc(Mount("/static", h)))
	tests := []struct {
		name    string
		handler http.Handler
		prefix  string // what the client puts before the file's name
	}{
		{"at the root", cc(h), "/"},
		{"http.StripPrefix", http.StripPrefix("/static", cc(h)), "/static/"},
		{"Mount on chi", chiMount, "/static/"},
		{"Mount on ServeMux", mux, "/static/"},
		{"Mount under StripPrefix", http.StripPrefix("/outer", mux), "/outer/static/"},
	}
	sum := sha256.Sum256(old)
	available := ":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	t.Run("mounts", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				s := testsite.Start(t, testsite.HTTP1, tt.handler)
				want := `match="` + tt.prefix + `assets/app.*.js", match-dest=("script")`
				resp, _ := s.Get(t, tt.prefix+name(old), "Accept-Encoding", "gzip, deflate, br, zstd")
				if got := resp.Header.Get("Use-As-Dictionary"); resp.StatusCode != 200 || got != want {
					t.Fatalf("the old build: %d, Use-As-Dictionary %q, want %q", resp.StatusCode, got, want)
				}
				resp, body := s.Get(t, tt.prefix+name(cur), "Accept-Encoding", "gzip, deflate, br, zstd, dcb, dcz",
					"Available-Dictionary", available)
				if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "dcz" {
					t.Fatalf("the new build: %d, Content-Encoding %q, want 200 dcz", resp.StatusCode, resp.Header.Get("Content-Encoding"))
				}
				if got := resp.Header.Get("Use-As-Dictionary"); got != want {
					t.Errorf("the new build: Use-As-Dictionary %q, want %q", got, want)
				}
				if vary := strings.Join(resp.Header.Values("Vary"), ", "); vary != "Accept-Encoding, Available-Dictionary" {
					t.Errorf("Vary %q", vary)
				}
				if !bytes.Equal(body[8:40], sum[:]) {
					t.Fatalf("the dcz header names % x", body[8:40])
				}
				d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, old))
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if got, err := d.DecodeAll(body[40:], nil); err != nil || !bytes.Equal(got, cur) {
					t.Errorf("%d dcz bytes decode to %d bytes (%v), not the new build's %d", len(body), len(got), err, len(cur))
				}
			})
		}
	})
	if st := h.Stats(); st.DictionaryEncoded != uint64(len(tests)) || st.DictionarySaved == 0 {
		t.Errorf("Stats: %d dcz answers saving %d bytes, want %d", st.DictionaryEncoded, st.DictionarySaved, len(tests))
	}
	// A name CacheControl does not make immutable is not offered.
	s := testsite.Start(t, testsite.HTTP1, cc(h))
	site.File("assets/app.js", cur)
	resp, _ := s.Get(t, "/assets/app.js")
	if resp.Header.Get("Use-As-Dictionary") != "" || slices.Contains(resp.Header.Values("Vary"), "Available-Dictionary") {
		t.Errorf("an unversioned name: Use-As-Dictionary %q, Vary %q", resp.Header.Get("Use-As-Dictionary"), resp.Header.Values("Vary"))
	}
}
