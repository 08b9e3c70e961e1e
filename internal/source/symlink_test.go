package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

// follows counts, per name, the names followLinks resolves
// (testHookFollowLinks).
var follows counts[string]

func init() { testHookFollowLinks = follows.add }

// followLinks rewrites a name with absolute links inside the root into one
// relative to it, and refuses everything that leaves the root.
func TestFollowLinks(t *testing.T) {
	t.Parallel()
	a := testsite.NewAbsLinks(t, maxLinkHops)
	root, real := a.Root, a.Real
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
	a := testsite.NewAbsLinks(t, maxLinkHops)
	real := a.Real
	for _, dir := range []string{a.Root, a.RootLink} {
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

// Links are followed by hand only after os.Root has refused a name as
// leaving the root: a missing name, relative links, a relative loop and a
// dangling link cost one open, and no lstat of followLinks.
func TestFollowLinksOnlyOnEscape(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	real, err := filepath.EvalSymlinks(s.Root)
	must(t, err)
	const base = "onlyonescape" // names no other test follows (follows)
	s.File(base+"/v2.txt", []byte("v2"))
	s.Symlink(base+"/rel.txt", "v2.txt")
	s.Symlink(base+"/loop", "loop")
	s.Symlink(base+"/dangling", "nowhere")
	s.Symlink(base+"/abs.txt", filepath.Join(real, base, "v2.txt"))
	d := openDir(t, s.Root, true)
	for _, tt := range []struct {
		name   string
		found  bool
		follow int64
	}{
		{base + "/missing", false, 0},
		{base + "/missing/deeper", false, 0},
		{base + "/v2.txt", true, 0},
		{base + "/rel.txt", true, 0},
		{base + "/loop", false, 0},
		{base + "/dangling", false, 0},
		{base + "/abs.txt", true, 1},
	} {
		before := follows.get(tt.name) // the counts outlive a run (go test -count)
		f, _, _, err := d.Open(tt.name)
		if err == nil {
			f.Close()
		}
		if (err == nil) != tt.found {
			t.Errorf("Open(%s): %v, want found %v", tt.name, err, tt.found)
		}
		if n := follows.get(tt.name) - before; n != tt.follow {
			t.Errorf("Open(%s): followLinks ran %d times, want %d", tt.name, n, tt.follow)
		}
	}
}

// openLinkRoot opens dir as os.OpenRoot does.
func openLinkRoot(dir string) (*linkRoot, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	real := ""
	if abs, err := filepath.Abs(dir); err == nil {
		real, _ = filepath.EvalSymlinks(abs)
	}
	return newLinkRoot(r, real), nil
}
