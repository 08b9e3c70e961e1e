package jaws

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Directory listings (Options.DirectoryListing).

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

// serveDir answers for a directory without an index page.
func (h *Handler) serveDir(w http.ResponseWriter, r *http.Request, dir fs.File) {
	info, err := dir.Stat()
	if err != nil {
		h.fail(w, err)
		return
	}
	modtime := info.ModTime()
	if checkIfModifiedSince(r.Header, modtime) == condFalse {
		writeNotModified(w)
		return
	}
	rd, ok := dir.(fs.ReadDirFile)
	if !ok {
		h.notFound(w, r, nil)
		return
	}
	entries, err := rd.ReadDir(-1)
	if err != nil {
		h.fail(w, err)
		return
	}
	if !isZeroTime(modtime) {
		w.Header().Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	body := dirListing(entries, h.opts.ServeDotFiles)
	// A HEAD gets GET's length too (RFC 9110 §9.3.2), which net/http can
	// only guess from a body written. An outer handler that set
	// Content-Encoding transforms the body, so its length is not this one.
	if _, encoded := w.Header()["Content-Encoding"]; !encoded {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
