package source

import (
	"bytes"
	"embed"
	"io"
	"io/fs"
	"os"
	"reflect"
	"time"
	"unsafe"
)

// fsSource is an fs.FS: an embed.FS, os.DirFS, os.Root.FS(), fstest.MapFS,
// a zip archive, an overlay. Containment is the FS's own: os.DirFS follows
// symlinks out of its directory, which is why OpenDir, not
// NewFS(os.DirFS(dir)), is the safe way to serve a directory.
type fsSource struct {
	fsys  fs.FS
	fixed bool // an embed.FS, or a sub-tree of one: nothing ever changes
}

// NewFS returns fsys as a Source. An embed.FS (or fs.Sub of one) never
// changes: it is Immutable. Any other is confirmed by a stat per Fresh, and
// a file with no modification time held in memory by its bytes too.
func NewFS(fsys fs.FS) Source {
	s := &fsSource{fsys: fsys}
	switch fsys.(type) {
	case embed.FS, *embed.FS:
		s.fixed = true
	default:
		// fs.Sub of an embed.FS, the usual way to serve an embedded
		// directory: its files are the embed.FS's.
		info, err := fs.Stat(fsys, ".")
		s.fixed = err == nil && isEmbedded(info)
	}
	return s
}

func (s *fsSource) Open(name string) (fs.File, fs.FileInfo, *Tree, error) {
	if !s.fixed {
		// Opening a FIFO blocks until a writer comes, and an fs.FS takes no
		// O_NONBLOCK: look before opening. (A FIFO swapped in between
		// would still block; writers of the tree are trusted.)
		info, err := fs.Stat(s.fsys, name)
		if err != nil {
			return nil, nil, nil, err
		}
		if !servable(info) {
			return nil, nil, nil, ErrNotRegular
		}
	}
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	f, info, err := statServable(f)
	return f, info, nil, err
}

func (s *fsSource) OpenIn(_ *Tree, name string) (fs.File, fs.FileInfo, *Tree, error) {
	return s.Open(name)
}

func (s *fsSource) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.fsys, name) }

// Fresh confirms e by a stat. A file with no modification time (fstest.MapFS,
// some archives and overlays) can change without its size changing, so one
// held in memory is compared byte for byte with the file; a larger one is
// the caller's to read anew (jaws sends it with no ETag, and reads it for
// every GET).
func (s *fsSource) Fresh(e *Ref, body []byte, _ func() int64) bool {
	if testHookConfirmStat != nil {
		testHookConfirmStat(e.File)
	}
	info, err := fs.Stat(s.fsys, e.File)
	if err != nil || !e.Matches(info) || !e.alsoHold(s.Stat) {
		return false
	}
	if isZeroTime(info.ModTime()) && body != nil {
		return s.sameBytes(e.File, body)
	}
	return true
}

// sameBytes reports whether file still holds body, reading at most one byte
// more than that.
func (s *fsSource) sameBytes(file string, body []byte) bool {
	f, err := s.fsys.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(body)+1)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false
	}
	return bytes.Equal(b[:n], body)
}

func (s *fsSource) Arm(*Ref, int64) {}

func (s *fsSource) Gone(*Ref, *os.File) bool { return false }

func (s *fsSource) Immutable() bool { return s.fixed }

func (s *fsSource) Close() error { return nil }

// isEmbedded reports whether info describes a file of an embed.FS, whose
// FileInfo is the file itself (embed's unexported type file).
func isEmbedded(info fs.FileInfo) bool {
	t := reflect.TypeOf(info)
	return t != nil && t.Kind() == reflect.Pointer &&
		t.Elem().PkgPath() == "embed" && t.Elem().Name() == "file"
}

// EmbeddedBytes returns the bytes of an embedded file as they sit in the
// program's read-only data, without copying them: the memory path serves
// them as they are. ok is false when info is not an embedded file, or its
// layout is not the one the compiler writes (name, data string, hash; see
// cmd/compile's WriteEmbed): the caller then reads a copy. The bytes must
// never be written to.
func EmbeddedBytes(info fs.FileInfo) (b []byte, ok bool) {
	if !isEmbedded(info) {
		return nil, false
	}
	data := reflect.ValueOf(info).Elem().FieldByName("data")
	if !data.IsValid() || data.Kind() != reflect.String {
		return nil, false
	}
	s := data.String()
	if int64(len(s)) != info.Size() {
		return nil, false
	}
	if len(s) == 0 {
		return []byte{}, true // non-nil: a body in memory
	}
	return unsafe.Slice(unsafe.StringData(s), len(s)), true
}

var unixEpoch = time.Unix(0, 0)

// isZeroTime reports whether t is unset, as net/http judges it (as the root
// package's isZeroTime does).
func isZeroTime(t time.Time) bool {
	return t.IsZero() || t.Equal(unixEpoch)
}
