package jaws

import "io/fs"

// Compression configures the content codings jaws answers with. Its zero
// value serves precompressed siblings and compresses compressible files
// once. Each can be turned off. The repository's docs/compression.md says
// how compression behaves and what it costs.
//
// Every coding follows the same rules:
//
//   - Accept-Encoding is negotiated with q-values, "*" and "identity;q=0".
//     No Accept-Encoding means no coding.
//   - Each variant is a representation of its own, with its own strong
//     ETag and Content-Length.
//   - Every response for a path that has variants, 304s and uncompressed
//     answers included, carries "Vary: Accept-Encoding", so shared caches
//     keep the variants apart.
//   - A GET with a Range of bytes is answered from the file itself,
//     whatever Accept-Encoding says. A client resuming a download from its
//     decoded size then gets the bytes that follow.
//   - Versioned assets also serve as compression dictionaries for their
//     next versions (see DisableDictionaries).
type Compression struct {
	// Encodings is the server's order of preference among codings the
	// client weighs equally: any of "br", "zstd", "gzip". Browsers send
	// "gzip, deflate, br, zstd", all at q=1. A coding left out is never
	// served, neither from a sibling nor compressed. An empty, non-nil
	// list serves none. nil means br, zstd, gzip: brotli is the smallest
	// for text, zstd close to it, gzip what every client takes.
	Encodings []string

	// DisablePrecompressed stops jaws from looking for siblings. By
	// default, when "foo.js.br", "foo.js.zst" or "foo.js.gz" is a regular
	// file next to "foo.js", a client that accepts its coding gets the
	// sibling's bytes, with the Content-Type of "foo.js". Large siblings go
	// zero-copy as any large file does.
	//
	// A sibling serves only while it holds its original's bytes:
	//
	//   - A sibling older than its original is taken for stale and ignored
	//     without being read.
	//   - Mtimes alone cannot tell a stale sibling, because a reproducible
	//     build stamps every file alike. So each version of a sibling is
	//     checked against its original before it first serves, reading a
	//     bounded amount of both. For an original sent from disk the check
	//     compares only the size the sibling records and the first 64 KiB:
	//     regenerate siblings whenever their originals change.
	//   - A sibling that fails is ignored, with a line in ErrorLog once per
	//     version. The original is then compressed on request where it
	//     would be without a sibling, else served as it is.
	//
	// Siblings are found when the original's entry is built: on its first
	// request, or the first after it changed. So a sibling added next to an
	// unchanged, cached original is picked up when that entry is next
	// built. A sibling that changes or disappears is seen by the next
	// request. docs/compression.md, "Checking siblings", says what the
	// check reads, what it misses, and when a verdict is looked at again.
	DisablePrecompressed bool

	// DisableCompression stops jaws from compressing. By default a file is
	// compressed on the first request that asks for a coding when:
	//
	//   - its Content-Type compresses (text/*, JavaScript, CSS, JSON, XML,
	//     SVG, WebAssembly, uncompressed fonts);
	//   - it has MinSize to MaxSize bytes;
	//   - it has no sibling for the coding negotiated.
	//
	// The result is kept in the cache, its bytes counted against
	// CacheMaxBytes, and every later request is served from it with no
	// compression work. A result that does not save at least 10% is not
	// kept, and that file is served uncompressed in that coding until it
	// changes. Compressed bytes live in the cache only: with a negative
	// CacheMaxBytes or CacheMaxFileSize nothing is compressed.
	//
	// The cost: the first request for each file and coding waits for the
	// compression, and a variant the cache evicts or does not admit is
	// compressed again when next asked for. At most half the CPUs compress
	// at once. Precompressing at build time avoids both costs.
	// docs/compression.md, "The trade-offs", has the measurements.
	DisableCompression bool

	// Level trades compression time, paid once per file and coding on its
	// first request, for size:
	//
	//   - LevelDefault (the default) is brotli 6, zstd's "better" level and
	//     gzip 9: within a tenth of each codec's best size, in a fraction of
	//     its time.
	//   - LevelFastest suits sites whose compressible files outgrow the
	//     cache, so that evicted variants are compressed again cheaply.
	//   - LevelBest (brotli 11, zstd's best) suits a cache that holds
	//     everything. Brotli 11 takes tens of times as long as brotli 6.
	//
	// docs/compression.md has the measured times and sizes.
	Level CompressionLevel

	// MinSize is the smallest file, in bytes, that is compressed. Below
	// about a packet, compression saves no round trip. 0 means the
	// default, 1 KiB (as gzhttp's default). Precompressed siblings are
	// served whatever their size.
	MinSize int64

	// MaxSize is the largest file, in bytes, compressed on first request.
	// The compressed bytes are held in memory whatever the file's size. 0
	// means the default, 1 MiB. Larger files are served compressed only
	// from precompressed siblings. It bounds dictionaries too: no larger
	// file is offered as one, compressed with one, or read as one.
	MaxSize int64

	// DisableDictionaries stops jaws from offering files as compression
	// dictionaries and from compressing with them (RFC 9842). By default a
	// versioned asset offers itself as the dictionary for its next
	// versions. After a deploy, a browser that holds the old version gets
	// the new one as the difference ("dcz") instead of whole: tens of bytes
	// for a one-line change to a bundle of hundreds of KiB.
	//
	// A file is offered when it is both:
	//
	//   - Versioned: a file that would be compressed on request (above)
	//     whose name changes with its content. That is a name HashName
	//     made, a name with a bundler's hash (the forms
	//     middleware.Fingerprinted recognises: app.3f9a1c2b.js,
	//     index-GpEN3EET.js), or a name of VersionedNames.
	//   - Kept: its response's Cache-Control has "immutable" or a max-age
	//     of a day or more, and no "no-store" or "no-cache". A browser uses
	//     a dictionary only while the response that brought it is fresh.
	//     The field may come from jaws on a hashed name, from a handler in
	//     front such as middleware.CacheControl, or from Options.Header.
	//     Which wins is "The response header contract" in the repository's
	//     CONTRIBUTING.md.
	//
	// Every response for such a file carries "Vary: Accept-Encoding,
	// Available-Dictionary". The bounds:
	//
	//   - A delta is made once per version of the file and dictionary, and
	//     kept in the cache as the other variants are, counted against
	//     CacheMaxBytes. It is not used where it is no smaller than the
	//     answer the request would otherwise get.
	//   - A version of a file is paired with at most 16 dictionaries.
	//   - Looking for a file's earlier versions reads at most 16 files and
	//     1 MiB for their hashes, once per cache entry of the file.
	//   - A request naming a hash jaws does not know gets br or zstd as it
	//     would without one, never an error.
	//   - jaws answers no cross-origin request with dcz that RFC 9842
	//     §9.3.3 excludes.
	//
	// Stats counts the dcz answers and the bytes they saved. There is no
	// dcb (brotli with a dictionary): no maintained Go brotli supports
	// shared dictionaries. docs/compression.md, "Compression dictionaries",
	// has the offer's fields, where dictionaries come from, and the
	// measurements.
	DisableDictionaries bool

	// Dictionaries are earlier releases of the site, for a source that
	// keeps only the current build (an embed.FS, a directory replaced
	// whole by each deploy). Each holds an older build's files at the paths
	// they have under the root. nil means none: only the files served are
	// dictionaries.
	//
	// For a file served now, the candidate dictionaries in each are the
	// file of the same name (the previous app.js, for a HashName'd one)
	// and the names of its version pattern beside it (app.OLDHASH.js).
	// They are read, never served, each at most MaxSize bytes, within the
	// bounds of DisableDictionaries' look.
	Dictionaries []fs.FS

	// DecodeMaxSize bounds, in bytes, the file jaws decodes from a
	// compressed-only file's sibling. 0 means the default, 256 MiB.
	// Negative means none is decoded: only the stored codings are served.
	//
	// A compressed-only file is one shipped only as siblings ("app.js.br",
	// "app.js.gz", no "app.js"). A client that accepts a sibling's coding
	// gets its bytes as they are. Any other client gets the file decoded
	// (its identity), made once per version of the newest sibling.
	//
	// A file that decodes to more than this, or to more than DecodeMaxRatio
	// times its sibling's size (a decompression bomb), is refused with 406
	// Not Acceptable and logged once. zstd's window is held to RFC 9659's
	// 8 MiB.
	DecodeMaxSize int64

	// DecodeMaxRatio bounds a compressed-only file's identity to this many
	// times its sibling's size, plus 64 KiB. Web text compresses 3 to 20
	// times, a decompression bomb thousands. 0 means the default, 200.
	// Negative means no bound by ratio: DecodeMaxSize alone.
	DecodeMaxRatio int

	// SpillDir is the directory for a compressed-only file's identity when
	// it is larger than CacheMaxFileSize. Smaller identities are held in
	// memory. "" means os.TempDir().
	//
	// Such an identity is decoded once per version into a spill file with
	// no name: unlinked as soon as it is created, or on Windows deleted
	// when closed. Nothing is left behind, even after a crash. The spill
	// file stays open while the cache keeps the file, and is served as any
	// file from disk is (ranges, zero-copy).
	SpillDir string

	// SpillMaxBytes bounds, in bytes, the disk all spill files take
	// together. 0 means the default, 1 GiB. Negative means no spill files:
	// a client that takes no stored coding gets 406 for a compressed-only
	// file larger than CacheMaxFileSize.
	//
	// A request whose identity would take the spill files past the bound
	// gets 503 Service Unavailable with Retry-After, until files leave the
	// cache. An identity larger than SpillMaxBytes itself gets 406, as a
	// bomb does. Each spill file holds a descriptor while the cache keeps
	// its file. These descriptors are not counted in CacheMaxFiles.
	SpillMaxBytes int64

	// VersionedNames marks more names as versioned, for builds whose
	// version is not a hash in the last element. Each is a slash-separated
	// pattern relative to the root, with one "*" standing for the version
	// within one segment: "app/*/main.js" (a directory per release) or
	// "assets/app-v*.js". The first pattern that matches a file's name says
	// where its version is. When none matches, a name is versioned if its
	// last element holds a bundler's hash. A "*" segment of the pattern
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
