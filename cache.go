package jaws

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
)

// entry is what jaws knows about one file: the validators it was built from,
// the strong ETag and Content-Type that are costly to work out, the header
// values every response shares, and for small files the bytes themselves.
// An entry never changes once built, apart from checked and watched (and
// what is learnt of it: sum, incompressible, checks); a changed file gets
// a new entry.
type entry struct {
	file       string      // the file under the root: the request name, or name/index.html
	dirIndex   bool        // the request name is a directory and file is its index page
	info       fs.FileInfo // the file's metadata when the entry was built
	ver        version     // and the version it identifies
	tree       *tree       // the tree the file was found in (nil for an fs.FS)
	checked    atomic.Int64
	watched    atomic.Pointer[token] // file system events that confirm it, while they hold
	etag       string
	ctype      string
	body       []byte                            // the whole file, or nil when it is sent from disk
	sf         *sharedFile                       // for a file sent from disk: its descriptor, shared by zero-copy transfers
	mtimeAhead bool                              // the mtime was ahead of the clock when the entry was built
	seekable   bool                              // a file sent from its source can be read at an offset: ranges work
	sum        atomic.Pointer[[sha256.Size]byte] // the SHA-256 of the bytes, once known (see HashName)
	hashing    sync.Mutex                        // held while the bytes are read for sum

	// Content codings. A file's own entry knows which codings it can be
	// served in; a variant (a sibling's bytes, or the file compressed) is
	// an entry of its own, cached under the request name and coding.
	coding         coding        // a variant's coding; identity for the file itself
	siblings       codingSet     // precompressed siblings found when the entry was built
	compressible   bool          // the file may be compressed on first request
	incompressible atomic.Uint32 // codingSet of codings found to save too little
	variantKeys    [numCodings]string

	checks atomic.Pointer[siblingChecks] // its siblings' bytes, checked against its own (siblingcheck.go)

	// Header values, shared read-only by every response from this entry,
	// so a hit allocates none of them. Canonical keys: "Etag", not "ETag".
	hdrETag, hdrCtype, hdrLength, hdrLastModified, hdrEncoding []string
	hdrDigest                                                  []string // Repr-Digest, when a digest sibling gave the SHA-256
}

var hdrAcceptRanges = []string{"bytes"}

// newEntry builds the entry for the open regular file f. Small files are
// read whole, so the hash and the sniffing run on bytes already in memory;
// embedded files are served from the program's own bytes, whatever their
// size. A larger file is read no further than its first 512 bytes, for
// sniffing: its ETag comes from its metadata (see metaETag) or, set by the
// caller, a digest sibling, so its first request costs no more reading than
// http.FileServer's. The entry takes f over as its shared descriptor when f
// is an *os.File. The caller completes the entry (variants, digest) and
// calls setHeaders.
func newEntry(file string, dirIndex bool, f fs.File, info fs.FileInfo, maxBody int64) (*entry, error) {
	e := &entry{file: file, dirIndex: dirIndex, info: info, ver: versionOf(info)}
	size := info.Size()
	if b, ok := embeddedBytes(info); ok {
		e.body = b
	} else if size <= maxBody {
		body := make([]byte, size)
		n, err := readHead(f, body)
		if err != nil {
			return nil, err
		}
		if int64(n) == size {
			e.body = body
		} // else the file is shrinking under us: serve it from disk
	}
	if e.body != nil {
		sum := sha256.Sum256(e.body)
		e.sum.Store(&sum)
		e.etag = formatETag(sum[:])
		e.ctype = contentType(file, e.body)
	} else {
		if !isZeroTime(info.ModTime()) {
			// Without a modification time the size alone would name
			// every version alike: no ETag, as http.FileServer sends none.
			e.etag = metaETag(size, info.ModTime())
		}
		var head [sniffLen]byte
		n, err := readHead(f, head[:])
		if err != nil {
			return nil, err
		}
		e.ctype = contentType(file, head[:n])
		if osf, ok := f.(*os.File); ok {
			e.sf = newSharedFile(osf)
		}
		_, ra := f.(io.ReaderAt)
		_, sk := f.(io.Seeker)
		e.seekable = ra || sk
	}
	e.mtimeAhead = info.ModTime().After(time.Now())
	return e, nil
}

// sniffLen is what http.DetectContentType looks at.
const sniffLen = 512

// setDigest gives an entry sent from disk the SHA-256 of its bytes, from a
// digest sibling: its content ETag, as if it had been read, and a
// Repr-Digest field (RFC 9530).
func (e *entry) setDigest(sum *[sha256.Size]byte) {
	e.sum.Store(sum)
	e.etag = formatETag(sum[:])
	e.hdrDigest = []string{reprDigest(sum[:])}
}

// setHeaders precomputes the header values of a built entry.
func (e *entry) setHeaders() {
	if e.etag != "" {
		e.hdrETag = []string{e.etag}
	}
	e.hdrCtype = []string{e.ctype}
	e.hdrLength = []string{strconv.FormatInt(e.size(), 10)}
	if mod := e.info.ModTime(); !isZeroTime(mod) {
		e.hdrLastModified = []string{mod.UTC().Format(http.TimeFormat)}
	}
}

