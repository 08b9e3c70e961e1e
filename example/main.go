// Command example serves a directory with the jaws handler behind a chi
// router:
//
//	go run ./example                      # the built-in demo site on http://127.0.0.1:8080/
//	go run ./example -root ./public -addr :8000
//
// Every path is answered by jaws except /debug/jaws, which returns the
// handler's counters (jaws.Stats) as JSON. SIGINT or SIGTERM shuts the server
// down gracefully.
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/jaws-go/jaws"
)

// site is the demo site served when no -root is given.
//
//go:embed site
var site embed.FS

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
	root := flags.String("root", "", "directory to serve (default: the built-in demo site)")
	addr := flags.String("addr", defaultAddr, "`host:port` to listen on; port 0 picks a free port")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", flags.Args())
	}

	dir := *root
	if dir == "" {
		// jaws.New serves a real directory (it resolves names through
		// os.Root), so the embedded site is copied out for the run.
		tmp, err := copySite()
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}

	h, err := jaws.New(dir, jaws.Options{ErrorLog: log.New(stderr, "", log.LstdFlags)})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errors.Join(err, h.Close())
	}
	srv := &http.Server{
		Handler:           newRouter(h),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(stderr, "", log.LstdFlags),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "jaws example serving %s on %s\n", dir, serveURL(ln.Addr()))

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
	return errors.Join(err, h.Close())
}

// newRouter routes /debug/jaws to the counters and every other path to h.
func newRouter(h *jaws.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Get("/debug/jaws", statsHandler(h))
	r.Handle("/*", h)
	return r
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

// copySite copies the embedded demo site to a new temporary directory and
// returns its name; the caller removes it.
func copySite() (string, error) {
	sub, err := fs.Sub(site, "site")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "jaws-example-")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(dir, sub); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
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
