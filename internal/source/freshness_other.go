//go:build !linux

package source

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Version identifies one version of a file where only portable metadata is
// at hand: its size and mtime; Ref.Matches adds SameFile for the file's
// identity. Versions compare with ==.
type Version struct {
	size, mtime int64
}

// VersionOf is the version info describes.
func VersionOf(info fs.FileInfo) Version {
	return Version{info.Size(), info.ModTime().UnixNano()}
}

// statDir: outside Linux a hit is confirmed with os.Root.Stat.
type statDir struct{}

func (statDir) close() {}

func (statDir) unchanged(string, Version) (same, handled bool) { return false, false }

// dirID is the identity of the directory a root path names, as os.SameFile
// tells it.
type dirID struct{ info fs.FileInfo }

func (a dirID) same(b dirID) bool {
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info)
}

// statDirID returns the identity of the directory path names now.
func statDirID(path string) (dirID, error) {
	info, err := os.Stat(path)
	if err != nil {
		return dirID{}, err
	}
	if !info.IsDir() {
		return dirID{}, &fs.PathError{Op: "stat", Path: path, Err: ErrNotRegular}
	}
	return dirID{info}, nil
}

// openTreeDir opens the directory path names, refusing a path swapped to
// another directory while it was opened.
func openTreeDir(path string) (sd statDir, id dirID, root *os.Root, real string, err error) {
	if id, err = statDirID(path); err != nil {
		return sd, id, nil, "", err
	}
	if root, err = os.OpenRoot(path); err != nil {
		return sd, id, nil, "", err
	}
	if now, err := statDirID(path); err != nil || !now.same(id) {
		root.Close()
		return sd, id, nil, "", &fs.PathError{Op: "open", Path: path, Err: errSwapped}
	}
	if abs, err := filepath.Abs(path); err == nil {
		real, _ = filepath.EvalSymlinks(abs)
	}
	return sd, id, root, real, nil
}

// openBeneath: outside Linux every name is opened through os.Root.
func openBeneath(statDir, string) (f *os.File, handled bool, err error) { return nil, false, nil }