// size is the length of the entry's bytes: the file's, or a compressed
// variant's.
func (e *entry) size() int64 {
	if e.body != nil {
		return int64(len(e.body))
	}
	return e.info.Size()
}

// contentType is the type by extension, else sniffed from the first bytes,
// as http.ServeContent decides it.
func contentType(name string, head []byte) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// matches reports whether e still describes the file info was read from:
// the same file (a rename over it is a new one) in the same version.
func (e *entry) matches(info fs.FileInfo) bool {
	return sameFile(e.info, info) && e.ver == versionOf(info)
}

// sameFile is os.SameFile for files of the os package, whose identity it
// knows; files of other file systems are told apart by version alone.
func sameFile(a, b fs.FileInfo) bool {
	if isOSFileInfo(a) && isOSFileInfo(b) {
		return os.SameFile(a, b)
	}
	return true
}

// osFileInfo is the type of the os package's FileInfo.
var osFileInfo = reflect.TypeOf(func() fs.FileInfo {
	fi, err := os.Stat(os.DevNull)
	if err != nil {
		fi, _ = os.Stat(".")
	}
	return fi
}())

func isOSFileInfo(fi fs.FileInfo) bool {
	return osFileInfo != nil && reflect.TypeOf(fi) == osFileInfo
}

// entryOverhead approximates, in bytes, what an entry costs beyond its body
// and strings: the struct, the FileInfo and ristretto's own bookkeeping.
const entryOverhead = 512

// fdCost is what a cached descriptor counts against CacheMaxBytes. It costs
// little memory but is a scarcer resource; this caps the descriptors the
// cache keeps open at CacheMaxBytes/64 KiB (1024 by default), as nginx's
// open_file_cache max= does.
const fdCost = 64 << 10

// cost is the entry's ristretto cost: the bytes it keeps alive. Strings
// held twice (as a field and as a header value) count twice; the length and
// date header values are at most 64 bytes together.
func (e *entry) cost(key string) int64 {
	n := len(e.body) + len(key) + len(e.file) + 2*len(e.etag) + 2*len(e.ctype) + 64
	if e.hdrDigest != nil {
		n += len(e.hdrDigest[0])
	}
	for _, k := range e.variantKeys {
		n += len(k)
	}
	if e.sf != nil {
		n += fdCost
	}
	return int64(n) + entryOverhead
}

// writeSpan sends s from the body in memory; entry is the memory path's
// bodySource.
func (e *entry) writeSpan(w io.Writer, s span) (int64, error) {
	n, err := w.Write(e.body[s.off:s.end()])
	return int64(n), err
}

// cache holds entries by request name in a ristretto cache bounded in bytes.
// Its TinyLFU admission keeps one-off requests (crawlers, scans) from
// evicting the hot set once it is full. Nothing outside this type sees
// ristretto or its asynchronous Set.
//
// Only files are cached: a missing name is not, so a flood of random 404s
// cannot fill memory or evict anything.
type cache struct {
	rc         *ristretto.Cache[string, *entry]
	maxBody    int64         // largest file kept in memory; negative: none
	revalidate time.Duration // how long an entry is trusted without a stat
	now        func() int64  // unix nanoseconds; tests may stop the clock
	mu         sync.Mutex
	flights    map[string]*flight // builds in progress, by name
	hits, miss atomic.Uint64
	evictions  atomic.Uint64

	closing sync.RWMutex // held for reading by put and sync, for writing by close
	closed  bool

	// Entries holding a shared descriptor, by key, offered to the cache
	// and not yet let go: what sweep looks at.
	openMu sync.Mutex
	open   map[*entry]string
}

// metadataOnlyBytes bounds the cache when Options disable it: entries keep
// only validators then, because hashing a file for its ETag on every request
// would cost far more than any cache.
const metadataOnlyBytes = 1 << 20

func newCache(o Options) (*cache, error) {
	c := &cache{maxBody: o.CacheMaxFileSize, revalidate: o.Revalidate, now: unixNano,
		flights: make(map[string]*flight), open: make(map[*entry]string)}
	maxCost := o.CacheMaxBytes
	if maxCost < 0 {
		maxCost, c.maxBody = metadataOnlyBytes, -1
	}
	// Ristretto advises ten counters per entry the cache holds when full;
	// small entries (a few KiB) are what a static site holds most of.
	counters := max(10*maxCost/(4<<10), 1<<12)
	rc, err := ristretto.NewCache(&ristretto.Config[string, *entry]{
		NumCounters:        counters,
		MaxCost:            maxCost,
		BufferItems:        64,
		IgnoreInternalCost: true, // entryOverhead accounts for it
		OnEvict:            func(*ristretto.Item[*entry]) { c.evictions.Add(1) },
		OnExit:             c.release, // evicted, rejected, replaced or deleted
	})
	if err != nil {
		return nil, err
	}
	c.rc = rc
	return c, nil
}

// putMode says what build does with a new entry.
type putMode int

const (
	putNone    putMode = iota // the caller keeps it elsewhere
	putAsync                  // offered to the cache, which admits it when it will
	putVisible                // and the build ends only once the cache holds it
)

