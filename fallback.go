package jaws

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
)

// The fallback is the portable path. It writes a body through the
// ResponseWriter, where net/http's ReadFrom still uses sendfile for a whole
// file. It runs wherever zero-copy cannot: TLS, HTTP/2, HEAD, writers that
// wrap net/http's, systems without a sendFile.
//
// Where a body's bytes come from, on every path:
//   - the memory path writes the entry's body;
//   - the fallback reads a descriptor of the request's own (fileBody) or
//     the shared one (sectionSource);
//   - the zero-copy path writes what its OS call leaves from the shared
//     one (sectionSource).

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

// finishFile is finish for a body from f: a function of its own, so that
// a hit's frames hold no deferred call.
func (s *mover) finishFile(w http.ResponseWriter, f fs.File, part span) {
	defer f.Close()
	n, err := fileBody(f).writeSpan(w, part)
	abortShort(err) // not counted, as writeResponse counts none it aborts
	pc, _ := s.pathOf(w, &s.fallback, "")
	pc.add(n)
}

// testHookSharedFallback, when set by a test, sees every response sent by
// the fallback from a descriptor chosen for zero-copy.
var testHookSharedFallback func(*mover)

// writeResponse writes the status and, unless the request is HEAD, the body
// from src, and returns the body bytes written.
func writeResponse(w http.ResponseWriter, r *http.Request, src bodySource, resp *response) int64 {
	w.WriteHeader(resp.status)
	if r.Method == http.MethodHead {
		return 0
	}
	n, err := writeBody(w, src, resp)
	abortShort(err)
	return n
}

// abortShort ends the response when the file shrank after its size was
// announced. Padding would send bytes that are not the file's; aborting
// lets the client see a truncated response instead of a wrong one.
func abortShort(err error) {
	if errors.Is(err, errShortFile) {
		panic(http.ErrAbortHandler)
	}
}

// writeBody writes the planned body, part headers and all, from src to w.
func writeBody(w io.Writer, src bodySource, resp *response) (int64, error) {
	if resp.mp == nil {
		return src.writeSpan(w, resp.part)
	}
	segs, tail := segments(nil, resp)
	return writeSegments(w, src, segs, tail)
}

// writeSpan sends s from the body in memory; entry is the memory path's
// bodySource.
func (e *entry) writeSpan(w io.Writer, s span) (int64, error) {
	n, err := w.Write(e.body[s.off:s.end()])
	return int64(n), err
}
