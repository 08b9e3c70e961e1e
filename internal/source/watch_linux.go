package source

import (
	"bytes"
	"math/rand/v2"
	"path"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher reads the inotify events of one dirSource: for the directories
// of its current tree that hold cached files, and for the directories on
// the way to the root path, whose changes may make the path name another
// directory. It has no goroutine: every hit calls sync.
type watcher struct {
	fd        int // the inotify descriptor, non-blocking; -1 once closed
	epoch     atomic.Uint64
	broken    atomic.Bool
	draining  atomic.Bool // a sync is reading events it took off the queue
	moved     atomic.Bool // an event on the root path's way: it may name another directory now
	shards    []watchShard
	shardMask uint32

	mu   sync.Mutex // guards what follows, and the reads of fd
	buf  []byte
	byWd map[int32]*watchedDir // the current tree's directories
	path map[int32][]string    // directories on the way to the root, and their names on that way
	// When events were last lost (Mono): which files were written then,
	// none can tell.
	lostAt int64
}

// watchShard is one epoll set holding the inotify descriptor and an opening
// of /proc/self/mountinfo of its own. A change of the mount table is
// reported once per opening, to the first epoll_wait that asks, so each
// shard's mutex keeps two hits from taking the report from each other, and
// hits spread over shards so that they seldom wait for one.
type watchShard struct {
	mu    sync.Mutex
	ep    int // -1 once closed
	mount int
	evs   [2]unix.EpollEvent
	_     [64]byte // a cache line of its own
}

// watchMask is every change that can alter what a name in a directory
// resolves to or holds.
const watchMask = unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MODIFY | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ONLYDIR

// pathMask is every change that can alter what a name in a directory on
// the root's way resolves to. It is added to a watch's mask (IN_MASK_ADD),
// so it never narrows a tree directory's.
const pathMask = unix.IN_ATTRIB | unix.IN_CREATE | unix.IN_DELETE | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_MASK_ADD

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

// trustedDir reports whether the directory open as fd is on a trusted file
// system.
func trustedDir(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && trustedFS(int64(st.Type))
}

// newWatcher returns a watcher for a source whose first tree is t, or nil
// when events cannot be had or trusted there: another kind of file system,
// no inotify, no /proc to watch through.
func newWatcher(t *Tree) *watcher {
	if t.sd.fd < 0 || !trustedDir(t.sd.fd) {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	w := &watcher{fd: fd, buf: make([]byte, 16<<10),
		byWd: make(map[int32]*watchedDir), path: make(map[int32][]string)}
	n := 1 // a power of two, about GOMAXPROCS, at most 16
	for n < min(runtime.GOMAXPROCS(0), 16) {
		n *= 2
	}
	w.shards, w.shardMask = make([]watchShard, n), uint32(n-1)
	for i := range w.shards {
		sh := &w.shards[i]
		sh.ep, sh.mount = -1, -1
		if !sh.open(fd) {
			w.close()
			return nil
		}
	}
	return w
}

func (sh *watchShard) open(inotify int) bool {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return false
	}
	sh.ep = ep
	if unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, inotify, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(inotify)}) != nil {
		return false
	}
	m, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	sh.mount = m
	if unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, m, &unix.EpollEvent{Events: unix.EPOLLPRI, Fd: int32(m)}) != nil {
		return false
	}
	sh.wait() // an opening reports no change it was opened after; be sure
	return true
}

// wait returns the events ready in the shard's set now, without blocking.
// epoll_pwait is a raw system call: it never blocks with a zero timeout.
func (sh *watchShard) wait() []unix.EpollEvent {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(sh.ep),
		uintptr(unsafe.Pointer(&sh.evs[0])), uintptr(len(sh.evs)), 0, 0, 0)
	if errno != 0 {
		return nil
	}
	return sh.evs[:n]
}

