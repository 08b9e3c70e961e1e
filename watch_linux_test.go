package jaws

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/jaws-go/jaws/internal/testsite"
)

// confirmStats counts, per file, the hits confirmed by a system call.
var confirmStats sync.Map // file -> *atomic.Int64

func init() {
	testHookConfirmStat = func(file string) {
		c, _ := confirmStats.LoadOrStore(file, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
}

func statCount(file string) int64 {
	if c, ok := confirmStats.Load(file); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

// eventsSite is a directory with a small file, a large one and an index
// page, under names no other test uses, and a handler with a clock the test
// moves.
func eventsSite(t *testing.T, o Options) (dir, prefix string, h *Handler, clock *atomic.Int64) {
	t.Helper()
	dir = t.TempDir()
	prefix = uniqueName(t, "")
	must(t, os.MkdirAll(filepath.Join(dir, prefix, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "small.txt"), []byte("small one"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "big.bin"), randomBytes(1<<20), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, prefix, "sub", "index.html"), []byte("index one"), 0o644))
	h = newTestHandler(t, dir, o)
	clock = new(atomic.Int64)
	clock.Store(time.Now().UnixNano())
	h.store.cache.now = clock.Load
	return dir, prefix, h, clock
}

// TestEventsHitsMakeNoSystemCall: once entries are built, hits on a local
// file system are confirmed by events alone: memory, zero-copy (shared
// descriptor), HEAD, a directory's index page, nested names.
func TestEventsHitsMakeNoSystemCall(t *testing.T) {
	t.Parallel()
	dir, p, h, clock := eventsSite(t, Options{})
	if h.store.src.(*dirSource).watch == nil {
		t.Skipf("no events for %s", dir)
	}
	warm := func() {
		for _, name := range []string{p + "/small.txt", p + "/sub/"} {
			get(h, "/"+name)
		}
	}
	warm()
	h.store.cache.sync()
	files := []string{p + "/small.txt", p + "/sub/index.html"}
	undisturbed(t, h, clock, warm, func() (check func()) {
		before := map[string]int64{}
		for _, f := range files {
			before[f] = statCount(f)
		}
		for range 100 {
			for _, name := range []string{p + "/small.txt", p + "/sub/"} {
				if w := get(h, "/"+name); w.Code != 200 {
					t.Fatalf("%s: %d", name, w.Code)
				}
				testServeHead(h, "/"+name)
			}
		}
		return func() {
			for _, f := range files {
				if n := statCount(f) - before[f]; n != 0 {
					t.Errorf("%s: %d hits confirmed by a system call, want none", f, n)
				}
			}
		}
	})
}

// undisturbed runs measure, and the check it returns, unless a change of
// the mount table (another process mounting) or lost events made every
// token stale meanwhile: then the entries are warmed again, their tokens
// taken anew, and measure runs again.
func undisturbed(t *testing.T, h *Handler, clock *atomic.Int64, warm func(), measure func() (check func())) {
	t.Helper()
	w := h.store.src.(*dirSource).watch
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

func testServeHead(h *Handler, target string) {
	h.ServeHTTP(&testsite.Discard{H: http.Header{}}, httptest.NewRequest("HEAD", target, nil))
}

// TestEventsSeeChanges: every kind of change is seen by the very next
// request, with no wait: the kernel queues the event before the writer's
// system call returns, and every hit looks for pending events.
func TestEventsSeeChanges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dir string) (string, []byte) // the name to ask, and its new content (nil: gone)
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
			return "sub/", []byte("index two")
		}},
		{"parent-replaced", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old")))
			must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "sub", "index.html"), []byte("new dir"), 0o644))
			return "sub/", []byte("new dir")
		}},
		{"parent-became-symlink", func(t *testing.T, dir string) (string, []byte) {
			must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "elsewhere", "index.html"), []byte("via link"), 0o644))
			must(t, os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old")))
			must(t, os.Symlink("elsewhere", filepath.Join(dir, "sub")))
			return "sub/", []byte("via link")
		}},
		{"big-rename-over", func(t *testing.T, dir string) (string, []byte) {
			b := randomBytes(1<<20 + 1)
			must(t, os.WriteFile(filepath.Join(dir, "tmp"), b, 0o644))
			must(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "big.bin")))
			return "big.bin", b
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, p, h, clock := eventsSite(t, Options{})
			if h.store.src.(*dirSource).watch == nil {
				t.Skip("no events here")
			}
			for _, name := range []string{"small.txt", "sub/", "big.bin"} {
				get(h, "/"+p+"/"+name)
			}
			h.store.cache.sync()
			name, want := c.change(t, filepath.Join(dir, p))
			w := get(h, "/"+p+"/"+name) // at once: no window
			_ = clock
			switch {
			case want == nil && w.Code != 404:
				t.Errorf("after the change: %d, want 404", w.Code)
			case want != nil && (w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want)):
				t.Errorf("after the change: %d %.40q, want %.40q", w.Code, w.Body.String(), want)
			}
		})
	}
}

