package jaws

import (
	"fmt"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
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
// by that name. "x-gzip" is gzip (RFC 9110 §8.4.1.3). dcz is no such name:
// it takes a dictionary, which Accept-Encoding alone does not give.
func codingByName(n string) coding {
	for c := brotliCoding; c < dczCoding; c++ {
		if httprule.EqualFold(n, codingNames[c]) {
			return c
		}
	}
	if httprule.EqualFold(n, "x-gzip") {
		return gzipCoding
	}
	return identity
}

// qNone marks a coding the Accept-Encoding field does not mention; weights
// are otherwise httprule.Weight's, thousandths from 0 to 1000 (RFC 9110
// §12.4.2).
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
	q, star := weighCodings(values)
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

// weighCodings reads the Accept-Encoding field values: the weight each
// coding is given by name (qNone for none; the first mention counts, and
// dcz too, which only its own name gives), and the weight of "*". A
// malformed element says nothing.
func weighCodings(values []string) (q [numCodings]int, star int) {
	for i := range q {
		q[i] = qNone
	}
	star = qNone
	for _, v := range values {
		for v != "" {
			var elem string
			elem, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(elem, ";")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			w, ok := httprule.Weight(params)
			if !ok {
				continue // a malformed element says nothing
			}
			switch c := codingByName(name); {
			case name == "*":
				if star == qNone {
					star = w
				}
			case c == identity && httprule.EqualFold(name, codingNames[dczCoding]):
				c = dczCoding
				fallthrough
			case c != identity || httprule.EqualFold(name, "identity"):
				if q[c] == qNone { // the first mention counts
					q[c] = w
				}
			}
		}
	}
	return q, star
}
