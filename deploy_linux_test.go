package jaws_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
	"golang.org/x/sys/unix"
)

// The deploy suite: the ways sites are deployed, each run against
// jaws.New(root, jaws.Options{}) and http.FileServer(http.Dir(root)) on the
// same tree, the same way. Every file is requested, and cached by jaws,
// before the deploy; once the deploy's last system call returned, the very
// next request to each server must see the new tree: its bytes, its
// validators (jaws's ETag, both servers' Last-Modified) and its missing
// names (404). No sleep, no waiting for events: the freshness contract
// (DESIGN.md) is read-your-writes. http.FileServer passing a row proves the
// row's scenario is real, so a row jaws fails is a bug of jaws.
//
// Small files are served from memory; the large ones (bigSize) take the
// zero-copy path over the HTTP/1.1 server, where jaws reads a descriptor it
// shares and keeps; every check also serves each name in-process
// (ServeHTTP with a recorder), where large files take the fallback. Just
// before a deploy's last system calls, each server is asked for a file, as
// a live site is all the time (hit); right after them, jaws is asked for
// the small files in-process, microseconds later, and for the large ones
// over HTTP/1.1 (see check).
//
// After each row, the descriptors the process holds into the row's tree
// and the inotify watches on its directories are logged, and no descriptor
// of a deleted file may be left (see descriptorWait).

const (
	bigSize   = jaws.DefaultZeroCopyMinSize  // the smallest file of jaws's zero-copy path
	memoryMax = jaws.DefaultCacheMaxFileSize // up to it, a file is served from memory, under its content's ETag
)

// descriptorWait bounds the one wait of this suite. jaws lets go of the
// descriptors of deleted or replaced files within a documented bound of one
// second (sweepEvery), requested again or not: that is a timer, so a test
// cannot ask for it by a request, and this is the one place a test here
// polls. The suite's handlers sweep every deploySweep instead
// (SetSweepEvery), so the descriptors go in tens of milliseconds, not in
// one or two seconds a row; TestSweepEvery holds the second. The wait is
// still up to three seconds, so a loaded machine does not fail it.
const (
	deploySweep    = 20 * time.Millisecond
	descriptorWait = 3 * time.Second
)

// A row is one deploy pattern.
type deployRow struct {
	name   string
	run    func(t *testing.T)
	mounts bool // the row mounts (mountOrSkip): TestDeployMounted runs it
}

// TestDeploy runs the rows that mount nothing, in parallel with the rest
// of the suite.
func TestDeploy(t *testing.T) {
	t.Parallel()
	runDeployRows(t, false)
}

// TestDeployMounted runs the rows that mount (as root; elsewhere they
// skip). Not parallel: every handler's watcher sees the mount table
// change, and the tests that want no stat per hit would be disturbed
// (undisturbed, in watch_linux_test.go).
func TestDeployMounted(t *testing.T) {
	t.Cleanup(func() { checkUnmounted(t) })
	runDeployRows(t, true)
}

func runDeployRows(t *testing.T, mounts bool) {
	for _, row := range deployRows {
		if row.mounts != mounts {
			continue
		}
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			row.run(t)
		})
	}
}

var deployRows = []deployRow{
	// The root is a path that comes to name another directory.
	{"root-symlink-swapped", deployRootSymlinkSwapped, false},
	{"root-renamed-and-replaced", deployRootRenamed, false},
	{"root-deleted-and-recreated", deployRootDeleted, false},
	// What the events do not report.
	{"inotify-queue-overflow", deployQueueOverflow, false},
	{"file-bind-mounted", deployFileBindMounted, true},
	{"dir-bind-mounted-over-assets", deployDirBindMounted, true},
	{"overlay-lower-rewritten", deployOverlayLower, true},
	{"mapfs-same-size-no-modtime", deployMapFS, false},
	// Descriptors of deleted files.
	{"large-files-deleted", deployLargeDeleted, false},
	// Patterns that are to pass, and to stay so.
	{"rsync-temp-and-rename", deployRsync, false},
	{"in-place-same-size-mtime-restored", deployInPlace, false},
	{"cp-over", deployCopyOver, false},
	{"editor-atomic-save", deployEditorSave, false},
	{"git-checkout", deployGitCheckout, false},
	{"tar-x-over", deployTarX, false},
	{"subdir-swapped-by-rename", deploySubdirSwapped, false},
	{"configmap-data-symlink-swap", deployConfigMap, false},
	{"tmpfs-root", deployTmpfsRoot, true},
	{"overlay-merged", deployOverlayMerged, true},
	{"bind-mounted-root", deployBindMountedRoot, true},
	{"newfs-dirfs", deployNewFSDirFS, false},
	{"chtimes-only", deployChtimes, false},
	{"chmod-000", deployChmod, false},
	{"assets-swapped-100-times", deploySwapped100, false},
}

// The rows. Each computes the new bytes first, then asks every server for
// a file mid-deploy (hit), as a live site is asked all the time, and makes
// the deploy's last system calls at once: the first request after them must
// see them.

func deployRootSymlinkSwapped(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	writeTree(t, d.path("releases/1"), release(1), releaseTime(1))
	writeTree(t, d.path("releases/2"), release(2), releaseTime(2))
	must(t, os.Symlink("releases/1", d.path("current")))
	d.serve(d.path("current"))
	d.setFiles(release(1))
	d.warm()

	// ln -s releases/2 tmp && mv -T tmp current
	d.hit()
	must(t, os.Symlink("releases/2", d.path("current.tmp")))
	must(t, os.Rename(d.path("current.tmp"), d.path("current")))
	d.setFiles(release(2))
	d.check("current swapped to releases/2")

	d.hit()
	must(t, os.RemoveAll(d.path("releases/1")))
	d.check("releases/1 deleted")
}

func deployRootRenamed(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	writeTree(t, d.path("site"), release(1), releaseTime(1))
	writeTree(t, d.path("site.new"), release(2), releaseTime(2))
	d.serve(d.path("site"))
	d.setFiles(release(1))
	d.warm()

	// mv site site.old && mv site.new site
	d.hit()
	must(t, os.Rename(d.path("site"), d.path("site.old")))
	must(t, os.Rename(d.path("site.new"), d.path("site")))
	d.setFiles(release(2))
	d.check("site renamed away, site.new renamed to site")

	d.hit()
	must(t, os.RemoveAll(d.path("site.old")))
	d.check("site.old deleted")
}

func deployRootDeleted(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	writeTree(t, d.path("site"), release(1), releaseTime(1))
	d.serve(d.path("site"))
	d.setFiles(release(1))
	d.warm()

	d.hit()
	must(t, os.RemoveAll(d.path("site")))
	d.setFiles(nil)
	d.check("site deleted")

	files := release(2)
	d.hit()
	writeTree(t, d.path("site"), files, releaseTime(2))
	d.setFiles(files)
	d.check("site recreated")
}