// TestEventsReadYourWrites: a write followed at once by a request gets the
// new bytes, ETag and Last-Modified, and a 304 for the old ETag is never
// sent, however quickly the writes come: there is no window. Same size
// each time, so only the events can tell.
func TestEventsReadYourWrites(t *testing.T) {
	t.Parallel()
	dir, p, h, _ := eventsSite(t, Options{})
	if h.store.src.(*dirSource).watch == nil {
		t.Skip("no events here")
	}
	target, file := "/"+p+"/small.txt", filepath.Join(dir, p, "small.txt")
	get(h, target)
	h.store.cache.sync()
	prev := get(h, target).Header().Get("Etag")
	for i := range 200 {
		body := fmt.Sprintf("version %03d", i)
		must(t, os.WriteFile(file, []byte(body), 0o644))
		w := get(h, target)
		if w.Body.String() != body {
			t.Fatalf("write %d: got %q, want %q", i, w.Body.String(), body)
		}
		etag := w.Header().Get("Etag")
		if etag == prev {
			t.Fatalf("write %d: the old ETag %s", i, etag)
		}
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("If-None-Match", prev)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != 200 {
			t.Fatalf("write %d: %d for the old ETag, want 200", i, rec.Code)
		}
		prev = etag
	}
}

// TestEventsMetadataChanges: metadata-only changes are seen by the next
// request too: net/http's TestDirectoryIfNotModified (a later mtime makes
// the old If-Modified-Since a 200), and chmod to unreadable (403).
func TestEventsMetadataChanges(t *testing.T) {
	t.Parallel()
	dir, p, h, _ := eventsSite(t, Options{})
	if h.store.src.(*dirSource).watch == nil {
		t.Skip("no events here")
	}
	target, file := "/"+p+"/sub/", filepath.Join(dir, p, "sub", "index.html")
	first := get(h, target)
	h.store.cache.sync()
	lastMod := first.Header().Get("Last-Modified")
	ims := func() int {
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("If-Modified-Since", lastMod)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	if c := ims(); c != 304 {
		t.Fatalf("before the change: %d, want 304", c)
	}
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(file, later, later))
	if c := ims(); c != 200 {
		t.Errorf("after os.Chtimes(+1h): %d, want 200", c)
	}
}

