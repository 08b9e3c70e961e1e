package jaws

import (
	"errors"
	"io/fs"

	"github.com/jaws-go/jaws/internal/source"
)

// Which descriptor a request reads. A body in memory needs none; a zero-copy
// transfer reads the entry's shared descriptor at explicit offsets; the
// fallback reads one whose offset is the request's own, since net/http's
// sendfile moves it: a lease of the shared descriptor's offset while no
// other transfer holds it (sharedFile.lease), else one it opens (in one
// system call where the kernel can: openBeneath).

// target is what a request name resolved to: a file entry, or a directory
// without an index page, with the descriptors the request holds.
type target struct {
	e  *entry      // nil for a directory without index page
	f  fs.File     // a descriptor of this request's own; the directory when e is nil
	sf *sharedFile // a reference to the entry's shared descriptor
}

// isDir: the name is a directory, listed or served by its index page.
func (t *target) isDir() bool { return t.e == nil || t.e.dirIndex }

// listing: the name is a directory without an index page, f.
func (t *target) listing() bool { return t.e == nil }

func (t *target) close() {
	if t.f != nil {
		t.f.Close()
	}
	if t.sf != nil {
		t.sf.release()
	}
}

// fdNeed says which descriptor a request will read, so that a hit opens
// nothing it does not use, and one that opens a descriptor confirms the
// entry by it.
type fdNeed int

const (
	fdNone      fdNeed = iota // a body in memory, or HEAD: nothing is read
	fdShared                  // zero-copy: the entry's shared descriptor, read at explicit offsets
	fdOwn                     // the fallback: a descriptor whose offset net/http's sendfile may move (store.own)
	fdSharedAny               // fdShared whatever the file's size: on a connection jaws owns
)

// confirmFor confirms a cached entry and takes the descriptor the request
// needs. An entry sent from disk, for a request that will read it, is
// confirmed by the version of its shared descriptor too (one fstat: holds),
// whatever Options.Revalidate or events say, before any header is set (a
// lookup that takes no descriptor leaves that to holdsVersion): that
// descriptor is what its transfer
// reads, zero-copy at offsets or the fallback through its lease, and
// events miss some changes (a write through a hard link made since the
// token was taken, an overlayfs lower layer rewritten). A request that
// opens a descriptor of its own instead confirms the entry by that
// descriptor's stat, which costs nothing more.
func (s *store) confirmFor(e *entry, need fdNeed) (target, bool) {
	t := target{e: e}
	if e.body != nil || need == fdNone || e.index {
		return t, s.confirm(e) // nothing read yet: see holdsVersion
	}
	switch {
	case need == fdShared && e.size() < s.sharedMin:
		need = fdOwn // too small for zero-copy: the fallback's own descriptor
	case need == fdSharedAny:
		need = fdShared
	}
	if e.sf == nil || need == fdOwn && !leaseOffsets {
		f, err := s.openVersion(e)
		if err != nil {
			return target{}, false
		}
		t.f = f
		return t, true // as fresh as the descriptor it will read
	}
	if !s.confirm(e) || !e.sf.holds(e) {
		return target{}, false
	}
	// The fallback takes the shared descriptor's offset (acquire, own) once
	// the preconditions call for a body: a 304 reads nothing.
	if need == fdShared && e.sf.acquire() {
		t.sf = e.sf
	}
	return t, true
}

// acquire gives t the descriptor its transfer reads, when the response
// turned out to need another than the one resolve took: its own for a
// range too small for zero-copy, say. Should the file have changed since
// the entry was confirmed, the entry's shared descriptor still reads the
// version confirmed.
func (s *store) acquire(t *target, shared bool) error {
	if shared && t.sf == nil {
		s.acquireShared(t)
	}
	if shared && t.sf != nil || t.f != nil {
		return nil
	}
	err := s.own(t)
	if err == nil {
		return nil
	}
	if t.sf == nil {
		s.acquireShared(t)
	}
	if t.sf != nil {
		return nil // read at offsets: the version the entry describes
	}
	// A file changed since this request confirmed it: the next request's
	// confirmation (confirmFor's fstat) drops the entry.
	return err
}

// holdsVersion reports whether t's entry, found by a lookup that took no
// descriptor (one that may be answered from a compressed variant in
// memory), is still the version its shared descriptor holds, for a
// request that turned out to read the file: one fstat, which a compressed
// hit does not pay.
func (s *store) holdsVersion(t *target) bool {
	e := t.e
	return e == nil || e.body != nil || e.sf == nil || e.spilled || e.sf.holds(e)
}

// own gives t a descriptor whose offset is its own, for a request that has
// confirmed t.e since it began: a lease of the shared descriptor's offset,
// else one it opens.
func (s *store) own(t *target) error {
	if sf := t.e.sf; sf != nil {
		if l, ok := sf.lease(); ok {
			t.f = l
			return nil
		}
	}
	if t.e.spilled {
		return errNotOwned // only the shared descriptor reads a spill file
	}
	f, err := s.openConfirmed(t.e)
	if err != nil {
		return err
	}
	t.f = f
	return nil
}

// acquireShared gives t a reference to its entry's shared descriptor, if it
// is still open and still holds the entry's version.
func (s *store) acquireShared(t *target) {
	if sf := t.e.sf; sf != nil && sf.acquire() {
		if t.e.spilled || sf.holds(t.e) { // a spill file is jaws's: nothing else writes it
			t.sf = sf
		} else {
			sf.release()
		}
	}
}

// openVersion opens the entry's file, checking it is the entry's version.
func (s *store) openVersion(e *entry) (fs.File, error) {
	f, info, at, err := s.src.Open(e.File)
	return keepIfVersion(e, f, info, at, err)
}

// openConfirmed is openVersion for a request that has confirmed e since it
// began (its lookup did): it opens in e's tree without asking the source
// again whether the root was swapped, which the confirmation answered.
func (s *store) openConfirmed(e *entry) (fs.File, error) {
	f, info, at, err := s.src.OpenIn(e.Tree, e.File)
	return keepIfVersion(e, f, info, at, err)
}

// errNotOwned: the entry's bytes are read from its shared descriptor only.
var errNotOwned = errors.New("jaws: no descriptor of the request's own")

// keepIfVersion returns f, just opened in tree at, if it is e's version in
// e's tree, and closes it otherwise.
func keepIfVersion(e *entry, f fs.File, info fs.FileInfo, at *source.Tree, err error) (fs.File, error) {
	if err != nil {
		return nil, err
	}
	if !e.Matches(info) || at != e.Tree {
		f.Close()
		return nil, errChanged
	}
	return f, nil
}

// readAll reads the whole of e's file, checking it is still that version.
func (s *store) readAll(e *entry) ([]byte, error) {
	if e.body != nil {
		return e.body, nil
	}
	f, err := s.openVersion(e)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, e.Info.Size())
	n, err := readHead(f, b)
	if err == nil && n < len(b) {
		err = errChanged
	}
	return b, err
}
