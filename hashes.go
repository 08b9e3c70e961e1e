package jaws

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"sync"

	"github.com/jaws-go/jaws/internal/source"
)

// The SHA-256 of files, for HashName and the requests for the names it
// makes, without read amplification (SECURITY.md): a request for a hashed
// name reads at most hashOnRequestMax bytes of the file to learn whether the
// hash is its content's, whatever the file's size and however often it
// changes. A larger file's hash is known only when it costs no read: its
// bytes are in memory, a digest sibling gave it, or HashName read it, which
// an application does and a client cannot make it do.

// hashOnRequestMax is the largest file a request for one of its hashed names
// hashes itself, when the hash is not known: 1 MiB, the most the first
// request for a file may read anyway to compress it (Compression.MaxSize's
// default), and about a millisecond of SHA-256. It is read once per version
// while the file's entry is cached, concurrent requests sharing the read. A
// hashed name of a larger file is 404 until its hash is known.
const hashOnRequestMax = 1 << 20

// hashChunk is what a hash reads between two looks at its request's
// context: a request whose client has gone stops within one chunk.
const hashChunk = 64 << 10

// testHookHashRead, when set by a test, sees each chunk a hash read: the
// context it reads for and the chunk's bytes.
var testHookHashRead func(ctx context.Context, chunk int)

// requestHash returns e's hash for a request for one of its hashed names,
// when it costs the request no more reading than is left of its budget,
// which starts at hashOnRequestMax for the request's candidates together
// (see splitHashedName): known (see knownHash), or read now from a file no
// larger, once per version while e is cached. ctx is the request's: a
// client gone ends the read.
func (s *store) requestHash(ctx context.Context, e *entry, budget *int64) (*[sha256.Size]byte, bool) {
	if sum := s.knownHash(e); sum != nil {
		return sum, true
	}
	size := e.Info.Size()
	if e.index || size > *budget {
		return nil, false
	}
	*budget -= size
	sum, err := s.readHash(ctx, e)
	return sum, err == nil
}

// errCompressedOnly: HashName of a compressed-only file larger than the
// first bytes its entry decodes, whose content hash jaws does not know
// without decoding it whole.
var errCompressedOnly = errors.New("jaws: HashName of a large compressed-only file")

// hash returns the SHA-256 of e's bytes for HashName, reading the file when
// the hash is not known. That of a file too large for requests to hash,
// with neither its bytes in memory nor a digest sibling, is kept in
// s.hashes: a request for its hashed name finds it there after e is evicted
// and its entry built again.
func (s *store) hash(e *entry) (*[sha256.Size]byte, error) {
	sum := s.knownHash(e)
	if sum == nil && e.index {
		return nil, errCompressedOnly
	}
	if sum == nil {
		var err error
		if sum, err = s.readHash(context.Background(), e); err != nil {
			return nil, err
		}
	}
	if e.body == nil && !e.digest && e.Info.Size() > hashOnRequestMax {
		s.hashes.add(e, sum)
	}
	return sum, nil
}

// knownHash returns e's hash when it costs no read: set when e was built
// (its bytes in memory, a digest sibling), read into e earlier, or in
// s.hashes for e's version. Else nil.
func (s *store) knownHash(e *entry) *[sha256.Size]byte {
	if sum := e.sum.Load(); sum != nil {
		return sum
	}
	if sum := s.hashes.lookup(e); sum != nil {
		e.sum.Store(sum)
		return sum
	}
	return nil
}

