// Package webtypes is jaws's table of the web's content types by
// extension, the same on every host: scripts and modules, styles, JSON and
// source maps, web manifests, WASM, fonts, images, audio and video,
// documents. table.go is generated from the mime-db dataset (Version) by
// ./gen, whose doc says which types it keeps, which type wins an extension
// the dataset maps twice, and how to run it.
package webtypes

import (
	"iter"
	"maps"
	"strings"
)

// ByExtension returns the Content-Type of ext, an extension in lower case
// with its dot (".css"), or "" for one the table does not have.
func ByExtension(ext string) string { return table[ext] }

// All yields every extension of the table with its Content-Type.
func All() iter.Seq2[string, string] { return maps.All(table) }

// Compressible reports whether a Content-Type names content that
// compresses well: text, scripts, styles, JSON, XML, SVG, WebAssembly and
// uncompressed fonts. Images, audio, video and archives are compressed
// already.
func Compressible(ctype string) bool {
	t, _, _ := strings.Cut(ctype, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") {
		return true
	}
	switch t {
	case "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/json", "application/xml", "application/wasm",
		"image/svg+xml", "image/x-icon", "image/vnd.microsoft.icon", "image/bmp",
		"font/ttf", "font/otf", "application/vnd.ms-fontobject":
		return true
	}
	return false
}
