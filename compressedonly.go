package jaws

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/source"
)

// Compressed-only files. A build may ship a file only as its precompressed
// siblings ("app.js.br", "app.js.zst", "app.js.gz", no "app.js"), to make
// an embedded binary smaller. jaws serves such a file under its own name:
//
//   - A client that accepts a coding a sibling holds gets the sibling's
//     bytes as they are, as for any file with siblings.
//   - Any other client gets the file decoded (its identity), made once per
//     version from one sibling, the primary: in memory up to
//     CacheMaxFileSize, beyond that in a spill file (Compression.SpillDir,
//     within SpillMaxBytes), served as any file is: ranges, zero-copy.
//   - A range is always of the identity (serveFound), as for any file.
//
// The file's entry (its index) holds no bytes of its own: it names the
// primary (the newest sibling; the server's order of codings breaks a
// tie), the primary's first bytes decoded, against which the other
// siblings are checked as siblings are checked against a file
// (siblingcheck.go), and the names it stands on: the plain name still
// missing, the other siblings at their versions (source.Ref.Also). A bomb is
// refused, never decoded without bound: DecodeMaxSize and DecodeMaxRatio
// bound the identity, and zstd's window is RFC 9659's.

// onlyState is what the content-coding layer knows of a compressed-only
// file's index entry (entry.vary.only).
type onlyState struct {
	name    string // the plain name, as the request names it
	primary coding // the sibling the identity is decoded from
	prefix  []byte // the primary's first bytes decoded, up to siblingPrefix
	whole   bool   // and that is all of it

	mu       sync.Mutex                // held while the identity is made
	mem      *atomic.Pointer[entry]    // the identity in memory, while the cache keeps it (apart: see keepIdentity)
	spill    atomic.Pointer[entry]     // the identity in a spill file, once made
	released atomic.Bool               // the index left the cache: a spill made now goes at once
	fail     atomic.Pointer[onlyError] // why no identity can be made of this version
}

// keepIdentity caches ve, the identity of e in memory, under key. The
// index then holds it too, until the cache lets go of it: the index never
// keeps bytes the cache does not count. Nor does ve keep the index's
// state (its prefix) once the index left the cache: its release hook
// holds the slot alone, an allocation of its own.
func (v *variants) keepIdentity(key string, e, ve *entry) (target, error) {
	mem := e.vary.only.mem
	var gone atomic.Bool
	ve.release = func() {
		gone.Store(true)
		mem.CompareAndSwap(ve, nil)
	}
	kept, err := v.store.keepVariant(key, e, func() (*entry, error) { return ve, nil })
	if err == nil && kept == ve {
		mem.Store(ve)
		if gone.Load() {
			mem.CompareAndSwap(ve, nil) // rejected or evicted meanwhile
		}
	}
	return target{e: kept}, err
}

// onlyError is an identity refused for good: a bomb, a file too large.
type onlyError struct{ err error }

// codedNames are the names of the files that would make name a
// compressed-only file, one per coding served: what a page served under
// name (Options.CleanURLs) stands on being missing, with name itself.
func (v *variants) codedNames(name string) []string {
	names := []string{name}
	if v.cfg.DisablePrecompressed {
		return names
	}
	for _, c := range v.codings {
		names = append(names, name+codingExts[c])
	}
	return names
}

// codedSibling is a stored sibling of a compressed-only file.
type codedSibling struct {
	c    coding
	info fs.FileInfo
}

// codedSiblings finds the stored siblings of file, a name that is not a
// file. The newest is primary. The others are what the entry's freshness
// stands on too, and those not older than the primary are served.
func (v *variants) codedSiblings(file string) (p codedSibling, also []source.Also, siblings codingSet, ok bool) {
	var sibs []codedSibling
	primary := -1
	for _, c := range v.codings {
		info, err := v.store.stat(file + codingExts[c])
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		sibs = append(sibs, codedSibling{c, info})
		if primary < 0 || info.ModTime().After(sibs[primary].info.ModTime()) {
			primary = len(sibs) - 1
		}
	}
	if primary < 0 {
		return p, nil, 0, false
	}
	p = sibs[primary]
	also = []source.Also{{Name: file, Absent: true}}
	for _, s := range sibs {
		if s.c == p.c {
			continue
		}
		also = append(also, source.Also{Name: file + codingExts[s.c], Info: s.info, Ver: source.VersionOf(s.info)})
		if s.info.ModTime().Before(p.info.ModTime()) {
			// Said once per version, as for a file's stale sibling.
			v.log.Printf("jaws: ignoring %s: older than %s, so taken for stale",
				file+codingExts[s.c], file+codingExts[p.c])
			continue
		}
		siblings |= setOf(s.c)
	}
	return p, also, siblings, true
}

