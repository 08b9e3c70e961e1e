package jaws

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// midSize is a file between CacheMaxFileSize and ZeroCopyMinSize's
// defaults: sent from disk by the fallback.
const midSize = 100 << 10

// TestLeaseOnOneConnection: requests for a mid-size file, one after another
// on one keep-alive connection, read it through the shared descriptor's
// leased offset and open nothing once the entry is built, where offsets
// can be leased (elsewhere one each at least); whatever span the last one sent,
// the next reads the bytes its range asks for.
func TestLeaseOnOneConnection(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	data := randomBytes(midSize)
	must(t, os.WriteFile(filepath.Join(dir, "onconn.bin"), data, 0o644))
	h := newTestHandler(t, dir, Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := dialRaw(t, srv)
	c.send(t, get11("/onconn.bin")) // builds the entry, which holds the shared descriptor
	if resp, body := c.read(t, "GET"); resp.StatusCode != 200 || !bytes.Equal(body, data) {
		t.Fatalf("first GET: %d, %d bytes", resp.StatusCode, len(body))
	}
	h.store.cache.sync() // the cache holds it
	// A 304 on the same connection: the first response is counted (after
	// its body was sent) once the handler reads the next request.
	c.send(t, get11("/onconn.bin", "If-None-Match: *\r\n"))
	if resp, _ := c.read(t, "GET"); resp.StatusCode != 304 {
		t.Fatalf("%d, want 304", resp.StatusCode)
	}
	before, fallbacks := openCount("onconn.bin"), h.Stats().Fallback.Responses
	reads := 0 // requests that read the file
	cases := []struct {
		name, extra string
		spans       []span // nil: the whole file
	}{
		{name: "whole"},
		{name: "a range", extra: "Range: bytes=1000-1999\r\n", spans: []span{{1000, 1000}}},
		{name: "whole after a range", extra: ""},
		{name: "the last bytes", extra: "Range: bytes=-10\r\n", spans: []span{{midSize - 10, 10}}},
		{name: "multipart", extra: "Range: bytes=0-9,50000-50009\r\n", spans: []span{{0, 10}, {50000, 10}}},
		{name: "whole after multipart"},
		{name: "not modified", extra: "If-None-Match: *\r\n"},
	}
	for _, c2 := range cases {
		c.send(t, get11("/onconn.bin", c2.extra))
		resp, body := c.read(t, "GET")
		switch {
		case c2.name == "not modified":
			if resp.StatusCode != 304 {
				t.Fatalf("%s: %d, want 304", c2.name, resp.StatusCode)
			}
		case len(c2.spans) > 1:
			checkMultipart(t, resp, body, data, c2.spans)
			reads++
		case len(c2.spans) == 1:
			s := c2.spans[0]
			if resp.StatusCode != 206 || !bytes.Equal(body, data[s.off:s.end()]) {
				t.Fatalf("%s: %d, %d bytes, not the range's", c2.name, resp.StatusCode, len(body))
			}
			reads++
		default:
			if resp.StatusCode != 200 || !bytes.Equal(body, data) {
				t.Fatalf("%s: %d, %d bytes, not the file", c2.name, resp.StatusCode, len(body))
			}
			reads++
		}
	}
	switch n := openCount("onconn.bin") - before; {
	case leaseOffsets && n != 0:
		t.Errorf("%d opens for %d requests, want none", n, len(cases))
	case !leaseOffsets && n < int64(reads):
		t.Errorf("%d opens for %d requests that read the file, want one each at least", n, reads)
	}
	if n := h.Stats().Fallback.Responses - fallbacks; n != uint64(reads) {
		t.Errorf("%d fallback responses, want %d", n, reads)
	}
	if !onlyCacheRef(h, "onconn.bin") {
		t.Error("a request kept a reference to the shared descriptor")
	}
	if e := h.store.cache.get("onconn.bin"); e == nil || e.sf.leased.Load() {
		t.Error("the lease was not given back")
	}
}

// TestLeaseConcurrent: fallback transfers (whole files and ranges) and
// zero-copy ones of the same files at once, on several connections: each
// reads its own bytes, whether it holds the lease, opened its own
// descriptor while another held it, or read the shared descriptor at
// offsets, and every reference is given back.
func TestLeaseConcurrent(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	files := map[string][]byte{"a.bin": randomBytes(midSize), "b.bin": randomBytes(300 << 10)}
	for name, data := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	// b.bin goes zero-copy when whole; its ranges below 200 KiB do not.
	h := newTestHandler(t, dir, Options{ZeroCopyMinSize: 200 << 10})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		c := dialRaw(t, srv)
		wg.Go(func() {
			for i := range 30 {
				name := "a.bin"
				if (g+i)%2 == 1 {
					name = "b.bin"
				}
				data := files[name]
				off := int64((g*7919 + i*104729) % (len(data) - 2000))
				var extra string
				want := data
				if i%3 != 0 {
					extra = "Range: bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+1999, 10) + "\r\n"
					want = data[off : off+2000]
				}
				if _, err := io.WriteString(c, get11("/"+name, extra)); err != nil {
					errs <- err
					return
				}
				resp, err := http.ReadResponse(c.br, nil)
				if err != nil {
					errs <- err
					return
				}
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					errs <- err
					return
				}
				if resp.StatusCode/100 != 2 || !bytes.Equal(body, want) {
					errs <- fmt.Errorf("%s %q: %d, %d bytes, not the file's", name, extra, resp.StatusCode, len(body))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitTransfers(t, h, 10*time.Second)
	for name := range files {
		if !onlyCacheRef(h, name) {
			t.Errorf("%s: a request kept a reference to the shared descriptor", name)
		}
		if e := h.store.cache.get(name); e == nil || e.sf.leased.Load() {
			t.Errorf("%s: the lease was not given back", name)
		}
	}
	if s := h.Stats(); s.ZeroCopy.Responses == 0 || s.Fallback.Responses == 0 {
		t.Errorf("%d zero-copy and %d fallback responses, want some of each", s.ZeroCopy.Responses, s.Fallback.Responses)
	}
}

// TestLeaseHeldOnce: the lease goes to one transfer at a time, starts at
// the file's start wherever the last holder left the offset, is given back
// once however often it is closed, and is refused for a descriptor that no
// longer holds the entry's version.
func TestLeaseHeldOnce(t *testing.T) {
	if !leaseOffsets {
		t.Skip("no lease of offsets here")
	}
	t.Parallel()
	dir := tempDir(t)
	data := randomBytes(midSize)
	file := filepath.Join(dir, "heldonce.bin")
	must(t, os.WriteFile(file, data, 0o644))
	h := newTestHandler(t, dir, Options{})
	if w := get(h, "/heldonce.bin"); w.Code != 200 {
		t.Fatal(w.Code)
	}
	h.store.cache.sync()
	e := h.store.cache.get("heldonce.bin")
	if e == nil || e.sf == nil || !onlyCacheRef(h, "heldonce.bin") {
		t.Fatal("no cached entry holding only the cache's reference")
	}
	sf := e.sf
	l, ok := sf.lease()
	if !ok || sf.refCount() != 2 {
		t.Fatalf("lease: %v, %d references, want true and 2", ok, sf.refCount())
	}
	if _, ok := sf.lease(); ok {
		t.Fatal("a second lease while the first is held")
	}
	if _, err := io.CopyN(io.Discard, l, 5000); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l.Close()
	if sf.refCount() != 1 {
		t.Fatalf("%d references after the lease was closed twice, want 1", sf.refCount())
	}
	l, ok = sf.lease()
	if !ok {
		t.Fatal("no lease once the first was given back")
	}
	head := make([]byte, 16)
	if _, err := io.ReadFull(l, head); err != nil || !bytes.Equal(head, data[:16]) {
		t.Fatalf("a new lease reads %x (%v), want the file's first bytes %x", head, err, data[:16])
	}
	l.Close()
}

// TestFallbackSeesChangesEventsMiss: a mid-size file changed in a way its
// entry's confirmation cannot see (no event reaches its directory; or
// Revalidate trusts it for a while) but its shared descriptor's fstat
// does is served in its new version by the very next request, whether the
// request may be answered compressed (its lookup takes no descriptor) or
// not, as when the fallback opened the file for each request: never its
// new bytes under the old version's ETag, nor a 503.
func TestFallbackSeesChangesEventsMiss(t *testing.T) {
	t.Parallel()
	inPlace := func(t *testing.T, p string) {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteAt([]byte("changed"), 0)
		must(t, err)
		must(t, f.Close())
	}
	for _, c := range []struct {
		name   string
		opts   Options
		change func(t *testing.T, p string)
	}{
		{"written through a hard link made since", Options{}, func(t *testing.T, p string) {
			link := filepath.Join(tempDir(t), "link")
			must(t, os.Link(p, link))
			inPlace(t, link)
		}},
		{"in place, Revalidate 1h", Options{Revalidate: time.Hour}, inPlace},
	} {
		for _, accept := range []string{"", "gzip, br"} {
			t.Run(c.name+"/Accept-Encoding "+accept, func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				p := filepath.Join(dir, "changes.bin")
				must(t, os.WriteFile(p, randomBytes(midSize), 0o644))
				h := newTestHandler(t, dir, c.opts)
				var hdr []string // no Accept-Encoding at all: the lookup takes the descriptor
				if accept != "" {
					hdr = []string{"Accept-Encoding", accept}
				}
				var etag string
				for range 2 {
					w := get(h, "/changes.bin", hdr...)
					if w.Code != 200 {
						t.Fatal(w.Code)
					}
					etag = w.Header().Get("Etag")
					h.store.cache.sync()
				}
				c.change(t, p)
				for i := range 2 {
					w := get(h, "/changes.bin", hdr...)
					if w.Code != 200 || !bytes.HasPrefix(w.Body.Bytes(), []byte("changed")) {
						t.Fatalf("request %d after the change: %d, %d bytes, want 200 and the new bytes", i, w.Code, w.Body.Len())
					}
					if w.Header().Get("Etag") == etag {
						t.Fatalf("request %d after the change: the new bytes under the old version's ETag %s", i, etag)
					}
					h.store.cache.sync()
				}
			})
		}
	}
}
