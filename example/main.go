// Command example is a small, realistic application with the jaws handler
// behind a chi router:
//
//	go run ./example                      # the built-in demo site on http://127.0.0.1:8080/
//	go run ./example -root dist -addr :8000 -log   # a bundler's build (vite build writes dist/)
//	go run ./example -fastlane            # the site's files on jaws's fast lane (Handler.FastLane)
//	go run -tags compressedonly ./example # a real Vite build instead of the demo, shipped compressed-only
//
// The routes:
//
//	/api/time, /api/files   the application's JSON API
//	/debug/jaws             the handler's counters (jaws.Stats) as JSON
//	/...                    the site, as a single-page app (middleware.SPA):
//	                        files as they are, index.html for client routes
//	                        such as /about, 404 for missing assets
//
// The site is laid out as a bundler's output (Vite's dist/, say): pages at
// the top, assets under assets/, linked as /assets/NAME. It is served at /
// and nowhere else, so -root dist serves such a build unchanged. The demo
// site is served straight from the binary (jaws.NewFS of its embed.FS); a
// -root directory through os.Root (jaws.New). Built with -tags
// compressedonly, the binary holds a real build instead of the demo: the
// Vite app of vite/, whose text files are in site-compressed/ only as
// .br, .zst and .gz files (site_compressedonly.go).
//
// The site's route sets Cache-Control by the default rules (immutable for
// fingerprinted names such as app.555a5fb1.js or Vite's index-CCxGxcHe.js,
// no-cache for HTML) and reaches jaws with no compressor in between: jaws
// negotiates Accept-Encoding itself, serves precompressed siblings (the
// demo ships assets/app.*.js.br) and compresses other text once, while
// large files of a -root directory keep the zero-copy path. The demo keeps
// its script's previous build beside the current one, as deploys keep
// them: a browser that loaded it (docs/previous.html does) gets the current
// build as the difference from it, a compression dictionary (RFC 9842). Only the API's
// JSON goes through a compressing wrapper. The 404 page is a template that
// links the stylesheet by the name Handler.HashName gives it, so that it too
// is cached as immutable. SIGINT or SIGTERM shuts the server down
// gracefully.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/klauspost/compress/gzhttp"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/sitefiles"
	jawsmw "github.com/jaws-go/jaws/middleware"
)

const (
	defaultAddr     = "127.0.0.1:8080"
	shutdownTimeout = 10 * time.Second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "jaws example:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx is done and then shuts down: the
// http.Server first (in-flight requests finish), then the jaws handler. It
// writes the URL it serves on to stdout once it is listening, and logs to
// stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("example", flag.ContinueOnError)
	flags.SetOutput(stderr)
	root := flags.String("root", "", "directory to serve at / as the site, such as a bundler's dist/ (default: the built-in demo site)")
	addr := flags.String("addr", defaultAddr, "`host:port` to listen on; port 0 picks a free port")
	logRequests := flags.Bool("log", false, "log every request to stderr")
	fastLane := flags.Bool("fastlane", false, "answer requests for the site's files on jaws's fast lane, beside net/http (jaws.Handler.FastLane)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", flags.Args())
	}

	// With -log, jaws logs the site's requests itself (Options.AccessLog)
	// and chi's logger the API's: a logging middleware in front of jaws
	// would take the zero-copy path from large files.
	var requestLog *log.Logger
	var accessLog *slog.Logger
	if *logRequests {
		requestLog = log.New(stderr, "", log.LstdFlags)
		accessLog = slog.New(slog.NewTextHandler(stderr, nil))
	}
	h, fsys, err := newHandler(*root, stderr, accessLog)
	if err != nil {
		return err
	}
	serving := cmp.Or(*root, demoSite)
	router, err := newRouter(h, fsys, requestLog)
	if err != nil {
		return errors.Join(err, h.Close())
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errors.Join(err, h.Close())
	}
	srv := &http.Server{
		Handler:           router,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(stderr, "", log.LstdFlags),
	}
	var served net.Listener = ln
	if *fastLane {
		// Every file of the site is public and the same for everyone,
		// the promise the lane's prefix makes. The API and the counters
		// share the prefix, but jaws never answers them, so the lane
		// never learns them: they always go to srv.
		served = h.FastLane(ln, srv, "/")
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(served) }()
	fmt.Fprintf(stdout, "jaws example serving %s on %s\n", serving, serveURL(ln.Addr()))

	select {
	case err := <-serveErr:
		// Serve failed before any shutdown.
		return errors.Join(err, h.Close())
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if err != nil {
		// Requests still running past the timeout are cut off.
		srv.Close()
	}
	if serr := <-serveErr; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	// Then the zero-copy transfers still running, which net/http no longer
	// tracks, get the rest of the time; the handler is closed after them.
	return errors.Join(err, h.Shutdown(shutdownCtx))
}

