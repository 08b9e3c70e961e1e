package decode

import (
	"bytes"
	"compress/flate"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

func TestBody(t *testing.T) {
	src := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog\n"), 100)
	encode := func(w interface {
		Write([]byte) (int, error)
		Close() error
	}) {
		w.Write(src)
		w.Close()
	}
	var br, gz, zl, fl bytes.Buffer
	encode(brotli.NewWriter(&br))
	encode(gzip.NewWriter(&gz))
	encode(zlib.NewWriter(&zl))
	fw, _ := flate.NewWriter(&fl, flate.DefaultCompression)
	encode(fw)
	z, _ := zstd.NewWriter(nil)
	zs := z.EncodeAll(src, nil)
	big, _ := zstd.NewWriter(nil, zstd.WithWindowSize(32<<20), zstd.WithSingleSegment(false))
	tooBig := big.EncodeAll(bytes.Repeat(src, 3000), nil)

	tests := []struct {
		name, enc string
		in        []byte
		wantErr   bool
	}{
		{"identity", "", src, false},
		{"br", "br", br.Bytes(), false},
		{"gzip", "gzip", gz.Bytes(), false},
		{"deflate as zlib", "deflate", zl.Bytes(), false},
		{"deflate raw", "deflate", fl.Bytes(), false},
		{"zstd", "zstd", zs, false},
		{"zstd window above 8 MiB", "zstd", tooBig, true},
		{"not gzip", "gzip", src, true},
		{"unknown coding", "compress", src, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Body(tt.enc, tt.in)
			if tt.wantErr {
				if err == nil {
					t.Errorf("no error")
				}
				return
			}
			if err != nil || !bytes.Equal(got, src) {
				t.Errorf("%d bytes, error %v", len(got), err)
			}
		})
	}
}
