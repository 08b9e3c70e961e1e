package jaws

import (
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"
)

// Options configure a Handler. The zero value is a good default for serving
// a public directory. Each field says its unit, its default and when to
// change it.
type Options struct {
	// CacheMaxFileSize is the largest file, in bytes, held in memory and
	// served from there, with its content's ETag. Larger files are sent
	// from the file (zero-copy where it applies), with an ETag from size
	// and mtime. 0 means the default, 64 KiB. Negative means no file is
	// served from memory, and none is compressed on first request (see
	// Compression).
	//
	// Why 64 KiB: on the development machine the memory path beat the file
	// path by 1.5x at 64 KiB, by less above, and to within noise at 256 KiB
	// (bench/results/calibrate.txt). Larger bodies also take the byte
	// budget's room from small files: on the site benchmark's spills set
	// (bench/site.sh), 128 KiB cost hits and evictions that 64 KiB did not.
	// `go run ./bench/calibrate` measures the crossover on your machine.
	CacheMaxFileSize int64

	// CacheMaxBytes bounds, in bytes, the memory the cache holds for files
	// served from memory: their bodies, their compressed variants, their
	// precomputed header values and about 512 bytes of bookkeeping per
	// file. 0 means the default, 64 MiB.
	//
	// Size it to the small files and compressed text you want served from
	// memory, plus 1 KiB per file. When they do not all fit, ristretto's
	// TinyLFU admission keeps the most requested. Stats().CacheMisses and
	// CacheEvictions show the churn. Files sent from disk do not count here
	// (see CacheMaxFiles), so they never push small bodies out.
	//
	// Negative disables caching of bodies: every file is sent from disk.
	// Only the entries of files kept by CacheMaxFiles (validators, type,
	// descriptor) are cached then, because hashing a small file for its
	// ETag on every request would cost far more than that memory.
	CacheMaxBytes int64

	// CacheMaxFiles bounds how many files sent from disk (larger than
	// CacheMaxFileSize) the cache keeps, as nginx's open_file_cache max=
	// counts them. Each costs its validators, its type, about 1 KiB of
	// bookkeeping and one open descriptor, shared by its zero-copy
	// transfers. 0 means the default, 4096. Negative keeps none.
	//
	// When more are asked for, TinyLFU keeps the most requested, and a file
	// not kept is opened by each of its requests. Descriptors count against
	// RLIMIT_NOFILE, whose soft limit Go raises to the hard one at start.
	CacheMaxFiles int

	// ServeDotFiles serves names with an element that starts with a dot
	// (".env", ".git/config", ".htpasswd", ".DS_Store"). Default false:
	// they are 404. Such files are private by convention, often hold
	// secrets, and reveal how the tree was made. "/.well-known/" at the top
	// is served either way, because RFC 8615 makes it public (ACME
	// challenges, security.txt, assetlinks.json). Dot-names inside it are
	// not.
	ServeDotFiles bool

	// DirectoryListing answers a directory that has no index.html with an
	// HTML list of its entries: sorted, names escaped, hidden names left
	// out unless ServeDotFiles. Default false: such a directory is 404,
	// since listings reveal files nobody linked to.
	DirectoryListing bool

	// CleanURLs serves a page at its name without ".html", as static hosts'
	// pretty URLs do. A request for /a/b that names nothing the handler
	// serves (no file, no directory with an index.html) is answered as a
	// request for /a/b.html is: that file's status, validators, ranges and
	// compression (siblings such as a/b.html.br). Default false: a URL
	// names its file exactly, as with http.FileServer.
	//
	// The rules:
	//
	//   - A name of its own wins: a file a/b, or a directory a/b with an
	//     index.html (/a/b redirects to /a/b/ as before).
	//   - A directory without an index.html loses to a/b.html, which
	//     Astro's "file" format and Hugo's uglyURLs write beside
	//     guide/setup.html. It is listed (DirectoryListing) only when there
	//     is no such file.
	//   - Any last element is tried, except one that already ends in
	//     ".html". /v1.2 serves v1.2.html. /a/b.html is served as it is, not
	//     redirected to /a/b.
	//   - /a/b/ redirects to /a/b, as a file's URL with a trailing slash does
	//     (Netlify and Cloudflare Pages do the same). /a/index redirects to
	//     /a/, as /a/index.html does.
	//   - Hidden and non-canonical names stay 404: /.env never serves
	//     .env.html.
	//   - ServeNext (and so middleware.Static, SPA and Mount), ServeFile and
	//     the fast lane follow the same rule. HashName does not: it takes a
	//     file's own name.
	//
	// The cost, with New on Linux:
	//
	//   - A page found by its clean URL is cached under that URL. Its entry
	//     stands on the name, and the name's compressed-only siblings, being
	//     missing. File system events vouch for them, so a hit costs what a
	//     hit of /a/b.html costs: one epoll_wait. A file that appears under
	//     the name is served by the next request.
	//   - A page asked for by both URLs is held in memory twice. Its
	//     compressed variants are made and held once.
	//   - Beside a directory without an index.html, the page is not cached
	//     under the name. Each request looks the name up first: the
	//     directory is opened, and its index.html and that file's
	//     compressed-only siblings are looked for (13 system calls more).
	//   - A compressed-only page is not cached under the name either.
	//   - A name with neither costs its page's lookup too before its 404:
	//     one openat2 more, and one stat more per precompressed coding.
	//   - With NewFS, the fs.FS's Open of the name comes before the page's
	//     check, until the page is cached.
	CleanURLs bool

	// MaxRanges is how many ranges one Range header may ask for. A header
	// that asks for more is ignored, and the whole file is sent (RFC 9110
	// §14.2 allows ignoring such requests). 0 means the default, 32.
	// Negative ignores every Range header, as a server without range
	// support would.
	//
	// Whatever its value:
	//
	//   - Ranges that overlap or lie at most 256 bytes apart are merged, so
	//     no byte is sent twice. Parts keep the order asked for.
	//   - A header asking for so many separate parts that their multipart
	//     headers would outweigh the file is ignored: 200, the whole file
	//     (against CVE-2011-3192).
	//   - A range is a range of the file itself, never of a compressed
	//     variant (see Compression).
	//   - Range is ignored on HEAD and for units other than bytes.
	//   - "bytes=-0" alone is unsatisfiable (416).
	MaxRanges int

	// Revalidate sets how a cached file is confirmed unchanged before it is
	// served:
	//
	//   - 0 (the default): never stale, by the cheapest means at hand. A
	//     request that starts after a change completed (the writer's system
	//     call returned) sees it. On Linux, on local file systems, file
	//     system events (inotify) vouch for a file, at the cost of one
	//     non-blocking epoll_wait per request. Where events cannot vouch for
	//     a file, one stat per request does.
	//   - Negative: that stat on every request, always.
	//   - Positive: a file confirmed is served without any check for that
	//     long, in the manner of nginx's open_file_cache_valid. A change may
	//     go unseen that long, a new release under a swapped root path
	//     included.
	//
	// Files sent from disk are always checked, on the descriptor they are
	// sent from, so no response sends one version's bytes under another's
	// ETag. The repository's docs/freshness.md says where events cannot
	// vouch for a file and what each check costs.
	Revalidate time.Duration

	// ContentTypes sets the Content-Type of files by extension, over jaws's
	// own table: {".md": "text/markdown; charset=utf-8"}, say. nil means no
	// overrides. The map is copied: changing it later does not reach the
	// Handler.
	//
	// A key is an extension as path.Ext returns it, dot included (".webm"),
	// in any case. A value is sent as it is, so a text type needs its
	// "; charset=utf-8" here. New and NewFS return an error for a key that
	// is no extension, for a value that is no media type
	// (mime.ParseMediaType), and for one extension given twice in different
	// cases with different values.
	//
	// An extension with no entry here takes its type from, in order:
	//
	//  1. jaws's table of the web's types (scripts, styles, JSON and source
	//     maps, manifests, WASM, fonts, images, audio, video, documents),
	//     generated from the mime-db dataset (internal/webtypes), so it is
	//     the same on every host;
	//  2. the host's tables (mime.TypeByExtension).
	//
	// A file with no known extension has its type sniffed from its first
	// 512 bytes (http.DetectContentType). mime.AddExtensionType no longer
	// reaches jaws for an extension the table has: set it here instead.
	ContentTypes map[string]string

	// Header, when set, gives files response fields of their own: a
	// Cache-Control by directory or type, Access-Control-Allow-Origin for
	// fonts, Content-Disposition for downloads, Link, X-Robots-Tag. nil
	// means none, and costs nothing.
	//
	// It is called with the file's name under the root and an empty header
	// to fill. The name is slash-separated, without a leading slash
	// ("docs/index.html" for "/docs/"). It is called whenever the file's
	// cache entry is built:
	//
	//   - on the file's first request;
	//   - on the first request after the file changed;
	//   - on the first request after the cache let the entry go, or declined
	//     it (a file the cache does not keep is built by each request).
	//
	// So it runs once per version of a file the cache keeps: not per
	// request, and not per coding. What it sets is checked then and kept
	// with the entry, so a hit allocates nothing for it.
	//
	// It runs on the goroutine of the request that builds the entry. Other
	// requests for that file wait. It may run for several files at once:
	// keep it fast and safe for concurrent use. If it panics, that request
	// gets a 500, logged in ErrorLog, and no entry is kept: the next
	// request asks again.
	//
	// Its fields go out with the file's 200, 206 and 304 responses, HEAD
	// included, on every path (memory, zero-copy, fallback, the fast lane)
	// and in every coding. Which answers drop them, and which field wins
	// when a handler in front of jaws sets the same one, is "The response
	// header contract" in the repository's CONTRIBUTING.md.
	//
	// These fields are refused (left out, and said in ErrorLog once per
	// field name):
	//
	//   - fields of the connection: Connection, Keep-Alive,
	//     Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade;
	//   - Set-Cookie, which is a client's and not a file's;
	//   - fields jaws sets, whose values are jaws's whatever the hook says:
	//     Accept-Ranges, Content-Encoding, Content-Length, Content-Range,
	//     Content-Type (ContentTypes sets types), Date, ETag, Last-Modified,
	//     Repr-Digest, Use-As-Dictionary, Vary;
	//   - fields that describe the bytes sent, which differ by coding and
	//     range: Content-Digest, Digest, Content-MD5;
	//   - a name that is not a token;
	//   - a field with a control character in a value (any but HTAB, and
	//     DEL).
	//
	// Names are taken in any case and sent canonical
	// (http.CanonicalHeaderKey).
	Header func(name string, h http.Header)

	// NotFound answers the requests the handler has nothing for: missing
	// or hidden names, directories without index page or listing. Use it
	// for a custom page or an SPA's index.html. nil means a plain-text 404,
	// as http.FileServer sends.
	NotFound http.Handler

	// MethodNotAllowed answers methods other than GET and HEAD, after the
	// handler has set "Allow: GET, HEAD". nil means a plain-text 405.
	MethodNotAllowed http.Handler

	// Transfer forces how files not served from memory are sent, for
	// benchmarks and for users who measured their own machines:
	//
	//   - TransferAuto (the default) chooses per request: zero-copy for
	//     files of at least ZeroCopyMinSize bytes where it applies, the
	//     fallback otherwise.
	//   - TransferZeroCopy takes zero-copy wherever it applies, whatever the
	//     size.
	//   - TransferFallback never takes zero-copy.
	Transfer Transfer

	// ZeroCopyMinSize is the size in bytes from which a response from disk
	// takes the zero-copy path, where it applies. Smaller ones take the
	// fallback, where net/http uses sendfile itself. 0 means the default,
	// 512 KiB, or just above CacheMaxFileSize if that is larger. 512 KiB is
	// the smallest size at which zero-copy beat net/http's own path in
	// every measurement (bench/README.md, "Where zero-copy starts"). Change
	// it after measuring your machine and network with bench/zerocopymin.sh.
	ZeroCopyMinSize int64

	// SendTimeout bounds how long the zero-copy path waits, per write, for
	// a client to take data. A stalled reader fails after it, and its
	// connection and descriptor are released. It is renewed for every
	// chunk (SendChunk). 0 means the default, 60 seconds (nginx's
	// send_timeout).
	SendTimeout time.Duration

	// SendChunk caps, in bytes, what one zero-copy call sends, so that one
	// fast client cannot keep the thread from others (nginx's
	// sendfile_max_chunk). SendTimeout is renewed before each. 0 means the
	// default, 2 MiB.
	SendChunk int64

	// Compression sets how files are served compressed: precompressed
	// siblings ("foo.js.br" next to "foo.js"), and files compressed once on
	// first request. Both are on by default. See Compression.
	Compression Compression

	// AccessLog, when set, receives one Info record per response the
	// handler completes. nil logs nothing. It covers every path (memory,
	// zero-copy, fallback, the fast lane) and every answer (304, 404, 405,
	// 416, aborted downloads). The record's attributes:
	//
	//   - method, path and status;
	//   - bytes: the body bytes actually sent;
	//   - duration;
	//   - transfer: "memory", "zerocopy", "fallback", "lane" or "";
	//   - coding.
	//
	// It lets an application log its static files without a wrapping
	// ResponseWriter. Behind a wrapper jaws gives up the zero-copy path,
	// because the wrapper would not see the bytes.
	AccessLog *slog.Logger

	// OnResponse, when set, is called with the same record, on the
	// request's goroutine, after each response. It is for metrics: counters
	// by status and transfer, a histogram of durations. It must be fast and
	// safe for concurrent use. nil calls nothing.
	OnResponse func(ResponseRecord)

	// ErrorLog receives what the client is not told:
	//
	//   - errors that become a 500 response;
	//   - the precompressed and digest siblings jaws ignores;
	//   - compressed-only files not decoded, and compressions that failed;
	//   - the fields of Header that jaws refuses.
	//
	// nil means the log package's standard logger.
	ErrorLog *log.Logger
}

