package source

import (
	"errors"
	"io/fs"
	"os"
	"reflect"
	"sync/atomic"
)

// Source is where a store's files come from: a directory (OpenDir) or an
// fs.FS (NewFS). Names are fs.ValidPath names, cleaned by the caller.
type Source interface {
	// Open opens name if it is a regular file or a directory, and never
	// blocks on a special file (ErrNotRegular); at is the tree it was
	// found in (nil for an fs.FS), which a Ref keeps. It looks for what
	// the root path names now, as Fresh does.
	Open(name string) (f fs.File, info fs.FileInfo, at *Tree, err error)
	// OpenIn is Open for a request that has confirmed, since it began,
	// that at is the tree the root names (a Ref's, which Fresh said
	// holds): it opens in at without looking again. A retired tree since
	// closed, or nil, is looked for as Open does.
	OpenIn(at *Tree, name string) (f fs.File, info fs.FileInfo, found *Tree, err error)
	// Stat returns the metadata of name, a file Open would open, in the
	// tree the root named when last looked for.
	Stat(name string) (fs.FileInfo, error)
	// Fresh reports whether ref still is what its file holds now, for a
	// request that starts now: false means it is to be opened again. now
	// is the clock in unix nanoseconds, read only when needed; body is
	// the file's bytes, when they are held in memory.
	Fresh(ref *Ref, body []byte, now func() int64) bool
	// Arm readies a new ref for Fresh, once its fields are set: with file
	// system events, the token that confirms it while they say nothing
	// changed. now is the clock, in unix nanoseconds.
	Arm(ref *Ref, now int64)
	// Gone reports whether f, a descriptor of ref's file, is of a file no
	// longer served: deleted, renamed over, or of a tree the root no
	// longer is. A store lets such descriptors go (see Sweeper).
	Gone(ref *Ref, f *os.File) bool
	// Immutable reports that no file of the source ever changes, so a
	// ref, once found, needs no confirming (an embed.FS).
	Immutable() bool
	// Close lets go of the source's descriptors and watches; an Open after
	// it fails with os.ErrClosed.
	Close() error
}

// OpenDir opens the directory dir as a Source. The root is the path dir,
// not the directory it names now (see the package doc). With events, refs
// are confirmed by file system events where the system has them (inotify,
// on Linux), else by stat. sw runs the source's own sweep, which closes
// the trees the path no longer names (see Sweeper).
func OpenDir(dir string, events bool, sw *Sweeper) (Source, error) {
	d, err := openDirSource(dir, events, sw.Kick)
	if err != nil {
		return nil, err
	}
	sw.Add(d.sweep)
	return d, nil
}

// ErrNotRegular is a name that is neither a regular file nor a directory:
// a FIFO, a socket, a device.
var ErrNotRegular = errors.New("jaws: not a regular file")

// Ref is what a source found of a file, for it to confirm later (Fresh):
// its name, its metadata and the version they identify, the tree it was
// found in, and when its bytes began to be read. A store's entries hold
// one; they set its fields when they build it, Arm it, and never change
// it after.
type Ref struct {
	File string      // the name Open was given, or the file under it
	Info fs.FileInfo // its metadata from Open
	Ver  Version     // VersionOf(Info)
	Tree *Tree       // the tree Open found it in
	// ReadAt is when its bytes began to be read (Mono): a write reported
	// from then on may have changed them, whatever a stat says.
	ReadAt int64
	// Also are other names of the file's directory whose state the entry
	// stands on: a name that must still be missing, or a file still at its
	// version (a compressed-only file stands on its plain name being
	// missing and on its other siblings). Events in the directory vouch for
	// them as for the file; a look by stat looks at each of them too.
	Also []Also

	watched atomic.Pointer[token] // what confirms it while events say nothing changed
}

// Also is a name a Ref stands on: missing (Absent), or a file at Ver.
type Also struct {
	Name   string
	Absent bool
	Info   fs.FileInfo
	Ver    Version
}

// holds reports whether a is still as the entry found it, by stat.
func (a *Also) holds(stat func(string) (fs.FileInfo, error)) bool {
	info, err := stat(a.Name)
	if a.Absent {
		return errors.Is(err, fs.ErrNotExist)
	}
	return err == nil && SameFile(a.Info, info) && VersionOf(info) == a.Ver
}

// alsoHold reports whether every name ref stands on is as it was.
func (ref *Ref) alsoHold(stat func(string) (fs.FileInfo, error)) bool {
	for i := range ref.Also {
		if !ref.Also[i].holds(stat) {
			return false
		}
	}
	return true
}

// Matches reports whether ref still describes the file info was read from:
// the same file (a rename over it is a new one) in the same version.
func (ref *Ref) Matches(info fs.FileInfo) bool {
	return SameFile(ref.Info, info) && ref.Ver == VersionOf(info)
}

// SameFile is os.SameFile for files of the os package, whose identity it
// knows; files of other file systems are told apart by version alone.
func SameFile(a, b fs.FileInfo) bool {
	if isOSFileInfo(a) && isOSFileInfo(b) {
		return os.SameFile(a, b)
	}
	return true
}

// osFileInfo is the type of the os package's FileInfo.
var osFileInfo = reflect.TypeOf(func() fs.FileInfo {
	fi, err := os.Stat(os.DevNull)
	if err != nil {
		fi, _ = os.Stat(".")
	}
	return fi
}())

func isOSFileInfo(fi fs.FileInfo) bool {
	return osFileInfo != nil && reflect.TypeOf(fi) == osFileInfo
}

// statServable returns f with its metadata if it is a file jaws serves or a
// directory it looks into, and closes it otherwise.
func statServable(f fs.File) (fs.File, fs.FileInfo, error) {
	info, err := f.Stat()
	if err == nil && !servable(info) {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// servable reports whether info is of a file jaws serves or a directory it
// looks into: FIFOs, sockets and devices are neither.
func servable(info fs.FileInfo) bool {
	return info.Mode().IsRegular() || info.IsDir()
}