// readHash reads e's file through SHA-256 and keeps the sum in e, once:
// concurrent calls for one entry share the read, and a call that waited
// finds the sum. It reads at most the file's size plus one byte (a file
// grown since e was built is another version: errChanged), and stops
// within a chunk once ctx is done.
func (s *store) readHash(ctx context.Context, e *entry) (*[sha256.Size]byte, error) {
	e.hashing.Lock()
	defer e.hashing.Unlock()
	if sum := e.sum.Load(); sum != nil {
		return sum, nil // hashed while this call waited
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := s.openVersion(e)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := e.Info.Size()
	buf := make([]byte, min(size+1, hashChunk))
	d := sha256.New()
	var n int64
	for n <= size {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := f.Read(buf[:min(int64(len(buf)), size+1-n)])
		d.Write(buf[:m])
		n += int64(m)
		if testHookHashRead != nil {
			testHookHashRead(ctx, m)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if n != size {
		return nil, errChanged
	}
	var sum [sha256.Size]byte
	d.Sum(sum[:0])
	e.sum.Store(&sum)
	return &sum, nil
}

// hashTableMaxBytes bounds the hashes HashName keeps beyond the cache's
// entries, by hashRecord.cost: 1 MiB, about 1800 files with names of 40
// bytes. Only files too large for requests to hash, with no digest
// sibling, take a place; a file past the bound (the least recently asked
// for goes first) is read again by its next HashName, and its hashed names
// are 404 meanwhile unless its entry is still cached. Sites that hash more
// large files than that write digest siblings, which cost no read at all.
const hashTableMaxBytes = 1 << 20

// hashRecordOverhead approximates, in bytes, what a record costs beyond its
// name: the record, its list element and map slot, and the FileInfo it
// keeps (an os FileInfo holds a syscall.Stat_t). TestHashRecordOverhead
// measures it: about 460 bytes of heap for a name of 36 bytes, which the
// cost counts as 584.
const hashRecordOverhead = 512

// hashTable is the hashes HashName read of files no request may hash:
// one record per file name, the hash of the version it was read from,
// which matches only an entry of that very file (version and identity, as
// entry.matches decides): a file rewritten or replaced needs HashName again.
// Only HashName adds to it, never a request, so a flood of made-up hashes,
// 404s or missing names adds nothing; a file's new version replaces its
// old one; and the whole is bounded by hashTableMaxBytes, least recently
// used first out. The zero value is ready.
type hashTable struct {
	mu     sync.Mutex
	max    int64 // the bound by cost; 0 means hashTableMaxBytes (tests lower it)
	held   int64
	byFile map[string]*list.Element // of *hashRecord, in order
	order  list.List                // most recently added or matched first
}

// hashRecord is one file's hash, for the version it was read from.
type hashRecord struct {
	file string
	ver  source.Version
	info fs.FileInfo // the file's identity, where Version lacks it (source.SameFile)
	sum  [sha256.Size]byte
}

// cost counts the name twice: the map's key and the FileInfo's base name.
func (r *hashRecord) cost() int64 { return hashRecordOverhead + 2*int64(len(r.file)) }

func (t *hashTable) limit() int64 {
	if t.max > 0 {
		return t.max
	}
	return hashTableMaxBytes
}

// lookup returns the hash kept for e's version of its file, or nil.
func (t *hashTable) lookup(e *entry) *[sha256.Size]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	el := t.byFile[e.File]
	if el == nil {
		return nil
	}
	r := el.Value.(*hashRecord)
	if r.ver != e.Ver || !source.SameFile(r.info, e.Info) {
		return nil // another version: left for HashName to replace
	}
	t.order.MoveToFront(el)
	sum := r.sum
	return &sum
}

// add keeps sum as the hash of e's version of its file, in place of any
// other version's, and lets the least recently used go while over the
// bound.
func (t *hashTable) add(e *entry, sum *[sha256.Size]byte) {
	r := &hashRecord{file: e.File, ver: e.Ver, info: e.Info, sum: *sum}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byFile == nil {
		t.byFile = make(map[string]*list.Element)
	}
	if el := t.byFile[r.file]; el != nil {
		t.held -= el.Value.(*hashRecord).cost()
		el.Value = r
		t.order.MoveToFront(el)
	} else {
		t.byFile[r.file] = t.order.PushFront(r)
	}
	t.held += r.cost()
	for t.held > t.limit() {
		last := t.order.Back()
		old := t.order.Remove(last).(*hashRecord)
		delete(t.byFile, old.file)
		t.held -= old.cost()
	}
}

// size returns the records kept and their cost.
func (t *hashTable) size() (records int, held int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len(), t.held
}

// hashLen is the hex digits of a hashed name: 64 bits of the SHA-256 of the
// file's bytes, so two versions of one file collide with a chance of one in
// 2^64.
const hashLen = 16

// hashedName inserts the first hashLen hex digits of sum into file's base
// name, before its extension.
func hashedName(file string, sum *[sha256.Size]byte) string {
	ext := path.Ext(file)
	if ext == path.Base(file) {
		ext = "" // a name that is all extension (".bashrc") has none
	}
	return file[:len(file)-len(ext)] + "." + hex.EncodeToString(sum[:hashLen/2]) + ext
}
