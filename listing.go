package jaws

import (
	"bytes"
	"net/url"
	"os"
	"slices"
	"strings"
)

var htmlReplacer = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&#34;",
	"'", "&#39;",
)

// dirListing renders entries as http.FileServer does: sorted by name,
// directories with a trailing slash, names escaped both as URL paths and as
// HTML. Hidden names are left out unless showHidden.
func dirListing(entries []os.DirEntry, showHidden bool) []byte {
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width\">\n<pre>\n")
	for _, e := range entries {
		name := e.Name()
		if !showHidden && strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		// '?' and '#' in a name must stay part of the path.
		u := url.URL{Path: name}
		// The href is HTML too: "x&amp;y" must not link to "x&y".
		b.WriteString("<a href=\"" + htmlReplacer.Replace(u.String()) + "\">" + htmlReplacer.Replace(name) + "</a>\n")
	}
	b.WriteString("</pre>\n")
	return b.Bytes()
}
