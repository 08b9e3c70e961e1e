package testsite

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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

func (w *Discard) Header() http.Header { return w.H }

func (w *Discard) Write(p []byte) (int, error) { return len(p), nil }

func (w *Discard) WriteHeader(int) {}

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
