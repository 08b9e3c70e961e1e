//go:build unix

package testsite

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// FIFO creates name as a named pipe. Opening one for reading blocks until a
// writer appears, which is what a server must not do.
func (s *Site) FIFO(name string) *Site {
	s.t.Helper()
	if err := syscall.Mkfifo(s.parent(name), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Socket creates name as a Unix domain socket file (with nobody listening).
// The socket is bound in a short temporary directory, since socket paths
// are limited to about 100 bytes, and then renamed into place.
func (s *Site) Socket(name string) *Site {
	s.t.Helper()
	dst := s.parent(name)
	dir, err := os.MkdirTemp("", "sock")
	if err != nil {
		s.t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: src, Net: "unix"})
	if err != nil {
		s.t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if err := os.Rename(src, dst); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// ReleaseFIFO lets go of anyone blocked opening the FIFO name for reading,
// by opening it for writing without blocking and closing it at once. With
// no reader waiting it does nothing. Register it with t.Cleanup after
// starting a server, so a handler that wrongly blocks on a FIFO fails its
// test instead of hanging the server's Close.
func (s *Site) ReleaseFIFO(name string) {
	if f, err := os.OpenFile(s.Path(name), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
