package jaws

import (
	"errors"
	"io"
	"io/fs"
)

// What the content codings ask the store of files other than the one a
// request names: the names beside a file, for the earlier versions of a
// versioned one (dictionary.go), and their metadata.

// readDir lists at most max entries of the directory dir under the root
// ("." for the root itself), in the order the source gives them. It reads
// the directory once, whatever its size.
func (s *store) readDir(dir string, max int) ([]fs.DirEntry, error) {
	f, info, _, err := s.src.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !info.IsDir() || !ok {
		return nil, errNotDir
	}
	list, err := rd.ReadDir(max)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return list, err
}

var errNotDir = errors.New("not a directory")

// stat is the metadata of the file name as a lookup would find it.
func (s *store) stat(name string) (fs.FileInfo, error) { return s.src.Stat(name) }
