package httprule

import (
	"strings"
	"testing"
)

func TestEqualFold(t *testing.T) {
	t.Parallel()
	table(t, "EqualFold", func(in two[string, string]) bool { return EqualFold(in.a, in.b) }, []row[two[string, string], bool]{
		{"same", two[string, string]{"gzip", "gzip"}, true},
		{"upper", two[string, string]{"GZIP", "gzip"}, true},
		{"mixed both sides", two[string, string]{"Accept-Encoding", "aCCEPT-eNCODING"}, true},
		{"empty", two[string, string]{"", ""}, true},
		{"longer", two[string, string]{"gzip2", "gzip"}, false},
		{"shorter", two[string, string]{"gzi", "gzip"}, false},
		{"other letter", two[string, string]{"gzap", "gzip"}, false},
		{"long s is not s", two[string, string]{"zſtd", "zstd"}, false},
		{"Kelvin sign is not k", two[string, string]{"\u212Aeep-alive", "keep-alive"}, false},
		{"not folded: ^ and ~", two[string, string]{"^", "~"}, false},
		{"not folded: @ and `", two[string, string]{"@", "`"}, false},
		{"not folded: [ and {", two[string, string]{"[", "{"}, false},
		{"non-ASCII bytes equal", two[string, string]{"caf\xc3\xa9", "caf\xc3\xa9"}, true},
		{"non-ASCII bytes not folded", two[string, string]{"\xc3\x89", "\xc3\xa9"}, false},
	})
}

func TestListContains(t *testing.T) {
	t.Parallel()
	type in = two[[]string, string]
	table(t, "ListContains", func(in in) bool { return ListContains(in.a, in.b) }, []row[in, bool]{
		{"none", in{nil, "Accept-Encoding"}, false},
		{"alone", in{[]string{"Accept-Encoding"}, "Accept-Encoding"}, true},
		{"case", in{[]string{"accept-encoding"}, "Accept-Encoding"}, true},
		{"in a list", in{[]string{"Accept, Accept-Encoding"}, "Accept-Encoding"}, true},
		{"first of a list", in{[]string{"Accept-Encoding,Accept"}, "Accept-Encoding"}, true},
		{"second line", in{[]string{"Accept", "Origin,accept-ENCODING"}, "Accept-Encoding"}, true},
		{"tabs", in{[]string{"Accept,\tAccept-Encoding\t"}, "Accept-Encoding"}, true},
		{"empty elements", in{[]string{",, Accept-Encoding ,"}, "Accept-Encoding"}, true},
		{"star", in{[]string{"Accept, *"}, "*"}, true},
		{"a prefix is not it", in{[]string{"Accept-Encoding-X"}, "Accept-Encoding"}, false},
		{"a suffix is not it", in{[]string{"X-Accept-Encoding"}, "Accept-Encoding"}, false},
		{"space-separated is one element", in{[]string{"Accept Accept-Encoding"}, "Accept-Encoding"}, false},
		{"vertical tab is not white space", in{[]string{"\vAccept-Encoding"}, "Accept-Encoding"}, false},
		{"no-break space is not white space", in{[]string{"Accept-Encoding\u00a0"}, "Accept-Encoding"}, false},
		{"long s", in{[]string{"Accept-Encoding, cloſe"}, "close"}, false},
		{"an empty token is an empty element", in{[]string{"a,,b"}, ""}, true},
	})
}

func TestListCount(t *testing.T) {
	t.Parallel()
	type in = two[[]string, string]
	table(t, "ListCount", func(in in) int { return ListCount(in.a, in.b) }, []row[in, int]{
		{"none", in{nil, "Accept-Encoding"}, 0},
		{"once", in{[]string{"Accept, accept-encoding"}, "Accept-Encoding"}, 1},
		{"two lines", in{[]string{"Accept-Encoding", "Origin, Accept-Encoding"}, "Accept-Encoding"}, 2},
		{"one line twice", in{[]string{"Accept-Encoding,\tACCEPT-ENCODING "}, "Accept-Encoding"}, 2},
		{"a longer name is not it", in{[]string{"Accept-Encodings"}, "Accept-Encoding"}, 0},
	})
}

func TestHasToken(t *testing.T) {
	t.Parallel()
	type in = two[string, string]
	table(t, "HasToken", func(in in) bool { return HasToken(in.a, in.b) }, []row[in, bool]{
		{"exact", in{"close", "close"}, true},
		{"case", in{"Close", "close"}, true},
		{"upper", in{"CLOSE", "close"}, true},
		{"in a list", in{"keep-alive, close", "close"}, true},
		{"no space", in{"keep-alive,close", "close"}, true},
		{"space-separated counts", in{"keep-alive close", "close"}, true},
		{"after a tab", in{"\tclose", "close"}, true},
		{"before a tab", in{"close\tx", "close"}, true},
		{"prefix of a word", in{"closed", "close"}, false},
		{"suffix of a word", in{"unclose", "close"}, false},
		{"inside a word", in{"x-close-y", "close"}, false},
		{"semicolon is no boundary", in{"close;x", "close"}, false},
		{"empty token", in{"close", ""}, false},
		{"longer token", in{"clos", "close"}, false},
		{"empty value", in{"", "close"}, false},
		{"long s", in{"cloſe", "close"}, false},
		{"Kelvin sign", in{"\u212Aeep-alive", "keep-alive"}, false},
		{"keep-alive", in{"Keep-Alive", "keep-alive"}, true},
		{"second occurrence", in{"closer, close", "close"}, true},
		{"upper-case token", in{"close", "CLOSE"}, true},
	})
}

// foldsTo reports whether x equals the lower-case ASCII token ignoring
// ASCII case: a non-ASCII byte never equals an ASCII one, and on ASCII text
// strings.ToLower folds exactly A-Z.
func foldsTo(x, token string) bool {
	for i := 0; i < len(x); i++ {
		if x[i] >= 0x80 {
			return false
		}
	}
	return strings.ToLower(x) == token
}

// refHasToken is net/http's hasToken as it reads: a token between
// boundaries, found by trying every position.
func refHasToken(v, token string) bool {
	if token == "" {
		return false
	}
	boundary := func(i int) bool { return i < 0 || i >= len(v) || strings.IndexByte(" ,\t", v[i]) >= 0 }
	for sp := 0; sp+len(token) <= len(v); sp++ {
		if boundary(sp-1) && boundary(sp+len(token)) && foldsTo(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

// FuzzHasToken compares HasToken with a plain reading of net/http's rule,
// and ListContains with a split on commas, for ASCII tokens.
func FuzzHasToken(f *testing.F) {
	for _, s := range []string{"close", "keep-alive, close", "Keep-Alive close", "closed", "\tclose\t", "cloſe", "a,,b", " , "} {
		f.Add(s, "close")
		f.Add(s, "Keep-Alive")
	}
	f.Fuzz(func(t *testing.T, v, token string) {
		if !foldsTo(token, strings.ToLower(token)) {
			return // not ASCII
		}
		token = strings.ToLower(token)
		if got, want := HasToken(v, token), refHasToken(v, token); got != want {
			t.Fatalf("HasToken(%q, %q) = %v, want %v", v, token, got, want)
		}
		want := false
		for _, e := range strings.Split(v, ",") {
			want = want || foldsTo(strings.Trim(e, " \t"), token)
		}
		if got := ListContains([]string{v}, token); got != want {
			t.Fatalf("ListContains(%q, %q) = %v, want %v", v, token, got, want)
		}
	})
}
