package jaws

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Handler. The zero value is a good default for serving a
// public directory; each field documents its unit, its default and when to
// change it.
type Options struct {
	// CacheMaxFileSize is the size in bytes up to which a file's bytes are
	// held in memory and served from there, with their content's ETag;
	// larger files are sent from the file (zero-copy where it applies),
	// with an ETag from size and mtime. 0 means the default, 48 KiB: the
	// largest size at which the memory path beat the file path on the
	// development machine (bench/results/calibrate.txt); above it the
	// file path's sendfile saves the copy that a write from memory makes.
	// `go run ./bench/calibrate` measures it on yours, which is the reason
	// to change it. Negative means no file is served from memory (and none
	// is compressed on first request, see Compression).
	CacheMaxFileSize int64

	// CacheMaxBytes bounds, in bytes, the memory the cache may hold: file
	// bodies, compressed variants, their precomputed header values and
	// about 512 bytes of bookkeeping per file. A larger file's open
	// descriptor, shared by its transfers, counts 64 KiB, so the cache keeps
	// at most CacheMaxBytes/64 KiB descriptors open (1024 by default). 0
	// means the default, 64 MiB. Size it to the small files and compressed
	// text you want served from memory plus 1 KiB per file; when they do
	// not all fit, ristretto's TinyLFU admission keeps the most requested
	// (Stats().CacheMisses and CacheEvictions show the churn). Negative
	// disables caching of bodies: only the entries of recently served files
	// (validators, type, descriptor) are kept (within 1 MiB), because
	// hashing a small file for its ETag on every request would cost far
	// more than that memory.
	CacheMaxBytes int64

	// ServeDotFiles serves names with an element that starts with a dot
	// (".env", ".git/config", ".htpasswd", ".DS_Store"). Default false: they
	// are 404, because such files are private by convention, often hold
	// secrets, and reveal how the tree was made. "/.well-known/" at the top
	// is served either way: RFC 8615 makes it public (ACME challenges,
	// security.txt, assetlinks.json), though dot-names inside it are not.
	ServeDotFiles bool

	// DirectoryListing answers a directory that has no index.html with an
	// HTML list of its entries, sorted, names escaped, hidden names left out
	// unless ServeDotFiles. Default false: such a directory is 404, since
	// listings reveal files nobody linked to.
	DirectoryListing bool

	// MaxRanges is how many ranges one Range header may ask for before it is
	// ignored and the whole file is sent (RFC 9110 §14.2 allows ignoring
	// such requests). 0 means the default, 32. Negative ignores every Range
	// header, as a server without range support would.
	//
	// Whatever it is, ranges that overlap or lie at most 256 bytes apart
	// are merged, so no byte is sent twice; parts keep the order asked for;
	// a header asking for so many separate parts that their multipart
	// headers would outweigh the file is ignored (200, the whole file,
	// against CVE-2011-3192); a compressed variant serves one range at
	// most. Range is ignored on HEAD and for units other than bytes, and
	// "bytes=-0" alone is unsatisfiable (416).
	MaxRanges int

	// Revalidate sets how a cached file is confirmed unchanged before it
	// is served. 0 (the default): never stale, by the cheapest means at
	// hand: a request that starts after a change completed (the writer's
	// system call returned) sees it. On Linux, on local file systems, by
	// file system events (inotify), which cost one non-blocking
	// epoll_wait per request; where events cannot vouch for a file (other
	// systems, NFS and other network or user-space file systems, a
	// symbolic link, hard link or mount point on its way, events lost), by
	// one stat per request. Negative: that stat on every request, always.
	// Positive: a file confirmed is served without any check for that
	// long, in the manner of nginx's open_file_cache_valid; a change, a
	// new release under a swapped root path included, may go unseen that
	// long. Files sent from disk are always checked, on the descriptor
	// they are sent from, at no extra cost (an fstat of the shared one for
	// zero-copy), so no response sends one version's bytes under another's
	// ETag.
	Revalidate time.Duration

	// NotFound answers the requests the handler has nothing for (missing or
	// hidden names, directories without index page or listing), for example
	// with a custom page or an SPA's index.html. nil means a plain-text 404,
	// as http.FileServer sends.
	NotFound http.Handler

	// MethodNotAllowed answers methods other than GET and HEAD, after the
	// handler has set "Allow: GET, HEAD". nil means a plain-text 405.
	MethodNotAllowed http.Handler

	// Transfer forces how files not served from memory are sent. The
	// default, TransferAuto, chooses per request: zero-copy for files of at
	// least ZeroCopyMinSize bytes where it applies, the fallback otherwise.
	// TransferZeroCopy takes zero-copy wherever it applies, whatever the
	// size; TransferFallback never does. For benchmarks, and for users who
	// measured their own machines.
	Transfer Transfer

	// ZeroCopyMinSize is the size in bytes from which a response from disk
	// takes the zero-copy path (where it applies); smaller ones take the
	// fallback, where net/http uses sendfile itself. 0 means the default,
	// 512 KiB (or just above CacheMaxFileSize, if that is larger): the
	// smallest size at which zero-copy beat net/http's own path in every
	// measurement (bench/README.md, "Where zero-copy starts"). Change it
	// after measuring your machine and network with bench/zerocopymin.sh.
	ZeroCopyMinSize int64

	// SendTimeout bounds, per write, how long the zero-copy path waits for a
	// client to take data: a stalled reader fails after it, and its
	// connection and descriptor are released. It is renewed for every chunk.
	// 0 means the default, 60 seconds (nginx's send_timeout).
	SendTimeout time.Duration

	// SendChunk caps the bytes one zero-copy call sends, so that one fast
	// client cannot keep the thread from others (nginx's
	// sendfile_max_chunk); SendTimeout is renewed before each. 0 means the
	// default, 2 MiB.
	SendChunk int64

	// Compression sets how files are served compressed: precompressed
	// siblings ("foo.js.br" next to "foo.js") and files compressed once on
	// first request, both on by default; see Compression.
	Compression Compression

	// AccessLog, when set, receives one Info record per response the
	// handler completes, on every path (memory, zero-copy, fallback) and
	// for every answer (304, 404, 405, 416, aborted downloads), with the
	// attributes method, path, status, bytes (body bytes actually sent),
	// duration, transfer ("memory", "zerocopy", "fallback", or "") and
	// coding. It is how an application logs its static files without a
	// wrapping ResponseWriter, behind which jaws gives up the zero-copy
	// path because the wrapper would not see the bytes. nil logs nothing.
	AccessLog *slog.Logger

	// OnResponse, when set, is called with the same record, on the
	// request's goroutine, after each response: for metrics (counters by
	// status and transfer, a histogram of durations). It must be fast and
	// safe for concurrent use. nil calls nothing.
	OnResponse func(ResponseRecord)

	// ErrorLog receives errors that become a 500 response, which the client
	// does not see the details of, and notes on precompressed siblings
	// ignored as stale. nil means the log package's standard
	// logger.
	ErrorLog *log.Logger
}

