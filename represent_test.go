package jaws_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestHeaderValuesNotShared: an entry's header values, which every response
// from it shares, are not changed by a writer that appends to them: the
// next response, from memory or from disk, plain or compressed, has the
// same header as the first.
func TestHeaderValuesNotShared(t *testing.T) {
	t.Parallel()
	keys := []string{"Etag", "Content-Type", "Content-Length", "Last-Modified", "Repr-Digest"}
	appended := []string{"Etag", "Content-Type", "Last-Modified", "Repr-Digest"} // a second length is no response
	site := testsite.New(t).
		File("small.txt", []byte("small, from memory")).
		File("big.bin", make([]byte, 200<<10)).
		File("app.js", []byte(repeatJS(4000)))
	h := newHandler(t, site.Root, jaws.Options{})
	plain := testsite.Start(t, testsite.HTTP1, h)
	appending := testsite.Start(t, testsite.HTTP1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(appendingWriter{w, appended}, r)
	}))
	for _, c := range []struct{ name, path, accept string }{
		{"memory", "/small.txt", ""},
		{"disk", "/big.bin", ""},
		{"compressed", "/app.js", "br"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, _ := plain.Get(t, c.path, "Accept-Encoding", c.accept)
			for range 3 {
				resp, _ := appending.Get(t, c.path, "Accept-Encoding", c.accept)
				if resp.StatusCode != 200 {
					t.Fatalf("through the appending writer: %d", resp.StatusCode)
				}
			}
			again, _ := plain.Get(t, c.path, "Accept-Encoding", c.accept)
			for _, k := range keys {
				if a, b := first.Header.Values(k), again.Header.Values(k); !slices.Equal(a, b) {
					t.Errorf("%s: %q before, %q after a writer appended to it", k, a, b)
				}
			}
		})
	}
}

func repeatJS(n int) string {
	b := make([]byte, 0, n*20)
	for i := range n {
		b = append(b, "export const v"...)
		b = append(b, byte('0'+i%10))
		b = append(b, " = 1;\n"...)
	}
	return string(b)
}

// TestContentTypesOption: Options.ContentTypes sets the type of an
// extension for New and NewFS, in any case, over jaws's table; the caller's
// map is copied; a bad entry is New's error.
func TestContentTypesOption(t *testing.T) {
	t.Parallel()
	types := map[string]string{".WEBM": "audio/webm", ".md": "text/markdown; charset=utf-8"}
	site := testsite.New(t).
		File("clip.webm", []byte("not really a clip")).
		File("README.MD", []byte("# jaws")).
		File("font.otf", []byte("OTTO"))
	fsys := fstest.MapFS{
		"clip.webm": {Data: []byte("not really a clip")},
		"README.MD": {Data: []byte("# jaws")},
		"font.otf":  {Data: []byte("OTTO")},
	}
	fromDir := newHandler(t, site.Root, jaws.Options{ContentTypes: types})
	fromFS, err := jaws.NewFS(fsys, jaws.Options{ContentTypes: types})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fromFS.Close() })
	// Changed after New: the handlers keep what they were given.
	types[".otf"] = "text/plain"
	types[".md"] = "text/plain"
	for name, h := range map[string]*jaws.Handler{"New": fromDir, "NewFS": fromFS} {
		for path, want := range map[string]string{
			"/clip.webm": "audio/webm",
			"/README.MD": "text/markdown; charset=utf-8",
			"/font.otf":  "font/otf",
		} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if got := w.Header().Get("Content-Type"); w.Code != 200 || got != want {
				t.Errorf("%s: GET %s: %d %q, want 200 %q", name, path, w.Code, got, want)
			}
		}
	}
	bad := jaws.Options{ContentTypes: map[string]string{"webm": "video/webm"}}
	if h, err := jaws.New(site.Root, bad); err == nil {
		h.Close()
		t.Error("New accepted a key with no dot")
	}
	if h, err := jaws.NewFS(fsys, jaws.Options{ContentTypes: map[string]string{".webm": "video"}}); err == nil {
		h.Close()
		t.Error("NewFS accepted a type with no subtype")
	}
}
