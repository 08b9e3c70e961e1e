package jaws

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
	"github.com/jaws-go/jaws/internal/httprule"
	"github.com/jaws-go/jaws/internal/webtypes"
	"github.com/klauspost/compress/zstd"
)

// variants is the content-coding layer, above the store: it describes new
// entries' codings, negotiates a request's, and resolves the variant, from
// a sibling through the store or compressed and kept by the store, or
// compressed with a dictionary the request names (dictionary.go). It
// counts what it compresses and serves encoded.
type variants struct {
	store *store
	types map[string]string // Options.ContentTypes, for compressed-only files
	// fields are Options.Header's fields for a compressed-only file's
	// name; nil without the hook.
	fields                func(name string) ([]headerField, error)
	spills                spills // their identities too large for memory (spill.go)
	cfg                   Compression
	codings               []coding  // cfg.Encodings, in the server's order
	set                   codingSet // the same as a set
	encoder               *encoder
	log                   *log.Logger
	compressions, encoded atomic.Uint64
	dict                  dictionaries // compression dictionaries (dictionary.go)
}

func newVariants(s *store, cfg Compression, codings []coding, types map[string]string, logger *log.Logger) *variants {
	v := &variants{store: s, cfg: cfg, codings: codings, set: setOf(codings...), types: types,
		spills:  spills{dir: cfg.SpillDir, max: cfg.SpillMaxBytes},
		encoder: newEncoder(cfg.Level, max(1, runtime.GOMAXPROCS(0)/2)), log: logger}
	v.dict.init(cfg)
	return v
}

// variantState is what the content-coding layer knows of a file's own
// entry: which codings it can be served in, and what was learnt since. It
// lives in the entry (entry.vary); describe makes it.
type variantState struct {
	siblings       codingSet // precompressed siblings found when the entry was built
	compressible   bool      // the file may be compressed on first request
	incompressible atomic.Uint32
	keys           [numCodings]string            // the variants' cache keys, made once so a hit allocates none
	files          [numCodings]string            // the siblings' names, made once for the same reason
	checks         atomic.Pointer[siblingChecks] // its siblings' bytes, checked against its own (siblingcheck.go)
	vstart, vend   int32                         // file[vstart:vend] is the version in a versioned name (dictionary.go)
	dict           atomic.Pointer[dictState]     // what its dictionaries learnt, made when first needed (dictionary.go)
	only           *onlyState                    // a compressed-only file's (compressedonly.go); nil for a file's own entry
}

// cost is what the state keeps alive, for the cache's accounting.
func (vs *variantState) cost() int {
	n := 0
	for c := range vs.keys {
		n += len(vs.keys[c]) + len(vs.files[c])
	}
	if vs.only != nil {
		n += cap(vs.only.prefix) // up to 64 KiB decoded, for checks and small identities
	}
	return n
}

// describe records, on a new entry of a file named name, which codings it
// can be served in: the siblings present now, and whether it may be
// compressed.
func (v *variants) describe(e *entry, name string) {
	vs := &e.vary
	if !v.cfg.DisablePrecompressed {
		for _, c := range v.codings {
			file := v.siblingFile(e, c)
			info, err := v.store.stat(file)
			switch {
			case err != nil || !info.Mode().IsRegular():
			case info.ModTime().Before(e.Info.ModTime()):
				// Said once per version of the file: a deploy that wrote
				// siblings before their originals should hear of it.
				v.log.Printf("jaws: ignoring %s: older than %s, so taken for stale",
					e.File+codingExts[c], e.File)
			default:
				vs.siblings |= setOf(c)
				vs.files[c] = file
			}
		}
	}
	size := e.Info.Size()
	vs.compressible = !v.cfg.DisableCompression && v.set != 0 && v.store.holds(size) &&
		size >= v.cfg.MinSize && size <= v.cfg.MaxSize && webtypes.Compressible(e.rep.ctype())
	if vs.siblings != 0 || vs.compressible {
		for _, c := range v.codings {
			vs.keys[c] = name + "\x00" + codingNames[c]
		}
	}
	if vs.compressible {
		vs.vstart, vs.vend = v.dict.versionIn(e.File)
	}
}

