package jaws

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/source"
	"github.com/jaws-go/jaws/internal/testsite"
)

// hashHook sets testHookHashRead for the test. The tests that use it are not
// parallel: the hook is the package's.
func hashHook(t *testing.T, f func(ctx context.Context, chunk int)) {
	testHookHashRead = f
	t.Cleanup(func() { testHookHashRead = nil })
}

// tableEntry is an entry for the table's tests: the file name and its
// metadata, which is all the table looks at.
func tableEntry(t *testing.T, file string, info os.FileInfo) *entry {
	t.Helper()
	return &entry{Ref: source.Ref{File: file, Info: info, Ver: source.VersionOf(info)}}
}

// TestHashTableBound: the table keeps one record per file name, the latest
// version's; a record matches no other version; and the whole stays within
// its bound however many files or versions come, the least recently used
// going first.
func TestHashTableBound(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	p := filepath.Join(dir, "f.bin")
	must(t, os.WriteFile(p, []byte("v0"), 0o644))
	stat := func() os.FileInfo {
		info, err := os.Stat(p)
		must(t, err)
		return info
	}
	const max = 16 << 10
	for _, c := range []struct {
		name string
		run  func(t *testing.T, tab *hashTable)
	}{
		{"many-files", func(t *testing.T, tab *hashTable) {
			info := stat()
			for i := range 1000 {
				sum := sha256.Sum256(fmt.Append(nil, i))
				tab.add(tableEntry(t, fmt.Sprintf("media/%04d.mp4", i), info), &sum)
				if _, held := tab.size(); held > max {
					t.Fatalf("after %d files the table holds %d, over %d", i+1, held, max)
				}
			}
			n, _ := tab.size()
			if n == 0 || n > max/hashRecordOverhead {
				t.Errorf("%d records under a bound of %d", n, max)
			}
			if tab.lookup(tableEntry(t, "media/0999.mp4", info)) == nil {
				t.Error("the last file added is not kept")
			}
			if tab.lookup(tableEntry(t, "media/0000.mp4", info)) != nil {
				t.Error("the first file added is kept")
			}
		}},
		{"many-versions", func(t *testing.T, tab *hashTable) {
			var last *entry
			var want [sha256.Size]byte
			for i := range 200 {
				must(t, os.WriteFile(p, fmt.Appendf(nil, "v%d", i), 0o644))
				must(t, os.Chtimes(p, time.Time{}, time.Unix(int64(1000+i), 0))) // a version per write, whatever the clock's tick
				e := tableEntry(t, "f.bin", stat())
				want = sha256.Sum256(fmt.Append(nil, i))
				if last != nil && tab.lookup(e) != nil {
					t.Fatalf("version %d matches the record of another", i)
				}
				tab.add(e, &want)
				last = e
			}
			if n, held := tab.size(); n != 1 || held != (&hashRecord{file: "f.bin"}).cost() {
				t.Errorf("200 versions of one file: %d records, %d bytes; want 1", n, held)
			}
			if sum := tab.lookup(last); sum == nil || *sum != want {
				t.Errorf("the latest version: %v", sum)
			}
		}},
		{"recently-used-stays", func(t *testing.T, tab *hashTable) {
			info := stat()
			sum := sha256.Sum256(nil)
			keep := tableEntry(t, "keep.mp4", info)
			tab.add(keep, &sum)
			for i := range 1000 {
				if tab.lookup(keep) == nil {
					t.Fatalf("a file looked up between adds was let go after %d others", i)
				}
				tab.add(tableEntry(t, fmt.Sprintf("%04d.mp4", i), info), &sum)
			}
		}},
		{"one-too-large", func(t *testing.T, tab *hashTable) {
			sum := sha256.Sum256(nil)
			long := string(make([]byte, max))
			tab.add(tableEntry(t, long, stat()), &sum)
			if n, held := tab.size(); n != 0 || held != 0 {
				t.Errorf("a record over the bound: %d records, %d bytes", n, held)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, &hashTable{max: max})
		})
	}
}

