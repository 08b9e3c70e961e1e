//go:build !linux

package jaws

import "io/fs"

// version identifies one version of a file where only portable metadata is
// at hand; entry.matches adds os.SameFile for the file's identity.
type version struct {
	size, mtime int64
}

func versionOf(info fs.FileInfo) version {
	return version{info.Size(), info.ModTime().UnixNano()}
}

// statDir: outside Linux a hit is confirmed with os.Root.Stat.
type statDir struct{}

func openStatDir(string) statDir { return statDir{} }

func (statDir) close() {}

func (statDir) unchanged(string, version) (same, handled bool) { return false, false }
