package jaws

import (
	"sync"
	"sync/atomic"
	"time"
)

// sweepEvery bounds how long jaws keeps a descriptor of a file that was
// deleted or renamed over, or of a tree the root path no longer names,
// whether or not the name is asked for again: a deploy's old media free
// their disk space within it (plus the transfers still reading them).
const sweepEvery = time.Second

// sweeper runs its jobs every sweepEvery while some job has more to do, and
// not at all otherwise: a handler that holds no descriptor has no timer.
type sweeper struct {
	jobs []func(now int64) (again bool)

	// every, when not zero, is the interval in nanoseconds instead of
	// sweepEvery, for tests (export_test.go: Handler.SetSweepEvery), so that
	// what takes a second is seen in milliseconds. The jobs, which measure
	// ages in sweepEvery (dirSource.sweep), are then given a clock ahead by
	// sweepEvery less it: what is one interval old is a sweepEvery old to
	// them.
	every atomic.Int64

	mu      sync.Mutex
	timer   *time.Timer
	running sync.WaitGroup
	stopped bool
}

// kick makes sure the jobs run within sweepEvery.
func (s *sweeper) kick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.timer != nil {
		return
	}
	s.running.Add(1)
	s.timer = time.AfterFunc(s.interval(), s.run)
}

// interval is how long after a kick, or after a sweep that has more to
// do, the jobs run: sweepEvery unless a test set every.
func (s *sweeper) interval() time.Duration {
	if d := s.every.Load(); d > 0 {
		return time.Duration(d)
	}
	return sweepEvery
}

func (s *sweeper) run() {
	defer s.running.Done()
	again := false
	ahead := int64(sweepEvery - s.interval()) // 0 but in tests (every)
	for _, job := range s.jobs {
		if job(unixNano() + ahead) {
			again = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if again && !s.stopped {
		s.running.Add(1)
		s.timer = time.AfterFunc(s.interval(), s.run)
	}
}

// stop ends the sweeps, waiting for one that is running.
func (s *sweeper) stop() {
	s.mu.Lock()
	s.stopped = true
	if s.timer != nil && s.timer.Stop() {
		s.running.Done() // it will not run
	}
	s.timer = nil
	s.mu.Unlock()
	s.running.Wait()
}

// unixNano is the clock of sweeps, trees and the cache, in unix
// nanoseconds.
func unixNano() int64 { return time.Now().UnixNano() }
