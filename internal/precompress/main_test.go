package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jaws-go/jaws/internal/decode"
)

// committed is the example's compressed-only site, which this command made
// (example/vite/build.sh).
const committed = "../../example/site-compressed"

// TestCommittedOutput: example/site-compressed/ is what the command makes
// of the build it decodes to, byte for byte: every sibling decodes, the
// siblings of a name agree, no file the rule compresses is left plain, and
// no file it keeps was compressed. A hand edit, a stale sibling or a change
// of the encoders fails here; regenerate with example/vite/build.sh (see
// CONTRIBUTING.md, The example site).
func TestCommittedOutput(t *testing.T) {
	t.Parallel()
	src := os.DirFS(committed)
	plain, err := Decode(src)
	if err != nil {
		t.Fatalf("%s: %v", committed, err)
	}
	want, report, err := Compress(mapFS(plain), codings)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	err = fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		got, err := fs.ReadFile(src, name)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s/%s: the command would not write it (a file the rule compresses left plain?)", committed, name)
		case !bytes.Equal(got, w):
			t.Errorf("%s/%s: %d bytes, not the %d the command writes", committed, name, len(got), len(w))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if !slices.Contains(names, name) {
			t.Errorf("%s/%s is missing", committed, name)
		}
	}
	only := 0
	for _, s := range report {
		if s.Sizes != nil {
			only++
		}
	}
	if only == 0 || !slices.Contains(names, "index.html.br") {
		t.Errorf("%s has %d compressed-only files, and no index.html.br: not a compressed-only build", committed, only)
	}
}

func mapFS(files map[string][]byte) fstest.MapFS {
	m := fstest.MapFS{}
	for name, b := range files {
		m[name] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return m
}

// text is n bytes of a script, which compresses well.
func text(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "export const v%d = %q;\n", i, strings.Repeat("ab", i%7))
	}
	return b.Bytes()[:n]
}

// noise is n bytes that do not compress.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// TestRule: which files are shipped compressed-only, and which as they are.
func TestRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		only bool
	}{
		{"index.html", text(800), true},
		{"assets/index-CCxGxcHe.js", text(20000), true},
		{"assets/app.MJS", text(2000), true}, // the extension's case does not matter
		{"assets/style.css", text(1500), true},
		{"assets/logo.svg", text(1500), true},
		{"data/x.json", text(1500), true},
		{"assets/mod.wasm", text(1500), true},
		{"assets/font.ttf", text(1500), true},
		{"assets/photo.png", text(1500), false}, // compressed already, by its type
		{"assets/font.woff2", text(1500), false},
		{"assets/font.woff", text(1500), false},
		{"assets/clip.webm", text(1500), false},
		{"assets/blob.bin", text(1500), false}, // a type jaws does not compress
		{"noext", text(1500), false},
		{"tiny.js", []byte("x"), false},   // brotli saves nothing
		{"random.js", noise(4000), false}, // nor here
		{"robots.txt", text(200), true},   // a tenth saved is enough
		{"assets/a.map", text(3000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, report, err := Compress(fstest.MapFS{tt.name: {Data: tt.data}}, codings)
			if err != nil {
				t.Fatal(err)
			}
			if len(report) != 1 || (report[0].Sizes != nil) != tt.only {
				t.Fatalf("report %+v; want compressed-only: %v", report, tt.only)
			}
			var want []string
			if tt.only {
				want = []string{tt.name + ".br", tt.name + ".gz", tt.name + ".zst"}
			} else {
				want = []string{tt.name}
			}
			if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
				t.Fatalf("writes %q, want %q", got, want)
			}
			back, err := Decode(mapFS(files))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back[tt.name], tt.data) || len(back) != 1 {
				t.Errorf("decodes to %d files, %s of %d bytes; want %d bytes", len(back), tt.name, len(back[tt.name]), len(tt.data))
			}
		})
	}
}

// TestDeterministic: the same build gives the same bytes. It is small:
// brotli at its best is slow under -race, and TestCommittedOutput holds
// a real build to the bytes committed.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	build := fstest.MapFS{"index.html": {Data: text(900)}, "assets/app.js": {Data: text(8 << 10)}}
	a, _, err := Compress(build, codings)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Compress(build, codings)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(a, b, bytes.Equal) {
		t.Error("two runs over one build wrote different bytes")
	}
}

// TestZstdLarge: a file larger than zstd's window for HTTP is compressed
// within it, and decodes under the window a browser takes.
func TestZstdLarge(t *testing.T) {
	t.Parallel()
	data := text(decode.ZstdWindow + 1<<20)
	z, err := encodeZstd(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode.Body("zstd", z)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decodes to %d bytes, %v; want the %d bytes", len(got), err, len(data))
	}
}

// TestCodings: -codings writes the siblings it names, and no others.
func TestCodings(t *testing.T) {
	t.Parallel()
	cs, err := codingsOf("gz,br")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := Compress(fstest.MapFS{"a.js": {Data: text(2000)}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(files)), []string{"a.js.br", "a.js.gz"}; !slices.Equal(got, want) {
		t.Errorf("-codings gz,br writes %q, want %q", got, want)
	}
	for _, bad := range []string{"", "br,deflate", "identity"} {
		if _, err := codingsOf(bad); err == nil {
			t.Errorf("-codings %q: no error", bad)
		}
	}
}

// TestRefused: what the command will not do.
func TestRefused(t *testing.T) {
	t.Parallel()
	if _, _, err := Compress(fstest.MapFS{"a.js": {Data: text(2000)}, "a.js.br": {Data: []byte("x")}}, codings); err == nil {
		t.Error("a build with a precompressed file: no error")
	}
	files, _, err := Compress(fstest.MapFS{"a.js": {Data: text(2000)}, "b.js": {Data: text(3000)}}, codings)
	if err != nil {
		t.Fatal(err)
	}
	files["a.js.gz"] = files["b.js.gz"]
	if _, err := Decode(mapFS(files)); err == nil || !strings.Contains(err.Error(), "decode to different files") {
		t.Errorf("siblings that disagree: %v", err)
	}
	delete(files, "a.js.gz")
	files["a.js"] = text(2000)
	if _, err := Decode(mapFS(files)); err == nil || !strings.Contains(err.Error(), "both plain and") {
		t.Errorf("a name both plain and compressed: %v", err)
	}
	files = map[string][]byte{"x.js.br": []byte("not brotli")}
	if _, err := Decode(mapFS(files)); err == nil {
		t.Error("a sibling that does not decode: no error")
	}

	dir := t.TempDir()
	if err := write(dir, map[string][]byte{"a/b.txt": []byte("b")}); err != nil {
		t.Fatalf("writing into an empty directory: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a", "b.txt")); err != nil || string(got) != "b" {
		t.Fatalf("a/b.txt: %q, %v", got, err)
	}
	if err := write(dir, map[string][]byte{"c.txt": nil}); err == nil {
		t.Error("writing into a directory that is not empty: no error")
	}
}
