package jaws

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// version identifies one version of a file: device and inode (a rename over
// it is a new file), size, mtime and ctime. ctime is there because no utimes
// can set it, so an in-place rewrite that keeps size and mtime (cp -p, fixed
// mtimes of reproducible builds) is still seen.
type version struct {
	dev, ino            uint64
	size                int64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
}

func versionOf(info fs.FileInfo) version {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return version{size: info.Size(), mtimeNsec: info.ModTime().UnixNano()}
	}
	return version{uint64(st.Dev), uint64(st.Ino), int64(st.Size),
		int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}
}

// statDir is the root directory opened a second time, so a cache hit can be
// confirmed with one fstatat and no allocation; os.Root.Stat opens every
// directory on the way and builds a FileInfo.
//
// fstatat follows symlinks and may leave the root, which is harmless here:
// its result is only compared with the version of a file that was opened
// through os.Root, so it can confirm that file or send the request to the
// slow path, never reach another one.
type statDir struct{ fd int }

func openStatDir(path string) statDir {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return statDir{fd: -1}
	}
	return statDir{fd: fd}
}

func (d statDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
	}
}

// unchanged reports whether name still is version v; handled is false when
// it cannot tell, and the caller asks os.Root.
func (d statDir) unchanged(name string, v version) (same, handled bool) {
	if d.fd < 0 {
		return false, false
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, 0); err != nil {
		return false, true
	}
	return v == version{uint64(st.Dev), uint64(st.Ino), int64(st.Size),
		int64(st.Mtim.Sec), int64(st.Mtim.Nsec), int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}, true
}
