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
)

// ByExtension returns the Content-Type of ext, an extension in lower case
// with its dot (".css"), or "" for one the table does not have.
func ByExtension(ext string) string { return table[ext] }

// All yields every extension of the table with its Content-Type.
func All() iter.Seq2[string, string] { return maps.All(table) }
