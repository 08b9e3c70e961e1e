package middleware

import (
	"path"
	"strings"
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
	name := path.Base(urlPath)
	if name[0] == '.' {
		return false // hidden, or no name before the hash
	}
	if hashed(name) {
		return true
	}
	m, ok := strings.CutSuffix(name, ".map") // a source map goes with its file
	return ok && hashed(m)
}

// hashed reports whether name, a path's last element, carries a hash in one
// of Fingerprinted's forms.
func hashed(name string) bool {
	return dotHash(name) || dashHex(name) || dashHash(name)
}

// dotHash reports whether name has a hex hash between dots after a name
// (app.3f9a1c2b.js), or 16 hex digits in the extension's place
// (LICENSE.0123456789abcdef).
func dotHash(name string) bool {
	first := strings.IndexByte(name, '.')
	last := strings.LastIndexByte(name, '.')
	if first <= 0 {
		return false
	}
	if len(name)-last-1 == 16 && hexHash(name[last+1:], 16) {
		return true
	}
	if first == last {
		return false
	}
	for seg := range strings.SplitSeq(name[first+1:last], ".") {
		if hexHash(seg, 8) {
			return true
		}
	}
	return false
}

// dashHex reports whether name has a hyphen and a hex hash after a name:
// 16 or more digits before a dot (main-<hash>.js, and hashfs's
// jquery-3-<hash>.7.1.min.js), or a SHA-256's 64 that end the name (hashfs's
// LICENSE-<hash>).
func dashHex(name string) bool {
	for i := 1; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		j := i + 1
		for j < len(name) && isHexDigit(name[j]) {
			j++
		}
		n := j - i - 1
		switch {
		case j < len(name) && name[j] == '.' && n >= 16:
		case j == len(name) && n == 64:
		default:
			continue
		}
		if hexHash(name[i+1:j], 16) {
			return true
		}
	}
	return false
}

// dashHash reports whether the name before the extension ends in a hyphen
// and 8 base64url characters that are not part of a name (see nameLike):
// the [name]-[hash] of Vite, Rollup, Rolldown and esbuild.
func dashHash(name string) bool {
	const n = 8
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return false // no extension: a client route, perhaps
	}
	stem := name[:dot]
	if len(stem) < n+2 || stem[len(stem)-n-1] != '-' {
		return false
	}
	h := stem[len(stem)-n:]
	for i := 0; i < len(h); i++ {
		if !isBase64URL(h[i]) {
			return false
		}
	}
	return !nameLike(h)
}

// hexHash reports whether s is at least minLen lower-case hex digits with
// both a decimal digit and a letter among them: no date, serial number or
// word.
func hexHash(s string, minLen int) bool {
	if len(s) < minLen {
		return false
	}
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
		case 'a' <= c && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// nameLike reports whether s, base64url characters, follows a convention
// for naming things rather than looking random: parts between '-' and '_',
// none empty, each a number, words, or words with a number at one end (see
// partLike). So SemiBold, IMG_1234, Roboto40, iPhone15, parseURL, pt-BR-v2,
// longname and 20240101 are names; GpEN3EET, nRK49_hp and B-x_3kQa are not.
func nameLike(s string) bool {
	if !strings.ContainsAny(s, "-_") {
		return partLike(s, 3)
	}
	for {
		end := strings.IndexAny(s, "-_")
		if end < 0 {
			return partLike(s, 1)
		}
		if !partLike(s[:end], 1) {
			return false
		}
		s = s[end+1:]
	}
}

// partLike reports whether p is a number, up to maxWords words (see
// wordsLike), or those words with a number at one end: 1234, longname,
// Roboto40, 3dModel.
func partLike(p string, maxWords int) bool {
	if p == "" {
		return false
	}
	i, j := 0, len(p)
	for i < j && isDigit(p[i]) {
		i++
	}
	if i == 0 {
		for j > 0 && isDigit(p[j-1]) {
			j--
		}
	}
	return i == j || wordsLike(p[i:j], maxWords)
}

// wordsLike reports whether s is at most maxWords words (three at most)
// written together in lower case, UPPER case, Capitalized or camelCase. A
// word is a capital and lower-case letters (the Semi and Bold of SemiBold),
// lower-case letters only first (longname, the i of iPhone), or two or more
// capitals only first or last (IMG, the URL of parseURL, the HTML of
// HTMLPage); a single capital is a word only alone. Words of five letters
// or more must be pronounceable.
func wordsLike(s string, maxWords int) bool {
	var words [3]struct {
		s       string
		acronym bool
	}
	n := 0
	for i := 0; i < len(s); n++ {
		if n == min(maxWords, len(words)) {
			return false
		}
		j := i
		for j < len(s) && isUpper(s[j]) {
			j++
		}
		acronym := j > i
		switch {
		case j < len(s) && !isLower(s[j]):
			return false // not a letter
		case j < len(s) && j-i >= 2:
			j-- // capitals before a word: the last one starts the word
		case j < len(s):
			acronym = false // a capital or none, then lower case
			for j++; j < len(s) && isLower(s[j]); j++ {
			}
		}
		words[n].s, words[n].acronym = s[i:j], acronym
		i = j
	}
	for k, w := range words[:n] {
		if w.acronym && n > 1 && (len(w.s) == 1 || k != 0 && k != n-1) {
			return false // a lone capital beside words, or an acronym between them
		}
		if len(w.s) >= 5 && !pronounceable(w.s) {
			return false
		}
	}
	return true
}

// pronounceable reports whether a word of letters could be one: it has a
// vowel (a, e, i, o, u, or y after the first letter) and no five consonants
// in a row. English words that fail are rare (Dijkstra, angstrom, twelfths);
// 8 random letters fail nearly half the time (46%).
func pronounceable(w string) bool {
	vowel, run := false, 0
	for i := 0; i < len(w); i++ {
		switch w[i] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u':
			vowel, run = true, 0
		case 'y':
			if i > 0 {
				vowel, run = true, 0
				continue
			}
			run++
		default:
			run++
		}
		if run >= 5 {
			return false
		}
	}
	return vowel
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isLower(c byte) bool     { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool     { return 'A' <= c && c <= 'Z' }
func isHexDigit(c byte) bool  { return isDigit(c) || 'a' <= c && c <= 'f' }
func isBase64URL(c byte) bool { return isDigit(c) || isLower(c) || isUpper(c) || c == '-' || c == '_' }
