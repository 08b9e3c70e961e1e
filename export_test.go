package jaws

// SettleEvents reads the file system events pending now, as the first hit
// drainEvery (1 ms) after a change would: tests that change files call it
// instead of waiting.
func (h *Handler) SettleEvents() {
	if d, ok := h.store.src.(*dirSource); ok {
		d.watch.readPending()
	}
}

// SyncCache waits until the cache has applied every entry offered so far,
// so that the next request for a file just served is a hit: external tests
// that must know a file is cached call it between two requests for it.
func (h *Handler) SyncCache() { h.store.cache.sync() }
