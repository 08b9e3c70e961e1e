package decode

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// TestTree: a tree reads by the names a client asks for, and a sibling
// that would serve other bytes than its name's is an error.
func TestTree(t *testing.T) {
	text := []byte(strings.Repeat("a file shipped compressed-only\n", 50))
	var br, gz, other bytes.Buffer
	w := brotli.NewWriter(&br)
	w.Write(text)
	w.Close()
	z := gzip.NewWriter(&gz)
	z.Write(text)
	z.Close()
	z = gzip.NewWriter(&other)
	z.Write([]byte("another file"))
	z.Close()
	tree := func(files map[string][]byte) fstest.MapFS {
		fsys := fstest.MapFS{}
		for name, b := range files {
			fsys[name] = &fstest.MapFile{Data: b}
		}
		return fsys
	}

	tests := []struct {
		name    string
		files   map[string][]byte
		want    map[string]Shipped
		wantErr string
	}{
		{"a plain file", map[string][]byte{"logo.png": []byte("PNG")},
			map[string]Shipped{"logo.png": {Plain: []byte("PNG")}}, ""},
		{"br and gzip siblings", map[string][]byte{"dir/app.js.br": br.Bytes(), "dir/app.js.gz": gz.Bytes(), "logo.png": []byte("PNG")},
			map[string]Shipped{
				"dir/app.js": {Plain: text, Siblings: map[string][]byte{"br": br.Bytes(), "gzip": gz.Bytes()}},
				"logo.png":   {Plain: []byte("PNG")},
			}, ""},
		{"siblings that disagree", map[string][]byte{"app.js.br": br.Bytes(), "app.js.gz": other.Bytes()},
			nil, "app.js.br and app.js.gz decode to different files"},
		{"a name both plain and a sibling", map[string][]byte{"app.js": text, "app.js.gz": gz.Bytes()},
			nil, "app.js is there both plain and as app.js.gz"},
		{"a sibling that does not decode", map[string][]byte{"app.js.br": []byte("not brotli")},
			nil, "app.js.br does not decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Tree(tree(tt.files))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d files, want %d", len(got), len(tt.want))
			}
			for name, w := range tt.want {
				g, ok := got[name]
				if !ok || !bytes.Equal(g.Plain, w.Plain) || len(g.Siblings) != len(w.Siblings) {
					t.Fatalf("%s: %v, %d bytes and %d siblings; want %d bytes and %d siblings",
						name, ok, len(g.Plain), len(g.Siblings), len(w.Plain), len(w.Siblings))
				}
				for enc, b := range w.Siblings {
					if !bytes.Equal(g.Siblings[enc], b) {
						t.Errorf("%s: the %s sibling is not the file's", name, enc)
					}
				}
			}
		})
	}
}
