package source

import (
	"os"

	"golang.org/x/sys/windows"
)

// finalPath returns the path Windows gives the open file f: normalized
// (every element spelled as stored, long names rather than 8.3 ones, links
// resolved), in the DOS form (`\\?\C:\...`, `\\?\UNC\...` or
// `\\?\Volume{...}\...`), the same form for the root and the files under
// it. handled is false when the system cannot say.
func finalPath(f *os.File) (path string, handled bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	const flags = 0x0 // FILE_NAME_NORMALIZED | VOLUME_NAME_DOS
	buf := make([]uint16, 512)
	var n uint32
	cerr := rc.Control(func(fd uintptr) {
		for {
			n, err = windows.GetFinalPathNameByHandle(windows.Handle(fd), &buf[0], uint32(len(buf)), flags)
			if err != nil || n < uint32(len(buf)) {
				return
			}
			buf = make([]uint16, n) // n counts the terminating NUL when the buffer is short
		}
	})
	if cerr != nil || err != nil || n == 0 {
		return "", false
	}
	return windows.UTF16ToString(buf[:n]), true
}
