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
// FIFOs and devices are 404; ETags are strong and derived from the content,
// so replicas agree; preconditions follow RFC 9110 §13.2.2; Range requests are
// bounded against amplification.
package jaws
