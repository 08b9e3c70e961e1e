package jaws

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
)

// source is where a store's files come from: a directory opened with
// os.Root (New), or an fs.FS (NewFS). Names are fs.ValidPath names,
// cleaned by the Handler.
type source interface {
	// open opens name if it is a regular file or a directory, and never
	// blocks on a special file; at is the tree it was found in (nil for
	// an fs.FS), which an entry keeps.
	open(name string) (f fs.File, info fs.FileInfo, at *tree, err error)
	// openIn is open for a request that has confirmed, since it began,
	// that at is the tree the root names (an entry's, which fresh said
	// holds): it opens in at without looking again. A retired tree since
	// closed, or nil, is looked for as open does.
	openIn(at *tree, name string) (f fs.File, info fs.FileInfo, found *tree, err error)
	// stat returns the metadata of name, a file open would open.
	stat(name string) (fs.FileInfo, error)
	// fresh reports whether ref still is what its file holds now, for a
	// request that starts now (the clock, read only when needed); body is
	// the file's bytes, when they are held in memory.
	fresh(ref *fileRef, body []byte, now func() int64) bool
	// arm readies a new ref for fresh: with file system events, the
	// token that confirms it while they say nothing changed.
	arm(ref *fileRef, now int64)
	// gone reports whether f, a descriptor of ref's file, is of a file no
	// longer served: deleted, renamed over, or of a tree the root no
	// longer is.
	gone(ref *fileRef, f *os.File) bool
	// sweep closes what the source no longer needs (trees retired), and
	// reports whether it has more to close.
	sweep(now int64) (again bool)
	// immutable reports that no file of the source ever changes, so an
	// entry, once built, is never checked again (an embed.FS).
	immutable() bool
	close() error
}

// fileRef is what a source found of a file: its name, its metadata and the
// version they identify, the tree it was found in (nil for an fs.FS), and
// the token that confirms it while file system events say nothing changed.
// A store's entries hold one, for the source to confirm (fresh).
type fileRef struct {
	file    string      // the file under the root
	info    fs.FileInfo // its metadata when it was found
	ver     version     // and the version they identify
	tree    *tree
	watched atomic.Pointer[token]
	// When its bytes began to be read (mono): a write reported from then
	// on may have changed them, whatever a stat says (watcher.writtenSince).
	readAt int64
	// also are other names of the file's directory whose state the entry
	// stands on: a name that must still be missing, or a file still at its
	// version. A compressed-only file stands on its plain name being
	// missing and on its other siblings (codedonly.go). Events in the
	// directory vouch for them as for the file; a look by stat looks at
	// each of them too.
	also []alsoRef
}

// alsoRef is a name a fileRef stands on: missing (absent), or at ver.
type alsoRef struct {
	name   string
	absent bool
	info   fs.FileInfo
	ver    version
}

// holds reports whether a is still as the entry found it, by stat.
func (a *alsoRef) holds(stat func(string) (fs.FileInfo, error)) bool {
	info, err := stat(a.name)
	if a.absent {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && sameFile(a.info, info) && versionOf(info) == a.ver
}

// alsoHold reports whether every name ref stands on is as it was.
func (ref *fileRef) alsoHold(stat func(string) (fs.FileInfo, error)) bool {
	for i := range ref.also {
		if !ref.also[i].holds(stat) {
			return false
		}
	}
	return true
}

// matches reports whether ref still describes the file info was read from:
// the same file (a rename over it is a new one) in the same version.
func (ref *fileRef) matches(info fs.FileInfo) bool {
	return sameFile(ref.info, info) && ref.ver == versionOf(info)
}

// sameFile is os.SameFile for files of the os package, whose identity it
// knows; files of other file systems are told apart by version alone.
func sameFile(a, b fs.FileInfo) bool {
	if isOSFileInfo(a) && isOSFileInfo(b) {
		return os.SameFile(a, b)
	}
	return true
}

// osFileInfo is the type of the os package's FileInfo.
var osFileInfo = reflect.TypeOf(func() fs.FileInfo {
	fi, err := os.Stat(os.DevNull)
	if err != nil {
		fi, _ = os.Stat(".")
	}
	return fi
}())

func isOSFileInfo(fi fs.FileInfo) bool {
	return osFileInfo != nil && reflect.TypeOf(fi) == osFileInfo
}

// dirSource is a directory: names resolve through os.Root, so nothing
// outside it is ever opened. The directory is the one the root path names
// now (see tree): the source follows the path as http.Dir does.
type dirSource struct {
	path   string               // the root, absolute
	cur    atomic.Pointer[tree] // nil while the path names no directory
	watch  *watcher             // nil: every hit is confirmed by stat
	byStat atomic.Bool          // the path is checked by a stat per request: no events for its way
	kick   func()               // schedules a sweep, for the trees retired
	closed atomic.Bool

	mu      sync.Mutex // serialises taking a new tree; guards retired
	retired []*tree
}

// openDirSource opens dir; with events, hits are confirmed by file system
// events where they can be (see watch.go), else by stat. kick schedules a
// sweep (see sweep).
func openDirSource(dir string, events bool, kick func()) (*dirSource, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	t, err := openTree(abs)
	if err != nil {
		return nil, err
	}
	d := &dirSource{path: abs, kick: kick}
	d.cur.Store(t)
	if events {
		d.watch = newWatcher(t)
	}
	if d.watch == nil || !d.watch.watchPath(abs) {
		d.byStat.Store(true)
	}
	return d, nil
}

// current returns the tree the root path names as of now, taking a new one
// when the path was swapped to another directory. With events it costs one
// non-blocking epoll_wait, else one stat of the path.
func (d *dirSource) current() *tree {
	if testHookCurrent != nil {
		testHookCurrent(d)
	}
	if d.closed.Load() {
		return nil
	}
	if d.watch != nil && d.watch.sync() {
		if d.watch.moved.Load() {
			d.reroot()
		}
		if !d.byStat.Load() {
			return d.cur.Load()
		}
	}
	cur := d.cur.Load()
	id, err := statDirID(d.path)
	if (err == nil) != (cur != nil) || err == nil && !id.same(cur.id) {
		d.reroot()
	}
	return d.cur.Load()
}

// reroot looks at what the root path names, and takes a new tree if it is
// another directory than the current one (or none).
func (d *dirSource) reroot() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return
	}
	if d.watch != nil && d.watch.moved.Swap(false) {
		// Before looking, so that a change after the look is an event.
		d.byStat.Store(!d.watch.watchPath(d.path))
	}
	cur := d.cur.Load()
	id, err := statDirID(d.path)
	if err == nil && cur != nil && id.same(cur.id) || err != nil && cur == nil {
		return
	}
	var next *tree
	if err == nil {
		next, _ = openTree(d.path) // nil if it went away meanwhile: looked at again next time
	}
	d.cur.Store(next)
	if cur != nil {
		cur.retired.Store(unixNano())
		d.retired = append(d.retired, cur)
		if d.watch != nil {
			d.watch.resetTree()
		}
		d.kick()
	}
}

