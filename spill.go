package jaws

import (
	"context"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
	"time"

	"github.com/jaws-go/jaws/internal/source"
)

// spills is where identities too large for memory are decoded to: files in
// Compression.SpillDir, with no name (nothing is left behind, even after a
// crash), within SpillMaxBytes of disk in all.
type spills struct {
	dir  string
	max  int64 // bytes; negative: none
	used atomic.Int64
}

// errSpillFull is an identity that would take the spill files past their
// budget: 503, until files leave the cache.
var errSpillFull = errors.New("jaws: the spill files' budget (Compression.SpillMaxBytes) is used")

// write writes head, then the rest of r, up to limit bytes in all, to a
// new spill file, and returns the identity entry of e it holds.
func (sp *spills) write(ctx context.Context, e *entry, head []byte, r io.Reader, limit int64) (*entry, error) {
	sum := sha256.New()
	f, err := createSpill(sp.dir)
	if err != nil {
		return nil, err
	}
	ok := false
	reserved := int64(0)
	defer func() {
		if !ok {
			f.Close()
			sp.used.Add(-reserved)
		}
	}()
	w := &budgetWriter{f: f, sp: sp, reserved: &reserved, sum: sum, limit: limit}
	if _, err := w.Write(head); err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.CopyN(w, r, 1<<20)
		if err == io.EOF || err == nil && n == 0 {
			break
		}
		var refused *decodeRefused
		if errors.Is(err, errSpillFull) || errors.As(err, &refused) {
			return nil, err
		}
		if err != nil {
			return nil, decodeError(err)
		}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// The version is the spill file's own, which its descriptor is checked
	// against; only Last-Modified is the sibling's.
	info := spillInfo{st, e.Info.ModTime()}
	ve := &entry{Ref: source.Ref{File: e.File, Info: info, Ver: source.VersionOf(st), Tree: e.Tree, ReadAt: e.ReadAt},
		coding: identity, seekable: true, spilled: true}
	ve.sf = newSharedFile(f)
	ve.sf.release() // the one newSharedFile gives the request: requests take their own (acquireShared)
	size := reserved
	ve.sf.done = func() { sp.used.Add(-size) }
	var s [sha256.Size]byte
	sum.Sum(s[:0])
	ve.sum.Store(&s)
	representVariant(ve, e)
	ok = true
	return ve, nil
}

// spillInfo is a spill file's metadata, but for its modification time: the
// sibling's it was decoded from (Last-Modified), none for an embedded one.
type spillInfo struct {
	fs.FileInfo
	mod time.Time
}

func (s spillInfo) ModTime() time.Time { return s.mod }

// budgetWriter writes to a spill file, up to limit bytes, taking them from
// the budget.
type budgetWriter struct {
	f        *os.File
	sp       *spills
	reserved *int64
	sum      hash.Hash
	n, limit int64
}

func (w *budgetWriter) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.limit {
		return 0, &decodeRefused{w.limit} // first: a bomb is refused for good, not for now
	}
	if w.sp.used.Add(int64(len(p))) > w.sp.max {
		w.sp.used.Add(-int64(len(p)))
		return 0, errSpillFull
	}
	*w.reserved += int64(len(p))
	w.sum.Write(p)
	n, err := w.f.Write(p)
	w.n += int64(n)
	return n, err
}
