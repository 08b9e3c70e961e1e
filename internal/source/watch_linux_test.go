package source

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// confirmStats counts, per file, the refs confirmed by a system call.
var confirmStats counts[string]

func init() { testHookConfirmStat = confirmStats.add }

// eventsSite is a directory with a small file, a large one and an index
// page, under names no other test uses, its source, with events, and a
// clock the test moves.
func eventsSite(t *testing.T) (dir, prefix string, d *dirSource, clock *atomic.Int64) {
	t.Helper()
	dir = t.TempDir()
	prefix = uniqueName(t)
	must(t, os.MkdirAll(filepath.Join(dir, prefix, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "small.txt"), []byte("small one"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "big.bin"), bytes.Repeat([]byte("big "), 1<<18), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "sub", "index.html"), []byte("index one"), 0o644))
	d = openDir(t, dir, true)
	clock = new(atomic.Int64)
	clock.Store(time.Now().UnixNano())
	return dir, prefix, d, clock
}

// TestEventsHitsMakeNoSystemCall: once refs are armed, they are confirmed
// by events alone, top-level and nested, with no stat: one epoll_wait per
// Fresh (package jaws's TestStraceHitOpensNothing counts a hit's system
// calls).
func TestEventsHitsMakeNoSystemCall(t *testing.T) {
	t.Parallel()
	dir, p, d, clock := eventsSite(t)
	if d.watch == nil {
		t.Skipf("no events for %s", dir)
	}
	var refs []*Ref
	warm := func() {
		refs = refs[:0]
		for _, name := range []string{p + "/small.txt", p + "/big.bin", p + "/sub/index.html"} {
			refs = append(refs, find(t, d, name, clock.Load()))
		}
	}
	warm()
	undisturbed(t, d.watch, clock, warm, func() (check func()) {
		before := map[string]int64{}
		for _, ref := range refs {
			before[ref.File] = confirmStats.get(ref.File)
		}
		for range 100 {
			for _, ref := range refs {
				if !d.Fresh(ref, nil, clock.Load) {
					t.Fatalf("%s: not fresh", ref.File)
				}
			}
		}
		return func() {
			for _, ref := range refs {
				if n := confirmStats.get(ref.File) - before[ref.File]; n != 0 {
					t.Errorf("%s: %d refs confirmed by a system call, want none", ref.File, n)
				}
			}
		}
	})
}

// undisturbed runs measure, and the check it returns, unless a change of
// the mount table (another process mounting) or lost events made every
// token stale meanwhile: then the refs are armed again, their tokens taken
// anew, and measure runs again.
func undisturbed(t *testing.T, w *watcher, clock *atomic.Int64, warm func(), measure func() (check func())) {
	t.Helper()
	for range 5 {
		epoch := w.epoch.Load()
		check := measure()
		if w.epoch.Load() == epoch {
			check()
			return
		}
		clock.Add(int64(rearmEvery))
		warm()
	}
	t.Skip("every try was disturbed: the mount table kept changing")
}