// sweep closes the trees retired at least a sweep ago, when no request
// can still be opening a file in them (a request takes its tree just
// before it opens), and reports whether some remain to close.
func (d *dirSource) sweep(now int64) (again bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	keep := d.retired[:0]
	for _, t := range d.retired {
		if now-t.retired.Load() >= int64(sweepEvery) {
			t.close()
		} else {
			keep = append(keep, t)
		}
	}
	clear(d.retired[len(keep):])
	d.retired = keep
	return len(keep) > 0
}

func (d *dirSource) open(name string) (fs.File, fs.FileInfo, *tree, error) {
	return d.openIn(nil, name)
}

func (d *dirSource) openIn(t *tree, name string) (fs.File, fs.FileInfo, *tree, error) {
	if testHookOpen != nil {
		testHookOpen(name)
	}
	for ; ; t = nil {
		if t == nil || d.closed.Load() {
			t = d.current()
		}
		if t == nil {
			err := fs.ErrNotExist
			if d.closed.Load() {
				err = os.ErrClosed
			}
			return nil, nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		f, handled, err := openBeneath(t.sd, name)
		if !handled {
			f, err = t.OpenFile(name, openFlags, 0)
		}
		if err != nil && t.escaped(err) {
			f, err = t.openLinked(name, openFlags) // absolute links inside the root (symlink.go)
		}
		if err != nil && errors.Is(err, os.ErrClosed) && t != d.cur.Load() {
			continue // retired and closed in between: the root is another tree now
		}
		if err != nil {
			return nil, nil, nil, err
		}
		f2, info, err := t.asStored(name).check(statServable(f)) // names as stored only (namecase.go)
		return f2, info, t, err
	}
}

func (d *dirSource) stat(name string) (fs.FileInfo, error) {
	t := d.cur.Load()
	if t == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t.linkRoot.stat(name)
}

func (d *dirSource) fresh(e *fileRef, _ []byte, clock func() int64) bool {
	t := d.current()
	if t == nil || e.tree != t {
		return false
	}
	old := e.watched.Load()
	if old.still() {
		return true
	}
	if testHookConfirmStat != nil {
		testHookConfirmStat(e.file)
	}
	same, handled := t.sd.unchanged(e.file, e.ver)
	if !handled {
		info, err := t.linkRoot.stat(e.file)
		same = err == nil && e.matches(info)
	}
	same = same && e.alsoHold(t.linkRoot.stat)
	// A write in place sets the times before it copies the bytes: one
	// still copying while the entry was read left a stat that matches
	// and bytes that do not, and only its event tells.
	if same && d.watch != nil && d.watch.writtenSince(old, e.file, e.readAt) {
		same = false
	}
	// A new token at most every rearmEvery: taking one costs system
	// calls of its own.
	if now := clock(); same && d.watch != nil && (old == nil || now-old.taken >= int64(rearmEvery)) {
		e.watched.Store(d.watch.cover(t, e.file, e.ver, e.readAt, now))
	}
	return same
}

func (d *dirSource) arm(e *fileRef, now int64) {
	if d.watch != nil && e.tree != nil {
		e.watched.Store(d.watch.cover(e.tree, e.file, e.ver, e.readAt, now))
	}
}

func (d *dirSource) gone(e *fileRef, f *os.File) bool {
	if e.tree != nil && e.tree.retired.Load() != 0 {
		return true
	}
	gone, _ := unlinked(f)
	return gone
}

func (d *dirSource) immutable() bool { return false }

func (d *dirSource) close() error {
	d.closed.Store(true)
	d.watch.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	var err error
	if t := d.cur.Swap(nil); t != nil {
		err = t.close()
	}
	for _, t := range d.retired {
		t.close()
	}
	d.retired = nil
	return err
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

// testHookCurrent, when set, is called each time a source looks for what
// the root names now (dirSource.current: an epoll_wait, or a stat).
var testHookCurrent func(*dirSource)

var errNotRegular = errors.New("jaws: not a regular file")

// errSwapped is a root path that came to name another directory while it
// was being opened.
var errSwapped = errors.New("jaws: the root path named another directory while it was opened")

// testHookConfirmStat, when set by a test, sees every hit confirmed by a
// system call rather than by events or Options.Revalidate.
var testHookConfirmStat func(file string)
