package source

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepEvery holds the bound the package doc gives: the descriptors of
// files deleted or renamed over, and of trees the root path no longer names,
// are let go within a second. Sweeps run sweepEvery, a second, after a kick
// and again while a job has more to do; the jobs are given the clock as it
// is; a retired tree is closed by the first sweep once it is a sweepEvery
// old, not before. TestDeploy, in package jaws, sees the descriptors go,
// with no request, at a sweep interval of milliseconds (SetEvery) rather
// than waiting seconds: this test is what ties that to the second.
func TestSweepEvery(t *testing.T) {
	t.Parallel()
	if sweepEvery != time.Second {
		t.Fatalf("sweepEvery is %v; the documented bound is a second", sweepEvery)
	}
	var s Sweeper
	if d := s.interval(); d != sweepEvery {
		t.Fatalf("a handler's sweeps run every %v, want sweepEvery (%v)", d, sweepEvery)
	}

	// The clock the jobs see: the time, and with a test's interval, ahead by
	// sweepEvery less it.
	var seen int64
	s.jobs = []func(int64) bool{func(now int64) bool { seen = now; return false }}
	for _, every := range []time.Duration{0, 20 * time.Millisecond} {
		s.SetEvery(every)
		ahead := int64(0)
		if every > 0 {
			ahead = int64(sweepEvery - every)
		}
		before := unixNano()
		s.running.Add(1)
		s.run()
		after := unixNano()
		if seen < before+ahead || seen > after+ahead {
			t.Errorf("every %v: the jobs saw %d, want the clock (%d to %d) plus %d", every, seen, before, after, ahead)
		}
	}

	// A kick runs the jobs after the interval, and again while they have
	// more to do, and not after that.
	runs := make(chan int64, 8)
	left := 3
	s = Sweeper{jobs: []func(int64) bool{func(now int64) bool {
		runs <- now
		left--
		return left > 0
	}}}
	s.SetEvery(5 * time.Millisecond)
	s.Kick()
	for i := range 3 {
		select {
		case <-runs:
		case <-time.After(10 * time.Second):
			t.Fatalf("sweep %d did not run", i+1)
		}
	}
	s.Stop()
	if s.timer != nil || len(runs) != 0 {
		t.Errorf("a sweep scheduled or run after the jobs had nothing more to do")
	}
}

// TestSweepEveryRetiredTree: a retired tree is closed by the first sweep
// once it is a sweepEvery old, not before (TestSweepEvery's bound, for the
// source's own job).
func TestSweepEveryRetiredTree(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	root := filepath.Join(dir, "root")
	must(t, os.Mkdir(root, 0o755))
	kicks := 0
	d, err := openDirSource(root, false, func() { kicks++ })
	must(t, err)
	t.Cleanup(func() { d.Close() })
	must(t, os.Rename(root, filepath.Join(dir, "old")))
	must(t, os.Mkdir(root, 0o755))
	d.current() // takes the new directory, retires the old tree
	if len(d.retired) != 1 || kicks != 1 {
		t.Fatalf("%d trees retired and %d sweeps asked for, want 1 and 1", len(d.retired), kicks)
	}
	old := d.retired[0]
	retired := old.retired.Load()
	if !d.sweep(retired + int64(sweepEvery) - 1) {
		t.Error("a sweep before the tree is a sweepEvery old has nothing more to do")
	}
	if _, err := old.root.Stat("."); err != nil {
		t.Fatalf("the tree was closed before it was a sweepEvery old: %v", err)
	}
	if d.sweep(retired + int64(sweepEvery)) {
		t.Error("the sweep that closed the last retired tree has more to do")
	}
	if _, err := old.root.Stat("."); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the tree is still open a sweepEvery after it was retired: %v", err)
	}
}

// TestOpenDirSweeps: OpenDir gives its sweeper the source's own sweep, of
// the trees retired.
func TestOpenDirSweeps(t *testing.T) {
	t.Parallel()
	var sw Sweeper
	src, err := OpenDir(tempDir(t), false, &sw)
	must(t, err)
	t.Cleanup(func() { src.Close() })
	if len(sw.jobs) != 1 {
		t.Errorf("OpenDir added %d jobs to its sweeper, want 1", len(sw.jobs))
	}
}
