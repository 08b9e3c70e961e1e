package jaws_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestTornInPlaceWrite: a file rewritten in place, keeping its size, by a
// write(2) that is still copying its bytes when a request reads the file.
// The write set the file's times before its copy, so the stat jaws took
// with the bytes is the new version's, and the bytes a mix of the two.
// Once the write returned, every request must get the new bytes whole,
// under their own ETag, as http.FileServer does; before internal/source's
// watcher.writtenSince the mix stayed cached under the new stat.
// userfaultfd holds the write at its last page, so the order is certain and
// nothing waits on a clock.
func TestTornInPlaceWrite(t *testing.T) {
	if fsSource {
		t.Skip("an fs.FS is confirmed by stat alone")
	}
	for _, c := range []struct {
		name string
		size int
		// A first write just before, as a copy in chunks makes: its event
		// has the visitor look at the file, and build the entry anew from
		// the second write's mix. With one write the visitor is served
		// the cached old version, whole.
		twoWrites bool
	}{
		{"memory/one-write", 60 << 10, false},
		{"memory/two-writes", 60 << 10, true},
		{"disk/two-writes", 200 << 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			must(t, os.WriteFile(p, bytes.Repeat([]byte{'a'}, c.size), 0o644))
			h, err := jaws.New(dir, jaws.Options{})
			must(t, err)
			t.Cleanup(func() { h.Close() })
			// A text type, so that a gzip variant is made (and kept) too.
			get := func(coding string) (int, []byte, string) {
				w := testsite.Serve(h, "GET", "/f.txt", "Accept-Encoding", coding)
				b := w.Body.Bytes()
				if w.Header().Get("Content-Encoding") == "gzip" {
					zr, err := gzip.NewReader(bytes.NewReader(b))
					must(t, err)
					b, err = io.ReadAll(zr)
					must(t, err)
				} else if coding == "gzip" && c.size <= 64<<10 {
					t.Errorf("no gzip variant of a %d-byte file", c.size)
				}
				return w.Code, b, w.Header().Get("Etag")
			}
			get("gzip")
			get("") // cached, with its token

			want := bytes.Repeat([]byte{'b'}, c.size)
			buf, faulted, release := heldBuffer(t, want)
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			must(t, err)
			defer f.Close()
			if c.twoWrites {
				_, err := f.WriteAt(want[:1], 0)
				must(t, err)
			}
			wrote := make(chan error, 1)
			go func() { _, err := f.WriteAt(buf, 0); wrote <- err }()
			<-faulted   // the write is in its copy
			get("gzip") // a visitor meanwhile: may get a mix, and builds the entry (and its variant) from it
			release()
			must(t, <-wrote)

			fresh, err := jaws.New(dir, jaws.Options{})
			must(t, err)
			defer fresh.Close()
			for _, coding := range []string{"", "gzip", ""} {
				wantTag := testsite.Serve(fresh, "GET", "/f.txt", "Accept-Encoding", coding).Header().Get("Etag")
				code, b, tag := get(coding)
				if code != http.StatusOK || !bytes.Equal(b, want) || tag != wantTag {
					t.Errorf("GET (Accept-Encoding %q) after the write returned: %d, %d of %d bytes new, ETag %s, want %s",
						coding, code, bytes.Count(b, want[:1]), len(b), tag, wantTag)
				}
			}
		})
	}
}

// heldBuffer returns a copy of data (a whole number of pages) whose last
// page is not there until release: a write(2) from it stops in its copy,
// after it set the file's times, at that page. faulted is closed once the
// write reached it. It skips the test where userfaultfd is not allowed.
func heldBuffer(t *testing.T, data []byte) (buf []byte, faulted <-chan struct{}, release func()) {
	const (
		uffdioAPI      = 0xc018aa3f
		uffdioRegister = 0xc020aa00
		uffdioCopy     = 0xc028aa03
	)
	pg := os.Getpagesize()
	if len(data)%pg != 0 {
		t.Fatalf("%d bytes: not a whole number of pages", len(data))
	}
	fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC, 0, 0)
	if errno != 0 {
		t.Skipf("userfaultfd: %v", errno)
	}
	api := [3]uint64{0xAA, 0, 0}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, uffdioAPI, uintptr(unsafe.Pointer(&api))); errno != 0 {
		unix.Close(int(fd))
		t.Skipf("UFFDIO_API: %v", errno)
	}
	m, err := unix.Mmap(-1, 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	must(t, err)
	copy(m[:len(data)-pg], data)
	last := uintptr(unsafe.Pointer(&m[len(m)-pg]))
	reg := [4]uint64{uint64(last), uint64(pg), 1 /* UFFDIO_REGISTER_MODE_MISSING */, 0}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, uffdioRegister, uintptr(unsafe.Pointer(&reg))); errno != 0 {
		unix.Munmap(m)
		unix.Close(int(fd))
		t.Skipf("UFFDIO_REGISTER: %v", errno)
	}
	page := make([]byte, pg)
	copy(page, data[len(data)-pg:])
	fch, rel, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var msg [32]byte
		for {
			n, err := unix.Read(int(fd), msg[:])
			if err == unix.EINTR {
				continue
			}
			if err != nil || n != len(msg) {
				return
			}
			break
		}
		close(fch)
		<-rel
		cp := [5]uint64{uint64(last), uint64(uintptr(unsafe.Pointer(&page[0]))), uint64(pg), 0, 0}
		unix.Syscall(unix.SYS_IOCTL, fd, uffdioCopy, uintptr(unsafe.Pointer(&cp)))
	}()
	var once sync.Once
	release = func() { once.Do(func() { close(rel) }) }
	t.Cleanup(func() {
		release()
		select {
		case <-fch:
			<-done // the page is in: no write waits on it
			unix.Munmap(m)
		default: // no write reached it (the test failed before): leave the mapping
		}
		unix.Close(int(fd))
	})
	return m, fch, release
}
