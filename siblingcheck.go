package jaws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/source"
)

// Precompressed siblings are checked against the file they claim to hold,
// once per version of each, before the first response they would serve:
// their mtimes prove nothing when a reproducible build (SOURCE_DATE_EPOCH,
// Nix) stamps every file alike and a deploy rebuilt app.js but left the old
// app.js.br.
//
//   - A file served from memory (its entry holds its bytes: up to
//     CacheMaxFileSize, and every embedded file): its sibling must decode to
//     exactly those bytes and end there. At most len+1 bytes are decoded.
//   - A file sent from disk: gzip's recorded size (ISIZE, the size mod 2^32)
//     and zstd's (the first frame's Frame_Content_Size, when it has one)
//     must be the file's, and the first siblingPrefix decoded bytes must be
//     the file's first siblingPrefix bytes (all of them, and the end, for a
//     file no larger). Brotli records no size. What this misses: a stale
//     sibling whose first siblingPrefix decoded bytes are the file's and,
//     for gzip and zstd with a recorded size, whose size is the file's too.
//
// A sibling that fails is not served (the file is compressed on request, or
// sent as it is), logged once, and remembered on the original's entry, so no
// request decodes it again; a stale sibling is looked at again (one stat) at
// most every staleRelook, and checked again once it changed.
//
// The hooks: variants.choose asks siblingsOf which siblings may serve, and
// siblingCurrent whether the one the store resolved holds the file; the
// verdicts live in the original's entry.checks. The store is not involved.
const (
	// siblingPrefix is how much of a file sent from disk its siblings are
	// compared with: read from the file, decoded from the sibling.
	siblingPrefix = 64 << 10

	// siblingSlack bounds the compressed bytes read from a sibling beyond
	// the decoded bytes compared: a zstd block (128 KiB), the largest gzip
	// header field (64 KiB) and the decoders' read buffers fit in it with
	// room to spare, while a sibling that needs more (zstd skippable frames,
	// brotli metadata, empty deflate blocks, a gzip name without end) costs
	// no more than this to reject.
	siblingSlack = 256 << 10

	// staleRelook is how often a sibling found stale is looked at again,
	// with one stat, while its original is asked for: a deploy that writes
	// the sibling after the file (rsync's order) gets it served that soon.
	staleRelook = time.Second
)

// siblingChecks is what an original's entry learnt of its siblings' bytes,
// by coding: the version of the sibling last checked and its verdict.
type siblingChecks struct {
	stale  atomic.Uint32                              // codingSet of siblings whose last version checked is stale
	looked [numCodings]atomic.Int64                   // when each stale one was last stat'ed (the cache's clock)
	last   [numCodings]atomic.Pointer[siblingVerdict] // the last version checked, and its verdict
	mu     [numCodings]sync.Mutex                     // held while a sibling is checked
}

// siblingVerdict is the verdict on one version of a sibling.
type siblingVerdict struct {
	info fs.FileInfo
	ver  source.Version
	ok   bool // it holds the file's bytes
}

// of reports whether r is the verdict on the version of the sibling that
// info describes.
func (r *siblingVerdict) of(info fs.FileInfo, ver source.Version) bool {
	return r != nil && r.ver == ver && source.SameFile(r.info, info)
}

// siblingChecks returns vs's checks, made when first needed.
func (vs *variantState) siblingChecks() *siblingChecks {
	if p := vs.checks.Load(); p != nil {
		return p
	}
	vs.checks.CompareAndSwap(nil, new(siblingChecks))
	return vs.checks.Load()
}

// siblingsOf is the set of e's siblings that may be served: those found
// when e was built, but for those found stale. A stale one that has changed
// since (one stat, at most every staleRelook) is a candidate again, to be
// checked before it serves.
func (v *variants) siblingsOf(e *entry) codingSet {
	p := e.vary.checks.Load()
	if p == nil {
		return e.vary.siblings
	}
	stale := codingSet(p.stale.Load()) & e.vary.siblings
	if stale == 0 {
		return e.vary.siblings
	}
	now := v.store.now()
	for _, c := range v.codings {
		if stale.has(c) && v.relook(e, p, c, now) {
			stale &^= setOf(c)
		}
	}
	return e.vary.siblings &^ stale
}

