package jaws

import (
	"net/http"
	"net/textproto"
	"strings"
	"time"
)

// condResult is the outcome of one precondition (RFC 9110 §13.1).
type condResult int

const (
	condNone  condResult = iota // header absent or to be ignored
	condTrue                    // the condition holds
	condFalse                   // the condition fails
)

// evalPreconditions applies RFC 9110 §13.2.2 in its order and returns the
// status that ends the request (304 or 412), or 0 to go on. useRange reports
// whether a Range header may be honoured, after If-Range (§13.1.5).
func evalPreconditions(method string, h http.Header, etag string, modtime time.Time) (status int, useRange bool) {
	// Step 1-2: If-Match, or else If-Unmodified-Since.
	c := checkIfMatch(h, etag)
	if c == condNone {
		c = checkIfUnmodifiedSince(h, modtime)
	}
	if c == condFalse {
		return http.StatusPreconditionFailed, false
	}
	// Step 3-4: If-None-Match, or else If-Modified-Since for GET/HEAD.
	safe := method == http.MethodGet || method == http.MethodHead
	switch checkIfNoneMatch(h, etag) {
	case condFalse:
		if safe {
			return http.StatusNotModified, false
		}
		return http.StatusPreconditionFailed, false
	case condNone:
		if safe && checkIfModifiedSince(h, modtime) == condFalse {
			return http.StatusNotModified, false
		}
	}
	// Step 5: Range, which §14.2 defines for GET alone ("MUST ignore" it
	// otherwise, so HEAD gets the headers of the 200), after If-Range.
	return 0, method == http.MethodGet && checkIfRange(h, etag, modtime) != condFalse
}

// checkIfMatch implements §13.1.1: strong comparison, "*" matches any current
// representation.
func checkIfMatch(h http.Header, etag string) condResult {
	return matchList(h["If-Match"], etag, etagStrongMatch, condTrue, condFalse)
}

// checkIfNoneMatch implements §13.1.2: weak comparison; a match means the
// condition is false.
func checkIfNoneMatch(h http.Header, etag string) condResult {
	return matchList(h["If-None-Match"], etag, etagWeakMatch, condFalse, condTrue)
}

// matchList scans entity-tag lists (possibly over several field lines) for
// "*" or a tag that matches etag. An unparsable member ends the scan, as in
// net/http.
func matchList(values []string, etag string, match func(a, b string) bool, onMatch, onMiss condResult) condResult {
	if len(values) == 0 {
		return condNone
	}
	seen := false
	for _, list := range values {
		for {
			list = textproto.TrimString(list)
			if list == "" {
				break
			}
			if list[0] == ',' {
				list = list[1:]
				continue
			}
			seen = true
			if list[0] == '*' {
				return onMatch
			}
			tag, rest := scanETag(list)
			if tag == "" {
				break
			}
			if match(tag, etag) {
				return onMatch
			}
			list = rest
		}
	}
	if !seen {
		return condNone // a field with an empty value: nothing to evaluate
	}
	return onMiss
}

// checkIfUnmodifiedSince implements §13.1.4.
func checkIfUnmodifiedSince(h http.Header, modtime time.Time) condResult {
	return checkDate(h, "If-Unmodified-Since", modtime, condTrue)
}

// checkIfModifiedSince implements §13.1.3 (the caller limits it to GET/HEAD).
func checkIfModifiedSince(h http.Header, modtime time.Time) condResult {
	return checkDate(h, "If-Modified-Since", modtime, condFalse)
}

// checkDate compares modtime, to the second, with the date in the header
// key: notAfter when modtime is not later, the other result when it is.
func checkDate(h http.Header, key string, modtime time.Time, notAfter condResult) condResult {
	t, ok := headerTime(h, key, modtime)
	if !ok {
		return condNone
	}
	if modtime.Truncate(time.Second).Compare(t) <= 0 {
		return notAfter
	}
	return condTrue + condFalse - notAfter
}

// checkIfRange implements §13.1.5: an entity-tag must match strongly, a date
// must equal Last-Modified exactly. Anything else means "send it all".
func checkIfRange(h http.Header, etag string, modtime time.Time) condResult {
	ir := textproto.TrimString(first(h, "If-Range"))
	if ir == "" || first(h, "Range") == "" {
		return condNone
	}
	if tag, _ := scanETag(ir); tag != "" {
		if etagStrongMatch(tag, etag) {
			return condTrue
		}
		return condFalse
	}
	if isZeroTime(modtime) {
		return condFalse
	}
	t, err := http.ParseTime(ir)
	if err != nil || t.Unix() != modtime.Unix() {
		return condFalse
	}
	return condTrue
}

// headerTime returns the HTTP-date in header key, if present and valid and if
// modtime is meaningful enough to compare with it.
func headerTime(h http.Header, key string, modtime time.Time) (time.Time, bool) {
	v := first(h, key)
	if v == "" || isZeroTime(modtime) {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v)
	return t, err == nil
}

// first returns the first value of a header by its canonical key, without
// the canonicalization http.Header.Get spends on every call: these lookups
// run on every request.
func first(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// scanETag returns the entity-tag at the start of s (RFC 9110 §8.8.3) and the
// rest of s, or "" if there is none.
func scanETag(s string) (etag, rest string) {
	s = textproto.TrimString(s)
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s[start:]) < 2 || s[start] != '"' {
		return "", ""
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80:
		case c == '"':
			return s[:i+1], s[i+1:]
		default:
			return "", ""
		}
	}
	return "", ""
}

// etagStrongMatch is the strong comparison of §8.8.3.2: both strong, same.
func etagStrongMatch(a, b string) bool {
	return a == b && a != "" && a[0] == '"'
}

// etagWeakMatch is the weak comparison of §8.8.3.2: same opaque-tag.
func etagWeakMatch(a, b string) bool {
	return b != "" && strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}

var unixEpoch = time.Unix(0, 0)

// isZeroTime reports whether t is unset, as net/http judges it: such a time
// is neither sent as Last-Modified nor compared.
func isZeroTime(t time.Time) bool {
	return t.IsZero() || t.Equal(unixEpoch)
}
