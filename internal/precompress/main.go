// Command precompress ships a build compressed-only: it writes a bundler's
// output directory (Vite's dist/, say) to a new directory in which every
// file that compresses well is there only as its precompressed siblings,
// NAME.br, NAME.zst and NAME.gz, and NAME itself is not. jaws serves such a
// file under its own name (docs/compression.md, "Files shipped compressed
// only"). The
// example's compressed-only site, example/site-compressed/, is made by it
// (example/vite/build.sh):
//
//	go run ./internal/precompress -out example/site-compressed example/vite/dist
//
// The rule. A file is shipped compressed-only when both hold:
//
//   - its type, by its extension (jaws's table, internal/webtypes), is one
//     jaws compresses (webtypes.Compressible, the handler's rule too):
//     text, scripts, styles, JSON, XML, SVG, WebAssembly, icons and
//     uncompressed fonts;
//   - its brotli is at most 90% of it (minSaving): a file of a few bytes
//     gains nothing.
//
// Every other file (PNG, JPEG, WebP, WOFF and WOFF2, video, archives, all
// compressed already; a tiny text file) is copied as it is. The codings are
// each at its best level, so that the output depends on the input alone:
// brotli at quality 11 (window 2^22), zstd at SpeedBestCompression in one
// frame, gzip at level 9 with no name and no time in
// its header. The same input gives the same bytes, which the tests hold.
//
// -codings writes fewer siblings (-codings br: brotli alone, which every
// current browser takes; jaws decodes the file once for other clients).
//
// -decode does the reverse: it writes the plain build a compressed-only
// directory holds (each name decoded from its siblings, which must agree),
// as the bundler wrote it. Re-encoding a directory after an update of the encoders needs no
// bundler:
//
//	go run ./internal/precompress -decode -out /tmp/plain example/site-compressed
//	rm -r example/site-compressed
//	go run ./internal/precompress -out example/site-compressed /tmp/plain
//
// -out must not exist, or be empty: the command never removes a file.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/decode"
	"github.com/jaws-go/jaws/internal/webtypes"
)

func main() {
	out := flag.String("out", "", "directory to write: must not exist, or be empty")
	dec := flag.Bool("decode", false, "write the plain build a compressed-only directory holds, instead")
	which := flag.String("codings", "br,zst,gz", "the siblings to write, by suffix, from br, zst and gz")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./internal/precompress [-decode] [-codings LIST] -out DIR BUILD\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	src := os.DirFS(flag.Arg(0))
	var files map[string][]byte
	var err error
	if *dec {
		files, err = Decode(src)
	} else {
		var report []Shipped
		var cs []coding
		cs, err = codingsOf(*which)
		if err == nil {
			files, report, err = Compress(src, cs)
		}
		if err == nil {
			printReport(os.Stdout, report)
		}
	}
	if err == nil {
		err = write(*out, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "precompress:", err)
		os.Exit(1)
	}
}

// minSaving is the least a file's brotli must save for the file to be
// shipped compressed-only: a tenth of it.
const minSaving = 0.10

// A coding is one precompressed sibling: its suffix, its name in
// Content-Encoding, and its encoder.
type coding struct {
	ext, name string
	encode    func([]byte) ([]byte, error)
}

// codings are the siblings jaws serves, in its default order of
// preference; all three are written unless -codings says otherwise. Their
// suffixes are decode's, so that Decode reads what Compress writes.
var codings = []coding{
	{decode.Exts["br"], "br", encodeBrotli},
	{decode.Exts["zstd"], "zstd", encodeZstd},
	{decode.Exts["gzip"], "gzip", encodeGzip},
}

// Shipped says how one file of the build is shipped: Sizes holds its size
// and, for a file shipped compressed-only, each sibling's, by suffix.
type Shipped struct {
	Name  string
	Size  int
	Sizes map[string]int // ".br" -> bytes; nil: kept as it is
}

