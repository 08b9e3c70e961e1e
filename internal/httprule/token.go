package httprule

import "strings"

// EqualFold reports whether s and t are equal ignoring ASCII case only, as
// net/http compares tokens (its internal ascii.EqualFold): tokens are ASCII
// (RFC 9110 §5.6.2), and strings.EqualFold would take "zſtd" (a long s) for
// "zstd" or "\u212Aeep-alive" (the Kelvin sign) for "keep-alive".
func EqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lower(s[i]) != lower(t[i]) {
			return false
		}
	}
	return true
}

// IsTchar reports whether c may be in a token: tchar of RFC 9110 §5.6.2.
func IsTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// ListContains reports whether any of values, the lines of a field whose
// value is a comma-separated list (RFC 9110 §5.6.1: Vary, Accept-Encoding,
// Connection), has an element equal to token, ASCII case-insensitively, once
// the optional white space around it (spaces and tabs, §5.6.3) is trimmed.
// It is the rule of golang.org/x/net/http/httpguts.HeaderValuesContainsToken.
func ListContains(values []string, token string) bool {
	return ListCount(values, token) > 0
}

// ListCount is how many elements of values, read as ListContains reads
// them, are equal to token: how many times a field's lines name it ("Vary:
// Accept-Encoding" added once by each of two middlewares counts 2).
func ListCount(values []string, token string) int {
	n := 0
	for _, v := range values {
		for elem := range strings.SplitSeq(v, ",") {
			if EqualFold(trimOWS(elem), token) {
				n++
			}
		}
	}
	return n
}

// HasToken reports whether token occurs in v, ASCII case-insensitively,
// between token boundaries: the start or end of v, a space, a comma or a tab.
// It is net/http's own test of a Connection field (its hasToken, behind
// Request.wantsClose and the server's keep-alive decisions), quirks and all:
// it also finds "close" in "keep-alive close", which ListContains does not.
// Code that must predict what net/http does with a connection uses it;
// anything else reads lists with ListContains.
func HasToken(v, token string) bool {
	if len(token) > len(v) || token == "" {
		return false
	}
	if v == token {
		return true
	}
	first := lower(token[0])
	for sp := 0; sp <= len(v)-len(token); sp++ {
		if lower(v[sp]) != first {
			continue
		}
		if sp > 0 && !isTokenBoundary(v[sp-1]) {
			continue
		}
		if end := sp + len(token); end != len(v) && !isTokenBoundary(v[end]) {
			continue
		}
		if EqualFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

func isTokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }

// trimOWS trims the optional white space of RFC 9110 §5.6.3, spaces and
// tabs, from both ends of s.
func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
