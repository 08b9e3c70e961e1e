package middleware

import (
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// Fingerprinted reports whether the last element of urlPath carries a content
// hash in one of the forms build tools write:
//
//   - name.HASH.ext: 8 or more lower-case hex digits between dots after
//     the name, as webpack's [contenthash] (main.262fc9206c15e6d7bb6a.js),
//     Parcel and jaws's Handler.HashName (js/app.0123456789abcdef.js,
//     vendor.min.0123456789abcdef.css) write them;
//   - name.HASH: exactly 16 after the last dot, HashName's form for a
//     name without an extension (LICENSE.0123456789abcdef);
//   - name-HASH: a hyphen and 16 or more before a dot, or 64 that end the
//     name, as hashfs (main-<sha256>.js, jquery-3-<sha256>.7.1.min.js,
//     LICENSE-<sha256>) and webpack's [name]-[contenthash] write them;
//   - name-HASH.ext: a hyphen and 8 base64url characters (A-Z, a-z,
//     0-9, '-', '_') just before the extension, as Vite, Rollup and
//     Rolldown (index-GpEN3EET.js, index-B-x_3kQa.js, logo.min-5Hm-8hZx.svg)
//     and esbuild (main-L2TOKX2S.js) write them, unless the 8 characters
//     read as a name.
//
// The source map of such a file (index-GpEN3EET.js.map) counts as well; a
// hidden name, or one that is only a hash (3f9a1c2b.js, webpack's default
// for assets), does not.
//
// Taking an ordinary name for a hashed one is the costly mistake: under
// CacheImmutable a file replaced under the same name stays stale in caches
// for a year. So a hex hash must mix digits and letters, which dates and
// serial numbers (report.20240101.csv) do not, and the 8 characters after a
// hyphen must not follow a naming convention. They read as a name when each
// part between '-' and '_' is a number, or words in lower case, UPPER case,
// Capitalized or camelCase (up to three, or one beside a '-' or '_') with
// at most a number at one end, each word of five letters or more
// pronounceable (with a vowel, and no five consonants in a row):
// Inter-SemiBold.woff2, photo-IMG_1234.jpg, font-Roboto40.woff2,
// frame-iPhoneXR.png, messages-pt-BR-v2.json, some-longname.js and
// bundle-20240101.js are not hashed names. Versions with dots
// (jquery-3.7.1.min.js) never put 8 such characters before the extension,
// and that form needs an extension, so a client route of a single-page
// application (/orders/order-x7Kq9zPw) is not taken for a hashed file.
//
// The risk that remains is an ordinary name built like a hashed one: a
// random identifier after a hyphen (upload-x7Kq9zPw.png), an unconventional
// mix of case and digits (logo-v2Dark1X.svg), an unpronounceable word
// (map-Dijkstra.svg), hex digits in the places above, or an extensionless
// client route ending in a hyphen and 64 hex digits. Prepend a rule with
// Value "" to exempt such files.
//
// A missed hash costs only caching: the file gets what the rules after this
// one give it. Some random hashes do read as words, more often the shorter
// ones and those with upper case (Vite's, Rollup's and esbuild's) than hex
// ones; `go test -run TestFingerprintedMissRate -v ./middleware` measures
// the share of each form that is missed. Where the build's layout tells the
// hashed files apart, a rule on the layout misses none (see
// DefaultCacheRules).
func Fingerprinted(urlPath string) bool {
	if urlPath == "" || strings.HasSuffix(urlPath, "/") {
		return false // a directory
	}
	// The rule is httprule.Fingerprint's, which also says where the hash
	// is: jaws offers such files as compression dictionaries for their
	// next versions.
	_, _, ok := httprule.Fingerprint(path.Base(urlPath))
	return ok
}
