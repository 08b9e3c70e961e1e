// Package middleware fits a jaws.Handler into the routers and middleware
// stacks applications already have: chi, http.ServeMux or anything else that
// composes http.Handler values.
//
// Each piece has the shape chi's middleware has, func(http.Handler)
// http.Handler, or is a plain http.Handler for a router to mount:
//
//   - Static serves the GET and HEAD requests that name a file and passes
//     everything else to the next handler untouched.
//   - Mount serves a Handler's files under a path prefix ("/assets/"),
//     redirects included, for chi's Mount and Route and for ServeMux
//     patterns.
//   - SPA serves a single-page application: files as they are, and the index
//     page for client-side routes, while missing assets stay 404.
//   - CacheControl sets Cache-Control by rules on the path: immutable for
//     fingerprinted names, no-cache for HTML, or rules of your own.
//
// A jaws.Handler decides on its own what it serves with a single lookup, so
// none of these costs a second stat on a hit. Custom 404 and 405 pages are
// jaws.Options.NotFound and jaws.Options.MethodNotAllowed, which Mount and
// SPA answer with.
//
// Routers match paths as the client wrote them, and chi matches the raw,
// still-encoded path, while a file server cleans the path it is given:
// "/public/..%2fprivate/key" is routed under /public but names
// /private/key. So Mount and SPA answer a path that is not in canonical form
// (with ".", ".." or empty segments, or an escape of a character a path may
// hold as it is, such as "%2F", "%61" or "%2B") with a redirect to its
// canonical form, where the router's rules, authentication included, apply;
// Static passes it to the next handler. A jaws.Handler alone answers such a
// path with a 404, by the same rule.
package middleware