const (
	defaultCacheMaxFileSize = 48 << 10
	defaultCacheMaxBytes    = 64 << 20
	defaultMaxRanges        = 32

	// See Options.ZeroCopyMinSize.
	defaultZeroCopyMinSize = 512 << 10
)

func (o Options) withDefaults() Options {
	if o.CacheMaxFileSize == 0 {
		o.CacheMaxFileSize = defaultCacheMaxFileSize
	}
	if o.CacheMaxBytes == 0 {
		o.CacheMaxBytes = defaultCacheMaxBytes
	}
	if o.ZeroCopyMinSize == 0 {
		o.ZeroCopyMinSize = max(o.CacheMaxFileSize+1, defaultZeroCopyMinSize)
	}
	if o.SendTimeout == 0 {
		o.SendTimeout = 60 * time.Second
	}
	if o.SendChunk == 0 {
		o.SendChunk = 2 << 20
	}
	if o.MaxRanges == 0 {
		o.MaxRanges = defaultMaxRanges
	}
	if o.Compression.MinSize == 0 {
		o.Compression.MinSize = defaultCompressMinSize
	}
	if o.Compression.MaxSize == 0 {
		o.Compression.MaxSize = defaultCompressMaxSize
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.Default()
	}
	return o
}

// Transfer is a policy for files not served from memory; see
// Options.Transfer.
type Transfer int

const (
	TransferAuto     Transfer = iota // zero-copy from ZeroCopyMinSize, where it applies
	TransferZeroCopy                 // zero-copy wherever it applies
	TransferFallback                 // never zero-copy
)

// Handler serves the files under one directory, or of one fs.FS. Create it
// with New or NewFS; it is safe for concurrent use.
type Handler struct {
	opts      Options
	store     *store    // files: source, cache, freshness, descriptors
	variants  *variants // content codings, above the store
	stats     stats
	transfers transfers
	servers   sync.Map     // weak.Pointer[http.Server] -> *serverState
	queued    atomic.Int64 // body bytes of zero-copy responses on connections waiting for their next request
	closed    sync.Once
	closeErr  error
}

