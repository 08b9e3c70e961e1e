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
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

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
