package jaws

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/jaws-go/jaws/internal/source"
)

func TestErrorStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"not exist", fs.ErrNotExist, 404},
		{"permission", &fs.PathError{Op: "openat", Path: "x", Err: syscall.EACCES}, 403},
		{"escape", errors.New("path escapes from parent"), 404},
		{"not a directory", syscall.ENOTDIR, 404},
		{"special file", source.ErrNotRegular, 404},
		{"closed", os.ErrClosed, 503},
		{"io error", syscall.EIO, 500},
		{"out of descriptors", fmt.Errorf("open: %w", syscall.EMFILE), 503},
		{"out of system descriptors", &fs.PathError{Op: "openat", Path: "x", Err: syscall.ENFILE}, 503},
		{"out of memory", syscall.ENOMEM, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := errorStatus(tt.err); got != tt.want {
				t.Errorf("errorStatus(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}