// newHandler returns the app's jaws handler, with the app's 404 page,
// errors logged to errorLog and, if not nil, its responses to accessLog,
// and the files it serves as an fs.FS, for
// /api/files. It serves the directory dir, or the demo site when dir is "".
func newHandler(dir string, errorLog io.Writer, accessLog *slog.Logger) (*jaws.Handler, fs.FS, error) {
	page, err := newNotFoundPage()
	if err != nil {
		return nil, nil, err
	}
	opts := jaws.Options{
		NotFound:  page,
		ErrorLog:  log.New(errorLog, "", log.LstdFlags),
		AccessLog: accessLog,
	}
	var h *jaws.Handler
	var fsys fs.FS
	if dir == "" {
		// The embedded files, served in place: no copy, and no lookup
		// once a file's entry is built, since they cannot change.
		fsys, err = fs.Sub(site, siteDir)
		if err == nil {
			h, err = jaws.NewFS(fsys, opts)
		}
	} else {
		// A directory through os.Root, so nothing outside it is served;
		// the listing walks it without following symlinks.
		fsys = os.DirFS(dir)
		h, err = jaws.New(dir, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	page.h = h
	return h, fsys, nil
}

// newRouter builds the application: its API, the counters, and the site,
// the files of fsys served by h at / as a single-page app. A non-nil
// requestLog gets a line per request to the API and the counters (the
// site's are h's, Options.AccessLog).
func newRouter(h *jaws.Handler, fsys fs.FS, requestLog *log.Logger) (http.Handler, error) {
	// The API's answers are made per request, so a streaming compressor
	// suits them. gzhttp rather than chi's middleware.Compress: it leaves
	// bodies under MinSize alone (/api/time is a few dozen bytes, and a
	// compressed answer would be larger), offers zstd as well as gzip with
	// proper q-value negotiation, and comes from klauspost/compress, which
	// jaws already depends on.
	gz, err := gzhttp.NewWrapper(gzhttp.MinSize(apiCompressMinSize))
	if err != nil {
		return nil, err
	}
	compressAPI := func(next http.Handler) http.Handler { return gz(next) }
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.NotFound(h.ServeHTTP)

	// The application's routes, logged by chi's logger when asked to.
	var app chi.Router = r
	if requestLog != nil {
		app = r.With(middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: requestLog, NoColor: true}))
	}
	app.Get("/debug/jaws", statsHandler(h))
	app.Route("/api", func(r chi.Router) {
		r.Use(middleware.SetHeader("Cache-Control", "no-store"), compressAPI)
		r.Get("/time", timeHandler)
		r.Get("/files", filesHandler(fsys))
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such API route"})
		})
	})

	// The site, at / only, as a bundler lays it out: /assets/NAME is the
	// file assets/NAME. Files first, in front of chi, so a file costs one
	// lookup and nothing of the router (chi copies each request it routes
	// into a context of its own); what the site has no file for goes on
	// to chi's routes. Cache policy, then jaws, with nothing in between
	// that touches the body. jaws compresses by itself (jaws.Options
	// Compression): a wrapping compressor here would compress again on
	// every request what jaws compresses once, hide its precompressed
	// siblings, and take the zero-copy path away from large files. A miss
	// that is a client route gets index.html; any other miss that no route
	// takes, the 404 page.
	return filesFirst(r, jawsmw.CacheControl(), jawsmw.SPA(h, jawsmw.SPAOptions{})), nil
}