const (
	defaultCacheMaxFileSize = 64 << 10
	defaultCacheMaxBytes    = 64 << 20
	defaultCacheMaxFiles    = 4096
	defaultMaxRanges        = 32

	// See Options.ZeroCopyMinSize.
	defaultZeroCopyMinSize = 512 << 10
)

func (o Options) withDefaults() Options {
	if o.CacheMaxFileSize == 0 {
		o.CacheMaxFileSize = defaultCacheMaxFileSize
	}
	if o.CacheMaxBytes == 0 {
		o.CacheMaxBytes = defaultCacheMaxBytes
	}
	if o.CacheMaxFiles == 0 {
		o.CacheMaxFiles = defaultCacheMaxFiles
	}
	if o.ZeroCopyMinSize == 0 {
		o.ZeroCopyMinSize = max(o.CacheMaxFileSize+1, defaultZeroCopyMinSize)
	}
	if o.SendTimeout == 0 {
		o.SendTimeout = 60 * time.Second
	}
	if o.SendChunk == 0 {
		o.SendChunk = 2 << 20
	}
	if o.MaxRanges == 0 {
		o.MaxRanges = defaultMaxRanges
	}
	if o.Compression.MinSize == 0 {
		o.Compression.MinSize = defaultCompressMinSize
	}
	if o.Compression.MaxSize == 0 {
		o.Compression.MaxSize = defaultCompressMaxSize
	}
	if o.Compression.DecodeMaxSize == 0 {
		o.Compression.DecodeMaxSize = defaultDecodeMaxSize
	}
	if o.Compression.DecodeMaxRatio == 0 {
		o.Compression.DecodeMaxRatio = defaultDecodeMaxRatio
	}
	if o.Compression.SpillDir == "" {
		o.Compression.SpillDir = os.TempDir()
	}
	if o.Compression.SpillMaxBytes == 0 {
		o.Compression.SpillMaxBytes = defaultSpillMaxBytes
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.Default()
	}
	return o
}

// Transfer is a policy for files not served from memory; see
// Options.Transfer.
type Transfer int

const (
	TransferAuto     Transfer = iota // zero-copy from ZeroCopyMinSize, where it applies
	TransferZeroCopy                 // zero-copy wherever it applies
	TransferFallback                 // never zero-copy
)

// memoryMax is the largest file held in memory under o (with its defaults):
// CacheMaxFileSize, and none when the cache is disabled.
func memoryMax(o Options) int64 {
	if o.CacheMaxBytes < 0 {
		return -1
	}
	return o.CacheMaxFileSize
}
