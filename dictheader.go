package jaws

import (
	"crypto/sha256"
	"net/http"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// The fields of compression dictionaries (RFC 9842), as small pure
// functions: reading Available-Dictionary and what Accept-Encoding says of
// dcz, the rule on cross-origin requests, and writing Use-As-Dictionary
// with the pattern of a versioned name as the client sees its URL.

// parseAvailableDictionary reads the Available-Dictionary field (RFC 9842
// §2.2): a Structured Field Item (RFC 8941 §3.3) whose bare item is a Byte
// Sequence (§3.3.5) holding a SHA-256. It is parsed strictly as RFC 8941
// §4.2 says: one field line (several would combine into a list, which is
// no Item), leading and trailing spaces only, parameters allowed and
// ignored, and anything else fails, as does a hash of another length. ok is
// false for a malformed field, which the request is then served as if it
// had not sent.
func parseAvailableDictionary(values []string) (sum [sha256.Size]byte, ok bool) {
	if len(values) != 1 {
		return sum, false
	}
	s := strings.Trim(values[0], " ")
	if len(s) < 2 || s[0] != ':' {
		return sum, false
	}
	end := strings.IndexByte(s[1:], ':')
	if end < 0 {
		return sum, false
	}
	b64, rest := s[1:1+end], s[2+end:]
	if !sfParameters(rest) {
		return sum, false
	}
	n, ok := decodeBase64(sum[:], b64)
	return sum, ok && n == sha256.Size
}

// decodeBase64 decodes b64, the content of an RFC 8941 Byte Sequence, into
// dst: the standard alphabet (RFC 4648 §4), "=" padding only at the end
// and, as §4.2.7 asks of parsers, accepted without it. It fails on any
// other character, on padding that is not what the length needs, and when
// dst is too small; n is the bytes decoded.
func decodeBase64(dst []byte, b64 string) (n int, ok bool) {
	data := strings.TrimRight(b64, "=")
	if pad := len(b64) - len(data); pad > 0 && (pad > 2 || len(b64)%4 != 0) {
		return 0, false
	}
	if len(data)%4 == 1 {
		return 0, false // 6 bits: no byte
	}
	var acc uint32
	bits := 0
	for i := 0; i < len(data); i++ {
		v, ok := base64Value(data[i])
		if !ok {
			return 0, false
		}
		acc = acc<<6 | uint32(v)
		bits += 6
		if bits >= 8 {
			bits -= 8
			if n == len(dst) {
				return 0, false
			}
			dst[n] = byte(acc >> bits)
			n++
		}
	}
	return n, true
}

func base64Value(c byte) (byte, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		return c - 'A', true
	case 'a' <= c && c <= 'z':
		return c - 'a' + 26, true
	case '0' <= c && c <= '9':
		return c - '0' + 52, true
	case c == '+':
		return 62, true
	case c == '/':
		return 63, true
	}
	return 0, false
}

// sfParameters reports whether s, what follows an Item's bare item once
// trailing spaces are gone, is RFC 8941 parameters (§3.1.2, parsed as
// §4.2.3.2 does): *( ";" *SP key [ "=" bare-item ] ).
func sfParameters(s string) bool {
	for s != "" {
		if s[0] != ';' {
			return false
		}
		s = strings.TrimLeft(s[1:], " ")
		k := 0
		for k < len(s) && sfKeyChar(s[k], k == 0) {
			k++
		}
		if k == 0 {
			return false
		}
		s = s[k:]
		if s != "" && s[0] == '=' {
			var ok bool
			if s, ok = sfBareItem(s[1:]); !ok {
				return false
			}
		}
	}
	return true
}

// sfKeyChar: key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ).
func sfKeyChar(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', c == '*':
		return true
	case first:
		return false
	}
	return '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// sfBareItem consumes one RFC 8941 bare item (§4.2.3.1) from the start of s
