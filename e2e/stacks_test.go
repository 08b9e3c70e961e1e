package e2e

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/NYTimes/gziphandler"
	"github.com/andybalholm/brotli"
	gingzip "github.com/gin-contrib/gzip"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/gorilla/handlers"
	"github.com/gorilla/mux"
	"github.com/klauspost/compress/gzhttp"
	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/decode"
	"github.com/jaws-go/jaws/internal/testsite"
)

// browserAE is what Chromium sends.
const browserAE = "gzip, deflate, br, zstd"

// A stack mounts a Handler at /static/ as the documentation of its router
// or middleware says, with http.StripPrefix.
type stack struct {
	name string
	// The Content-Encoding of the 8 KiB script for a browser's
	// Accept-Encoding and for "br" alone: "br" is jaws's, "gzip" the
	// compressor's in front over the file as jaws sent it, "" the file.
	browser, brOnly string
	mount           func(t *testing.T, static http.Handler) http.Handler
}

// stackOptions send big.txt from disk, zero-copy where it may.
var stackOptions = jaws.Options{ZeroCopyMinSize: 64 << 10}

func strip(h *jaws.Handler) http.Handler { return http.StripPrefix("/static", h) }

var stacks = []stack{
	{"net/http ServeMux", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return muxed(static)
	}},
	{"chi Logger", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Use(chiLogger())
		r.Handle("/static/*", static)
		return r
	}},
	{"chi Logger Compress", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Use(chiLogger(), chimw.Compress(5))
		r.Handle("/static/*", static)
		return r
	}},
	{"gin", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return ginRouter(static)
	}},
	{"gin gin-contrib/gzip", "gzip", "br", func(t *testing.T, static http.Handler) http.Handler {
		return ginRouter(static, gingzip.Gzip(gingzip.DefaultCompression))
	}},
	{"echo", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return echoRouter(static)
	}},
	{"echo Gzip", "gzip", "", func(t *testing.T, static http.Handler) http.Handler {
		return echoRouter(static, echomw.Gzip())
	}},
	{"gorilla/mux CompressHandler", "gzip", "br", func(t *testing.T, static http.Handler) http.Handler {
		r := mux.NewRouter()
		r.PathPrefix("/static/").Handler(static)
		return handlers.CompressHandler(r)
	}},
	{"otelhttp", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return otelhttp.NewHandler(muxed(static), "static")
	}},
	{"promhttp InstrumentHandler*", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		labels := []string{"code", "method"}
		var h http.Handler = static
		h = promhttp.InstrumentHandlerCounter(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "c"}, labels), h)
		h = promhttp.InstrumentHandlerDuration(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "d"}, labels), h)
		h = promhttp.InstrumentHandlerTimeToWriteHeader(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "w"}, labels), h)
		h = promhttp.InstrumentHandlerResponseSize(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "s"}, nil), h)
		h = promhttp.InstrumentHandlerInFlight(prometheus.NewGauge(prometheus.GaugeOpts{Name: "f"}), h)
		return muxed(h)
	}},
	{"gzhttp", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return gzhttp.GzipHandler(muxed(static))
	}},
	{"chi Logger gzhttp", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		// gzhttp outside the logger: found beneath it by Unwrap.
		gz, err := gzhttp.NewWrapper()
		if err != nil {
			t.Fatal(err)
		}
		r := chi.NewRouter()
		r.Use(func(h http.Handler) http.Handler { return gz(h) }, chiLogger())
		r.Handle("/static/*", static)
		return r
	}},
	{"nytimes/gziphandler", "br", "br", func(t *testing.T, static http.Handler) http.Handler {
		return gziphandler.GzipHandler(muxed(static))
	}},
	{"gzhttp echo Gzip", "gzip", "", func(t *testing.T, static http.Handler) http.Handler {
		// Two compressors, each announcing itself: the inner one, echo's,
		// encodes over anything, so jaws may not.
		return gzhttp.GzipHandler(echoRouter(static, echomw.Gzip()))
	}},
}

// muxed is static at /static/ of a ServeMux.
func muxed(static http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/static/", static)
	return mux
}

func chiLogger() func(http.Handler) http.Handler {
	return chimw.RequestLogger(&chimw.DefaultLogFormatter{Logger: log.New(io.Discard, "", 0), NoColor: true})
}

func ginRouter(static http.Handler, mw ...gin.HandlerFunc) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(mw...)
	r.GET("/static/*path", gin.WrapH(static))
	r.HEAD("/static/*path", gin.WrapH(static))
	return r
}

