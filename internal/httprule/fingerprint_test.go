package httprule

import (
	"strings"
	"testing"
)

// TestFingerprintWhere: where each form's hash is, so that a pattern can put
// a wildcard in its place; middleware's tests cover which names are hashed.
func TestFingerprintWhere(t *testing.T) {
	t.Parallel()
	hex64 := strings.Repeat("0123456789abcdef", 4)
	tests := []struct{ name, hash string }{
		{"app.3f9a1c2b.js", "3f9a1c2b"},
		{"vendor.min.0123456789abcdef.css", "0123456789abcdef"},
		{"a.b.3f9a1c2b.c.js", "3f9a1c2b"},
		{"3f9a1c2b.3f9a1c2b.js", "3f9a1c2b"},
		{"LICENSE.0123456789abcdef", "0123456789abcdef"},
		{"main.262fc9206c15e6d7bb6a.js.map", "262fc9206c15e6d7bb6a"},
		{"main-" + hex64 + ".js", hex64},
		{"jquery-3-" + hex64 + ".7.1.min.js", hex64},
		{"LICENSE-" + hex64, hex64},
		{"index-GpEN3EET.js", "GpEN3EET"},
		{"index--oCY0rLb.js", "-oCY0rLb"},
		{"logo.min-5Hm-8hZx.svg", "5Hm-8hZx"},
		{"index-CCxGxcHe.js.map", "CCxGxcHe"},
		{"app.js", ""},
		{".3f9a1c2b.js", ""},
		{"index-Inter_Bd.woff2", ""},
		{"a/app.3f9a1c2b.js", ""}, // not one element
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start, end, ok := Fingerprint(tt.name)
			switch {
			case ok != (tt.hash != ""):
				t.Fatalf("Fingerprint(%q) ok = %v, want %v", tt.name, ok, !ok)
			case ok && tt.name[start:end] != tt.hash:
				t.Errorf("Fingerprint(%q) = [%d:%d] %q, want %q", tt.name, start, end, tt.name[start:end], tt.hash)
			}
		})
	}
}
