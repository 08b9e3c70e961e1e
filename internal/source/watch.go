package source

import (
	"sync/atomic"
	"time"
)

// Freshness without a stat per hit. Where the kernel reports changes to the
// directories on a file's path (inotify on Linux, on file systems where
// every change goes through this kernel), a cached entry carries a token:
// the generation of each of those directories when it was confirmed. Every
// event in a directory bumps its generation; a hit whose token still holds
// is served with no stat, and one whose token is stale is confirmed by a
// stat as when there are no events.
//
// Read your writes: the kernel queues an event before the writer's system
// call returns, so every hit first asks, with one non-blocking epoll_wait,
// whether events are pending, and reads them if so (watcher.sync). A
// request that starts after a change completed therefore sees it: there is
// no window. The same epoll_wait reports a change of the mount table
// (/proc/self/mountinfo), since a mount over a watched directory raises no
// inotify event; then, as after lost events (a queue overflow), every token
// is stale until taken anew.
//
// Tokens are taken only for files that were found, through directories
// opened one by one from the tree's own descriptor without following a
// link (watcher.cover), so a 404 watches nothing and no watch lies outside
// the root. Files reached through a symbolic link, hard-linked files (a
// write through another link is reported in that link's directory), mount
// points (a bind-mounted file: its writes are reported where its source
// is) and directories on file systems whose changes may come from
// elsewhere (NFS, SMB, FUSE) are confirmed by stat on every hit. What no
// event reports at all: bytes written through a shared mmap.
//
// A stat cannot tell one change: a write(2) in place sets the file's times
// before it copies its bytes, so an entry read meanwhile holds a mix under
// the new version. Events name the file written, once the bytes are in, so
// an entry whose file was reported written after its bytes began to be
// read is not confirmed by its stat (watcher.writtenSince).

// watchedDir is one directory the kernel reports changes in.
type watchedDir struct {
	gen atomic.Uint64
	// When each name in it was last reported written (Mono), and when any
	// was, once more names were than writtenMax; the watcher's mu guards
	// them. A name leaves when it is deleted or renamed away.
	written    map[string]int64
	writtenAll int64
}

// writtenMax bounds a directory's written names: a directory of many
// files written, then served, costs their entries a new read each, no more.
const writtenMax = 1024

// monoBase is when the program started, for Mono.
var monoBase = time.Now()

// Mono is the clock of Ref.ReadAt: the time since the program started,
// monotonic, in nanoseconds, never 0. When a ref's bytes began to be read
// and when a write to its file was reported are compared.
func Mono() int64 { return int64(time.Since(monoBase)) + 1 }

// token is what an entry knows of the directories on its file's path.
type token struct {
	w       *watcher
	covered bool // events cover the file; else the token never holds
	epoch   uint64
	taken   int64       // unix nanoseconds
	dirs    []dirGen    // in buf for a path of up to len(buf) directories
	parent  *watchedDir // the file's own directory, once all of dirs are watched
	// A hit reads every directory's generation: held in the token's own
	// allocation, they cost it no cache miss of their own, which on a
	// server of many connections it would pay on nearly every hit.
	buf [4]dirGen
}

// dirGen is a directory on a token's path and its generation when the
// token was taken.
type dirGen struct {
	d   *watchedDir
	gen uint64
}

// still reports whether nothing happened to t's directories since it was
// taken, as of the watcher's last sync. A nil or uncovered token never
// holds.
func (t *token) still() bool {
	if t == nil || !t.covered || t.w.epoch.Load() != t.epoch {
		return false
	}
	for _, dg := range t.dirs {
		if dg.d.gen.Load() != dg.gen {
			return false
		}
	}
	return true
}

// rearmEvery is how often an entry whose token went stale (a busy
// directory: a log file next to the static ones) takes a new token, which
// costs a few system calls; meanwhile it is confirmed by stat per hit.
const rearmEvery = time.Second
