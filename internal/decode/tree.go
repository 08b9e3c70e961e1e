package decode

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
)

// Shipped is one file of a tree shipped compressed-only: its bytes
// decoded, and the siblings it was shipped as, by coding. A file shipped
// plain has no siblings.
type Shipped struct {
	Plain    []byte
	Siblings map[string][]byte // "br" -> NAME.br's bytes
}

// Exts are the precompressed siblings' suffixes, by coding. jaws serves
// these three; the tests and tools name them from here.
var Exts = map[string]string{"br": ".br", "zstd": ".zst", "gzip": ".gz"}

// Tree reads a tree shipped compressed-only (internal/precompress writes
// one), by the names a client asks for: a name shipped as siblings, each
// decoded, and every other file as it is. The siblings of a name must
// decode to the same bytes, and a name must not be there both plain and
// as a sibling: jaws would serve one and hide the other.
func Tree(fsys fs.FS) (map[string]Shipped, error) {
	files := map[string]Shipped{}
	from := map[string]string{} // a name -> the file it was read from last
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", name)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		plain, enc := name, ""
		for e, ext := range Exts {
			if p, ok := strings.CutSuffix(name, ext); ok {
				plain, enc = p, e
			}
		}
		f, seen := files[plain]
		switch {
		case seen && enc == "":
			return fmt.Errorf("%s is there both plain and as %s", plain, from[plain])
		case seen && f.Siblings == nil:
			return fmt.Errorf("%s is there both plain and as %s", plain, name)
		case enc == "":
			files[name], from[name] = Shipped{Plain: data}, name
			return nil
		}
		b, err := Body(enc, data)
		if err != nil {
			return fmt.Errorf("%s does not decode: %w", name, err)
		}
		if seen && !bytes.Equal(f.Plain, b) {
			return fmt.Errorf("%s and %s decode to different files", from[plain], name)
		}
		if f.Siblings == nil {
			f = Shipped{Plain: b, Siblings: map[string][]byte{}}
		}
		f.Siblings[enc] = data
		files[plain], from[plain] = f, name
		return nil
	})
	return files, err
}
