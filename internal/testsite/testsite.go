// Package testsite builds throwaway directory trees and httptest servers for
// the tests of package jaws.
//
// A Site is a temporary directory, removed when the test ends, with helpers
// to put files (with chosen contents and mtimes), directories, symlinks and
// special files in it. Start serves a handler over one of the three
// connection Kinds the handler must work with; its Client never follows
// redirects and never asks for compression, so tests see exactly what the
// handler wrote.
package testsite

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	mrand "math/rand/v2"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Site is a directory tree in a temporary directory. Names passed to its
// methods are slash-separated and relative to Root; parent directories are
// created as needed. Every method fails the test on error.
type Site struct {
	t    testing.TB
	Root string // absolute path of the tree
}

// New returns an empty Site in a fresh temporary directory.
func New(t testing.TB) *Site {
	t.Helper()
	return &Site{t: t, Root: TempDir(t)}
}

// TempDir is t.TempDir, except on Windows, where the tests also run under
// Wine, whose os.RemoveAll fails (see CONTRIBUTING.md): there the tree is
// removed entry by entry, deepest first.
func TempDir(t testing.TB) string {
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "jaws-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}

// At returns a Site rooted at the existing or new directory dir, for trees
// that must live somewhere particular (a subdirectory of another Site, say).
func At(t testing.TB, dir string) *Site {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Site{t: t, Root: dir}
}

// Path returns the absolute path of name.
func (s *Site) Path(name string) string {
	return filepath.Join(s.Root, filepath.FromSlash(name))
}

func (s *Site) parent(name string) string {
	s.t.Helper()
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// File writes data to name, replacing it if it exists, and returns s.
func (s *Site) File(name string, data []byte) *Site {
	s.t.Helper()
	if err := os.WriteFile(s.parent(name), data, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// FileAt writes data to name and sets its mtime (and atime) to mtime.
func (s *Site) FileAt(name string, data []byte, mtime time.Time) *Site {
	s.t.Helper()
	s.File(name, data)
	s.Chtime(name, mtime)
	return s
}

// Chtime sets the mtime (and atime) of name.
func (s *Site) Chtime(name string, mtime time.Time) *Site {
	s.t.Helper()
	if err := os.Chtimes(s.Path(name), mtime, mtime); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Dir creates the directory name and its parents.
func (s *Site) Dir(name string) *Site {
	s.t.Helper()
	if err := os.MkdirAll(s.Path(name), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Symlink creates name as a symbolic link holding target verbatim (relative
// targets are resolved from name's directory, as usual).
func (s *Site) Symlink(name, target string) *Site {
	s.t.Helper()
	if err := os.Symlink(target, s.parent(name)); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Replace atomically replaces name with data the way deploy tools do: write
// a temporary file next to it, then rename it over name. The result is a new
// file (a new inode), with the current time as mtime.
func (s *Site) Replace(name string, data []byte) *Site {
	s.t.Helper()
	p := s.parent(name)
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		s.t.Fatal(err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		s.t.Fatal(err)
	}
	return s
}

// Random returns n pseudo-random bytes, the same for the same seed.
func Random(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := mrand.NewChaCha8([32]byte{0: byte(seed), 1: byte(seed >> 8), 2: byte(seed >> 16), 3: byte(seed >> 24)})
	r.Read(b)
	return b
}

// Kind is a way of connecting to a server.
type Kind int

const (
	HTTP1 Kind = iota // HTTP/1.1 over plain TCP
	TLS1              // HTTP/1.1 over TLS
	HTTP2             // HTTP/2 over TLS
)

// Kinds lists every Kind, for tests that run over all of them.
var Kinds = []Kind{HTTP1, TLS1, HTTP2}

func (k Kind) String() string {
	switch k {
	case HTTP1:
		return "http1"
	case TLS1:
		return "tls"
	case HTTP2:
		return "h2"
	}
	return "kind?"
}

// Server is a running httptest.Server of one Kind.
type Server struct {
	*httptest.Server
	Kind Kind
	// Client talks to the server in its Kind's protocol. It returns
	// redirects instead of following them and does not request gzip.
	Client *http.Client
}

// FastLaner is a handler with a fast lane: a *jaws.Handler.
type FastLaner interface {
	FastLane(ln net.Listener, srv *http.Server, prefix string) net.Listener
}

// FastLaneEnv, set to anything, has the HTTP/1 servers Start starts read
// through the fast lane of the jaws handler the test made last (Made), so
// that a suite's requests after the first of each name are answered on the
// lane. Its handler may be another than the one a server serves: a lane
// learns only from its own handler's answers through that server, so then
// it answers nothing.
const FastLaneEnv = "JAWS_TEST_FASTLANE"

var made sync.Map // test name -> FastLaner

// Made records h, a jaws handler the test t made, for Start (FastLaneEnv).
func Made(t testing.TB, h FastLaner) {
	if os.Getenv(FastLaneEnv) == "" {
		return
	}
	name := t.Name()
	made.Store(name, h)
	t.Cleanup(func() { made.CompareAndDelete(name, h) })
}

// madeFor is the handler Made recorded last for the test called name, or
// for the tests it is a subtest of.
func madeFor(name string) FastLaner {
	for {
		if v, ok := made.Load(name); ok {
			return v.(FastLaner)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
}

// Start serves h over a new server of the given kind, closed when the test
// ends.
func Start(t testing.TB, kind Kind, h http.Handler) *Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(quietWriter{os.Stderr}, "", log.LstdFlags)
	switch kind {
	case HTTP1:
		if l := madeFor(t.Name()); l != nil && os.Getenv(FastLaneEnv) != "" {
			srv.Listener = l.FastLane(srv.Listener, srv.Config, "/")
		}
		srv.Start()
	case TLS1:
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{localhostCert()}}
		srv.StartTLS()
	case HTTP2:
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{localhostCert()}}
		srv.EnableHTTP2 = true
		srv.StartTLS()
	default:
		t.Fatalf("testsite: unknown kind %d", kind)
	}
	t.Cleanup(srv.Close)
	// srv.Client() is this server's own client, set up for its certificate
	// and protocol; adjust it before anything uses it.
	c := srv.Client()
	c.Transport.(*http.Transport).DisableCompression = true
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Server{Server: srv, Kind: kind, Client: c}
}

// localhostCert is httptest's certificate with an ECDSA P-256 key in place
// of its RSA 2048 one: every TLS connection of the tests signs a handshake,
// and RSA's signature cost a millisecond each (2% of the root package's CPU).
var localhostCert = sync.OnceValue(func() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"jaws tests"}},
		NotBefore:             time.Unix(0, 0),
		NotAfter:              time.Now().Add(100 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost", "example.com"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
})

// quietWriter drops the server's complaints about TLS handshakes cut short
// by Close (clients dial spare connections that are never used), which are
// noise in test output, and passes every other line on.
type quietWriter struct{ w io.Writer }

func (q quietWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("TLS handshake error")) &&
		(bytes.Contains(p, []byte("use of closed network connection")) || bytes.HasSuffix(bytes.TrimSpace(p), []byte("EOF"))) {
		return len(p), nil
	}
	return q.w.Write(p)
}

// Do sends req (its URL relative to the server, e.g. "/a?b") and returns the
// response with its whole body read. It fails the test if the response did
// not come over the server's protocol.
func (s *Server) Do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, body := Fetch(t, s.Client, req)
	want := 1
	if s.Kind == HTTP2 {
		want = 2
	}
	if resp.ProtoMajor != want {
		t.Fatalf("%s %s over %v: got %s, want HTTP/%d", req.Method, req.URL, s.Kind, resp.Proto, want)
	}
	if (resp.TLS != nil) != (s.Kind != HTTP1) {
		t.Fatalf("%s %s over %v: TLS state %v", req.Method, req.URL, s.Kind, resp.TLS != nil)
	}
	return resp, body
}

// NewRequest returns a request for method and target (a path with an
// optional query, relative to the server) with the given header lines,
// given as name, value pairs.
func (s *Server) NewRequest(t testing.TB, method, target string, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(header)%2 != 0 {
		t.Fatalf("testsite: odd header list %q", header)
	}
	for i := 0; i < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return req
}

// Get is Do of a GET for target with the given header pairs.
func (s *Server) Get(t testing.TB, target string, header ...string) (*http.Response, []byte) {
	t.Helper()
	return s.Do(t, s.NewRequest(t, http.MethodGet, target, header...))
}

// Raw opens a TCP connection to an HTTP1 server, writes raw to it as is (so
// a request line can hold what Go's client would clean or refuse) and
// returns a reader of what comes back. The connection has a deadline of a
// few seconds and is closed when the test ends.
func (s *Server) Raw(t testing.TB, raw string) *bufio.Reader {
	t.Helper()
	if s.Kind != HTTP1 {
		t.Fatalf("testsite: Raw needs an HTTP1 server, not %v", s.Kind)
	}
	c, err := net.Dial("tcp", s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return bufio.NewReader(c)
}

// Fetch sends req with c and returns the response with its body read,
// failing the test on any error.
func Fetch(t testing.TB, c *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, body
}

// Serve runs one request through h in-process, as a user's unit test
// would. header holds name, value pairs, added in order (a name may
// repeat).
func Serve(h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	if len(header)%2 != 0 {
		panic("testsite.Serve: odd header list " + strings.Join(header, ", "))
	}
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// VaryTokens lists the field names of the Vary header lines, in order.
func VaryTokens(h http.Header) []string {
	var tokens []string
	for _, v := range h.Values("Vary") {
		for tok := range strings.SplitSeq(v, ",") {
			if tok = strings.TrimSpace(tok); tok != "" {
				tokens = append(tokens, tok)
			}
		}
	}
	return tokens
}

// Discard is a ResponseWriter that keeps nothing, so that benchmarks time
// the handler rather than a recorder. ReadFrom keeps io.Copy from
// allocating a buffer per call. Clear H between requests.
type Discard struct{ H http.Header }

func (w *Discard) Header() http.Header         { return w.H }
func (w *Discard) Write(p []byte) (int, error) { return len(p), nil }
func (w *Discard) WriteHeader(int)             {}

func (w *Discard) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(io.Discard, r)
}

// Part is one part of a multipart/byteranges body.
type Part struct {
	ContentRange, ContentType string
	Body                      []byte
}

// Parts parses a multipart/byteranges body, failing the test unless it is
// well formed.
func Parts(t testing.TB, ctype string, body []byte) []Part {
	t.Helper()
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || mt != "multipart/byteranges" || params["boundary"] == "" {
		t.Fatalf("Content-Type %q is not multipart/byteranges with a boundary", ctype)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var parts []Part
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return parts
		}
		if err != nil {
			t.Fatalf("multipart body: %v", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatalf("multipart part %d: %v", len(parts), err)
		}
		parts = append(parts, Part{p.Header.Get("Content-Range"), p.Header.Get("Content-Type"), b})
	}
}

// CheckAnswer checks the answer to GET target: its status, and its body, or
// for a 301 its Location, when want is given; and that the body does not
// hold secret, a marker in files outside the root.
func CheckAnswer(t testing.TB, target string, resp *http.Response, body []byte, status int, want, secret string) {
	t.Helper()
	got := string(body)
	if status == http.StatusMovedPermanently {
		got = resp.Header.Get("Location")
	}
	if resp.StatusCode != status || (want != "" && got != want) {
		t.Errorf("GET %s: %d %.40q, want %d %.40q", target, resp.StatusCode, got, status, want)
	}
	if bytes.Contains(body, []byte(secret)) {
		t.Errorf("GET %s leaked the secret", target)
	}
}

// SyncBuffer is a bytes.Buffer that the loggers of concurrent requests can
// share.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