// TestHashRecordOverhead: hashRecordOverhead covers what a record of a file
// on disk costs the heap: its name, its FileInfo, the map and the list. Not
// parallel: it counts the heap.
func TestHashRecordOverhead(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "movie-of-a-usual-name.mp4")
	must(t, os.WriteFile(p, nil, 0o644))
	const n = 2000
	tab := &hashTable{max: 1 << 30}
	sum := sha256.Sum256(nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		info, err := os.Stat(p) // a FileInfo of its own, as each entry has
		must(t, err)
		tab.add(tableEntry(t, fmt.Sprintf("media/%04d/movie-of-a-usual-name.mp4", i), info), &sum)
	}
	runtime.GC() // the entries are gone; the records keep the names and FileInfos
	runtime.ReadMemStats(&after)
	_, held := tab.size()
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	name := int64(len("media/0000/movie-of-a-usual-name.mp4"))
	t.Logf("a record costs %d bytes of heap; accounted %d", per, held/n)
	if per > held/n {
		t.Errorf("a record costs %d bytes of heap; hashRecordOverhead + 2*%d accounts only %d", per, name, held/n)
	}
	runtime.KeepAlive(tab)
}

// TestHashTableNotGrownByRequests: requests never add to the table, whatever
// they ask: wrong hashes of large files, made-up names, missing files; only
// HashName of a large file does, one record however many versions it
// reads.
func TestHashTableNotGrownByRequests(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	big := filepath.Join(dir, "big.bin")
	must(t, os.WriteFile(big, randomBytes(hashOnRequestMax+4096), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "small.bin"), randomBytes(200<<10), 0o644))
	h := newTestHandler(t, dir, Options{})
	for i := range 50 {
		for _, target := range []string{
			fmt.Sprintf("/big.%016x.bin", i),
			fmt.Sprintf("/big.bin.%016x", i),
			fmt.Sprintf("/small.%016x.bin", i),
			fmt.Sprintf("/missing%d.%016x.bin", i, i),
		} {
			if w := get(h, target); w.Code != 404 {
				t.Fatalf("%s: %d", target, w.Code)
			}
		}
		if _, err := h.HashName(fmt.Sprintf("missing%d.bin", i)); err == nil {
			t.Fatal("HashName of a missing file")
		}
	}
	if _, err := h.HashName("small.bin"); err != nil {
		t.Fatal(err)
	}
	if n, held := h.store.hashes.size(); n != 0 || held != 0 {
		t.Fatalf("after 200 requests and HashName of a small file: %d records, %d bytes; want none", n, held)
	}
	f, err := os.OpenFile(big, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	var names []string
	for i := range 5 {
		// Flip a byte, so each version's content differs from the last.
		b := make([]byte, 1)
		_, err := f.ReadAt(b, int64(i))
		must(t, err)
		b[0] ^= 0xff
		_, err = f.WriteAt(b, int64(i))
		must(t, err)
		must(t, os.Chtimes(big, time.Time{}, time.Unix(int64(1000+i), 0)))
		name, err := h.HashName("big.bin")
		must(t, err)
		names = append(names, name)
	}
	if n, _ := h.store.hashes.size(); n != 1 {
		t.Errorf("after HashName of 5 versions of one file: %d records, want 1", n)
	}
	for i, name := range names {
		want := 404
		if i == len(names)-1 {
			want = 200
		}
		if w := get(h, "/"+name); w.Code != want {
			t.Errorf("version %d, /%s: %d, want %d", i, name, w.Code, want)
		}
	}
}

