package httprule

// LongLived reports whether a response whose Cache-Control field has the
// values given may be kept by a client at least minAge seconds without
// asking again: it has "immutable" (RFC 8246) or a max-age of minAge or
// more (RFC 9111 §5.2.2.1), and neither "no-store" nor "no-cache" (which
// keep it from being used without revalidation, qualified or not). A
// max-age that is not a number, or given twice, counts as 0: RFC 9111
// §4.2.1 has a cache treat such a response as stale. Directive names
// compare ASCII case-insensitively; values may be quoted, and a quoted one
// may hold commas.
func LongLived(values []string, minAge int64) bool {
	long, seen := false, false
	for _, v := range values {
		for v != "" {
			var name, value string
			name, value, v = nextDirective(v)
			switch {
			case EqualFold(name, "no-store"), EqualFold(name, "no-cache"):
				return false
			case EqualFold(name, "immutable"):
				long = true
			case EqualFold(name, "max-age"):
				age, ok := ParseDigits(value) // delta-seconds (§1.2.2)
				if seen || !ok {
					return false
				}
				seen = true
				long = long || age >= minAge
			}
		}
	}
	return long
}

// nextDirective splits the first directive off a Cache-Control list: its
// name, its value unquoted (quoted-pair escapes left as they are: no value
// this package reads has one), and the rest after the comma.
func nextDirective(v string) (name, value, rest string) {
	i := 0
	for i < len(v) && v[i] != ',' && v[i] != '=' {
		i++
	}
	name = trimOWS(v[:i])
	if i == len(v) || v[i] == ',' {
		if i < len(v) {
			i++
		}
		return name, "", v[i:]
	}
	i++ // the '='
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if i < len(v) && v[i] == '"' {
		j := i + 1
		for j < len(v) && v[j] != '"' {
			if v[j] == '\\' {
				j++
			}
			j++
		}
		value = v[i+1 : min(j, len(v))]
		i = min(j+1, len(v))
	} else {
		j := i
		for j < len(v) && v[j] != ',' {
			j++
		}
		value = trimOWS(v[i:j])
		i = j
	}
	for i < len(v) && v[i] != ',' {
		i++ // junk after a quoted value
	}
	if i < len(v) {
		i++
	}
	return name, value, v[i:]
}

// ParseDigits parses 1*DIGIT: a Range position (RFC 9110 §14.1.1), a
// Cache-Control delta-seconds (RFC 9111 §1.2.2). Values too large for an
// int64 saturate, since a position past any file, or an age past any
// lifetime, is still valid syntax.
func ParseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-9)/10 {
			n = 1<<63 - 1
			continue
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
