package jaws

import (
	"net/http"
	"strconv"
	"time"
)

// representation is what the handler makes of an entry when it is built:
// its validators, its Content-Type, and the header values every response
// from it shares, so that a hit allocates none of them. Canonical keys:
// "Etag", not "ETag". It lives in the entry (entry.rep) and is made once,
// by represent or representVariant, before the entry is shared.
type representation struct {
	mtimeAhead bool      // the mtime was ahead of the clock when the entry was built
	mod        time.Time // the file's mtime, which preconditions compare with: here, not behind the FileInfo, the cache line a hit reads anyway

	hdrETag, hdrCtype, hdrLength, hdrLastModified, hdrEncoding []string
	hdrDigest                                                  []string // Repr-Digest, when a digest sibling gave the SHA-256

	// fields are what Options.Header set for the file (fileheader.go),
	// on a file's own entry only: its variants are served with them too.
	fields []headerField
}

// headerField is one response field a file's responses carry: a canonical
// name and its values, whose slice's capacity is its length, so that an
// outer handler's Header.Add reallocates rather than write into the next
// field's values.
type headerField struct {
	key string
	val []string
}

// packFields makes the fields of h, in the order of keys (h's names, each
// canonical and with a value), their values in one array.
func packFields(keys []string, h http.Header) []headerField {
	n := 0
	for _, k := range keys {
		n += len(h[k])
	}
	vals := make([]string, 0, n)
	fields := make([]headerField, len(keys))
	for i, k := range keys {
		start := len(vals)
		vals = append(vals, h[k]...)
		fields[i] = headerField{key: k, val: vals[start:len(vals):len(vals)]}
	}
	return fields
}

// etag is the entry's own entity-tag, "" for none.
func (r *representation) etag() string { return first1(r.hdrETag) }

// ctype is the entry's Content-Type.
func (r *representation) ctype() string { return first1(r.hdrCtype) }

func first1(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// cost is what the header values keep alive, for the cache's accounting.
func (r *representation) cost() int {
	n := 0
	for _, v := range [][]string{r.hdrETag, r.hdrCtype, r.hdrLength, r.hdrLastModified, r.hdrDigest} {
		for _, s := range v {
			n += len(s) + 16
		}
	}
	for _, f := range r.fields {
		n += len(f.key) + 40
		for _, s := range f.val {
			n += len(s) + 16
		}
	}
	return n
}

var hdrAcceptRanges = []string{"bytes"}

// hdrEncoding is the Content-Encoding value of each coding.
var hdrEncoding = [numCodings][]string{nil, {"br"}, {"zstd"}, {"gzip"}, {"dcz"}}

// represent makes the representation of e, a file's own entry or a
// sibling's, whose first bytes are head; types are Options.ContentTypes, as
// parseContentTypes keyed them. Its ETag is its content's when its
// bytes were read or a digest sibling gave their hash: replicas agree
// whatever their mtimes. Else it is made of the size and the mtime (see
// metaETag), and a file with no mtime has none: the size alone would name
// every version alike, and http.FileServer sends none either.
func represent(e *entry, head []byte, types map[string]string) {
	etag, digest := validators(e)
	e.rep.pack(etag, digest, contentType(e.File, head, types), e)
}

// representVariant makes the representation of v, a variant of orig in
// v.coding: its bytes, validators and length are its own, its Content-Type
// and dates orig's.
func representVariant(v, orig *entry) {
	etag, digest := validators(v)
	v.rep.pack(etag, digest, orig.rep.ctype(), v)
	v.rep.hdrEncoding = hdrEncoding[v.coding]
}

// validators returns e's entity-tag and Repr-Digest values, "" for none.
func validators(e *entry) (etag, digest string) {
	switch sum := e.sum.Load(); {
	case sum != nil:
		etag = formatETag(sum[:])
		if e.digest {
			digest = reprDigest(sum[:])
		}
	case !isZeroTime(e.Info.ModTime()):
		etag = metaETag(e.Info.Size(), e.Info.ModTime())
	}
	return etag, digest
}

// pack sets the header values of e, of which etag and digest may be "" for
// none, and notes an mtime ahead of the clock, which Last-Modified must not
// be (RFC 9110 §8.8.2.1). The values share one array and their bytes one
// string: a hit, which reads every one of them (the preconditions, then
// net/http writing the header), then finds them in two or three cache
// lines instead of two for each, which on a server of many connections it
// would miss on nearly every request. Each slice's capacity is its length,
// so an outer handler's Header.Add reallocates rather than write into the
// next value.
func (r *representation) pack(etag, digest, ctype string, e *entry) {
	length := strconv.FormatInt(e.size(), 10)
	mod := e.Info.ModTime()
	r.mod = mod
	var lastMod string
	if !isZeroTime(mod) {
		lastMod = mod.UTC().Format(http.TimeFormat)
	}
	r.mtimeAhead = mod.After(time.Now())
	all := etag + digest + ctype + length + lastMod
	vals := make([]string, 0, 5)
	value := func(s string) []string {
		if s == "" {
			return nil
		}
		vals = append(vals, all[:len(s)])
		all = all[len(s):]
		return vals[len(vals)-1 : len(vals) : len(vals)]
	}
	// In the order of all.
	r.hdrETag = value(etag)
	r.hdrDigest = value(digest)
	r.hdrCtype = value(ctype)
	r.hdrLength = value(length)
	r.hdrLastModified = value(lastMod)
}

// validFieldValue reports whether v holds no control character but HTAB
// (RFC 9110 §5.5: field-content is visible characters, SP, HTAB and
// obs-text), as net/http's httpguts.ValidHeaderFieldValue.
func validFieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