// New returns a Handler serving the directory root. The root is the path,
// as with http.Dir: when it comes to name another directory (a symlink
// swapped to a new release, the directory renamed away and replaced,
// deleted, recreated), the next request is served from what it names now,
// while responses in flight finish from the old one. No file outside root
// is ever served: names are resolved through os.Root, so "..", symlinks
// leaving the root and similar escapes fail. Symbolic links inside the root are
// followed, absolute ones too when their target lies under root's real path
// (symlinks resolved here, once).
func New(root string, opts Options) (*Handler, error) {
	return newHandler(opts, func(sw *sweeper) (source, error) {
		return openDirSource(root, opts.Revalidate == 0, sw.kick)
	})
}

// NewFS returns a Handler serving the files of fsys, with the same HTTP
// behaviour as New: status codes, redirects, index pages, hidden names,
// ranges, preconditions, compression (with siblings in fsys), listings.
//
// An embed.FS, or fs.Sub of one, is served from the program's own bytes,
// whatever their size and with no copy, and since its files never change,
// nothing is looked up again once a file's entry is built: the fastest way
// jaws serves. Embedded files have no modification time, so they are sent
// without Last-Modified, and their ETag is their content's, the same as a
// copy on disk served from memory.
//
// Any other fs.FS (os.DirFS, os.Root.FS, fstest.MapFS, a zip archive) is
// checked by a stat on every request, so a changed file is seen by the next
// request (Options.Revalidate relaxes it). A file whose FileInfo reports no
// modification time (fstest.MapFS without ModTime, some archives and
// overlays) can change keeping its size: one held in memory (up to
// CacheMaxFileSize) is then compared byte for byte with the file on every
// request; a larger one is sent without an ETag (as http.FileServer sends
// none) and read anew by every GET, so what no request can see is the
// change of a large file's bytes for a HEAD, which reports only its size.
// The root of an fs.FS is the FS itself: a directory swapped under an
// os.DirFS path is followed only by New. Ranges work when its
// files implement io.ReaderAt or io.Seeker; otherwise Range is ignored and
// the whole file is sent (RFC 9110 §14.2 allows it). Files that are
// *os.File take the zero-copy path like a directory's.
//
// Containment is fsys's own: os.DirFS follows symlinks out of its
// directory. To serve a directory, New is the safe choice.
func NewFS(fsys fs.FS, opts Options) (*Handler, error) {
	if fsys == nil {
		return nil, errors.New("jaws: NewFS of a nil fs.FS")
	}
	return newHandler(opts, func(*sweeper) (source, error) { return newFSSource(fsys), nil })
}

// newHandler makes a Handler of the source open returns; open is handed the
// sweeper that the store will run.
func newHandler(opts Options, open func(*sweeper) (source, error)) (*Handler, error) {
	opts = opts.withDefaults()
	codings, err := parseEncodings(opts.Compression.Encodings)
	if err != nil {
		return nil, err
	}
	if lv := opts.Compression.Level; lv < LevelDefault || lv > LevelBest {
		return nil, fmt.Errorf("jaws: unknown compression level %d", lv)
	}
	c, err := newCache(opts)
	if err != nil {
		return nil, err
	}
	sw := new(sweeper)
	src, err := open(sw)
	if err != nil {
		c.close()
		return nil, err
	}
	s := newStore(src, c, opts.ErrorLog, sw)
	return &Handler{opts: opts, store: s,
		variants: newVariants(s, opts.Compression, codings, c.maxBody, opts.ErrorLog)}, nil
}

// Shutdown ends the handler gracefully: it waits until the zero-copy
// transfers in flight are done, or ctx ends, when it ends those still
// running and returns ctx's error; then it releases what Close releases.
// New requests take the fallback while it waits.
//
// Call it after http.Server.Shutdown, which waits for the requests net/http
// tracks but not for the zero-copy transfers, whose connections jaws has
// taken over; it does tell jaws to close the connections it holds idle:
//
//	err := srv.Shutdown(ctx)
//	err = errors.Join(err, h.Shutdown(ctx))
func (h *Handler) Shutdown(ctx context.Context) error {
	var err error
	if !h.transfers.wait(ctx.Done()) {
		h.transfers.cancel()
		err = ctx.Err()
	}
	return errors.Join(err, h.Close())
}

