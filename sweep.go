package jaws

import (
	"sync"
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
	s.timer = time.AfterFunc(sweepEvery, s.run)
}

func (s *sweeper) run() {
	defer s.running.Done()
	again := false
	for _, job := range s.jobs {
		if job(unixNano()) {
			again = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if again && !s.stopped {
		s.running.Add(1)
		s.timer = time.AfterFunc(sweepEvery, s.run)
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
