package source

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestEventsTokenDirs: a token holds the root and each directory on the
// file's path, once each, so a hit compares as many generations as the path
// has directories and each is watched once.
func TestEventsTokenDirs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a", "b", "c.js"), []byte("c"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "top.js"), []byte("t"), 0o644))
	d := openDir(t, dir, true)
	w := d.watch
	if w == nil {
		t.Skip("no events on this file system")
	}
	for _, c := range []struct {
		file string
		dirs int
	}{{"top.js", 1}, {"a/b/c.js", 3}} {
		info, err := os.Stat(filepath.Join(dir, c.file))
		must(t, err)
		tok := w.cover(d.cur.Load(), c.file, VersionOf(info), Mono(), time.Now().UnixNano())
		if !tok.covered || len(tok.dirs) != c.dirs {
			t.Errorf("%s: covered %v, %d directories, want %d", c.file, tok.covered, len(tok.dirs), c.dirs)
		}
	}
	w.mu.Lock()
	dirs := len(w.byWd)
	w.mu.Unlock()
	if dirs != 3 {
		t.Errorf("%d directories watched, want 3 (the root, a, a/b)", dirs)
	}
}

// watchedInodes returns the inodes w watches, from the kernel's own account
// of its inotify descriptor (/proc/self/fdinfo).
func watchedInodes(t *testing.T, w *watcher) map[uint64]bool {
	t.Helper()
	w.mu.Lock()
	fd := w.fd
	w.mu.Unlock()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	must(t, err)
	inos := map[uint64]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "inotify wd:") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "ino:"); ok {
				ino, err := strconv.ParseUint(v, 16, 64)
				must(t, err)
				inos[ino] = true
			}
		}
	}
	return inos
}

// dirInodes returns the inodes of dir and of every directory under it, and
// of the directories on the way to it.
func dirInodes(t *testing.T, dir string) map[uint64]bool {
	t.Helper()
	inos := map[uint64]bool{}
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			info, err := d.Info()
			must(t, err)
			inos[info.Sys().(*syscall.Stat_t).Ino] = true
		}
		return nil
	}))
	steps, _ := pathSteps(dir)
	for _, s := range steps {
		info, err := os.Stat(s.dir)
		must(t, err)
		inos[info.Sys().(*syscall.Stat_t).Ino] = true
	}
	return inos
}

// TestWatchesOnlyInsideRoot (SECURITY.md, "Watches"): names not found
// through links that leave the root, to a sibling tree or up to the
// system's directories, watch nothing; every watch is of a directory of the
// root's tree (or on the way to it, for the root path itself), and found
// files add a watch per directory, once.
func TestWatchesOnlyInsideRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for i := range 64 {
		must(t, os.MkdirAll(filepath.Join(outside, fmt.Sprintf("d%d", i)), 0o755))
		must(t, os.WriteFile(filepath.Join(outside, fmt.Sprintf("d%d", i), "secret.txt"), []byte("secret"), 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "sub", "f.txt"), []byte("f"), 0o644))
	must(t, os.Symlink("../outside", filepath.Join(root, "up")))
	must(t, os.Symlink("../../../../../../..", filepath.Join(root, "top")))
	d := openDir(t, root, true)
	w := d.watch
	if w == nil {
		t.Skip("no events here")
	}
	find(t, d, "sub/f.txt", time.Now().UnixNano())
	before := watchedInodes(t, w)
	for i := range 3000 {
		name := fmt.Sprintf("up/d%d/secret.txt", i%64)
		if i%2 == 1 {
			name = []string{"top/etc/passwd", "top/usr/lib/", "top/tmp/x", "top/proc/self/environ"}[i%4/2*2+i%3%2] + fmt.Sprint(i)
		}
		if f, _, _, err := d.Open(name); err == nil {
			f.Close()
			t.Fatalf("%s: found, want an error", name)
		}
	}
	after := watchedInodes(t, w)
	if len(after) > len(before) {
		t.Errorf("%d watches after 3000 names not found through escaping links, %d before", len(after), len(before))
	}
	inside := dirInodes(t, root)
	for ino := range after {
		if !inside[ino] {
			t.Errorf("a watch on inode %d, outside the root and off its way", ino)
		}
	}
}

