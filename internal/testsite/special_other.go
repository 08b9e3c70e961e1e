//go:build !unix

package testsite

// FIFO skips the test: named pipes in the file system exist only on Unix.
func (s *Site) FIFO(name string) *Site {
	s.t.Helper()
	s.t.Skip("testsite: FIFOs need a Unix system")
	return s
}

// Socket skips the test: socket files are only made on Unix here.
func (s *Site) Socket(name string) *Site {
	s.t.Helper()
	s.t.Skip("testsite: socket files need a Unix system")
	return s
}

// ReleaseFIFO does nothing: there are no FIFOs here.
func (s *Site) ReleaseFIFO(name string) {}
