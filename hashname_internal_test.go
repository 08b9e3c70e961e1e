package jaws

import (
	"crypto/sha256"
	"testing"
)

func TestHashedNameRoundTrip(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("x"))
	h := "2d711642b726b044"
	for _, c := range []struct{ file, hashed string }{
		{"app.js", "app." + h + ".js"},
		{"js/app.js", "js/app." + h + ".js"},
		{"vendor.min.css", "vendor.min." + h + ".css"},
		{"LICENSE", "LICENSE." + h},
		{"dir.v2/README", "dir.v2/README." + h},
		{".bashrc", ".bashrc." + h},
		{"x.0123456789abcdef", "x." + h + ".0123456789abcdef"},
		{"a.tar.gz", "a.tar." + h + ".gz"},
	} {
		t.Run(c.file, func(t *testing.T) {
			if got := hashedName(c.file, &sum); got != c.hashed {
				t.Fatalf("hashedName = %q, want %q", got, c.hashed)
			}
			found := false
			for _, cand := range splitHashedName(c.hashed) {
				found = found || cand.orig == c.file && cand.hash == h
			}
			if !found {
				t.Errorf("splitHashedName(%q) = %v, want %q among them", c.hashed, splitHashedName(c.hashed), c.file)
			}
		})
	}
	for _, name := range []string{"app.js", "app.0123456789ABCDEF.js", "app.0123456789abcde.js", ".0123456789abcdef", "a/.0123456789abcdef.js", "20240101.csv"} {
		if cs := splitHashedName(name); len(cs) != 0 {
			t.Errorf("splitHashedName(%q) = %v, want none", name, cs)
		}
	}
}
