package jaws

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// HashName returns name with a hash of the file's current content inserted
// before its extension, in the same directory: "js/app.js" becomes
// "js/app.0123456789abcdef.js", "LICENSE" becomes "LICENSE.0123456789abcdef".
// It is for templates that link to assets:
//
//	<script src="/static/{{asset "js/app.js"}}"></script>
//
// A request for the hashed name serves the file, as long as the hash is
// that of its current bytes, with "Cache-Control: public, max-age=31536000,
// immutable" (unless an outer handler set a Cache-Control): the name
// changes whenever the content does, so caches may keep it for a year.
// middleware.Fingerprinted recognises such names, but for the rare hash
// made of digits only (see its documentation); jaws sets the policy
// itself either way. A request with another
// hash, an old page asking after a deploy, gets 404: a redirect would hand
// it bytes other than the ones its name promises, under a name that may be
// cached as immutable; a 404 fails visibly and is cached by no one for long.
// A file whose own name has that shape (a bundler's output) is served as
// the file it is, unless the file without the hash exists and has that
// hash: then the name means those bytes.
//
// name is slash-separated and relative to the root, with or without a
// leading slash. Missing names, directories, hidden names (unless
// ServeDotFiles), special files and names that are not canonical or would
// leave the root are errors.
//
// What a hash costs. The hash of a file served from memory
// (CacheMaxFileSize), or with a digest sibling, is known already and costs
// no read. Any other file up to 1 MiB is read once per version while its
// cache entry is kept, here or by the first request for one of its hashed
// names, and again when the entry is built anew. A larger file is never
// read by a request: no request for a hashed name reads more than 1 MiB of
// the file to find out whether the hash is its content's. HashName reads
// such a file whole, once per version, and keeps its hash in a table of its
// own, past the file's cache entry, for up to about 1800 files by 1 MiB of
// accounting (least recently used first out); a second HashName of the same
// version reads nothing. A request for a hashed name of a file larger than
// 1 MiB whose hash is not known (HashName was not called for this version,
// or it was and the table let it go while the cache let its entry go) gets
// 404, as a wrong hash does, until HashName is called again, and reads
// nothing but the 512 bytes of sniffing when the entry is built. Give large
// files a digest sibling ("video.mp4.sha256", sha256sum's output; see the
// package documentation): their hash is then known whenever their entry is
// built, and neither HashName nor any request reads them. A file shipped
// compressed only has a hash only when it decodes to 64 KiB or less: for a
// larger one HashName is an error.
func (h *Handler) HashName(name string) (string, error) {
	e, err := h.hashTarget(name)
	if err != nil {
		return "", &fs.PathError{Op: "hashname", Path: name, Err: err}
	}
	sum, err := h.store.hash(e)
	if err != nil {
		return "", &fs.PathError{Op: "hashname", Path: name, Err: err}
	}
	file := e.File
	if o := e.vary.only; o != nil {
		file = o.name // a compressed-only file: its name, not its sibling's
	}
	return hashedName(file, sum), nil
}

// hashTarget resolves the file HashName is asked about.
func (h *Handler) hashTarget(name string) (*entry, error) {
	clean, ok := cleanName(name, h.opts.ServeDotFiles)
	if !ok || clean == "." || strings.HasSuffix(name, "/") {
		return nil, fs.ErrInvalid
	}
	t, err := h.lookup(clean, fdNone, false)
	if err != nil {
		if errorStatus(err) == http.StatusNotFound {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	defer t.close()
	if t.isDir() {
		return nil, errIsDir
	}
	return t.e, nil
}

var errIsDir = errors.New("is a directory")

// hashedCandidate is one way to read a name as hashedName's output.
type hashedCandidate struct{ orig, hash string }

// splitHashedName undoes hashedName. A name can read two ways
// ("x.<hash>.<hex>" is x.<hex> hashed, or x.<hash> with the extension
// <hex>... hashed), so it returns up to two candidates, the usual one first.
func splitHashedName(name string) []hashedCandidate {
	dir, base := path.Split(name)
	var cs []hashedCandidate
	ext := path.Ext(base)
	rest := base[:len(base)-len(ext)]
	if h := path.Ext(rest); len(h) > 1 && len(rest) > len(h) && isLowerHex(h[1:]) {
		cs = append(cs, hashedCandidate{dir + rest[:len(rest)-len(h)] + ext, h[1:]}) // app.<hash>.js
	}
	if len(ext) > 1 && len(base) > len(ext) && isLowerHex(ext[1:]) {
		cs = append(cs, hashedCandidate{dir + rest, ext[1:]}) // LICENSE.<hash>
	}
	return cs
}

func isLowerHex(s string) bool {
	if len(s) != hashLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// resolveHashed resolves a hashed name (see HashName): the target of the
// file without the hash, and that file's name, if the hash is its
// content's. Names of another shape cost a look at their last two
// extensions. Whether the hash is the content's costs the request at most
// hashOnRequestMax bytes of reading, for both readings of the name together
// (store.requestHash); ctx is the request's, whose end stops that read.
func (h *Handler) resolveHashed(ctx context.Context, name string, need fdNeed) (target, string, bool) {
	budget := int64(hashOnRequestMax) // for both candidates
	for _, c := range splitHashedName(name) {
		t, err := h.store.lookup(c.orig, need)
		if err != nil {
			continue
		}
		if !t.isDir() {
			if sum, ok := h.store.requestHash(ctx, t.e, &budget); ok {
				var digits [hashLen]byte
				hex.Encode(digits[:], sum[:hashLen/2])
				if string(digits[:]) == c.hash {
					return t, c.orig, true
				}
			}
		}
		t.close()
	}
	return target{}, "", false
}

// hdrImmutable is the Cache-Control of a hashed name, the value
// middleware.CacheImmutable names too.
var hdrImmutable = []string{httprule.Immutable}
