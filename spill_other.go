//go:build !windows

package jaws

import "os"

// createSpill creates a spill file in dir with no name: it is unlinked at
// once, so it is gone when closed, even after a crash.
func createSpill(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".jaws-spill-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
