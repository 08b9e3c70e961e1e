package sitefiles

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
)

func TestWalk(t *testing.T) {
	fsys := fstest.MapFS{
		"index.html":        {},
		"a/b.js":            {},
		".env":              {},
		".git/config":       {},
		"a/.hidden/x":       {},
		"a/.DS_Store":       {},
		"dir/":              {Mode: fs.ModeDir},
		"link":              {Mode: fs.ModeSymlink},
		".well-known/x.txt": {}, // hidden here too: jaws serves it, but lists nobody's
	}
	for _, tt := range []struct {
		name string
		stop int // return SkipAll after this many; 0: never
		want []string
	}{
		{"all", 0, []string{"a/b.js", "index.html"}},
		{"first only", 1, []string{"a/b.js"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := Walk(fsys, func(name string, d fs.DirEntry) error {
				got = append(got, name)
				if len(got) == tt.stop {
					return fs.SkipAll
				}
				return nil
			})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Walk: %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
