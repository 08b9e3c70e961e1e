//go:build unix

package source

import (
	"os"
	"syscall"
)

// openFlags opens without blocking: opening a FIFO for reading otherwise
// waits for a writer, and a request must never hang on one. Regular files
// ignore the flag.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