// TestEventsFallBackToStat: where events do not cover a file, every hit is
// confirmed by a stat: events lost, a symbolic link on the path, an
// untrusted file system, Revalidate < 0.
func TestEventsFallBackToStat(t *testing.T) {
	t.Parallel()
	hits := func(t *testing.T, h *Handler, target, file string) int64 {
		t.Helper()
		get(h, target)
		h.store.cache.sync()
		get(h, target)
		before := statCount(file)
		for range 10 {
			if w := get(h, target); w.Code != 200 {
				t.Fatalf("%s: %d", target, w.Code)
			}
		}
		return statCount(file) - before
	}
	t.Run("lost", func(t *testing.T) {
		t.Parallel()
		_, p, h, _ := eventsSite(t, Options{})
		w := h.store.src.(*dirSource).watch
		if w == nil {
			t.Skip("no events here")
		}
		target := "/" + p + "/small.txt"
		get(h, target)
		h.store.cache.sync()
		w.mu.Lock()
		w.lostLocked()
		w.mu.Unlock()
		before := statCount(p + "/small.txt")
		get(h, target)
		if n := statCount(p+"/small.txt") - before; n != 1 {
			t.Errorf("%d stats after events were lost, want 1", n)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		t.Parallel()
		dir, p, h, _ := eventsSite(t, Options{})
		must(t, os.Symlink("sub", filepath.Join(dir, p, "link")))
		if n := hits(t, h, "/"+p+"/link/", p+"/link/index.html"); n != 10 {
			t.Errorf("%d of 10 hits through a symbolic link confirmed by stat", n)
		}
	})
	t.Run("revalidate<0", func(t *testing.T) {
		t.Parallel()
		_, p, h, _ := eventsSite(t, Options{Revalidate: -1})
		if n := hits(t, h, "/"+p+"/small.txt", p+"/small.txt"); n != 10 {
			t.Errorf("%d of 10 hits confirmed by stat", n)
		}
	})
}

// TestEventsUntrustedFS: on a file system jaws does not trust for events
// (network, user-space), there is no watcher at all.
func TestEventsUntrustedFS(t *testing.T) {
	// Not parallel: the hook is global.
	testHookTrustFS = func(int64) bool { return false }
	defer func() { testHookTrustFS = nil }()
	h := newTestHandler(t, t.TempDir(), Options{})
	if w := h.store.src.(*dirSource).watch; w != nil {
		t.Error("a watcher on an untrusted file system")
	}
}

// TestEventsBusyDirectory: a file next to one that changes all the time
// stays correct, confirmed by stat while its token is stale, and takes a new
// token rearmEvery later.
func TestEventsBusyDirectory(t *testing.T) {
	t.Parallel()
	dir, p, h, clock := eventsSite(t, Options{})
	if h.store.src.(*dirSource).watch == nil {
		t.Skip("no events here")
	}
	target, file := "/"+p+"/small.txt", p+"/small.txt"
	get(h, target)
	h.store.cache.sync()
	log := filepath.Join(dir, p, "access.log")
	for i := range 5 {
		must(t, os.WriteFile(log, []byte{byte(i)}, 0o644))
		if w := get(h, target); w.Body.String() != "small one" {
			t.Fatalf("%q", w.Body.String())
		}
	}
	clock.Add(int64(rearmEvery))
	get(h, target) // takes a new token
	undisturbed(t, h, clock, func() { get(h, target) }, func() func() {
		before := statCount(file)
		for range 5 {
			get(h, target)
		}
		return func() {
			if n := statCount(file) - before; n != 0 {
				t.Errorf("%d stats once the directory went quiet and the token was taken anew", n)
			}
		}
	})
}

// TestEventsTokenDirs: a token holds the root and each directory on the
// file's path, once each, so a hit compares as many generations as the path
// has directories and each is watched once.
func TestEventsTokenDirs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a", "b", "c.js"), []byte("c"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "top.js"), []byte("t"), 0o644))
	h := newTestHandler(t, dir, Options{})
	d := h.store.src.(*dirSource)
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
		tok := w.cover(d.cur.Load(), c.file, versionOf(info), mono(), time.Now().UnixNano())
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

// TestWatchesOnlyInsideRoot (SECURITY.md, "Watches"): 404s through links
// that leave the root, to a sibling tree or up to the system's directories,
// watch nothing; every watch is of a directory of the root's tree (or on
// the way to it, for the root path itself), and found files add a watch per
// directory, once.
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
	h := newTestHandler(t, root, Options{})
	w := h.store.src.(*dirSource).watch
	if w == nil {
		t.Skip("no events here")
	}
	if c := get(h, "/sub/f.txt").Code; c != 200 {
		t.Fatalf("/sub/f.txt: %d", c)
	}
	before := watchedInodes(t, w)
	for i := range 3000 {
		target := fmt.Sprintf("/up/d%d/secret.txt", i%64)
		if i%2 == 1 {
			target = []string{"/top/etc/passwd", "/top/usr/lib/", "/top/tmp/x", "/top/proc/self/environ"}[i%4/2*2+i%3%2] + fmt.Sprint(i)
		}
		if c := get(h, target).Code; c != 404 {
			t.Fatalf("%s: %d, want 404", target, c)
		}
	}
	after := watchedInodes(t, w)
	if len(after) > len(before) {
		t.Errorf("%d watches after 3000 404s through escaping links, %d before", len(after), len(before))
	}
	inside := dirInodes(t, root)
	for ino := range after {
		if !inside[ino] {
			t.Errorf("a watch on inode %d, outside the root and off its way", ino)
		}
	}
}

