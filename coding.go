package jaws

// The content codings, as every layer names them: the store finds
// precompressed siblings by their extensions, the content-coding layer
// negotiates them (negotiate.go, variants.go), the handler labels responses
// with them (represent.go).

// coding is a content coding jaws can serve (RFC 9110 §8.4.1); identity,
// the zero value, is the file's own bytes.
type coding uint8

const (
	identity coding = iota
	brotliCoding
	zstdCoding
	gzipCoding
	// dczCoding is "Dictionary-Compressed Zstandard" (RFC 9842 §5): made
	// per dictionary a request names, never a sibling, never negotiated by
	// Accept-Encoding alone (dictionary.go).
	dczCoding
	numCodings
)

// codingNames are the tokens of Content-Encoding; codingExts the suffixes
// of precompressed siblings, as written by brotli(1), zstd(1) and gzip(1).
var (
	codingNames = [numCodings]string{"identity", "br", "zstd", "gzip", "dcz"}
	codingExts  = [numCodings]string{"", ".br", ".zst", ".gz", ""}
)

func (c coding) String() string { return codingNames[c] }

// codingSet is a set of codings, one bit each.
type codingSet uint8

func (s codingSet) has(c coding) bool { return s&(1<<c) != 0 }

func setOf(cs ...coding) codingSet {
	var s codingSet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}
