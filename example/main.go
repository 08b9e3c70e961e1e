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
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jaws-go/jaws"
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
	root := flags.String("root", "", "directory to serve at / as the site, such as a bundler's dist/ (default: "+demoSite+")")
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
