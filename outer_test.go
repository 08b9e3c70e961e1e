package jaws

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzhttp"

	"github.com/jaws-go/jaws/internal/testsite"
)

// Writers in front of jaws that encode nothing: one that can be unwrapped,
// one that cannot, and one whose Unwrap goes round in a circle.
type (
	unwrapWriter struct{ http.ResponseWriter }
	opaqueWriter struct{ http.ResponseWriter }
	circleWriter struct{ http.ResponseWriter }
)

func (w unwrapWriter) Unwrap() http.ResponseWriter  { return w.ResponseWriter }
func (w *circleWriter) Unwrap() http.ResponseWriter { return w }

// front is a handler in front of jaws: it may set Vary first, then wraps
// the writer with wrap (nil: passes it on as it is).
func front(vary string, wrap func(http.ResponseWriter) http.ResponseWriter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if vary != "" {
				w.Header().Add("Vary", vary)
			}
			if wrap != nil {
				w = wrap(w)
			}
			h.ServeHTTP(w, r)
		})
	}
}

func unwrap(w http.ResponseWriter) http.ResponseWriter { return unwrapWriter{w} }
func opaque(w http.ResponseWriter) http.ResponseWriter { return opaqueWriter{w} }

// TestOuterNegotiates: jaws serves the file as it is where something in
// front negotiates a coding it does not know to pass jaws's through ("Vary:
// Accept-Encoding" on a wrapped writer, beyond what known compressors
// account for), and keeps its own coding everywhere else. Every body
// decodes to the file.
func TestOuterNegotiates(t *testing.T) {
	t.Parallel()
	files := compressFiles()
	gz := func(h http.Handler) http.Handler { return gzhttp.GzipHandler(h) }
	tests := []struct {
		name string
		ae   string // "" means "br, gzip, zstd"
		mw   []func(http.Handler) http.Handler
		want string // the Content-Encoding of app.js: "br" is jaws's, "zstd" gzhttp's (its preference)
	}{
		{"nothing in front", "", nil, "br"},
		{"Vary on net/http's own writer", "", []func(http.Handler) http.Handler{front("Accept-Encoding", nil)}, "br"},
		{"another Vary, wrapped", "", []func(http.Handler) http.Handler{front("Accept, Origin", unwrap)}, "br"},
		{"a wrapper, no Vary", "", []func(http.Handler) http.Handler{front("", opaque)}, "br"},
		{"Vary, wrapped with Unwrap", "", []func(http.Handler) http.Handler{front("Accept-Encoding", unwrap)}, ""},
		{"Vary in a list, lower case, wrapped", "", []func(http.Handler) http.Handler{front("Accept, accept-encoding", unwrap)}, ""},
		{"Vary, wrapped without Unwrap", "", []func(http.Handler) http.Handler{front("Accept-Encoding", opaque)}, ""},
		{"Vary, an Unwrap in a circle", "", []func(http.Handler) http.Handler{front("Accept-Encoding", func(w http.ResponseWriter) http.ResponseWriter {
			return &circleWriter{w}
		})}, ""},
		{"gzhttp", "", []func(http.Handler) http.Handler{gz}, "br"},
		{"gzhttp, accepting br alone", "br", []func(http.Handler) http.Handler{gz}, "br"},
		{"gzhttp, then a wrapper with Unwrap", "", []func(http.Handler) http.Handler{gz, front("", unwrap)}, "br"},
		{"gzhttp, then a wrapper without Unwrap", "", []func(http.Handler) http.Handler{gz, front("", opaque)}, "zstd"},
		{"gzhttp, then another Vary", "", []func(http.Handler) http.Handler{gz, front("Accept-Encoding", nil)}, "zstd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHandler(t, newCompressSite(t).Root, Options{})
			var stack http.Handler = h
			for i := len(tt.mw) - 1; i >= 0; i-- {
				stack = tt.mw[i](stack)
			}
			s := testsite.Start(t, testsite.HTTP1, stack)
			ae := tt.ae
			if ae == "" {
				ae = "br, gzip, zstd"
			}
			for _, name := range []string{"app.js", "pre.js", "tiny.txt"} {
				resp, raw := s.Get(t, "/"+name, "Accept-Encoding", ae)
				enc := resp.Header.Get("Content-Encoding")
				if got := decodeAs(t, enc, raw); resp.StatusCode != 200 || !bytes.Equal(got, files[name]) {
					t.Fatalf("%s: %d, %d bytes in %q decode to %d, not the file's %d", name, resp.StatusCode, len(raw), enc, len(got), len(files[name]))
				}
				if countAE(resp.Header) == 0 && (enc != "" || name != "tiny.txt") {
					t.Errorf("%s in %q: Vary %q", name, enc, resp.Header.Values("Vary"))
				}
				if name == "app.js" && enc != tt.want {
					t.Errorf("app.js: Content-Encoding %q, want %q", enc, tt.want)
				}
				if enc == "" && resp.Header.Get("Content-Length") != strconv.Itoa(len(files[name])) {
					t.Errorf("%s as it is: Content-Length %q", name, resp.Header.Get("Content-Length"))
				}
			}
			if st := h.Stats(); (st.Encoded != 0) != (tt.want == "br") {
				t.Errorf("jaws encoded %d responses; want app.js in %q", st.Encoded, tt.want)
			}
		})
	}
}

// TestOuterNegotiatesRecorder: a test's own ResponseRecorder, with Vary set
// before, writes what it is given: jaws compresses.
func TestOuterNegotiatesRecorder(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, newCompressSite(t).Root, Options{})
	w := testsite.Serve(front("Accept-Encoding", nil)(h), "GET", "/app.js", "Accept-Encoding", "br")
	if enc := w.Header().Get("Content-Encoding"); enc != "br" || !bytes.Equal(decodeAs(t, enc, w.Body.Bytes()), compressFiles()["app.js"]) {
		t.Errorf("Content-Encoding %q, %d bytes", enc, w.Body.Len())
	}
}
