package e2e

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/jaws-go/jaws/internal/decode"
)

// site is the example's demo site, which the example serves when run without
// -root.
var site = os.DirFS("../example/site")

func siteFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(site, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// appScript is the name of the demo's current fingerprinted script,
// assets/app.HASH.js, the one index.html loads (the previous release's
// build is kept beside it, for docs/previous.html).
func appScript(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`<script src="/(assets/app\.[0-9a-f]+\.js)"`).FindSubmatch(siteFile(t, "index.html"))
	if m == nil {
		t.Fatal("../example/site/index.html loads no /assets/app.HASH.js")
	}
	return string(m[1])
}

// siteName is the file of the demo site the app answers the URL path p
// with: the file itself (the site is served at /, so /assets/NAME is
// assets/NAME), a directory's index.html, or index.html for a client route;
// "" for the API and the counters.
func siteName(p string) string {
	if p == "/debug/jaws" || strings.HasPrefix(p, "/api/") {
		return ""
	}
	name := strings.TrimPrefix(p, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if _, err := fs.Stat(site, name); err != nil {
		return "index.html" // a client route
	}
	return name
}

// codings are the content codings jaws serves, in its default order of
// preference; decode.Exts has their siblings' suffixes.
var codings = []string{"br", "zstd", "gzip"}

// jawsMinSize is jaws's default Compression.MinSize: smaller files are
// compressed only by a precompressed sibling.
const jawsMinSize = 1 << 10

// compressibleName reports whether jaws compresses the demo site's file
// name, by its type: text, scripts, styles, SVG.
func compressibleName(name string) bool {
	switch path.Ext(name) {
	case ".html", ".css", ".js", ".svg", ".txt", ".json":
		return true
	}
	return false
}

// accepts reports whether an Accept-Encoding value, as browsers send it
// (no weights), lists coding.
func accepts(acceptEncoding, coding string) bool {
	for _, tok := range strings.Split(acceptEncoding, ",") {
		name, _, _ := strings.Cut(tok, ";")
		if strings.EqualFold(strings.TrimSpace(name), coding) {
			return true
		}
	}
	return false
}

// expectCoding is the Content-Encoding jaws answers a request for the
// demo site's file name with, for a client sending acceptEncoding with no
// weights: the first coding of jaws's preference the client lists that the
// file has a sibling for or may be compressed in; "" for none. vary says
// whether responses for the file carry Vary: Accept-Encoding.
func expectCoding(t testing.TB, name, acceptEncoding string) (coding string, vary bool) {
	t.Helper()
	size := len(siteFile(t, name))
	compressible := compressibleName(name) && size >= jawsMinSize
	vary = compressible
	for _, c := range codings {
		_, err := fs.Stat(site, name+decode.Exts[c])
		sibling := err == nil
		vary = vary || sibling
		if coding == "" && accepts(acceptEncoding, c) && (compressible || sibling) {
			coding = c
		}
	}
	return coding, vary
}
