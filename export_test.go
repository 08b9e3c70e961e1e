package jaws

import "time"

// DefaultCacheMaxFileSize is Options.CacheMaxFileSize's default: files up
// to it are served from memory.
const DefaultCacheMaxFileSize = defaultCacheMaxFileSize

// DefaultZeroCopyMinSize is Options.ZeroCopyMinSize's default: files from
// it are sent zero-copy where that applies.
const DefaultZeroCopyMinSize = defaultZeroCopyMinSize

// SyncCache waits until the cache has applied every entry offered so far,
// so a test's next request is a hit (ristretto admits entries
// asynchronously).
func (h *Handler) SyncCache() { h.store.cache.sync() }

// SetSweepEvery makes h sweep every d instead of every second, so a test
// of what the sweeps let go sees it in d (TestDeploy); TestSweepEvery, in
// internal/source, holds the second. Set before h holds anything to sweep:
// a sweep already scheduled keeps its time.
func (h *Handler) SetSweepEvery(d time.Duration) { h.store.sweeper.SetEvery(d) }
