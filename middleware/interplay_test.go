package middleware

// Tests of jaws and this package behind the middleware applications put in
// front of them: loggers, compressors, timeouts, recoverers, authentication
// and the httptest.ResponseRecorder of users' unit tests. They run over real
// HTTP/1 connections, with a small file (the memory path) and a large one
// (the zero-copy path where it applies, the fallback elsewhere), and check
// the Stats counters, so it is visible which path answered.

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/klauspost/compress/gzhttp"

	"github.com/jaws-go/jaws"
	decodepkg "github.com/jaws-go/jaws/internal/decode"
	"github.com/jaws-go/jaws/internal/testsite"
)

// transfer is which transfer path a response is expected to take.
type transfer int

const (
	none   transfer = iota // no body from a file: 3xx, 304, 4xx
	memory                 // Stats.Memory
	file                   // Stats.ZeroCopy or Stats.Fallback
)

// checkPath checks that h answered one response, on the expected path, and
// says which one it was.
func checkPath(t *testing.T, h *jaws.Handler, want transfer) string {
	t.Helper()
	s := h.Stats()
	// A zero-copy response is counted once its last byte left, which the
	// client may have read before: wait for the count, not for a time.
	for end := time.Now().Add(10 * time.Second); want != none && time.Now().Before(end) &&
		s.Memory.Responses+s.ZeroCopy.Responses+s.Fallback.Responses == 0; s = h.Stats() {
		runtime.Gosched()
	}
	m, z, f := s.Memory.Responses, s.ZeroCopy.Responses, s.Fallback.Responses
	got := fmt.Sprintf("memory %d, zero-copy %d, fallback %d", m, z, f)
	switch want {
	case none:
		if m+z+f != 0 {
			t.Errorf("Stats: %s; want no transfer", got)
		}
	case memory:
		if m != 1 || z+f != 0 {
			t.Errorf("Stats: %s; want one response from memory", got)
		}
	case file:
		if m != 0 || z+f != 1 {
			t.Errorf("Stats: %s; want one response from the file", got)
		}
	}
	return got
}

// request is one request of the interplay tables.
type request struct {
	name, method, target string
	header               []string
	status               int
	body                 []byte // nil: no body expected (HEAD, 304, redirects); else exactly this
	errorBody            string // for errors, the page expected
	path                 transfer
}

func interplayRequests(f *fixture, etag string) []request {
	small, large, idx := f.files["small.txt"], f.files["large.bin"], f.files["index.html"]
	return []request{
		{name: "small", method: "GET", target: "/small.txt", status: 200, body: small, path: memory},
		{name: "large", method: "GET", target: "/large.bin", status: 200, body: large, path: file},
		{name: "large text", method: "GET", target: "/large.txt", status: 200, body: f.files["large.txt"], path: file},
		{name: "small range", method: "GET", target: "/small.txt", header: []string{"Range", "bytes=100-199"}, status: 206, body: small[100:200], path: memory},
		{name: "large range", method: "GET", target: "/large.bin", header: []string{"Range", "bytes=1000000-1999999"}, status: 206, body: large[1000000:2000000], path: file},
		{name: "large multipart range", method: "GET", target: "/large.bin", header: []string{"Range", "bytes=0-9,2000000-2000009"}, status: 206, path: file},
		{name: "large HEAD", method: "HEAD", target: "/large.bin", status: 200, path: file},
		{name: "304", method: "GET", target: "/", header: []string{"If-None-Match", etag}, status: 304},
		{name: "SPA fallback", method: "GET", target: "/about", header: []string{"Accept", browserAccept}, status: 200, body: idx, path: memory},
		{name: "redirect", method: "GET", target: "/docs", status: 301},
		{name: "missing asset", method: "GET", target: "/app.0123abcd.js", status: 404, errorBody: custom404},
		{name: "POST", method: "POST", target: "/small.txt", status: 405, errorBody: custom405},
	}
}