// Close ends the zero-copy transfers in flight and releases the root
// directory, the cache and its descriptors. Requests that arrive afterwards
// get 503 Service Unavailable. Calls after the first (or after Shutdown)
// do nothing and return the first one's result.
func (h *Handler) Close() error {
	h.closed.Do(func() {
		h.transfers.cancel()
		h.closeErr = h.store.close()
	})
	return h.closeErr
}

// ServeHTTP serves the file named by r.URL.Path, relative to the root, as
// http.FileServer does: GET and HEAD, index.html for directories, canonical
// redirects, ranges and conditional requests.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.ServeNext(w, r, nil)
}

// ServeNext serves r as ServeHTTP does when it names something the handler
// serves: a file, an index page, a redirect to one. Anything else (a method
// other than GET or HEAD, a missing or hidden name, a directory it would not
// list) goes to next with w and r untouched, so an application's routes can
// answer it. It finds out with the same single lookup a served request
// makes. A nil next means ServeHTTP.
func (h *Handler) ServeNext(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if h.observing() {
		rec := h.startRecord(w)
		defer h.finishRecord(rec, r, time.Now())
		w = rec
	}
	h.serve(w, r, next)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	h.stats.requests.Add(1)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.methodNotAllowed(w, r, next)
		return
	}
	name, ok := cleanName(r.URL.Path, h.opts.ServeDotFiles)
	if !ok || needlessEscape(r.URL.RawPath) {
		h.notFound(w, r, next)
		return
	}
	if isIndexRequest(r.URL.Path) {
		localRedirect(w, r, "./")
		return
	}
	h.serveName(w, r, next, name, true)
}

// ServeFile serves the file name, relative to the root whatever r.URL.Path
// says, as ServeHTTP serves a request for it: methods, preconditions,
// ranges, compression, the transfer paths, the 404 of Options.NotFound for a
// missing, hidden, escaping or special file. It is http.ServeFile for an
// application's own routes: a download behind an authorization check, a
// favicon from elsewhere in the tree. name is slash-separated, with or
// without a leading slash; a directory is served by its index.html. Unlike
// http.ServeFile it redirects nothing: name is not the URL.
func (h *Handler) ServeFile(w http.ResponseWriter, r *http.Request, name string) {
	if h.observing() {
		rec := h.startRecord(w)
		defer h.finishRecord(rec, r, time.Now())
		w = rec
	}
	h.stats.requests.Add(1)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.methodNotAllowed(w, r, nil)
		return
	}
	clean, ok := cleanName(name, h.opts.ServeDotFiles)
	if !ok {
		h.notFound(w, r, nil)
		return
	}
	h.serveName(w, r, nil, clean, false)
}

// serveName serves the cleaned name; redirects says whether the URL is the
// name's, to be made canonical by a redirect.
func (h *Handler) serveName(w http.ResponseWriter, r *http.Request, next http.Handler, name string, redirects bool) {
	zeroCopy := h.zeroCopyCandidate(w, r)
	need := fdOwn
	switch {
	case r.Method == http.MethodHead:
		need = fdNone
	case zeroCopy:
		need = fdShared
	}
	// A name HashName made is the file without the hash, as long as the
	// hash is its content's, which never changes under this name. It is
	// tried first: the file is cached under its own name, the hashed one
	// under none. From here on, name is the file's: its variants are
	// cached under it.
	t, orig, hashed := h.resolveHashed(r.Context(), name, need)
	if hashed {
		name = orig
		if _, set := w.Header()["Cache-Control"]; !set {
			w.Header()["Cache-Control"] = hdrImmutable
		}
	} else {
		var err error
		if t, err = h.store.resolve(name, need); err != nil {
			if errorStatus(err) == http.StatusNotFound {
				h.notFound(w, r, next)
			} else {
				h.fail(w, err)
			}
			return
		}
	}
	defer t.close()
	if t.listing() && (!h.opts.DirectoryListing || !redirects) {
		h.notFound(w, r, next)
		return
	}
	if loc := redirectFor(r.URL.Path, t.isDir()); redirects && loc != "" {
		localRedirect(w, r, loc)
		return
	}
	if t.listing() {
		h.serveDir(w, r, t.f)
		return
	}
	// An outer handler that set Content-Encoding encodes the body itself.
	_, outerEncoded := w.Header()["Content-Encoding"]
	if !outerEncoded && h.variants.has(t.e) {
		addVary(w.Header())
		if v, ok := h.variants.choose(r, name, t.e, need); ok {
			t.close()
			t = v
		}
	}
	h.serveEntry(w, r, &t, outerEncoded, zeroCopy)
}

