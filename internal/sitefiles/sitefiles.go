// Package sitefiles walks the files a jaws.Handler serves from a tree: the
// regular files, in lexical order, but for hidden names (an element that
// starts with a dot), which jaws serves only with Options.ServeDotFiles.
// The demo application lists them, and bench/wire measures them.
package sitefiles

import (
	"io/fs"
	"strings"
)

// Walk calls fn for each regular file under fsys whose path has no hidden
// element, in lexical order, as fs.WalkDir does; fn may return fs.SkipAll
// to end the walk.
func Walk(fsys fs.FS, fn func(name string, d fs.DirEntry) error) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case name != "." && strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		return fn(name, d)
	})
}
