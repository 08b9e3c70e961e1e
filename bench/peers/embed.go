//go:build jawsembed

package main

import (
	"embed"
	"io/fs"
)

// files are the load benchmark's files, copied into embedded/ by
// bench/run.sh just before it builds peers with -tags jawsembed: the
// embed.FS that -mode jaws-embed serves with jaws.NewFS.
//
//go:embed embedded
var files embed.FS

func init() {
	embeddedSite = func() (fs.FS, error) { return fs.Sub(files, "embedded") }
}
