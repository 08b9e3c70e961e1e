package jaws

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// Reading a precompressed sibling as its check needs it (siblingcheck.go):
// the size it records, and its first bytes decoded, within bounds that a
// decompression bomb cannot stretch.

// recordedSize is the decoded size a sibling in c records, compared under
// mask: gzip's ISIZE, the size mod 2^32 (RFC 1952 §2.3.1), in b, its last 8
// bytes; zstd's Frame_Content_Size of its first frame (RFC 8878
// §3.1.1.1.4), when the frame has one, in b, its first bytes. ok is false
// when the sibling records none (brotli), or b is too short to say: the
// decoder then finds it wanting.
func recordedSize(c coding, b []byte) (size, mask uint64, ok bool) {
	switch c {
	case gzipCoding:
		if len(b) == 8 {
			return uint64(binary.LittleEndian.Uint32(b[4:])), 1<<32 - 1, true
		}
	case zstdCoding:
		var h zstd.Header
		if h.Decode(b) == nil && !h.Skippable && h.HasFCS {
			return h.FrameContentSize, ^uint64(0), true
		}
	}
	return 0, 0, false
}

// decodesTo checks that src, in coding c, decodes to want: to want exactly,
// and nothing after it, when whole; else to bytes that start with want. It
// decodes at most len(want)+1 bytes and reads at most len(want)+
// siblingSlack bytes of src, so a decompression bomb costs no more than a
// sibling that is good. stale says how src differs; err is an error reading
// src, which says nothing of its bytes. n counts what was read and decoded.
func decodesTo(c coding, src io.Reader, want []byte, whole bool, n *siblingCount) (stale, err error) {
	in := &boundedReader{r: src, left: int64(len(want)) + siblingSlack}
	defer func() { n.read += in.read }()
	var r io.Reader = in
	var br *bufio.Reader
	if c == gzipCoding {
		// Read through a ByteReader, gzip takes no byte past its member:
		// what follows it is then still in br.
		br = bufio.NewReaderSize(in, 4<<10)
		r = br
	}
	dec, done, err := newDecoder(c, r)
	if err != nil {
		return in.verdict(err)
	}
	defer done()
	if z, ok := dec.(*gzip.Reader); ok {
		z.Multistream(false)
	}
	limit := len(want)
	if whole {
		limit++ // a byte more than the file is a sibling too long
	}
	buf := make([]byte, min(limit, 32<<10))
	got, idle := 0, 0
	for got < limit {
		m, rerr := dec.Read(buf[:min(len(buf), limit-got)])
		n.decoded += int64(m)
		if got+m > len(want) {
			return fmt.Errorf("more than %d bytes", len(want)), nil
		}
		if i := mismatch(buf[:m], want[got:got+m]); i >= 0 {
			return fmt.Errorf("other bytes from byte %d", got+i), nil
		}
		got += m
		if m == 0 && rerr == nil {
			if idle++; idle == 100 {
				rerr = io.ErrNoProgress
			}
		} else {
			idle = 0
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return in.verdict(rerr)
		}
	}
	if got < len(want) {
		return fmt.Errorf("only %d bytes of %d", got, len(want)), nil
	}
	if br != nil && whole {
		if _, err := br.ReadByte(); err != io.EOF {
			if err != nil {
				return in.verdict(err)
			}
			return errors.New("bytes after its gzip member"), nil
		}
	}
	return nil, nil
}

// mismatch is the index of the first byte where a and b differ, or -1.
func mismatch(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// boundedReader reads at most left bytes of r, counting them, and keeps r's
// own errors apart from the decoders'.
type boundedReader struct {
	r    io.Reader
	left int64
	read int64
	over bool  // a read went past the bound
	err  error // r's error, other than io.EOF
}

var errSiblingTooLong = errors.New("jaws: sibling read past its bound")

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.over = true
		return 0, errSiblingTooLong
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.read += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// verdict turns a decoder's error into the reason a sibling is stale, or
// into the read error behind it.
func (b *boundedReader) verdict(err error) (stale, ioErr error) {
	switch {
	case b.err != nil:
		return nil, b.err
	case b.over:
		return fmt.Errorf("more than %d compressed bytes read", b.read), nil
	}
	return err, nil
}

// readerAt reads f at offsets: through its ReadAt, or by seeking when it
// has none. f is the caller's own, so seeking moves nobody else's reads.
func readerAt(f fs.File) (io.ReaderAt, bool) {
	switch f := f.(type) {
	case io.ReaderAt:
		return f, true
	case io.ReadSeeker:
		return seekReaderAt{f}, true
	}
	return nil, false
}

type seekReaderAt struct{ io.ReadSeeker }

func (s seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := s.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(s, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return n, err
}

// newDecoder returns a reader of src decoded from c, and what releases it.
func newDecoder(c coding, src io.Reader) (io.Reader, func(), error) {
	switch c {
	case brotliCoding:
		return brotli.NewReader(src), func() {}, nil
	case zstdCoding:
		d, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdWindow),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, err
		}
		return d, d.Close, nil
	case gzipCoding:
		z, err := gzip.NewReader(src)
		if err != nil {
			return nil, nil, err
		}
		return z, func() { z.Close() }, nil
	}
	return nil, nil, fmt.Errorf("jaws: no decoder for %v", c)
}
