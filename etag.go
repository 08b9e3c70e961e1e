package jaws

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"os"
)

// contentETag returns a strong entity-tag derived from the file's bytes alone,
// so every process and every replica serving the same content agrees on it,
// whatever the file's mtime or inode (RFC 9110 §8.8.3). 128 bits of SHA-256
// make an accidental collision out of reach.
//
// It reads through ReadAt, leaving the file offset alone for the transfer.
func contentETag(f *os.File, size int64) (string, error) {
	d := sha256.New()
	if _, err := io.Copy(d, io.NewSectionReader(f, 0, size)); err != nil {
		return "", err
	}
	var sum [sha256.Size]byte
	return formatETag(d.Sum(sum[:0])), nil
}

// etagOfBytes is contentETag for bytes already in memory.
func etagOfBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return formatETag(sum[:])
}

func formatETag(sum []byte) string {
	const n = 16
	var b [2 + 22]byte // base64 of 16 bytes is 22 characters
	b[0] = '"'
	base64.RawURLEncoding.Encode(b[1:], sum[:n])
	b[len(b)-1] = '"'
	return string(b[:])
}
