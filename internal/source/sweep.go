package source

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

// Sweeper runs its jobs a second after a Kick, and every second after that
// while some job has more to do, and not at all otherwise: a handler that
// holds no descriptor has no timer. Its jobs are the source's (the trees
// the root path no longer names, see OpenDir) and its user's (a store's
// descriptors of files Gone). The zero Sweeper is ready to use.
type Sweeper struct {
	// every, when not zero, is the interval in nanoseconds instead of
	// sweepEvery, for tests (SetEvery).
	every atomic.Int64

	mu      sync.Mutex
	jobs    []func(now int64) (again bool)
	timer   *time.Timer
	running sync.WaitGroup
	stopped bool
}

// Add adds job to the sweeps: job is called with the clock (unix
// nanoseconds) and reports whether it has more to do. Add jobs before the
// first Kick.
func (s *Sweeper) Add(job func(now int64) (again bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs = append(s.jobs, job)
}

// SetEvery makes s sweep every d instead of every second, for tests, so
// that what takes a second is seen in d. The jobs, which measure ages in
// seconds, are then given a clock ahead by a second less d: what is one
// interval old is a second old to them. Set it before the first Kick: a
// sweep already scheduled keeps its time.
func (s *Sweeper) SetEvery(d time.Duration) { s.every.Store(int64(d)) }

// Kick makes sure the jobs run within a second.
func (s *Sweeper) Kick() {
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
func (s *Sweeper) interval() time.Duration {
	if d := s.every.Load(); d > 0 {
		return time.Duration(d)
	}
	return sweepEvery
}

func (s *Sweeper) run() {
	defer s.running.Done()
	again := false
	ahead := int64(sweepEvery - s.interval()) // 0 but in tests (every)
	s.mu.Lock()
	jobs := s.jobs
	s.mu.Unlock()
	for _, job := range jobs {
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

// Stop ends the sweeps, waiting for one that is running.
func (s *Sweeper) Stop() {
	s.mu.Lock()
	s.stopped = true
	if s.timer != nil && s.timer.Stop() {
		s.running.Done() // it will not run
	}
	s.timer = nil
	s.mu.Unlock()
	s.running.Wait()
}

// unixNano is the clock of sweeps and trees, in unix nanoseconds, as the
// now given to Fresh and Arm.
func unixNano() int64 { return time.Now().UnixNano() }
