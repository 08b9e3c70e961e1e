package jaws

import (
	"hash/maphash"
	"io/fs"
	"math/bits"
	"net/http"
	"strings"
	"sync"
	"time"
)

// What the fast lane learns, and how it answers with it. A request jaws
// answers through the server, for a file, that the lane would have
// answered itself had it known the name (laneEligible), leaves a note: the
// request's host and target, the URL jaws saw (after the router's prefix
// stripping), the name it served, the file's version, and the headers the
// handlers in front of jaws had set. The lane answers a request of the same
// host and target by running jaws's own pipeline on those headers, as long
// as the file is still that version: the same code, so the same answer.

// laneNote is what the lane learnt of one request target.
type laneNote struct {
	host, target  string // the request's Host and target, as sent
	path, rawPath string // r.URL as jaws saw it
	rawQuery      string
	name          string      // the name jaws served (cleaned, before a hashed name's resolution or a page's ".html")
	info          fs.FileInfo // the file's version then
	hdr           http.Header // the headers set in front of jaws, each value clipped
	next          *laneNote   // another note of the same hash
}

// laneNotes are a lane's notes, by hash of host and target.
type laneNotes struct {
	seed maphash.Seed
	mu   sync.RWMutex
	m    map[uint64]*laneNote
	n    int
}

// maxLaneNotes bounds the notes a lane keeps, at about half a KiB each:
// past it, it forgets them all and learns the names asked for again, one
// request each through the server.
const maxLaneNotes = 1 << 14

func (ns *laneNotes) init() {
	ns.seed = maphash.MakeSeed()
	ns.m = make(map[uint64]*laneNote)
}

// key is the map key of host and target; keyOf is the same for strings.
func (ns *laneNotes) key(host, target []byte) uint64 {
	return maphash.Bytes(ns.seed, target) ^ bits.RotateLeft64(maphash.Bytes(ns.seed, host), 1)
}

func (ns *laneNotes) keyOf(host, target string) uint64 {
	return maphash.String(ns.seed, target) ^ bits.RotateLeft64(maphash.String(ns.seed, host), 1)
}

// find returns the note of host and target, or nil.
func (ns *laneNotes) find(host, target []byte) *laneNote {
	return ns.lookup(ns.key(host, target), string(host), string(target))
}

// has reports whether there is a note of host and target.
func (ns *laneNotes) has(host, target string) bool {
	return ns.lookup(ns.keyOf(host, target), host, target) != nil
}

func (ns *laneNotes) lookup(k uint64, host, target string) *laneNote {
	ns.mu.RLock()
	n := ns.m[k]
	for n != nil && (n.target != target || n.host != host) {
		n = n.next
	}
	ns.mu.RUnlock()
	return n
}

// put keeps n, in place of a note of the same host and target.
func (ns *laneNotes) put(n *laneNote) {
	k := ns.keyOf(n.host, n.target)
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.n >= maxLaneNotes {
		clear(ns.m)
		ns.n = 0
	}
	head := ns.m[k]
	n.next = dropNote(head, n.host, n.target)
	if n.next == head {
		ns.n++
	}
	ns.m[k] = n
}

// drop forgets n, once found stale.
func (ns *laneNotes) drop(n *laneNote) {
	k := ns.keyOf(n.host, n.target)
	ns.mu.Lock()
	defer ns.mu.Unlock()
	head := ns.m[k]
	rest := dropNote(head, n.host, n.target)
	if rest == head {
		return
	}
	ns.n--
	if rest == nil {
		delete(ns.m, k)
	} else {
		ns.m[k] = rest
	}
}

// dropNote returns the chain at head without the note of host and target;
// notes are never changed once shared, so the chain is copied up to it.
func dropNote(head *laneNote, host, target string) *laneNote {
	switch {
	case head == nil:
		return nil
	case head.host == host && head.target == target:
		return head.next
	}
	rest := dropNote(head.next, host, target)
	if rest == head.next {
		return head
	}
	c := *head
	c.next = rest
	return &c
}

// learning is a request through the server that lanes may learn from.
type learning struct {
	lanes        []*lane
	host, target string
	hdr          http.Header // what the handlers in front of jaws set
}

// serveLearning is serveNext's tail on a handler with fast lanes: a
// request the lanes may learn from leaves them a note.
func (h *Handler) serveLearning(w http.ResponseWriter, r *http.Request, next http.Handler, name string, lanes []*lane) {
	h.tx.finish(w, h.serveName(w, r, next, name, true, learnFrom(lanes, w, r)))
}

// served leaves the lanes a note of r: the name jaws serves it, e's file.
// It is called before the response is sent, so that a client that has it
// finds the lane knowing the name.
func (lr *learning) served(r *http.Request, name string, e *entry) {
	for _, l := range lr.lanes {
		l.notes.put(&laneNote{host: lr.host, target: lr.target, path: r.URL.Path, rawPath: r.URL.RawPath,
			rawQuery: r.URL.RawQuery, name: name, info: e.info, hdr: lr.hdr})
	}
}

