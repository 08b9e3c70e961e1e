package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Absolute symbolic links. os.Root refuses every link whose target is an
// absolute path, even one that points back into the root, as deploy tools
// write them (/srv/site/latest.txt -> /srv/site/v2.txt). jaws follows such a
// link when its target lies inside the root's real path, and refuses it
// like any escape otherwise. It does so only after os.Root has refused a
// name as leaving the root, so names without such links, found or missing,
// cost nothing more. The name is rewritten into one without links, relative
// to the root, and opened through os.Root again: containment stays
// os.Root's to enforce, and a link changed in between fails that open.

// linkRoot is the served directory: an os.Root, and what following its
// absolute links needs.
type linkRoot struct {
	*os.Root
	real    string // the directory's absolute path, symlinks resolved; "" turns the links off
	escapes error  // os.Root's error for a name that leaves the root
	// names: what the check that names are spelled as stored keeps (namecase.go)
	names storedNames
}

// newLinkRoot is r, whose real path is real ("" turns absolute links off).
func newLinkRoot(r *os.Root, real string) *linkRoot {
	lr := &linkRoot{Root: r, real: real}
	lr.names.init(r)
	// os does not export the error, so learn it: a name that starts with a
	// slash is refused before any system call.
	var pe *fs.PathError
	if _, err := r.Lstat("/"); errors.As(err, &pe) {
		lr.escapes = pe.Err
	}
	return lr
}

// escaped reports whether err is os.Root refusing a name as leaving the
// root: "..", a relative link out of it, or any absolute link.
func (r *linkRoot) escaped(err error) bool {
	return r.escapes != nil && errors.Is(err, r.escapes)
}

// openLinked opens name, which os.Root refused as leaving the root,
// following the absolute links on its way that stay inside it.
func (r *linkRoot) openLinked(name string, flag int) (*os.File, error) {
	rel, err := followLinks(r.Root, r.real, name)
	if err != nil {
		return nil, err
	}
	return r.OpenFile(rel, flag, 0)
}

// stat is os.Root.Stat, following absolute links inside the root as
// openLinked does.
func (r *linkRoot) stat(name string) (fs.FileInfo, error) {
	info, err := r.Stat(name)
	if err != nil && r.escaped(err) {
		var rel string
		if rel, err = followLinks(r.Root, r.real, name); err == nil {
			info, err = r.Stat(rel)
		}
	}
	return info, err
}

// maxLinkHops bounds the symbolic links followed for one name. It is
// os.Root's own bound, so a chain of links is served or refused alike
// whether absolute links are among them or not; Linux allows 40
// (MAXSYMLINKS).
const maxLinkHops = 8

// errLinkEscapes is a symbolic link, or a ".." in one, that leads out of the
// root. Like every escape, it is a 404.
var errLinkEscapes = errors.New("jaws: symbolic link leads out of the root")

// testHookFollowLinks, when set by a test, sees every name followLinks
// resolves.
var testHookFollowLinks func(name string)

// followLinks returns a name equivalent to name, a cleaned slash-separated
// name under root, with no symbolic link on its way: each link met is
// replaced by its target, element by element from the root, as the kernel
// and os.Root resolve them. A relative target continues from the link's
// directory; an absolute one from the root, provided it leads into
// rootReal, the root's real path (see underRoot); "" refuses every absolute
// link. ".." is taken from the elements resolved so far, which are real
// directories, so it is exact; above the root it is refused, as are
// absolute targets elsewhere (errLinkEscapes) and more than maxLinkHops
// links (ELOOP). The result never leaves the root, and the caller opens it
// through root, which enforces that again.
func followLinks(root *os.Root, rootReal, name string) (string, error) {
	if testHookFollowLinks != nil {
		testHookFollowLinks(name)
	}
	var done []string // resolved elements, none of them a link
	todo := pathElems(strings.Split(name, "/"))
	hops := 0
	for elem, ok := todo.next(); ok; elem, ok = todo.next() {
		if elem == ".." {
			if len(done) == 0 {
				return "", errLinkEscapes
			}
			done = done[:len(done)-1]
			continue
		}
		cur := strings.Join(append(done, elem), "/")
		info, err := root.Lstat(cur)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = append(done, elem)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
		}
		target, err := root.Readlink(cur)
		if err != nil {
			return "", err
		}
		var next []string
		switch {
		case target == "":
			return "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		case filepath.IsAbs(target):
			rest, ok := underRoot(rootReal, target)
			if !ok {
				return "", errLinkEscapes
			}
			done, next = done[:0], rest
		case filepath.VolumeName(target) != "" || os.IsPathSeparator(target[0]):
			// Windows: rooted on the current drive ("\x"), or relative
			// to another drive's current directory ("D:x").
			return "", errLinkEscapes
		default:
			next = strings.Split(filepath.ToSlash(target), "/")
		}
		todo.push(next)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return strings.Join(done, "/"), nil
}

// pathElems are the elements of a path still to resolve, in order, as a
// resolver of links walks them: a link's target is pushed in front of the
// rest, and "" and "." elements are nothing.
type pathElems []string

// next returns the next element, other than "" or ".".
func (q *pathElems) next() (string, bool) {
	for len(*q) > 0 {
		elem := (*q)[0]
		*q = (*q)[1:]
		if elem != "" && elem != "." {
			return elem, true
		}
	}
	return "", false
}

// push puts elems, a link's target, in front of the rest.
func (q *pathElems) push(elems []string) { *q = append(elems, *q...) }

// underRoot returns the elements of the absolute path target that follow
// rootReal, the root's real path, or ok false if target does not lead into
// it. The elements up to the root are taken by their names, with ".." as
// the parent: outside the root no link is looked at, so a target that
// reaches the root only through a link elsewhere (one naming the root by a
// symlink to it, say) is refused. Once target reaches the root, the rest is
// the caller's to resolve inside it, where a ".." above the root is refused
// as os.Root refuses it: "/srv/site/../site/x" does not lead back in.
// Names compare byte for byte, also where the file system ignores case.
func underRoot(rootReal, target string) (rest []string, ok bool) {
	vol := filepath.VolumeName(rootReal)
	if rootReal == "" || filepath.VolumeName(target) != vol {
		return nil, false
	}
	var want []string
	for _, e := range strings.Split(filepath.ToSlash(rootReal[len(vol):]), "/") {
		if e != "" && e != "." {
			want = append(want, e)
		}
	}
	elems := strings.Split(filepath.ToSlash(target[len(vol):]), "/")
	var at []string
	for i, e := range elems {
		if slices.Equal(at, want) {
			return elems[i:], true
		}
		switch e {
		case "", ".":
		case "..":
			if len(at) > 0 {
				at = at[:len(at)-1]
			}
		default:
			at = append(at, e)
		}
	}
	if slices.Equal(at, want) {
		return nil, true // the root itself
	}
	return nil, false
}