// deployQueueOverflow loses events: more changes than the inotify queue
// holds, with no request in between, then assets/ is swapped by rename
// (whose events are lost too); then a file of the new assets/ is changed.
// The changes are writes to a few files in turn, each an IN_MODIFY that
// the kernel cannot merge with the one before (another name): creating as
// many files takes minutes on a busy disk.
func deployQueueOverflow(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skipf("no inotify queue limit to read: %v", err)
	}
	queue, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || queue > 1<<24 {
		t.Skipf("max_queued_events %q: too many changes to make for an overflow", b)
	}
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	// Made before the handler, so that their making is no event.
	newAssets := assetsRelease(2)
	writeTree(t, filepath.Join(root, "assets.new"), stripDir(newAssets, "assets/"), releaseTime(2))
	var churn []*os.File
	for i := range 64 {
		f, err := os.Create(filepath.Join(root, fmt.Sprintf("churn-%02d.log", i)))
		must(t, err)
		defer f.Close()
		churn = append(churn, f)
	}
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	// An inotify instance of the test's own, on the root jaws watches,
	// gets the same events into a queue of the same size: its overflow
	// shows jaws's.
	probe, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	must(t, err)
	_, err = unix.InotifyAddWatch(probe, root, unix.IN_MODIFY)
	if err != nil {
		unix.Close(probe)
		t.Fatal(err)
	}
	changes := 2 * (queue + 1)
	for i := range changes {
		_, err := churn[i%len(churn)].WriteAt([]byte{byte(i)}, 0)
		must(t, err)
	}
	must(t, os.Rename(filepath.Join(root, "assets"), filepath.Join(root, "assets.old")))
	must(t, os.Rename(filepath.Join(root, "assets.new"), filepath.Join(root, "assets")))
	lost := overflowed(probe)
	unix.Close(probe)
	if !lost {
		t.Fatalf("%d changes did not overflow an inotify queue (max_queued_events %d)", changes, queue)
	}
	d.expectAssets(newAssets)
	d.check(fmt.Sprintf("%d changes (max_queued_events %d), assets swapped", changes, queue))

	app3, big3 := version("assets/app.js", 3), version("assets/big.bin", 3)
	d.hit()
	rewriteInPlace(t, filepath.Join(root, "assets/app.js"), app3)
	rewriteInPlace(t, filepath.Join(root, "assets/big.bin"), big3)
	d.expectFile("assets/app.js", app3)
	d.expectFile("assets/big.bin", big3)
	d.check("files of the new assets rewritten in place")
}

// overflowed reads the events pending on the inotify descriptor fd and
// reports whether the queue overflowed (IN_Q_OVERFLOW).
func overflowed(fd int) bool {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			mask := binary.NativeEndian.Uint32(b[4:8])
			size := unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(b[12:16]))
			if mask&unix.IN_Q_OVERFLOW != 0 {
				return true
			}
			b = b[min(size, len(b)):]
		}
	}
}

// deployFileBindMounted bind-mounts files of the host into the root and
// rewrites them in place on the host.
func deployFileBindMounted(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	host, root := d.path("host"), d.path("site")
	writeTree(t, host, map[string][]byte{"x.txt": version("x.txt", 1), "big.bin": version("big.bin", 1)}, releaseTime(1))
	writeTree(t, root, map[string][]byte{
		"index.html": version("index.html", 1),
		"small.txt":  version("small.txt", 1),
		"x.txt":      []byte("mount point, never served"),
		"big.bin":    []byte("mount point, never served"),
	}, releaseTime(1))
	for _, name := range []string{"x.txt", "big.bin"} {
		mountOrSkip(t, filepath.Join(host, name), filepath.Join(root, name), "", syscall.MS_BIND, "")
	}
	d.serve(root)
	d.setFiles(map[string][]byte{
		"index.html": version("index.html", 1),
		"small.txt":  version("small.txt", 1),
		"x.txt":      version("x.txt", 1),
		"big.bin":    version("big.bin", 1),
	})
	d.warm()

	x2, big2 := version("x.txt", 2), version("big.bin", 2)
	d.hit()
	rewriteInPlace(t, filepath.Join(host, "x.txt"), x2)
	rewriteInPlace(t, filepath.Join(host, "big.bin"), big2)
	d.expectFile("x.txt", x2)
	d.expectFile("big.bin", big2)
	d.check("host files rewritten in place, same size")

	x3 := []byte("x.txt, version 3, which is longer than the others\n")
	big3 := testsite.Random(600<<10, seed("big.bin", 3))
	d.hit()
	must(t, os.WriteFile(filepath.Join(host, "x.txt"), x3, 0o644))
	must(t, os.WriteFile(filepath.Join(host, "big.bin"), big3, 0o644))
	d.expectFile("x.txt", x3)
	d.expectFile("big.bin", big3)
	d.check("host files rewritten, other sizes (big.bin 1 MiB -> 600 KiB)")
}

// deployDirBindMounted mounts a directory over assets/ once jaws has its
// files cached, and unmounts it again.
func deployDirBindMounted(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root, other := d.path("site"), d.path("other")
	writeTree(t, root, release(1), releaseTime(1))
	mounted := assetsRelease(2)
	writeTree(t, other, stripDir(mounted, "assets/"), releaseTime(2))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	d.hit()
	mountOrSkip(t, other, filepath.Join(root, "assets"), "", syscall.MS_BIND, "")
	d.expectAssets(mounted)
	d.check("a directory bind-mounted over assets/")

	d.hit()
	unmount(t, filepath.Join(root, "assets"))
	d.expectAssets(assetsOf(release(1)))
	d.check("assets/ unmounted again")
}

// deployOverlayLower rewrites files of an overlay's lower layer in place,
// under the mount, which the kernel calls undefined: either version may be
// served, never a mix, and never under the other version's ETag. What each
// server does is logged.
func deployOverlayLower(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	lower, merged := d.overlay(release(1))
	d.serve(merged)
	d.setFiles(release(1))
	d.warm()

	names := []string{"small.txt", "big.bin"}
	now := map[string][]byte{}
	for _, name := range names {
		now[name] = version(name, 2)
	}
	d.hit()
	for _, name := range names {
		rewriteInPlace(t, filepath.Join(lower, name), now[name])
		d.expectEither(name, version(name, 1), now[name])
	}
	d.check("lower layer rewritten in place (undefined: either version, never a mix)")
}

