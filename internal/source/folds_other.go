//go:build !linux && !darwin

package source

import "os"

// foldsNames: elsewhere jaws cannot ask whether a directory folds names
// (NTFS does by default, and per directory; FreeBSD's msdosfs and ZFS with
// casesensitivity=insensitive or mixed do), so every name is checked by its
// directory's names, unless finalPath vouched for it first.
func foldsNames(dir *os.File) (folds, handled bool) { return false, false }
