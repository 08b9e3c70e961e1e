package source

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// unlinked reports whether f's file was deleted: os.Root opens files with
// FILE_SHARE_DELETE, so a deploy can delete or rename over one jaws holds,
// and the file stays, delete-pending, until its last handle is closed.
func unlinked(f *os.File) (gone, handled bool) {
	sc, err := f.SyscallConn()
	if err != nil {
		return false, false
	}
	var info fileStandardInfo
	var ierr error
	err = sc.Control(func(h uintptr) {
		ierr = windows.GetFileInformationByHandleEx(windows.Handle(h), windows.FileStandardInfo,
			(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	})
	if err != nil || ierr != nil {
		return false, false
	}
	return info.DeletePending || info.NumberOfLinks == 0, true
}

// fileStandardInfo is FILE_STANDARD_INFO (winbase.h), which x/sys/windows
// does not define; BOOLEAN is a byte.
type fileStandardInfo struct {
	AllocationSize, EndOfFile int64
	NumberOfLinks             uint32
	DeletePending, Directory  bool
}
