package jaws

import (
	"container/list"
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/jaws-go/jaws/internal/source"
)

// Where a dictionary's bytes are, by their SHA-256: the index. A request
// names a dictionary by its hash alone (Available-Dictionary), so jaws
// keeps the hashes of the files that can be one: each file it offers as a
// dictionary, by its own hash (known, or read once per version), and the
// earlier versions of a versioned file, looked for once per entry of it
// (findEarlier). No request hashes a file or walks a tree because of the
// hash it names: one the index does not know, once the earlier versions
// have been looked for, costs a map lookup.

const (
	// dictIndexMaxBytes bounds the index by dictRecord.cost: 1 MiB, about
	// 3,000 records with names of 40 bytes; the least recently used goes
	// first. A dictionary that falls out is found again by the next look
	// for earlier versions, when the entry it compresses is built anew.
	dictIndexMaxBytes = 1 << 20
	// dictRecordOverhead approximates, in bytes, what a record costs
	// beyond its name: the record, its list element and two map slots.
	dictRecordOverhead = 256

	// What one look for a file's earlier versions may cost: per directory
	// listed (beside the file, and in each of Compression.Dictionaries),
	// the first dictListMax entries read and the first dictStatMax names of
	// the pattern looked at; in all, at most dictHashMax files hashed and
	// hashOnRequestMax bytes read to hash them (1 MiB, what a request for a
	// hashed name may read), the newest first. A file already indexed at
	// its version costs a stat and no read.
	dictListMax = 1024
	dictStatMax = 64
	dictHashMax = 16
)

// dictRecord is where a dictionary is: a file under the root (src 0) or
// under Compression.Dictionaries[src-1], in the version whose bytes hash to
// sum.
type dictRecord struct {
	src  int
	file string
	ver  source.Version
	sum  [sha256.Size]byte
}

func (r *dictRecord) cost() int64 { return dictRecordOverhead + 2*int64(len(r.file)) }

type dictKey struct {
	src  int
	file string
}

// dictIndex is the bounded index: one record per file (its version last
// hashed) and per hash (the file last found to hold it). The zero value is
// ready.
type dictIndex struct {
	mu     sync.Mutex
	max    int64 // the bound by cost; 0 means dictIndexMaxBytes (tests lower it)
	held   int64
	bySum  map[[sha256.Size]byte]*list.Element // of *dictRecord
	byFile map[dictKey]*list.Element
	order  list.List // most recently added or found first
}

func (x *dictIndex) limit() int64 {
	if x.max > 0 {
		return x.max
	}
	return dictIndexMaxBytes
}

// lookup returns the record of the dictionary whose hash is sum.
func (x *dictIndex) lookup(sum *[sha256.Size]byte) (dictRecord, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	el := x.bySum[*sum]
	if el == nil {
		return dictRecord{}, false
	}
	x.order.MoveToFront(el)
	return *el.Value.(*dictRecord), true
}

// has reports whether the index holds file of src at version ver.
func (x *dictIndex) has(src int, file string, ver source.Version) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	el := x.byFile[dictKey{src, file}]
	return el != nil && el.Value.(*dictRecord).ver == ver
}

// add keeps r, in place of the record of its file and of its hash, and
// lets the least recently used go while over the bound.
func (x *dictIndex) add(r dictRecord) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.bySum == nil {
		x.bySum = make(map[[sha256.Size]byte]*list.Element)
		x.byFile = make(map[dictKey]*list.Element)
	}
	if el := x.byFile[dictKey{r.src, r.file}]; el != nil {
		x.remove(el)
	}
	if el := x.bySum[r.sum]; el != nil {
		x.remove(el)
	}
	el := x.order.PushFront(&r)
	x.byFile[dictKey{r.src, r.file}] = el
	x.bySum[r.sum] = el
	x.held += r.cost()
	for x.held > x.limit() {
		x.remove(x.order.Back())
	}
}

// drop forgets r, found not to hold its hash any more.
func (x *dictIndex) drop(r dictRecord) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if el := x.bySum[r.sum]; el != nil && *el.Value.(*dictRecord) == r {
		x.remove(el)
	}
}

func (x *dictIndex) remove(el *list.Element) {
	r := x.order.Remove(el).(*dictRecord)
	delete(x.bySum, r.sum)
	delete(x.byFile, dictKey{r.src, r.file})
	x.held -= r.cost()
}

// size returns the records held and their cost.
func (x *dictIndex) size() (int, int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.order.Len(), x.held
}

// candidate is a file that may be an earlier version of another.
type candidate struct {
	src  int
	file string
	info fs.FileInfo
}

