package jaws

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jaws-go/jaws/internal/httprule"
	"github.com/jaws-go/jaws/internal/source"
)

// Handler serves the files under one directory, or of one fs.FS. Create it
// with New or NewFS; it is safe for concurrent use.
type Handler struct {
	opts     Options
	store    *store       // files: source, cache, freshness, descriptors
	variants *variants    // content codings, above the store
	header   *fileHeaders // Options.Header; nil for none
	stats    stats
	tx       mover                   // the transfer paths
	lanes    atomic.Pointer[[]*lane] // the fast lanes serving (fastlane.go); nil for none
	laneMu   sync.Mutex
	retired  map[*lane]struct{} // fast lanes closed with connections left
	down     atomic.Bool        // Close has begun
	closed   sync.Once
	closeErr error
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
	return newHandler(opts, func(sw *source.Sweeper) (source.Source, error) {
		return source.OpenDir(root, opts.Revalidate == 0, sw)
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
	return newHandler(opts, func(*source.Sweeper) (source.Source, error) { return source.NewFS(fsys), nil })
}

// newHandler makes a Handler of the source open returns; open is handed the
// sweeper that the source and the store share (a source of OpenDir adds its
// job to it, the store its own).
func newHandler(opts Options, open func(*source.Sweeper) (source.Source, error)) (*Handler, error) {
	opts = opts.withDefaults()
	codings, err := parseEncodings(opts.Compression.Encodings)
	if err != nil {
		return nil, err
	}
	if lv := opts.Compression.Level; lv < LevelDefault || lv > LevelBest {
		return nil, fmt.Errorf("jaws: unknown compression level %d", lv)
	}
	if _, err := parseVersionedNames(opts.Compression.VersionedNames); err != nil {
		return nil, err
	}
	if opts.ContentTypes, err = parseContentTypes(opts.ContentTypes); err != nil {
		return nil, err
	}
	c, err := newCache(opts.CacheMaxBytes, int64(opts.CacheMaxFiles), opts.Revalidate)
	if err != nil {
		return nil, err
	}
	sw := new(source.Sweeper)
	src, err := open(sw)
	if err != nil {
		c.close()
		return nil, err
	}
	h := &Handler{opts: opts, tx: mover{never: opts.Transfer == TransferFallback,
		always: opts.Transfer == TransferZeroCopy, minSize: opts.ZeroCopyMinSize,
		timeout: opts.SendTimeout, chunk: opts.SendChunk}, header: newFileHeaders(opts.Header, opts.ErrorLog)}
	sharedMin := opts.ZeroCopyMinSize
	if opts.Transfer == TransferZeroCopy {
		sharedMin = 0
	}
	h.store = newStore(src, c, memoryMax(opts), sharedMin, opts.ErrorLog, sw, h.describe)
	h.variants = newVariants(h.store, opts.Compression, codings, opts.ContentTypes, opts.ErrorLog)
	if h.header != nil {
		h.variants.fields = h.header.of
	}
	return h, nil
}

// describe completes a new entry of the file name, whose first bytes are
// head, for the layers above the store: its HTTP representation, the fields
// Options.Header gives it, and the codings it can be served in. It fails
// only when the hook panics (errHook).
func (h *Handler) describe(e *entry, name string, head []byte) error {
	represent(e, head, h.opts.ContentTypes)
	if h.header != nil {
		// The hook is given the file's own name under the root: e.File,
		// an index page's too. An entry whose file is not the name it is
		// served as passes that name here.
		var err error
		if e.rep.fields, err = h.header.of(e.File); err != nil {
			return err
		}
	}
	h.variants.describe(e, name)
	return nil
}

// Shutdown ends the handler gracefully: it waits until the zero-copy
// transfers in flight are done, and the fast lanes' connections
// (FastLane) have finished their response, or ctx ends, when it ends those
// still running and returns ctx's error; then it releases what Close
// releases. New requests take the fallback while it waits, and the lanes
// hand every new connection to their server.
//
// Call it after http.Server.Shutdown, which waits for the requests net/http
// tracks but not for the zero-copy transfers, whose connections jaws has
// taken over; it does tell jaws to close the connections it holds idle:
//
//	err := srv.Shutdown(ctx)
//	err = errors.Join(err, h.Shutdown(ctx))
func (h *Handler) Shutdown(ctx context.Context) error {
	var err error
	lanesDone := h.endLanes(true, ctx.Done())
	if !h.tx.transfers.wait(ctx.Done()) {
		h.tx.transfers.cancel()
		err = ctx.Err()
	} else if !lanesDone {
		err = ctx.Err()
	}
	return errors.Join(err, h.Close())
}

// Close ends the zero-copy transfers in flight and the fast lanes'
// connections, and releases the root directory, the cache and its
// descriptors. Requests that arrive afterwards
// get 503 Service Unavailable. Calls after the first (or after Shutdown)
// do nothing and return the first one's result.
func (h *Handler) Close() error {
	h.closed.Do(func() {
		h.down.Store(true)
		h.endLanes(false, nil)
		h.tx.transfers.cancel()
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
	// The recorded case in a function of its own, so that a handler
	// without records has no deferred call in its frames (stack_test.go).
	if h.recording() {
		h.serveNextRecorded(w, r, next)
		return
	}
	h.serveNext(w, r, next)
}

// serveNextRecorded is ServeNext for a handler that records its responses.
func (h *Handler) serveNextRecorded(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rec := h.startRecord(w)
	defer h.finishRecord(rec, r, time.Now())
	h.serveNext(rec, r, next)
}

func (h *Handler) serveNext(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !h.admit(w, r, next) {
		return
	}
	name, ok := cleanName(r.URL.Path, h.opts.ServeDotFiles)
	// A raw path a router in front reads otherwise than its decoded name
	// ("/priv%61te/a", "/private%2Fa", "/a%2Bb", "/caf%c3%a9") is not
	// served: the rule middleware applies too (httprule.NeedlessEscape).
	if !ok || httprule.NeedlessEscape(r.URL.RawPath) {
		h.notFound(w, r, next)
		return
	}
	if isIndexRequest(r.URL.Path) {
		localRedirect(w, r, "./")
		return
	}
	if lanes := h.lanes.Load(); lanes != nil {
		h.serveLearning(w, r, next, name, *lanes)
		return
	}
	h.tx.finish(w, h.serveName(w, r, next, name, true, nil))
}

// ServeFile serves the file name, relative to the root whatever r.URL.Path
// says, as ServeHTTP serves a request for it: methods, preconditions,
// ranges, compression, the transfer paths, the 404 of Options.NotFound for
// a missing, hidden, escaping or special file. It is http.ServeFile for an
// application's own routes: a download behind an authorization check, a
// favicon from elsewhere in the tree.
//
// name is slash-separated, with or without a leading slash. A directory is
// served by its index.html. With Options.CleanURLs, a name that names
// nothing ("docs/guide") is served by its ".html" file.
//
// Unlike http.ServeFile it redirects nothing, since name is not the URL.
// It cleans nothing either. A name with a "." or ".." element or an empty
// one ("./a", "a/../b", "a//b") gets the 404, as a request for it would, so
// that a name built from a request's parts cannot climb out of the
// directory an application meant. Clean it with path.Clean first to serve
// what it cleans to.
func (h *Handler) ServeFile(w http.ResponseWriter, r *http.Request, name string) {
	if h.recording() {
		rec := h.startRecord(w)
		defer h.finishRecord(rec, r, time.Now())
		w = rec
	}
	if !h.admit(w, r, nil) {
		return
	}
	clean, ok := cleanName(name, h.opts.ServeDotFiles)
	if !ok {
		h.notFound(w, r, nil)
		return
	}
	h.tx.finish(w, h.serveName(w, r, nil, clean, false, nil))
}

// admit counts r and answers it when its method is not one the handler
// serves (GET, HEAD), reporting whether r goes on.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
	h.stats.requests.Add(1)
	if h.down.Load() {
		// Closed: an fs.FS source, an embed.FS above all, would serve on.
		h.fail(w, os.ErrClosed)
		return false
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	h.methodNotAllowed(w, r, next)
	return false
}