// TestLinkLoop404sKeepNothing (SECURITY.md, "Bounded memory"): with links
// to the root's own directory (mirrors ship "ubuntu -> ."), every distinct
// path through them is another name, and 3000 404s for such names keep no
// memory: nothing is cached, watched or remembered for a name not found.
func TestLinkLoop404sKeepNothing(t *testing.T) {
	// Not parallel: it measures the heap.
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte("f"), 0o644))
	must(t, os.Symlink(".", filepath.Join(root, "a")))
	must(t, os.Symlink(".", filepath.Join(root, "b")))
	h := newTestHandler(t, root, Options{})
	get(h, "/a/b/f.txt")
	names := func(seed, n int) []string {
		out := make([]string, n)
		for i := range out {
			var b strings.Builder
			for j, x := 0, seed*n+i; j < 12; j, x = j+1, x/2 {
				b.WriteString([]string{"/a", "/b"}[x%2])
			}
			fmt.Fprintf(&b, "/missing-%d", seed*n+i)
			out[i] = b.String()
		}
		return out
	}
	flood := func(targets []string) {
		for _, target := range targets {
			if c := get(h, target).Code; c != 404 {
				t.Fatalf("%s: %d, want 404", target, c)
			}
		}
	}
	// The tests' own hooks remember every name opened or followed.
	hooks := []*func(string){&testHookOpen, &testHookFollowLinks, &testHookConfirmStat}
	saved := make([]func(string), len(hooks))
	for i, p := range hooks {
		saved[i], *p = *p, nil
	}
	defer func() {
		for i, p := range hooks {
			*p = saved[i]
		}
	}()
	flood(names(0, 300)) // warm up whatever pools requests use: a tenth of the flood does
	targets := names(1, 3000)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	flood(targets)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("heap after 3000 link-loop 404s: %+d bytes", kept)
	if kept > 64<<10 {
		t.Errorf("3000 link-loop 404s kept %d bytes of heap, want under 64 KiB", kept)
	}
	runtime.KeepAlive(targets)
	if w := h.store.src.(*dirSource).watch; w != nil {
		w.mu.Lock()
		n := len(w.byWd)
		w.mu.Unlock()
		if n > 1 {
			t.Errorf("%d directories watched, want at most the root", n)
		}
	}
}

// TestEventsWatchLimit: when no watch is to be had (the user's inotify limit
// exhausted: ENOSPC), hits are confirmed by stat, and a change is still seen
// by the next request.
func TestEventsWatchLimit(t *testing.T) {
	// Not parallel: the hook is global.
	testHookAddWatch = func(error) error { return syscall.ENOSPC }
	defer func() { testHookAddWatch = nil }()
	dir, p, h, _ := eventsSite(t, Options{})
	if h.store.src.(*dirSource).watch == nil {
		t.Skip("no events here")
	}
	target, file := "/"+p+"/small.txt", p+"/small.txt"
	get(h, target)
	h.store.cache.sync()
	before := statCount(file)
	for range 5 {
		get(h, target)
	}
	if n := statCount(file) - before; n != 5 {
		t.Errorf("%d of 5 hits confirmed by stat with no watch to be had", n)
	}
	must(t, os.WriteFile(filepath.Join(dir, p, "small.txt"), []byte("small two"), 0o644))
	if w := get(h, target); w.Body.String() != "small two" {
		t.Errorf("after the change: %q, want the new content", w.Body.String())
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
	h := newTestHandler(t, dir, Options{})
	d := h.store.src.(*dirSource)
	w := d.watch
	if w == nil {
		t.Skip("no events on this file system")
	}
	cover := func(file string, readAt int64) *token {
		info, err := os.Stat(filepath.Join(dir, file))
		must(t, err)
		w.sync()
		return w.cover(d.cur.Load(), file, versionOf(info), readAt, time.Now().UnixNano())
	}
	cover("a/f.js", mono()) // watches a/
	before := mono()
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
		{"written-before-read", "a/f.js", mono(), true},
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
	before := mono()
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
	after := mono()
	if w.writtenSinceLocked(tok, "dir/b.js", after) {
		t.Error("b.js written after everything reported")
	}
	w.handle(event(-1, unix.IN_Q_OVERFLOW, ""))
	if !w.writtenSinceLocked(nil, "dir/b.js", after) {
		t.Error("events lost: b.js, unwatched, not counted as written")
	}
}
