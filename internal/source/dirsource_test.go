package source

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/testsite"
)

// looks counts, per source, how often it looked for what its root names
// (testHookCurrent).
var looks counts[*dirSource]

func init() { testHookCurrent = looks.add }

// TestLooks: Open and Fresh each look once for what the root path names
// (one epoll_wait with events, a stat of the path without), and OpenIn in
// the tree a Fresh found does not look again. Package jaws's
// TestOneLookPerRequest counts a request's looks by these rules.
func TestLooks(t *testing.T) {
	t.Parallel()
	dir := testsite.At(t, tempDir(t)).File("f.txt", []byte("f")).Root
	for _, events := range []bool{true, false} {
		d := openDir(t, dir, events)
		now := time.Now().UnixNano()
		clock := func() int64 { return now }
		looked := func(what string, want int64, do func()) {
			t.Helper()
			before := looks.get(d)
			do()
			if n := looks.get(d) - before; n != want {
				t.Errorf("events %v: %s looked %d times, want %d", events, what, n, want)
			}
		}
		var ref *Ref
		looked("Open", 1, func() { ref = find(t, d, "f.txt", now) })
		looked("Fresh", 1, func() {
			if !d.Fresh(ref, nil, clock) {
				t.Fatal("not fresh")
			}
		})
		looked("OpenIn the ref's tree", 0, func() {
			f, _, at, err := d.OpenIn(ref.Tree, "f.txt")
			must(t, err)
			f.Close()
			if at != ref.Tree {
				t.Error("OpenIn found another tree")
			}
		})
		looked("OpenIn no tree", 1, func() {
			f, _, _, err := d.OpenIn(nil, "f.txt")
			must(t, err)
			f.Close()
		})
	}
}

// TestUnlinked: a descriptor of a file deleted, or renamed over, is told
// from one of a file still served (unlinked: no link left on Unix; delete
// pending on Windows, where os.Root opens files so that they can be
// deleted and renamed over while open), and Gone says so of a ref's
// descriptor; so it does of one of a tree the root path no longer names.
// Under Wine, which reports no pending delete, it holds that a file still
// served is not taken for a deleted one.
func TestUnlinked(t *testing.T) {
	t.Parallel()
	s := testsite.At(t, tempDir(t)).
		File("kept.txt", []byte("kept")).
		File("deleted.txt", []byte("deleted")).
		File("replaced.txt", []byte("replaced"))
	d := openDir(t, s.Root, false)
	open := func(name string) (*os.File, *Ref) {
		t.Helper()
		f, info, at, err := d.Open(name)
		must(t, err)
		t.Cleanup(func() { f.Close() })
		return f.(*os.File), &Ref{File: name, Info: info, Ver: VersionOf(info), Tree: at}
	}
	files := map[string]*os.File{}
	refs := map[string]*Ref{}
	for _, name := range []string{"kept.txt", "deleted.txt", "replaced.txt"} {
		files[name], refs[name] = open(name)
	}
	gone, handled := unlinked(files["kept.txt"])
	switch {
	case !handled && (runtime.GOOS == "windows" || unixLike()):
		t.Fatalf("unlinked cannot tell on %s", runtime.GOOS)
	case !handled:
		t.Skipf("no telling deleted files on %s", runtime.GOOS)
	case gone:
		t.Fatal("a file still served taken for a deleted one")
	}
	want := map[string]bool{"kept.txt": false, "deleted.txt": true, "replaced.txt": true}
	must(t, os.Remove(s.Path("deleted.txt")))
	if underWine() {
		want["deleted.txt"] = false // Wine 8 reports DeletePending false
	}
	s.File("new.txt", []byte("the new version"))
	if err := os.Rename(s.Path("new.txt"), s.Path("replaced.txt")); err != nil {
		if runtime.GOOS != "windows" {
			t.Fatal(err)
		}
		// Windows renames over an open file only with POSIX semantics
		// (Windows 10 1709 and later); Wine, for one, refuses.
		t.Logf("no rename over an open file here: %v", err)
		want["replaced.txt"] = false
	}
	for name, want := range want {
		if got := d.Gone(refs[name], files[name]); got != want {
			t.Errorf("%s: Gone = %v, want %v", name, got, want)
		}
	}
	if runtime.GOOS == "windows" {
		return // a directory with open handles in it is not renamed there
	}
	must(t, os.Rename(s.Root, s.Root+".old"))
	must(t, os.Mkdir(s.Root, 0o755))
	t.Cleanup(func() { os.RemoveAll(s.Root + ".old") })
	d.current() // takes the new directory, retires the old tree
	if !d.Gone(refs["kept.txt"], files["kept.txt"]) {
		t.Error("a file of a retired tree not Gone")
	}
}

// unixLike reports whether the system is one of the unix build tag's.
func unixLike() bool {
	switch runtime.GOOS {
	case "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios",
		"linux", "netbsd", "openbsd", "solaris":
		return true
	}
	return false
}

// TestAlsoAtArm: a name a ref stands on that changed after it was looked
// at, before the ref was armed (a plain file created while its
// compressed-only index was built), is seen by the first Fresh. Events
// report only what happens once the watches are in place, so Arm looks at
// the names itself then.
func TestAlsoAtArm(t *testing.T) {
	t.Parallel()
	for _, events := range []bool{true, false} {
		// In a directory no ref has had watched yet.
		s := testsite.At(t, tempDir(t)).File("sub/app.js.br", []byte("br"))
		d := openDir(t, s.Root, events)
		f, info, at, err := d.Open("sub/app.js.br")
		must(t, err)
		f.Close()
		ref := &Ref{File: "sub/app.js.br", Info: info, Ver: VersionOf(info), Tree: at, ReadAt: Mono(),
			Also: []Also{{Name: "sub/app.js", Absent: true}}}
		s.File("sub/app.js", []byte("plain")) // after the look, before Arm
		now := time.Now().UnixNano()
		d.Arm(ref, now)
		if d.Fresh(ref, nil, func() int64 { return now }) {
			t.Errorf("events %v: fresh, though app.js appeared before Arm", events)
		}
	}
}
