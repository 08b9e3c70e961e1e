// Package httprule holds the rules of HTTP and URL syntax that package jaws
// and its middleware both apply, so that the two cannot come to disagree:
// how tokens compare, whether a field's list holds a token, what a weight
// ("q=") is, which spellings of a URL path are canonical, which names carry
// a content hash and where (Fingerprint), the Cache-Control of a name that
// changes with its content and whether a Cache-Control keeps a response long
// (LongLived). Each rule is a small pure function; the comments cite the
// RFC it reads.
package httprule

// Immutable is the Cache-Control value of a response whose URL changes
// whenever its content does (a fingerprinted name): any cache may keep it
// for a year without asking again (RFC 9111 §5.2.2.1, RFC 8246).
const Immutable = "public, max-age=31536000, immutable"