// and returns what follows it: an Integer or Decimal, a String, a Token, a
// Byte Sequence or a Boolean.
func sfBareItem(s string) (rest string, ok bool) {
	if s == "" {
		return "", false
	}
	switch c := s[0]; {
	case c == '-' || '0' <= c && c <= '9':
		return sfNumber(s)
	case c == '"':
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\':
				if i++; i == len(s) || s[i] != '"' && s[i] != '\\' {
					return "", false
				}
			case c == '"':
				return s[i+1:], true
			case c < 0x20 || c > 0x7e:
				return "", false
			}
		}
		return "", false
	case c == '*' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
		i := 1
		for i < len(s) && (httprule.IsTchar(s[i]) || s[i] == ':' || s[i] == '/') {
			i++
		}
		return s[i:], true
	case c == ':':
		end := strings.IndexByte(s[1:], ':')
		if end < 0 {
			return "", false
		}
		for i := 1; i <= end; i++ {
			if _, ok := base64Value(s[i]); !ok && s[i] != '=' {
				return "", false
			}
		}
		return s[end+2:], true
	case c == '?':
		if len(s) < 2 || s[1] != '0' && s[1] != '1' {
			return "", false
		}
		return s[2:], true
	}
	return "", false
}

// sfNumber consumes an Integer (up to 15 digits) or a Decimal (up to 12
// digits, a dot and 1 to 3 more), as RFC 8941 §4.2.4 parses them.
func sfNumber(s string) (rest string, ok bool) {
	start := 0
	if s[0] == '-' {
		start = 1
	}
	if start == len(s) || s[start] < '0' || s[start] > '9' {
		return "", false
	}
	i, dot := start, -1
	for ; i < len(s); i++ {
		if c := s[i]; c == '.' && dot < 0 {
			if i-start > 12 {
				return "", false
			}
			dot = i
		} else if c < '0' || c > '9' {
			break
		}
		if n := i - start + 1; dot < 0 && n > 15 || n > 16 {
			return "", false
		}
	}
	if dot >= 0 && (i-dot-1 < 1 || i-dot-1 > 3) {
		return "", false
	}
	return s[i:], true
}

// acceptsDictionary reports whether the Accept-Encoding field values name
// the dcz coding with a weight above zero, at least as high as the weight
// of the coding the request would otherwise get (other; identity counts
// as acceptable whatever it says, as negotiate treats it). Only an explicit
// "dcz" counts, not "*": RFC 9842 §6.1 has a client list it only when it
// holds a dictionary for the request.
func acceptsDictionary(values []string, other coding) bool {
	q, star := weighCodings(values)
	wo := q[other]
	if wo == qNone {
		wo = star
	}
	return q[dczCoding] > 0 && (other == identity || q[dczCoding] >= wo)
}

// dictionaryReadable is RFC 9842 §9.3.3's rule for the server: false for a
// cross-origin request whose response a dictionary must not compress, by
// the request's Fetch Metadata (Sec-Fetch-Site, Sec-Fetch-Mode) and, for a
// CORS request, the response's Access-Control-Allow-Origin, which an outer
// handler sets before jaws runs, or Options.Header (serveFound adds its
// fields before dictFor reads). A request without Fetch Metadata (no
// browser, or an old one) may be compressed: the browsers that send
// Available-Dictionary send it too.
func dictionaryReadable(req, resp http.Header) bool {
	site, ok := sfField(req, "Sec-Fetch-Site")
	if !ok || site == "same-origin" {
		return true
	}
	mode, ok := sfField(req, "Sec-Fetch-Mode")
	if !ok {
		return true
	}
	switch mode {
	case "navigate", "same-origin":
		return true
	case "cors":
		allow, ok1 := sfField(resp, "Access-Control-Allow-Origin")
		origin, ok2 := sfField(req, "Origin")
		return ok1 && ok2 && (allow == "*" || allow == origin)
	}
	return false
}

// sfField returns a field's value and whether it is present; a field sent
// on several lines has a value no rule above names ("").
func sfField(h http.Header, key string) (string, bool) {
	v, ok := h[key]
	if !ok {
		return "", false
	}
	if len(v) != 1 {
		return "", true
	}
	return strings.Trim(v[0], " \t"), true
}

