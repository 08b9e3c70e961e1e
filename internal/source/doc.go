// Package source is where jaws's files come from, and how it knows they
// are still what it found: files under a root directory (through os.Root,
// and openat2 on Linux) or in an fs.FS; the root as a path; names served
// only as stored; freshness by file system events; the sweep that lets go
// of what is no longer served. It knows nothing of HTTP, and imports no
// package of jaws's.
//
// Package jaws is its one user. New and NewFS make a Source (OpenDir,
// NewFS) and a Sweeper; the store then, for each file:
//
//   - opens its name under the root (Source.Open) and keeps a Ref of what
//     it found: the name, its FileInfo and Version, the Tree it was found
//     in, and when its bytes began to be read (Mono); then arms it
//     (Source.Arm);
//   - on every cache hit, confirms the ref (Source.Fresh), and opens a
//     descriptor of its own, when it needs one, in the tree Fresh found
//     (Source.OpenIn), with no second look at the root path;
//   - lets go of the descriptors it shares once they are of files no
//     longer served (Source.Gone), in a job of the Sweeper, which runs the
//     source's own sweep of retired trees too;
//   - closes the source (Source.Close) when the handler closes.
//
// # The freshness contract
//
// Never stale. A Fresh that starts after a change to a file completed (the
// writer's system call returned) sees it: the file's bytes, its metadata,
// its existence, and those of the names a ref stands on (Ref.Also). There
// is no window; a caller that wants one (Options.Revalidate) asks less
// often.
//
// The root is the path given to OpenDir, as with http.Dir: when the path
// comes to name another directory (a symlink swapped, the directory
// renamed, replaced, deleted or recreated), the next Open or Fresh looks in
// what it names now, contained in it, and no ref of the old tree is fresh
// again. Files open in the old tree stay readable: it is retired, and
// closed a sweep later.
//
// What the kernel does not report falls back to a stat per Fresh until
// events can be trusted again, never to a stale answer: a file reached
// through a symbolic link, one with more than one hard link, a mount point,
// a directory on a network or user-space file system (NFS, SMB, FUSE), and
// every file while no watch is to be had (the user's inotify limit), after
// events were lost (a queue overflow) or the mount table changed, until
// its ref is confirmed anew a second or more later.
//
// Descriptors of deleted files are let go within a second: Gone reports a
// descriptor of a file deleted or renamed over, or of a retired tree, and
// the Sweeper runs a second after a Kick and every second while a job has
// more to do, so its user closes such a descriptor within a second of the
// change (once the transfers reading it end), asked for again or not; a
// retired tree is closed a second after it was retired.
//
// One change no stat can tell: a write in place still copying its bytes
// while they were read, under the new size and times. With events, the
// write's event (queued once the bytes are in) makes the ref stale; where
// events do not cover the file, replace files by rename.
//
// # What each system gets
//
//   - Linux: names open in one openat2 beneath the tree's directory (no
//     symbolic link on the way; those, and kernels before 5.6, go through
//     os.Root). Freshness by inotify where every change goes through this
//     kernel (ext4, XFS, Btrfs, tmpfs, F2FS, overlayfs): one non-blocking
//     epoll_wait per Fresh, which finds nothing pending unless something
//     changed, and no other system call while the ref's directories saw no
//     event; the directories on the way to the root path are watched too,
//     so a swap costs nothing until it happens. Without events, one fstatat
//     per Fresh and one stat of the root path. A descriptor is gone when its
//     file has no link left. Names fold only in casefold directories
//     (FS_CASEFOLD_FL), and on file systems that may (FAT, NTFS, SMB, ...).
//   - Windows: one stat per Fresh (os.Root) and one of the root path. Files
//     are opened so that they can be deleted and renamed over while open; a
//     descriptor is gone when its file is delete-pending. Names are checked
//     by the file's final path (GetFinalPathNameByHandle), else by its
//     directories' names.
//   - macOS: one stat per Fresh and one of the root path; names fold where
//     the volume says so (_PC_CASE_SENSITIVE); gone by link count.
//   - Other Unix systems: as macOS, but every name is checked by its
//     directories' names.
//   - Other systems (Plan 9, WebAssembly): as other Unix systems, but no
//     descriptor is known to be gone: it is let go when its ref is.
//   - An fs.FS (NewFS): an embed.FS never changes (Immutable) and is never
//     confirmed; any other is confirmed by a stat per Fresh, a file with no
//     modification time held in memory by its bytes too. Containment and
//     names are the FS's own, and its root is the FS itself.
//
// docs/freshness.md says what this means for the requests jaws serves.
package source