// learnFrom returns what the lanes of r's server may learn from r, or nil:
// r must be a request one of them would have answered, with no note yet,
// and reach jaws on net/http's own writer with nothing written, so that
// the headers in w now are all that the handlers in front will have set.
func learnFrom(lanes []*lane, w http.ResponseWriter, r *http.Request) *learning {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || !laneEligible(r) {
		return nil
	}
	var lr *learning
	for _, l := range lanes {
		if l.srv != srv || !strings.HasPrefix(r.RequestURI, l.prefix) || l.off.Load() || l.shut.Load() ||
			l.notes.has(r.Host, r.RequestURI) {
			continue
		}
		if lr == nil {
			bw := baseWriter(w)
			if !isServerWriter(bw) {
				return nil
			}
			if written, known := headerWritten(bw); !known || written {
				return nil
			}
			hdr := w.Header()
			if _, ok := hdr["Transfer-Encoding"]; ok || hasTrailers(hdr) {
				return nil // net/http would frame the body: not the lane's
			}
			lr = &learning{host: r.Host, target: r.RequestURI, hdr: hdr.Clone()}
		}
		lr.lanes = append(lr.lanes, l)
	}
	return lr
}

// hasTrailers reports whether hdr declares trailers, which net/http writes
// after a chunked body.
func hasTrailers(hdr http.Header) bool {
	if _, ok := hdr["Trailer"]; ok {
		return true
	}
	for k := range hdr {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			return true
		}
	}
	return false
}

// laneEligible reports whether the lane's parser would have accepted r, as
// net/http parsed it: so that what the handlers in front of jaws did for r
// is what they do for the requests the lane answers.
func laneEligible(r *http.Request) bool {
	if r.TLS != nil || r.ProtoMajor != 1 || r.ProtoMinor != 1 ||
		r.Method != http.MethodGet && r.Method != http.MethodHead ||
		r.ContentLength != 0 || len(r.TransferEncoding) > 0 ||
		r.RequestURI == "" || r.RequestURI[0] != '/' || !isHostValue([]byte(r.Host)) {
		return false
	}
	for _, k := range [...]string{"Authorization", "Proxy-Authorization", "Origin", "Content-Length",
		"Transfer-Encoding", "Expect", "Upgrade"} {
		if _, ok := r.Header[k]; ok {
			return false
		}
	}
	switch c := r.Header["Connection"]; len(c) {
	case 0:
	case 1:
		v := strings.TrimSpace(c[0])
		if !strings.EqualFold(v, "close") && !strings.EqualFold(v, "keep-alive") {
			return false
		}
	default:
		return false
	}
	for i := range len(r.RequestURI) {
		if c := r.RequestURI[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// laneAnswer is a request the lane answers: the file found for its note.
type laneAnswer struct {
	f    found
	note *laneNote
}

// laneFind looks up the file of note for r, a request on the lane answered
// through w, and reports whether the lane answers it: the name still
// resolves to a regular file of the version learnt. When it does not,
// nothing was written and nothing counted but the cache's lookup, and the
// note is forgotten: the request goes to the server, which may learn anew.
func (h *Handler) laneFind(w http.ResponseWriter, r *http.Request, note *laneNote, a *laneAnswer) bool {
	f, err := h.find(w, r, note.name)
	if err == nil {
		t := &f.t
		if !t.listing() && f.redirect(r.URL.Path) == "" && t.e.matches(note.info) {
			a.f, a.note = f, note
			return true
		}
		t.close()
	}
	h.laneStale(note)
	return false
}

// laneStale forgets a note, in every lane.
func (h *Handler) laneStale(note *laneNote) {
	if lanes := h.lanes.Load(); lanes != nil {
		for _, l := range *lanes {
			l.notes.drop(note)
		}
	}
}

// laneServe answers a, found by laneFind, through w: the headers learnt,
// then the rest of serveName, recorded as every response is.
func (h *Handler) laneServe(w http.ResponseWriter, r *http.Request, a *laneAnswer) {
	h.stats.requests.Add(1)
	if h.recording() {
		h.laneServeRecorded(w, r, a)
		return
	}
	h.tx.finish(w, h.laneServeFound(w, r, a))
}

func (h *Handler) laneServeRecorded(w http.ResponseWriter, r *http.Request, a *laneAnswer) {
	rec := h.startRecord(w)
	defer h.finishRecord(rec, r, time.Now())
	h.tx.finish(rec, h.laneServeFound(rec, r, a))
}

func (h *Handler) laneServeFound(w http.ResponseWriter, r *http.Request, a *laneAnswer) unsent {
	hdr := w.Header()
	for k, v := range a.note.hdr {
		hdr[k] = v
	}
	if a.f.hashed {
		if _, set := hdr["Cache-Control"]; !set {
			hdr["Cache-Control"] = hdrImmutable
		}
	}
	return h.serveFound(w, r, &a.f)
}
