package jaws

// SyncCache waits until the cache has applied every entry offered so far,
// so a test's next request is a hit (ristretto admits entries
// asynchronously).
func (h *Handler) SyncCache() { h.store.cache.sync() }