// TestLinkLoop404sWatchNothing (SECURITY.md, "Bounded memory"): with links
// to the root's own directory (mirrors ship "ubuntu -> ."), every distinct
// path through them is another name; a file found through them is watched
// through no link, and names not found watch nothing (package jaws's
// TestLinkLoop404sKeepNothing measures the heap).
func TestLinkLoop404sWatchNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("f"), 0o644))
	must(t, os.Symlink(".", filepath.Join(root, "a")))
	must(t, os.Symlink(".", filepath.Join(root, "b")))
	d := openDir(t, root, true)
	if d.watch == nil {
		t.Skip("no events here")
	}
	find(t, d, "a/b/f.txt", time.Now().UnixNano())
	for i := range 3000 {
		var b strings.Builder
		for j, x := 0, i; j < 12; j, x = j+1, x/2 {
			b.WriteString([]string{"a/", "b/"}[x%2])
		}
		fmt.Fprintf(&b, "missing-%d", i)
		if f, _, _, err := d.Open(b.String()); err == nil {
			f.Close()
			t.Fatalf("%s: found", b.String())
		}
	}
	d.watch.mu.Lock()
	n := len(d.watch.byWd)
	d.watch.mu.Unlock()
	if n > 1 {
		t.Errorf("%d directories watched, want at most the root", n)
	}
}

