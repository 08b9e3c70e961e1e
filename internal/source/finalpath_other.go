//go:build !windows

package source

import "os"

// finalPath: only Windows gives an open file's path as stored. macOS's
// F_GETPATH and Linux's /proc/self/fd build theirs from the name cache,
// which may hold the spelling of whoever looked the file up first, so
// neither can vouch for a name; foldsNames and the directory's names do.
func finalPath(f *os.File) (path string, handled bool) { return "", false }
