// Package jaws serves static files over net/http, fast, and more safely than
// http.FileServer.
//
// It follows the JAWS adaptive web server (Hu, Pyarali and Schmidt): once disk
// I/O is off the critical path, speed depends on how bytes are moved, and no
// single way wins for every file, so the handler chooses per request. Small
// files are served from memory, large ones with the kernel's zero-copy
// transfer, and everything else through a portable path that works with any
// ResponseWriter.
//
// Usage:
//
//	h, err := jaws.New("./public", jaws.Options{})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer h.Close()
//	http.Handle("/", h)
//	http.Handle("/static/", http.StripPrefix("/static", h))
//
// New serves a directory; NewFS serves any fs.FS, an embed.FS straight from
// the program's bytes. The zero Options are the defaults, and each field
// says its unit, its default and when to change it. Package
// github.com/jaws-go/jaws/middleware fits a Handler into routers (chi,
// http.ServeMux): Static, Mount, SPA and CacheControl. Handler.ServeFile
// serves one file from an application's own route, Handler.HashName gives
// templates content-hashed names, Options.Header gives files response
// fields of their own, Options.AccessLog and Options.OnResponse log and
// count every response, and Handler.Shutdown, called after
// http.Server.Shutdown, ends the handler gracefully. Handler.FastLane
// answers requests for public files beside net/http, without its
// per-request work: srv.Serve(h.FastLane(ln, srv, "/static/")).
//
// # Transfer paths
//
// The body of each 200 or 206 response takes one of four paths, counted by
// Handler.Stats and named in ResponseRecord.Transfer:
//
//   - memory: a file of at most Options.CacheMaxFileSize bytes (64 KiB by
//     default) is kept in the cache with its header values, and so is a
//     compressed variant; a hit opens no file, sniffs and hashes nothing,
//     and writes the body in one write. An embedded file (NewFS of an
//     embed.FS) is served from the program's own bytes this way, whatever
//     its size.
//   - zerocopy: a response from disk of at least Options.ZeroCopyMinSize
//     bytes (512 KiB by default), to a GET on a plain HTTP/1.x connection
//     that stays open, answered through net/http's own ResponseWriter: jaws
//     hijacks the connection, sends header and body with sendfile (Linux) or
//     TransmitFile (Windows) from one descriptor every transfer of the file
//     shares, and hands the connection back to the same http.Server.
//   - fallback: everything else (TLS, HTTP/2, a wrapping ResponseWriter,
//     files between the two sizes, other systems): io.Copy through the
//     ResponseWriter, where net/http itself uses sendfile on plain TCP.
//   - lane: a request Handler.FastLane read and answered itself, beside
//     net/http: from memory, or from disk by sendfile whatever the size.
//
// The zero-copy path is taken only where it sends what net/http would, and
// it keeps or closes the connection as net/http would. What differs in the
// server's hooks (ConnState, ConnContext) is listed in the repository's
// docs/zerocopy.md.
//
// # Differences from http.FileServer
//
// The handler behaves like http.FileServer where the standard library is
// right (index.html for directories, canonical redirects, Content-Type from
// the extension or sniffed, ranges, conditional requests, HEAD, the "404
// page not found" body) and is stricter where it is not: an extension's type
// comes from jaws's own table of the web's types before the host's, so it is
// the same on every host (Options.ContentTypes); only GET and HEAD are
// served (405 otherwise); names resolve through os.Root, so nothing
// outside the root is ever read, and symlinks are followed only while they
// stay inside it; dotfiles are 404 (except /.well-known/), as are FIFOs,
// devices and directories without index.html; ETags are strong;
// preconditions follow RFC 9110 §13.2.2; Range requests follow RFC 9110 §14
// and are bounded against amplification (Options.MaxRanges); redirect
// targets are percent-encoded. Errors reveal nothing of the file system: a
// permission error is 403, I/O errors (EIO, ENOMEM) are 500 and logged to
// Options.ErrorLog, running out of descriptors (EMFILE, ENFILE) is a fast
// 503 with Retry-After while cache hits go on, and everything else that
// cannot be served (escapes, loops, special files, bad names) looks like a
// missing file: 404.
//
// # Validators and freshness
//
// A file served from memory has its content's ETag (the first 128 bits of
// its SHA-256), so replicas agree whatever their mtimes. A larger file is
// never read before its first byte goes out, so a request reads no more of
// it than it sends: its ETag is built from its size and its mtime in
// nanoseconds, which cp -p, rsync -t, tar and container layers preserve,
// so replicas holding the same copy agree. It misses other bytes of the
// same size with the mtime restored, and two writes of the same size within
// one tick of the file system's clock. A digest sibling
// ("video.mp4.sha256", sha256sum's output, not older than the file) gives
// such a file its content ETag after all, and a Repr-Digest field (RFC 9530).
//
// Never stale: a request that starts after a change to a file completed sees
// it. A cached file is confirmed unchanged before it is served: on Linux, by
// file system events where they can vouch for it, at the cost of one
// non-blocking epoll_wait per request; elsewhere by one stat per request
// (Options.Revalidate trades this for a window). The root is the path, as
// with http.Dir, followed when a deploy swaps it. The repository's
// docs/freshness.md has the details.
//
// # Compression
//
// Compression is built in and on by default (Options.Compression). A client
// that accepts a coding (Accept-Encoding, q-values honoured; ties go to br,
// then zstd, then gzip) gets a precompressed sibling when one sits next to
// the file ("app.js.br", "app.js.zst", "app.js.gz", not older than "app.js"
// and checked to hold its bytes), and otherwise, for compressible types of
// 1 KiB to 1 MiB, the file compressed on the first request for that coding
// and kept in the cache, so later requests cost no compression. Each
// variant has its own strong ETag and Content-Length, a range is always a
// range of the file itself, and every response for such a file carries
// "Vary: Accept-Encoding". Large siblings
// still go zero-copy. In front of jaws, no compressor is needed. Behind
// other middleware, who encodes a text file a browser asks for:
//
//   - jaws, behind routers and instrumentation that encode nothing
//     (http.ServeMux, chi and its Logger, gin, echo, gorilla/mux, otelhttp,
//     promhttp's InstrumentHandler*), and behind compressors that pass an
//     encoded body through (chi's middleware.Compress, gzhttp, NYTimes
//     gziphandler);
//   - the compressor in front, jaws writing the file as it is, behind one
//     that sets Content-Encoding before jaws runs (gorilla's
//     handlers.CompressHandler, gin-contrib/gzip), and behind one that has
//     set "Vary: Accept-Encoding" on a writer it wraps (echo's
//     middleware.Gzip, which replaces any Content-Encoding it finds), unless
//     that Vary is accounted for by a compressor jaws knows to pass its
//     coding through (gzhttp, gziphandler, found by Unwrap);
//   - nobody: the file as it is, where such a Vary comes from the
//     application itself behind a wrapper. Correct bytes win over
//     compression.
//
// The rule, its false positives and the trade-offs are in the repository's
// docs/compression.md.
//
// Versioned assets (hashed names kept a day or more) are offered as
// compression dictionaries (RFC 9842): after a deploy, a browser that holds
// the previous build of a bundle gets the new one compressed against it
// (dcz), often a few hundred bytes for what brotli sends in tens of KiB;
// see Compression.DisableDictionaries. The trade-offs are in the
// repository's docs/compression.md.
package jaws