// deployMapFS replaces files of an fstest.MapFS, which has no ModTime, by
// other bytes of the same size.
func deployMapFS(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	m := fstest.MapFS{}
	for name, data := range release(1) {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	d.serveFS(m, false)
	d.setFiles(release(1))
	d.warm()

	names := []string{"small.txt", "big.bin", "assets/app.js"}
	now := map[string][]byte{}
	for _, name := range names {
		now[name] = version(name, 2)
	}
	d.hit()
	for _, name := range names {
		m[name] = &fstest.MapFile{Data: now[name], Mode: 0o644}
		d.expectFile(name, now[name])
	}
	delete(m, "only-1.txt")
	d.expectGone("only-1.txt")
	d.check("files replaced by others of the same size, one deleted")
}

// deployLargeDeleted deletes large files jaws serves zero-copy, and with no
// request after it, jaws must let their descriptors go (descriptorWait).
func deployLargeDeleted(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	big2 := version("assets/big.bin", 2)
	d.hit()
	must(t, os.Remove(filepath.Join(root, "big.bin")))
	replaceByRename(t, filepath.Join(root, "assets/big.bin"), big2, releaseTime(2))
	d.waitNoDeleted("big.bin deleted, assets/big.bin replaced by rename")
	d.expectGone("big.bin")
	d.expectFile("assets/big.bin", big2)
	d.check("big.bin deleted, assets/big.bin replaced by rename")
}

// deployRsync is rsync -a --delete-after --delay-updates: each changed file
// written to a temporary name next to it with its mtime, then all renamed
// over, then the files not in the new release deleted.
func deployRsync(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	rsyncTree(t, root, release(2), releaseTime(2), d.hit)
	d.setFiles(release(2))
	d.check("rsync of release 2")
}

// deployInPlace rewrites files in place with other bytes of the same size
// and restores their mtime: only the ctime tells. (A large file keeps its
// size-and-mtime ETag then, as docs/freshness.md says; its bytes must be
// new all the same.)
func deployInPlace(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	names := []string{"small.txt", "assets/app.js", "big.bin", "assets/big.bin"}
	now := map[string][]byte{}
	for _, name := range names {
		now[name] = version(name, 2)
	}
	d.hit()
	for _, name := range names {
		p := filepath.Join(root, name)
		info, err := os.Stat(p)
		must(t, err)
		rewriteInPlace(t, p, now[name])
		must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
		d.expectFile(name, now[name])
	}
	d.check("rewritten in place, same size, mtime restored")
}

// deployCopyOver is cp over the files: each opened with O_TRUNC and
// written, the same inode with new bytes.
func deployCopyOver(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	now := map[string][]byte{"small.txt": []byte("small.txt, version 2, which is longer than version 1\n")}
	for _, name := range []string{"index.html", "assets/app.js", "big.bin", "assets/big.bin"} {
		now[name] = version(name, 2)
	}
	d.hit()
	for name, data := range now {
		copyOver(t, filepath.Join(root, name), data)
		d.expectFile(name, data)
	}
	d.check("cp over the files")
}

// deployEditorSave is an editor's atomic save: the old file kept as a
// backup (a hard link, name~), the new one written to a temporary name and
// renamed over. The backup serves the old bytes, the name the new ones.
func deployEditorSave(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	names := []string{"index.html", "small.txt", "big.bin"}
	now := map[string][]byte{}
	for _, name := range names {
		now[name] = version(name, 2)
	}
	d.hit()
	for _, name := range names {
		p := filepath.Join(root, name)
		must(t, os.Link(p, p+"~"))
		must(t, os.WriteFile(p+".swp", now[name], 0o644))
		must(t, os.Rename(p+".swp", p))
		d.expectFile(name, now[name])
		d.expectFile(name+"~", version(name, 1))
	}
	d.check("saved by editors, backups kept")
}

// deployGitCheckout is git checkout of another commit: each changed file
// unlinked and created anew, deleted ones removed, added ones created.
func deployGitCheckout(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	now := map[string][]byte{"only-2.txt": release(2)["only-2.txt"]}
	for _, name := range []string{"small.txt", "assets/app.js", "big.bin"} {
		now[name] = version(name, 2)
	}
	d.hit()
	for name, data := range now {
		p := filepath.Join(root, name)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		must(t, err)
		_, err = f.Write(data)
		must(t, errors.Join(err, f.Close()))
		d.expectFile(name, data)
	}
	must(t, os.Remove(filepath.Join(root, "only-1.txt")))
	d.expectGone("only-1.txt")
	d.check("git checkout")
}

// deployTarX extracts a release over the tree with tar(1). The archive's
// mtimes are release 1's, as reproducible builds pin them
// (SOURCE_DATE_EPOCH), and big.bin keeps its size: only the inode tells.
func deployTarX(t *testing.T) {
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar(1) here")
	}
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	files := map[string][]byte{"only-2.txt": release(2)["only-2.txt"]}
	for _, name := range []string{"index.html", "small.txt", "assets/app.js", "big.bin", "assets/big.bin"} {
		files[name] = version(name, 2)
	}
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])),
			ModTime: releaseTime(1), Uid: os.Getuid(), Gid: os.Getgid(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}))
		_, err := tw.Write(files[name])
		must(t, err)
	}
	must(t, tw.Close())
	must(t, os.WriteFile(d.path("release.tar"), archive.Bytes(), 0o644))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	cmd := exec.Command(tarBin, "-xf", d.path("release.tar"), "-C", root)
	d.hit()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar -xf: %v\n%s", err, out)
	}
	for name, data := range files {
		d.expectFile(name, data)
	}
	d.check("tar -xf over the tree, mtimes as in release 1")
}

// deploySubdirSwapped swaps assets/ by rename, then deletes the old one.
func deploySubdirSwapped(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	newAssets := assetsRelease(2)
	writeTree(t, filepath.Join(root, "assets.new"), stripDir(newAssets, "assets/"), releaseTime(2))
	d.hit()
	must(t, os.Rename(filepath.Join(root, "assets"), filepath.Join(root, "assets.old")))
	must(t, os.Rename(filepath.Join(root, "assets.new"), filepath.Join(root, "assets")))
	d.expectAssets(newAssets)
	d.check("mv assets assets.old && mv assets.new assets")

	d.hit()
	must(t, os.RemoveAll(filepath.Join(root, "assets.old")))
	d.check("assets.old deleted")
}

