package jaws

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"sync"
)

// fileMeta is what a file's bytes determine and is costly to work out per
// request: the strong ETag (a hash of the content) and the sniffed type.
type fileMeta struct {
	info  fs.FileInfo // the file these were computed for
	etag  string
	ctype string
}

// matches reports whether m still describes the file info was read from:
// same file (device and inode, or volume and index), size and mtime.
func (m *fileMeta) matches(info fs.FileInfo) bool {
	return os.SameFile(m.info, info) && m.info.Size() == info.Size() && m.info.ModTime().Equal(info.ModTime())
}

// metaCache keeps fileMeta per name, so a file is hashed once per version.
type metaCache struct {
	mu sync.Mutex
	m  map[string]*fileMeta
}

// metaCacheMax bounds the entries; past it the map starts over, which costs
// one hash per file again and keeps memory bounded without bookkeeping.
const metaCacheMax = 4096

// get returns the metadata of the open file f, named name, with info from
// f.Stat, computing it if the file is new or changed.
func (c *metaCache) get(name string, f *os.File, info fs.FileInfo) (*fileMeta, error) {
	c.mu.Lock()
	m := c.m[name]
	c.mu.Unlock()
	if m != nil && m.matches(info) {
		return m, nil
	}
	etag, err := contentETag(f, info.Size())
	if err != nil {
		return nil, err
	}
	ctype, err := contentType(name, f)
	if err != nil {
		return nil, err
	}
	m = &fileMeta{info: info, etag: etag, ctype: ctype}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= metaCacheMax {
		c.m = make(map[string]*fileMeta)
	}
	c.m[name] = m
	c.mu.Unlock()
	return m, nil
}

// contentType is the type by extension, else sniffed from the first 512
// bytes, as http.ServeContent decides it.
func contentType(name string, f *os.File) (string, error) {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t, nil
	}
	var buf [512]byte
	n, err := f.ReadAt(buf[:], 0)
	if n == 0 && err != nil && err != io.EOF {
		return "", err
	}
	return http.DetectContentType(buf[:n]), nil
}
