// Package jaws serves static files over net/http, fast, and more safely than
// http.FileServer.
//
// It follows the JAWS adaptive web server (Hu, Pyarali and Schmidt). Once
// disk I/O is off the critical path, speed depends on how bytes are moved.
// No single way wins for every file, so the handler chooses per request:
// small files from memory, large ones by the kernel's zero-copy transfer,
// and everything else through a portable path that works with any
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
// New serves a directory. NewFS serves any fs.FS, and an embed.FS straight
// from the program's bytes. The zero Options are the defaults. Each field
// says its unit, its default and when to change it. Beyond ServeHTTP:
//
//   - Package github.com/jaws-go/jaws/middleware fits a Handler into
//     routers (chi, http.ServeMux): Static, Mount, SPA and CacheControl.
//   - Handler.ServeFile serves one file from an application's own route.
//   - Handler.HashName gives templates content-hashed names.
//   - Options.Header gives files response fields of their own.
//   - Options.AccessLog and Options.OnResponse log and count every
//     response.
//   - Handler.Shutdown, called after http.Server.Shutdown, ends the handler
//     gracefully.
//   - Handler.FastLane answers requests for public files beside net/http,
//     without its per-request work: srv.Serve(h.FastLane(ln, srv, "/static/")).
//
// # Transfer paths
//
// The body of each 200 or 206 response takes one of four paths.
// Handler.Stats counts them, and ResponseRecord.Transfer names them:
//
//   - memory: a file of at most Options.CacheMaxFileSize bytes (64 KiB by
//     default) is kept in the cache with its header values, and so is a
//     compressed variant. A hit opens no file, sniffs and hashes nothing,
//     and writes the body in one write. An embedded file (NewFS of an
//     embed.FS) is served from the program's own bytes this way, whatever
//     its size.
//   - zerocopy: a response from disk of at least Options.ZeroCopyMinSize
//     bytes (512 KiB by default), to a GET on a plain HTTP/1.x connection
//     that stays open, through net/http's own ResponseWriter. jaws hijacks
//     the connection and sends header and body with sendfile (Linux) or
//     TransmitFile (Windows), from one descriptor that every transfer of
//     the file shares. Then it hands the connection back to the same
//     http.Server.
//   - fallback: everything else (TLS, HTTP/2, a wrapping ResponseWriter,
//     files between the two sizes, other systems). The body goes by
//     io.Copy through the ResponseWriter, where net/http itself uses
//     sendfile on plain TCP.
//   - lane: a request that Handler.FastLane read and answered itself,
//     beside net/http. The body goes from memory, or from disk by sendfile
//     whatever its size.
//
// The zero-copy path is taken only where it sends what net/http would,
// and it keeps or closes the connection as net/http would. The
// repository's docs/zerocopy.md says when it is taken, and what differs in
// the server's hooks (ConnState, ConnContext).
//
// # Differences from http.FileServer
//
// The handler behaves like http.FileServer where the standard library is
// right: index.html for directories, canonical redirects, ranges,
// conditional requests, HEAD, and the "404 page not found" body. It is stricter where the standard library is
// not. The repository's README.md, "How it differs from http.FileServer",
// lists how.
//
// Errors reveal nothing of the file system:
//
//   - a permission error is 403;
//   - an I/O error (EIO, ENOMEM) is 500, logged to Options.ErrorLog;
//   - running out of descriptors (EMFILE, ENFILE) is a fast 503 with
//     Retry-After, while cache hits go on;
//   - everything else that cannot be served (escapes, loops, special files,
//     bad names) looks like a missing file: 404.
//
// # Validators and freshness
//
// A file gets a strong ETag: its content's for a file served from memory,
// and one made from its size and mtime, which costs no read, for a larger
// one. A larger file with no mtime (an fs.FS such as fstest.MapFS) gets
// none. A request that starts after a change to a file completed
// sees it. On Linux, file system events vouch for a cached file
// where they can, at the cost of one non-blocking epoll_wait per request.
// Elsewhere one stat per request does, and Options.Revalidate trades it
// for a window. The root is the path, as with http.Dir, followed when a
// deploy swaps it. The repository's docs/freshness.md has the details.
//
// # Compression
//
// Compression is built in and on by default (Options.Compression). A
// client that accepts a coding gets a precompressed sibling ("app.js.br",
// "app.js.zst", "app.js.gz") when one sits next to the file. Otherwise a
// compressible file is compressed on the first request for that coding,
// and the cache keeps the result. In front of jaws, no compressor is
// needed. Behind other middleware, jaws keeps the bytes matching their
// Content-Encoding: correct bytes win over compression.
//
// Versioned assets (hashed names kept a day or more) are offered as
// compression dictionaries (RFC 9842). After a deploy, a browser that holds
// the previous build of a bundle gets the new one compressed against it
// (dcz). Compression.DisableDictionaries turns this off.
//
// The repository's docs/compression.md has the rules, the trade-offs, and
// what each middleware stack gets.
package jaws
