package jaws

import (
	"fmt"
	"log"
	"maps"
	"net/http"
	"slices"
	"sync"
)

// Options.Header: the response fields an application gives each file. The
// hook is asked once per version of a file, when the file's own entry is
// built (Handler.describe); what it sets is checked here, once, and kept in
// the entry's representation (representation.fields), so that a hit only
// copies map entries. serveFound adds them to the response where the
// handlers in front set no field of the same name, before the dictionary
// rules read Cache-Control and Access-Control-Allow-Origin; the answers
// that are not the file's (412, 416, errors) drop them again. Where this
// falls among the steps that read and write response headers is
// CONTRIBUTING.md's "The response header contract".

// fileHeaders calls Options.Header and says, once per field name, what it
// refuses.
type fileHeaders struct {
	fn   func(name string, h http.Header)
	log  *log.Logger
	mu   sync.Mutex
	said map[string]bool // canonical names refused and said so, at most maxRefusalsSaid
}

// maxRefusalsSaid bounds the names of refused fields a handler says and
// remembers: a hook that builds names from file names cannot grow the set
// without bound.
const maxRefusalsSaid = 64

func newFileHeaders(fn func(string, http.Header), logger *log.Logger) *fileHeaders {
	if fn == nil {
		return nil
	}
	return &fileHeaders{fn: fn, log: logger}
}

// of calls the hook for the file name and returns the fields it set that
// are allowed, canonical, merged by name and sorted, packed for the
// entry's representation; nil for none. A panic in the hook is errHook:
// it runs within the cache's build of the entry, which must end, so that
// the requests waiting for it go on (and the next one asks again).
func (fh *fileHeaders) of(name string) ([]headerField, error) {
	h := make(http.Header)
	if err := fh.call(name, h); err != nil {
		return nil, err
	}
	if len(h) == 0 {
		return nil, nil
	}
	kept := make(http.Header, len(h))
	for _, k := range slices.Sorted(maps.Keys(h)) { // "x-a" after "X-A": a set order for values merged
		ck := http.CanonicalHeaderKey(k)
		vals := h[k]
		if why := refusedField(ck, vals); why != "" {
			fh.refuse(ck, name, why)
			continue
		}
		if len(vals) > 0 {
			kept[ck] = append(kept[ck], vals...)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return packFields(slices.Sorted(maps.Keys(kept)), kept), nil
}

// call runs the hook, its panic an error.
func (fh *fileHeaders) call(name string, h http.Header) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w for %s: %v", errHook, name, p)
		}
	}()
	fh.fn(name, h)
	return nil
}

// refuse says, once per field name, that the hook's field key is left out.
func (fh *fileHeaders) refuse(key, file, why string) {
	fh.mu.Lock()
	defer fh.mu.Unlock()
	if fh.said[key] || len(fh.said) >= maxRefusalsSaid {
		return
	}
	if fh.said == nil {
		fh.said = make(map[string]bool)
	}
	fh.said[key] = true
	fh.log.Printf("jaws: Options.Header: ignoring %q (set for %s, said once): %s", key, file, why)
}

// Why a field is refused.
const (
	whyHopByHop = "hop-by-hop: a field of the connection, which net/http and jaws frame (RFC 9110 §7.6.1)"
	whyCookie   = "a cookie is a client's, not a file's: set it in front of jaws"
	whyOwned    = "jaws sets it (CONTRIBUTING.md, \"The response header contract\")"
	whyType     = "jaws sets it: types by extension are Options.ContentTypes, and one set in front of jaws wins"
	whyBytes    = "it describes the bytes sent, which differ by coding and range"
	whyName     = "not a field name (RFC 9110 §5.1)"
	whyValue    = "a control character in a value (any but HTAB, and DEL)"
)

// refusedFields are the canonical names the hook may not set, and why.
var refusedFields = map[string]string{
	"Connection":        whyHopByHop,
	"Keep-Alive":        whyHopByHop,
	"Proxy-Connection":  whyHopByHop,
	"Te":                whyHopByHop,
	"Trailer":           whyHopByHop,
	"Transfer-Encoding": whyHopByHop,
	"Upgrade":           whyHopByHop,
	"Set-Cookie":        whyCookie,
	"Accept-Ranges":     whyOwned,
	"Content-Encoding":  whyOwned,
	"Content-Length":    whyOwned,
	"Content-Range":     whyOwned,
	"Content-Type":      whyType,
	"Date":              whyOwned,
	"Etag":              whyOwned,
	"Last-Modified":     whyOwned,
	"Repr-Digest":       whyOwned,
	"Use-As-Dictionary": whyOwned,
	"Vary":              whyOwned,
	"Content-Digest":    whyBytes,
	"Digest":            whyBytes,
	"Content-Md5":       whyBytes,
}

// refusedField says why the hook may not set the field key (canonical) to
// vals, "" when it may.
func refusedField(key string, vals []string) string {
	if !isToken(key) {
		return whyName
	}
	if why, ok := refusedFields[key]; ok {
		return why
	}
	for _, v := range vals {
		if !validFieldValue(v) {
			return whyValue
		}
	}
	return ""
}

// addFields adds fields to hdr where hdr has no field of the same name: a
// handler in front of jaws set it for this request, and its value wins.
// The values are the entry's own, shared by its responses.
func addFields(hdr http.Header, fields []headerField) {
	for i := range fields {
		f := &fields[i]
		if _, set := hdr[f.key]; !set {
			hdr[f.key] = f.val
		}
	}
}

// dropFields removes from hdr the fields addFields added, those whose
// values are still fields' own, for an answer that is not the file's.
func dropFields(hdr http.Header, fields []headerField) {
	for i := range fields {
		f := &fields[i]
		if v := hdr[f.key]; len(v) > 0 && &v[0] == &f.val[0] {
			delete(hdr, f.key)
		}
	}
}
