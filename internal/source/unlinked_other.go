//go:build !unix && !windows

package source

import "os"

// unlinked: where jaws cannot tell, a deleted file's descriptor is let go
// when the cache evicts its entry or its name is asked for again.
func unlinked(*os.File) (gone, handled bool) { return false, false }
