package jaws

// SettleEvents reads the file system events pending now, as the first hit
// drainEvery (1 ms) after a change would: tests that change files call it
// instead of waiting.
func (h *Handler) SettleEvents() {
	if d, ok := h.store.src.(*dirSource); ok {
		d.watch.readPending()
	}
}
