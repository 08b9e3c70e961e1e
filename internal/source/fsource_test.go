package source

import (
	"bytes"
	"embed"
	"io/fs"
	"testing"
	"testing/fstest"
)

//go:embed testdata/embedded.txt testdata/empty.txt
var embeddedProbe embed.FS

// TestEmbeddedBytesLayout guards the one assumption about embed: an
// embedded file's FileInfo is the file itself, holding its bytes as a
// string. If a Go release changes that, this fails here, and users would
// only lose the saving (EmbeddedBytes reports false and the bytes are
// copied).
func TestEmbeddedBytesLayout(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"testdata/embedded.txt", "testdata/empty.txt"} {
		info, err := fs.Stat(embeddedProbe, name)
		must(t, err)
		b, ok := EmbeddedBytes(info)
		if !ok {
			t.Fatalf("%s: embedded bytes not found: embed's layout changed", name)
		}
		want, err := embeddedProbe.ReadFile(name)
		must(t, err)
		if !bytes.Equal(b, want) || b == nil {
			t.Errorf("%s: %d bytes, want %d", name, len(b), len(want))
		}
	}
	other, _ := fs.Stat(fstest.MapFS{"a": {Data: []byte("x")}}, "a")
	if _, ok := EmbeddedBytes(other); ok {
		t.Error("a MapFS file taken for an embedded one")
	}
}

// TestNewFSImmutable: an embed.FS, and fs.Sub of one, never change; any
// other fs.FS may.
func TestNewFSImmutable(t *testing.T) {
	t.Parallel()
	sub, err := fs.Sub(embeddedProbe, "testdata")
	must(t, err)
	for _, c := range []struct {
		name string
		fsys fs.FS
		want bool
	}{
		{"embed.FS", embeddedProbe, true},
		{"fs.Sub of an embed.FS", sub, true},
		{"fstest.MapFS", fstest.MapFS{"a": {Data: []byte("x")}}, false},
	} {
		if got := NewFS(c.fsys).Immutable(); got != c.want {
			t.Errorf("%s: Immutable() = %v, want %v", c.name, got, c.want)
		}
	}
}