// deployConfigMap updates a Kubernetes ConfigMap volume as the kubelet's
// atomic writer does: the files in a new timestamped directory, a ..data
// symlink to it swapped by rename, links for new keys made and for removed
// keys deleted, the old directory deleted. Each key is a link into ..data.
func deployConfigMap(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("configmap")
	const ts1, ts2 = "..2026_01_01_00_00_00.000000001", "..2026_01_02_00_00_00.000000002"
	keys1 := map[string][]byte{
		"index.html":  version("index.html", 1),
		"config.json": version("config.json", 1),
		"big.bin":     version("big.bin", 1),
		"removed.txt": version("removed.txt", 1),
	}
	keys2 := map[string][]byte{
		"index.html":  version("index.html", 2),
		"config.json": []byte(`{"version": 2, "longer": "than version 1"}`),
		"big.bin":     version("big.bin", 2),
		"added.txt":   version("added.txt", 2),
	}
	writeTree(t, filepath.Join(root, ts1), keys1, releaseTime(1))
	must(t, os.Symlink(ts1, filepath.Join(root, "..data")))
	for key := range keys1 {
		must(t, os.Symlink("..data/"+key, filepath.Join(root, key)))
	}
	d.serve(root)
	d.setFiles(keys1)
	d.warm()

	writeTree(t, filepath.Join(root, ts2), keys2, releaseTime(2))
	d.hit()
	must(t, os.Symlink(ts2, filepath.Join(root, "..data_tmp")))
	must(t, os.Rename(filepath.Join(root, "..data_tmp"), filepath.Join(root, "..data")))
	must(t, os.Symlink("..data/added.txt", filepath.Join(root, "added.txt")))
	must(t, os.Remove(filepath.Join(root, "removed.txt")))
	must(t, os.RemoveAll(filepath.Join(root, ts1)))
	d.setFiles(keys2)
	d.check("..data swapped to the new timestamped directory")
}

func deployTmpfsRoot(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	must(t, os.Mkdir(root, 0o755))
	mountOrSkip(t, "tmpfs", root, "tmpfs", 0, "size=64m,mode=0755")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	big2 := version("assets/big.bin", 2)
	rsyncTree(t, root, release(2), releaseTime(2), func() {
		d.hit()
		rewriteInPlace(t, filepath.Join(root, "assets/big.bin"), big2)
	})
	d.setFiles(release(2))
	d.check("release 2 on tmpfs (in place and rsync)")
}

// deployOverlayMerged changes an overlay through its merged mount: files of
// the lower layer rewritten (copied up), replaced by rename, deleted
// (whiteouts), added.
func deployOverlayMerged(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	_, merged := d.overlay(release(1))
	d.serve(merged)
	d.setFiles(release(1))
	d.warm()

	app2, big2 := version("assets/app.js", 2), version("big.bin", 2)
	rsyncTree(t, merged, release(2), releaseTime(2), func() {
		d.hit()
		rewriteInPlace(t, filepath.Join(merged, "assets/app.js"), app2)
		copyOver(t, filepath.Join(merged, "big.bin"), big2)
	})
	d.setFiles(release(2))
	d.check("release 2 through the merged mount")
}

// deployBindMountedRoot serves a bind mount of a directory and changes the
// files through the directory itself.
func deployBindMountedRoot(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	src, root := d.path("src"), d.path("site")
	writeTree(t, src, release(1), releaseTime(1))
	must(t, os.Mkdir(root, 0o755))
	mountOrSkip(t, src, root, "", syscall.MS_BIND, "")
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	big2 := version("big.bin", 2)
	rsyncTree(t, src, release(2), releaseTime(2), func() {
		d.hit()
		rewriteInPlace(t, filepath.Join(src, "big.bin"), big2)
	})
	d.setFiles(release(2))
	d.check("release 2 written through the bind mount's source")
}

func deployNewFSDirFS(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.root = root
	d.serveFS(os.DirFS(root), true)
	d.setFiles(release(1))
	d.warm()

	small2, big2 := version("small.txt", 2), version("big.bin", 2)
	rsyncTree(t, root, release(2), releaseTime(2), func() {
		d.hit()
		rewriteInPlace(t, filepath.Join(root, "small.txt"), small2)
		rewriteInPlace(t, filepath.Join(root, "big.bin"), big2)
	})
	d.setFiles(release(2))
	d.check("release 2 (in place and rsync)")
}

// deployChtimes is Go's TestDirectoryIfNotModified: once index.html's mtime
// is set an hour on, a request with the Last-Modified sent before gets 200,
// not 304.
func deployChtimes(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()
	ims := map[*peer]string{}
	for _, p := range d.peers {
		ims[p] = p.last["/"].lastMod
		if a := p.get("/", "If-Modified-Since", ims[p]); a.status != http.StatusNotModified {
			t.Fatalf("%s: GET / with If-Modified-Since %q before the change: %d, want 304", p.name, ims[p], a.status)
		}
	}

	ahead := time.Now().Add(time.Hour)
	d.hit()
	must(t, os.Chtimes(filepath.Join(root, "index.html"), ahead, ahead))
	d.checkHeader("index.html's mtime an hour on", func(p *peer, _ string) []string {
		return []string{"If-Modified-Since", ims[p]}
	}, "/")
	d.check("index.html's mtime an hour on, unconditional")
}

// deployChmod takes the read permission of cached files away: the next
// request gets what http.FileServer gives (403), never the old 200; and
// gives it back. As root every file is readable, so TestDeployAsNobody runs
// this row as nobody.
func deployChmod(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("as root, permissions deny nothing: TestDeployAsNobody runs this row as nobody")
	}
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	names := []string{"small.txt", "big.bin"}
	d.hit()
	for _, name := range names {
		must(t, os.Chmod(filepath.Join(root, name), 0))
		d.expectStatus(name, http.StatusForbidden)
	}
	d.check("chmod 000")
	d.hit()
	for _, name := range names {
		must(t, os.Chmod(filepath.Join(root, name), 0o644))
		d.expectFile(name, version(name, 1))
	}
	d.check("chmod 644 again")
}

// deploySwapped100 swaps assets/ by rename a hundred times, keeping the old
// directories, with a request after each: the inotify watches jaws holds
// must stay few (below 20), not one per directory it ever saw.
func deploySwapped100(t *testing.T) {
	d := newDeploy(t)
	defer d.finish()
	root := d.path("site")
	writeTree(t, root, release(1), releaseTime(1))
	d.serve(root)
	d.setFiles(release(1))
	d.warm()

	for n := 1; n <= 100; n++ {
		app := version("assets/app.js", n+1)
		writeTree(t, filepath.Join(root, "assets.new"), map[string][]byte{"app.js": app}, releaseTime(n+1))
		d.hit()
		must(t, os.Rename(filepath.Join(root, "assets"), filepath.Join(root, fmt.Sprintf("assets.old.%d", n))))
		must(t, os.Rename(filepath.Join(root, "assets.new"), filepath.Join(root, "assets")))
		d.expectFile("assets/app.js", app)
		d.check(fmt.Sprintf("assets swapped, deploy %d", n), "/assets/app.js")
	}
	ours, all := inotifyWatches(d.inodes)
	t.Logf("after 100 swaps of assets/: %d inotify watches on the tree's directories (%d in the process)", ours, all)
	if ours >= 20 {
		t.Errorf("%d inotify watches on the tree after 100 swaps of assets/ (the old ones kept), want fewer than 20", ours)
	}
}

