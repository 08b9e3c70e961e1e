// Package source is where jaws's files come from, and how jaws knows that
// they are still what it found. It covers:
//
//   - files under a root directory (through os.Root, and openat2 on Linux)
//     or in an fs.FS;
//   - the root as a path;
//   - names served only as stored;
//   - freshness by file system events;
//   - the sweep that lets go of what is no longer served.
//
// It knows nothing of HTTP, and imports no package of jaws's.
//
// Package jaws is its one user. New and NewFS make a Source (OpenDir,
// NewFS) and a Sweeper. The store then, for each file:
//
//  1. opens its name under the root (Source.Open), keeps a Ref of what it
//     found, and arms the ref (Source.Arm). The ref holds the name, its
//     FileInfo and Version, the Tree it was found in, and when its bytes
//     began to be read (Mono);
//  2. confirms the ref on every cache hit (Source.Fresh). When it needs a
//     descriptor of its own, it opens one in the tree Fresh found
//     (Source.OpenIn), with no second look at the root path;
//  3. lets go of the descriptors it shares once they are of files no longer
//     served (Source.Gone), in a job of the Sweeper. The Sweeper runs the
//     source's own sweep of retired trees too;
//  4. closes the source (Source.Close) when the handler closes.
//
// # The freshness contract
//
// Never stale. A Fresh that starts after a change to a file completed (the
// writer's system call returned) sees the change: the file's bytes, its
// metadata and its existence, and those of the names a ref stands on
// (Ref.Also). There is no window. A caller that wants one
// (Options.Revalidate) asks less often.
//
// The root is the path given to OpenDir, as with http.Dir. The path may
// come to name another directory: a symlink swapped, or the directory
// renamed, replaced, deleted or recreated. The next Open or Fresh then looks
// in what the path names now, contained in it, and no ref of the old tree
// is fresh again. Files open in the old tree stay readable. The old tree is
// retired, and closed a sweep later.
//
// What the kernel does not report falls back to a stat per Fresh until
// events can be trusted again, never to a stale answer. The repository's
// docs/freshness.md lists those cases: links, hard links, mount points,
// network and user-space file systems, and times when no watch is to be
// had or events were lost.
//
// Descriptors of deleted files are let go within two seconds:
//
//   - Gone reports a descriptor of a file deleted or renamed over, or of a
//     retired tree.
//   - The Sweeper runs a second after a Kick, and every second while a job
//     has more to do.
//   - So its user closes such a descriptor within two seconds of the
//     change, once the transfers reading it end, whether the name is asked
//     for again or not.
//   - A retired tree is closed one to two seconds after it was retired.
//
// A stat cannot tell one change: a write in place that was still copying
// its bytes while they were read, under the new size and times. With
// events, the write's event, queued once the bytes are in, makes the ref
// stale. Where events do not cover the file, replace files by rename.
//
// # What each system gets
//
//   - Linux: names open in one openat2 beneath the tree's directory. Names
//     with a symbolic link on the way, and all names on kernels before 5.6,
//     go through os.Root. Freshness is by inotify where every change goes
//     through this kernel: ext4, XFS, Btrfs, tmpfs, F2FS and overlayfs.
//     That costs one non-blocking epoll_wait per Fresh, which finds nothing
//     pending unless something changed, and no other system call while the
//     ref's directories saw no event. The directories on the way to the
//     root path are watched too, so a swap costs nothing until it happens.
//     Without events, each Fresh costs one fstatat and one stat of the root
//     path. A descriptor is gone when its file has no link left. Names fold
//     only in casefold directories (FS_CASEFOLD_FL), and on file systems
//     that may fold them (FAT, NTFS, SMB, ...).
//   - Windows: one stat per Fresh (os.Root) and one of the root path. Files
//     are opened so that they can be deleted and renamed over while open.
//     A descriptor is gone when its file is delete-pending. Names are
//     checked by the file's final path (GetFinalPathNameByHandle), else by
//     its directories' names.
//   - macOS: one stat per Fresh and one of the root path. Names fold where
//     the volume says so (_PC_CASE_SENSITIVE). A descriptor is gone when
//     its file has no link left.
//   - Other Unix systems: as macOS, but every name is checked by its
//     directories' names.
//   - Other systems (WebAssembly): as other Unix systems, but no
//     descriptor is known to be gone. It is let go when its ref is.
//   - An fs.FS (NewFS): an embed.FS never changes (Immutable) and is never
//     confirmed. Any other is confirmed by a stat per Fresh. A file with no
//     modification time that is held in memory is confirmed by its bytes
//     too. Containment and names are the FS's own, and its root is the FS
//     itself.
//
// The repository's docs/freshness.md says what this means for the requests
// jaws serves.
package source