// findEarlier looks, once per entry, for the earlier versions of e's file
// and indexes their hashes, within the bounds above: the names of its
// version pattern beside it (another build's app.HASH.js kept next to this
// one, as deploys keep them), and in each of Compression.Dictionaries the
// file of the same name and those of the pattern. Files larger than
// Compression.MaxSize, not regular, or hidden are no candidates.
func (v *variants) findEarlier(ctx context.Context, e *entry) {
	var cands []candidate
	if e.vary.vend > 0 {
		dir, pre, suf, tail := versionParts(e.File, int(e.vary.vstart), int(e.vary.vend))
		var names []string
		if list, err := v.store.readDir(dir, dictListMax); err == nil {
			names = versionNames(list, pre, suf, tail, dir, e.File)
		}
		for _, n := range names {
			if info, err := v.store.stat(n); err == nil && v.dictCandidate(info) {
				cands = append(cands, candidate{0, n, info})
			}
		}
	}
	for i, fsys := range v.dict.earlier {
		names := []string{e.File}
		if e.vary.vend > 0 {
			dir, pre, suf, tail := versionParts(e.File, int(e.vary.vstart), int(e.vary.vend))
			if list, err := readDirMax(fsys, dir, dictListMax); err == nil {
				names = append(names, versionNames(list, pre, suf, tail, dir, "")...)
			}
		}
		for _, n := range names {
			if info, err := fs.Stat(fsys, n); err == nil && v.dictCandidate(info) {
				cands = append(cands, candidate{i + 1, n, info})
			}
		}
	}
	// The newest first: the release just before this one is the
	// dictionary most browsers hold.
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.info.ModTime().Compare(a.info.ModTime()) })
	budget, hashed := int64(hashOnRequestMax), 0
	for _, c := range cands {
		ver := source.VersionOf(c.info)
		if v.dict.index.has(c.src, c.file, ver) {
			continue
		}
		if hashed == dictHashMax || c.info.Size() > budget || ctx.Err() != nil {
			continue
		}
		hashed++
		budget -= c.info.Size()
		if sum, ver, ok := v.hashCandidate(ctx, c); ok {
			v.dict.index.add(dictRecord{src: c.src, file: c.file, ver: ver, sum: sum})
		}
	}
}

// dictCandidate reports whether a file of info may be a dictionary.
func (v *variants) dictCandidate(info fs.FileInfo) bool {
	return info.Mode().IsRegular() && info.Size() <= v.dict.maxSize
}

// hashCandidate returns the SHA-256 of c's bytes and the version they are
// of: a file of the root through its entry (whose hash may be known), one
// of an earlier release read whole.
func (v *variants) hashCandidate(ctx context.Context, c candidate) (sum [sha256.Size]byte, ver source.Version, ok bool) {
	if c.src == 0 {
		t, err := v.store.lookup(c.file, fdNone)
		if err != nil {
			return sum, ver, false
		}
		defer t.close()
		if t.isDir() {
			return sum, ver, false
		}
		p := v.store.knownHash(t.e)
		if p == nil {
			if p, err = v.store.readHash(ctx, t.e); err != nil {
				return sum, ver, false
			}
		}
		return *p, t.e.Ver, true
	}
	b, ver, err := readEarlier(v.dict.earlier[c.src-1], c.file, v.dict.maxSize)
	if err != nil {
		return sum, ver, false
	}
	return sha256.Sum256(b), ver, true
}

// dictBytes returns the bytes of the dictionary r names, checked against
// its hash: errDictionaryGone when the file no longer holds them.
func (v *variants) dictBytes(r dictRecord) ([]byte, error) {
	var b []byte
	var known *[sha256.Size]byte
	if r.src == 0 {
		t, err := v.store.lookup(r.file, fdNone)
		if err != nil {
			return nil, errDictionaryGone
		}
		defer t.close()
		if t.isDir() || t.e.Ver != r.ver {
			return nil, errDictionaryGone
		}
		if b, err = v.store.readAll(t.e); err != nil {
			return nil, err
		}
		known = t.e.sum.Load()
	} else {
		var ver source.Version
		var err error
		if b, ver, err = readEarlier(v.dict.earlier[r.src-1], r.file, v.dict.maxSize); err != nil || ver != r.ver {
			return nil, errDictionaryGone
		}
	}
	if known == nil {
		sum := sha256.Sum256(b)
		known = &sum
	}
	if *known != r.sum {
		return nil, errDictionaryGone
	}
	return b, nil
}

// readEarlier reads file of fsys, an earlier release, whole if it is a
// regular file of at most max bytes, and returns its version.
func readEarlier(fsys fs.FS, file string, max int64) ([]byte, source.Version, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, source.Version{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, source.Version{}, err
	}
	if !info.Mode().IsRegular() || info.Size() > max {
		return nil, source.Version{}, source.ErrNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, info.Size()+1))
	if err == nil && int64(len(b)) != info.Size() {
		err = errChanged
	}
	return b, source.VersionOf(info), err
}

// readDirMax lists at most max entries of dir in fsys.
func readDirMax(fsys fs.FS, dir string, max int) ([]fs.DirEntry, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, errNotDir
	}
	list, err := rd.ReadDir(max)
	if err == io.EOF {
		err = nil
	}
	return list, err
}

// versionParts splits file, whose version is file[vstart:vend], into the
// directory holding the versioned element ("." for the root), the
// element's fixed prefix and suffix, and what follows the element ("" or
// "/rest").
func versionParts(file string, vstart, vend int) (dir, pre, suf, tail string) {
	segStart := strings.LastIndexByte(file[:vstart], '/') + 1
	segEnd := len(file)
	if i := strings.IndexByte(file[vend:], '/'); i >= 0 {
		segEnd = vend + i
	}
	dir = "."
	if segStart > 0 {
		dir = file[:segStart-1]
	}
	return dir, file[segStart:vstart], file[vend:segEnd], file[segEnd:]
}

// versionNames are the names, among the entries of dir, of the version
// pattern pre*suf (followed by tail), other than self, at most dictStatMax:
// files when tail is "", directories otherwise. Hidden names are left out.
func versionNames(list []fs.DirEntry, pre, suf, tail, dir, self string) []string {
	var names []string
	for _, d := range list {
		n := d.Name()
		if len(names) == dictStatMax {
			break
		}
		if n == "" || n[0] == '.' || len(n) <= len(pre)+len(suf) || !strings.HasPrefix(n, pre) ||
			!strings.HasSuffix(n, suf) || (tail != "") != d.IsDir() {
			continue
		}
		name := path.Join(dir, n) + tail
		if name != self {
			names = append(names, name)
		}
	}
	return names
}
