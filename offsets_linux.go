package jaws

// leaseOffsets: a fallback transfer may hold the offset of a file's shared
// descriptor (sharedFile.lease), since what else reads it, sendfile at an
// explicit offset and pread, leaves the offset where it is.
const leaseOffsets = true