// TestDeployAsNobody runs the chmod-000 row, which skips as root (root
// reads every file), as the user nobody, as TestPermissionsAsNobody does.
func TestDeployAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: TestDeploy/chmod-000 runs as this user directly")
	}
	t.Parallel()
	dir, err := os.MkdirTemp(os.TempDir(), "jaws-deploy-nobody")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "jaws.test")
	self, err := os.ReadFile(os.Args[0])
	must(t, err)
	must(t, os.WriteFile(bin, self, 0o755))

	cmd := exec.Command(bin, "-test.run=^TestDeploy$/^chmod-000$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+os.TempDir(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Skipf("cannot run as nobody (uid 65534): %v", err)
		}
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestDeploy/chmod-000")) {
		t.Errorf("TestDeploy/chmod-000 did not pass as nobody:\n%s", out)
	}
	t.Logf("as nobody:\n%s", strings.TrimSpace(string(out)))
}

// The fixture.

// deploy is one row's tree and the two servers of it.
type deploy struct {
	t        *testing.T
	dir      string // the row's temporary directory, symlinks resolved: every file of the row is under it
	root     string // the directory both servers are given, for New and http.Dir
	fsys     fs.FS  // or the fs.FS, for NewFS and http.FS
	zeroCopy bool   // large files take jaws's zero-copy path over HTTP/1.1
	peers    []*peer
	urls     []string            // the URL paths checked, in the order first expected
	want     map[string]expect   // what each answers now
	versions map[string][][]byte // every body each was ever to have, for messages
	inodes   map[devIno]bool     // every directory of the row seen, to count the watches on them
}

// expect is what a URL path must answer: status, and for 200 the body, or
// either of two bodies (overlayfs's undefined case).
type expect struct {
	status int
	body   []byte
	either [][]byte
}

// peer is one server: jaws or http.FileServer.
type peer struct {
	name string
	jaws *jaws.Handler // nil for http.FileServer
	h    http.Handler
	srv  *testsite.Server // HTTP/1.1
	last map[string]answer
}

// answer is one response.
type answer struct {
	via                  string // "HTTP/1.1" (a real server) or "ServeHTTP" (a recorder)
	status               int
	body                 []byte
	etag, lastMod, ctLen string
	err                  error
}

func newDeploy(t *testing.T) *deploy {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	return &deploy{t: t, dir: dir, want: map[string]expect{}, versions: map[string][][]byte{},
		inodes: map[devIno]bool{}}
}

// path is the absolute path of rel, a slash-separated name under the row's
// directory.
func (d *deploy) path(rel string) string { return filepath.Join(d.dir, filepath.FromSlash(rel)) }

// serve serves root by jaws.New and http.FileServer(http.Dir(root)).
func (d *deploy) serve(root string) {
	d.t.Helper()
	d.root, d.zeroCopy = root, true
	j, err := jaws.New(root, jaws.Options{})
	if err != nil {
		d.t.Fatal(err)
	}
	j.SetSweepEvery(deploySweep)
	d.t.Cleanup(func() { j.Close() })
	d.addPeers(j, http.FileServer(http.Dir(root)))
}

// serveFS serves fsys by jaws.NewFS and http.FileServer(http.FS(fsys));
// zeroCopy says whether its files are *os.File, which jaws sends zero-copy.
func (d *deploy) serveFS(fsys fs.FS, zeroCopy bool) {
	d.t.Helper()
	d.fsys, d.zeroCopy = fsys, zeroCopy
	j, err := jaws.NewFS(fsys, jaws.Options{})
	if err != nil {
		d.t.Fatal(err)
	}
	j.SetSweepEvery(deploySweep)
	d.t.Cleanup(func() { j.Close() })
	d.addPeers(j, http.FileServer(http.FS(fsys)))
}

func (d *deploy) addPeers(j *jaws.Handler, fileServer http.Handler) {
	d.peers = []*peer{
		{name: "jaws", jaws: j, h: j, srv: testsite.Start(d.t, testsite.HTTP1, j), last: map[string]answer{}},
		{name: "http.FileServer", h: fileServer, srv: testsite.Start(d.t, testsite.HTTP1, fileServer), last: map[string]answer{}},
	}
}

// overlay mounts an overlay whose lower layer holds files, and returns the
// lower layer's and the merged mount's paths.
func (d *deploy) overlay(files map[string][]byte) (lower, merged string) {
	d.t.Helper()
	lower, merged = d.path("lower"), d.path("merged")
	upper, work := d.path("upper"), d.path("work")
	writeTree(d.t, lower, files, releaseTime(1))
	for _, p := range []string{upper, work, merged} {
		must(d.t, os.Mkdir(p, 0o755))
	}
	mountOrSkip(d.t, "overlay", merged, "overlay", 0, "lowerdir="+lower+",upperdir="+upper+",workdir="+work)
	return lower, merged
}

// Expectations. Names are files under the root; index.html is asked for as
// its directory.

func urlOf(name string) string {
	if name == "index.html" || strings.HasSuffix(name, "/index.html") {
		return "/" + strings.TrimSuffix(name, "index.html")
	}
	return "/" + name
}

func fileOf(url string) string {
	if strings.HasSuffix(url, "/") {
		return url[1:] + "index.html"
	}
	return url[1:]
}

func (d *deploy) expectURL(url string, e expect) {
	if _, ok := d.want[url]; !ok {
		d.urls = append(d.urls, url)
	}
	d.want[url] = e
	for _, b := range append([][]byte{e.body}, e.either...) {
		if b != nil && !slices.ContainsFunc(d.versions[url], func(v []byte) bool { return bytes.Equal(v, b) }) {
			d.versions[url] = append(d.versions[url], b)
		}
	}
}

// setFiles expects the site to be exactly files: every other name checked
// so far is 404.
func (d *deploy) setFiles(files map[string][]byte) {
	for _, url := range d.urls {
		if _, ok := files[fileOf(url)]; !ok {
			d.expectURL(url, expect{status: http.StatusNotFound})
		}
	}
	// Cached names first: the first request after a deploy is the one most
	// likely to find a stale entry.
	names := slices.Sorted(maps.Keys(files))
	slices.SortStableFunc(names, func(a, b string) int {
		return boolCmp(strings.Contains(a, "uncached"), strings.Contains(b, "uncached"))
	})
	for _, name := range names {
		d.expectFile(name, files[name])
	}
}

func (d *deploy) expectFile(name string, data []byte) {
	d.expectURL(urlOf(name), expect{status: http.StatusOK, body: data})
}

func (d *deploy) expectGone(name string) { d.expectStatus(name, http.StatusNotFound) }

func (d *deploy) expectStatus(name string, status int) {
	d.expectURL(urlOf(name), expect{status: status})
}

