package jaws

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/jaws-go/jaws/internal/httprule"
)

// Compression dictionaries (RFC 9842), in the content-coding layer: a
// response for a versioned asset offers itself as a dictionary for the
// asset's next versions (Use-As-Dictionary), and a request for one of them
// that names the dictionary it holds (Available-Dictionary, "dcz" in
// Accept-Encoding) gets the file compressed against it: after a deploy, the
// difference. docs/compression.md says how it behaves; the headers' rules
// are in dictheader.go, the coding in dcz.go, the index of dictionaries by
// hash and the look for earlier versions in dictindex.go.
//
// The hooks: Handler.serveName asks dictFor what the request makes of
// dictionaries, adds the Vary it says, and hands the answer to choose
// (which tries dictionary below) and to respond (the offer, the counters);
// describe records where the version is in a new entry's name.

// dictionaryMinAge is how long, in seconds, a response must be kept by
// clients for jaws to offer it as a dictionary: a day. A browser uses a
// dictionary only while the response that brought it is fresh (RFC 9842
// §2.2.1), so one kept for less is gone before most next deploys.
const dictionaryMinAge = 24 * 60 * 60

// dictPairsMax bounds the dictionaries one version of a file is compressed
// with: 16. A request naming another gets the file as it would without
// one, so that no client can make jaws keep more deltas of a file than
// there are releases worth keeping.
const dictPairsMax = 16

// dictionaries is the variants' state for dictionaries: what the options
// say, the index of dictionaries by hash, and the counters.
type dictionaries struct {
	off       bool          // Compression.DisableDictionaries, or nothing compressed
	versioned []namePattern // Compression.VersionedNames
	earlier   []fs.FS       // Compression.Dictionaries
	maxSize   int64         // Compression.MaxSize: no dictionary is larger
	index     dictIndex
	encoded   atomic.Uint64 // responses sent dcz (Stats.DictionaryEncoded)
	saved     atomic.Uint64 // bytes they saved (Stats.DictionarySaved)
}

func (ds *dictionaries) init(cfg Compression) {
	ds.off = cfg.DisableDictionaries || cfg.DisableCompression
	ds.versioned, _ = parseVersionedNames(cfg.VersionedNames) // checked by newHandler
	ds.earlier = cfg.Dictionaries
	ds.maxSize = cfg.MaxSize
}

// dictState is what one entry (one version of a versioned file) learnt of
// dictionaries: the offer made last, whether its own hash is indexed and
// its earlier versions were looked for, and the dictionaries it was
// compressed with.
type dictState struct {
	offered atomic.Pointer[dictOffer]
	indexed atomic.Bool
	scan    sync.Once // the look for earlier versions, once per entry
	mu      sync.Mutex
	pairs   []dictPair // at most dictPairsMax
}

// dictOffer is a Use-As-Dictionary value and the request path it was made
// for, kept so that the next request by the same path allocates none.
type dictOffer struct {
	raw    string   // requestPath
	hashed bool     // by a name HashName made
	hdr    []string // nil: that path has no pattern
}

// dictPair is what compressing a version with one dictionary gave: the
// bytes the delta saves on the variant the request would otherwise get,
// and whether it is used at all (it is smaller).
type dictPair struct {
	sum   [sha256.Size]byte
	saved int64
	worth bool
}

// dictState returns vs's dictionary state, made when first needed.
func (vs *variantState) dictState() *dictState {
	if p := vs.dict.Load(); p != nil {
		return p
	}
	vs.dict.CompareAndSwap(nil, new(dictState))
	return vs.dict.Load()
}

// pair returns the pair of sum, if there is one.
func (st *dictState) pair(sum *[sha256.Size]byte) (dictPair, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, p := range st.pairs {
		if p.sum == *sum {
			return p, true
		}
	}
	return dictPair{}, false
}

// room reports whether another dictionary may be paired with the entry.
func (st *dictState) room() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.pairs) < dictPairsMax
}

// record keeps the verdict on a pair, once.
func (st *dictState) record(p dictPair) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, q := range st.pairs {
		if q.sum == p.sum {
			return
		}
	}
	if len(st.pairs) < dictPairsMax {
		st.pairs = append(st.pairs, p)
	}
}

// dictUse is what one request makes of dictionaries, made by dictFor and
// kept on the request's stack.
type dictUse struct {
	st    *dictState        // nil: the path neither offers nor uses dictionaries
	offer []string          // Use-As-Dictionary for a 200; nil for none
	want  bool              // Available-Dictionary names a dictionary that may compress the answer
	sum   [sha256.Size]byte // the one it names
	saved int64             // for a dcz answer, the bytes saved on the one otherwise sent
}

