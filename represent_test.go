package jaws_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// appendingWriter adds a value to each of the given header fields when the
// status is written, after jaws set them: what a wrapper that decorates
// responses (a tracing or security-header middleware) may do.
type appendingWriter struct {
	http.ResponseWriter
	keys []string
}

func (w appendingWriter) WriteHeader(code int) {
	for _, k := range w.keys {
		w.Header().Add(k, "added")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w appendingWriter) Write(p []byte) (int, error) { return w.ResponseWriter.Write(p) }

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
