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
// The handler behaves like http.FileServer where the standard library is
// right (ranges, conditional requests, HEAD, index.html, redirects, MIME
// types) and is stricter where it is not: only GET and HEAD are served; names
// resolve through os.Root, so nothing outside the root is ever read; dotfiles,
// FIFOs and devices are 404; ETags are strong; preconditions follow RFC 9110
// §13.2.2; Range requests are bounded against amplification.
//
// Validators: a file served from memory has its content's ETag (the first
// 128 bits of its SHA-256), so replicas agree whatever their mtimes. A larger
// file is never read before its first byte goes out, so a request reads no
// more of it than it sends: its ETag is built from its size and its mtime in
// nanoseconds, which cp -p, rsync -t, tar and container layers preserve, so
// replicas holding the same copy agree. It misses one change: other bytes of
// the same size with the mtime restored. A digest sibling
// ("video.mp4.sha256", sha256sum's output, not older than the file) gives
// such a file its content ETag after all, and a Repr-Digest field (RFC 9530).
//
// Compression is built in and on by default (Options.Compression). A client
// that accepts a coding (Accept-Encoding, q-values honoured; ties go to br,
// then zstd, then gzip) gets a precompressed sibling when one sits next to
// the file ("app.js.br", "app.js.zst", "app.js.gz", not older than
// "app.js"), and otherwise, for compressible types of 1 KiB to 1 MiB, the
// file compressed on the first request for that coding and kept in the
// cache, so later requests cost no compression. Each variant has its own
// strong ETag and Content-Length, ranges count its encoded bytes, and every
// response for such a file carries "Vary: Accept-Encoding". Large siblings
// still go zero-copy. Behind an outer compressor (gzhttp, chi's Compress),
// jaws's encoded answers pass through untouched; in front of jaws, no
// compressor is needed.
package jaws