// onlyCoded looks up key, a request name that is not a file, as a
// compressed-only file. file is the name its siblings are named after: key
// itself, or its index page for a directory. It builds the index entry,
// cached under key.
func (v *variants) onlyCoded(key, file string, dirIndex bool) (target, error) {
	if v.cfg.DisablePrecompressed || v.set == 0 {
		return target{}, fs.ErrNotExist
	}
	p, also, siblings, ok := v.codedSiblings(file)
	if !ok {
		return target{}, fs.ErrNotExist
	}
	return v.store.buildIndex(key, file+codingExts[p.c], func(f fs.File, info fs.FileInfo) (*entry, error) {
		prefix, whole, err := decodePrefix(p.c, f, siblingPrefix)
		var refused error
		if err != nil {
			// A primary that does not decode, or that a decoder refuses (a
			// zstd window past the limit), is still served as it is stored;
			// its identity is refused, and the other siblings, which
			// nothing checks, are not served.
			if refused = decodeError(err); !errors.Is(refused, errCorrupt) && !notAcceptable(refused) {
				return nil, err
			}
			v.log.Printf("jaws: not decoding %s: %v", file+codingExts[p.c], err)
			prefix, whole = nil, false
		}
		e := &entry{Ref: source.Ref{File: file + codingExts[p.c], Info: info, Ver: source.VersionOf(info), Also: also},
			dirIndex: dirIndex, index: true}
		only := &onlyState{name: file, primary: p.c, prefix: prefix, whole: whole, mem: new(atomic.Pointer[entry])}
		e.release = only.releaseSpill
		e.rep.hdrCtype = []string{contentType(file, prefix[:min(len(prefix), sniffLen)], v.types)}
		if v.fields != nil {
			// Options.Header, asked with the plain name: the file's.
			if e.rep.fields, err = v.fields(file); err != nil {
				return nil, err
			}
		}
		if refused != nil {
			only.fail.Store(&onlyError{refused})
			siblings = 0
		}
		vs := &e.vary
		vs.siblings = siblings | setOf(p.c)
		vs.only = only
		for _, c := range v.codings {
			vs.keys[c] = key + "\x00" + codingNames[c]
			if vs.siblings.has(c) {
				vs.files[c] = file + codingExts[c]
			}
		}
		vs.keys[identity] = key + "\x00identity"
		if whole {
			sum := sha256.Sum256(prefix)
			e.sum.Store(&sum) // the file's content hash: HashName's
		}
		return e, nil
	})
}

// identityOf returns the identity of e, a compressed-only file's index:
// from memory (a variant in the cache) or its spill file, made now if need
// be, once per version.
func (v *variants) identityOf(ctx context.Context, e *entry) (target, error) {
	only := e.vary.only
	if ve := only.mem.Load(); ve != nil {
		return target{e: ve}, nil // a hit: no second cache lookup
	}
	if se := only.spill.Load(); se != nil {
		return target{e: se}, nil // nor for a spilled one
	}
	key := e.vary.keys[identity]
	if f := only.fail.Load(); f != nil {
		return target{}, f.err
	}
	if ve := v.store.variant(key, e); ve != nil {
		return target{e: ve}, nil
	}
	only.mu.Lock()
	defer only.mu.Unlock()
	if ve := v.store.variant(key, e); ve != nil {
		return target{e: ve}, nil // made by a request this one waited for
	}
	if se := only.spill.Load(); se != nil {
		return target{e: se}, nil
	}
	if f := only.fail.Load(); f != nil {
		return target{}, f.err
	}
	if testHookDecodeIdentity != nil {
		testHookDecodeIdentity(e.File)
	}
	var ve *entry
	var err error
	limit := v.decodeLimit(e)
	if n := int64(len(only.prefix)); only.whole && n <= v.store.maxBody && n <= limit {
		ve = newVariant(e, identity, only.prefix) // decoded already
		representVariant(ve, e)
	} else {
		ve, err = v.decodeIdentity(ctx, e, limit)
	}
	switch {
	case notAcceptable(err):
		only.fail.Store(&onlyError{err})
		v.log.Printf("jaws: not decoding %s: %v", e.File, err)
		return target{}, err
	case err != nil:
		return target{}, err
	}
	if ve.body != nil {
		return v.keepIdentity(key, e, ve)
	}
	only.spill.Store(ve)
	if only.released.Load() {
		only.releaseSpill() // the index left the cache meanwhile
	}
	return target{e: ve}, nil
}

