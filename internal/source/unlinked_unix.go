//go:build unix

package source

import (
	"os"
	"syscall"
)

// unlinked reports whether f's file no longer has a name: deleted, or
// renamed over by a new version. Its disk space is freed only once every
// descriptor of it is closed.
func unlinked(f *os.File) (gone, handled bool) {
	info, err := f.Stat()
	if err != nil {
		return false, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false, false
	}
	return st.Nlink == 0, true
}