// check compares a response with what r expects; body is the decoded body.
func (r request) check(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != r.status {
		t.Fatalf("%s %s: %d, want %d; body %.80q", r.method, r.target, resp.StatusCode, r.status, body)
	}
	switch {
	case r.errorBody != "":
		if string(body) != r.errorBody {
			t.Errorf("%s %s: body %.80q, want %q", r.method, r.target, body, r.errorBody)
		}
	case r.body != nil:
		if !bytes.Equal(body, r.body) {
			t.Errorf("%s %s: body is %d bytes %.40q..., want %d bytes %.40q...", r.method, r.target, len(body), body, len(r.body), r.body)
		}
	case r.name == "large multipart range":
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") || len(body) < 20 {
			t.Errorf("multipart range: %q, %d bytes", resp.Header.Get("Content-Type"), len(body))
		}
	default:
		if len(body) != 0 {
			t.Errorf("%s %s: %d-byte body, want none", r.method, r.target, len(body))
		}
	}
}

// logEntries is a chi LogFormatter that hands each entry to a channel.
type logEntries chan logged

type logged struct {
	path          string
	status, bytes int
}

func (c logEntries) NewLogEntry(r *http.Request) chimw.LogEntry {
	return &logEntry{c, r.URL.Path}
}

type logEntry struct {
	c    logEntries
	path string
}

func (e *logEntry) Write(status, bytes int, _ http.Header, _ time.Duration, _ any) {
	e.c <- logged{e.path, status, bytes}
}

func (e *logEntry) Panic(v any, stack []byte) {}

// lines is an io.Writer handing each write (a log line) to a channel.
type lines chan string

func (c lines) Write(p []byte) (int, error) {
	c <- string(p)
	return len(p), nil
}

func receive[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("no log entry within 30s of the response")
		panic("unreachable")
	}
}

// TestLoggerStatus: chi's RequestLogger and Logger record the status the
// client got, whichever path served it, and for bodies that went through
// the writer, the bytes.
func TestLoggerStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	etag := serve(t, f.handler(t, jaws.Options{}), "GET", "/").Header().Get("Etag")
	for _, rq := range interplayRequests(f, etag) {
		t.Run("RequestLogger/"+rq.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			entries := make(logEntries, 1)
			r := chi.NewRouter()
			r.Use(chimw.RequestLogger(entries))
			r.Handle("/*", SPA(h, SPAOptions{})(nil))
			srv := testsite.Start(t, testsite.HTTP1, r)
			resp, body := srv.Do(t, srv.NewRequest(t, rq.method, rq.target, rq.header...))
			rq.check(t, resp, body)
			paths := checkPath(t, h, rq.path)
			e := receive(t, entries)
			if e.status != resp.StatusCode {
				t.Errorf("logged status %d, client got %d (%s)", e.status, resp.StatusCode, paths)
			}
			if h.Stats().ZeroCopy.Responses == 0 && e.bytes != len(body) {
				t.Errorf("logged %d bytes, client got %d (%s)", e.bytes, len(body), paths)
			}
			t.Logf("%s %s: %d, %d bytes; %s", rq.method, rq.target, resp.StatusCode, len(body), paths)
		})
		t.Run("Logger/"+rq.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			out := make(lines, 1)
			r := chi.NewRouter()
			r.Use(chimw.RequestLogger(&chimw.DefaultLogFormatter{Logger: log.New(out, "", 0), NoColor: true}))
			r.Handle("/*", SPA(h, SPAOptions{})(nil))
			srv := testsite.Start(t, testsite.HTTP1, r)
			resp, body := srv.Do(t, srv.NewRequest(t, rq.method, rq.target, rq.header...))
			rq.check(t, resp, body)
			checkPath(t, h, rq.path)
			line := receive(t, out)
			if want := fmt.Sprintf(" - %d ", resp.StatusCode); !strings.Contains(line, want) {
				t.Errorf("log line %q does not hold %q", line, want)
			}
		})
	}
}

// decode undoes a Content-Encoding.
func decode(t *testing.T, enc string, body []byte) []byte {
	t.Helper()
	out, err := decodepkg.Body(enc, body)
	if err != nil {
		t.Fatalf("decoding %q: %v", enc, err)
	}
	return out
}