func echoRouter(static http.Handler, mw ...echo.MiddlewareFunc) http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(mw...)
	e.GET("/static/*", echo.WrapHandler(static))
	e.HEAD("/static/*", echo.WrapHandler(static))
	return e
}

// stackFiles are the files each stack serves: text that jaws compresses
// (the 8 KiB script of the finding; a file sent from disk, zero-copy where
// the writer allows it under stackOptions), text below MinSize, a
// stylesheet with a brotli sibling, and bytes of a type jaws leaves alone.
func stackFiles(t *testing.T) map[string][]byte {
	var sib bytes.Buffer
	css := words(4<<10, 3)
	bw := brotli.NewWriterLevel(&sib, 11)
	bw.Write(css)
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"app.js":       words(8<<10, 1),
		"big.txt":      words(128<<10, 2),
		"tiny.txt":     words(300, 4),
		"style.css":    css,
		"style.css.br": sib.Bytes(),
		"photo.png":    testsite.Random(8<<10, 5),
	}
}

// words is n bytes of text made of a small vocabulary, as compressible as
// source code.
func words(n int, seed uint64) []byte {
	vocab := strings.Fields("function return const let var if else for while this that value name list map set get " +
		"item index length push pop slice join split of in new class extends import export default async await")
	r := rand.New(rand.NewPCG(seed, 0))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(vocab[r.IntN(len(vocab))])
		b.WriteByte(" \n;"[r.IntN(3)])
	}
	return b.Bytes()[:n]
}

// TestStacks serves files through jaws behind each router and middleware
// stack above, over HTTP/1.1 and HTTP/2, and checks that what comes back,
// decoded as its Content-Encoding says, is the file: whole, in a range, for
// HEAD and as a 304; and that jaws compresses where nothing in front does,
// and serves the file as it is where something in front encodes the body.
func TestStacks(t *testing.T) {
	t.Parallel()
	files := stackFiles(t)
	site := testsite.New(t)
	for name, data := range files {
		site.File(name, data)
	}
	for _, kind := range []testsite.Kind{testsite.HTTP1, testsite.HTTP2} {
		for _, st := range stacks {
			t.Run(kind.String()+"/"+st.name, func(t *testing.T) {
				t.Parallel()
				h, err := jaws.New(site.Root, stackOptions)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { h.Close() })
				srv := testsite.Start(t, kind, st.mount(t, strip(h)))
				for _, name := range []string{"app.js", "big.txt", "tiny.txt", "style.css", "photo.png"} {
					checkStackFile(t, srv, "/static/"+name, files[name])
				}
				if stats := h.Stats(); kind == testsite.HTTP1 && st.name == "net/http ServeMux" && runtime.GOOS == "linux" && stats.ZeroCopy.Responses == 0 {
					t.Errorf("big.txt never went zero-copy on net/http's own writer: %+v", stats)
				}
				// Who encodes the finding's request: jaws counts what it encodes.
				for _, want := range []struct{ ae, enc string }{{browserAE, st.browser}, {"br", st.brOnly}} {
					before := h.Stats().Encoded
					resp, _ := srv.Get(t, "/static/app.js", "Accept-Encoding", want.ae)
					enc := resp.Header.Get("Content-Encoding")
					byJaws := h.Stats().Encoded > before
					if enc != want.enc || byJaws != (enc == "br") {
						t.Errorf("app.js for %q: Content-Encoding %q, encoded by jaws: %v; want %q", want.ae, enc, byJaws, want.enc)
					}
				}
			})
		}
	}
}

