package source

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// must ends the test on an error.
func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// tempDir is testsite.TempDir: a temporary directory that Wine, too, can
// remove.
func tempDir(tb testing.TB) string {
	tb.Helper()
	return testsite.TempDir(tb)
}

// uniqueName returns a name no other test uses.
func uniqueName(t testing.TB) string {
	return fmt.Sprintf("%s-%d", filepath.Base(t.Name()), time.Now().UnixNano())
}

// openDir is the source of dir, closed when the test ends; its sweeps are
// the test's to run.
func openDir(tb testing.TB, dir string, events bool) *dirSource {
	tb.Helper()
	d, err := openDirSource(dir, events, func() {})
	must(tb, err)
	tb.Cleanup(func() { d.Close() })
	return d
}

// find opens name in s as a store does when it builds an entry, and
// returns its Ref, armed at now: what a cache hit confirms with Fresh.
func find(tb testing.TB, s Source, name string, now int64) *Ref {
	tb.Helper()
	f, info, at, err := s.Open(name)
	must(tb, err)
	f.Close()
	ref := &Ref{File: name, Info: info, Ver: VersionOf(info), Tree: at, ReadAt: Mono()}
	s.Arm(ref, now)
	return ref
}

// content opens name in s and returns its bytes.
func content(tb testing.TB, s Source, name string) ([]byte, error) {
	tb.Helper()
	f, _, _, err := s.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// counts counts events by key, from any goroutine: what a test hook saw.
type counts[K comparable] struct{ m sync.Map }

func (c *counts[K]) add(k K) {
	v, _ := c.m.LoadOrStore(k, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (c *counts[K]) get(k K) int64 {
	if v, ok := c.m.Load(k); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}
