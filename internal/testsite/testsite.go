// Package testsite builds throwaway directory trees and httptest servers for
// the tests of package jaws.
//
// A Site is a temporary directory, removed when the test ends, with helpers
// to put files (with chosen contents and mtimes), directories, symlinks and
// special files in it. Start serves a handler over one of the three
// connection Kinds the handler must work with; its Client never follows
// redirects and never asks for compression, so tests see exactly what the
// handler wrote.
package testsite

import (
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Site is a directory tree in a temporary directory. Names passed to its
// methods are slash-separated and relative to Root; parent directories are
// created as needed. Every method fails the test on error.
type Site struct {
	t    testing.TB
	Root string // absolute path of the tree
}

// New returns an empty Site in a fresh temporary directory.
func New(t testing.TB) *Site {
	t.Helper()
	return &Site{t: t, Root: TempDir(t)}
}

// TempDir is t.TempDir, except on Windows, where the tests also run under
// Wine, whose os.RemoveAll fails (see CONTRIBUTING.md): there the tree is
// removed entry by entry, deepest first.
func TempDir(t testing.TB) string {
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "jaws-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}

// At returns a Site rooted at the existing or new directory dir, for trees
// that must live somewhere particular (a subdirectory of another Site, say).
func At(t testing.TB, dir string) *Site {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Site{t: t, Root: dir}
}

// Path returns the absolute path of name.
func (s *Site) Path(name string) string {
	return filepath.Join(s.Root, filepath.FromSlash(name))
}

func (s *Site) parent(name string) string {
	s.t.Helper()
	p := s.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// File writes data to name, replacing it if it exists, and returns s.
func (s *Site) File(name string, data []byte) *Site {
	s.t.Helper()
	if err := os.WriteFile(s.parent(name), data, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// FileAt writes data to name and sets its mtime (and atime) to mtime.
func (s *Site) FileAt(name string, data []byte, mtime time.Time) *Site {
	s.t.Helper()
	s.File(name, data)
	s.Chtime(name, mtime)
	return s
}

// Chtime sets the mtime (and atime) of name.
func (s *Site) Chtime(name string, mtime time.Time) *Site {
	s.t.Helper()
	if err := os.Chtimes(s.Path(name), mtime, mtime); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Dir creates the directory name and its parents.
func (s *Site) Dir(name string) *Site {
	s.t.Helper()
	if err := os.MkdirAll(s.Path(name), 0o755); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Symlink creates name as a symbolic link holding target verbatim (relative
// targets are resolved from name's directory, as usual).
func (s *Site) Symlink(name, target string) *Site {
	s.t.Helper()
	if err := os.Symlink(target, s.parent(name)); err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Replace atomically replaces name with data the way deploy tools do: write
// a temporary file next to it, then rename it over name. The result is a new
// file (a new inode), with the current time as mtime.
func (s *Site) Replace(name string, data []byte) *Site {
	s.t.Helper()
	p := s.parent(name)
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		s.t.Fatal(err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		s.t.Fatal(err)
	}
	return s
}

// Random returns n pseudo-random bytes, the same for the same seed.
func Random(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := mrand.NewChaCha8([32]byte{0: byte(seed), 1: byte(seed >> 8), 2: byte(seed >> 16), 3: byte(seed >> 24)})
	r.Read(b)
	return b
}
