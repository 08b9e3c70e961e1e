package jaws

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// The offer of compression dictionaries (RFC 9842): which responses carry
// Use-As-Dictionary, and which names are versions of one asset.

// offer returns the Use-As-Dictionary value for a request for e: its
// pattern is the request's path as the client sent it with a "*" in the
// version's place, so that it holds under http.StripPrefix and
// middleware.Mount, which change r.URL but not the target the client
// asked for. The last one made is kept on e; another path makes its own.
// It also gives the dictionary index e's own hash, once, where that costs
// no read, or the read of a file no larger than a hashed name's request
// may read (hashOnRequestMax) by a GET, which reads the file anyway.
func (v *variants) offer(st *dictState, r *http.Request, e *entry, hashed bool) []string {
	if !st.indexed.Load() {
		v.indexOwn(st, r, e)
	}
	raw := requestPath(r)
	if raw == "" {
		return nil
	}
	if o := st.offered.Load(); o != nil && o.raw == raw && o.hashed == hashed {
		return o.hdr
	}
	name, vstart, vend := e.File, int(e.vary.vstart), int(e.vary.vend)
	if hashed {
		sum := v.store.knownHash(e) // the request for the hashed name learnt it
		if sum == nil {
			return nil
		}
		name = hashedName(e.File, sum)
		ext := path.Ext(e.File)
		if ext == path.Base(e.File) {
			ext = ""
		}
		vend = len(name) - len(ext)
		vstart = vend - hashLen
	}
	o := &dictOffer{raw: strings.Clone(raw), hashed: hashed}
	if pattern, ok := dictionaryPattern(raw, name, vstart, vend); ok {
		o.hdr = []string{useAsDictionary(pattern, e.rep.ctype())}
	}
	st.offered.Store(o)
	return o.hdr
}

// indexOwn gives the index e's hash (see offer).
func (v *variants) indexOwn(st *dictState, r *http.Request, e *entry) {
	sum := v.store.knownHash(e)
	if sum == nil && r.Method == http.MethodGet {
		budget := int64(hashOnRequestMax)
		sum, _ = v.store.requestHash(r.Context(), e, &budget)
	}
	if sum != nil && st.indexed.CompareAndSwap(false, true) {
		v.dict.index.add(dictRecord{file: e.File, ver: e.Ver, sum: *sum})
	}
}

// versionIn returns where the version is in file, a name under the root:
// file[start:end], by the first of Compression.VersionedNames that matches,
// else by the hash a bundler puts in the last element
// (httprule.Fingerprint). 0, 0 when the name is not versioned.
func (ds *dictionaries) versionIn(file string) (start, end int32) {
	if ds.off {
		return 0, 0
	}
	for _, p := range ds.versioned {
		if s, e, ok := p.match(file); ok {
			return int32(s), int32(e)
		}
	}
	dir := strings.LastIndexByte(file, '/') + 1
	if s, e, ok := httprule.Fingerprint(file[dir:]); ok {
		return int32(dir + s), int32(dir + e)
	}
	return 0, 0
}

// namePattern is one of Compression.VersionedNames: segments, one of which
// holds the version between a fixed prefix and suffix.
type namePattern struct {
	segs     []string // the fixed segments; segs[star] is unused
	star     int
	pre, suf string
}

// parseVersionedNames checks and parses Compression.VersionedNames.
func parseVersionedNames(names []string) ([]namePattern, error) {
	var ps []namePattern
	for _, n := range names {
		segs := strings.Split(strings.TrimPrefix(n, "/"), "/")
		p := namePattern{segs: segs, star: -1}
		for i, seg := range segs {
			switch k := strings.Count(seg, "*"); {
			case seg == "" || seg == "." || seg == "..":
				return nil, fmt.Errorf("jaws: versioned name %q: empty, \".\" or \"..\" segment", n)
			case k > 1 || k == 1 && p.star >= 0:
				return nil, fmt.Errorf("jaws: versioned name %q: more than one \"*\"", n)
			case k == 1:
				p.star = i
				p.pre, p.suf, _ = strings.Cut(seg, "*")
			}
		}
		if p.star < 0 {
			return nil, fmt.Errorf("jaws: versioned name %q has no \"*\" for the version", n)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// match reports whether file is a name of p, and where its version is.
func (p *namePattern) match(file string) (start, end int, ok bool) {
	at := 0
	for i, seg := range p.segs {
		if i > 0 {
			if at == len(file) || file[at] != '/' {
				return 0, 0, false
			}
			at++
		}
		next := strings.IndexByte(file[at:], '/')
		if next < 0 {
			next = len(file) - at
		}
		got := file[at : at+next]
		if i == p.star {
			if len(got) <= len(p.pre)+len(p.suf) || !strings.HasPrefix(got, p.pre) || !strings.HasSuffix(got, p.suf) {
				return 0, 0, false
			}
			start, end = at+len(p.pre), at+next-len(p.suf)
		} else if got != seg {
			return 0, 0, false
		}
		at += next
	}
	return start, end, at == len(file)
}

// errDictionaryGone: the file the index had for a hash no longer holds it.
var errDictionaryGone = errors.New("jaws: the dictionary is gone")