// siblingFile is the name of e's sibling in c: next to e's file, or for a
// compressed-only file next to its plain name.
func (v *variants) siblingFile(e *entry, c coding) string {
	if f := e.vary.files[c]; f != "" {
		return f
	}
	if o := e.vary.only; o != nil {
		return o.name + codingExts[c]
	}
	return e.File + codingExts[c]
}

// has reports whether e may be served in some coding, so responses for it
// carry Vary: Accept-Encoding.
func (v *variants) has(e *entry) bool { return e.vary.siblings != 0 || e.vary.compressible }

// mayEncode reports whether r may be answered in a content coding: it
// names one, and jaws serves some.
func (v *variants) mayEncode(r *http.Request) bool {
	return len(v.codings) > 0 && len(r.Header["Accept-Encoding"]) > 0
}

// available is the set of codings e can be served in now, siblings being
// those of its siblings that may serve (siblingsOf).
func (v *variants) available(e *entry, siblings codingSet) codingSet {
	s := siblings
	if e.vary.compressible {
		s |= v.set
	}
	return s &^ codingSet(e.vary.incompressible.Load())
}

// choose negotiates the coding for a request for e and resolves the
// variant. It returns false when the answer is e itself: identity chosen,
// or a variant that could not be had (the sibling went away or does not
// hold the file, compression saved too little or the client left while
// waiting), in which case e serves. d is what the request makes of
// dictionaries (dictFor): one it names may compress the answer (dcz).
func (v *variants) choose(r *http.Request, name string, e *entry, need fdNeed, d *dictUse) (target, bool) {
	siblings := v.siblingsOf(e)
	c := negotiate(r.Header["Accept-Encoding"], v.available(e, siblings), v.codings)
	if d.want && acceptsDictionary(r.Header["Accept-Encoding"], c) {
		if ve, ok := v.dictionary(r, name, e, siblings, c, d); ok {
			return target{e: ve}, true
		}
	}
	return v.resolve(r, name, e, need, siblings, c)
}

// resolve finds the variant of e in c, siblings being those that may
// serve; false as for choose.
func (v *variants) resolve(r *http.Request, name string, e *entry, need fdNeed, siblings codingSet, c coding) (target, bool) {
	if c == identity {
		return target{}, false
	}
	key := e.vary.keys[c]
	if siblings.has(c) {
		t, err := v.store.sibling(key, v.siblingFile(e, c), e, c, need, func(sib *entry) { representVariant(sib, e) })
		if err == nil && v.siblingCurrent(e, t.e, c) {
			return t, true
		}
		if err == nil {
			// Not the file's bytes (siblingcheck.go): compressed instead,
			// or the file as it is.
			t.close()
			v.store.forget(key)
		} else {
			// The sibling changed kind or went away: look again next time.
			v.store.forget(name)
		}
		if !e.vary.compressible {
			return target{}, false
		}
	}
	ve, err := v.compressed(r.Context(), key, e, c)
	if err != nil {
		if !errors.Is(err, errNotWorth) && r.Context().Err() == nil {
			v.log.Printf("jaws: compressing %s: %v", e.File, err)
		}
		return target{}, false
	}
	return target{e: ve}, true
}