// expectEither accepts either body: what the kernel leaves undefined.
func (d *deploy) expectEither(name string, old, now []byte) {
	d.expectURL(urlOf(name), expect{status: http.StatusOK, either: [][]byte{old, now}})
}

// expectAssets expects assets/ to hold exactly files (names with "assets/").
func (d *deploy) expectAssets(files map[string][]byte) {
	for _, url := range d.urls {
		if _, ok := files[fileOf(url)]; strings.HasPrefix(url, "/assets/") && !ok {
			d.expectURL(url, expect{status: http.StatusNotFound})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		d.expectFile(name, files[name])
	}
}

// Requests.

func (p *peer) get(url string, header ...string) answer {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := answer{via: "HTTP/1.1"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.srv.URL+url, nil)
	if err != nil {
		a.err = err
		return a
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := p.srv.Client.Do(req)
	if err != nil {
		a.err = err
		return a
	}
	defer resp.Body.Close()
	a.status, a.etag, a.lastMod, a.ctLen = resp.StatusCode, resp.Header.Get("Etag"), resp.Header.Get("Last-Modified"), resp.Header.Get("Content-Length")
	a.body, err = io.ReadAll(resp.Body)
	if err != nil {
		a.err = fmt.Errorf("%d, Content-Length %s, body cut short after %d bytes: %w", a.status, a.ctLen, len(a.body), err)
	}
	return a
}

func (p *peer) serve(url string, header ...string) answer {
	w := testsite.Serve(p.h, http.MethodGet, url, header...)
	a := answer{via: "ServeHTTP", status: w.Code, body: w.Body.Bytes(), etag: w.Header().Get("Etag"),
		lastMod: w.Header().Get("Last-Modified"), ctLen: w.Header().Get("Content-Length")}
	if a.ctLen != "" && a.ctLen != strconv.Itoa(len(a.body)) {
		a.err = fmt.Errorf("%d, Content-Length %s, body %d bytes", a.status, a.ctLen, len(a.body))
	}
	return a
}

// warm asks every server for every name checked so far but the uncached
// ones, waits for jaws's cache to admit the entries, asks again (hits, and
// a check that the tree is served right before any deploy), and notes the
// tree's directories.
func (d *deploy) warm() {
	t := d.t
	t.Helper()
	var urls []string
	for _, url := range d.urls {
		if !strings.Contains(url, "uncached") {
			urls = append(urls, url)
		}
	}
	for _, p := range d.peers {
		for _, url := range urls {
			p.get(url)
		}
	}
	j := d.peers[0].jaws
	j.SyncCache()
	d.noteInodes()
	before := j.Stats()
	// jaws last: its last hit is the last request before the deploy.
	for _, p := range []*peer{d.peers[1], d.peers[0]} {
		for _, url := range urls {
			if !d.verify("before the deploy", p, url, p.get(url)) {
				t.FailNow()
			}
		}
	}
	after := j.Stats()
	if hits := after.CacheHits - before.CacheHits; hits < uint64(len(urls)) {
		t.Fatalf("jaws: %d cache hits for the %d names asked a second time: not cached", hits, len(urls))
	}
	if d.zeroCopy && slices.ContainsFunc(urls, func(u string) bool { return strings.HasSuffix(u, ".bin") }) &&
		after.ZeroCopy.Responses == before.ZeroCopy.Responses {
		t.Fatal("jaws: no large file went zero-copy")
	}
}

// hit asks every server for a cached file, unchecked, as a live site is
// asked while a deploy is under way: the deploy's last system calls follow
// at once, and the first request after them must see them.
// A small file: its answer is quick, so the commit follows right after.
func (d *deploy) hit() {
	url := d.urls[0]
	for _, u := range d.urls {
		if e := d.want[u]; e.status == http.StatusOK && e.body != nil && len(e.body) <= memoryMax {
			url = u
			break
		}
	}
	for _, p := range d.peers {
		p.serve(url)
	}
}

// check asks every server for urls (all checked names when none), once
// over HTTP/1.1 and once in-process: every answer must be the tree as it
// is now.
func (d *deploy) check(step string, urls ...string) {
	d.t.Helper()
	d.checkHeader(step, nil, urls...)
}

// checkHeader is check with the header lines header gives each request.
func (d *deploy) checkHeader(step string, header func(p *peer, url string) []string, urls ...string) {
	d.t.Helper()
	if len(urls) == 0 {
		urls = d.urls
	}
	hdr := func(p *peer, url string) []string {
		if header == nil {
			return nil
		}
		return header(p, url)
	}
	j, fsrv := d.peers[0], d.peers[1]
	// jaws first, right after the deploy: in-process for the names that
	// are small in every version (the memory path, which over HTTP/1.1 is
	// the same, microseconds after the deploy's last system call); over
	// HTTP/1.1 for every name, where large files go zero-copy from the
	// shared descriptor, which is their first request (the fallback
	// in-process confirms the entry by a descriptor of its own). Then
	// http.FileServer; then jaws in-process again, so that its last hit is
	// the last request before the next deploy.
	for _, url := range urls {
		if !d.large(url) {
			d.verify(step, j, url, j.serve(url, hdr(j, url)...))
		}
	}
	for _, url := range urls {
		d.verify(step, j, url, j.get(url, hdr(j, url)...))
	}
	for _, url := range urls {
		d.verify(step, fsrv, url, fsrv.get(url, hdr(fsrv, url)...))
	}
	for _, url := range urls {
		d.verify(step, fsrv, url, fsrv.serve(url, hdr(fsrv, url)...))
	}
	d.noteInodes()
	for _, url := range urls {
		d.verify(step, j, url, j.serve(url, hdr(j, url)...))
	}
}

// large reports whether a version of url is too large to be served from
// memory.
func (d *deploy) large(url string) bool {
	return slices.ContainsFunc(d.versions[url], func(v []byte) bool { return len(v) > memoryMax })
}

// verify checks one answer against what url must answer now, and reports
// whether it was right. For jaws, the ETag must be the body's: its
// content's for a file served from memory, its size and mtime for a larger
// one (docs/freshness.md); for both, Last-Modified is the file's mtime.
func (d *deploy) verify(step string, p *peer, url string, a answer) bool {
	t := d.t
	t.Helper()
	e := d.want[url]
	where := fmt.Sprintf("%s: %s %s GET %s", step, p.name, a.via, url)
	if a.err != nil {
		t.Errorf("%s: %v", where, a.err)
		return false
	}
	if e.status != http.StatusOK {
		if a.status != e.status {
			t.Errorf("%s: %d %s, want %d", where, a.status, d.which(url, a.body), e.status)
			return false
		}
		for _, v := range d.versions[url] {
			if len(v) >= 16 && bytes.Contains(a.body, v[:16]) {
				t.Errorf("%s: %d carries a former version's bytes", where, a.status)
				return false
			}
		}
		return true
	}
	if a.status != http.StatusOK {
		t.Errorf("%s: %d %.60q, want 200", where, a.status, a.body)
		return false
	}
	if e.either != nil {
		return d.verifyEither(where, p, url, a, e)
	}
	if !bytes.Equal(a.body, e.body) {
		t.Errorf("%s: body is %s, want %s", where, d.which(url, a.body), d.which(url, e.body))
		return false
	}
	info := d.stat(url)
	if info == nil {
		return false
	}
	ok := true
	if want, check := lastModified(info); check && a.lastMod != want {
		t.Errorf("%s: Last-Modified %q, want %q (the file's mtime)", where, a.lastMod, want)
		ok = false
	}
	if p.jaws != nil {
		if want := bodyTag(a.body, info); a.etag != want {
			t.Errorf("%s: ETag %q, want %q (the new version's)", where, a.etag, want)
			ok = false
		}
	}
	p.last[url] = a
	return ok
}

// verifyEither checks an answer where either of two versions is right: it
// must be one of them whole, and for jaws under that version's ETag (the
// old one's as jaws sent it before, the new one's as verify works it out).
func (d *deploy) verifyEither(where string, p *peer, url string, a answer, e expect) bool {
	t := d.t
	t.Helper()
	i := slices.IndexFunc(e.either, func(b []byte) bool { return bytes.Equal(a.body, b) })
	if i < 0 {
		t.Errorf("%s: body is %s: neither version, a mix", where, d.which(url, a.body))
		return false
	}
	got := [...]string{"the old version", "the new version"}[min(i, 1)]
	if p.jaws != nil {
		var want string
		if i == 0 {
			want = p.last[url].etag
		} else if info := d.stat(url); info != nil {
			want = bodyTag(a.body, info)
		}
		if a.etag != want {
			t.Errorf("%s: %s under ETag %q, want %q: body and ETag of different versions", where, got, a.etag, want)
			return false
		}
	}
	t.Logf("%s: %s (either is allowed)", where, got)
	return true
}

// which names the version body is of, for messages.
func (d *deploy) which(url string, body []byte) string {
	vs := d.versions[url]
	if i := slices.IndexFunc(vs, func(v []byte) bool { return bytes.Equal(v, body) }); i >= 0 {
		return fmt.Sprintf("version %d of %d (%d bytes)", i+1, len(vs), len(body))
	}
	return fmt.Sprintf("no version of the file (%d bytes, %.40q)", len(body), body)
}

// stat is the file url names, as both servers see it now.
func (d *deploy) stat(url string) fs.FileInfo {
	d.t.Helper()
	var info fs.FileInfo
	var err error
	if d.fsys != nil {
		info, err = fs.Stat(d.fsys, fileOf(url))
	} else {
		info, err = os.Stat(filepath.Join(d.root, filepath.FromSlash(fileOf(url))))
	}
	if err != nil {
		d.t.Errorf("stat %s: %v", url, err)
		return nil
	}
	return info
}

// lastModified is the Last-Modified of a file, and whether it is to be
// checked: not for an mtime in the future, which jaws sends as now.
func lastModified(info fs.FileInfo) (string, bool) {
	mod := info.ModTime()
	if mod.IsZero() || mod.Equal(time.Unix(0, 0)) {
		return "", true
	}
	if mod.After(time.Now()) {
		return "", false
	}
	return httpDate(mod), true
}

// bodyTag is the ETag jaws gives body, the bytes of the file info
// describes: its content's when it is served from memory, else its mtime
// in nanoseconds and its size, in hex (docs/freshness.md), and none for a
// file with no modification time, whose size alone would name every
// version alike.
func bodyTag(body []byte, info fs.FileInfo) string {
	if len(body) <= memoryMax {
		return contentTag(body)
	}
	if info.ModTime().IsZero() {
		return ""
	}
	return `"` + strconv.FormatInt(info.ModTime().UnixNano(), 16) + "." + strconv.FormatInt(info.Size(), 16) + `"`
}

// Descriptors and watches.

// finish waits, up to descriptorWait, until no descriptor of a deleted
// file under the row's tree is open, fails the row if one still is, and
// logs the descriptors into the tree and the inotify watches on it.
func (d *deploy) finish() {
	if d.peers == nil || d.t.Skipped() {
		return
	}
	d.noteInodes()
	d.waitNoDeleted("at the end")
	open, _ := treeFDs(d.dir)
	ours, all := inotifyWatches(d.inodes)
	d.t.Logf("at the end: %d descriptors into the tree %q; %d inotify watches on its directories (%d in the process)",
		len(open), open, ours, all)
}

// waitNoDeleted fails unless, within descriptorWait and with no request,
// no descriptor of a deleted file under the row's tree is open.
func (d *deploy) waitNoDeleted(step string) {
	d.t.Helper()
	start := time.Now()
	for {
		_, deleted := treeFDs(d.dir)
		switch {
		case len(deleted) == 0:
			if took := time.Since(start); took > 10*time.Millisecond {
				d.t.Logf("%s: descriptors of deleted files let go after %v", step, took.Round(time.Millisecond))
			}
			return
		case time.Since(start) > descriptorWait:
			d.t.Errorf("%s: %d descriptors of deleted files still open after %v (sweeping every %v): %q",
				step, len(deleted), descriptorWait, deploySweep, deleted)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// treeFDs lists the process's descriptors of files under dir, by their
// paths under it: those open, and those of deleted files.
func treeFDs(dir string) (open, deleted []string) {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		p, gone := strings.CutSuffix(link, " (deleted)")
		if p != dir && !strings.HasPrefix(p, dir+"/") {
			continue
		}
		rel := "." + strings.TrimPrefix(p, dir)
		if gone {
			deleted = append(deleted, rel)
		} else {
			open = append(open, rel)
		}
	}
	slices.Sort(open)
	slices.Sort(deleted)
	return open, deleted
}

// devIno identifies a directory: its device, as major and minor, and inode.
type devIno struct {
	major, minor uint32
	ino          uint64
}

// noteInodes notes every directory under the row's tree, mounts included,
// so the inotify watches on them can be counted once they are gone.
func (d *deploy) noteInodes() {
	filepath.WalkDir(d.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			d.inodes[devIno{unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino}] = true
		}
		return nil
	})
}

// inotifyWatches counts the inotify watches of the process on the
// directories dirs holds, and all of them: the "inotify wd:" lines of the
// fdinfo of every inotify descriptor.
func inotifyWatches(dirs map[devIno]bool) (ours, all int) {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || link != "anon_inode:inotify" {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(b)) {
			if !strings.HasPrefix(line, "inotify wd:") {
				continue
			}
			all++
			var ino, sdev uint64
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "ino:"); ok {
					ino, _ = strconv.ParseUint(v, 16, 64)
				} else if v, ok := strings.CutPrefix(f, "sdev:"); ok {
					sdev, _ = strconv.ParseUint(v, 16, 64)
				}
			}
			// The kernel's own dev_t: 12 bits of major, 20 of minor.
			if dirs[devIno{uint32(sdev >> 20), uint32(sdev & (1<<20 - 1)), ino}] {
				ours++
			}
		}
	}
	return ours, all
}

