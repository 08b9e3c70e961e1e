package jaws

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// sharedFile is one read-only descriptor of a file, shared by every
// zero-copy transfer of it: they read at explicit offsets, so none moves it
// for another. The cache holds one reference while the entry is cached,
// each transfer one more; the last release closes it, so eviction or a
// change never closes a descriptor a transfer is still reading.
type sharedFile struct {
	f      *os.File
	mu     sync.Mutex
	refs   int
	cached atomic.Bool // the cache's reference is not released yet
	leased atomic.Bool // one fallback transfer holds the descriptor's offset
	done   func()      // called once the descriptor is closed; nil for none
}

// newSharedFile returns f with two references: the cache's, released by
// releaseCached, and that of the request that opened f, which it releases
// when done. The request's is taken here, not once the entry is offered to
// the cache: the cache may turn the entry away, and release its own, at
// any time after the offer.
func newSharedFile(f *os.File) *sharedFile {
	s := &sharedFile{f: f, refs: 2}
	s.cached.Store(true)
	return s
}

// releaseCached releases the cache's reference, once however often it is
// called.
func (s *sharedFile) releaseCached() {
	if s.cached.CompareAndSwap(true, false) {
		s.release()
	}
}

// acquire takes a reference, unless the descriptor is already closed.
func (s *sharedFile) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == 0 {
		return false
	}
	s.refs++
	return true
}

func (s *sharedFile) release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if last {
		s.f.Close()
		if s.done != nil {
			s.done()
		}
	}
}

// lease gives one fallback transfer the descriptor's offset, which
// net/http's sendfile moves, and which zero-copy transfers, at explicit
// offsets, and sectionSource, by pread, leave alone: a mid-size file is
// then sent without a descriptor of its request's own, whose open, fstat
// and close cost more than the rest of jaws's work for it. Its version was
// checked when the request confirmed the entry (confirmFor), as for
// zero-copy. The lease holds a reference, and starts at the file's start,
// as a fresh descriptor would; its Close returns both, once. ok is false
// where offsets are not the transfer's alone (leaseOffsets), while another
// transfer holds the lease, or when the descriptor is closed: the caller
// opens a descriptor of its own then.
func (s *sharedFile) lease() (*leasedFile, bool) {
	if !leaseOffsets || !s.leased.CompareAndSwap(false, true) {
		return nil, false
	}
	if !s.acquire() {
		s.leased.Store(false)
		return nil, false
	}
	l := &leasedFile{File: s.f, sf: s}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		l.Close()
		return nil, false
	}
	return l, true
}

// leasedFile is the shared descriptor while a fallback transfer holds its
// offset: an *os.File to net/http's sendfile and to fileSource, whose
// Close ends the lease instead of closing it.
type leasedFile struct {
	*os.File
	sf     *sharedFile
	closed atomic.Bool
}

// Close ends the lease and returns its reference, the first time it is
// called: a second call would release another lease's.
func (l *leasedFile) Close() error {
	if l.closed.CompareAndSwap(false, true) {
		l.sf.leased.Store(false)
		l.sf.release()
	}
	return nil
}

// holds reports whether the file still is the version e describes. Events
// confirm that e's name still leads to this file; this confirms the file's
// own bytes (a change no event reports: an overlayfs lower layer rewritten
// in place), at the cost of one fstat per transfer from the descriptor,
// which reads hundreds of KiB, so that no response ever sends one version's
// bytes under another's ETag.
func (s *sharedFile) holds(e *entry) bool {
	info, err := s.f.Stat()
	return err == nil && e.Matches(info)
}

// refCount is for tests.
func (s *sharedFile) refCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refs
}
