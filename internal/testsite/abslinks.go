package testsite

import (
	"bytes"
	"path/filepath"
	"testing"
)

// AbsLinks is a tree of absolute symbolic links, in and out of a root, for
// the tests of how they are followed (internal/source) and served (package
// jaws). In a fresh directory TOP:
//
//	TOP/secret, TOP/real2/secret   outside the root (real2 starts like real)
//	TOP/real                       the root, with the files and links below
//	TOP/rootlink -> TOP/real       the root again, through a symlink
//
// Absolute targets inside the root are written with the root's real path,
// Real (TOP may itself lie under a symlink, as /tmp does on macOS), except
// where a case is about the other spellings. The secrets hold Marker.
type AbsLinks struct {
	Top                  *Site
	Root, RootLink, Real string
	Marker               string
}

// NewAbsLinks builds the tree. hops is the longest chain of links followed
// (os.Root's bound, 8): "hopb" leads through hops links to a file, "hopa"
// through one more.
func NewAbsLinks(t testing.TB, hops int) *AbsLinks {
	t.Helper()
	a := &AbsLinks{Marker: "MARKER-secret-outside-the-root", Top: New(t)}
	top := a.Top
	top.File("secret", []byte(a.Marker))
	top.File("real2/secret", []byte(a.Marker))
	s := At(t, top.Path("real"))
	a.Root, a.RootLink = s.Root, top.Path("rootlink")
	top.Symlink("rootlink", a.Root)
	real, err := filepath.EvalSymlinks(a.Root)
	if err != nil {
		t.Fatal(err)
	}
	a.Real = real
	// Not filepath.Join, which would clean the ".." out of the targets.
	abs := func(name string) string { return real + string(filepath.Separator) + filepath.FromSlash(name) }

	s.File("v2.txt", []byte("v2"))
	s.File("sub/file.txt", []byte("sub file"))
	s.File("sub/index.html", []byte("<p>sub</p>"))
	s.File("sub/deeper/x.txt", []byte("deeper x"))
	s.File("big.bin", bytes.Repeat([]byte("0123456789abcdef"), 64<<10)) // 1 MiB: from disk
	s.Symlink("sub/up.txt", "../v2.txt")

	s.Symlink("latest.txt", abs("v2.txt"))       // to a file
	s.Symlink("absdir", abs("sub"))              // to a directory
	s.Symlink("slashdir", abs("sub")+"/")        // with a trailing slash
	s.Symlink("deep", abs("sub/deeper"))         // for ".." after a link
	s.Symlink("bigabs", abs("big.bin"))          // a large file
	s.Symlink("c1", abs("c2"))                   // a chain: abs -> rel -> abs
	s.Symlink("c2", "c3")                        //
	s.Symlink("c3", abs("v2.txt"))               //
	s.Symlink("self", real)                      // the root itself
	s.Symlink("la", abs("lb"))                   // a loop of absolute links
	s.Symlink("lb", abs("la"))                   //
	s.Symlink("lc", "ld")                        // a loop, relative and absolute
	s.Symlink("ld", abs("lc"))                   //
	s.Symlink("dangling", abs("nowhere"))        // to nothing
	s.Symlink("dotdot-in", abs("sub/../v2.txt")) // ".." inside the target
	s.Symlink("dotdot-after-link", abs("deep/../file.txt"))
	s.Symlink("dotdot-out", abs("../secret"))
	s.Symlink("dotdot-reenter", abs("../real/v2.txt"))
	s.Symlink("dotdot-abs-then-rel", abs("sub/up.txt"))
	s.Symlink("outabs", top.Path("secret"))
	s.Symlink("outrel", "../secret")
	s.Symlink("outdir", top.Root)
	s.Symlink("sibling", top.Path("real2/secret")) // a name that starts like the root's
	s.Symlink("vialink", filepath.Join(a.RootLink, "v2.txt"))
	s.Symlink("vialink-out", filepath.Join(a.RootLink, "..", "secret"))
	s.Symlink("sub/outabs", top.Path("secret"))
	s.Symlink("to-outabs", abs("outabs"))
	// A chain of hops links is followed; one more is too many.
	for i := range hops + 1 {
		s.Symlink("hop"+string(rune('a'+i)), abs("hop"+string(rune('a'+i+1))))
	}
	s.File("hop"+string(rune('a'+hops+1)), []byte("end of the chain"))
	return a
}