// Mounts.

// deployMounts holds every mount point the suite made, to check that none
// is left when TestDeployMounted ends.
var deployMounts sync.Map

// mountOrSkip mounts as mount(2) does, unmounted (lazily, MNT_DETACH) when
// the test ends; it skips the test where mounts are not allowed: not root,
// or the kernel says EPERM (or knows no such file system).
func mountOrSkip(t *testing.T, source, target, fstype string, flags uintptr, data string) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), "TestDeployMounted/") {
		t.Fatalf("%s mounts: its row is to be marked so, for TestDeployMounted, which runs alone", t.Name())
	}
	if os.Geteuid() != 0 {
		t.Skipf("mounting %s needs root (euid %d)", target, os.Geteuid())
	}
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENODEV) {
			t.Skipf("mount(%q, %q, %q, %#x, %q): %v: mounts are not allowed here", source, target, fstype, flags, data, err)
		}
		t.Fatalf("mount(%q, %q, %q, %#x, %q): %v", source, target, fstype, flags, data, err)
	}
	deployMounts.Store(target, true)
	t.Cleanup(func() { unmount(t, target) })
}

// unmount detaches the mount at target; one already gone is no error.
func unmount(t testing.TB, target string) {
	t.Helper()
	if err := syscall.Unmount(target, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
		t.Errorf("unmount %s: %v", target, err)
	}
}

