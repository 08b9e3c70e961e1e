package jaws

import (
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"
)

// representation is what the handler makes of an entry when it is built:
// its validators, its Content-Type, and the header values every response
// from it shares, so that a hit allocates none of them. Canonical keys:
// "Etag", not "ETag". It lives in the entry (entry.rep) and is made once,
// by represent or representVariant, before the entry is shared.
type representation struct {
	mtimeAhead bool // the mtime was ahead of the clock when the entry was built

	hdrETag, hdrCtype, hdrLength, hdrLastModified, hdrEncoding []string
	hdrDigest                                                  []string // Repr-Digest, when a digest sibling gave the SHA-256
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
	return n
}

var hdrAcceptRanges = []string{"bytes"}

// hdrEncoding is the Content-Encoding value of each coding.
var hdrEncoding = [numCodings][]string{nil, {"br"}, {"zstd"}, {"gzip"}, {"dcz"}}

// represent makes the representation of e, a file's own entry or a
// sibling's, whose first bytes are head. Its ETag is its content's when its
// bytes were read or a digest sibling gave their hash: replicas agree
// whatever their mtimes. Else it is made of the size and the mtime (see
// metaETag), and a file with no mtime has none: the size alone would name
// every version alike, and http.FileServer sends none either.
func represent(e *entry, head []byte) {
	r := &e.rep
	switch sum := e.sum.Load(); {
	case sum != nil:
		r.hdrETag = []string{formatETag(sum[:])}
		if e.digest {
			r.hdrDigest = []string{reprDigest(sum[:])}
		}
	case !isZeroTime(e.info.ModTime()):
		r.hdrETag = []string{metaETag(e.info.Size(), e.info.ModTime())}
	}
	r.hdrCtype = []string{contentType(e.file, head)}
	r.dates(e)
}

// representVariant makes the representation of v, a variant of orig in
// v.coding: its bytes, validators and length are its own, its Content-Type
// and dates orig's.
func representVariant(v, orig *entry) {
	r := &v.rep
	if sum := v.sum.Load(); sum != nil {
		r.hdrETag = []string{formatETag(sum[:])}
		if v.digest {
			r.hdrDigest = []string{reprDigest(sum[:])}
		}
	} else if !isZeroTime(v.info.ModTime()) {
		r.hdrETag = []string{metaETag(v.info.Size(), v.info.ModTime())}
	}
	r.hdrCtype = orig.rep.hdrCtype
	r.hdrEncoding = hdrEncoding[v.coding]
	r.dates(v)
}

// dates sets the length and Last-Modified values, and notes an mtime ahead
// of the clock, which Last-Modified must not be (RFC 9110 §8.8.2.1).
func (r *representation) dates(e *entry) {
	r.hdrLength = []string{strconv.FormatInt(e.size(), 10)}
	mod := e.info.ModTime()
	if !isZeroTime(mod) {
		r.hdrLastModified = []string{mod.UTC().Format(http.TimeFormat)}
	}
	r.mtimeAhead = mod.After(time.Now())
}

// contentType is the type by extension, else sniffed from the first bytes,
// as http.ServeContent decides it.
func contentType(name string, head []byte) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}
