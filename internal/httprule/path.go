package httprule

import "strings"

// The canonical spelling of a URL path. A router in front of a file server
// matches the path as the client spelled it (chi matches r.URL.RawPath when
// net/url set one, else r.URL.Path), while a file server opens the decoded,
// cleaned name. Wherever the two can read one request differently, a route
// guarding "/private/*" could be passed by a spelling that names a file under
// private/ but is routed elsewhere ("/x/../private/key", "/priv%61te/key",
// "/private%2Fkey"). So a path is canonical only when both readings agree:
// CleanPath of the decoded path and no NeedlessEscape in the raw one.

// CleanPath reports whether p, a decoded URL path with or without its leading
// slash, has no empty, "." or ".." segment: path.Clean would leave it as it
// is, but for one trailing slash, which names a directory.
func CleanPath(p string) bool {
	p = strings.TrimPrefix(p, "/")
	for p != "" {
		seg, rest, more := strings.Cut(p, "/")
		if seg == "." || seg == ".." || seg == "" && more {
			return false
		}
		p = rest
	}
	return true
}

// NeedlessEscape reports whether raw, a URL path as the client sent it
// (r.URL.RawPath), has a percent-encoding that a router matching raw paths
// reads otherwise than the file server reads the decoded path, or one that
// is malformed:
//
//   - an escape of a byte a path may hold as it is (PathChar): an unreserved
//     character ("%61" for "a", "%7E" for "~"), which RFC 3986 §2.3 says
//     must not be encoded and which a router takes for another name; a slash
//     ("%2F", "%2f"), which a router takes for part of a segment; a
//     sub-delim, ":" or "@" ("%21", "%2B", "%3A", "%40"), which RFC 3986
//     §2.2 says is not equivalent to the character itself, so a router
//     matching "/a+b/*" does not match "/a%2Bb/key";
//   - an escape in lower-case hex ("%c3%a9"): net/url spells escapes in
//     upper case, so it keeps a raw path spelled in lower case, and a router
//     matching raw paths reads "/caf%c3%a9/" as another name than "/café/";
//   - a "%" not followed by two hex digits ("%G1", "%2" or "%" at the end):
//     no URL net/url parses has one (net/http answers 400), so it can only
//     come from a handler in front that set RawPath itself.
//
// The escapes that remain are those, in upper-case hex, of bytes a path
// cannot hold as they are (a space, "%", "?", "#", a NUL, non-ASCII bytes):
// they are the only spelling and change nothing. An empty raw (net/url sets no RawPath when
// the client's spelling is its own encoding of the path) has none: the
// router then matches the decoded path, as the file server does.
func NeedlessEscape(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			continue
		}
		if len(raw)-i < 3 {
			return true
		}
		hi, ok1 := unhex(raw[i+1])
		lo, ok2 := unhex(raw[i+2])
		if !ok1 || !ok2 || PathChar(hi<<4|lo) || isLowerHex(raw[i+1]) || isLowerHex(raw[i+2]) {
			return true
		}
		i += 2
	}
	return false
}

func isLowerHex(c byte) bool { return 'a' <= c && c <= 'f' }

// UnescapesTo reports whether raw, a percent-encoded URL path or part of
// one, decodes to want: each escape as the byte it stands for, the rest as
// it is. A malformed escape decodes to nothing.
func UnescapesTo(raw, want string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '%' {
			if i+2 >= len(raw) {
				return false
			}
			hi, ok1 := unhex(raw[i+1])
			lo, ok2 := unhex(raw[i+2])
			if !ok1 || !ok2 {
				return false
			}
			c = hi<<4 | lo
			i += 2
		}
		if j == len(want) || want[j] != c {
			return false
		}
		j++
	}
	return j == len(want)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// PathChar reports whether c may stand in a URL path as it is: a pchar of
// RFC 3986 §3.3 (unreserved, sub-delims, ":" and "@") or the "/" between
// segments. Every other byte must be percent-encoded.
func PathChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
}

// EscapePath percent-encodes the bytes of p that a URL path cannot hold as
// they are (those that are not PathChar), in upper-case hex, and only
// those: the canonical spelling of the decoded path p, which has no
// NeedlessEscape.
func EscapePath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if PathChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
