package jaws

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var allCodings = setOf(brotliCoding, zstdCoding, gzipCoding)

func TestNegotiate(t *testing.T) {
	t.Parallel()
	brFirst := []coding{brotliCoding, zstdCoding, gzipCoding}
	gzipFirst := []coding{gzipCoding, zstdCoding, brotliCoding}
	tests := []struct {
		name   string
		values []string // nil: no Accept-Encoding field
		avail  codingSet
		prefs  []coding
		want   coding
	}{
		{"no field", nil, allCodings, brFirst, identity},
		{"empty value", []string{""}, allCodings, brFirst, identity},
		{"blank value", []string{"  "}, allCodings, brFirst, identity},
		{"nothing available", []string{"gzip, br"}, 0, brFirst, identity},
		{"browser: server order", []string{"gzip, deflate, br, zstd"}, allCodings, brFirst, brotliCoding},
		{"browser: other server order", []string{"gzip, deflate, br, zstd"}, allCodings, gzipFirst, gzipCoding},
		{"only gzip available", []string{"gzip, deflate, br, zstd"}, setOf(gzipCoding), brFirst, gzipCoding},
		{"only the unknown", []string{"deflate, compress"}, allCodings, brFirst, identity},
		{"higher q wins over server order", []string{"br;q=0.5, gzip;q=0.8"}, allCodings, brFirst, gzipCoding},
		{"three decimals", []string{"br;q=0.001, gzip;q=0.002"}, allCodings, brFirst, gzipCoding},
		{"tie at q below 1", []string{"gzip;q=0.5, br;q=0.5"}, allCodings, brFirst, brotliCoding},
		{"q=0 refuses", []string{"br;q=0, gzip"}, allCodings, brFirst, gzipCoding},
		{"q=0.000 refuses", []string{"br;q=0.000, zstd;q=0.0, gzip;q=0."}, allCodings, brFirst, identity},
		{"q=1.000", []string{"gzip;q=1.000"}, allCodings, brFirst, gzipCoding},
		{"star", []string{"*"}, allCodings, brFirst, brotliCoding},
		{"star with low weight", []string{"*;q=0.1, gzip;q=0.2"}, allCodings, brFirst, gzipCoding},
		{"star covers the unnamed", []string{"br;q=0, *;q=0.5"}, allCodings, brFirst, zstdCoding},
		{"star q=0", []string{"*;q=0"}, allCodings, brFirst, identity},
		{"star q=0 with gzip", []string{"gzip, *;q=0"}, allCodings, brFirst, gzipCoding},
		{"star q=0 refuses identity too: identity anyway", []string{"*;q=0"}, setOf(gzipCoding), brFirst, identity},
		{"first star counts", []string{"*;q=0, *"}, allCodings, brFirst, identity},
		{"identity;q=0 with an acceptable coding", []string{"identity;q=0, gzip"}, allCodings, brFirst, gzipCoding},
		{"identity;q=0 and nothing acceptable", []string{"identity;q=0"}, allCodings, brFirst, identity},
		{"identity;q=0, only unknown codings", []string{"identity;q=0, deflate"}, allCodings, brFirst, identity},
		{"identity weighted above codings", []string{"gzip;q=0.5, identity"}, allCodings, brFirst, identity},
		{"identity tied with a coding", []string{"gzip, identity"}, allCodings, brFirst, gzipCoding},
		{"identity below a coding", []string{"identity;q=0.5, br"}, allCodings, brFirst, brotliCoding},
		{"identity only", []string{"identity"}, allCodings, brFirst, identity},
		{"star above an explicit coding, identity from star", []string{"*;q=0.9, br;q=0.5"}, setOf(brotliCoding), brFirst, identity},
		{"several lines", []string{"br;q=0.1", "gzip"}, allCodings, brFirst, gzipCoding},
		{"several lines, first mention wins", []string{"gzip;q=0", "gzip"}, allCodings, brFirst, identity},
		{"duplicates: first wins", []string{"gzip, gzip;q=0"}, setOf(gzipCoding), brFirst, gzipCoding},
		{"duplicates: first q=0 wins", []string{"gzip;q=0, gzip;q=1"}, setOf(gzipCoding), brFirst, identity},
		{"x-gzip", []string{"x-gzip"}, allCodings, brFirst, gzipCoding},
		{"non-ASCII look-alike is no coding", []string{"zſtd"}, allCodings, brFirst, identity},
		{"x-gzip q=0", []string{"x-gzip;q=0, gzip"}, setOf(gzipCoding), brFirst, identity},
		{"case-insensitive names", []string{"GZIP, Br;q=0.5"}, allCodings, brFirst, gzipCoding},
		{"case-insensitive q", []string{"br;Q=0, gzip"}, allCodings, brFirst, gzipCoding},
		{"case-insensitive identity", []string{"IDENTITY;q=0, zstd;q=0.2"}, allCodings, brFirst, zstdCoding},
		{"whitespace", []string{"  br ; q=0.3 ,\tgzip\t;\tq = 0.4 "}, allCodings, brFirst, gzipCoding},
		{"empty elements", []string{",, ,gzip,,"}, allCodings, brFirst, gzipCoding},
		{"other parameters", []string{"br;level=3;q=0.2, gzip;x=y;q=0.1"}, allCodings, brFirst, brotliCoding},
		{"malformed q ignored: above 1", []string{"br;q=2, gzip;q=0.5"}, allCodings, brFirst, gzipCoding},
		{"malformed q ignored: 1.001", []string{"br;q=1.001, gzip;q=0.5"}, allCodings, brFirst, gzipCoding},
		{"malformed q ignored: four decimals", []string{"br;q=0.5000, gzip;q=0.1"}, allCodings, brFirst, gzipCoding},
		{"malformed q ignored: not a number", []string{"br;q=high, gzip;q=0.1"}, allCodings, brFirst, gzipCoding},
		{"malformed q ignored: empty", []string{"br;q=, gzip;q=0.1"}, allCodings, brFirst, gzipCoding},
		{"malformed q ignored: negative", []string{"br;q=-1, gzip;q=0.1"}, allCodings, brFirst, gzipCoding},
		{"malformed q=0 does not refuse", []string{"gzip;q=0.0000, gzip"}, allCodings, brFirst, gzipCoding},
		{"malformed only", []string{"gzip;q=x"}, allCodings, brFirst, identity},
		{"prefs restrict", []string{"br, zstd"}, allCodings, []coding{gzipCoding}, identity},
		{"unavailable preferred", []string{"br;q=1, gzip;q=0.1"}, setOf(gzipCoding), brFirst, gzipCoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := negotiate(tt.values, tt.avail, tt.prefs); got != tt.want {
				t.Errorf("negotiate(%q, %b, %v) = %v, want %v", tt.values, tt.avail, tt.prefs, got, tt.want)
			}
		})
	}
}