// TestEventsSeeChanges: every kind of change is seen by the very next
// Fresh, with no wait: the kernel queues the event before the writer's
// system call returns, and every Fresh looks for pending events. Open then
// finds the new file.
func TestEventsSeeChanges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string) (string, []byte) // the file changed, and its new content (nil: gone)
	}{
		{"rewrite-in-place-same-size-and-mtime", func(t *testing.T, dir string) (string, []byte) {
			p := filepath.Join(dir, "small.txt")
			info, _ := os.Stat(p)
			must(t, os.WriteFile(p, []byte("small two"), 0o644))
			must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
			return "small.txt", []byte("small two")
		}},
		{"truncate", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.Truncate(filepath.Join(dir, "small.txt"), 0))
			return "small.txt", []byte{}
		}},
		{"rename-over", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.WriteFile(filepath.Join(dir, "tmp"), []byte("renamed"), 0o644))
			must(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "small.txt")))
			return "small.txt", []byte("renamed")
		}},
		{"delete", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.Remove(filepath.Join(dir, "small.txt")))
			return "small.txt", nil
		}},
		{"index-rewritten", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.WriteFile(filepath.Join(dir, "sub", "index.html"), []byte("index two"), 0o644))
			return "sub/index.html", []byte("index two")
		}},
		{"parent-replaced", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old")))
			must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "sub", "index.html"), []byte("new dir"), 0o644))
			return "sub/index.html", []byte("new dir")
		}},
		{"parent-became-symlink", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "elsewhere", "index.html"), []byte("via link"), 0o644))
			must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old")))
			must(t, os.Symlink("elsewhere", filepath.Join(dir, "sub")))
			return "sub/index.html", []byte("via link")
		}},
		{"big-rename-over", func(t *testing.T, dir string) (string, []byte) {
			b := bytes.Repeat([]byte("new "), 1<<18)
			must(t, os.WriteFile(filepath.Join(dir, "tmp"), b, 0o644))
			must(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "big.bin")))
			return "big.bin", b
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, p, d, clock := eventsSite(t)
			if d.watch == nil {
				t.Skip("no events here")
			}
			refs := map[string]*Ref{}
			for _, name := range []string{"small.txt", "sub/index.html", "big.bin"} {
				refs[name] = find(t, d, p+"/"+name, clock.Load())
				d.Fresh(refs[name], nil, clock.Load)
			}
			name, want := c.change(t, filepath.Join(dir, p))
			if d.Fresh(refs[name], nil, clock.Load) { // at once: no window
				t.Errorf("%s still fresh after the change", name)
			}
			got, err := content(t, d, p+"/"+name)
			switch {
			case want == nil && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("after the change: %v, want not found", err)
			case want != nil && (err != nil || !bytes.Equal(got, want)):
				t.Errorf("after the change: %v %.40q, want %.40q", err, got, want)
			}
		})
	}
}