// codingsOf returns the codings a list of suffixes names ("br,zst,gz"), in
// the order of codings.
func codingsOf(list string) ([]coding, error) {
	names := strings.Split(list, ",")
	var cs []coding
	for _, c := range codings {
		if slices.Contains(names, strings.TrimPrefix(c.ext, ".")) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 || len(cs) != len(names) {
		return nil, fmt.Errorf("-codings %q: want a list of br, zst and gz", list)
	}
	return cs, nil
}

// Compress returns the files of the compressed-only directory made of the
// build src with the siblings cs, by name, and a line per file of src. A
// build that holds precompressed siblings already is refused: its
// compressed-only shape is its own.
func Compress(src fs.FS, cs []coding) (map[string][]byte, []Shipped, error) {
	files := map[string][]byte{}
	var report []Shipped
	err := walk(src, func(name string, data []byte) error {
		if ext := path.Ext(name); slices.ContainsFunc(codings, func(c coding) bool { return c.ext == ext }) {
			return fmt.Errorf("%s: the build holds a precompressed file already", name)
		}
		s := Shipped{Name: name, Size: len(data)}
		encoded, err := compressed(name, data, cs)
		if err != nil {
			return err
		}
		if encoded == nil {
			files[name] = data
		} else {
			s.Sizes = map[string]int{}
			for _, c := range cs {
				files[name+c.ext] = encoded[c.ext]
				s.Sizes[c.ext] = len(encoded[c.ext])
			}
		}
		report = append(report, s)
		return nil
	})
	return files, report, err
}

// compressed returns the siblings cs data is shipped as, by suffix, or nil
// if the rule keeps it as it is.
func compressed(name string, data []byte, cs []coding) (map[string][]byte, error) {
	if !webtypes.Compressible(webtypes.ByExtension(strings.ToLower(path.Ext(name)))) {
		return nil, nil
	}
	br, err := encodeBrotli(data) // the rule's measure, whatever cs holds
	if err != nil {
		return nil, fmt.Errorf("%s: br: %w", name, err)
	}
	if float64(len(br)) > (1-minSaving)*float64(len(data)) {
		return nil, nil
	}
	out := map[string][]byte{}
	for _, c := range cs {
		b, err := c.encode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, c.name, err)
		}
		out[c.ext] = b
	}
	return out, nil
}

// Decode returns the plain build a compressed-only directory holds: each
// name shipped as siblings decoded, the other files as they are. Every
// sibling of a name must decode to the same bytes (decode.Tree).
func Decode(src fs.FS) (map[string][]byte, error) {
	tree, err := decode.Tree(src)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for name, f := range tree {
		files[name] = f.Plain
	}
	return files, nil
}

// walk calls f with every regular file of src, by name, in lexical order.
func walk(src fs.FS, f func(name string, data []byte) error) error {
	return fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", name)
		}
		data, err := fs.ReadFile(src, name)
		if err != nil {
			return err
		}
		return f(name, data)
	})
}

// write writes files under dir, which must not exist or be empty.
func write(dir string, files map[string][]byte) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: remove it first", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// printReport writes a line per file and the totals: what the build is
// plain, and what the compressed-only directory holds.
func printReport(w io.Writer, report []Shipped) {
	plain, shipped := 0, 0
	for _, s := range report {
		plain += s.Size
		if s.Sizes == nil {
			shipped += s.Size
			fmt.Fprintf(w, "%-52s %8d  kept as it is\n", s.Name, s.Size)
			continue
		}
		var parts []string
		for _, c := range codings {
			if _, ok := s.Sizes[c.ext]; !ok {
				continue
			}
			shipped += s.Sizes[c.ext]
			parts = append(parts, fmt.Sprintf("%s %d", c.ext, s.Sizes[c.ext]))
		}
		fmt.Fprintf(w, "%-52s %8d  %s\n", s.Name, s.Size, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "%d files: %d bytes plain, %d bytes compressed-only\n", len(report), plain, shipped)
}

func encodeBrotli(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, brotli.BestCompression)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	err := w.Close()
	return buf.Bytes(), err
}

// encodeZstd compresses data within the window a browser's decoder takes
// (decode.ZstdWindow), whatever its size.
func encodeZstd(data []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(decode.ZstdWindow))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil), nil
}

func encodeGzip(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	err = w.Close()
	return buf.Bytes(), err
}