// notFound answers a name with nothing to serve: next's business when there
// is a next, else Options.NotFound's, else a plain 404.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, next http.Handler) {
	switch {
	case next != nil:
		passOn(w, r, next)
	case h.opts.NotFound != nil:
		dropSuccessHeaders(w.Header())
		h.opts.NotFound.ServeHTTP(w, r)
	default:
		h.serveError(w, http.StatusNotFound)
	}
}

// methodNotAllowed is notFound for methods: the handler only reads.
func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if next != nil {
		passOn(w, r, next)
		return
	}
	w.Header().Set("Allow", "GET, HEAD")
	if h.opts.MethodNotAllowed != nil {
		dropSuccessHeaders(w.Header())
		h.opts.MethodNotAllowed.ServeHTTP(w, r)
		return
	}
	h.serveError(w, http.StatusMethodNotAllowed)
}

// serveEntry answers for one regular file: validators, preconditions,
// ranges, then the transfer. outerEncoded: an outer handler set
// Content-Encoding and encodes what jaws writes; zeroCopy: the request may
// take the zero-copy path (zeroCopyCandidate), if its response is large
// enough.
func (h *Handler) serveEntry(w http.ResponseWriter, r *http.Request, t *target, outerEncoded, zeroCopy bool) {
	e := t.e
	hdr := w.Header()
	mod, lastMod := e.info.ModTime(), e.hdrLastModified
	if e.mtimeAhead {
		// RFC 9110 §8.8.2.1: a Last-Modified later than Date must be
		// replaced by Date. The dates of preconditions still compare with
		// the file's own, which is later than any date this server sent:
		// If-Modified-Since never gets a 304 for a file changed since (a
		// touch to an hour ahead, as net/http's TestDirectoryIfNotModified
		// does), and If-Range by date never matches.
		if now := time.Now(); mod.After(now) {
			lastMod = []string{now.UTC().Format(http.TimeFormat)}
		}
	}
	if lastMod != nil {
		hdr["Last-Modified"] = lastMod
	}
	// An ETag set by an outer handler is the one preconditions compare
	// with, as in http.ServeContent: how an application pins validators
	// to a release.
	etag := keepOuter(hdr, "Etag", e.hdrETag)
	status, useRange := evalPreconditions(r.Method, r.Header, etag, mod)
	switch status {
	case http.StatusNotModified:
		writeNotModified(w)
		return
	case http.StatusPreconditionFailed:
		// Not the file: an outer policy for it (a year of immutable
		// caching) must not stick to the refusal.
		delete(hdr, "Cache-Control")
		w.WriteHeader(status)
		return
	}

	// A Content-Type set by an outer handler wins, as in http.ServeContent.
	ctype := keepOuter(hdr, "Content-Type", e.hdrCtype)
	size := e.size()
	rangeHdr := ""
	if useRange {
		rangeHdr = first(r.Header, "Range")
	}
	maxRanges := h.opts.MaxRanges
	switch {
	case e.body == nil && !e.seekable:
		maxRanges = -1 // a file that can only be read from its start: all of it
	case e.coding != identity && maxRanges > 1:
		// Content-Encoding would label the whole multipart/byteranges
		// body, which is not encoded; clients fail to decode it. One range
		// of the encoded bytes is fine; several get the whole variant
		// (RFC 9110 §14.2 lets a server ignore a Range).
		maxRanges = 1
	}
	resp := planResponse(rangeHdr, size, ctype, maxRanges)
	if resp.status == http.StatusRequestedRangeNotSatisfiable {
		hdr.Set("Content-Range", unsatisfiedRange(size))
		h.serveErrorText(w, resp.status, resp.reason)
		return
	}
	hdr["Accept-Ranges"] = hdrAcceptRanges
	switch {
	case resp.mp != nil:
		hdr.Set("Content-Type", resp.mp.contentType)
	case resp.status == http.StatusPartialContent:
		hdr.Set("Content-Range", resp.part.contentRange(size))
	}
	if e.hdrEncoding != nil {
		hdr["Content-Encoding"] = e.hdrEncoding
	}
	if e.hdrDigest != nil {
		hdr["Repr-Digest"] = e.hdrDigest
	}
	// As in http.ServeContent: an outer handler that set Content-Encoding is
	// transforming the body, so its length is unknown unless this is a range.
	switch {
	case resp.status == http.StatusPartialContent:
		hdr.Set("Content-Length", strconv.FormatInt(resp.length, 10))
	case !outerEncoded:
		hdr["Content-Length"] = e.hdrLength
	}
	resp.transformed = outerEncoded
	if e.coding != identity {
		h.variants.encoded.Add(1)
	}
	if e.body == nil && r.Method != http.MethodHead {
		// The descriptor the transfer reads: the shared one for zero-copy,
		// else one of the request's own, where net/http can use sendfile.
		resp.zeroCopy = zeroCopy && !resp.transformed && h.zeroCopySize(resp.length)
		if err := h.store.acquire(t, resp.zeroCopy); err != nil {
			h.fail(w, err)
			return
		}
	}
	h.send(w, r, t, &resp)
}

