package jaws

import "sync/atomic"

// Stats are counters since the Handler was created.
type Stats struct {
	// Requests is every request the handler saw (ServeHTTP, ServeNext,
	// ServeFile), whatever its answer.
	Requests uint64
	// Memory, ZeroCopy and Fallback count the 200/206 responses each
	// transfer path sent and the body bytes it wrote (HEAD counts a
	// response and no bytes).
	Memory, ZeroCopy, Fallback PathStats
	// Lane counts the responses the fast lane sent (Handler.FastLane), and
	// their body bytes, from memory and from disk alike; they are not in
	// the three counts above.
	Lane PathStats

	// CacheHits and CacheMisses count lookups by request name, and by name
	// and coding for compressed variants: a hit is an entry confirmed
	// fresh; a miss (absent or stale) goes to the file system, and builds
	// a new entry when there is a file.
	CacheHits, CacheMisses uint64
	// CacheEvictions counts entries the cache dropped to stay in bounds.
	CacheEvictions uint64
	// Compressions counts files compressed on first request (Options.Compression):
	// one per file version and coding while the cache keeps the result.
	Compressions uint64
	// Encoded counts the 200/206 responses sent in a content coding (from
	// a sibling or compressed), included in the path counts above.
	Encoded uint64
	// DictionaryEncoded counts the 200/206 responses sent compressed with
	// a dictionary the client held (dcz, Compression.DisableDictionaries),
	// included in Encoded; their compressions, once per version of a file
	// and dictionary, are in Compressions.
	DictionaryEncoded uint64
	// DictionarySaved is the bytes those responses saved, for the whole
	// bodies (GET 200s), on what each would otherwise have been sent: the
	// br variant for a browser.
	DictionarySaved uint64

	// CacheBytes is what the cache holds now for files served from memory,
	// by its cost accounting: bodies, headers and per-entry overhead. It
	// stays within Options.CacheMaxBytes.
	CacheBytes int64
	// CacheFiles is how many files sent from disk the cache keeps now, each
	// with its open descriptor. It stays within Options.CacheMaxFiles.
	CacheFiles int64
}

// PathStats count one transfer path.
type PathStats struct {
	Responses uint64
	Bytes     uint64
}

// Stats returns a snapshot of the counters. Each counter is read atomically;
// the set is not one instant.
func (h *Handler) Stats() Stats {
	cs := h.store.counts()
	return Stats{
		Requests: h.stats.requests.Load(),
		Memory:   snapshot(&h.tx.memory),
		ZeroCopy: snapshot(&h.tx.zeroCopied),
		Fallback: snapshot(&h.tx.fallback),
		Lane:     snapshot(&h.tx.lane),

		CacheHits:      cs.hits,
		CacheMisses:    cs.misses,
		CacheEvictions: cs.evictions,
		CacheBytes:     cs.held,
		CacheFiles:     cs.files,
		Compressions:   h.variants.compressions.Load(),
		Encoded:        h.variants.encoded.Load(),

		DictionaryEncoded: h.variants.dict.encoded.Load(),
		DictionarySaved:   h.variants.dict.saved.Load(),
	}
}

type stats struct {
	requests atomic.Uint64
}

func snapshot(c *pathCounter) PathStats {
	return PathStats{Responses: c.responses.Load(), Bytes: c.bytes.Load()}
}
