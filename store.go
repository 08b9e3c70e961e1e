package jaws

import (
	"errors"
	"io/fs"
	"log"
	"path"
	"sync"

	"github.com/jaws-go/jaws/internal/source"
)

// store is the file layer, below the handler and the content codings and
// the boundary between them and the files: it finds a request name's file
// in its source (the index page for a directory), keeps entries in the
// cache, confirms them fresh, and hands out the descriptors transfers read.
// It knows nothing of HTTP; what the layers above make of a new entry (its
// HTTP representation, its codings) they make themselves: the describe
// function the store is made with for files' own entries, a finish function
// per call for siblings, and whole entries for compressed variants
// (keepVariant). Nothing above reaches into its cache or its source.
//
// Entries of a source whose files never change (an embed.FS) live in fixed,
// built once and never checked or evicted: there are as many as the program
// embeds files, and their bodies are the embedded bytes themselves.
type store struct {
	src     source.Source
	cache   *cache
	maxBody int64 // the largest file held in memory; negative: none (memoryMax)
	// sharedMin is the smallest file a zero-copy candidate takes the
	// shared descriptor for (ZeroCopyMinSize, or 0 when zero-copy is
	// forced): a smaller one goes by the fallback, on a descriptor of its
	// own, and the shared one's check would be lost on it.
	sharedMin int64
	describe  func(e *entry, name string, head []byte) error
	log       *log.Logger
	fixed     sync.Map        // entries of an immutable source, by key
	fixedSrc  bool            // src.Immutable(), asked once: every hit reads it
	sweeper   *source.Sweeper // lets go of descriptors of files no longer served
	hashes    hashTable       // hashes HashName read, past their entries (hashes.go)
}

// newStore makes the store of src, whose files up to maxBody bytes are held
// in memory, and from sharedMin bytes may go zero-copy; sw is the sweeper
// src was given, to which the store adds its own job (the descriptors of
// files Gone), and describe completes every new entry of a file (see
// store); an error it returns is the lookup's, and the entry is not kept.
func newStore(src source.Source, c *cache, maxBody, sharedMin int64, logger *log.Logger, sw *source.Sweeper,
	describe func(e *entry, name string, head []byte) error) *store {
	s := &store{src: src, cache: c, maxBody: maxBody, sharedMin: sharedMin, describe: describe, log: logger, sweeper: sw,
		fixedSrc: src.Immutable()}
	gone := func(e *entry) bool { return !e.spilled && src.Gone(&e.Ref, e.sf.f) }
	sw.Add(func(int64) bool { return c.sweep(gone) })
	return s
}

// immutable reports whether the source's files never change: entries live
// in fixed, and the cache is not asked.
func (s *store) immutable() bool { return s.fixedSrc }

func (s *store) close() error {
	s.sweeper.Stop()
	s.cache.close() // first: no request finds an entry to confirm any more
	return s.src.Close()
}

// errChanged is a file that changed while it was being opened or served.
var errChanged = errors.New("jaws: file changed while being served")

// indexPage is the file that serves a directory.
const indexPage = "index.html"

