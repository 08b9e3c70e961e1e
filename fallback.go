package jaws

import (
	"errors"
	"io"
	"os"
)

// fileSource is the portable path's bodySource. It does not move data itself:
// io.CopyN hands an io.LimitedReader over the *os.File to the writer's
// ReadFrom, where net/http uses sendfile on plain TCP connections, and any
// other writer (TLS, HTTP/2, wrappers, recorders) gets ordinary writes.
type fileSource struct{ f *os.File }

func (s fileSource) writeSpan(w io.Writer, sp span) (int64, error) {
	if _, err := s.f.Seek(sp.off, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.CopyN(w, s.f, sp.n)
	if err == io.EOF {
		err = errShortFile
	}
	return n, err
}

// sectionSource reads a shared descriptor at explicit offsets, leaving it
// where it is for the zero-copy transfers that share it.
type sectionSource struct{ f *os.File }

func (s sectionSource) writeSpan(w io.Writer, sp span) (int64, error) {
	n, err := io.Copy(w, io.NewSectionReader(s.f, sp.off, sp.n))
	if err == nil && n < sp.n {
		err = errShortFile
	}
	return n, err
}

var errShortFile = errors.New("jaws: file shorter than its announced size")
