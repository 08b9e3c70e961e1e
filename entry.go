package jaws

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/jaws-go/jaws/internal/source"
)

// entry is what the store knows of one version of one file, or of a variant
// of it (its bytes in a content coding: a precompressed sibling, or the file
// compressed): the metadata it was built from, for small files the bytes
// themselves, for larger ones a descriptor that zero-copy transfers share.
// It never changes once built, apart from what is learnt of it later
// (checked, watched, sum); a changed file gets a new entry.
//
// Two parts belong to the layers above, and are kept here only so that a
// hit finds them with no lookup and they go when the entry goes; the store
// never reads them. rep is the HTTP representation the handler makes of the
// entry when it is built (represent.go: validators, Content-Type, header
// values); vary is what the content-coding layer learns of a file's own
// entry (variants.go: its siblings, whether it compresses). These are this
// file's two references to files above it.
type entry struct {
	source.Ref             // the file: its name, metadata, version, tree; what confirms it
	dirIndex   bool        // the request name is a directory and file is its index page
	page       bool        // the request name is missing and file is its page, name+".html" (store.page)
	coding     coding      // the coding of its bytes: identity for a file's own
	body       []byte      // the whole file (or variant), or nil when it is sent from disk
	sf         *sharedFile // for a file sent from disk: its descriptor, shared by zero-copy transfers
	seekable   bool        // a file sent from its source can be read at an offset: ranges work
	digest     bool        // sum came from a digest sibling, not from the bytes
	// index: the entry of a compressed-only file (compressedonly.go), which has
	// no bytes of its own: its variants serve it, the identity included.
	// Its file is its primary sibling's.
	index bool
	// spilled: a compressed-only file's identity, decoded to a spill file,
	// whose descriptor is sf and is not the source's: nothing opens it
	// again, and it is never taken for a deleted file.
	spilled bool
	// release, if set, lets go of what the entry holds beyond its shared
	// descriptor, when it leaves the cache: a spill file.
	release func()
	checked atomic.Int64
	sum     atomic.Pointer[[sha256.Size]byte] // the SHA-256 of the bytes, once known (see HashName)
	from    *[sha256.Size]byte                // a variant's: the sum of the bytes it was made from, if known
	hashing sync.Mutex                        // held while the bytes are read for sum

	rep  representation // the handler's (represent.go)
	vary variantState   // the content codings' (variants.go)
}

// newEntry builds the entry for the open regular file f, and returns the
// file's first bytes, for sniffing its type. Small files are read whole, so
// the hash and the sniffing run on bytes already in memory; embedded files
// are served from the program's own bytes, whatever their size. A larger
// file is read no further than its first sniffLen bytes, so its first
// request costs no more reading than http.FileServer's. The entry takes f
// over as its shared descriptor when f is an *os.File.
func newEntry(file string, dirIndex bool, f fs.File, info fs.FileInfo, maxBody int64) (*entry, []byte, error) {
	e := &entry{Ref: source.Ref{File: file, Info: info, Ver: source.VersionOf(info)}, dirIndex: dirIndex}
	size := info.Size()
	if b, ok := source.EmbeddedBytes(info); ok {
		e.body = b
	} else if size <= maxBody {
		body := make([]byte, size)
		n, err := readHead(f, body)
		if err != nil {
			return nil, nil, err
		}
		if int64(n) == size {
			e.body = body
		} // else the file is shrinking under us: serve it from disk
	}
	if e.body != nil {
		sum := sha256.Sum256(e.body)
		e.sum.Store(&sum)
		return e, e.body[:min(len(e.body), sniffLen)], nil
	}
	head := make([]byte, sniffLen)
	n, err := readHead(f, head)
	if err != nil {
		return nil, nil, err
	}
	if osf, ok := f.(*os.File); ok {
		e.sf = newSharedFile(osf)
	}
	_, ra := f.(io.ReaderAt)
	_, sk := f.(io.Seeker)
	e.seekable = ra || sk
	return e, head[:n], nil
}

// newVariant is the entry of orig's bytes encoded in c, held in memory.
func newVariant(orig *entry, c coding, body []byte) *entry {
	v := &entry{Ref: source.Ref{File: orig.File, Info: orig.Info, Ver: orig.Ver, Tree: orig.Tree,
		ReadAt: orig.ReadAt}, coding: c, body: body, from: orig.sum.Load()}
	sum := sha256.Sum256(body)
	v.sum.Store(&sum)
	return v
}

// sniffLen is what http.DetectContentType looks at.
const sniffLen = 512

// setDigest gives an entry sent from disk the SHA-256 of its bytes, from a
// digest sibling, as if it had been read.
func (e *entry) setDigest(sum *[sha256.Size]byte) {
	e.sum.Store(sum)
	e.digest = true
}

// size is the length of the entry's bytes: the file's, or a compressed
// variant's.
func (e *entry) size() int64 {
	if e.body != nil {
		return int64(len(e.body))
	}
	return e.Info.Size()
}

// derivedFrom reports whether the variant v was made from the version of
// the file orig describes, and from its bytes: the same sum where both
// are known, else the same read. A version's stat can stand for other
// bytes (internal/source's watcher.writtenSince), and an entry built anew
// for that reason must not find the old one's variants.
func (v *entry) derivedFrom(orig *entry) bool {
	if v.File != orig.File || !v.Matches(orig.Info) {
		return false
	}
	if sum := orig.sum.Load(); v.from != nil && sum != nil {
		return *v.from == *sum
	}
	return v.ReadAt == orig.ReadAt // the same read of the file, then
}

// entryOverhead approximates, in bytes, what an entry costs beyond its body
// and strings: the struct, the FileInfo and ristretto's own bookkeeping.
const entryOverhead = 512

// cost is what an entry holding its bytes costs in the cache's byte
// budget: the bytes it keeps alive, header values included. An entry sent
// from its file counts in the budget of files instead (see cache).
func (e *entry) cost(key string) int64 {
	return int64(len(e.body)+len(key)+len(e.File)+e.rep.cost()+e.vary.cost()) + entryOverhead
}

// readHead reads len(p) bytes from the start of a freshly opened f, or
// fewer at its end: at an offset where f can, else by reading it.
func readHead(f fs.File, p []byte) (int, error) {
	if ra, ok := f.(io.ReaderAt); ok {
		n, err := ra.ReadAt(p, 0)
		if err == io.EOF {
			err = nil
		}
		return n, err
	}
	n, err := io.ReadFull(f, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}
