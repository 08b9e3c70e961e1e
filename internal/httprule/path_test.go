package httprule

import (
	"encoding/hex"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	t.Parallel()
	table(t, "CleanPath", CleanPath, []row[string, bool]{
		{"root", "/", true},
		{"empty", "", true},
		{"file", "/a/b.css", true},
		{"no leading slash", "a/b", true},
		{"trailing slash", "/a/b/", true},
		{"empty segment", "/a//b", false},
		{"empty first segment", "//a", false},
		{"two slashes alone", "//", false},
		{"two trailing slashes", "/a//", false},
		{"dot segment", "/a/./b", false},
		{"trailing dot", "/a/.", false},
		{"dot alone", "/.", false},
		{"dot-dot", "/a/../b", false},
		{"dot-dot at the root", "/..", false},
		{"dot-dot with a slash", "/../", false},
		{"names of dots", "/.../..a/a..", true},
		{"hidden name", "/.env", true},
	})
}

// TestNeedlessEscape pins the answer for each kind of escape, alone,
// between letters and after needed escapes: the position does not matter.
func TestNeedlessEscape(t *testing.T) {
	t.Parallel()
	rows := []row[string, bool]{
		// A slash, in either case: a router takes it for part of a segment.
		{"slash", "%2F", true},
		{"slash, lower case", "%2f", true},
		// Unreserved characters (RFC 3986 §2.3).
		{"letter", "%61", true},
		{"capital", "%41", true},
		{"digit", "%30", true},
		{"hyphen", "%2D", true},
		{"dot", "%2E", true},
		{"dot, lower case", "%2e", true},
		{"underscore", "%5F", true},
		{"tilde", "%7E", true},
		{"tilde, lower case", "%7e", true},
		// Sub-delims, ":" and "@" (RFC 3986 §2.2, §3.3): not equivalent to
		// the character, so a router matches them apart.
		{"exclamation mark", "%21", true},
		{"dollar", "%24", true},
		{"ampersand", "%26", true},
		{"apostrophe", "%27", true},
		{"opening parenthesis", "%28", true},
		{"closing parenthesis", "%29", true},
		{"asterisk", "%2A", true},
		{"plus", "%2B", true},
		{"plus, lower case", "%2b", true},
		{"comma", "%2C", true},
		{"semicolon", "%3B", true},
		{"equals", "%3D", true},
		{"colon", "%3A", true},
		{"at", "%40", true},
		// Bytes a path cannot hold as they are: the only spelling.
		{"percent", "%25", false},
		{"space", "%20", false},
		{"NUL", "%00", false},
		{"question mark", "%3F", false},
		{"hash", "%23", false},
		{"quote", "%22", false},
		{"less than", "%3C", false},
		{"backslash", "%5C", false},
		{"caret", "%5E", false},
		{"backtick", "%60", false},
		{"brace", "%7B", false},
		{"bar", "%7C", false},
		{"bracket", "%5B", false},
		{"DEL", "%7F", false},
		{"non-ASCII", "%C3%A9", false},
		{"non-ASCII, lower case", "%c3%a9", true},
		{"non-ASCII, one digit lower case", "%C3%a9", true},
		{"space, lower case", "%2a%20", true},
		{"high byte", "%FF", false},
		// Malformed: never from net/url, refused from anyone.
		{"not hex", "%G1", true},
		{"not hex, second digit", "%1G", true},
		{"a sign", "%+1", true},
		{"two percent signs", "%%41", true},
		{"one digit", "%2", true},
		{"percent alone", "%", true},
	}
	table(t, "NeedlessEscape", NeedlessEscape, rows)
	for _, r := range rows {
		for _, raw := range []string{"/a" + r.in + "b", "/caf%C3%A9/" + r.in, "/100%25/x" + r.in} {
			if got := NeedlessEscape(raw); got != r.want {
				t.Errorf("NeedlessEscape(%q) = %v, want %v", raw, got, r.want)
			}
		}
	}
	for _, raw := range []string{"", "/", "/a/b.css", "/it's/a+b", "/caf%C3%A9/100%25%20off%3F.txt", "/%252e%252e"} {
		if NeedlessEscape(raw) {
			t.Errorf("NeedlessEscape(%q) = true, want false", raw)
		}
	}
}

func TestEscapePath(t *testing.T) {
	t.Parallel()
	rows := []row[string, string]{
		{"", "/", "/"},
		{"", "/a/b.css", "/a/b.css"},
		{"", "/it's/a+b:c@d!$&()*,;=~", "/it's/a+b:c@d!$&()*,;=~"},
		{"", "/café", "/caf%C3%A9"},
		{"", "/100% off?.txt", "/100%25%20off%3F.txt"},
		{"", "/a#b", "/a%23b"},
		{"", "/a\x00b", "/a%00b"},
		{"", "/a\\b", "/a%5Cb"},
	}
	for i := range rows {
		rows[i].name = rows[i].in
	}
	table(t, "EscapePath", EscapePath, rows)
}

// pcharRE is what a path may hold unencoded: RFC 3986 §3.3's pchar
// (unreserved, sub-delims, ":", "@") and "/".
var pcharRE = regexp.MustCompile(`^[A-Za-z0-9._~!$&'()*+,;=:@/-]$`)

// refNeedlessEscape is NeedlessEscape read straight from RFC 3986: the text
// after each "%" must start with two upper-case hex digits (net/url's own
// spelling), which must not decode to a pchar or "/".
func refNeedlessEscape(raw string) bool {
	parts := strings.Split(raw, "%")
	for _, p := range parts[1:] {
		if len(p) < 2 {
			return true
		}
		b, err := hex.DecodeString(p[:2])
		if err != nil || pcharRE.Match(b) || strings.ToUpper(p[:2]) != p[:2] {
			return true
		}
	}
	return false
}

// FuzzNeedlessEscape compares NeedlessEscape with refNeedlessEscape, and
// checks that EscapePath's spelling of the decoded path has no needless
// escape and decodes back to it.
func FuzzNeedlessEscape(f *testing.F) {
	for _, s := range []string{"/", "/a%2Fb", "/priv%61te", "/%21", "/caf%C3%A9", "/%G1", "/%", "/%2", "/%%41", "/100%25", "/it's%27"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := NeedlessEscape(raw), refNeedlessEscape(raw); got != want {
			t.Fatalf("NeedlessEscape(%q) = %v, want %v", raw, got, want)
		}
		p, err := url.PathUnescape(raw)
		if err != nil {
			if !NeedlessEscape(raw) {
				t.Fatalf("%q does not decode (%v), yet has no needless escape", raw, err)
			}
			return
		}
		e := EscapePath(p)
		if NeedlessEscape(e) {
			t.Fatalf("EscapePath(%q) = %q has a needless escape", p, e)
		}
		if d, err := url.PathUnescape(e); err != nil || d != p {
			t.Fatalf("EscapePath(%q) = %q decodes to %q, %v", p, e, d, err)
		}
		if !NeedlessEscape(raw) && !strings.ContainsFunc(raw, func(r rune) bool { return r != '%' && (r >= 0x80 || !PathChar(byte(r))) }) {
			// A spelling of PathChars and escapes with no needless one is
			// the canonical spelling, but for the case of hex digits.
			if upperHex(raw) != e {
				t.Fatalf("%q has no needless escape, but the canonical spelling is %q", raw, e)
			}
		}
	})
}

// upperHex returns raw with the hex digits of its escapes in upper case.
func upperHex(raw string) string {
	b := []byte(raw)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			copy(b[i+1:i+3], strings.ToUpper(string(b[i+1:i+3])))
			i += 2
		}
	}
	return string(b)
}
