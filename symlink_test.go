package jaws

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

// follows counts, per name, the names followLinks resolves
// (testHookFollowLinks).
var follows sync.Map // name -> *atomic.Int64

func init() {
	testHookFollowLinks = func(name string) {
		c, _ := follows.LoadOrStore(name, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
}

func followCount(name string) int64 {
	if c, ok := follows.Load(name); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

// absLinkSite builds, in a fresh directory TOP:
//
//	TOP/secret, TOP/real2/secret   outside the root (real2 starts like real)
//	TOP/real                       the root, with the files and links below
//	TOP/rootlink -> TOP/real       the root again, through a symlink
//
// Absolute targets inside the root are written with the root's real path,
// real (TOP may itself lie under a symlink, as /tmp does on macOS), except
// where a case is about the other spellings. It returns the marker the
// secrets hold.
func absLinkSite(t *testing.T) (top *testsite.Site, root, rootLink, real, marker string) {
	t.Helper()
	marker = "MARKER-secret-outside-the-root"
	top = testsite.New(t)
	top.File("secret", []byte(marker))
	top.File("real2/secret", []byte(marker))
	s := testsite.At(t, top.Path("real"))
	root, rootLink = s.Root, top.Path("rootlink")
	top.Symlink("rootlink", root)
	real, err := filepath.EvalSymlinks(root)
	must(t, err)
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
	s.Symlink("vialink", filepath.Join(rootLink, "v2.txt"))
	s.Symlink("vialink-out", filepath.Join(rootLink, "..", "secret"))
	s.Symlink("sub/outabs", top.Path("secret"))
	s.Symlink("to-outabs", abs("outabs"))
	// A chain of maxLinkHops links is followed; one more is too many.
	for i := range maxLinkHops + 1 {
		s.Symlink("hop"+string(rune('a'+i)), abs("hop"+string(rune('a'+i+1))))
	}
	s.File("hop"+string(rune('a'+maxLinkHops+1)), []byte("end of the chain"))
	return top, root, rootLink, real, marker
}

// followLinks rewrites a name with absolute links inside the root into one
// relative to it, and refuses everything that leaves the root.
func TestFollowLinks(t *testing.T) {
	t.Parallel()
	_, root, _, real, _ := absLinkSite(t)
	r, err := os.OpenRoot(root)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	hopFirst := "hopb" // maxLinkHops links to the end; "hopa" is one more
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error
	}{
		{"link to a file", "latest.txt", "v2.txt", nil},
		{"link to a directory", "absdir", "sub", nil},
		{"file under a linked directory", "absdir/file.txt", "sub/file.txt", nil},
		{"relative link under a linked directory", "absdir/up.txt", "v2.txt", nil},
		{"target with a trailing slash", "slashdir/file.txt", "sub/file.txt", nil},
		{"chain abs rel abs", "c1", "v2.txt", nil},
		{"the root itself", "self", ".", nil},
		{"the root itself, then a file", "self/v2.txt", "v2.txt", nil},
		{"the root three times", "self/self/self/absdir/file.txt", "sub/file.txt", nil},
		{"dotdot inside the target", "dotdot-in", "v2.txt", nil},
		{"dotdot after a link in the target", "dotdot-after-link", "sub/file.txt", nil},
		{"abs link to a relative link with dotdot", "dotdot-abs-then-rel", "v2.txt", nil},
		{"no link at all", "sub/deeper/x.txt", "sub/deeper/x.txt", nil},
		{"maxLinkHops links", hopFirst, "hop" + string(rune('a'+maxLinkHops+1)), nil},

		{"one link too many", "hopa", "", syscall.ELOOP},
		{"loop of absolute links", "la", "", syscall.ELOOP},
		{"loop relative and absolute", "lc", "", syscall.ELOOP},
		{"dangling", "dangling", "", fs.ErrNotExist},
		{"missing under a linked directory", "absdir/missing", "", fs.ErrNotExist},
		{"file as a directory", "latest.txt/x", "", syscall.ENOTDIR},
		{"absolute link out", "outabs", "", errLinkEscapes},
		{"relative link out", "outrel", "", errLinkEscapes},
		{"absolute link to the root's parent", "outdir/real/v2.txt", "", errLinkEscapes},
		{"absolute link out, in a subdirectory", "absdir/outabs", "", errLinkEscapes},
		{"chain that ends outside", "to-outabs", "", errLinkEscapes},
		{"sibling whose name starts like the root's", "sibling", "", errLinkEscapes},
		{"dotdot out of the target", "dotdot-out", "", errLinkEscapes},
		{"dotdot out and back in", "dotdot-reenter", "", errLinkEscapes},
		{"the root named through its symlink", "vialink", "", errLinkEscapes},
		{"out through the root's symlink", "vialink-out", "", errLinkEscapes},
		{"dotdot above the root after a link", "self/../secret", "", errLinkEscapes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := followLinks(r, real, tt.in)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("followLinks(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil {
				return
			}
			// The result has no link on its way: os.Root opens it.
			f, err := r.Open(got)
			if err != nil {
				t.Fatalf("opening %q: %v", got, err)
			}
			f.Close()
		})
	}

	// Without the root's real path, no absolute link is followed.
	if got, err := followLinks(r, "", "latest.txt"); !errors.Is(err, errLinkEscapes) {
		t.Errorf("followLinks without a real path = %q, %v; want errLinkEscapes", got, err)
	}
}

// os.Root refuses an absolute link with the error openLinkRoot learns, so
// openRegular knows when to follow links; stat follows them as open does.
func TestLinkRoot(t *testing.T) {
	t.Parallel()
	_, root, rootLink, real, _ := absLinkSite(t)
	for _, dir := range []string{root, rootLink} {
		lr, err := openLinkRoot(dir)
		must(t, err)
		t.Cleanup(func() { lr.Close() })
		if lr.real != real {
			t.Errorf("openLinkRoot(%q): real path %q, want %q", dir, lr.real, real)
		}
		if lr.escapes == nil {
			t.Fatalf("openLinkRoot(%q) did not learn os.Root's escape error", dir)
		}
		_, err = lr.OpenFile("latest.txt", openFlags, 0)
		if !lr.escaped(err) {
			t.Fatalf("os.Root on an absolute link: %v, not seen as an escape (%v)", err, lr.escapes)
		}
		if _, err := lr.OpenFile("missing", openFlags, 0); lr.escaped(err) {
			t.Errorf("a missing name seen as an escape: %v", err)
		}
		info, err := lr.stat("latest.txt")
		want, werr := os.Stat(filepath.Join(real, "v2.txt"))
		if err != nil || werr != nil || !os.SameFile(info, want) {
			t.Errorf("stat(latest.txt) = %v, %v; want v2.txt", info, err)
		}
		if _, err := lr.stat("outabs"); err == nil {
			t.Errorf("stat(outabs) followed the link out of the root")
		}
	}
}

// Through the handler: absolute links inside the root serve their target's
// bytes, from memory and from disk, whether the root is named by its real
// path or through a symlink; everything that leaves the root is 404.
func TestAbsoluteSymlinks(t *testing.T) {
	t.Parallel()
	_, root, rootLink, _, marker := absLinkSite(t)
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
	_, root, _, real, _ := absLinkSite(t)
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

// Links are followed by hand only after os.Root has refused a name as
// leaving the root: a missing name, relative links, a relative loop and a
// dangling link cost what they did before, one open and no lstat.
func TestFollowLinksOnlyOnEscape(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	real, err := filepath.EvalSymlinks(s.Root)
	must(t, err)
	base := uniqueName(t, "")
	s.File(base+"/v2.txt", []byte("v2"))
	s.Symlink(base+"/rel.txt", "v2.txt")
	s.Symlink(base+"/loop", "loop")
	s.Symlink(base+"/dangling", "nowhere")
	s.Symlink(base+"/abs.txt", filepath.Join(real, base, "v2.txt"))
	h := newTestHandler(t, s.Root, Options{})
	for _, tt := range []struct {
		name   string
		status int
		follow int64
	}{
		{base + "/missing", 404, 0},
		{base + "/missing/deeper", 404, 0},
		{base + "/v2.txt", 200, 0},
		{base + "/rel.txt", 200, 0},
		{base + "/loop", 404, 0},
		{base + "/dangling", 404, 0},
		{base + "/abs.txt", 200, 1},
	} {
		if w := get(h, "/"+tt.name); w.Code != tt.status {
			t.Errorf("GET /%s: %d, want %d", tt.name, w.Code, tt.status)
		}
		if n := followCount(tt.name); n != tt.follow {
			t.Errorf("GET /%s: followLinks ran %d times, want %d", tt.name, n, tt.follow)
		}
		if strings.Contains(tt.name, "missing") && openCount(tt.name) != 1 {
			t.Errorf("GET /%s: %d opens, want 1", tt.name, openCount(tt.name))
		}
	}
}
