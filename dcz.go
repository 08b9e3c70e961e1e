package jaws

import (
	"crypto/sha256"

	"github.com/klauspost/compress/zstd"
)

// The dcz content coding, "Dictionary-Compressed Zstandard" (RFC 9842 §5):
// a 40-byte header, then a zstd frame made with the dictionary as raw
// content (RFC 8878 §5). andybalholm/brotli has no shared dictionaries (its
// WriterOptions are a quality and a window), so jaws has no dcb; zstd alone
// serves Chromium, which sends "dcb, dcz".

// dczMagic begins a dcz stream: a zstd skippable frame (magic 0x184D2A5E,
// little-endian) of 32 bytes (0x00000020), which are the dictionary's
// SHA-256, so that a zstd decoder unaware of it skips it.
var dczMagic = [8]byte{0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00}

// dczHeaderLen is the magic and the hash.
const dczHeaderLen = len(dczMagic) + sha256.Size

const (
	// dczWindowFloor and dczWindowCeiling bound the window a dcz decoder
	// must support (RFC 9842 §5): max(8 MiB, 1.25 × the dictionary's
	// size), at most 128 MiB.
	dczWindowFloor   = 8 << 20
	dczWindowCeiling = 128 << 20
)

// dczWindow is the window a dcz stream of src bytes made with a dictionary
// of dict bytes uses: the smallest power of two that holds both, so that
// the whole dictionary stays in reach (RFC 9842 §5: the dictionary is
// available until the input exceeds the window), and at most the largest
// power of two the decoder must support (zstd windows are powers of two).
// At least zstd's smallest, 1 KiB. A dictionary larger than that limit
// (only with Compression.MaxSize above 6.4 MiB) is in reach only in part.
func dczWindow(dict, src int) int {
	limit := min(max(dczWindowFloor, dict+dict/4), dczWindowCeiling)
	w := zstd.MinWindowSize
	for w < dict+src && 2*w <= limit {
		w *= 2
	}
	return w
}

// dcz returns src in the dcz coding, compressed with dict, whose SHA-256 is
// sum, at the encoder's zstd level. The encoder is made for the one call:
// a dcz variant is made once per version of a file and dictionary, and
// its tables hold the dictionary.
func (enc *encoder) dcz(src, dict []byte, sum *[sha256.Size]byte) ([]byte, error) {
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(enc.zstdLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(dczWindow(len(dict), len(src))),
		zstd.WithEncoderDictRaw(0, dict)) // ID 0: the frame names no dictionary, as raw content has none
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := make([]byte, dczHeaderLen, dczHeaderLen+len(src)/8)
	copy(out, dczMagic[:])
	copy(out[len(dczMagic):], sum[:])
	return z.EncodeAll(src, out), nil
}
