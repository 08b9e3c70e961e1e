package source

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// fsCasefoldFL is FS_CASEFOLD_FL (linux/fs.h): lookups in the directory
// fold case and normalize Unicode (ext4, f2fs, tmpfs, bcachefs: chattr +F).
const fsCasefoldFL = 0x40000000

// Magic numbers of file systems that x/sys/unix does not name.
const (
	zfsSuperMagic = 0x2fc12fc1
)

// foldsNames reports whether looking a name up in the directory dir may
// open an entry stored under another spelling. By its file system: those
// that never fold say no; those that fold per directory say so by the
// directory's FS_CASEFOLD_FL; for every other (FAT, exFAT, NTFS, SMB, NFS,
// FUSE, 9p, which may fold, or whose server may) handled is false, and the
// caller checks the name by the directory's names.
func foldsNames(dir *os.File) (folds, handled bool) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return false, false
	}
	var st unix.Statfs_t
	var flags uint32
	var serr, ferr error
	if err := rc.Control(func(fd uintptr) {
		if serr = unix.Fstatfs(int(fd), &st); serr != nil {
			return
		}
		switch uint32(st.Type) {
		case unix.EXT4_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC,
			unix.BCACHEFS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
			flags, ferr = unix.IoctlGetUint32(int(fd), unix.FS_IOC_GETFLAGS)
		}
	}); err != nil || serr != nil {
		return false, false
	}
	switch uint32(st.Type) {
	case unix.BTRFS_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, zfsSuperMagic, unix.RAMFS_MAGIC,
		unix.SQUASHFS_MAGIC, unix.EROFS_SUPER_MAGIC_V1, unix.CRAMFS_MAGIC:
		return false, true
	case unix.EXT4_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.BCACHEFS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		switch {
		case ferr == nil:
			return flags&fsCasefoldFL != 0, true
		case errors.Is(ferr, unix.ENOTTY), errors.Is(ferr, unix.EOPNOTSUPP), errors.Is(ferr, unix.EINVAL):
			// No flags at all (tmpfs before 6.0, an overlay over a file
			// system without them): no casefold either, which came later.
			return false, true
		}
	}
	return false, false
}