// TestCompressInterplay: chi's Compress and klauspost's gzhttp in front of
// the SPA: bodies decode to the exact file bytes, for small and large files,
// and text is compressed when the client asks for it. jaws compresses
// compressible files itself, and the compressors pass its encoded bytes
// through: validators are the variant's, as jaws alone sends them, ranges
// are of the file, and Vary names Accept-Encoding once.
func TestCompressInterplay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gz, err := gzhttp.NewWrapper()
	if err != nil {
		t.Fatal(err)
	}
	compressors := []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"chi Compress", chimw.Compress(5)},
		{"gzhttp", func(h http.Handler) http.Handler { return gz(h) }},
	}
	encodings := []string{"gzip", "gzip, deflate, br, zstd", "identity"}
	for _, ae := range encodings {
		// What jaws alone answers for this Accept-Encoding: the variant whose
		// ETag a conditional request holds, and whose bytes ranges count.
		direct := f.handler(t, jaws.Options{})
		etag := serve(t, direct, "GET", "/", "Accept-Encoding", ae).Header().Get("Etag")
		for _, c := range compressors {
			for _, rq := range interplayRequests(f, etag) {
				t.Run(c.name+"/"+ae+"/"+rq.name, func(t *testing.T) {
					t.Parallel()
					h := f.handler(t, customErrors)
					r := chi.NewRouter()
					r.Use(c.mw)
					r.Handle("/*", SPA(h, SPAOptions{})(nil))
					srv := testsite.Start(t, testsite.HTTP1, r)
					resp, raw := srv.Do(t, srv.NewRequest(t, rq.method, rq.target, append([]string{"Accept-Encoding", ae}, rq.header...)...))
					enc := resp.Header.Get("Content-Encoding")
					if enc != "" && rq.status == http.StatusPartialContent {
						checkEncodedRange(t, direct, rq, f.files[strings.TrimPrefix(rq.target, "/")], ae, resp, raw)
						checkPath(t, h, rq.path)
						return
					}
					body := raw
					if len(raw) > 0 {
						body = decode(t, enc, raw)
					}
					rq.check(t, resp, body)
					paths := checkPath(t, h, rq.path)
					text := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/")
					wholeText := text && rq.status == 200 && rq.method == "GET" && len(rq.body) >= 1024
					switch {
					case ae == "identity" && enc != "":
						t.Errorf("Content-Encoding %q, but the client accepts only identity", enc)
					case ae != "identity" && wholeText && enc == "":
						t.Errorf("%s of %d bytes not compressed for Accept-Encoding %q (%s)", resp.Header.Get("Content-Type"), len(rq.body), ae, paths)
					}
					if enc != "" && resp.Header.Get("Content-Length") != "" && resp.ContentLength != int64(len(raw)) {
						t.Errorf("Content-Length %d for %d encoded bytes", resp.ContentLength, len(raw))
					}
					vary := testsite.VaryTokens(resp.Header)
					n := 0
					for _, tok := range vary {
						if strings.EqualFold(tok, "Accept-Encoding") {
							n++
						}
					}
					if n > 1 || enc != "" && n == 0 {
						t.Errorf("Vary %q for Content-Encoding %q: want Accept-Encoding once", vary, enc)
					}
					t.Logf("%s %s: %d %q, %d bytes on the wire; %s", rq.method, rq.target, resp.StatusCode, enc, len(raw), paths)
				})
			}
		}
	}
}

// checkEncodedRange checks a 206 that a compressor in front encoded: jaws
// answers a range from the file itself, whatever Accept-Encoding says, and
// the compressor may then encode that part, as it would any handler's.
// Decoded, the body is the file's bytes Content-Range names.
func checkEncodedRange(t *testing.T, direct *jaws.Handler, rq request, file []byte, ae string, resp *http.Response, raw []byte) {
	t.Helper()
	whole := serve(t, direct, "GET", rq.target, "Accept-Encoding", ae, "Range", strings.Join(rq.header[1:2], ""))
	if got := whole.Header().Get("Content-Encoding"); got != "" {
		t.Fatalf("jaws alone answers a range in %q, want the file itself", got)
	}
	var first, last, size int
	if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &size); err != nil {
		t.Fatalf("Content-Range %q: %v", resp.Header.Get("Content-Range"), err)
	}
	if size != len(file) || last >= size || !bytes.Equal(decode(t, resp.Header.Get("Content-Encoding"), raw), file[first:last+1]) {
		t.Errorf("Content-Range %q: %d bytes, not those of the %d-byte file, encoded", resp.Header.Get("Content-Range"), len(raw), len(file))
	}
	if !slices.Contains(testsite.VaryTokens(resp.Header), "Accept-Encoding") {
		t.Errorf("Vary %q on a range", resp.Header.Values("Vary"))
	}
}