// filesFirst serves every path but the application's own (/api/...,
// /debug/jaws) through the site's middleware, which passes what it has no
// file for on to app; the application's paths go straight to app: the
// site never answers for them, not even with index.html for a browser that
// navigates to one.
func filesFirst(app http.Handler, site ...func(http.Handler) http.Handler) http.Handler {
	served := chi.Chain(site...).Handler(app)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/debug/jaws" || p == "/api" || strings.HasPrefix(p, "/api/") {
			app.ServeHTTP(w, r)
			return
		}
		served.ServeHTTP(w, r)
	})
}

// apiCompressMinSize is the smallest API answer compressed, as jaws's own
// default Compression.MinSize: below about a packet, compression saves no
// round trip.
const apiCompressMinSize = 1 << 10

// notFoundPage is the handler's 404 page (jaws.Options.NotFound): HTML for
// browsers, and net/http's plain text for everything else. It is a
// server-rendered page, so it links assets by the names h.HashName gives
// them (see notFoundTemplate): they change with the content, and the site's
// cache rules serve them immutable. h is set once the handler exists.
type notFoundPage struct {
	h    *jaws.Handler
	tmpl *template.Template
}

// notFoundTemplate is the 404 page. {{asset "assets/style.css"}} is the
// URL path of the stylesheet's hashed name, such as
// /assets/style.0123456789abcdef.css; "" when the site has no such file (a
// -root directory of your own), and then the page goes without it.
const notFoundTemplate = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Not found · jaws demo</title>
{{with asset "assets/style.css"}}<link rel="stylesheet" href="{{.}}">
{{end}}<h1>404: not found</h1>
<p>Nothing here. <a href="/">Back to the start page</a>.</p>
</html>
`

func newNotFoundPage() (*notFoundPage, error) {
	p := &notFoundPage{}
	tmpl, err := template.New("404").Funcs(template.FuncMap{"asset": p.asset}).Parse(notFoundTemplate)
	if err != nil {
		return nil, err
	}
	p.tmpl = tmpl
	return p, nil
}

// asset returns the URL path of the hashed name of the site's file name,
// or "" if there is no such file.
func (p *notFoundPage) asset(name string) string {
	hashed, err := p.h.HashName(name)
	if err != nil {
		return ""
	}
	return "/" + hashed
}

func (p *notFoundPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Del("Cache-Control") // the policy was for a file
	if !strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.NotFound(w, r)
		return
	}
	var page bytes.Buffer
	if err := p.tmpl.Execute(&page, nil); err != nil {
		http.NotFound(w, r) // never: asset has no error to return
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	w.Write(page.Bytes())
}

// timeHandler answers with the server's time.
func timeHandler(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"time": time.Now().UTC().Format(time.RFC3339)})
}

// maxListed bounds /api/files, for a -root with many files.
const maxListed = 200

// fileInfo is one entry of /api/files.
type fileInfo struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	CacheControl string `json:"cacheControl"`
}

// filesHandler lists the regular files of fsys, the files the site serves
// (hidden ones left out, as jaws leaves them out), with the Cache-Control
// the default rules give each.
func filesHandler(fsys fs.FS) http.HandlerFunc {
	rules := jawsmw.DefaultCacheRules()
	return func(w http.ResponseWriter, r *http.Request) {
		list := []fileInfo{}
		err := sitefiles.Walk(fsys, func(name string, d fs.DirEntry) error {
			if len(list) == maxListed {
				return fs.SkipAll
			}
			info, err := d.Info()
			if err != nil {
				return nil // gone since the listing
			}
			fi := fileInfo{Name: name, Size: info.Size()}
			for _, rule := range rules {
				if rule.Match == nil || rule.Match("/"+name) {
					fi.CacheControl = rule.Value
					break
				}
			}
			list = append(list, fi)
			return nil
		})
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "listing failed"})
			return
		}
		writeJSON(w, http.StatusOK, list)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

// statsHandler answers with h.Stats() as indented JSON.
func statsHandler(h *jaws.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := json.MarshalIndent(h.Stats(), "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(append(body, '\n'))
	}
}

// serveURL is the URL a browser on this machine can use to reach a listener
// on addr: an unspecified host (":8080", "0.0.0.0:8080") becomes localhost.
func serveURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
