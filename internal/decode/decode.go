// Package decode undoes HTTP content codings, as a client would, for the
// tests and the benchmark tools that check what jaws sent.
package decode

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ZstdWindow is the largest window an HTTP zstd decoder must accept (RFC
// 9659 §3). Browsers refuse larger ones, so a test should too.
const ZstdWindow = 8 << 20

// Body returns b decoded from the content coding enc ("" for none).
func Body(enc string, b []byte) ([]byte, error) {
	var r io.Reader
	switch enc {
	case "":
		return b, nil
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "gzip":
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		r = z
	case "deflate":
		// RFC 9110 says zlib; some servers send raw DEFLATE. Take either.
		z, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			r = flate.NewReader(bytes.NewReader(b))
		} else {
			r = z
		}
	case "zstd":
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(ZstdWindow))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.DecodeAll(b, nil)
	default:
		return nil, fmt.Errorf("unknown Content-Encoding %q", enc)
	}
	return io.ReadAll(r)
}