// serveDir answers for a directory without an index page.
func (h *Handler) serveDir(w http.ResponseWriter, r *http.Request, dir fs.File) {
	info, err := dir.Stat()
	if err != nil {
		h.fail(w, err)
		return
	}
	modtime := info.ModTime()
	if checkIfModifiedSince(r.Header, modtime) == condFalse {
		writeNotModified(w)
		return
	}
	rd, ok := dir.(fs.ReadDirFile)
	if !ok {
		h.notFound(w, r, nil)
		return
	}
	entries, err := rd.ReadDir(-1)
	if err != nil {
		h.fail(w, err)
		return
	}
	if !isZeroTime(modtime) {
		w.Header().Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	body := dirListing(entries, h.opts.ServeDotFiles)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// keepOuter returns the value an outer handler set for key (a canonical
// key), or sets the entry's own shared values and returns the first.
func keepOuter(hdr http.Header, key string, own []string) string {
	v, ok := hdr[key]
	if !ok {
		if own == nil {
			return ""
		}
		hdr[key] = own
		v = own
	}
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// writeNotModified sends a 304 without representation metadata other than
// the validators (RFC 9110 §15.4.5); Last-Modified goes when an ETag is there.
func writeNotModified(w http.ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Type")
	delete(h, "Content-Length")
	delete(h, "Content-Encoding")
	if h.Get("Etag") != "" {
		delete(h, "Last-Modified")
	}
	w.WriteHeader(http.StatusNotModified)
}

// localRedirect redirects with a relative Location, as http.FileServer does,
// so it stays right under http.StripPrefix and any mount point. Unlike
// http.FileServer it percent-encodes the name: Location is a URI reference
// (RFC 9110 §10.2.2), and a directory named "c#d" or "100%" must not turn
// into a fragment or an unparsable URL. url.URL also guards a first segment
// with a colon ("a:b/"), which would otherwise read as a scheme.
func localRedirect(w http.ResponseWriter, r *http.Request, loc string) {
	loc = (&url.URL{Path: loc}).String()
	if q := r.URL.RawQuery; q != "" {
		loc += "?" + q
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
}

// fail answers for err with a status that reveals nothing of the file system
// and logs what the client does not see. A 503 (out of descriptors, a file
// changing under the request, a closed handler) asks the client to retry in
// a second (RFC 9110 §10.2.3).
func (h *Handler) fail(w http.ResponseWriter, err error) {
	code := errorStatus(err)
	switch code {
	case http.StatusInternalServerError:
		h.opts.ErrorLog.Printf("jaws: %v", err)
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	}
	h.serveError(w, code)
}

// dropSuccessHeaders removes what outer handlers set for a successful
// response (a year of "immutable" caching for a fingerprinted name, say)
// before an error page goes out, as net/http does since Go 1.23.
func dropSuccessHeaders(hdr http.Header) {
	for _, k := range []string{"Cache-Control", "Content-Encoding", "Etag", "Last-Modified"} {
		delete(hdr, k)
	}
}

// serveError writes a plain-text error, dropping the validators and caching
// headers meant for a successful response, as net/http does since Go 1.23.
func (h *Handler) serveError(w http.ResponseWriter, code int) {
	text := strconv.Itoa(code) + " " + http.StatusText(code)
	if code == http.StatusNotFound {
		text = "404 page not found" // http.FileServer's wording
	}
	h.serveErrorText(w, code, text)
}

// serveErrorText is serveError with the body's text given.
func (h *Handler) serveErrorText(w http.ResponseWriter, code int, text string) {
	dropSuccessHeaders(w.Header())
	http.Error(w, text, code)
}