// build returns a new entry for name, made by newEntry, and offers it to the
// cache as put says. Concurrent first requests for a file share one build;
// a request whose file turned out to be another version than the shared
// build's makes its own.
//
// The cache applies puts asynchronously, and a request arriving between the
// end of the build and the put would miss and build again. Compressed
// variants cannot afford that (putVisible); files' own entries are cheap
// enough to rebuild.
func (c *cache) build(name string, info fs.FileInfo, put putMode, newEntry func() (*entry, error)) (*entry, error) {
	c.mu.Lock()
	if fl, ok := c.flights[name]; ok {
		c.mu.Unlock()
		<-fl.done
		if fl.err == nil && fl.e.matches(info) {
			return fl.e, nil
		}
		return c.create(newEntry)
	}
	fl := &flight{done: make(chan struct{})}
	c.flights[name] = fl
	c.mu.Unlock()

	fl.e, fl.err = c.create(newEntry)
	if fl.err == nil && put != putNone {
		c.put(name, fl.e)
		if put == putVisible {
			c.sync()
		}
	}
	c.mu.Lock()
	delete(c.flights, name)
	c.mu.Unlock()
	close(fl.done)
	return fl.e, fl.err
}

// flight is one build in progress.
type flight struct {
	done chan struct{}
	e    *entry
	err  error
}

func (c *cache) create(newEntry func() (*entry, error)) (*entry, error) {
	if testHookNewEntry != nil {
		testHookNewEntry()
	}
	e, err := newEntry()
	if err == nil {
		e.checked.Store(c.now())
	}
	return e, err
}

// testHookNewEntry, when set by a test, sees every entry built.
var testHookNewEntry func()

// get returns the entry cached for name, or nil.
func (c *cache) get(name string) *entry {
	e, _ := c.rc.Get(name)
	return e
}

// put offers e to the cache. The cache may decline it (admission policy) or
// admit it a moment later; either way the caller serves e itself.
func (c *cache) put(name string, e *entry) {
	c.closing.RLock()
	defer c.closing.RUnlock()
	if e.sf != nil && !c.closed {
		c.openMu.Lock()
		c.open[e] = name
		c.openMu.Unlock()
	}
	if c.closed || !c.rc.Set(name, e, e.cost(name)) {
		c.release(e) // dropped at once: ristretto will not call OnExit
	}
}

// release gives up the cache's reference to e's shared descriptor, once
// however often it is called: by ristretto when e leaves the cache, and by
// sweep before that.
func (c *cache) release(e *entry) {
	if e == nil || e.sf == nil {
		return
	}
	c.openMu.Lock()
	delete(c.open, e)
	c.openMu.Unlock()
	e.sf.releaseCached()
}

// holdsOpen reports whether the cache holds shared descriptors.
func (c *cache) holdsOpen() bool {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	return len(c.open) > 0
}

// sweep drops the entries holding a shared descriptor that gone says is of
// a file no longer served, and lets go of their descriptors (closed once
// the transfers reading them end), and reports whether descriptors remain.
func (c *cache) sweep(gone func(*entry) bool) (again bool) {
	c.openMu.Lock()
	held := make(map[*entry]string, len(c.open))
	for e, key := range c.open {
		held[e] = key
	}
	c.openMu.Unlock()
	for e, key := range held {
		if !gone(e) {
			continue
		}
		if c.get(key) == e {
			c.drop(key)
		}
		c.release(e)
	}
	return c.holdsOpen()
}

// drop forgets name, so a changed file is never served stale. Dropping
// before a new put also keeps ristretto from treating the new entry as an
// update of the old, whose cost change it would apply without evicting.
func (c *cache) drop(name string) {
	c.closing.RLock()
	defer c.closing.RUnlock()
	if !c.closed {
		c.rc.Del(name)
	}
}

// trusted reports whether e was confirmed against the disk recently enough
// to skip checking it now.
func (c *cache) trusted(e *entry, now int64) bool {
	return c.revalidate > 0 && now-e.checked.Load() < int64(c.revalidate)
}

func unixNano() int64 { return time.Now().UnixNano() }

// maxCost is the bytes the cache may hold.
func (c *cache) maxCost() int64 { return c.rc.MaxCost() }

// held is the bytes the cache holds, by its cost accounting.
func (c *cache) held() int64 {
	return c.rc.MaxCost() - c.rc.RemainingCost()
}

// sync waits until every put so far is applied.
func (c *cache) sync() {
	c.closing.RLock()
	defer c.closing.RUnlock()
	if !c.closed {
		c.rc.Wait()
	}
}

// close closes the cache once no put or sync is under way: ristretto's Set
// can panic on a channel Close is closing, and its Wait never returns once
// Close has stopped the goroutine that would answer it.
func (c *cache) close() {
	c.closing.Lock()
	defer c.closing.Unlock()
	c.closed = true
	c.rc.Close()
	c.openMu.Lock()
	open := c.open
	c.open = map[*entry]string{}
	c.openMu.Unlock()
	for e := range open {
		e.sf.releaseCached() // if ristretto had not yet let go of it
	}
}