// relook reports whether the stale sibling of e in c has been replaced
// since it was checked, looking at most every staleRelook.
func (v *variants) relook(e *entry, p *siblingChecks, c coding, now int64) bool {
	last := p.looked[c].Load()
	if v.store.immutable() || now-last < int64(staleRelook) || !p.looked[c].CompareAndSwap(last, now) {
		return false
	}
	info, err := v.store.stat(v.siblingFile(e, c))
	if err != nil || !info.Mode().IsRegular() || p.last[c].Load().of(info, source.VersionOf(info)) {
		return false
	}
	p.stale.And(^uint32(setOf(c)))
	return true
}

// siblingCurrent reports whether sib, the sibling of orig in c, holds orig's
// bytes (see siblingPrefix for what is checked), checking it once per
// version of either: concurrent first requests share one check. A stale
// sibling is logged and remembered. One that could not be read (the file
// changed meanwhile) is not served, and checked again by the next request.
func (v *variants) siblingCurrent(orig, sib *entry, c coding) bool {
	if o := orig.vary.only; o != nil && c == o.primary {
		return true // a compressed-only file's primary is what the others are checked against
	}
	if p := orig.vary.checks.Load(); p != nil {
		if r := p.last[c].Load(); r.of(sib.Info, sib.Ver) {
			return r.ok
		}
	}
	p := orig.vary.siblingChecks()
	p.mu[c].Lock()
	defer p.mu[c].Unlock()
	if r := p.last[c].Load(); r.of(sib.Info, sib.Ver) {
		return r.ok // checked by a request this one waited for
	}
	stale, err := v.checkSibling(orig, sib, c)
	if err != nil {
		return false
	}
	p.last[c].Store(&siblingVerdict{info: sib.Info, ver: sib.Ver, ok: stale == nil})
	if stale == nil {
		p.stale.And(^uint32(setOf(c)))
		return true
	}
	p.looked[c].Store(v.store.now())
	p.stale.Or(uint32(setOf(c)))
	// Said once per version: a deploy that rebuilt the file and not its
	// sibling should hear of it.
	v.log.Printf("jaws: ignoring %s: does not decode to %s (%v), so taken for stale", sib.File, orig.File, stale)
	return false
}

// checkSibling reads what the check of sib against orig needs and makes it.
// stale says why sib is not orig in c; err that it could not be read.
func (v *variants) checkSibling(orig, sib *entry, c coding) (stale, err error) {
	size := orig.Info.Size()
	want, whole := orig.body, true
	if o := orig.vary.only; o != nil {
		// A compressed-only file: its primary's first bytes decoded.
		want, whole = o.prefix, o.whole
		size = int64(len(want))
	} else if want == nil {
		f, err := v.store.openVersion(orig)
		if err != nil {
			return nil, err
		}
		want = make([]byte, min(size, siblingPrefix))
		n, err := readHead(f, want)
		f.Close()
		if err == nil && n < len(want) {
			err = errChanged
		}
		if err != nil {
			return nil, err
		}
		whole = int64(len(want)) == size
	}
	var src io.ReaderAt
	if sib.body != nil {
		src = bytes.NewReader(sib.body)
	} else {
		f, err := v.store.openVersion(sib)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var ok bool
		if src, ok = readerAt(f); !ok {
			return errors.New("it cannot be read at an offset"), nil
		}
	}
	var n siblingCount
	defer func() {
		if testHookSiblingCheck != nil {
			testHookSiblingCheck(sib.File, n.read, n.decoded)
		}
	}()
	sibSize := sib.size()
	if !whole && orig.vary.only == nil {
		// The size it records: zstd's in its first bytes, gzip's in its last.
		var b []byte
		var off int64
		switch c {
		case zstdCoding:
			b = make([]byte, min(sibSize, zstd.HeaderMaxSize))
		case gzipCoding:
			b, off = make([]byte, min(sibSize, 8)), max(0, sibSize-8)
		}
		if len(b) > 0 {
			m, err := src.ReadAt(b, off)
			if err != nil && err != io.EOF {
				return nil, err
			}
			n.read += int64(m)
			b = b[:m]
		}
		if rec, mask, ok := recordedSize(c, b); ok && rec != uint64(size)&mask {
			return fmt.Errorf("it records a size of %d bytes, not %d", rec, uint64(size)&mask), nil
		}
	}
	return decodesTo(c, io.NewSectionReader(src, 0, sibSize), want, whole, &n)
}

// siblingCount is what a check read and decoded, for the tests.
type siblingCount struct{ read, decoded int64 }

// testHookSiblingCheck, when set by a test, sees every check of a sibling
// that read it: its name, the compressed bytes read and the bytes decoded.
var testHookSiblingCheck func(file string, read, decoded int64)
