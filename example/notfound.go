package main

import (
	"bytes"
	"html/template"
	"net/http"
	"strings"

	"github.com/jaws-go/jaws"
)

// notFoundPage is the handler's 404 page (jaws.Options.NotFound): HTML for
// browsers, and net/http's plain text for everything else. It is a
// server-rendered page, so it links assets by the names h.HashName gives
// them (see notFoundTemplate): they change with the content, and the site's
// cache rules serve them immutable. h is set once the handler exists.
type notFoundPage struct {
	h    *jaws.Handler
	tmpl *template.Template
}

// notFoundTemplate is the 404 page. {{asset "assets/style.css"}} is the
// URL path of the stylesheet's hashed name, such as
// /assets/style.0123456789abcdef.css; "" when the site has no such file (a
// -root directory of your own), and then the page goes without it.
const notFoundTemplate = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Not found · jaws demo</title>
{{with asset "assets/style.css"}}<link rel="stylesheet" href="{{.}}">
{{end}}<h1>404: not found</h1>
<p>Nothing here. <a href="/">Back to the start page</a>.</p>
</html>
`

func newNotFoundPage() (*notFoundPage, error) {
	p := &notFoundPage{}
	tmpl, err := template.New("404").Funcs(template.FuncMap{"asset": p.asset}).Parse(notFoundTemplate)
	if err != nil {
		return nil, err
	}
	p.tmpl = tmpl
	return p, nil
}

// asset returns the URL path of the hashed name of the site's file name,
// or "" if there is no such file.
func (p *notFoundPage) asset(name string) string {
	hashed, err := p.h.HashName(name)
	if err != nil {
		return ""
	}
	return "/" + hashed
}

func (p *notFoundPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Del("Cache-Control") // the policy was for a file
	if !strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.NotFound(w, r)
		return
	}
	var page bytes.Buffer
	if err := p.tmpl.Execute(&page, nil); err != nil {
		http.NotFound(w, r) // never: asset has no error to return
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	w.Write(page.Bytes())
}