// compressed returns the variant of orig compressed with c, cached under
// key: from the cache when it holds one made from this version of the file,
// else compressed now.
func (v *variants) compressed(ctx context.Context, key string, orig *entry, c coding) (*entry, error) {
	if ve := v.store.variant(key, orig); ve != nil {
		return ve, nil
	}
	return v.store.keepVariant(key, orig, func() (*entry, error) {
		if codingSet(orig.vary.incompressible.Load()).has(c) {
			return nil, errNotWorth // found by a build this one waited for
		}
		// Waiting beats answering uncompressed: that answer could be kept
		// by a shared cache, under "immutable" for a fingerprinted name.
		select {
		case v.encoder.slots <- struct{}{}:
			defer func() { <-v.encoder.slots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		src, err := v.store.readAll(orig)
		if err != nil {
			return nil, err
		}
		out, err := v.encoder.compress(c, src)
		v.compressions.Add(1)
		if err != nil {
			return nil, err
		}
		if !worthIt(int64(len(out)), int64(len(src))) {
			// Marked before the build ends, so no request compresses
			// it again meanwhile.
			orig.vary.incompressible.Or(uint32(setOf(c)))
			return nil, errNotWorth
		}
		ve := newVariant(orig, c, out)
		representVariant(ve, orig)
		return ve, nil
	})
}

var (
	hdrVary     = []string{"Accept-Encoding"}
	hdrVaryDict = []string{"Accept-Encoding, Available-Dictionary"}
)

// addVary adds Accept-Encoding to the Vary field, keeping what an outer
// handler put there (Accept, say), unless the field lists it, or "*",
// already (httprule.ListContains: ASCII case-insensitively, as tokens
// compare).
func addVary(hdr http.Header) { addVaryTokens(hdr, hdrVary) }

// addVaryDict adds Accept-Encoding and Available-Dictionary to the Vary
// field, as every response of a path that offers or uses dictionaries
// carries them (RFC 9842 §6.2), keeping what an outer handler put there.
func addVaryDict(hdr http.Header) { addVaryTokens(hdr, hdrVaryDict) }

// addVaryTokens sets Vary to own, a value of one or more tokens, where an
// outer handler set none; else adds the tokens of own the field lacks, in
// one line with the outer handler's (nginx before 1.23 keeps a cached
// response apart by the last Vary line alone: behind gzhttp, which sets
// "Vary: Accept-Encoding" first, a second line would let it hand a dcz body
// to a client without the dictionary), unless the field lists "*".
func addVaryTokens(hdr http.Header, own []string) {
	v, ok := hdr["Vary"]
	if !ok {
		hdr["Vary"] = own
		return
	}
	if httprule.ListContains(v, "*") {
		return
	}
	var b strings.Builder
	b.Grow(len(own[0]) + 2*len(v) + 2 + func() (n int) {
		for _, s := range v {
			n += len(s)
		}
		return n
	}())
	for i, s := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	added := false
	for tok := range strings.SplitSeq(own[0], ",") {
		if tok = strings.TrimSpace(tok); !httprule.ListContains(v, tok) {
			b.WriteString(", ")
			b.WriteString(tok)
			added = true
		}
	}
	if added || len(v) > 1 {
		hdr["Vary"] = []string{b.String()}
	}
}

// encoder compresses whole files, each coding at the configured level.
type encoder struct {
	level     CompressionLevel
	zstdLevel zstd.EncoderLevel
	zstd      func() (*zstd.Encoder, error)
	slots     chan struct{} // compressions allowed at once
}

func newEncoder(level CompressionLevel, slots int) *encoder {
	zl := map[CompressionLevel]zstd.EncoderLevel{
		LevelDefault: zstd.SpeedBetterCompression,
		LevelFastest: zstd.SpeedFastest,
		LevelBest:    zstd.SpeedBestCompression,
	}[level]
	return &encoder{
		level:     level,
		zstdLevel: zl,
		// One zstd encoder, made when first needed: its EncodeAll is safe
		// for concurrent use, and its tables are large.
		zstd: sync.OnceValues(func() (*zstd.Encoder, error) {
			return zstd.NewWriter(nil, zstd.WithEncoderLevel(zl), zstd.WithEncoderConcurrency(1),
				zstd.WithWindowSize(zstdWindow))
		}),
		slots: make(chan struct{}, slots),
	}
}

// compress returns src encoded with c.
func (enc *encoder) compress(c coding, src []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(src) / 2)
	var w io.WriteCloser
	switch c {
	case brotliCoding:
		w = brotli.NewWriterLevel(&buf, [...]int{6, 1, 11}[enc.level])
	case gzipCoding:
		var err error
		if w, err = gzip.NewWriterLevel(&buf, [...]int{9, 1, 9}[enc.level]); err != nil {
			return nil, err
		}
	case zstdCoding:
		z, err := enc.zstd()
		if err != nil {
			return nil, err
		}
		return z.EncodeAll(src, make([]byte, 0, len(src)/2)), nil
	default:
		return nil, errors.New("jaws: no encoder for " + c.String())
	}
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// worthIt reports whether n compressed bytes save enough on size bytes to
// be worth a variant: at least 10%.
func worthIt(n, size int64) bool { return n <= size-size/10 }

// errNotWorth is a compression that saved less than worthIt asks.
var errNotWorth = errors.New("jaws: compression saves too little")