// TestEventsFallBackToStat: where events do not cover a file, every ref is
// confirmed by a stat: events lost, a symbolic link on the path, no events.
func TestEventsFallBackToStat(t *testing.T) {
	t.Parallel()
	stats := func(t *testing.T, d *dirSource, name string) int64 {
		t.Helper()
		now := time.Now().UnixNano()
		clock := func() int64 { return now } // stopped: no token taken anew
		ref := find(t, d, name, now)
		d.Fresh(ref, nil, clock)
		before := confirmStats.get(name)
		for range 10 {
			if !d.Fresh(ref, nil, clock) {
				t.Fatalf("%s: not fresh", name)
			}
		}
		return confirmStats.get(name) - before
	}
	t.Run("lost", func(t *testing.T) {
		t.Parallel()
		_, p, d, clock := eventsSite(t)
		w := d.watch
		if w == nil {
			t.Skip("no events here")
		}
		ref := find(t, d, p+"/small.txt", clock.Load())
		w.mu.Lock()
		w.lostLocked()
		w.mu.Unlock()
		before := confirmStats.get(p + "/small.txt")
		d.Fresh(ref, nil, clock.Load)
		if n := confirmStats.get(p+"/small.txt") - before; n != 1 {
			t.Errorf("%d stats after events were lost, want 1", n)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		t.Parallel()
		dir, p, d, _ := eventsSite(t)
		must(t, os.Symlink("sub", filepath.Join(dir, p, "link")))
		if n := stats(t, d, p+"/link/index.html"); n != 10 {
			t.Errorf("%d of 10 refs through a symbolic link confirmed by stat", n)
		}
	})
	t.Run("no-events", func(t *testing.T) {
		t.Parallel()
		dir, p, _, _ := eventsSite(t)
		if n := stats(t, openDir(t, dir, false), p+"/small.txt"); n != 10 {
			t.Errorf("%d of 10 refs confirmed by stat", n)
		}
	})
}

// TestEventsUntrustedFS: on a file system jaws does not trust for events
// (network, user-space), there is no watcher at all.
func TestEventsUntrustedFS(t *testing.T) {
	// Not parallel: the hook is global.
	testHookTrustFS = func(int64) bool { return false }
	defer func() { testHookTrustFS = nil }()
	if d := openDir(t, t.TempDir(), true); d.watch != nil {
		t.Error("a watcher on an untrusted file system")
	}
}

// TestEventsBusyDirectory: a file next to one that changes all the time
// stays fresh, confirmed by stat while its token is stale, and takes a new
// token rearmEvery later.
func TestEventsBusyDirectory(t *testing.T) {
	t.Parallel()
	dir, p, d, clock := eventsSite(t)
	if d.watch == nil {
		t.Skip("no events here")
	}
	file := p + "/small.txt"
	ref := find(t, d, file, clock.Load())
	log := filepath.Join(dir, p, "access.log")
	for i := range 5 {
		must(t, os.WriteFile(log, []byte{byte(i)}, 0o644))
		if !d.Fresh(ref, nil, clock.Load) {
			t.Fatalf("write %d to the log: small.txt not fresh", i)
		}
	}
	clock.Add(int64(rearmEvery))
	d.Fresh(ref, nil, clock.Load) // takes a new token
	undisturbed(t, d.watch, clock, func() { d.Fresh(ref, nil, clock.Load) }, func() func() {
		before := confirmStats.get(file)
		for range 5 {
			d.Fresh(ref, nil, clock.Load)
		}
		return func() {
			if n := confirmStats.get(file) - before; n != 0 {
				t.Errorf("%d stats once the directory went quiet and the token was taken anew", n)
			}
		}
	})
}

// TestEventsWatchLimit: when no watch is to be had (the user's inotify limit
// exhausted: ENOSPC), refs are confirmed by stat, and a change is still seen
// by the next Fresh.
func TestEventsWatchLimit(t *testing.T) {
	// Not parallel: the hook is global.
	testHookAddWatch = func(error) error { return syscall.ENOSPC }
	defer func() { testHookAddWatch = nil }()
	dir, p, d, clock := eventsSite(t)
	if d.watch == nil {
		t.Skip("no events here")
	}
	file := p + "/small.txt"
	ref := find(t, d, file, clock.Load())
	before := confirmStats.get(file)
	for range 5 {
		d.Fresh(ref, nil, clock.Load)
	}
	if n := confirmStats.get(file) - before; n != 5 {
		t.Errorf("%d of 5 refs confirmed by stat with no watch to be had", n)
	}
	must(t, os.WriteFile(filepath.Join(dir, p, "small.txt"), []byte("small two"), 0o644))
	if d.Fresh(ref, nil, clock.Load) {
		t.Error("still fresh after the change")
	}
}

// TestEventsLostOffThePath: events lost to an overflow of the inotify
// queue, by changes in a directory off a file's path, make the file's
// token stale too: its own change may be among those lost. The churn is in
// logs/, which another ref has watched, with no Fresh in between to read
// the queue; then sub/index.html is rewritten in place, and its events
// are lost.
func TestEventsLostOffThePath(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skipf("no inotify queue limit to read: %v", err)
	}
	queue, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || queue > 100_000 {
		t.Skipf("max_queued_events %q: too many changes to make for an overflow", b)
	}
	dir, p, d, clock := eventsSite(t)
	if d.watch == nil {
		t.Skip("no events here")
	}
	logs := filepath.Join(dir, p, "logs")
	must(t, os.Mkdir(logs, 0o755))
	// Writes to a few files in turn: each an IN_MODIFY that the kernel
	// cannot merge with the one before (another name).
	var churn []*os.File
	for i := range 64 {
		f, err := os.Create(filepath.Join(logs, fmt.Sprintf("churn-%02d.log", i)))
		must(t, err)
		defer f.Close()
		churn = append(churn, f)
	}
	index := find(t, d, p+"/sub/index.html", clock.Load())
	find(t, d, p+"/logs/churn-00.log", clock.Load()) // watches logs/
	if !d.Fresh(index, nil, clock.Load) {
		t.Fatal("sub/index.html not fresh before the churn")
	}
	// An inotify instance of the test's own, on logs/, gets the churn's
	// events into a queue of the same size: its overflow shows jaws's.
	probe, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	must(t, err)
	defer unix.Close(probe)
	_, err = unix.InotifyAddWatch(probe, logs, unix.IN_MODIFY)
	must(t, err)
	changes := 2 * (queue + 1)
	for i := range changes {
		_, err := churn[i%len(churn)].WriteAt([]byte{byte(i)}, 0)
		must(t, err)
	}
	page := filepath.Join(dir, p, "sub", "index.html")
	info, err := os.Stat(page)
	must(t, err)
	must(t, os.WriteFile(page, []byte("index two"), 0o644)) // the same size
	must(t, os.Chtimes(page, info.ModTime(), info.ModTime()))
	if !probeOverflowed(t, probe) {
		t.Fatalf("%d changes did not overflow an inotify queue (max_queued_events %d)", changes, queue)
	}
	if d.Fresh(index, nil, clock.Load) {
		t.Error("sub/index.html still fresh after events were lost")
	}
}

