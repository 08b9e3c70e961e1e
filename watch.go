package jaws

import (
	"sync/atomic"
	"time"
)

// Freshness without a system call per hit. Where the kernel reports changes
// to the directories on a file's path (inotify on Linux, on file systems
// where every change goes through this kernel), a cached entry carries a
// token: the generation of each of those directories when it was last
// confirmed. Every event in a directory bumps its generation; a hit whose
// token still matches is served with no stat at all, and one whose token
// is stale is confirmed with a stat as before. Lost events (a queue
// overflow) and a watcher that stopped make every token stale.
//
// Nothing runs in the background: a hit reads the pending events itself
// when the last read is drainEvery old, one cheap read that usually finds
// none, at most a thousand times a second whatever the load. What this
// gives up against a stat per hit: a change is seen by every request that
// starts drainEvery (1 ms) after the writer's system call returned, not by
// one that starts in between. Changes no directory event reports are not seen
// until something else is: a file with hard links rewritten in place
// through a link elsewhere, and bytes written through a shared mmap. Files
// reached through a symbolic link, and directories on file systems whose
// changes may come from elsewhere (NFS, SMB, FUSE), are confirmed by stat
// on every hit. Any Options.Revalidate but 0 turns events off.

// watchedDir is one directory the kernel reports changes in.
type watchedDir struct {
	gen atomic.Uint64
}

// token is what an entry knows of the directories on its file's path.
type token struct {
	w         *watcher
	file      string
	dirsTaken bool // the generations of every directory on file's path
	covered   bool // events cover the file (cover); else the token never holds
	epoch     uint64
	dirs      []*watchedDir
	gens      []uint64
	taken     int64 // unix nanoseconds
}

// cover completes a token taken before its file was found (see
// watcher.cover); nil and incomplete tokens stay as they are.
func (t *token) cover() {
	if t != nil && t.dirsTaken {
		t.w.cover(t)
	}
}

// still reports whether nothing happened to t's directories since it was
// taken, as of now. A nil or uncovered token never holds.
func (t *token) still(now int64) bool {
	if t == nil || !t.covered {
		return false
	}
	t.w.catchUp(now)
	if t.w.broken.Load() || t.w.epoch.Load() != t.epoch {
		return false
	}
	for i, d := range t.dirs {
		if d.gen.Load() != t.gens[i] {
			return false
		}
	}
	return true
}

// drainEvery bounds how long a change can go unseen, and how often hits
// read pending events.
const drainEvery = time.Millisecond

// rearmEvery is how often an entry whose token went stale (a busy
// directory: a log file next to the static ones) takes a new token, which
// costs a few system calls; meanwhile it is confirmed by stat per hit.
const rearmEvery = time.Second