// TestFrontMiddleware: http.TimeoutHandler and chi's Recoverer, Timeout and
// RealIP in front, alone and together: correct bodies, no panic.
func TestFrontMiddleware(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	etag := serve(t, f.handler(t, jaws.Options{}), "GET", "/").Header().Get("Etag")
	stacks := []struct {
		name string
		mw   []func(http.Handler) http.Handler
	}{
		{"TimeoutHandler", []func(http.Handler) http.Handler{timeoutHandler}},
		{"Recoverer", []func(http.Handler) http.Handler{chimw.Recoverer}},
		{"Timeout", []func(http.Handler) http.Handler{chimw.Timeout(time.Minute)}},
		{"RealIP", []func(http.Handler) http.Handler{chimw.RealIP}},
		{"all", []func(http.Handler) http.Handler{chimw.RealIP, chimw.Recoverer, chimw.Timeout(time.Minute), timeoutHandler}},
	}
	for _, st := range stacks {
		for _, rq := range interplayRequests(f, etag) {
			t.Run(st.name+"/"+rq.name, func(t *testing.T) {
				t.Parallel()
				h := f.handler(t, customErrors)
				r := chi.NewRouter()
				r.Use(st.mw...)
				r.Handle("/*", SPA(h, SPAOptions{})(nil))
				var errlog testsite.SyncBuffer
				hs := httptest.NewUnstartedServer(r)
				hs.Config.ErrorLog = log.New(&errlog, "", 0)
				hs.Start()
				t.Cleanup(hs.Close)
				req := (&testsite.Server{Server: hs}).NewRequest(t, rq.method, rq.target, append([]string{"X-Forwarded-For", "203.0.113.9"}, rq.header...)...)
				c := hs.Client()
				c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
				c.Transport.(*http.Transport).DisableCompression = true
				resp, body := testsite.Fetch(t, c, req)
				rq.check(t, resp, body)
				checkPath(t, h, rq.path)
				hs.Close() // the handler has returned and logged anything it would
				if s := errlog.String(); s != "" {
					t.Errorf("server logged: %s", s)
				}
			})
		}
	}
}

func timeoutHandler(h http.Handler) http.Handler {
	return http.TimeoutHandler(h, time.Minute, "timed out")
}

// TestRecorder: the middleware as users' unit tests drive it, through an
// httptest.ResponseRecorder, which cannot be hijacked: large files take the
// fallback path.
func TestRecorder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	etag := serve(t, f.handler(t, jaws.Options{}), "GET", "/").Header().Get("Etag")
	for _, rq := range interplayRequests(f, etag) {
		t.Run(rq.name, func(t *testing.T) {
			t.Parallel()
			h := f.handler(t, customErrors)
			stack := CacheControl()(SPA(h, SPAOptions{})(nil))
			w := serve(t, stack, rq.method, rq.target, rq.header...)
			resp := w.Result()
			body := w.Body.Bytes()
			if rq.method == "HEAD" {
				body = nil
			}
			rq.check(t, resp, body)
			checkPath(t, h, rq.path)
			if rq.path == file && h.Stats().Fallback.Responses != 1 {
				t.Errorf("Stats: %+v; a ResponseRecorder gets the fallback path", h.Stats())
			}
		})
	}
}