// probeOverflowed reads the events pending on the inotify descriptor fd
// and reports whether its queue overflowed (IN_Q_OVERFLOW).
func probeOverflowed(t *testing.T, fd int) bool {
	t.Helper()
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EAGAIN {
			return false
		}
		must(t, err)
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				return true
			}
			b = b[min(len(b), unix.SizeofInotifyEvent+int(ev.Len)):]
		}
	}
}

// TestEventsSyncWaitsForReader: a sync that finds the queue empty while
// another sync is still reading the events it took off the queue waits
// for that one, so a hit after a change sees it. The test takes the other
// sync's part: it holds the watcher's lock, takes the change's events off
// the queue, and reads them only once the hit waits.
func TestEventsSyncWaitsForReader(t *testing.T) {
	// Not parallel: the hook is global.
	dir, p, d, clock := eventsSite(t)
	w := d.watch
	if w == nil {
		t.Skip("no events here")
	}
	ref := find(t, d, p+"/sub/index.html", clock.Load())
	if !d.Fresh(ref, nil, clock.Load) {
		t.Fatal("not fresh before the change")
	}
	epoch := w.epoch.Load()
	must(t, os.WriteFile(filepath.Join(dir, p, "sub", "index.html"), []byte("index two"), 0o644))

	w.mu.Lock()
	w.draining.Store(true)
	buf := make([]byte, 64<<10)
	n, err := unix.Read(w.fd, buf)
	if err != nil || n <= 0 {
		w.draining.Store(false)
		w.mu.Unlock()
		t.Fatalf("no events of the change to take off the queue: %d, %v", n, err)
	}
	waits := make(chan struct{}, 1)
	defer func() { testHookSyncLock = nil }()
	testHookSyncLock = func() {
		select {
		case waits <- struct{}{}:
		default:
		}
	}
	fresh := make(chan bool, 1)
	go func() { fresh <- d.Fresh(ref, nil, clock.Load) }()
	var got bool
	select {
	case <-waits: // the hit waits for the lock
	case got = <-fresh:
		t.Errorf("the hit did not wait for the events taken off the queue: fresh %v", got)
		fresh <- got
	}
	w.handle(buf[:n])
	w.draining.Store(false)
	w.mu.Unlock()
	got = <-fresh
	if w.epoch.Load() != epoch {
		t.Skip("the mount table changed meanwhile: every token is stale")
	}
	if got {
		t.Error("still fresh after the change")
	}
}
