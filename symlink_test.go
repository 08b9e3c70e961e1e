package jaws

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

// How absolute links are followed is internal/source's (symlink.go, and
// its tests); these serve them.

// Through the handler: absolute links inside the root serve their target's
// bytes, from memory and from disk, whether the root is named by its real
// path or through a symlink; everything that leaves the root is 404.
func TestAbsoluteSymlinks(t *testing.T) {
	t.Parallel()
	a := testsite.NewAbsLinks(t, 8) // os.Root's bound
	root, rootLink, marker := a.Root, a.RootLink, a.Marker
	big, err := os.ReadFile(filepath.Join(root, "big.bin"))
	must(t, err)
	for _, dir := range []struct{ name, path string }{{"real root", root}, {"root through a symlink", rootLink}} {
		h := newTestHandler(t, dir.path, Options{})
		srv := testsite.Start(t, testsite.HTTP1, h)
		t.Run(dir.name, func(t *testing.T) {
			t.Parallel()
			tests := []struct {
				name, path string
				status     int
				body       string // or Location for 301
			}{
				{"link to a file", "/latest.txt", 200, "v2"},
				{"file under a linked directory", "/absdir/file.txt", 200, "sub file"},
				{"linked directory's index", "/absdir/", 200, "<p>sub</p>"},
				{"linked directory redirects", "/absdir", 301, "absdir/"},
				{"chain", "/c1", 200, "v2"},
				{"root itself", "/self/v2.txt", 200, "v2"},
				{"dotdot after a link", "/dotdot-after-link", 200, "sub file"},
				{"large file from disk", "/bigabs", 200, string(big)},
				{"loop", "/la", 404, ""},
				{"mixed loop", "/lc", 404, ""},
				{"too many links", "/hopa", 404, ""},
				{"dangling", "/dangling", 404, ""},
				{"absolute out", "/outabs", 404, ""},
				{"relative out", "/outrel", 404, ""},
				{"root's parent", "/outdir/secret", 404, ""},
				{"sibling", "/sibling", 404, ""},
				{"dotdot out", "/dotdot-out", 404, ""},
				{"dotdot out and back", "/dotdot-reenter", 404, ""},
				{"via the root's symlink", "/vialink", 404, ""},
				{"out via the root's symlink", "/vialink-out", 404, ""},
				{"chain out", "/to-outabs", 404, ""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					resp, body := srv.Get(t, tt.path)
					testsite.CheckAnswer(t, tt.path, resp, body, tt.status, tt.body, marker)
				})
			}
		})
	}
}

// A deploy swaps an absolute link to a new version: the next request is
// served the new target, not the cached old one.
func TestAbsoluteSymlinkSwap(t *testing.T) {
	t.Parallel()
	a := testsite.NewAbsLinks(t, 8)
	root, real := a.Root, a.Real
	s := testsite.At(t, root)
	s.File("v3.txt", []byte("v3"))
	name := uniqueName(t, ".txt")
	s.Symlink(name, filepath.Join(real, "v2.txt"))
	h := newTestHandler(t, root, Options{})
	for i, want := range []string{"v2", "v2", "v3", "v3"} {
		if i == 2 {
			s.Symlink(name+".tmp", filepath.Join(real, "v3.txt"))
			must(t, os.Rename(s.Path(name+".tmp"), s.Path(name)))
		}
		if w := get(h, "/"+name); w.Code != 200 || w.Body.String() != want {
			t.Fatalf("request %d: %d %q, want 200 %q", i+1, w.Code, w.Body, want)
		}
	}
}
