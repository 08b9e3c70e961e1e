package jaws

import "io/fs"

// Compression configures the content codings jaws answers with. Its zero
// value serves precompressed siblings and compresses compressible files
// once; each can be turned off.
//
// A file's variants are negotiated with the request's Accept-Encoding
// (q-values, "*", "identity;q=0"; no Accept-Encoding means no coding). Each
// variant is a representation of its own, with its own strong ETag and
// Content-Length, and "Vary: Accept-Encoding" on every response for a
// path that has variants, 304s and uncompressed answers included, so
// shared caches keep them apart. A GET with a Range of bytes is answered
// from the file itself, whatever Accept-Encoding says, so that a client
// resuming a download from its decoded size gets the bytes that follow.
// Versioned assets also serve as compression dictionaries for their next
// versions (see DisableDictionaries).
type Compression struct {
	// Encodings is the server's order of preference among codings the
	// client weighs equally (browsers send "gzip, deflate, br, zstd", all
	// at q=1): any of "br", "zstd", "gzip". A coding left out is never
	// served, neither from a sibling nor compressed; an empty, non-nil
	// list serves none. nil means br, zstd, gzip: brotli is the smallest
	// for text, zstd close to it, gzip what every client takes.
	Encodings []string

	// DisablePrecompressed stops jaws from looking for siblings. By default,
	// when "foo.js.br", "foo.js.zst" or "foo.js.gz" is a regular file next
	// to "foo.js", not older than it and holding its bytes, a client that
	// accepts the coding gets the sibling's bytes, with the Content-Type of
	// "foo.js". A sibling older than its original is taken for stale and
	// ignored without being read. Mtimes alone cannot tell a stale sibling (a
	// reproducible build stamps every file alike), so each version of a
	// sibling is checked against its original before it first serves:
	//
	//   - An original served from memory (up to CacheMaxFileSize, and every
	//     embedded file): the sibling must decode to exactly its bytes, and
	//     end there. At most its size plus one byte is decoded, and its size
	//     plus 256 KiB of the sibling read.
	//   - An original sent from disk: the size the sibling records must be
	//     the original's (gzip's ISIZE, the size mod 2^32; the first zstd
	//     frame's Frame_Content_Size, when it has one; brotli records none),
	//     and its first 64 KiB decoded must be the original's first 64 KiB
	//     (all of it, and the end, for an original no larger). At most 64
	//     KiB of the original and the first 320 KiB of the sibling (and a
	//     gzip sibling's last 8 bytes) are read. A stale sibling that agrees
	//     on both is served: regenerate siblings whenever their originals
	//     change.
	//
	// A sibling that fails is ignored, with a line in ErrorLog once per
	// version: the original is compressed on request where it would be
	// without a sibling, else served as it is. So is a sibling that needs
	// more compressed bytes than that to decode, and a gzip sibling of more
	// than one member. The verdict is kept
	// with the original's cache entry, so no request decodes that version
	// again; a sibling found stale is looked at again (one stat) at most
	// once a second while it is asked for, and checked again once it has
	// changed. Siblings are found when the original's entry is built (its
	// first request, or the first after it changed), so one added next to an
	// unchanged, cached original is picked up when that entry is next built;
	// a sibling that changes or disappears is seen by the next request.
	// Large siblings go zero-copy as any large file does.
	DisablePrecompressed bool

	// DisableCompression stops jaws from compressing. By default a file
	// whose Content-Type compresses (text/*, JavaScript, CSS, JSON, XML,
	// SVG, WebAssembly, uncompressed fonts), of MinSize to MaxSize bytes,
	// with no sibling for the coding negotiated, is compressed on the first
	// request that asks for that coding; the result is kept in the cache,
	// its bytes counted against CacheMaxBytes, and every later request is
	// served from it with no compression work. A result that does not save
	// at least 10% is not kept, and that file is served uncompressed in that
	// coding until it changes. Compressed bytes live in the cache only: with
	// a negative CacheMaxBytes or CacheMaxFileSize nothing is compressed.
	//
	// The cost: the first request for each file and coding waits for the
	// compression (milliseconds for a script of tens of KiB at the default
	// level; docs/compression.md has measurements), and a file whose
	// compressed variant the cache evicts or does not admit (a working set
	// larger than CacheMaxBytes) is compressed again when next asked for. At most half the CPUs compress at once;
	// other first requests wait for one (an uncompressed answer instead
	// could be kept by a shared cache, for a year if the name is
	// fingerprinted). Precompressing at build time avoids both costs.
	DisableCompression bool

	// Level trades compression time, paid once per file and coding on its
	// first request, for size. The default, LevelDefault, is brotli 6,
	// zstd's "better" level and gzip 9: within a tenth of each codec's best
	// size, in a fraction of its time. LevelFastest suits sites whose
	// compressible files outgrow the cache, so that evicted variants are
	// compressed again cheaply; LevelBest (brotli 11, zstd's best) suits a
	// cache that holds everything, since brotli 11 takes tens of times as
	// long as brotli 6. The measured times and sizes are in
	// docs/compression.md.
	Level CompressionLevel

	// MinSize is the smallest file, in bytes, compressed: below about a
	// packet, compression saves no round trip. 0 means the default, 1 KiB
	// (as gzhttp's default). Precompressed siblings are served whatever
	// their size.
	MinSize int64

	// MaxSize is the largest file, in bytes, compressed on first request;
	// the compressed bytes are held in memory whatever the file's size. 0
	// means the default, 1 MiB. Larger files are served compressed only
	// from precompressed siblings. It bounds dictionaries too: no file
	// larger is offered as one, compressed with one, or read as one.
	MaxSize int64

	// DisableDictionaries stops jaws from offering files as compression
	// dictionaries and from compressing with them (RFC 9842). By default a
	// versioned asset, a file that would be compressed on request (above)
	// whose name changes with its content, offers itself as the dictionary
	// for its next versions, so that after a deploy a browser that holds
	// the old version gets the new one as the difference ("dcz", tens of
	// bytes for a one-line change to a bundle of hundreds of KiB) instead
	// of whole:
	//
	//   - Versioned: a name HashName made, a name with a bundler's hash
	//     (the forms middleware.Fingerprinted recognises: app.3f9a1c2b.js,
	//     index-GpEN3EET.js), or a name of VersionedNames.
	//   - Kept: only a response whose Cache-Control (set by jaws on a
	//     hashed name, by an outer handler such as middleware.CacheControl
	//     before jaws runs, or by Options.Header) has "immutable" or a
	//     max-age of a day or more, and no "no-store" or "no-cache": a
	//     browser uses a dictionary only while the response that brought it
	//     is fresh. Which of them wins, and when these rules read it, is the
	//     response header contract in the repository's CONTRIBUTING.md.
	//
	// Such a 200 (GET or HEAD) carries "Use-As-Dictionary:
	// match=PATTERN", the request's path as the client sent it (so it holds
	// under http.StripPrefix and middleware.Mount) with "*" in the
	// version's place, and match-dest=("script") or ("style") for
	// JavaScript or CSS; every response for it, 304s and uncompressed ones
	// included, carries "Vary: Accept-Encoding, Available-Dictionary". A
	// request for it with "dcz" in Accept-Encoding and an
	// Available-Dictionary naming a file jaws can read, whose SHA-256 it is,
	// gets the file compressed with that file as dictionary, once per
	// version of the two: the delta is kept in the cache as the other
	// variants are, counted against CacheMaxBytes, and is not used where it
	// is no smaller than the answer the request would otherwise get (that
	// verdict is kept too). At most 16 dictionaries per version of a file.
	// jaws knows the hash of each file it offers (a file served from
	// memory, or with a digest sibling, costs no read; another is read once
	// per version by a GET, within the 1 MiB a hashed name's request may
	// read) and, the first time a request names a hash it does not know,
	// looks once per cache entry of the file for its earlier versions: the
	// names of the same pattern in its directory (app.OLDHASH.js kept beside
	// app.NEWHASH.js, as deploys keep them) and in Dictionaries, at most 16
	// files and 1 MiB read for their hashes. A request naming a hash jaws
	// does not know gets br or zstd as it would without one, never an
	// error. jaws answers no cross-origin request with dcz that RFC 9842
	// §9.3.3 excludes (by Sec-Fetch-Site and Sec-Fetch-Mode, and for CORS
	// the Access-Control-Allow-Origin an outer handler or Options.Header
	// set). Stats counts
	// the dcz answers and the bytes they saved. docs/compression.md has
	// the details and the measurements. There is no dcb (brotli with a
	// dictionary): no maintained Go brotli supports shared dictionaries.
	DisableDictionaries bool

	// Dictionaries are earlier releases of the site, for a source that
	// keeps only the current build (an embed.FS, a directory replaced
	// whole by each deploy): each holds an older build's files at the
	// paths they have under the root. For a file served now, the file of
	// the same name in each (the previous app.js, for a HashName'd one)
	// and the names of its version pattern beside it (app.OLDHASH.js) are
	// candidate dictionaries; they are read, never served, each at most
	// MaxSize bytes, within the bounds of DisableDictionaries' look. nil
	// means none: only the files served are dictionaries.
	Dictionaries []fs.FS

	// DecodeMaxSize bounds, in bytes, the file jaws decodes from a
	// compressed-only file's sibling for a client that takes none of the
	// codings it is stored in. A compressed-only file is one shipped only
	// as siblings ("app.js.br", "app.js.gz", no "app.js"): a client that
	// accepts a sibling's coding gets its bytes as they are; any other gets
	// the file decoded (its identity), made once per version of the newest
	// sibling. A file that decodes to more than this, or to more than
	// DecodeMaxRatio times its sibling's size (a decompression bomb), is
	// refused (406 Not Acceptable) and logged once; zstd's window is held to
	// RFC 9659's 8 MiB. 0 means the default, 256 MiB.
	DecodeMaxSize int64

	// DecodeMaxRatio bounds a compressed-only file's identity to this many
	// times its sibling's size, plus 64 KiB: web text compresses 3 to 20
	// times, a decompression bomb thousands. 0 means the default, 200.
	DecodeMaxRatio int

	// SpillDir is where a compressed-only file's identity goes when it is
	// larger than CacheMaxFileSize: a file decoded once per version,
	// unlinked as soon as it is written (nothing is left behind, even after
	// a crash) and kept open while the cache keeps the file, from where it
	// is served as any file from disk is (ranges, zero-copy). "" means
	// os.TempDir(). Smaller identities are held in memory.
	SpillDir string

	// SpillMaxBytes bounds the disk the spill files take, in bytes, in all.
	// A request whose identity would take it past this gets 503 Service
	// Unavailable with Retry-After, until files leave the cache. 0 means
	// the default, 1 GiB; negative means no spill files: a client that
	// takes no stored coding gets 406 for a compressed-only file larger
	// than CacheMaxFileSize.
	SpillMaxBytes int64

	// VersionedNames marks more names as versioned, for builds whose
	// version is not a hash in the last element: slash-separated patterns
	// relative to the root, each with one "*" standing for the version
	// within one segment, such as "app/*/main.js" (a directory per
	// release) or "assets/app-v*.js". The first that matches a file's name
	// says where its version is; else the name is versioned if a
	// bundler's hash is in its last element. A "*" segment of the pattern
	// must match a non-empty version. nil means none.
	VersionedNames []string
}

// CompressionLevel is a level for every codec; see Compression.Level.
type CompressionLevel int

const (
	LevelDefault CompressionLevel = iota // brotli 6, zstd better, gzip 9
	LevelFastest                         // brotli 1, zstd fastest, gzip 1
	LevelBest                            // brotli 11, zstd best, gzip 9
)

const (
	defaultCompressMinSize = 1 << 10
	defaultCompressMaxSize = 1 << 20
	defaultDecodeMaxSize   = 256 << 20
	defaultDecodeMaxRatio  = 200
	defaultSpillMaxBytes   = 1 << 30

	// zstdWindow is the largest window an HTTP zstd decoder must support
	// (RFC 9659 §3); zstd's own default can be larger.
	zstdWindow = 8 << 20
)
