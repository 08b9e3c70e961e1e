package source

import "sync/atomic"

// Tree is one opening of the root path: the directory the path named when
// it was opened, with what serving from it needs. The root is the path, as
// with http.Dir: when the path comes to name another directory (a symlink
// swapped to a new release, the directory renamed away and replaced,
// deleted, recreated), the source opens a new tree and retires this one.
// Refs remember the tree their file was found in (Ref.Tree) and are stale
// once it is retired; requests in flight finish from it, and it is closed
// a sweep later (see dirSource.sweep). It is opaque to the source's users,
// who compare trees and hand them back to OpenIn; an fs.FS has none (nil).
type Tree struct {
	root    *linkRoot // os.Root, and its real path for absolute links
	sd      statDir   // the same directory, for one fstatat per stat-confirmed hit
	id      dirID     // what the path named
	retired atomic.Int64
}

func openTree(path string) (*Tree, error) {
	sd, id, r, real, err := openTreeDir(path)
	if err != nil {
		return nil, err
	}
	return &Tree{root: newLinkRoot(r, real), sd: sd, id: id}, nil
}

func (t *Tree) close() error {
	t.sd.close()
	return t.root.Close()
}
