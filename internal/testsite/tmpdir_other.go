//go:build !linux

package testsite

// memoryTempDir: only Linux's tmpfs is known to be there.
func memoryTempDir() string { return "" }
