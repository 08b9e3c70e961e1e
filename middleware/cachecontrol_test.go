package middleware

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/jaws-go/jaws"
)

func TestHTMLPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want bool
	}{
		{"/", true},
		{"", true},
		{"/index.html", true},
		{"/Page.HTM", true},
		{"/docs/", true},
		{"/about", true},
		{"/users/42", true},
		{"/app.js", false},
		{"/style.css", false},
		{"/video.webm", false},
		{"/v1.2/about", true},
	}
	for _, tt := range tests {
		if got := HTMLPath(tt.path); got != tt.want {
			t.Errorf("HTMLPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.woff2", "/fonts/a.woff2", true},
		{"*.woff2", "/a.woff", false},
		{"/fonts/*", "/fonts/a.woff2", true},
		{"/fonts/*", "/fonts/sub/a.woff2", false},
		{"/fonts/*", "/other/a.woff2", false},
		{"favicon.ico", "/favicon.ico", true},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern)(tt.path); got != tt.want {
			t.Errorf("Glob(%q)(%q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Glob with a bad pattern did not panic")
		}
	}()
	Glob("[")
}

// TestCacheControl runs the default rules in front of a jaws SPA and checks the
// header on every kind of answer: kept on 200, 206 and 304, dropped from
// errors.
func TestCacheControl(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A custom 404 page that follows the advice in CacheControl's doc.
	opts := customErrors
	opts.NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Del("Cache-Control")
		customErrors.NotFound.ServeHTTP(w, r)
	})
	h := f.handler(t, opts)
	hPlain := f.handler(t, jaws.Options{})
	etag := func(target string) string {
		t.Helper()
		e := serve(t, h, "GET", target).Header().Get("Etag")
		if e == "" {
			t.Fatalf("no ETag for %s", target)
		}
		return e
	}
	stack := CacheControl()(SPA(h, SPAOptions{})(nil))
	plainStack := CacheControl()(SPA(hPlain, SPAOptions{})(nil))
	tests := []struct {
		name, method, target string
		header               []string
		plain                bool // jaws's own error pages
		wantStatus           int
		want                 string
	}{
		{name: "fingerprinted", method: "GET", target: "/app.3f9a1c2b.js", wantStatus: 200, want: CacheImmutable},
		{name: "fingerprinted HEAD", method: "HEAD", target: "/app.3f9a1c2b.js", wantStatus: 200, want: CacheImmutable},
		{name: "fingerprinted 304", method: "GET", target: "/app.3f9a1c2b.js", header: []string{"If-None-Match", etag("/app.3f9a1c2b.js")}, wantStatus: 304, want: CacheImmutable},
		{name: "fingerprinted 206", method: "GET", target: "/app.3f9a1c2b.js", header: []string{"Range", "bytes=0-9"}, wantStatus: 206, want: CacheImmutable},
		{name: "root", method: "GET", target: "/", wantStatus: 200, want: CacheNoCache},
		{name: "root 304", method: "GET", target: "/", header: []string{"If-None-Match", etag("/")}, wantStatus: 304, want: CacheNoCache},
		{name: "page", method: "GET", target: "/shell.html", wantStatus: 200, want: CacheNoCache},
		{name: "client route", method: "GET", target: "/about", header: []string{"Accept", browserAccept}, wantStatus: 200, want: CacheNoCache},
		{name: "client route 304", method: "GET", target: "/about", header: []string{"Accept", browserAccept, "If-None-Match", etag("/")}, wantStatus: 304, want: CacheNoCache},
		{name: "other file", method: "GET", target: "/style.css", wantStatus: 200, want: ""},
		{name: "large file", method: "GET", target: "/large.bin", wantStatus: 200, want: ""},
		{name: "missing fingerprinted, custom 404", method: "GET", target: "/app.0123abcd.js", wantStatus: 404, want: ""},
		{name: "missing fingerprinted, jaws 404", method: "GET", target: "/app.0123abcd.js", plain: true, wantStatus: 404, want: ""},
		{name: "missing route, jaws 404", method: "GET", target: "/about", plain: true, wantStatus: 404, want: ""},
		{name: "unsatisfiable range, 416", method: "GET", target: "/app.3f9a1c2b.js", header: []string{"Range", "bytes=99999-"}, wantStatus: 416, want: ""},
		{name: "failed If-Match, 412", method: "GET", target: "/app.3f9a1c2b.js", header: []string{"If-Match", `"nope"`}, wantStatus: 412, want: ""},
		{name: "POST", method: "POST", target: "/app.3f9a1c2b.js", wantStatus: 405, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := stack
			if tt.plain {
				s = plainStack
			}
			w := serve(t, s, tt.method, tt.target, tt.header...)
			if w.Code != tt.wantStatus {
				t.Fatalf("%s %s: %d, want %d", tt.method, tt.target, w.Code, tt.wantStatus)
			}
			if got := w.Header().Get("Cache-Control"); got != tt.want {
				t.Errorf("%s %s (%d): Cache-Control %q, want %q", tt.method, tt.target, w.Code, got, tt.want)
			}
		})
	}
}

// TestCacheControlRules: the first matching rule wins, "" exempts, nil
// matches everything, and an inner handler can override.
func TestCacheControlRules(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	override := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
	})
	rules := []CacheRule{
		{Match: Glob("/api/*"), Value: ""},
		{Match: regexp.MustCompile(`^/fonts/`).MatchString, Value: "public, max-age=604800"},
		{Match: Fingerprinted, Value: CacheImmutable},
		{Value: "public, max-age=60"},
	}
	tests := []struct {
		name, method, target string
		next                 http.Handler
		want                 string
	}{
		{"regexp", "GET", "/fonts/a.3f9a1c2b.woff2", ok, "public, max-age=604800"},
		{"fingerprint", "GET", "/a.3f9a1c2b.js", ok, CacheImmutable},
		{"catch-all", "GET", "/a.js", ok, "public, max-age=60"},
		{"exempt", "GET", "/api/time", ok, ""},
		{"HEAD", "HEAD", "/a.js", ok, "public, max-age=60"},
		{"POST", "POST", "/a.js", ok, ""},
		{"inner override", "GET", "/a.js", override, "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := serve(t, CacheControl(rules...)(tt.next), tt.method, tt.target)
			if got := w.Header().Get("Cache-Control"); got != tt.want {
				t.Errorf("%s %s: Cache-Control %q, want %q", tt.method, tt.target, got, tt.want)
			}
		})
	}
}
