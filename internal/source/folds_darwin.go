package source

import (
	"os"

	"golang.org/x/sys/unix"
)

// pcCaseSensitive is _PC_CASE_SENSITIVE (sys/unistd.h): 1 on a volume that
// looks names up as stored (case-sensitive APFS is normalization-sensitive
// too), 0 on one that folds them (APFS and HFS+ by default).
const pcCaseSensitive = 11

// foldsNames reports whether looking a name up in the directory dir may
// open an entry stored under another spelling, by its volume's
// _PC_CASE_SENSITIVE; handled is false when the volume does not say.
func foldsNames(dir *os.File) (folds, handled bool) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return false, false
	}
	v, perr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { v, perr = unix.Fpathconf(int(fd), pcCaseSensitive) }); err != nil || perr != nil {
		return false, false
	}
	switch v {
	case 1:
		return false, true
	case 0:
		return true, true
	}
	return false, false
}
