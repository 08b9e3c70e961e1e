// Command fasthttp serves a directory with fasthttp's FS, the fastest Go
// static file server jaws is compared with in the site benchmark (see
// bench/README.md):
//
//	fasthttp -root DIR -addr 127.0.0.1:0
//
// It is a module of its own (bench/fasthttp/go.mod), so that fasthttp
// never enters jaws's go.mod: build it from this directory, as
// bench/site.sh does.
//
// FS is set up as one would for a directory of static files, for speed:
// no compression (the benchmark's files are random bytes, and jaws's peers
// send them as they are), byte ranges and a weak ETag, so that it sends
// the validators and Accept-Ranges jaws sends, file handles kept for an
// hour instead of ten seconds, so that a run never reopens a file it
// served, and no index pages. The server's timeouts are the Go servers'
// of bench/peers.
//
// It prints the URL it serves on, as bench/peers does, and serves until
// SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

func main() {
	root := flag.String("root", ".", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:0", "`host:port` to listen on; port 0 picks a free port")
	flag.Parse()
	if err := run(*root, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "fasthttp:", err)
		os.Exit(1)
	}
}

func run(root, addr string) error {
	fs := &fasthttp.FS{
		Root:               root,
		Compress:           false,
		AcceptByteRange:    true,
		GenerateETag:       true,
		GenerateIndexPages: false,
		CacheDuration:      time.Hour,
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &fasthttp.Server{
		Handler: fs.NewRequestHandler(),
		// As bench/peers' ReadHeaderTimeout and IdleTimeout: fasthttp
		// reads a request's header and body under ReadTimeout.
		ReadTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute,
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		// Serve returns at once, and so does run: the process ends
		// without waiting for open connections, as bench/peers'
		// srv.Close.
		srv.Shutdown()
	}()
	// bench/lib.sh's wait_url takes the first URL printed; site.sh
	// takes the version for its meta file.
	fmt.Printf("fasthttp %s serving %s on http://%s/\n", version(), root, ln.Addr())
	return srv.Serve(ln)
}

// version is the fasthttp module this binary was built with.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/valyala/fasthttp" {
				return m.Version
			}
		}
	}
	return "(unknown version)"
}
