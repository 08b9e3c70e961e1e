//go:build !linux

package jaws

// leaseOffsets: no lease of a shared descriptor's offset (sharedFile.lease)
// where it has not been tried, nor on Windows, where a read at an offset
// moves a synchronous handle's file pointer: each fallback transfer opens a
// descriptor of its own.
const leaseOffsets = false