// TestEventsWrittenSince: a write reported after an entry's bytes began to
// be read makes its token uncovered, however the stat reads, and a write
// to another name, a write before the read, or a name written and
// deleted do not.
func TestEventsWrittenSince(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
	for _, n := range []string{"a/f.js", "a/g.js", "a/tmp"} {
		must(t, os.WriteFile(filepath.Join(dir, n), []byte("v1"), 0o644))
	}
	d := openDir(t, dir, true)
	w := d.watch
	if w == nil {
		t.Skip("no events on this file system")
	}
	cover := func(file string, readAt int64) *token {
		info, err := os.Stat(filepath.Join(dir, file))
		must(t, err)
		w.sync()
		return w.cover(d.cur.Load(), file, VersionOf(info), readAt, time.Now().UnixNano())
	}
	cover("a/f.js", Mono()) // watches a/
	before := Mono()
	must(t, os.WriteFile(filepath.Join(dir, "a/f.js"), []byte("v2"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a/tmp"), []byte("v2"), 0o644))
	must(t, os.Remove(filepath.Join(dir, "a/tmp")))
	w.sync()
	for _, c := range []struct {
		name    string
		file    string
		readAt  int64
		covered bool
	}{
		{"written-since-read", "a/f.js", before, false},
		{"written-before-read", "a/f.js", Mono(), true},
		{"other-name", "a/g.js", before, true},
	} {
		if tok := cover(c.file, c.readAt); tok.covered != c.covered {
			t.Errorf("%s: covered %v, want %v", c.name, tok.covered, c.covered)
		}
	}
	w.mu.Lock()
	var names []string
	for _, dg := range w.byWd {
		for n := range dg.written {
			names = append(names, n)
		}
	}
	w.mu.Unlock()
	if slices.Contains(names, "tmp") {
		t.Errorf("a deleted name is still kept: %q", names)
	}
}

// TestEventsWrittenLost: lost events (IN_Q_OVERFLOW) count as every name
// written, and a directory's written names are bounded: past writtenMax
// they count as all written, the map starts over, and a name deleted
// leaves it.
func TestEventsWrittenLost(t *testing.T) {
	t.Parallel()
	event := func(wd int32, mask uint32, name string) []byte {
		n := (len(name) + 1 + 15) / 16 * 16 // NUL-padded, as the kernel pads
		b := make([]byte, unix.SizeofInotifyEvent+n)
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		ev.Wd, ev.Mask, ev.Len = wd, mask, uint32(n)
		copy(b[unix.SizeofInotifyEvent:], name)
		return b
	}
	d := new(watchedDir)
	w := &watcher{fd: -1, byWd: map[int32]*watchedDir{1: d}, path: map[int32][]string{}}
	tok := &token{parent: d}
	before := Mono()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.handle(event(1, unix.IN_MODIFY, "a.js"))
	if !w.writtenSinceLocked(tok, "dir/a.js", before) || w.writtenSinceLocked(tok, "dir/b.js", before) {
		t.Fatal("a.js written, b.js not: not told apart")
	}
	w.handle(event(1, unix.IN_DELETE, "a.js"))
	if _, kept := d.written["a.js"]; kept {
		t.Error("a deleted name is still kept")
	}
	for i := range writtenMax + 1 {
		w.handle(event(1, unix.IN_CLOSE_WRITE, fmt.Sprintf("f%d", i)))
	}
	if len(d.written) > writtenMax || !w.writtenSinceLocked(tok, "dir/b.js", before) {
		t.Errorf("%d names kept (at most %d), b.js written: %v, want true once they outgrew it",
			len(d.written), writtenMax, w.writtenSinceLocked(tok, "dir/b.js", before))
	}
	after := Mono()
	if w.writtenSinceLocked(tok, "dir/b.js", after) {
		t.Error("b.js written after everything reported")
	}
	w.handle(event(-1, unix.IN_Q_OVERFLOW, ""))
	if !w.writtenSinceLocked(nil, "dir/b.js", after) {
		t.Error("events lost: b.js, unwatched, not counted as written")
	}
}

// TestEventsHardLinked: a file with a second link, in a directory off its
// path or outside the root, is not covered by events. A write through the
// other name is reported in the other name's directory, which no token of
// the file holds. So its ref is confirmed by stat, and the stat sees the
// write, though it keeps the size and the mtime.
func TestEventsHardLinked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		other func(t *testing.T, site string) string // the directory of the second link
	}{
		{"sibling-directory", func(t *testing.T, site string) string { return filepath.Join(site, "other") }},
		{"outside-the-root", func(t *testing.T, _ string) string { return t.TempDir() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, p, d, clock := eventsSite(t)
			if d.watch == nil {
				t.Skip("no events here")
			}
			site := filepath.Join(dir, p)
			other := filepath.Join(c.other(t, site), "small.txt")
			must(t, os.MkdirAll(filepath.Dir(other), 0o755))
			must(t, os.Link(filepath.Join(site, "small.txt"), other))
			ref := find(t, d, p+"/small.txt", clock.Load())
			if !d.Fresh(ref, nil, clock.Load) {
				t.Fatal("not fresh before the write")
			}
			info, err := os.Stat(other)
			must(t, err)
			f, err := os.OpenFile(other, os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteAt([]byte("small two"), 0) // the same size
			f.Close()
			must(t, err)
			must(t, os.Chtimes(other, info.ModTime(), info.ModTime()))
			if d.Fresh(ref, nil, clock.Load) {
				t.Error("still fresh after a write through the other link")
			}
			if got, err := content(t, d, p+"/small.txt"); err != nil || string(got) != "small two" {
				t.Errorf("after the write: %v %q, want %q", err, got, "small two")
			}
		})
	}
}

// TestEventsSwappedWhileWatched: a directory on a file's path swapped for
// another while the watches are added, after its parent's name was looked
// up and before its parent is watched, raises no event any watch gets.
// cover looks at the directories again once they are watched, and sees
// the swap: the ref is confirmed by stat, which finds the other file.
func TestEventsSwappedWhileWatched(t *testing.T) {
	// Not parallel: the hook is global.
	root := tempDir(t)
	for name, body := range map[string]string{"a/sub/x.txt": "old one", "a/sub.new/x.txt": "new one"} {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
	}
	d := openDir(t, root, true)
	if d.watch == nil {
		t.Skip("no events here")
	}
	f, info, at, err := d.Open("a/sub/x.txt")
	must(t, err)
	f.Close()
	ref := &Ref{File: "a/sub/x.txt", Info: info, Ver: VersionOf(info), Tree: at, ReadAt: Mono()}
	calls := 0
	defer func() { testHookAddWatch = nil }()
	testHookAddWatch = func(err error) error {
		if calls++; calls == 1 { // the root is watched, a/ not yet
			must(t, os.Rename(filepath.Join(root, "a/sub"), filepath.Join(root, "a/sub.old")))
			must(t, os.Rename(filepath.Join(root, "a/sub.new"), filepath.Join(root, "a/sub")))
		}
		return err
	}
	now := time.Now().UnixNano()
	d.Arm(ref, now)
	if calls != 3 {
		t.Fatalf("%d watches added, want 3 (the root, a, a/sub)", calls)
	}
	if d.Fresh(ref, nil, func() int64 { return now }) {
		t.Error("fresh, though a/sub was swapped while it was watched")
	}
	if got, err := content(t, d, "a/sub/x.txt"); err != nil || string(got) != "new one" {
		t.Errorf("after the swap: %v %q, want %q", err, got, "new one")
	}
}