// TestHashedRequestStopsWhenClientGone: a request that hashes a file (up to
// hashOnRequestMax) stops reading within a chunk of its client's going
// away, and keeps no hash it did not finish; the next request reads it
// whole.
func TestHashedRequestStopsWhenClientGone(t *testing.T) {
	dir := tempDir(t)
	data := randomBytes(hashOnRequestMax)
	must(t, os.WriteFile(filepath.Join(dir, "app.bin"), data, 0o644))
	h := newTestHandler(t, dir, Options{})
	done := make(chan struct{}, 1)
	s := testsite.Start(t, testsite.HTTP1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		done <- struct{}{}
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var read int64 // by the hashes of the request under way
	hashHook(t, func(server context.Context, chunk int) {
		mu.Lock()
		first := read == 0
		read += int64(chunk)
		mu.Unlock()
		if first && ctx.Err() == nil {
			cancel() // the client goes, a chunk into the read
			select {
			case <-server.Done():
			case <-time.After(time.Minute): // a failure, not a pause
				t.Error("the server did not see its client go")
			}
		}
	})
	req := s.NewRequest(t, "GET", "/app.0123456789abcdef.bin").WithContext(ctx)
	if resp, err := s.Client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request was answered: %d", resp.StatusCode)
	}
	<-done
	if read == 0 || read > hashChunk {
		t.Errorf("the hash read %d bytes for a client that had gone, a chunk is %d", read, hashChunk)
	}
	read = 0
	if resp, _ := s.Get(t, "/app.0123456789abcdef.bin"); resp.StatusCode != 404 {
		t.Errorf("the next request: %d", resp.StatusCode)
	}
	<-done
	if read != int64(len(data)) {
		t.Errorf("the next request read %d bytes to hash, want %d", read, len(data))
	}
}

// TestHashedRequestsShareOneRead: concurrent requests for hashed names of a
// file whose hash is not known read it once between them: the first reads
// while the others wait for its result.
func TestHashedRequestsShareOneRead(t *testing.T) {
	const clients = 8
	dir := tempDir(t)
	data := randomBytes(512 << 10)
	must(t, os.WriteFile(filepath.Join(dir, "app.bin"), data, 0o644))
	h := newTestHandler(t, dir, Options{})
	if w := get(h, "/app.bin"); w.Code != 200 {
		t.Fatal(w.Code)
	}
	h.store.cache.sync() // every request finds the one entry
	var arrived sync.WaitGroup
	arrived.Add(clients)
	s := testsite.Start(t, testsite.HTTP1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		h.ServeHTTP(w, r)
	}))
	var mu sync.Mutex
	reads := map[context.Context]int64{}
	var once sync.Once
	hashHook(t, func(ctx context.Context, chunk int) {
		once.Do(arrived.Wait) // the first reader holds on until every request is in
		mu.Lock()
		reads[ctx] += int64(chunk)
		mu.Unlock()
	})
	sum := sha256.Sum256(data)
	targets := []string{"/app.0123456789abcdef.bin", "/app." + fmt.Sprintf("%x", sum[:8]) + ".bin"}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			resp, _ := s.Get(t, targets[i%2])
			if want := []int{404, 200}[i%2]; resp.StatusCode != want {
				t.Errorf("%s: %d, want %d", targets[i%2], resp.StatusCode, want)
			}
		})
	}
	wg.Wait()
	var total int64
	for _, n := range reads {
		total += n
	}
	if len(reads) != 1 || total != int64(len(data)) {
		t.Errorf("%d requests read %d bytes in %d reads to hash a file of %d", clients, total, len(reads), len(data))
	}
}

// TestHashedNameBudget: a name that reads two ways (x.<hash>.<hex>: x.<hex>
// hashed, or x.<hash> with the extension <hex>) costs a request at most
// hashOnRequestMax bytes of hashing for both files together; what the
// budget left unread, a later request reads.
func TestHashedNameBudget(t *testing.T) {
	const a, b = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	dir := tempDir(t)
	for _, name := range []string{"x." + a, "x." + b} {
		must(t, os.WriteFile(filepath.Join(dir, name), randomBytes(700<<10), 0o644))
	}
	h := newTestHandler(t, dir, Options{})
	var read int64
	hashHook(t, func(_ context.Context, chunk int) { read += int64(chunk) })
	for i, want := range []int64{700 << 10, 700 << 10, 0} {
		read = 0
		if w := get(h, "/x."+a+"."+b); w.Code != 404 {
			t.Fatalf("request %d: %d", i+1, w.Code)
		}
		if read != want {
			t.Errorf("request %d read %d bytes to hash; want %d (a budget of %d)", i+1, read, want, hashOnRequestMax)
		}
		h.store.cache.sync() // the next request finds the entries, with what they learnt
	}
}