// requestPath is the path of r's target as the client sent it (RFC 9112
// §3.2), percent-encoded as it was: r.RequestURI's path, whatever a router
// or http.StripPrefix made of r.URL since. An absolute-form target
// ("http://host/p", sent to proxies) gives its path; "" when there is
// none (a request made in the program, which has no RequestURI, or "*").
func requestPath(r *http.Request) string {
	p := r.RequestURI
	if p != "" && p[0] != '/' {
		i := strings.Index(p, "://")
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(p[i+3:], '/')
		if j < 0 {
			return ""
		}
		p = p[i+3+j:]
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return p
}

// dictionaryPattern returns the URL Pattern (RFC 9842 §2.1.1) that matches
// the next versions of a versioned name as the client sees them: raw, the
// request's path as sent (requestPath), with a "*" in place of the version
// and URLPattern's special characters escaped elsewhere. name is the
// decoded, slash-separated name the request served, its last segments
// those of raw, and name[vstart:vend] the version. ok is false when raw does
// not end in an encoding of name's versioned segment and those after it (a
// ServeFile under another URL), or holds a byte that neither a URL path nor
// the field can (RFC 9842 matches the percent-encoded path).
func dictionaryPattern(raw, name string, vstart, vend int) (pattern string, ok bool) {
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] >= 0x7f {
			return "", false
		}
	}
	// The segment holding the version, and the segments after it.
	segStart := strings.LastIndexByte(name[:vstart], '/') + 1
	segEnd := len(name)
	if i := strings.IndexByte(name[vend:], '/'); i >= 0 {
		segEnd = vend + i
	}
	tail := name[segEnd:]
	rawEnd := len(raw)
	for range strings.Count(tail, "/") {
		if rawEnd = strings.LastIndexByte(raw[:rawEnd], '/'); rawEnd < 0 {
			return "", false
		}
	}
	rawStart := strings.LastIndexByte(raw[:rawEnd], '/') + 1
	if rawStart == 0 || !httprule.UnescapesTo(raw[rawEnd:], tail) {
		return "", false
	}
	seg := raw[rawStart:rawEnd]
	pre, ver, suf := name[segStart:vstart], name[vstart:vend], name[vend:segEnd]
	// The version is unreserved characters (hex, base64url): sent as they
	// are, they are found as they are; the fixed parts may be escaped.
	for i := 0; i+len(ver) <= len(seg); i++ {
		if seg[i:i+len(ver)] == ver && httprule.UnescapesTo(seg[:i], pre) && httprule.UnescapesTo(seg[i+len(ver):], suf) {
			at := rawStart + i
			return escapeURLPattern(raw[:at]) + "*" + escapeURLPattern(raw[at+len(ver):]), true
		}
	}
	return "", false
}

// escapeURLPattern escapes, with a backslash, the characters a URL
// Pattern's pathname gives a meaning (the URL Pattern Standard's
// tokenizer): ":" names a group, "*" is a wildcard, "(" ")" a regular
// expression, "{" "}" a group, "?" and "+" modifiers, and "\" escapes.
func escapeURLPattern(s string) string {
	if !strings.ContainsAny(s, `:*(){}?+\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`:*(){}?+\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// useAsDictionary is the Use-As-Dictionary value (RFC 9842 §2.1), a
// Structured Field Dictionary: the match pattern as an sf-string, and
// match-dest when the file's type says which requests load it ("script"
// for JavaScript, "style" for CSS, Fetch's destinations), so that a fetch
// of the same URL for another use gets no dcz. No id: jaws finds a
// dictionary by its hash, so requests carry no Dictionary-ID.
func useAsDictionary(pattern, ctype string) string {
	var b strings.Builder
	b.WriteString(`match="`)
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(pattern[i])
	}
	b.WriteByte('"')
	if dest := fetchDestination(ctype); dest != "" {
		b.WriteString(`, match-dest=("` + dest + `")`)
	}
	return b.String()
}

// fetchDestination is the Fetch destination of requests that load a file
// of Content-Type ctype, where the type says: "script" or "style".
func fetchDestination(ctype string) string {
	t, _, _ := strings.Cut(ctype, ";")
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript", "text/ecmascript":
		return "script"
	case "text/css":
		return "style"
	}
	return ""
}
