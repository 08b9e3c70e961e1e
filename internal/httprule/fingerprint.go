package httprule

import "strings"

// The names build tools give files whose content they hash, and where the
// hash is in them: middleware.Fingerprinted decides by it which names are
// cached as immutable (its documentation lists the forms and the risks),
// and package jaws where the version is in a name when it offers the file
// as a compression dictionary for the names of its next versions.

// Fingerprint reports whether name, the last element of a URL path or file
// name, carries a content hash in one of the forms build tools write (see
// middleware.Fingerprinted), and where: name[start:end] is the hash. The
// source map of such a file (index-GpEN3EET.js.map) counts as well; a
// hidden name, or one that is only a hash, does not.
func Fingerprint(name string) (start, end int, ok bool) {
	if name == "" || name[0] == '.' || strings.IndexByte(name, '/') >= 0 {
		return 0, 0, false // hidden, no name before the hash, or not one element
	}
	if start, end, ok = hashAt(name); ok {
		return start, end, true
	}
	if m, isMap := strings.CutSuffix(name, ".map"); isMap { // a source map goes with its file
		return hashAt(m)
	}
	return 0, 0, false
}

// hashAt finds a hash in one of Fingerprint's forms in name.
func hashAt(name string) (start, end int, ok bool) {
	if start, end, ok = dotHash(name); ok {
		return
	}
	if start, end, ok = dashHex(name); ok {
		return
	}
	return dashHash(name)
}

// dotHash finds a hex hash between dots after a name (app.3f9a1c2b.js), or
// 16 hex digits in the extension's place (LICENSE.0123456789abcdef).
func dotHash(name string) (start, end int, ok bool) {
	first := strings.IndexByte(name, '.')
	last := strings.LastIndexByte(name, '.')
	if first <= 0 {
		return 0, 0, false
	}
	if len(name)-last-1 == 16 && hexHash(name[last+1:], 16) {
		return last + 1, len(name), true
	}
	for i := first + 1; i < last; {
		j := i + strings.IndexByte(name[i:], '.')
		if hexHash(name[i:j], 8) {
			return i, j, true
		}
		i = j + 1
	}
	return 0, 0, false
}

// dashHex finds a hyphen and a hex hash after a name: 16 or more digits
// before a dot (main-<hash>.js, and hashfs's jquery-3-<hash>.7.1.min.js), or
// a SHA-256's 64 that end the name (hashfs's LICENSE-<hash>).
func dashHex(name string) (start, end int, ok bool) {
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
			return i + 1, j, true
		}
	}
	return 0, 0, false
}

// dashHash finds, at the end of the name before the extension, a hyphen and
// 8 base64url characters that are not part of a name (see NameLike): the
// [name]-[hash] of Vite, Rollup, Rolldown and esbuild.
func dashHash(name string) (start, end int, ok bool) {
	const n = 8
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return 0, 0, false // no extension: a client route, perhaps
	}
	stem := name[:dot]
	if len(stem) < n+2 || stem[len(stem)-n-1] != '-' {
		return 0, 0, false
	}
	h := stem[len(stem)-n:]
	for i := 0; i < len(h); i++ {
		if !isBase64URL(h[i]) {
			return 0, 0, false
		}
	}
	if NameLike(h) {
		return 0, 0, false
	}
	return dot - n, dot, true
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

// NameLike reports whether s, base64url characters, follows a convention
// for naming things rather than looking random: parts between '-' and '_',
// none empty, each a number, words, or words with a number at one end (see
// partLike). So SemiBold, IMG_1234, Roboto40, iPhone15, parseURL, pt-BR-v2,
// longname and 20240101 are names; GpEN3EET, nRK49_hp and B-x_3kQa are not.
func NameLike(s string) bool {
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