// checkUnmounted fails, and unmounts, if a mount the suite made is still
// there.
func checkUnmounted(t *testing.T) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	points := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) > 4 {
			points[f[4]] = true
		}
	}
	deployMounts.Range(func(k, _ any) bool {
		if target := k.(string); points[target] {
			t.Errorf("%s is still mounted after the test", target)
			unmount(t, target)
		}
		return true
	})
}

// Trees.

// siteNames are the files of every release: small ones served from memory,
// large ones (.bin) sent from disk, one no request asks for before a deploy.
var siteNames = []string{"index.html", "small.txt", "assets/app.js", "assets/big.bin", "big.bin", "uncached.txt"}

// release is the files of release ver: siteNames, and a name only it has.
func release(ver int) map[string][]byte {
	files := map[string][]byte{}
	for _, name := range siteNames {
		files[name] = version(name, ver)
	}
	files[fmt.Sprintf("only-%d.txt", ver)] = version("only", ver)
	return files
}

// assetsRelease is release ver's assets/, with a name only it has.
func assetsRelease(ver int) map[string][]byte {
	files := assetsOf(release(ver))
	files[fmt.Sprintf("assets/only-%d.txt", ver)] = version("assets/only", ver)
	return files
}

// assetsOf is the files of files under assets/.
func assetsOf(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		if strings.HasPrefix(name, "assets/") {
			out[name] = data
		}
	}
	return out
}

// stripDir is files with prefix taken off their names.
func stripDir(files map[string][]byte, prefix string) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		out[strings.TrimPrefix(name, prefix)] = data
	}
	return out
}

// version is the content of name in version ver: small text, the same
// size in every version, or bigSize bytes for a .bin.
func version(name string, ver int) []byte {
	if strings.HasSuffix(name, ".bin") {
		key := versionKey{name, ver}
		v, ok := bigVersions.Load(key)
		if !ok {
			v, _ = bigVersions.LoadOrStore(key, testsite.Random(bigSize, seed(name, ver)))
		}
		return bytes.Clone(v.([]byte)) // the caller's own, as if made anew
	}
	return fmt.Appendf(nil, "%s, version %03d\n", name, ver)
}

// bigVersions holds the large versions made so far: the rows ask for the
// same few again and again, and making one is a MiB of random bytes.
var bigVersions sync.Map // versionKey -> []byte

type versionKey struct {
	name string
	ver  int
}

func seed(name string, ver int) uint64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return uint64(h.Sum32() + uint32(ver)*2654435761)
}

// releaseTime is the mtime of release ver's files: in the past, a
// different second for each release.
func releaseTime(ver int) time.Time {
	return time.Date(2024, time.March, 4, 5, 6, 7, 123456789, time.UTC).Add(time.Duration(ver) * time.Hour)
}

// writeTree writes files under dir with the given mtime.
func writeTree(t testing.TB, dir string, files map[string][]byte, mtime time.Time) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, data, 0o644))
		must(t, os.Chtimes(p, mtime, mtime))
	}
}

// replaceByRename writes data to a temporary name next to path, sets its
// mtime, and renames it over path, as rsync does.
func replaceByRename(t testing.TB, path string, data []byte, mtime time.Time) {
	t.Helper()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".")
	must(t, err)
	_, err = f.Write(data)
	must(t, errors.Join(err, f.Close()))
	must(t, os.Chtimes(f.Name(), mtime, mtime))
	must(t, os.Rename(f.Name(), path))
}

// rsyncTree makes dir hold exactly files, as rsync -a --delete-after
// --delay-updates does: each changed file written to a temporary name next
// to it with the given mtime; then, once commit (if not nil) ran, all
// renamed over at once, and the files not in files deleted.
func rsyncTree(t testing.TB, dir string, files map[string][]byte, mtime time.Time, commit func()) {
	t.Helper()
	type update struct{ tmp, path string }
	var updates []update
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".")
		must(t, err)
		_, err = f.Write(data)
		must(t, errors.Join(err, f.Close()))
		must(t, os.Chtimes(f.Name(), mtime, mtime))
		updates = append(updates, update{f.Name(), p})
	}
	var extra []string
	must(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok && !slices.ContainsFunc(updates, func(u update) bool { return u.tmp == p }) {
			extra = append(extra, p)
		}
		return nil
	}))
	if commit != nil {
		commit()
	}
	for _, u := range updates {
		must(t, os.Rename(u.tmp, u.path))
	}
	for _, p := range extra {
		must(t, os.Remove(p))
	}
}

// rewriteInPlace writes data over path's bytes, the same file, and cuts it
// to data's length.
func rewriteInPlace(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	must(t, errors.Join(err, f.Close()))
}

// copyOver is cp data path over an existing file: opened with O_TRUNC and
// written.
func copyOver(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.Write(data)
	must(t, errors.Join(err, f.Close()))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