// TestAuthInFront: files behind authentication in route groups are never
// served without it, whatever the spelling of the path, while a public SPA
// serves the root that holds them.
func TestAuthInFront(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const vaultKey = "the vault key\n"
	f.File("vault/key.txt", []byte(vaultKey))
	secret := string(f.files["private/secret.txt"])
	public := f.handler(t, customErrors)
	priv, err := jaws.New(f.Path("private"), customErrors)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { priv.Close() })
	auth := chimw.BasicAuth("test", map[string]string{"user": "pass"})

	r := chi.NewRouter()
	r.Group(func(r chi.Router) {
		r.Use(auth)
		r.Mount("/private", Mount("/private", priv)) // its own root
	})
	r.Route("/vault", func(r chi.Router) {
		r.Use(auth)
		r.Use(Static(public)) // the public root, under the group's path
		r.Get("/report", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "report\n") })
	})
	r.Handle("/*", CacheControl()(SPA(public, SPAOptions{})(nil)))
	srv := testsite.Start(t, testsite.HTTP1, r)

	type target struct {
		path, secret string
	}
	var targets []target
	for _, spell := range []string{
		"/%s/%s",
		"/%s/./%s",
		"/%s/%s/",
		"/%s/x/../%s",
		"/x/../%s/%s",
		"/./%s/%s",
		"//%s/%s",
		"/%s//%s",
		"/x/..%%2f%s/%s",
		"/%%2e%%2e/%s/%s",
		"/%s%%2f%s",
		"/%s%%2F%s",
		"/%%2f%s/%s",
	} {
		targets = append(targets,
			target{fmt.Sprintf(spell, "private", "secret.txt"), secret},
			target{fmt.Sprintf(spell, "vault", "key.txt"), vaultKey})
	}
	targets = append(targets,
		target{"/priv%61te/secret.txt", secret},
		target{"/v%61ult/key.txt", vaultKey},
		target{"/vaul%74/key.txt", vaultKey},
		target{"/private", secret},
		target{"/vault", vaultKey},
		target{"/vault/", vaultKey},
	)
	follow := &http.Client{Transport: srv.Client.Transport}
	for _, tg := range targets {
		for _, method := range []string{"GET", "HEAD"} {
			t.Run(method+" "+tg.path, func(t *testing.T) {
				t.Parallel()
				for _, header := range [][]string{nil, {"Range", "bytes=0-3"}, {"Accept", browserAccept}} {
					// The first answer, and where the redirects lead.
					resp, body := srv.Do(t, srv.NewRequest(t, method, tg.path, header...))
					if resp.StatusCode/100 == 2 || strings.Contains(string(body), strings.TrimSpace(tg.secret)[:6]) {
						t.Fatalf("%s %s %q without credentials: %d %.60q", method, tg.path, header, resp.StatusCode, body)
					}
					req := srv.NewRequest(t, method, tg.path, header...)
					resp, err := follow.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode/100 == 2 || strings.Contains(string(body), strings.TrimSpace(tg.secret)[:6]) {
						t.Fatalf("%s %s %q without credentials, following redirects to %s: %d %.60q", method, tg.path, header, resp.Request.URL, resp.StatusCode, body)
					}
				}
				// With credentials, the same spelling gets the file (or its
				// directory's answer), redirected where needed, or a 404
				// where Static left a non-canonical spelling to the router.
				req := srv.NewRequest(t, "GET", tg.path)
				req.SetBasicAuth("user", "pass")
				resp, err := follow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				canonical := tg.path == "/private/secret.txt" || tg.path == "/vault/key.txt"
				served := resp.StatusCode == 200 && string(body) == tg.secret
				if path.Ext(resp.Request.URL.Path) == ".txt" && !served && (canonical || resp.StatusCode != 404) {
					t.Errorf("GET %s with credentials, at %s: %d %.60q, want 200 and the file", tg.path, resp.Request.URL, resp.StatusCode, body)
				}
			})
		}
	}
	// The spellings are attacks only if they name the files: check that the
	// cleaned, decoded paths do.
	for _, tg := range targets {
		req := srv.NewRequest(t, "GET", tg.path)
		if p := path.Clean(req.URL.Path); !strings.HasPrefix(p, "/private") && !strings.HasPrefix(p, "/vault") {
			t.Errorf("%s names %s, not a protected file", tg.path, p)
		}
	}
}
