package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
)

func TestIsCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target string
		want   bool
	}{
		{"/", true},
		{"/a/b.css", true},
		{"/a/", true},
		{"/caf%C3%A9.txt", true},      // non-ASCII must be encoded
		{"/100%25.txt", true},         // so must "%"
		{"/a%20b.txt", true},          // and a space
		{"/it's.txt", true},           // a sub-delim as it is
		{"/a//b", false},              // empty segment
		{"//a", false},                // empty first segment
		{"/a/./b", false},             // dot segment
		{"/a/.", false},               // trailing dot
		{"/a/../b", false},            // dot-dot
		{"/..", false},                // dot-dot at the root
		{"/%2e%2e/b", false},          // encoded dot-dot
		{"/a%2Fb", false},             // encoded slash
		{"/a%2fb", false},             // lower case
		{"/priv%61te/key", false},     // encoded letter
		{"/it%27s.txt", true},         // Go's own spelling: no RawPath, router and server agree
		{"/a%2Bb", false},             // an escape Go would not write: the router sees another name
		{"/a%7Eb", false},             // encoded tilde
		{"/..a/b", true},              // a name starting with dots
		{"/a%3Fb", true},              // "?" must be encoded
		{"/a%23b", true},              // so must "#"
		{"/%C3%A9/%2e%2e/", false},    // both
		{"/a/b/", true},               // trailing slash
		{"/.well-known/x", true},      // hidden, but canonical
		{"/...", true},                // three dots is a name
		{"/a/b?x=/../..", true},       // the query is not the path
		{"/a/%252e%252e/b", true},     // an encoded "%2e": the name "%2e%2e"
		{"/a/b/..%2f", false},         // dot-dot hidden by an encoded slash
		{"/a/b%2F..%2F..%2Fc", false}, // and more of it
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.target, nil)
		if got := isCanonical(r); got != tt.want {
			t.Errorf("isCanonical(%q) = %v, want %v (Path %q, RawPath %q)", tt.target, got, tt.want, r.URL.Path, r.URL.RawPath)
		}
	}
}

func TestCanonicalLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		requestURI string // as the client sent it
		path       string // r.URL.Path as the handler sees it, "" for the same
		want       string
		ok         bool
	}{
		{name: "dot-dot", requestURI: "/a/../b.css", want: "/b.css", ok: true},
		{name: "query kept", requestURI: "/a/../b.css?v=1&x=%2F", want: "/b.css?v=1&x=%2F", ok: true},
		{name: "trailing slash kept", requestURI: "/a/./b/", want: "/a/b/", ok: true},
		{name: "empty segments", requestURI: "//a//b", want: "/a/b", ok: true},
		{name: "above the root", requestURI: "/../../a", want: "/a", ok: true},
		{name: "root", requestURI: "/./", want: "/", ok: true},
		{name: "encoded slash", requestURI: "/public%2Fkey", want: "/public/key", ok: true},
		{name: "encoded letters", requestURI: "/priv%61te/key", want: "/private/key", ok: true},
		{name: "encoded sub-delim", requestURI: "/it%27s.txt", want: "/it's.txt", ok: true},
		{name: "needed escapes stay", requestURI: "/caf%C3%A9/%2e/100%25%20off%3F.txt", want: "/caf%C3%A9/100%25%20off%3F.txt", ok: true},
		{name: "no scheme-relative URL", requestURI: "//evil.example/x", want: "/evil.example/x", ok: true},
		{name: "under a stripped prefix", requestURI: "/assets/a/../b.css", path: "/a/../b.css", want: "/assets/b.css", ok: true},
		{name: "already canonical", requestURI: "/a/b.css", path: "/x/../b.css", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "http://example.com"+tt.requestURI, nil)
			r.RequestURI = tt.requestURI
			if tt.path != "" {
				r.URL.Path, r.URL.RawPath = tt.path, ""
			}
			got, ok := canonicalLocation(r)
			if got != tt.want || ok != tt.ok {
				t.Errorf("canonicalLocation(%q) = %q, %v; want %q, %v", tt.requestURI, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzCanonical checks the properties the redirects rely on, for any path:
// a canonical path names the file its segments spell, and the redirect target
// of a non-canonical one is canonical, names the file the original named, and
// is never redirected again.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/a/../b", "//x", "/a%2Fb", "/priv%61te", "/%2e%2e/", "/caf%C3%A9", "/a/./b/", "/it's", "/%252e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !strings.HasPrefix(raw, "/") {
			raw = "/" + raw
		}
		u, err := url.ParseRequestURI(raw)
		if err != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, "?#") {
			return
		}
		r := &http.Request{Method: "GET", URL: u, RequestURI: raw}
		name := path.Clean(u.Path)
		if isCanonical(r) {
			// What the router matched (the raw path, decoded) is the name.
			if got := strings.TrimSuffix(u.Path, "/"); got != strings.TrimSuffix(name, "/") && u.Path != "/" {
				t.Fatalf("%q is canonical, but its path %q cleans to %q", raw, u.Path, name)
			}
			if _, ok := canonicalLocation(r); ok && u.RawPath == "" && escapePath(u.Path) == raw {
				t.Fatalf("%q is canonical, yet canonicalLocation offers a redirect", raw)
			}
			return
		}
		loc, ok := canonicalLocation(r)
		if !ok {
			t.Fatalf("%q is not canonical and has no canonical location", raw)
		}
		lu, err := url.ParseRequestURI(loc)
		if err != nil {
			t.Fatalf("location %q of %q does not parse: %v", loc, raw, err)
		}
		if strings.HasPrefix(loc, "//") {
			t.Fatalf("location %q of %q is scheme-relative", loc, raw)
		}
		if path.Clean(lu.Path) != name {
			t.Fatalf("location %q of %q names %q, want %q", loc, raw, path.Clean(lu.Path), name)
		}
		r2 := &http.Request{Method: "GET", URL: lu, RequestURI: loc}
		if !isCanonical(r2) {
			t.Fatalf("location %q of %q is not canonical (Path %q, RawPath %q)", loc, raw, lu.Path, lu.RawPath)
		}
	})
}
