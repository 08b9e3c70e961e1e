package jaws

import (
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
)

// cache holds entries by request name, with two budgets, so that neither
// spends the other's: entries holding their bytes (small files, compressed
// variants) in a ristretto cache bounded in bytes (CacheMaxBytes), and
// entries of files sent from disk, each with its shared descriptor, in one
// bounded in files (CacheMaxFiles), as nginx's open_file_cache max= counts
// them. Their TinyLFU admission keeps one-off requests (crawlers, scans)
// from evicting the hot set once full. Nothing outside this type sees
// ristretto or its asynchronous Set.
//
// Only files are cached: a missing name is not, so a flood of random 404s
// cannot fill memory or evict anything.
type cache struct {
	bodies     *ristretto.Cache[string, *entry] // entries holding their bytes, by cost in bytes
	files      *ristretto.Cache[string, *entry] // entries sent from their file, one each; nil: none kept
	revalidate time.Duration                    // how long an entry is trusted without a stat
	now        func() int64                     // unix nanoseconds; tests may stop the clock
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

// unixNano is the cache's clock, the store's: unix nanoseconds, as the
// source's Fresh and Arm take it.
func unixNano() int64 { return time.Now().UnixNano() }

// newCache makes a cache of maxCost bytes (negative: metadataOnlyBytes) of
// bodies and of maxFiles files sent from disk (negative: none), whose
// entries are trusted for revalidate without a look.
func newCache(maxCost, maxFiles int64, revalidate time.Duration) (*cache, error) {
	c := &cache{revalidate: revalidate, now: unixNano,
		flights: make(map[string]*flight), open: make(map[*entry]string)}
	if maxCost < 0 {
		maxCost = metadataOnlyBytes
	}
	// Ristretto advises ten counters per entry the cache holds when full;
	// small entries (a few KiB) are what a static site holds most of.
	var err error
	if c.bodies, err = c.ristretto(max(10*maxCost/(4<<10), 1<<12), maxCost); err != nil {
		return nil, err
	}
	if maxFiles > 0 {
		if c.files, err = c.ristretto(max(10*maxFiles, 1<<10), maxFiles); err != nil {
			c.bodies.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *cache) ristretto(counters, maxCost int64) (*ristretto.Cache[string, *entry], error) {
	return ristretto.NewCache(&ristretto.Config[string, *entry]{
		NumCounters:        counters,
		MaxCost:            maxCost,
		BufferItems:        64,
		IgnoreInternalCost: true, // entryOverhead accounts for it
		OnEvict:            func(*ristretto.Item[*entry]) { c.evictions.Add(1) },
		OnExit:             c.release, // evicted, rejected, replaced or deleted
	})
}

// budget is the ristretto cache that holds e under key, nil when none is
// kept, and what e costs there: the bytes it keeps alive, or one file.
func (c *cache) budget(key string, e *entry) (rc *ristretto.Cache[string, *entry], cost int64) {
	if e.body != nil {
		return c.bodies, e.cost(key)
	}
	return c.files, 1
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
// variants cannot afford that (putVisible: the put is visible before the
// flight ends, and a build that starts after one ended looks in the cache
// first); files' own entries are cheap enough to rebuild.
func (c *cache) build(name string, info fs.FileInfo, put putMode, newEntry func() (*entry, error)) (*entry, error) {
	c.mu.Lock()
	if fl, ok := c.flights[name]; ok {
		c.mu.Unlock()
		<-fl.done
		if fl.err == nil && fl.e.Matches(info) {
			return fl.e, nil
		}
		return c.create(newEntry)
	}
	fl := &flight{done: make(chan struct{})}
	c.flights[name] = fl
	c.mu.Unlock()

	// A request that missed just before another's build became visible
	// finds it here rather than building again.
	if e := c.visible(name, put); e != nil && e.Matches(info) {
		fl.e = e
	} else {
		fl.e, fl.err = c.create(newEntry)
		if fl.err == nil && put != putNone {
			c.put(name, fl.e)
			if put == putVisible {
				c.sync()
			}
		}
	}
	c.mu.Lock()
	delete(c.flights, name)
	c.mu.Unlock()
	close(fl.done)
	return fl.e, fl.err
}

// visible returns what the cache holds for name when put says a build's
// result is visible before its flight ends, else nil.
func (c *cache) visible(name string, put putMode) *entry {
	if put != putVisible {
		return nil
	}
	return c.get(name)
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
	if e, ok := c.bodies.Get(name); ok {
		return e
	}
	if c.files != nil {
		e, _ := c.files.Get(name)
		return e
	}
	return nil
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
	rc, cost := c.budget(name, e)
	if c.closed || rc == nil || !rc.Set(name, e, cost) {
		c.release(e) // dropped at once: ristretto will not call OnExit
	}
}

// release gives up the cache's reference to e's shared descriptor, once
// however often it is called: by ristretto when e leaves the cache, and by
// sweep before that.
func (c *cache) release(e *entry) {
	if e != nil && e.release != nil {
		e.release()
	}
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
		c.bodies.Del(name)
		if c.files != nil {
			c.files.Del(name)
		}
	}
}

// trusted reports whether e was confirmed against the disk recently enough
// to skip checking it now.
func (c *cache) trusted(e *entry, now int64) bool {
	return c.revalidate > 0 && now-e.checked.Load() < int64(c.revalidate)
}

// maxCost is the bytes the cache may hold.
func (c *cache) maxCost() int64 { return c.bodies.MaxCost() }

// heldFiles is the files sent from disk the cache holds.
func (c *cache) heldFiles() int64 {
	if c.files == nil {
		return 0
	}
	return c.files.MaxCost() - c.files.RemainingCost()
}

// held is the bytes the cache holds, by its cost accounting.
func (c *cache) held() int64 {
	return c.bodies.MaxCost() - c.bodies.RemainingCost()
}

// sync waits until every put so far is applied.
func (c *cache) sync() {
	c.closing.RLock()
	defer c.closing.RUnlock()
	if !c.closed {
		c.bodies.Wait()
		if c.files != nil {
			c.files.Wait()
		}
	}
}

// close closes the cache once no put or sync is under way: ristretto's Set
// can panic on a channel Close is closing, and its Wait never returns once
// Close has stopped the goroutine that would answer it.
func (c *cache) close() {
	c.closing.Lock()
	defer c.closing.Unlock()
	c.closed = true
	c.bodies.Close()
	if c.files != nil {
		c.files.Close()
	}
	c.openMu.Lock()
	open := c.open
	c.open = map[*entry]string{}
	c.openMu.Unlock()
	for e := range open {
		e.sf.releaseCached() // if ristretto had not yet let go of it
	}
}
