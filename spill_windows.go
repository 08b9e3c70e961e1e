package jaws

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// createSpill creates a spill file in dir that Windows deletes when its
// last handle is closed, even after a crash. Windows cannot unlink an open
// file.
func createSpill(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for range 100 {
		path := filepath.Join(dir, ".jaws-spill-"+rand.Text())
		p, err := windows.UTF16PtrFromString(path)
		if err != nil {
			return nil, err
		}
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
			windows.CREATE_NEW, windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
		if errors.Is(err, windows.ERROR_FILE_EXISTS) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(h), path), nil
	}
	return nil, &os.PathError{Op: "open", Path: dir, Err: os.ErrExist}
}
