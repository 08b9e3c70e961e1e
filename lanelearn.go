package jaws

import (
	"io/fs"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"time"

	"github.com/jaws-go/jaws/internal/httprule"
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
	noteKey
	key           string      // noteKey flattened (appendKey): the map's key
	path, rawPath string      // r.URL as jaws saw it
	name          string      // the name jaws served (cleaned, before a hashed name's resolution or a page's ".html")
	info          fs.FileInfo // the file's version then
	hdr           http.Header // the headers set in front of jaws, each value clipped
	size          int         // about the bytes it keeps alive
}

// noteKey is what a note is learnt for: the method, the Host, what a proxy
// in front says of the host and scheme the client used (X-Forwarded-Host,
// X-Forwarded-Proto: tenants and redirects are routed by them), and the
// target, each as sent.
type noteKey struct {
	head                        bool // HEAD, else GET: a router may answer one and not the other
	host, fhost, fproto, target string
}

// rawQuery is the key's target's query, as r.URL.RawQuery has it.
func (k *noteKey) rawQuery() string {
	_, q, _ := strings.Cut(k.target, "?")
	return q
}

// appendKey appends a note's map key: the method, then the parts, each
// ended by a NUL, which neither the lane's parser nor net/http lets into
// a target or a field value.
func appendKey[T string | []byte](dst []byte, head bool, host, fhost, fproto, target T) []byte {
	m := byte('G')
	if head {
		m = 'H'
	}
	dst = append(dst, m)
	for _, part := range [...]T{host, fhost, fproto, target} {
		dst = append(append(dst, part...), 0)
	}
	return dst
}

// laneNotes are a lane's notes, by key.
type laneNotes struct {
	mu    sync.RWMutex
	m     map[string]*laneNote
	bytes int
}

// Bounds of a lane's notes: past either, it forgets an eighth of them and
// learns the names asked for again, one request each through the server.
const (
	maxLaneNotes     = 1 << 14
	maxLaneNoteBytes = 16 << 20
)

func (ns *laneNotes) init() { ns.m = make(map[string]*laneNote) }

// find returns the note of key, or nil; string(key) allocates nothing.
func (ns *laneNotes) find(key []byte) *laneNote {
	ns.mu.RLock()
	defer ns.mu.RUnlock()
	return ns.m[string(key)]
}

// has reports whether there is a note of key.
func (ns *laneNotes) has(key string) bool {
	ns.mu.RLock()
	defer ns.mu.RUnlock()
	return ns.m[key] != nil
}

// put keeps n, in place of a note of the same key.
func (ns *laneNotes) put(n *laneNote) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if len(ns.m) >= maxLaneNotes || ns.bytes+n.size > maxLaneNoteBytes {
		ns.forgetSome()
	}
	if old := ns.m[n.key]; old != nil {
		ns.bytes -= old.size
	}
	ns.m[n.key] = n
	ns.bytes += n.size
}

// forgetSome forgets an eighth of the notes, those the map's order picks;
// ns.mu is held.
func (ns *laneNotes) forgetSome() {
	drop := max(1, len(ns.m)/8)
	for k, n := range ns.m {
		ns.bytes -= n.size
		delete(ns.m, k)
		if drop--; drop == 0 {
			return
		}
	}
}

// drop forgets n, found stale, unless a note learnt since replaced it.
func (ns *laneNotes) drop(n *laneNote) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.m[n.key] == n {
		delete(ns.m, n.key)
		ns.bytes -= n.size
	}
}

// learning is a request through the server that lanes may learn from.
type learning struct {
	lanes []*lane
	key   noteKey
	flat  string      // key, flattened (appendKey)
	hdr   http.Header // what the handlers in front of jaws set
	size  int
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
		l.notes.put(&laneNote{noteKey: lr.key, key: lr.flat, path: r.URL.Path, rawPath: r.URL.RawPath,
			name: name, info: e.Info, hdr: lr.hdr, size: lr.size + len(r.URL.Path) + len(r.URL.RawPath) + len(name)})
	}
}

// learnFrom returns what the lanes of r's server may learn from r, or nil:
// r must be a request one of them would have answered, with no note yet,
// that reaches jaws with the path the lane would give it and on net/http's
// own writer with nothing written, so that the headers in w now are all
// that the handlers in front will have set.
func learnFrom(lanes []*lane, w http.ResponseWriter, r *http.Request) *learning {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || !laneEligible(r) {
		return nil
	}
	key := noteKey{head: r.Method == http.MethodHead, host: r.Host, fhost: first(r.Header, "X-Forwarded-Host"),
		fproto: first(r.Header, "X-Forwarded-Proto"), target: r.RequestURI}
	flat := string(appendKey(nil, key.head, key.host, key.fhost, key.fproto, key.target))
	var lr *learning
	for _, l := range lanes {
		if l.srv != srv || !laneMaps(r, l.prefix) || l.off.Load() || l.shut.Load() || l.notes.has(flat) {
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
			if _, ok := hdr["Set-Cookie"]; ok {
				return nil // for the one who asked, never for everyone
			}
			lr = &learning{key: key, flat: flat, hdr: hdr.Clone(), size: 256 + len(key.host) + len(key.fhost) + len(key.fproto) + len(key.target)}
			for k, vv := range lr.hdr {
				lr.size += len(k) + 16
				for _, v := range vv {
					lr.size += len(v) + 16
				}
			}
		}
		lr.lanes = append(lr.lanes, l)
	}
	return lr
}

// laneMaps reports whether r reaches jaws with the path the lane gives a
// request for its target: the path as sent less prefix, as http.StripPrefix
// strips it (with or without the prefix's last slash). A request a handler
// in front rewrote (middleware.SPA's index page for a client route) is not
// one the lane can answer.
func laneMaps(r *http.Request, prefix string) bool {
	sent := requestPath(r)
	rest, ok := strings.CutPrefix(sent, prefix)
	if !ok {
		return false
	}
	got := r.URL.EscapedPath()
	return got == rest || got == "/"+rest || got == sent
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
		r.RequestURI == "" || r.RequestURI[0] != '/' || !isHostValue([]byte(r.Host)) ||
		len(r.Host)+len(r.RequestURI) > laneBufSize/2 {
		return false
	}
	// And no Cookie: what the lane learns is for everyone, and a cookie may
	// be what let this request through (a session that middleware checks).
	for _, k := range [...]string{"Authorization", "Proxy-Authorization", "Origin", "Content-Length",
		"Transfer-Encoding", "Expect", "Upgrade", "Cookie"} {
		if _, ok := r.Header[k]; ok {
			return false
		}
	}
	if len(r.Header["X-Forwarded-Host"]) > 1 || len(r.Header["X-Forwarded-Proto"]) > 1 {
		return false
	}
	switch c := r.Header["Connection"]; len(c) {
	case 0:
	case 1:
		v := textproto.TrimString(c[0])
		if !httprule.EqualFold(v, "close") && !httprule.EqualFold(v, "keep-alive") {
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
		if !t.listing() && f.redirect(r.URL.Path) == "" && t.e.Matches(note.info) {
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
	return h.serveFound(w, r, &a.f)
}
