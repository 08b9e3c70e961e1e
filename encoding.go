package jaws

import (
	"fmt"
	"strings"
)

// defaultEncodings is the server's order of preference: brotli compresses
// text best and every current browser takes it; zstd is close behind and
// newer; gzip is what everything else takes.
var defaultEncodings = []coding{brotliCoding, zstdCoding, gzipCoding}

// parseEncodings turns Options.Compression.Encodings into codings.
func parseEncodings(names []string) ([]coding, error) {
	if names == nil {
		return defaultEncodings, nil
	}
	var cs []coding
	var seen codingSet
	for _, n := range names {
		c := codingByName(n)
		if c == identity {
			return nil, fmt.Errorf("jaws: unknown content coding %q (want br, zstd or gzip)", n)
		}
		if !seen.has(c) {
			seen |= setOf(c)
			cs = append(cs, c)
		}
	}
	return cs, nil
}

// codingByName returns the coding named n, or identity when jaws has none
// by that name. "x-gzip" is gzip (RFC 9110 §8.4.1.3).
func codingByName(n string) coding {
	for c := brotliCoding; c < numCodings; c++ {
		if tokenEqual(n, codingNames[c]) {
			return c
		}
	}
	if tokenEqual(n, "x-gzip") {
		return gzipCoding
	}
	return identity
}

// tokenEqual compares an HTTP token with a lower-case name, ignoring ASCII
// case only: tokens are ASCII, and strings.EqualFold would take "zſtd"
// (a long s) for "zstd".
func tokenEqual(tok, lower string) bool {
	if len(tok) != len(lower) {
		return false
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// qNone marks a coding the Accept-Encoding field does not mention; weights
// are otherwise in thousandths, 0 to 1000 (RFC 9110 §12.4.2).
const qNone = -1

// negotiate picks the coding to answer with from the Accept-Encoding field
// values (RFC 9110 §12.5.3): among the codings in avail, the one with the
// highest weight, ties going to the server's order prefs. Identity wins
// only when the client weighs it above every available coding; when no
// coding is acceptable the answer is identity even if the client refused
// it, as RFC 9110 recommends over a 406. No field at all means identity:
// a client that says nothing may not decode anything.
func negotiate(values []string, avail codingSet, prefs []coding) coding {
	if len(values) == 0 || avail == 0 {
		return identity
	}
	var q [numCodings]int
	for i := range q {
		q[i] = qNone
	}
	star := qNone
	for _, v := range values {
		for v != "" {
			var elem string
			elem, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(elem, ";")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			w, ok := parseWeight(params)
			if !ok {
				continue // a malformed element says nothing
			}
			switch c := codingByName(name); {
			case name == "*":
				if star == qNone {
					star = w
				}
			case c != identity || tokenEqual(name, "identity"):
				if q[c] == qNone { // the first mention counts
					q[c] = w
				}
			}
		}
	}
	if q[identity] == qNone {
		q[identity] = star
	}
	best, bestQ := identity, 0
	for _, c := range prefs {
		w := q[c]
		if w == qNone {
			w = star
		}
		if avail.has(c) && w > bestQ {
			best, bestQ = c, w
		}
	}
	if q[identity] > bestQ {
		return identity
	}
	return best
}

// parseWeight reads the parameters after a coding (";q=0.5"), returning
// the weight in thousandths, 1000 when there is none. ok is false for a
// weight that is not a qvalue (RFC 9110 §12.4.2: "0" to "1" with at most
// three decimals).
func parseWeight(params string) (w int, ok bool) {
	w = 1000
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, _ := strings.Cut(p, "=")
		if !tokenEqual(strings.TrimSpace(k), "q") {
			continue
		}
		if w, ok = parseQValue(strings.TrimSpace(val)); !ok {
			return 0, false
		}
	}
	return w, true
}

func parseQValue(s string) (int, bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	w := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return w, true
	}
	if s[1] != '.' || len(s) > 5 {
		return 0, false
	}
	scale := 100
	for _, d := range []byte(s[2:]) {
		if d < '0' || d > '9' {
			return 0, false
		}
		w += int(d-'0') * scale
		scale /= 10
	}
	if w > 1000 {
		return 0, false
	}
	return w, true
}

// compressibleType reports whether a Content-Type names content that
// compresses well: text, scripts, styles, JSON, XML, SVG, WebAssembly and
// uncompressed fonts. Images, audio, video and archives are compressed
// already.
func compressibleType(ctype string) bool {
	t, _, _ := strings.Cut(ctype, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") {
		return true
	}
	switch t {
	case "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/json", "application/xml", "application/wasm",
		"image/svg+xml", "image/x-icon", "image/vnd.microsoft.icon", "image/bmp",
		"font/ttf", "font/otf", "application/vnd.ms-fontobject":
		return true
	}
	return false
}
