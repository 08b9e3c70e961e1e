package jaws

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher reads inotify events for the directories of one root. It has no
// goroutine of its own: hits read the pending events themselves, at most
// every drainEvery (see catchUp).
type watcher struct {
	root    *os.Root // for the symbolic-link check
	dir     string   // the root's real path, as watches are added by path
	epoch   atomic.Uint64
	broken  atomic.Bool
	drained atomic.Int64 // unix nanoseconds of the last read of pending events

	mu     sync.Mutex // guards what follows, and the descriptor's reads
	fd     int        // the inotify descriptor, non-blocking; -1 once closed
	buf    []byte
	byPath map[string]*watchedDir // "" is the root
	byWd   map[int32]*watchedDir
}

// watchMask is every change that can alter what a name in a directory
// resolves to or holds.
const watchMask = unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MODIFY | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ONLYDIR

// testHookTrustFS, when set by a test, decides which file systems'
// events are trusted.
var testHookTrustFS func(fsType int64) bool

// trustedFS reports whether every change to a file system of this type
// goes through this kernel, which then reports it: local disks and memory.
// Network and user-space file systems change under it.
func trustedFS(fsType int64) bool {
	if testHookTrustFS != nil {
		return testHookTrustFS(fsType)
	}
	switch fsType {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}

// newWatcher watches the directories under dir, root's real path, as files
// under them are cached; nil when events cannot be had or trusted there.
func newWatcher(dir string, root *os.Root) *watcher {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || !trustedFS(int64(st.Type)) {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	return &watcher{root: root, dir: dir, fd: fd, buf: make([]byte, 16<<10),
		byPath: make(map[string]*watchedDir), byWd: make(map[int32]*watchedDir)}
}

func (w *watcher) close() {
	if w == nil {
		return
	}
	w.broken.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// catchUp reads the events pending since the last read, if that was
// drainEvery ago or more, so that every change made before now-drainEvery
// is in the generations.
func (w *watcher) catchUp(now int64) {
	if now-w.drained.Load() < int64(drainEvery) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if now-w.drained.Load() < int64(drainEvery) {
		return // read meanwhile
	}
	w.readLocked(now)
}

// readPending reads the events pending now, whenever the last read was;
// for tests, which would otherwise wait drainEvery after a change.
func (w *watcher) readPending() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.readLocked(w.drained.Load())
}

// readLocked reads every pending event, and notes now as the time of the
// read; w.mu is held.
func (w *watcher) readLocked(now int64) {
	for w.fd >= 0 {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			w.drained.Store(now)
			return
		case err != nil || n <= 0:
			w.broken.Store(true) // no longer to be trusted
			return
		}
		w.handle(w.buf[:n])
	}
}

// handle turns events into generations; w.mu is held.
func (w *watcher) handle(b []byte) {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		b = b[min(len(b), unix.SizeofInotifyEvent+int(ev.Len)):]
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			w.epoch.Add(1) // events were lost: nothing is known any more
			continue
		}
		if d := w.byWd[ev.Wd]; d != nil {
			d.gen.Add(1)
		}
		switch {
		case ev.Mask&unix.IN_IGNORED != 0:
			delete(w.byWd, ev.Wd)
			fallthrough
		case ev.Mask&(unix.IN_ISDIR|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
			// A directory came, went or moved: paths may now name other
			// directories than the ones watched for them. Find them anew.
			clear(w.byPath)
		}
	}
}

// snapshot returns a token for file, a name under the root, to be taken
// before the file is opened or stat-ed, and covered (see cover) once it
// was found. It holds the generations of the file's directories, unless
// one is on an untrusted file system, no watch is to be had (the user's
// inotify limit) or the watcher stopped; an uncovered token never holds.
func (w *watcher) snapshot(file string, now int64) *token {
	if w == nil {
		return nil
	}
	t := &token{w: w, epoch: w.epoch.Load(), taken: now, file: file}
	if w.broken.Load() {
		return t // uncovered: still() is false, and it is tried again later
	}
	w.catchUp(now)
	// The root, then each directory on the way: file up to each slash.
	for dir, i := "", 0; ; {
		d := w.watch(dir)
		if d == nil {
			return t
		}
		t.dirs = append(t.dirs, d)
		t.gens = append(t.gens, d.gen.Load())
		j := strings.IndexByte(file[i:], '/')
		if j < 0 {
			break
		}
		dir, i = file[:i+j], i+j+1
	}
	t.dirsTaken = true
	return t
}

// cover makes t, whose generations are taken, hold for its file unless a
// symbolic link is on the file's path. A link made after the generations
// were taken is an event that makes t stale, so this runs once the file is
// found, and a name that is not found costs no look for links.
func (w *watcher) cover(t *token) {
	for p := t.file; ; {
		info, err := w.root.Lstat(p)
		if err != nil || info.Mode()&fs.ModeSymlink != 0 {
			return
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			t.covered = true
			return
		}
		p = p[:i]
	}
}

// watch returns the watched directory at path under the root, adding the
// watch if need be.
func (w *watcher) watch(path string) *watchedDir {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d, ok := w.byPath[path]; ok {
		return d
	}
	if w.fd < 0 {
		return nil
	}
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	var st unix.Statfs_t
	if path != "" && (unix.Statfs(full, &st) != nil || !trustedFS(int64(st.Type))) {
		return nil // a mount of another kind of file system
	}
	wd, err := unix.InotifyAddWatch(w.fd, full, watchMask)
	if err != nil {
		return nil
	}
	d := w.byWd[int32(wd)]
	if d == nil {
		d = new(watchedDir)
		w.byWd[int32(wd)] = d
	}
	w.byPath[path] = d
	return d
}