// decodeLimit is how many bytes e's identity may decode to, by the bounds
// of Compression; negative, none. One larger than the spill files may ever
// hold is refused as a bomb is: the budget would never let it in.
func (v *variants) decodeLimit(e *entry) int64 {
	limit := v.cfg.DecodeMaxSize
	if r := int64(v.cfg.DecodeMaxRatio); r > 0 {
		limit = min(limit, r*e.Info.Size()+decodeRatioSlack)
	}
	spillMax := v.spills.max
	if spillMax < 0 {
		spillMax = 0
	}
	return min(limit, max(v.store.maxBody, spillMax))
}

// decodeIdentity decodes e's primary sibling whole, up to limit bytes:
// into memory when it fits CacheMaxFileSize, else into a spill file.
func (v *variants) decodeIdentity(ctx context.Context, e *entry, limit int64) (*entry, error) {
	only := e.vary.only
	f, err := v.store.openVersion(e)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, done, err := newDecoder(only.primary, f)
	if err != nil {
		return nil, err
	}
	defer done()
	// Up to what memory holds, in memory; past it, to a spill file.
	memMax := v.store.maxBody
	head, err := readUpTo(ctx, dec, max(min(memMax, limit)+1, 0))
	if err != nil {
		return nil, decodeError(err)
	}
	if int64(len(head)) > limit {
		return nil, &decodeRefused{limit}
	}
	if int64(len(head)) <= memMax {
		ve := newVariant(e, identity, head)
		representVariant(ve, e)
		return ve, nil
	}
	return v.spills.write(ctx, e, head, dec, limit)
}

// testHookDecodeIdentity, when set by a test, sees every identity made of
// a compressed-only file's primary sibling.
var testHookDecodeIdentity func(file string)

// decodeRatioSlack is how far past DecodeMaxRatio times its size a small
// sibling may decode: a few hundred bytes of brotli may hold a page.
const decodeRatioSlack = 64 << 10

// decodeRefused is an identity past the bounds of Compression: a bomb, or
// a file larger than DecodeMaxSize.
type decodeRefused struct{ limit int64 }

func (d *decodeRefused) Error() string {
	return fmt.Sprintf("it decodes to more than %d bytes (Compression.DecodeMaxSize, DecodeMaxRatio, SpillMaxBytes)", d.limit)
}

// notAcceptable reports whether err refuses a representation the client
// would take: 406, the file being there in codings the client takes none
// of.
func notAcceptable(err error) bool {
	var d *decodeRefused
	return errors.As(err, &d)
}

// readUpTo reads r until it ends or n bytes are read.
func readUpTo(ctx context.Context, r io.Reader, n int64) ([]byte, error) {
	var b bytes.Buffer
	for int64(b.Len()) < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := b.ReadFrom(io.LimitReader(r, min(n-int64(b.Len()), 256<<10)))
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break
		}
	}
	return b.Bytes(), nil
}

// decodeError is err, met decoding a primary sibling: a corrupt file,
// unless it is an error reading it, or the request's end.
func decodeError(err error) error {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		return &decodeRefused{zstdWindow} // a bomb by its window: more memory than RFC 9659 asks of a decoder
	}
	return fmt.Errorf("%w: %v", errCorrupt, err)
}

// decodePrefix decodes the first n bytes of src, in c, reading at most n
// plus siblingSlack compressed bytes; whole says it ended there.
func decodePrefix(c coding, src io.Reader, n int) (prefix []byte, whole bool, err error) {
	in := &boundedReader{r: src, left: int64(n) + siblingSlack}
	dec, done, err := newDecoder(c, in)
	if err != nil {
		return nil, false, err
	}
	defer done()
	b, err := io.ReadAll(io.LimitReader(dec, int64(n)+1))
	if err != nil {
		if stale, rerr := in.verdict(err); rerr != nil {
			return nil, false, rerr
		} else {
			return nil, false, fmt.Errorf("jaws: decoding %v: %w", c, stale)
		}
	}
	if len(b) > n {
		return b[:n], false, nil
	}
	return b, true, nil
}

// errCorrupt is a primary sibling that does not decode: 500.
var errCorrupt = errors.New("jaws: a compressed-only file does not decode")

// releaseSpill lets go of the index's spill file, when the index leaves
// the cache: the file goes once the transfers reading it end.
func (only *onlyState) releaseSpill() {
	only.released.Store(true)
	if se := only.spill.Swap(nil); se != nil {
		se.sf.releaseCached()
	}
}
