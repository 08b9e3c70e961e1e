package jaws

import (
	"errors"
	"io/fs"
)

// source is where a store's files come from: a directory opened with
// os.Root (New), or an fs.FS (NewFS). Names are fs.ValidPath names,
// cleaned by the Handler.
type source interface {
	// open opens name if it is a regular file or a directory, and never
	// blocks on a special file.
	open(name string) (fs.File, fs.FileInfo, error)
	// stat returns the metadata of name, a file open would open.
	stat(name string) (fs.FileInfo, error)
	// unchanged reports whether name still is version v, more cheaply than
	// stat; handled is false when it cannot tell.
	unchanged(name string, v version) (same, handled bool)
	// immutable reports that no file of the source ever changes, so an
	// entry, once built, is never checked again (an embed.FS).
	immutable() bool
	// snapshot returns a token that stays valid while no event touches
	// file's directories (see watch.go), to be taken before file is opened
	// or stat-ed; nil when the source has no events.
	snapshot(file string, now int64) *token
	close() error
}

// dirSource is a directory: names resolve through os.Root, so nothing
// outside it is ever opened, and hits are confirmed by statDir.
type dirSource struct {
	root    *linkRoot
	statDir statDir
	watch   *watcher // nil: every hit is confirmed by stat
}

// openDirSource opens dir; with events, hits are confirmed by file system
// events where they can be (see watch.go).
func openDirSource(dir string, events bool) (*dirSource, error) {
	r, err := openLinkRoot(dir)
	if err != nil {
		return nil, err
	}
	d := &dirSource{root: r, statDir: openStatDir(dir)}
	if events && r.real != "" {
		d.watch = newWatcher(r.real, r.Root)
	}
	return d, nil
}

func (d *dirSource) open(name string) (fs.File, fs.FileInfo, error) {
	if testHookOpen != nil {
		testHookOpen(name)
	}
	f, err := d.root.OpenFile(name, openFlags, 0)
	if err != nil && d.root.escaped(err) {
		f, err = d.root.openLinked(name, openFlags) // absolute links inside the root (symlink.go)
	}
	if err != nil {
		return nil, nil, err
	}
	return d.root.asStored(name).check(statServable(f)) // names as stored only (namecase.go)
}

func (d *dirSource) stat(name string) (fs.FileInfo, error) { return d.root.stat(name) }

func (d *dirSource) unchanged(name string, v version) (same, handled bool) {
	return d.statDir.unchanged(name, v)
}

func (d *dirSource) immutable() bool { return false }

func (d *dirSource) snapshot(file string, now int64) *token {
	if d.watch == nil {
		return nil
	}
	return d.watch.snapshot(file, now)
}

func (d *dirSource) close() error {
	d.watch.close()
	d.statDir.close()
	return d.root.Close()
}

// statServable returns f with its metadata if it is a file jaws serves or a
// directory it looks into, and closes it otherwise.
func statServable(f fs.File) (fs.File, fs.FileInfo, error) {
	info, err := f.Stat()
	if err == nil && !servable(info) {
		err = errNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// servable reports whether info is of a file jaws serves or a directory it
// looks into: FIFOs, sockets and devices are neither.
func servable(info fs.FileInfo) bool {
	return info.Mode().IsRegular() || info.IsDir()
}

// testHookOpen, when set by a test, sees every file a source opens.
var testHookOpen func(name string)

var errNotRegular = errors.New("jaws: not a regular file")