// dictFor says what a request for e, whose response headers so far are
// hdr, makes of dictionaries. A path offers and uses them when e is a
// compressible file compressed in memory (Compression's MinSize to
// MaxSize), its name is versioned (hashed: a name HashName made; else the
// file's own name, by a bundler's hash or Compression.VersionedNames), and
// the response will be kept a day or more (Cache-Control, which jaws set
// for a hashed name, an outer handler set before it, or Options.Header
// gave the file, added by serveFound before this: dictionaryMinAge).
// Then every response for it carries Vary: Accept-Encoding,
// Available-Dictionary, a 200 the offer (Use-As-Dictionary), and a request
// naming a dictionary wants it if RFC 9842 §9.3.3 allows (dictionaryReadable).
// A plain hit allocates nothing here.
func (v *variants) dictFor(hdr http.Header, r *http.Request, e *entry, hashed bool) (d dictUse) {
	vs := &e.vary
	if v.dict.off || !vs.compressible || e.dirIndex || !hashed && vs.vend == 0 ||
		!httprule.LongLived(hdr["Cache-Control"], dictionaryMinAge) {
		return d
	}
	d.st = vs.dictState()
	d.offer = v.offer(d.st, r, e, hashed)
	if ad, ok := r.Header["Available-Dictionary"]; ok {
		var valid bool
		d.sum, valid = parseAvailableDictionary(ad)
		d.want = valid && dictionaryReadable(r.Header, hdr)
	}
	return d
}

// addVary adds to hdr what the Vary field of a response with variants
// must name: Accept-Encoding, and Available-Dictionary where d says the
// path has dictionaries.
func (v *variants) addVary(hdr http.Header, d *dictUse) {
	if d.st != nil {
		addVaryDict(hdr)
	} else {
		addVary(hdr)
	}
}

// dictionary returns e compressed with the dictionary d names (dcz), for a
// request that would otherwise get e in other (siblings being those that
// may serve): from the cache, or made now, once per version of the file
// and dictionary, from the dictionary's bytes, which the index finds by
// their hash (dictindex.go). false means the answer is the one otherwise
// sent: the dictionary is unknown, or the delta is no smaller than that
// answer, a verdict kept with e.
func (v *variants) dictionary(r *http.Request, name string, e *entry, siblings codingSet, other coding, d *dictUse) (*entry, bool) {
	st := d.st
	p, paired := st.pair(&d.sum)
	switch {
	case paired && !p.worth:
		return nil, false
	case !paired && !st.room():
		return nil, false
	}
	key := name + "\x00dcz\x00" + string(d.sum[:])
	if paired {
		if ve := v.store.variant(key, e); ve != nil {
			d.saved = p.saved
			return ve, true
		}
	}
	rec, ok := v.dict.index.lookup(&d.sum)
	if !ok {
		// Not indexed: the earlier versions of e are looked for once,
		// whatever the hash, and never again for this entry.
		st.scan.Do(func() { v.findEarlier(context.WithoutCancel(r.Context()), e) })
		if rec, ok = v.dict.index.lookup(&d.sum); !ok {
			return nil, false
		}
	}
	ctx := r.Context()
	ve, err := v.store.keepVariant(key, e, func() (*entry, error) {
		if p, paired := st.pair(&d.sum); paired && !p.worth {
			return nil, errNotWorth // found by a build this one waited for
		}
		// What the request would otherwise get, the size to beat.
		size := e.size()
		if t, ok := v.resolve(r, name, e, fdNone, siblings, other); ok {
			size = t.e.size()
			t.close()
		}
		select {
		case v.encoder.slots <- struct{}{}:
			defer func() { <-v.encoder.slots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		dict, err := v.dictBytes(rec)
		if err != nil {
			v.dict.index.drop(rec)
			return nil, err
		}
		src, err := v.store.readAll(e)
		if err != nil {
			return nil, err
		}
		out, err := v.encoder.dcz(src, dict, &d.sum)
		v.compressions.Add(1)
		if err != nil {
			return nil, err
		}
		saved := size - int64(len(out))
		st.record(dictPair{sum: d.sum, saved: saved, worth: saved > 0})
		if saved <= 0 {
			return nil, errNotWorth
		}
		ve := newVariant(e, dczCoding, out)
		representVariant(ve, e)
		return ve, nil
	})
	if err != nil {
		if !errors.Is(err, errNotWorth) && !errors.Is(err, errDictionaryGone) && ctx.Err() == nil {
			v.log.Printf("jaws: compressing %s with a dictionary: %v", e.File, err)
		}
		return nil, false
	}
	if p, ok := st.pair(&d.sum); ok {
		d.saved = p.saved
	}
	return ve, true
}

// respond completes the headers of a response for e, planned with status
// (a 200 offers the file as a dictionary), and counts a dcz answer and the
// bytes it saved, those of a whole body (a GET's 200).
func (v *variants) respond(hdr http.Header, d *dictUse, e *entry, status int, method string) {
	if d == nil || d.st == nil {
		return
	}
	if status == http.StatusOK && d.offer != nil {
		hdr["Use-As-Dictionary"] = d.offer
	}
	if e.coding == dczCoding {
		v.dict.encoded.Add(1)
		if status == http.StatusOK && method == http.MethodGet && d.saved > 0 {
			v.dict.saved.Add(uint64(d.saved))
		}
	}
}
