package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// dirSource is a directory: names resolve through os.Root, so nothing
// outside it is ever opened. The directory is the one the root path names
// now (see Tree): the source follows the path as http.Dir does.
type dirSource struct {
	path   string               // the root, absolute
	cur    atomic.Pointer[Tree] // nil while the path names no directory
	watch  *watcher             // nil: every hit is confirmed by stat
	byStat atomic.Bool          // the path is checked by a stat per request: no events for its way
	kick   func()               // schedules a sweep, for the trees retired
	closed atomic.Bool

	mu      sync.Mutex // serialises taking a new tree; guards retired
	retired []*Tree
}

// openDirSource opens dir (see OpenDir); kick schedules a sweep, for the
// trees retired (see sweep).
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
func (d *dirSource) current() *Tree {
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
	var next *Tree
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

func (d *dirSource) Open(name string) (fs.File, fs.FileInfo, *Tree, error) {
	return d.OpenIn(nil, name)
}

func (d *dirSource) OpenIn(t *Tree, name string) (fs.File, fs.FileInfo, *Tree, error) {
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
			f, err = t.root.OpenFile(name, openFlags, 0)
		}
		if err != nil && t.root.escaped(err) {
			f, err = t.root.openLinked(name, openFlags) // absolute links inside the root (symlink.go)
		}
		if err != nil && errors.Is(err, os.ErrClosed) && t != d.cur.Load() {
			continue // retired and closed in between: the root is another tree now
		}
		if err != nil {
			return nil, nil, nil, err
		}
		f2, info, err := t.root.asStored(name).check(statServable(f)) // names as stored only (namecase.go)
		return f2, info, t, err
	}
}

func (d *dirSource) Stat(name string) (fs.FileInfo, error) {
	t := d.cur.Load()
	if t == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return t.root.stat(name)
}

func (d *dirSource) Fresh(e *Ref, _ []byte, clock func() int64) bool {
	t := d.current()
	if t == nil || e.Tree != t {
		return false
	}
	old := e.watched.Load()
	if old.still() {
		return true
	}
	if testHookConfirmStat != nil {
		testHookConfirmStat(e.File)
	}
	same, handled := t.sd.unchanged(e.File, e.Ver)
	if !handled {
		info, err := t.root.stat(e.File)
		same = err == nil && e.Matches(info)
	}
	same = same && e.alsoHold(t.root.stat)
	// A write in place sets the times before it copies the bytes: one
	// still copying while the entry was read left a stat that matches
	// and bytes that do not, and only its event tells.
	if same && d.watch != nil && d.watch.writtenSince(old, e.File, e.ReadAt) {
		same = false
	}
	// A new token at most every rearmEvery: taking one costs system
	// calls of its own.
	if same && d.watch != nil {
		if now := clock(); old == nil || now-old.taken >= int64(rearmEvery) {
			e.watched.Store(d.cover(e, now))
		}
	}
	return same
}

func (d *dirSource) Arm(e *Ref, now int64) {
	if d.watch != nil && e.Tree != nil {
		e.watched.Store(d.cover(e, now))
	}
}

// cover is the watcher's token for e. The watcher checks the file once its
// watches are in place. This checks the names e.Also lists then too: one
// that changed before, after the entry looked at it, sends no event.
func (d *dirSource) cover(e *Ref, now int64) *token {
	tok := d.watch.cover(e.Tree, e.File, e.Ver, e.ReadAt, now)
	if tok.covered && !e.alsoHold(e.Tree.root.stat) {
		tok.covered = false // confirmed by stat, which sees the change
	}
	return tok
}

func (d *dirSource) Gone(e *Ref, f *os.File) bool {
	if e.Tree != nil && e.Tree.retired.Load() != 0 {
		return true
	}
	gone, _ := unlinked(f)
	return gone
}

func (d *dirSource) Immutable() bool { return false }

func (d *dirSource) Close() error {
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

// errSwapped is a root path that came to name another directory while it
// was being opened.
var errSwapped = errors.New("jaws: the root path named another directory while it was opened")

// testHookCurrent, when set, is called each time a source looks for what
// the root names now (dirSource.current: an epoll_wait, or a stat).
var testHookCurrent func(*dirSource)

// testHookConfirmStat, when set by a test, sees every ref confirmed by a
// system call rather than by events.
var testHookConfirmStat func(file string)