// lookup finds what name refers to now. A cached entry is used only once
// confirmed against the source (see confirm).
func (s *store) lookup(name string, need fdNeed) (target, error) {
	t, err := s.lookupPage(name, need)
	if err == nil && t.e != nil && t.e.page {
		// Its entry stands on name being missing, and was just confirmed.
		t.close()
		return target{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return t, err
}

// lookupPage is lookup, where a page cached under name (page) is found too.
func (s *store) lookupPage(name string, need fdNeed) (target, error) {
	if t, ok := s.cached(name, "", need); ok {
		return t, nil
	}
	f, info, at, err := s.src.Open(name)
	if err != nil {
		return target{}, err
	}
	file, dirIndex := name, false
	if info.IsDir() {
		index := path.Join(name, indexPage)
		fi, iinfo, iat, err := s.src.Open(index)
		if err != nil || iinfo.IsDir() || iat != at {
			if err == nil {
				fi.Close()
			}
			return target{f: f}, nil
		}
		f.Close()
		f, info, file, dirIndex = fi, iinfo, index, true
	}
	return s.build(name, file, dirIndex, f, info, at, func(e *entry, head []byte) error { return s.describe(e, name, head) })
}

// page looks up file, the page served under key while key is missing
// (Options.CleanURLs: about.html for about), and caches it under key. Its
// entry stands on the names in absent being missing, key among them: a
// file that appears there is served by the next request. lookupPage finds
// it, and lookup does not.
func (s *store) page(key, file string, absent []string) (target, error) {
	f, info, at, err := s.src.Open(file)
	if err != nil {
		return target{}, err
	}
	if info.IsDir() {
		f.Close()
		return target{}, fs.ErrNotExist
	}
	return s.build(key, file, false, f, info, at, func(e *entry, head []byte) error {
		e.page = true
		for _, name := range absent {
			e.Also = append(e.Also, source.Also{Name: name, Absent: true})
		}
		// Described as the file: its codings' keys are the file's, so a
		// page and its file share their compressed variants.
		return s.describe(e, file, head)
	})
}

// sibling looks up file, next to orig, that holds it in coding c, cached
// under key; finish completes its entry when it is built. The key may hold
// orig compressed before the sibling appeared; the sibling, made at build
// time, replaces it.
func (s *store) sibling(key, file string, orig *entry, c coding, need fdNeed, finish func(*entry)) (target, error) {
	if t, ok := s.cached(key, file, need); ok {
		return t, nil
	}
	f, info, at, err := s.src.Open(file)
	if err != nil {
		return target{}, err
	}
	if info.IsDir() || info.ModTime().Before(orig.Info.ModTime()) || at != orig.Tree {
		f.Close()
		return target{}, source.ErrNotRegular
	}
	return s.build(key, file, false, f, info, at, func(v *entry, _ []byte) error {
		v.coding = c
		finish(v)
		return nil
	})
}

// variant returns the variant of orig cached under key, if it was made
// from orig's version, and counts the lookup.
func (s *store) variant(key string, orig *entry) *entry {
	if ve := s.cache.get(key); ve != nil {
		if ve.derivedFrom(orig) {
			s.cache.hits.Add(1)
			return ve
		}
		s.cache.drop(key)
	}
	s.cache.miss.Add(1)
	return nil
}

// keepVariant caches under key the variant of orig that make builds, once
// however many requests ask at once, and so that the next request finds it:
// a variant is costly to make again.
func (s *store) keepVariant(key string, orig *entry, make func() (*entry, error)) (*entry, error) {
	return s.cache.build(key, orig.Info, putVisible, make)
}

// forget drops what is cached under key, so that the next request for it
// looks again.
func (s *store) forget(key string) { s.cache.drop(key) }

// holds reports whether a variant of size bytes may be held in memory: the
// store keeps files in memory and the cache can hold it.
func (s *store) holds(size int64) bool {
	return s.maxBody >= 0 && size < s.cache.maxCost()
}

// cacheCounts are the cache's counters: lookups, evictions, bytes held.
type cacheCounts struct {
	hits, misses, evictions uint64
	held, files             int64
}

func (s *store) counts() cacheCounts {
	c := s.cache
	return cacheCounts{c.hits.Load(), c.miss.Load(), c.evictions.Load(), c.held(), c.heldFiles()}
}

// now is the store's clock, in unix nanoseconds.
func (s *store) now() int64 { return s.cache.now() }

// cached returns the entry cached under key as a target, once confirmed
// against the source, and counts the lookup. An entry that is stale, or not
// of file when file is given, is dropped.
func (s *store) cached(key, file string, need fdNeed) (target, bool) {
	if s.immutable() {
		if v, ok := s.fixed.Load(key); ok {
			s.cache.hits.Add(1)
			return target{e: v.(*entry)}, true
		}
	} else if e := s.cache.get(key); e != nil {
		if file == "" || e.File == file {
			if t, ok := s.confirmFor(e, need); ok {
				s.cache.hits.Add(1)
				return t, true
			}
		}
		s.cache.drop(key)
	}
	s.cache.miss.Add(1)
	return target{}, false
}

// confirm checks a cached entry against the file it describes, as the
// source does (by file system events with no system call while they say
// nothing changed, else by one stat; see Source.Fresh), unless
// Options.Revalidate lets it be trusted without a look.
func (s *store) confirm(e *entry) bool {
	if s.cache.revalidate <= 0 {
		// The clock is read only by a source that must stat.
		return s.src.Fresh(&e.Ref, e.body, s.cache.now)
	}
	now := s.cache.now()
	if s.cache.trusted(e, now) {
		return true
	}
	if !s.src.Fresh(&e.Ref, e.body, func() int64 { return now }) {
		return false
	}
	e.checked.Store(now) // read by trusted alone
	return true
}

// build makes the entry for the open file f, found in tree at, caches it
// under key and returns it as the request's target; finish completes a new
// entry, given the file's first bytes, before it is cached, or fails the
// build. f is the target's or closed.
func (s *store) build(key, file string, dirIndex bool, f fs.File, info fs.FileInfo, at *source.Tree, finish func(e *entry, head []byte) error) (target, error) {
	put := putAsync
	if s.immutable() {
		put = putNone // kept in s.fixed instead
	}
	e, err := s.cache.build(key, info, put, func() (*entry, error) {
		readAt := source.Mono()
		e, head, err := newEntry(file, dirIndex, f, info, s.maxBody)
		if err != nil {
			return nil, err
		}
		e.ReadAt = readAt
		if e.body == nil {
			s.findDigest(e)
		}
		e.Tree = at
		if err := finish(e, head); err != nil {
			return nil, err
		}
		s.src.Arm(&e.Ref, s.cache.now())
		return e, nil
	})
	if err != nil {
		f.Close()
		return target{}, err
	}
	if s.immutable() {
		if v, loaded := s.fixed.LoadOrStore(key, e); loaded {
			e = v.(*entry)
		}
	}
	if e.sf != nil && e.sf.f == f {
		// This request built the entry, which now owns f, and holds the
		// reference newSharedFile gave it.
		s.sweeper.Kick() // for when the file is deleted
		return target{e: e, sf: e.sf}, nil
	}
	f.Close()
	return target{e: e}, nil
}

// buildIndex makes, with make, the entry of a file whose bytes are not its
// own (a compressed-only file's index, compressedonly.go), from file, the file
// it stands on, which make is handed open, and caches it under key.
func (s *store) buildIndex(key, file string, make func(fs.File, fs.FileInfo) (*entry, error)) (target, error) {
	f, info, at, err := s.src.Open(file)
	if err != nil {
		return target{}, err
	}
	defer f.Close()
	if info.IsDir() {
		return target{}, fs.ErrNotExist
	}
	// Visible before the build ends, as a variant: a request that misses
	// it would build another, whose identity would be made again.
	put := putVisible
	if s.immutable() {
		put = putNone // kept in s.fixed instead
	}
	e, err := s.cache.build(key, info, put, func() (*entry, error) {
		readAt := source.Mono()
		e, err := make(f, info)
		if err != nil {
			return nil, err
		}
		e.ReadAt, e.Tree = readAt, at
		s.src.Arm(&e.Ref, s.cache.now())
		return e, nil
	})
	if err != nil {
		return target{}, err
	}
	if s.immutable() {
		if v, loaded := s.fixed.LoadOrStore(key, e); loaded {
			e = v.(*entry)
		}
	}
	return target{e: e}, nil
}

// findDigest gives an entry sent from disk its content ETag from a digest
// sibling, when there is a current one. Said once per version of the file:
// a deploy that wrote a sibling before its file, or a wrong one, should hear
// of it.
func (s *store) findDigest(e *entry) {
	sum, ok, stale := digestSibling(s.src, e.File, e.Info)
	switch {
	case ok:
		e.setDigest(&sum)
	case stale:
		s.log.Printf("jaws: ignoring %s: older than %s or not its sha256sum line",
			e.File+digestExt, e.File)
	}
}
