//go:build !unix

package source

import "os"

// openFlags: outside Unix there are no FIFOs in the file system to block on,
// and O_NONBLOCK would mean something else (overlapped I/O on Windows).
const openFlags = os.O_RDONLY