func (w *watcher) close() {
	if w == nil {
		return
	}
	w.broken.Store(true)
	w.epoch.Add(1)
	for i := range w.shards {
		sh := &w.shards[i]
		sh.mu.Lock()
		for _, fd := range []int{sh.ep, sh.mount} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		sh.ep, sh.mount = -1, -1
		sh.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// sync makes every change completed before it was called count: the
// events pending are read into the generations, a changed mount table
// makes every token stale, and an event on the root's way sets moved. It
// reports false when events can no longer be trusted (the watcher failed
// or closed): every hit is then confirmed by stat.
func (w *watcher) sync() bool {
	if w.broken.Load() {
		return false
	}
	sh := &w.shards[rand.Uint32()&w.shardMask]
	sh.mu.Lock()
	if sh.ep < 0 {
		sh.mu.Unlock()
		return false
	}
	evs := sh.wait()
	if len(evs) > 0 {
		pending, mounts := false, false
		for _, ev := range evs {
			if ev.Fd == int32(sh.mount) {
				mounts = true
			} else {
				pending = true
			}
		}
		if testHookSyncLock != nil {
			testHookSyncLock()
		}
		w.mu.Lock()
		w.draining.Store(true)
		if mounts {
			w.lostLocked() // a mount over a watched directory raises no event
		}
		if pending {
			w.readLocked()
		}
		w.draining.Store(false)
		w.mu.Unlock()
	}
	sh.mu.Unlock()
	if len(evs) == 0 && w.draining.Load() {
		// Another sync took the events off the queue before this one
		// looked, and is still reading them: wait for it.
		if testHookSyncLock != nil {
			testHookSyncLock()
		}
		w.mu.Lock()
		w.mu.Unlock() //nolint:staticcheck // an empty critical section: a wait
	}
	return !w.broken.Load()
}

// testHookSyncLock, when set by a test, is called before a sync takes
// w.mu: to read events, or to wait for another sync that is reading them.
var testHookSyncLock func()

// readLocked reads every pending event; w.mu is held.
func (w *watcher) readLocked() {
	for w.fd >= 0 {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil || n <= 0:
			w.broken.Store(true) // no longer to be trusted
			w.epoch.Add(1)
			return
		}
		w.handle(w.buf[:n])
	}
}

// handle turns events into generations; w.mu is held.
func (w *watcher) handle(b []byte) {
	now := Mono()
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := min(len(b), unix.SizeofInotifyEvent+int(ev.Len))
		name := bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00")
		b = b[end:]
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			w.lostLocked() // events were lost: nothing is known any more
			w.lostAt = now
			continue
		}
		if names, ok := w.path[ev.Wd]; ok {
			if onTheWay(ev.Mask, name, names) {
				w.moved.Store(true)
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(w.path, ev.Wd)
			}
		}
		d := w.byWd[ev.Wd]
		if d == nil {
			// Removed meanwhile, or added after this event was queued,
			// by a cover whose own check then saw the change.
			continue
		}
		d.gen.Add(1)
		d.noteLocked(ev.Mask, name, now)
		switch {
		case ev.Mask&unix.IN_IGNORED != 0:
			delete(w.byWd, ev.Wd)
		case ev.Mask&unix.IN_MOVE_SELF != 0:
			// Renamed away, say to assets.old: no longer on the path it
			// was watched for. Its successor is watched when a file in it
			// is next covered, and the old one lets go of its watch.
			delete(w.byWd, ev.Wd)
			if _, onPath := w.path[ev.Wd]; !onPath {
				unix.InotifyRmWatch(w.fd, uint32(ev.Wd))
			}
		}
	}
}

// noteLocked keeps when the name an event in d is about was written (an
// IN_MODIFY, or an IN_CLOSE_WRITE: a writer closed it), and lets it go
// when the name goes; the watcher's mu is held.
func (d *watchedDir) noteLocked(mask uint32, name []byte, now int64) {
	switch {
	case len(name) == 0:
	case mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE) != 0:
		if d.written == nil {
			d.written = make(map[string]int64)
		}
		if _, ok := d.written[string(name)]; !ok && len(d.written) >= writtenMax {
			clear(d.written)
			d.writtenAll = now
		}
		d.written[string(name)] = now
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		delete(d.written, string(name))
	}
}

// writtenSince reports whether a write to file, in the directory tok was
// taken for, was reported since (Mono), or events were lost since: its
// bytes may have changed whatever a stat says. A write(2) in place sets
// the file's times before it copies the bytes, and its event comes once
// they are copied; an entry read meanwhile holds a mix of the two
// versions, under the new times (the size too, when it is kept).
func (w *watcher) writtenSince(tok *token, file string, since int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writtenSinceLocked(tok, file, since)
}

func (w *watcher) writtenSinceLocked(tok *token, file string, since int64) bool {
	if w.lostAt >= since {
		return true
	}
	if tok == nil || tok.parent == nil {
		return false // not watched, so no write is reported: stat decides
	}
	d := tok.parent
	return max(d.written[path.Base(file)], d.writtenAll) >= since
}

// onTheWay reports whether an event in a directory on the root's way may
// change what the root path names: the directory itself moved, went or
// changed its permissions, or one of names in it came, went or changed.
func onTheWay(mask uint32, name []byte, names []string) bool {
	const self = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_IGNORED | unix.IN_UNMOUNT
	if mask&self != 0 || len(name) == 0 {
		return true
	}
	for _, n := range names {
		if n == string(name) {
			return true
		}
	}
	return false
}

// lostLocked forgets everything the events said: every token is stale, the
// tree's watches are removed (a directory renamed meanwhile is watched
// again at its new identity when next covered), and the root path is
// looked at again. w.mu is held.
func (w *watcher) lostLocked() {
	w.resetLocked()
	w.moved.Store(true)
}

// resetTree forgets the tree's watches, for a new tree.
func (w *watcher) resetTree() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.resetLocked()
}

func (w *watcher) resetLocked() {
	w.epoch.Add(1)
	for wd := range w.byWd {
		if _, onPath := w.path[wd]; !onPath && w.fd >= 0 {
			unix.InotifyRmWatch(w.fd, uint32(wd))
		}
	}
	clear(w.byWd)
}