// checkStackFile asks for target in the ways a browser and other clients
// do and checks every answer against file.
func checkStackFile(t *testing.T, srv *testsite.Server, target string, file []byte) {
	t.Helper()
	get := func(header ...string) (*http.Response, []byte) {
		t.Helper()
		return srv.Get(t, target, header...)
	}
	// The whole file, for each kind of client.
	var whole []byte
	var wholeResp *http.Response
	for _, ae := range []string{browserAE, "gzip", "br", ""} {
		var hdr []string
		if ae != "" {
			hdr = []string{"Accept-Encoding", ae}
		}
		resp, raw := get(hdr...)
		enc := resp.Header.Get("Content-Encoding")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s (Accept-Encoding %q): %d", target, ae, resp.StatusCode)
		}
		checkDecodes(t, target, ae, resp, raw, file)
		if ae == "" && enc != "" {
			t.Errorf("GET %s without Accept-Encoding: Content-Encoding %q", target, enc)
		}
		if ae != "" && enc != "" && !strings.Contains(ae, enc) {
			t.Errorf("GET %s (Accept-Encoding %q): Content-Encoding %q", target, ae, enc)
		}
		if ae == browserAE {
			whole, wholeResp = raw, resp
		}
		t.Logf("GET %s, Accept-Encoding %q: Content-Encoding %q, %d bytes", target, ae, enc, len(raw))
	}
	wholeEnc := wholeResp.Header.Get("Content-Encoding")
	etag := wholeResp.Header.Get("Etag")

	// HEAD: no body; a length, if any, is that of what GET sends.
	resp, raw := srv.Do(t, srv.NewRequest(t, http.MethodHead, target, "Accept-Encoding", browserAE))
	if resp.StatusCode != http.StatusOK || len(raw) != 0 {
		t.Errorf("HEAD %s: %d with %d body bytes", target, resp.StatusCode, len(raw))
	}
	// A compressor in front may count what it wrote for an empty body (23
	// bytes of gzip): said, not failed, since jaws sent no length then.
	if cl, enc := resp.Header.Get("Content-Length"), resp.Header.Get("Content-Encoding"); cl != "" {
		switch {
		case enc == "" && cl != fmt.Sprint(len(file)):
			t.Errorf("HEAD %s: Content-Length %s, not the file's %d", target, cl, len(file))
		case enc != "" && (enc != wholeEnc || cl != fmt.Sprint(len(whole))):
			t.Logf("HEAD %s: Content-Length %s in %q; GET sends %d bytes in %q", target, cl, enc, len(whole), wholeEnc)
		}
	}

	// A range: of the encoded variant jaws sends whole (the same ETag), or
	// of the file when it went out as it is or an outer compressor encoded
	// the range jaws sent.
	resp, raw = get("Accept-Encoding", browserAE, "Range", "bytes=100-199")
	enc := resp.Header.Get("Content-Encoding")
	switch resp.StatusCode {
	case http.StatusOK:
		checkDecodes(t, target+" (Range)", browserAE, resp, raw, file)
	case http.StatusPartialContent:
		var first, last, size int
		if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &size); err != nil {
			t.Fatalf("%s: Content-Range %q: %v", target, resp.Header.Get("Content-Range"), err)
		}
		switch {
		case enc != "" && enc == wholeEnc && resp.Header.Get("Etag") == etag && etag != "" && size == len(whole):
			if !bytes.Equal(raw, whole[first:last+1]) {
				t.Errorf("%s: 206 in %q: not bytes %d-%d of the %d-byte variant", target, enc, first, last, len(whole))
			}
		default:
			got, err := decode.Body(enc, raw)
			if err != nil || size != len(file) || !bytes.Equal(got, file[first:last+1]) {
				t.Errorf("%s: 206 in %q (Content-Range %q): %d bytes decoded (%v), not bytes %d-%d of the file",
					target, enc, resp.Header.Get("Content-Range"), len(got), err, first, last)
			}
			if enc != "" {
				t.Logf("%s: a range of the file's bytes, encoded in %q by the compressor in front", target, enc)
			}
		}
	default:
		t.Errorf("%s: Range: %d", target, resp.StatusCode)
	}

	// Revalidation: the ETag of what was sent.
	if etag == "" {
		t.Fatalf("GET %s: no ETag", target)
	}
	resp, raw = get("Accept-Encoding", browserAE, "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified || len(raw) != 0 {
		t.Errorf("%s: If-None-Match %s: %d with %d body bytes, want 304", target, etag, resp.StatusCode, len(raw))
	}
}

// checkDecodes checks that raw, decoded as resp's Content-Encoding says, is
// file, and that an encoded answer says it varies by Accept-Encoding.
func checkDecodes(t *testing.T, target, ae string, resp *http.Response, raw, file []byte) {
	t.Helper()
	enc := resp.Header.Get("Content-Encoding")
	got, err := decode.Body(enc, raw)
	if err != nil || !bytes.Equal(got, file) {
		t.Errorf("GET %s (Accept-Encoding %q): %d bytes in Content-Encoding %q decode to %d bytes (%v), not the file's %d",
			target, ae, len(raw), enc, len(got), err, len(file))
	}
	if cl := resp.Header.Get("Content-Length"); cl != "" && cl != fmt.Sprint(len(raw)) {
		t.Errorf("GET %s: Content-Length %s for %d bytes", target, cl, len(raw))
	}
	if enc != "" && !varies(resp.Header) {
		t.Errorf("GET %s: Content-Encoding %q without Vary: Accept-Encoding (%q)", target, enc, resp.Header.Values("Vary"))
	}
}

func varies(h http.Header) bool {
	for _, tok := range testsite.VaryTokens(h) {
		if strings.EqualFold(tok, "Accept-Encoding") {
			return true
		}
	}
	return false
}
