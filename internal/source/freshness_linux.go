package source

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Version identifies one version of a file: device and inode (a rename over
// it is a new file), size, mtime and ctime. ctime is there because no utimes
// can set it, so an in-place rewrite that keeps size and mtime (cp -p, fixed
// mtimes of reproducible builds) is still seen. Versions compare with ==.
type Version struct {
	dev, ino            uint64
	size                int64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
}

// VersionOf is the version info describes; of a file of another file
// system than the os package's, its size and mtime.
func VersionOf(info fs.FileInfo) Version {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Version{size: info.Size(), mtimeNsec: info.ModTime().UnixNano()}
	}
	return Version{uint64(st.Dev), uint64(st.Ino), int64(st.Size),
		int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}
}

func versionOfStat(st *unix.Stat_t) Version {
	return Version{uint64(st.Dev), uint64(st.Ino), int64(st.Size),
		int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}
}

// statDir is a tree's directory opened a second time, so a cache hit can be
// confirmed with one fstatat and no FileInfo; os.Root.Stat opens every
// directory on the way and builds one.
//
// fstatat follows symlinks and may leave the root, which is harmless here:
// its result is only compared with the version of a file that was opened
// through os.Root, so it can confirm that file or send the request to the
// slow path, never reach another one.
type statDir struct{ fd int }

func (d statDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
	}
}

// unchanged reports whether name still is version v; handled is false when
// it cannot tell, and the caller asks os.Root.
func (d statDir) unchanged(name string, v Version) (same, handled bool) {
	if d.fd < 0 {
		return false, false
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, 0); err != nil {
		return false, true
	}
	return v == versionOfStat(&st), true
}

// openBeneath opens name under d's directory in one system call: openat2
// with RESOLVE_BENEATH, the kernel refusing any step out of it, where
// os.Root opens every directory on the way. It leaves to os.Root (handled
// false) every name with a symbolic link on its way (RESOLVE_NO_SYMLINKS),
// so that links are followed or refused by os.Root's rules alone, and
// everything where the kernel has no openat2 (before Linux 5.6).
func openBeneath(d statDir, name string) (f *os.File, handled bool, err error) {
	if d.fd < 0 || noOpenat2.Load() {
		return nil, false, nil
	}
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(d.fd, name, &how)
	switch err {
	case nil:
		return os.NewFile(uintptr(fd), name), true, nil
	case unix.ELOOP, unix.EXDEV, unix.EAGAIN, unix.EINTR, unix.EINVAL:
		return nil, false, nil
	case unix.ENOSYS, unix.EPERM: // no openat2, or a seccomp filter refusing it
		noOpenat2.Store(true)
		return nil, false, nil
	}
	return nil, true, &fs.PathError{Op: "openat", Path: name, Err: err}
}

// noOpenat2 is set once openat2 turned out not to be had.
var noOpenat2 atomic.Bool

// dirID is the identity of the directory a root path names.
type dirID struct{ dev, ino uint64 }

func (a dirID) same(b dirID) bool { return a == b }

// statDirID returns the identity of the directory path names now.
func statDirID(path string) (dirID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return dirID{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirID{}, syscall.ENOTDIR
	}
	return dirID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// openTreeDir opens the directory path names, once: its descriptor for
// fstatat, its identity, an os.Root and its real path all belong to that one
// directory, even when the path is swapped to another meanwhile, because
// the os.Root is opened through /proc/self/fd.
func openTreeDir(path string) (sd statDir, id dirID, root *os.Root, real string, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return statDir{-1}, id, nil, "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return statDir{-1}, id, nil, "", &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	id = dirID{uint64(st.Dev), uint64(st.Ino)}
	proc := procFD(fd)
	if link, err := os.Readlink(proc); err == nil && strings.HasPrefix(link, "/") {
		if root, err = os.OpenRoot(proc); err == nil {
			return statDir{fd}, id, root, link, nil
		}
	}
	// No /proc: open by path, and refuse a path swapped in between.
	if root, err = os.OpenRoot(path); err != nil {
		unix.Close(fd)
		return statDir{-1}, id, nil, "", err
	}
	if info, err := root.Stat("."); err != nil || !sameDirInfo(info, id) {
		root.Close()
		unix.Close(fd)
		return statDir{-1}, id, nil, "", &fs.PathError{Op: "open", Path: path, Err: errSwapped}
	}
	if abs, err := filepath.Abs(path); err == nil {
		real, _ = filepath.EvalSymlinks(abs)
	}
	return statDir{fd}, id, root, real, nil
}

func sameDirInfo(info fs.FileInfo, id dirID) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == id.dev && uint64(st.Ino) == id.ino
}

// procFD is the name under which the kernel resolves descriptor fd to the
// very file it is, whatever its path is now.
func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
