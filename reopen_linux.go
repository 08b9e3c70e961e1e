package jaws

import (
	"os"
	"syscall"
)

// reopen opens f's file again, as a descriptor of its own (its own offset,
// which net/http's sendfile moves), in one open of /proc/self/fd: no walk
// of the file's path, whose directories os.Root opens one by one. The
// caller holds f open meanwhile, so its number names f. handled is false
// where there is no /proc, or the file no longer lets itself be opened.
func reopen(f *os.File) (g *os.File, handled bool) {
	var fd uintptr
	rc, err := f.SyscallConn()
	if err != nil || rc.Control(func(d uintptr) { fd = d }) != nil {
		return nil, false
	}
	g, err = os.OpenFile(procFD(int(fd)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return g, err == nil
}
