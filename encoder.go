package jaws

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// encoder compresses whole files, each coding at the configured level.
type encoder struct {
	level     CompressionLevel
	zstdLevel zstd.EncoderLevel
	zstd      func() (*zstd.Encoder, error)
	slots     chan struct{} // compressions allowed at once
}

func newEncoder(level CompressionLevel, slots int) *encoder {
	zl := map[CompressionLevel]zstd.EncoderLevel{
		LevelDefault: zstd.SpeedBetterCompression,
		LevelFastest: zstd.SpeedFastest,
		LevelBest:    zstd.SpeedBestCompression,
	}[level]
	return &encoder{
		level:     level,
		zstdLevel: zl,
		// One zstd encoder, made when first needed: its EncodeAll is safe
		// for concurrent use, and its tables are large.
		zstd: sync.OnceValues(func() (*zstd.Encoder, error) {
			return zstd.NewWriter(nil, zstd.WithEncoderLevel(zl), zstd.WithEncoderConcurrency(1),
				zstd.WithWindowSize(zstdWindow))
		}),
		slots: make(chan struct{}, slots),
	}
}

// compress returns src encoded with c.
func (enc *encoder) compress(c coding, src []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(src) / 2)
	var w io.WriteCloser
	switch c {
	case brotliCoding:
		w = brotli.NewWriterLevel(&buf, [...]int{6, 1, 11}[enc.level])
	case gzipCoding:
		var err error
		if w, err = gzip.NewWriterLevel(&buf, [...]int{9, 1, 9}[enc.level]); err != nil {
			return nil, err
		}
	case zstdCoding:
		z, err := enc.zstd()
		if err != nil {
			return nil, err
		}
		return z.EncodeAll(src, make([]byte, 0, len(src)/2)), nil
	default:
		return nil, errors.New("jaws: no encoder for " + c.String())
	}
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// worthIt reports whether n compressed bytes save enough on size bytes to
// be worth a variant: at least 10%.
func worthIt(n, size int64) bool { return n <= size-size/10 }

var (
	errNotWorth = errors.New("jaws: compression saves too little")
)
