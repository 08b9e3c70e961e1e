package jaws

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"io/fs"
	"path"
	"strconv"
	"time"

	"github.com/jaws-go/jaws/internal/source"
)

// Validators. A file served from memory is read whole anyway, so its ETag is
// its content's: the same bytes give the same ETag on every replica, whatever
// their mtimes. A file sent from disk is not read before its first byte goes
// out, so its ETag costs no read: it is built from its size and its mtime to
// the nanosecond, which cp -p, rsync -t, tar and container layers preserve,
// so replicas agree; inode and ctime, which they do not preserve, stay out.
// A digest sibling ("video.mp4.sha256") gives such a file its content ETag
// after all, at the cost of one small read per entry build.

// etagOfBytes returns a strong entity-tag derived from the bytes alone (RFC
// 9110 §8.8.3). 128 bits of SHA-256 make an accidental collision out of
// reach.
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

// metaETag is the strong entity-tag of a file sent from disk: its mtime in
// nanoseconds and its size, in hex, joined by a dot, which no content ETag
// holds, so the two kinds never collide. It changes whenever the bytes may
// have, except for bytes rewritten with the size and mtime restored (or
// rewritten twice, same size, within one tick of the file system's clock).
// It is strong because, but for those two cases, jaws never serves two
// byte sequences under it: the entry is rebuilt whenever the file's
// identity, size or mtime change, and on Linux its ctime too
// (internal/source).
func metaETag(size int64, mtime time.Time) string {
	b := make([]byte, 0, 40)
	b = append(b, '"')
	b = strconv.AppendInt(b, mtime.UnixNano(), 16)
	b = append(b, '.')
	b = strconv.AppendInt(b, size, 16)
	b = append(b, '"')
	return string(b)
}

// digestExt names a file's digest sibling, in sha256sum(1)'s format.
const digestExt = ".sha256"

// maxDigestSibling bounds what is read of a digest sibling: one line of
// sha256sum's output for a name of any sane length.
const maxDigestSibling = 4 << 10

// readDigest parses a digest sibling: the first line of sha256sum's output,
// "<64 hex digits>  <name>" (or " *<name>" in binary mode), or the digits
// alone. A name, when given, must be the file's own base name, so a sibling
// copied from another file is not believed.
func readDigest(r io.Reader, file string) (sum [sha256.Size]byte, ok bool) {
	buf := make([]byte, maxDigestSibling)
	n, _ := io.ReadFull(r, buf)
	line := buf[:n]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, "\r")
	if len(line) < 2*sha256.Size {
		return sum, false
	}
	if _, err := hex.Decode(sum[:], line[:2*sha256.Size]); err != nil {
		return sum, false
	}
	rest := line[2*sha256.Size:]
	if len(rest) == 0 {
		return sum, true
	}
	// sha256sum separates with a space and a mode character: ' ' or '*'.
	if len(rest) < 3 || rest[0] != ' ' || (rest[1] != ' ' && rest[1] != '*') {
		return sum, false
	}
	return sum, path.Base(string(rest[2:])) == path.Base(file)
}

// reprDigest is the value of an RFC 9530 Repr-Digest field for sum.
func reprDigest(sum []byte) string {
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum) + ":"
}

// digestSibling reads the digest sibling of file, whose metadata is info,
// from src. It is believed only when it is a regular file not older than
// file (precompressed siblings are also checked against the file's bytes:
// siblingcheck.go); stale reports one that is present but older or
// malformed, which the caller logs.
func digestSibling(src source.Source, file string, info fs.FileInfo) (sum [sha256.Size]byte, ok, stale bool) {
	f, sinfo, _, err := src.Open(file + digestExt)
	if err != nil {
		return sum, false, false
	}
	defer f.Close()
	if sinfo.IsDir() {
		return sum, false, false
	}
	if sinfo.ModTime().Before(info.ModTime()) {
		return sum, false, true
	}
	sum, ok = readDigest(f, file)
	return sum, ok, !ok
}
