package httprule

import "testing"

// TestLongLived: which Cache-Control values let a client keep a response a
// day.
func TestLongLived(t *testing.T) {
	t.Parallel()
	const day = 86400
	table(t, "LongLived", func(v []string) bool { return LongLived(v, day) }, []row[[]string, bool]{
		{"none", nil, false},
		{"immutable default", []string{Immutable}, true},
		{"immutable alone", []string{"immutable"}, true},
		{"a year", []string{"max-age=31536000"}, true},
		{"a day", []string{"max-age=86400"}, true},
		{"less than a day", []string{"max-age=86399"}, false},
		{"upper case", []string{"PUBLIC, MAX-AGE=86400"}, true},
		{"quoted", []string{`max-age="86400"`}, true},
		{"spaces", []string{" public ,  max-age = 86400 "}, true},
		{"two lines", []string{"public", "max-age=90000"}, true},
		{"no-cache", []string{"max-age=31536000, no-cache"}, false},
		{"no-cache qualified", []string{`no-cache="Set-Cookie, X-A", max-age=31536000`}, false},
		{"no-store", []string{"no-store"}, false},
		{"no-store beside immutable", []string{"immutable", "no-store"}, false},
		{"max-age twice", []string{"max-age=31536000, max-age=90000"}, false},
		{"max-age not a number", []string{"max-age=1d"}, false},
		{"max-age empty", []string{"max-age="}, false},
		{"max-age negative", []string{"max-age=-1"}, false},
		{"huge max-age", []string{"max-age=99999999999999999999999"}, true},
		{"s-maxage only", []string{"s-maxage=31536000"}, false},
		{"private", []string{"private, max-age=31536000"}, true},
		{"comma in quotes", []string{`x="a, no-store", max-age=86400`}, true},
		{"unterminated quote", []string{`x="a, max-age=86400`}, false},
		{"must-revalidate", []string{"max-age=86400, must-revalidate"}, true},
	})
}
