package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The directories on the way to the root path, watched for the names
// that lead to it: how a swap of the root (a release symlink, a rename)
// is seen with no system call per request (dirSource.current).

// watchPath watches the directories on the way to path, an absolute root
// path, each for the names that lead on to the root (symbolic links
// followed as the kernel follows them, a link's own directory included),
// and the root itself. It reports false when they cannot all be watched:
// the caller then checks the path by a stat per request.
func (w *watcher) watchPath(path string) bool {
	for range 3 {
		steps, root := pathSteps(path)
		names := map[string][]string{}
		var order []string
		for _, s := range steps {
			if _, ok := names[s.dir]; !ok {
				order = append(order, s.dir)
			}
			names[s.dir] = append(names[s.dir], s.name)
		}
		if root != "" {
			if _, ok := names[root]; !ok {
				order = append(order, root)
				names[root] = nil
			}
		}
		w.mu.Lock()
		if w.fd < 0 {
			w.mu.Unlock()
			return false
		}
		next := make(map[int32][]string, len(order))
		ok := true
		for _, dir := range order {
			mask := uint32(pathMask)
			if dir == root {
				mask = watchMask // the root is a tree directory too
			}
			wd, err := unix.InotifyAddWatch(w.fd, dir, mask|unix.IN_DONT_FOLLOW)
			if err != nil {
				ok = false
				break
			}
			next[int32(wd)] = append(next[int32(wd)], names[dir]...)
		}
		for wd := range w.path {
			if _, keep := next[wd]; !keep {
				if _, tree := w.byWd[wd]; !tree {
					unix.InotifyRmWatch(w.fd, uint32(wd))
				}
			}
		}
		w.path = next
		w.mu.Unlock()
		if !ok {
			return false
		}
		// A change between the look and the watches raised no event:
		// look again, and be done once both looks agree.
		if again, aroot := pathSteps(path); aroot == root && slices.Equal(again, steps) {
			return true
		}
	}
	return false
}

// pathStep is a directory on the way to a root path, and the name in it
// that the way takes.
type pathStep struct{ dir, name string }

// pathSteps resolves the absolute path as the kernel does, element by
// element, and returns each directory it looked in and the name it looked
// for, and the directory path names ("" when it names none now: then the
// last step is where it breaks off, so that a directory created there is
// seen).
func pathSteps(path string) (steps []pathStep, root string) {
	todo := pathElems(strings.Split(path, "/"))
	cur, hops := "/", 0
	for elem, ok := todo.next(); ok; elem, ok = todo.next() {
		if elem == ".." {
			cur = filepath.Dir(cur) // cur has no links: its parent is exact
			continue
		}
		steps = append(steps, pathStep{cur, elem})
		next := filepath.Join(cur, elem)
		info, err := os.Lstat(next)
		switch {
		case err != nil:
			return steps, ""
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(next)
			if hops++; err != nil || hops > 40 {
				return steps, ""
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			todo.push(strings.Split(target, "/"))
		case !info.IsDir():
			return steps, ""
		default:
			cur = next
		}
	}
	return steps, cur
}
