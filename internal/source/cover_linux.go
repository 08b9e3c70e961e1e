package source

import (
	"strings"

	"golang.org/x/sys/unix"
)

// cover returns a token for file, version v of a name in tree t, taken at
// now. It opens each directory on the file's way from the tree's own
// descriptor, never following a link, so it watches nothing outside the
// tree and nothing for a name that was not found; watches them; and then
// checks that the way still leads through those directories to version v.
// A change before the watches were in place is seen by that check, any
// later one by the generations. The token is uncovered (it never holds,
// and the entry is confirmed by stat) for a file reached through a link,
// hard-linked or a mount point, on an untrusted file system, when no watch
// is to be had (the user's inotify limit), when anything changed meanwhile,
// or when a write to the file was reported since readAt, when its bytes
// were read (watcher.writtenSince).
func (w *watcher) cover(t *Tree, file string, v Version, readAt, now int64) *token {
	tok := &token{w: w, epoch: w.epoch.Load(), taken: now}
	tok.dirs = tok.buf[:0]
	if w.broken.Load() || t.sd.fd < 0 || t.retired.Load() != 0 || !trustedDir(t.sd.fd) {
		return tok
	}
	elems := strings.Split(file, "/")
	base := elems[len(elems)-1]
	fds, ids, ok := openPath(t.sd.fd, elems[:len(elems)-1])
	defer func() {
		for _, fd := range fds[1:] {
			unix.Close(fd)
		}
	}()
	if !ok || !w.watchDirs(tok, fds) {
		return tok
	}
	// A write reported since the bytes were read, before this token's
	// generations: they may be a mix (writtenSince), and no later event
	// would tell.
	w.mu.Lock()
	racy := w.writtenSinceLocked(tok, file, readAt)
	w.mu.Unlock()
	if racy {
		return tok
	}
	var st unix.Stat_t
	for i, elem := range elems[:len(elems)-1] {
		if unix.Fstatat(fds[i], elem, &st, unix.AT_SYMLINK_NOFOLLOW) != nil ||
			(dirID{uint64(st.Dev), uint64(st.Ino)}) != ids[i+1] {
			return tok
		}
	}
	var sx unix.Statx_t
	if unix.Statx(fds[len(fds)-1], base, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS, &sx) != nil ||
		sx.Mode&unix.S_IFMT != unix.S_IFREG || sx.Nlink != 1 || mountPoint(&sx, ids[len(ids)-1]) ||
		versionOfStatx(&sx) != v {
		return tok
	}
	tok.covered = true
	return tok
}

// openPath opens the directories dirs, one by one below root without
// following a link, and returns them, root first (which the caller does
// not close), with their identities; ok is false when one is a link, gone,
// or a mount of another kind of file system.
func openPath(root int, dirs []string) (fds []int, ids []dirID, ok bool) {
	fds = make([]int, 1, len(dirs)+1)
	fds[0] = root
	ids = make([]dirID, 1, len(dirs)+1)
	var st unix.Stat_t
	if unix.Fstat(root, &st) != nil {
		return fds, ids, false
	}
	ids[0] = dirID{uint64(st.Dev), uint64(st.Ino)}
	for _, elem := range dirs {
		fd, err := unix.Openat(fds[len(fds)-1], elem, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fds, ids, false // a link (ENOTDIR), or gone
		}
		fds = append(fds, fd)
		if unix.Fstat(fd, &st) != nil {
			return fds, ids, false
		}
		id := dirID{uint64(st.Dev), uint64(st.Ino)}
		if id.dev != ids[0].dev && !trustedDir(fd) {
			return fds, ids, false // a mount of another kind of file system
		}
		ids = append(ids, id)
	}
	return fds, ids, true
}

// watchDirs watches the directories fds, and puts their generations in
// tok. It works under the lock, so that no event of a new watch is read
// before the watch is known; false when a watch could not be added (the
// user's inotify limit, say) or the watches were reset meanwhile.
func (w *watcher) watchDirs(tok *token, fds []int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 || w.epoch.Load() != tok.epoch {
		return false
	}
	for _, fd := range fds {
		wd, err := unix.InotifyAddWatch(w.fd, procFD(fd), watchMask)
		if testHookAddWatch != nil {
			err = testHookAddWatch(err)
		}
		if err != nil {
			tok.dirs = tok.dirs[:0]
			return false
		}
		d := w.byWd[int32(wd)]
		if d == nil {
			d = new(watchedDir)
			w.byWd[int32(wd)] = d
		}
		tok.dirs = append(tok.dirs, dirGen{d, d.gen.Load()})
	}
	tok.parent = tok.dirs[len(tok.dirs)-1].d
	return true
}

// testHookAddWatch, when set by a test, sees the error of every watch added
// and returns the one to act on: ENOSPC, say, as when the user's inotify
// limit (fs.inotify.max_user_watches) is exhausted.
var testHookAddWatch func(error) error

// mountPoint reports whether the file sx describes, in the directory dir,
// is a mount point: a bind-mounted file, whose writes are reported in the
// directory of its source. Kernels before 5.8 do not say; there a mount
// from another file system is still told by its device.
func mountPoint(sx *unix.Statx_t, dir dirID) bool {
	if sx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return sx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	}
	return unix.Mkdev(sx.Dev_major, sx.Dev_minor) != dir.dev
}

func versionOfStatx(sx *unix.Statx_t) Version {
	return Version{unix.Mkdev(sx.Dev_major, sx.Dev_minor), sx.Ino, int64(sx.Size),
		sx.Mtime.Sec, int64(sx.Mtime.Nsec), sx.Ctime.Sec, int64(sx.Ctime.Nsec)}
}
