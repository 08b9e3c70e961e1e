package jaws

import (
	"errors"
	"io"
	"io/fs"
)

// Where the bytes of a body come from, on every path: the memory path
// writes an entry's body (cache.go), the fallback a descriptor of the
// request's own (fileBody) or the shared one (sectionSource), and the
// zero-copy path what its OS call leaves from the shared one
// (sectionSource).

// bodySource is where the bytes of a span come from: the entry's body in
// memory, or the open file.
type bodySource interface {
	writeSpan(w io.Writer, s span) (int64, error)
}

// fileBody is the portable path's bodySource for a descriptor of the
// request's own: one that can seek, else one read at offsets, else one read
// from its start (ranges were not planned for such a file).
func fileBody(f fs.File) bodySource {
	switch f := f.(type) {
	case io.ReadSeeker:
		return &fileSource{f: f}
	case io.ReaderAt:
		return sectionSource{f}
	}
	return streamSource{f}
}

// fileSource does not move data itself: io.CopyN hands an io.LimitedReader
// over the file to the writer's ReadFrom, where net/http uses sendfile on
// plain TCP connections for an *os.File, and any other writer (TLS,
// HTTP/2, wrappers, recorders) gets ordinary writes.
// The descriptor is the request's own and freshly opened, so it is at the
// file's start until a span moves it: a seek only where a span starts
// elsewhere (the first of a range, the next part of a multipart body).
type fileSource struct {
	f   io.ReadSeeker
	pos int64
}

func (s *fileSource) writeSpan(w io.Writer, sp span) (int64, error) {
	if sp.off != s.pos {
		if _, err := s.f.Seek(sp.off, io.SeekStart); err != nil {
			return 0, err
		}
	}
	n, err := io.CopyN(w, s.f, sp.n)
	s.pos = sp.off + n
	if err == io.EOF {
		err = errShortFile
	}
	return n, err
}

// sectionSource reads at explicit offsets, leaving a shared descriptor
// where it is for the zero-copy transfers that share it.
type sectionSource struct{ f io.ReaderAt }

func (s sectionSource) writeSpan(w io.Writer, sp span) (int64, error) {
	n, err := io.Copy(w, io.NewSectionReader(s.f, sp.off, sp.n))
	if err == nil && n < sp.n {
		err = errShortFile
	}
	return n, err
}

// streamSource reads a file that can neither seek nor read at an offset
// (a compressed zip entry) from its start, once.
type streamSource struct{ f io.Reader }

func (s streamSource) writeSpan(w io.Writer, sp span) (int64, error) {
	if sp.off != 0 {
		return 0, errNoSeek
	}
	n, err := io.CopyN(w, s.f, sp.n)
	if err == io.EOF {
		err = errShortFile
	}
	return n, err
}

var (
	errShortFile = errors.New("jaws: file shorter than its announced size")
	errNoSeek    = errors.New("jaws: a range of a file that cannot seek")
)

// readFrom copies r to w by w's own ReadFrom, where net/http's connections
// and writers use sendfile for an *os.File, or else by w's Write: what a
// wrapper that counts or replays bytes passes on as its ReadFrom.
func readFrom(w io.Writer, r io.Reader) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{w}, r)
}

// writerOnly hides a writer's ReadFrom from io.Copy, which would call it
// back.
type writerOnly struct{ io.Writer }
