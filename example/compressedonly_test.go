//go:build compressedonly

package main

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	decodepkg "github.com/jaws-go/jaws/internal/decode"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

// builtinBuild reads the embedded build, each name as a client asks for it.
func builtinBuild(t *testing.T) map[string]decodepkg.Shipped {
	t.Helper()
	fsys, err := fs.Sub(site, siteDir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := decodepkg.Tree(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCompressedOnlySite: with -tags compressedonly, the example serves
// the Vite build that site-compressed/ holds compressed-only, through the
// app's whole router: every file under its own name, to each client its
// sibling's bytes as they are, the decoded file to a client that takes no
// coding; the pages at / and /guide/, and index.html for a client route.
//
//	go test -tags compressedonly ./example
func TestCompressedOnlySite(t *testing.T) {
	t.Parallel()
	files := builtinBuild(t)
	only := 0
	for name, f := range files {
		if f.Siblings != nil {
			only++
			if len(f.Siblings) != len(decodepkg.Exts) {
				t.Errorf("%s has the siblings %d of %d", name, len(f.Siblings), len(decodepkg.Exts))
			}
		}
	}
	if _, ok := files["index.html"]; !ok || only < 5 {
		t.Fatalf("the build has %d compressed-only files and index.html %v; want a Vite build", only, ok)
	}

	h, served, err := newHandler("", io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	router, err := newRouter(h, served, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(router)
	defer srv.Close()
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(t *testing.T, p, acceptEncoding string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/html,*/*;q=0.8")
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	// check asks for the URL path p, the file name, in each coding.
	check := func(t *testing.T, p, name string) {
		f := files[name]
		for _, enc := range []string{"br", "zstd", "gzip", ""} {
			resp, body := get(t, p, enc)
			want, wantEnc := f.Plain, ""
			if sib, ok := f.Siblings[enc]; ok {
				want, wantEnc = sib, enc
			}
			got := resp.Header.Get("Content-Encoding")
			if resp.StatusCode != 200 || got != wantEnc || !bytes.Equal(body, want) {
				t.Errorf("GET %s, Accept-Encoding %q: %d, Content-Encoding %q, %d bytes; want 200, %q and the %d bytes of %s%s",
					p, enc, resp.StatusCode, got, len(body), wantEnc, len(want), name, decodepkg.Exts[wantEnc])
			}
			if vary := resp.Header.Get("Vary"); f.Siblings != nil && !strings.Contains(vary, "Accept-Encoding") {
				t.Errorf("GET %s: Vary %q, want Accept-Encoding in it", p, vary)
			}
			if ct := resp.Header.Get("Content-Type"); ct == "" || strings.HasPrefix(ct, "application/octet-stream") {
				t.Errorf("GET %s: Content-Type %q", p, ct)
			}
		}
	}
	for name := range files {
		p := "/" + strings.TrimSuffix(name, "index.html")
		t.Run(name, func(t *testing.T) {
			check(t, p, name)
			if resp, _ := get(t, p, "br"); jawsmw.Fingerprinted(p) && resp.Header.Get("Cache-Control") != jawsmw.CacheImmutable {
				t.Errorf("GET %s: Cache-Control %q, want %q", p, resp.Header.Get("Cache-Control"), jawsmw.CacheImmutable)
			}
		})
	}
	t.Run("client route", func(t *testing.T) { check(t, "/about", "index.html") })
	t.Run("directory without its slash", func(t *testing.T) {
		resp, _ := get(t, "/guide", "br")
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || !strings.HasSuffix(loc, "guide/") {
			t.Errorf("GET /guide: %d, Location %q; want 301 to guide/", resp.StatusCode, loc)
		}
	})
	t.Run("missing asset", func(t *testing.T) {
		if resp, _ := get(t, "/assets/missing-0123abcd.js", "br"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET a missing asset: %d, want 404", resp.StatusCode)
		}
	})
}