func TestParseEncodings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      []string
		want    []coding
		wantErr bool
	}{
		{"nil is the default", nil, []coding{brotliCoding, zstdCoding, gzipCoding}, false},
		{"empty serves none", []string{}, nil, false},
		{"one", []string{"gzip"}, []coding{gzipCoding}, false},
		{"order kept", []string{"gzip", "br"}, []coding{gzipCoding, brotliCoding}, false},
		{"case-insensitive", []string{"ZSTD", "Br"}, []coding{zstdCoding, brotliCoding}, false},
		{"x-gzip is gzip", []string{"x-gzip"}, []coding{gzipCoding}, false},
		{"duplicates dropped", []string{"br", "gzip", "br", "x-gzip"}, []coding{brotliCoding, gzipCoding}, false},
		{"unknown", []string{"br", "deflate"}, nil, true},
		{"identity is not a coding to serve", []string{"identity"}, nil, true},
		{"star", []string{"*"}, nil, true},
		{"empty name", []string{""}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseEncodings(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseEncodings(%q): error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !tt.wantErr && !slices.Equal(got, tt.want) {
				t.Errorf("parseEncodings(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// qvalueRE is RFC 9110 §12.4.2's qvalue.
var qvalueRE = regexp.MustCompile(`^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$`)

// refWeights is a reading of Accept-Encoding independent of negotiate's:
// the weight of the first well-formed mention of each coding (x-gzip is
// gzip), of identity and of "*", or -1 when there is none.
func refWeights(values []string) (q [numCodings]float64, star float64) {
	for i := range q {
		q[i] = -1
	}
	star = -1
	for _, v := range values {
		for _, elem := range strings.Split(v, ",") {
			parts := strings.Split(elem, ";")
			name := strings.TrimSpace(parts[0])
			w, ok := 1.0, true
			for _, p := range parts[1:] {
				k, val, _ := strings.Cut(p, "=")
				if !strings.EqualFold(strings.TrimSpace(k), "q") {
					continue
				}
				val = strings.TrimSpace(val)
				if !qvalueRE.MatchString(val) {
					ok = false
					break
				}
				w, _ = strconv.ParseFloat(strings.TrimSuffix(val, "."), 64)
			}
			if !ok {
				continue
			}
			if name == "*" {
				if star < 0 {
					star = w
				}
				continue
			}
			if strings.EqualFold(name, "x-gzip") {
				name = "gzip"
			}
			for c := identity; c < numCodings; c++ {
				if strings.EqualFold(name, codingNames[c]) && q[c] < 0 {
					q[c] = w
				}
			}
		}
	}
	return q, star
}

// FuzzNegotiate: whatever the header, negotiate does not panic, answers
// identity or an available coding, never one the client refused with q=0,
// always one of the highest weight (ties to the server's order), and gives
// the same answer twice.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "gzip", "gzip, deflate, br, zstd", "br;q=0, *", "*;q=0", "identity;q=0",
		"gzip;q=0.5, identity", "x-gzip;q=0.001", "GZIP;Q=1.000", "br;q=2", "gzip\nbr;q=0.9", " , ;q=0,",
		"br;q=0.5000", "*;q=0.5, zstd;q=0", "gzip;q=0, gzip", "identity, *;q=0"} {
		f.Add(s, byte(7), byte(0))
		f.Add(s, byte(2), byte(5))
	}
	perms := [][]coding{
		{brotliCoding, zstdCoding, gzipCoding}, {brotliCoding, gzipCoding, zstdCoding},
		{zstdCoding, brotliCoding, gzipCoding}, {zstdCoding, gzipCoding, brotliCoding},
		{gzipCoding, brotliCoding, zstdCoding}, {gzipCoding, zstdCoding, brotliCoding},
		{gzipCoding}, {brotliCoding, zstdCoding}, {},
	}
	f.Fuzz(func(t *testing.T, hdr string, availBits, prefsIdx byte) {
		var values []string
		if hdr != "" {
			values = strings.Split(hdr, "\n") // several field lines
		}
		avail := codingSet(availBits) & allCodings
		prefs := perms[int(prefsIdx)%len(perms)]
		got := negotiate(values, avail, prefs)
		if again := negotiate(values, avail, prefs); again != got {
			t.Fatalf("not deterministic: %v then %v", got, again)
		}
		if got >= numCodings {
			t.Fatalf("coding %d out of range", got)
		}
		if got != identity && (!avail.has(got) || !slices.Contains(prefs, got)) {
			t.Fatalf("%v chosen, available %b, server's %v", got, avail, prefs)
		}
		q, star := refWeights(values)
		weight := func(c coding) float64 {
			if q[c] >= 0 {
				return q[c]
			}
			return star
		}
		if got == identity {
			// Nothing acceptable, or identity weighed above all.
			for _, c := range prefs {
				if avail.has(c) && weight(c) > 0 && weight(c) >= weight(identity) && len(values) > 0 {
					t.Fatalf("identity for %q, but %v is acceptable at %v (identity %v)", values, c, weight(c), weight(identity))
				}
			}
			return
		}
		if q[got] == 0 {
			t.Fatalf("%v chosen for %q, which refuses it with q=0", got, values)
		}
		if weight(got) <= 0 {
			t.Fatalf("%v chosen for %q at weight %v", got, values, weight(got))
		}
		if weight(identity) > weight(got) {
			t.Fatalf("%v chosen for %q at %v, identity is weighed %v", got, values, weight(got), weight(identity))
		}
		for i, c := range prefs {
			if !avail.has(c) || c == got {
				continue
			}
			before := i < slices.Index(prefs, got)
			if weight(c) > weight(got) || before && weight(c) == weight(got) {
				t.Fatalf("%v chosen for %q at %v, but %v is weighed %v (server order %v)", got, values, weight(got), c, weight(c), prefs)
			}
		}
	})
}
