package source

import (
	"errors"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
)

// Names as stored. A router matches a path byte for byte, but a file system
// that folds names opens other spellings of a stored name too: another case
// on Windows (NTFS), macOS (APFS, by default) and in Linux casefold
// directories (ext4, f2fs, tmpfs: chattr +F); a trailing dot or space, an
// 8.3 short name (PRIVAT~1) or a stream suffix (::$DATA) on Windows. With
// chi guarding /private/* and jaws serving the rest, /PRIVATE/secret.txt
// would miss the guard and open private/secret.txt. So jaws serves a file,
// looks into a directory or serves its index page only when the name asked
// for is the name stored, element by element, byte for byte; any other
// spelling is a 404, as a missing file is.
//
// The check runs after the open, on what was opened, and costs one lookup
// in a small table once the name has passed it for that file (nameMemo):
// an entry is cached under the name asked for, so a cache hit, even one
// that opens its own descriptor, pays nothing more. Otherwise:
//
//  1. Where the system gives an open file's final path (Windows:
//     GetFinalPathNameByHandle, normalized, which spells every element as
//     stored, long names, finalpath_windows.go), the name passes when that
//     path is the root's own final path, taken the same way when its tree
//     was opened, joined with the name: only the part under the root is
//     compared.
//  2. Otherwise, or when that differs (a link or a mount point on the way,
//     or another spelling), each element is looked for among the names of
//     its directory, as read from it, which are the stored ones, unless the
//     system says that directory cannot fold names (foldsNames: Linux by
//     file system type and FS_CASEFOLD_FL, macOS by _PC_CASE_SENSITIVE).
//     Reading a directory stops after maxNamesScanned names: a name not
//     found by then is not found (a 404).
//
// Spellings that can never be stored on Windows (a trailing dot or space,
// a ':') are refused by package jaws before anything is opened there
// (unstorableOnWindows, urlpath.go); the check here refuses them too.

// asStored returns the check of name, which dirSource.OpenIn applies to
// what it opened: t.root.asStored(name).check(statServable(f)).
func (r *linkRoot) asStored(name string) nameCheck { return nameCheck{r, name} }

// nameCheck checks that a name is spelled as stored; see asStored.
type nameCheck struct {
	r    *linkRoot
	name string
}

// check passes f on if its name is spelled as stored, and closes it
// otherwise (errNotStored). An error passes through.
func (c nameCheck) check(f fs.File, info fs.FileInfo, err error) (fs.File, fs.FileInfo, error) {
	if err != nil || c.name == "." {
		return f, info, err
	}
	if err := c.r.names.verify(c.r, c.name, f, info); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// errNotStored is a name that opened a file stored under another spelling.
// Like any name with nothing to serve, it is a 404.
var errNotStored = errors.New("jaws: not the name stored")

// maxNamesScanned bounds the names read from one directory to find one
// element: a directory with more names than this, where the system may
// fold names, serves only those found among the first ones read.
const maxNamesScanned = 1 << 16

// storedNames is the state of the check for one root: the root's final
// path, and the names that passed.
type storedNames struct {
	final string // the root's final path (finalPath), "" where there is none
	memo  nameMemo
}

// init records the root's final path, from an open handle of the root, so
// that its own spelling, stored or as the operator typed it, never enters
// the comparison.
func (s *storedNames) init(root *os.Root) {
	s.memo.seed = maphash.MakeSeed()
	d, err := root.Open(".")
	if err != nil {
		return
	}
	defer d.Close()
	if p, ok := finalPath(d); ok {
		s.final = p
	}
}

// verify reports whether name, opened as f with metadata info, is spelled
// as stored (nil) or not (errNotStored).
func (s *storedNames) verify(r *linkRoot, name string, f fs.File, info fs.FileInfo) error {
	if s.memo.seen(name, info) {
		return nil
	}
	if osf, ok := f.(*os.File); ok && s.final != "" {
		if p, ok := finalPath(osf); ok && finalIs(p, s.final, name, os.PathSeparator) {
			s.memo.add(name, info)
			return nil
		}
	}
	if err := listedAsStored(r, name); err != nil {
		return err
	}
	s.memo.add(name, info)
	return nil
}

// finalIs reports whether final, a file's final path as the system gives
// it, is root (the root's, given the same way) joined with name, a
// slash-separated name: the part under the root byte for byte, in the
// system's separator sep. A root that ends in a separator (a drive's,
// `\\?\C:\`) joins without another.
func finalIs(final, root, name string, sep byte) bool {
	if root == "" || name == "" {
		return false
	}
	rest, ok := strings.CutPrefix(final, root)
	if !ok {
		return false
	}
	if root[len(root)-1] != sep {
		if rest == "" || rest[0] != sep {
			return false
		}
		rest = rest[1:]
	}
	if len(rest) != len(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '/' {
			c = sep
		}
		if rest[i] != c {
			return false
		}
	}
	return true
}

// listedAsStored checks name element by element: each must be among the
// names its directory holds, byte for byte, unless the system says the
// directory cannot fold names.
func listedAsStored(r *linkRoot, name string) error {
	elems := strings.Split(strings.TrimSuffix(name, "/"), "/")
	for i, elem := range elems {
		dir := "."
		if i > 0 {
			dir = strings.Join(elems[:i], "/")
		}
		d, err := r.openDir(dir)
		if err != nil {
			return err
		}
		if folds, handled := foldsNames(d); !handled || folds {
			err = holdsName(d, elem, maxNamesScanned)
		}
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// openDir opens the directory dir as dirSource.OpenIn opens names, following
// absolute links inside the root.
func (r *linkRoot) openDir(dir string) (*os.File, error) {
	d, err := r.OpenFile(dir, openFlags, 0)
	if err != nil && r.escaped(err) {
		d, err = r.openLinked(dir, openFlags)
	}
	return d, err
}

// holdsName reports, reading at most max names of the directory d,
// whether it holds elem, byte for byte (nil), or not (errNotStored).
func holdsName(d *os.File, elem string, max int) error {
	for n := 0; n < max; {
		names, err := d.Readdirnames(256)
		for _, s := range names {
			if s == elem {
				return nil
			}
		}
		n += len(names)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return errNotStored
}

// nameMemo remembers the names that passed the check, each with the file
// it named then: a direct-mapped table, so it stays small whatever the
// tree, and a name that lost its slot is checked again. A name passes
// again without a check while it opens the same file (os.SameFile) with
// the same mtime; a file replaced by a deploy is checked anew.
type nameMemo struct {
	seed  maphash.Seed
	slots [nameMemoSlots]atomic.Pointer[memoEntry]
}

const nameMemoSlots = 1024

type memoEntry struct {
	name string
	info fs.FileInfo
}

func (m *nameMemo) slot(name string) *atomic.Pointer[memoEntry] {
	return &m.slots[maphash.String(m.seed, name)%nameMemoSlots]
}

func (m *nameMemo) seen(name string, info fs.FileInfo) bool {
	e := m.slot(name).Load()
	return e != nil && e.name == name && os.SameFile(e.info, info) && e.info.ModTime().Equal(info.ModTime())
}

func (m *nameMemo) add(name string, info fs.FileInfo) {
	m.slot(name).Store(&memoEntry{name: name, info: info})
}
