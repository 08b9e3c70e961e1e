package testsite

import (
	"os"
	"syscall"
)

// memoryTempDir returns /dev/shm if it is a tmpfs that anyone may create
// directories in (sticky and world-writable, as /tmp: the tests that run
// as nobody make theirs there), else "".
func memoryTempDir() string {
	const dir, tmpfsMagic = "/dev/shm", 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != tmpfsMagic {
		return ""
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode()&(os.ModeSticky|0o777) != os.ModeSticky|0o777 {
		return ""
	}
	probe, err := os.MkdirTemp(dir, "jaws-probe")
	if err != nil {
		return ""
	}
	os.Remove(probe)
	return dir
}
