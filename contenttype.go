package jaws

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/webtypes"
)

// contentType is the type of the file name whose first bytes are head: by
// its extension, in any case, from types (Options.ContentTypes), then from
// the web's table, which is the same on every host, then from the host's
// tables; else sniffed, as http.ServeContent does.
func contentType(name string, head []byte, types map[string]string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := types[ext]; ok {
		return t
	}
	if t := webtypes.ByExtension(ext); t != "" {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// parseContentTypes checks Options.ContentTypes and returns a copy keyed by
// lower-case extension, so that later changes to the caller's map do not
// reach the handler; nil for none.
func parseContentTypes(m map[string]string) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	types := make(map[string]string, len(m))
	for ext, typ := range m {
		if !isExtension(ext) {
			return nil, fmt.Errorf("jaws: ContentTypes key %q is not an extension such as \".webm\"", ext)
		}
		if err := checkContentType(typ); err != nil {
			return nil, fmt.Errorf("jaws: ContentTypes[%q] = %q: %v", ext, typ, err)
		}
		low := strings.ToLower(ext)
		if prev, ok := types[low]; ok && prev != typ {
			return nil, fmt.Errorf("jaws: ContentTypes has %q twice, as %q and %q", low, prev, typ)
		}
		types[low] = typ
	}
	return types, nil
}

// isExtension reports whether ext is what path.Ext can return for a name
// that has an extension: a dot, then at least one byte, no dot or slash.
func isExtension(ext string) bool {
	return len(ext) > 1 && ext[0] == '.' && !strings.ContainsAny(ext[1:], "./")
}

// checkContentType reports why typ is not a Content-Type value: not a
// media type with a subtype (RFC 9110 §8.3.1), or a control byte, which
// must not reach a header.
func checkContentType(typ string) error {
	if !validFieldValue(typ) {
		return errors.New("a control character")
	}
	mt, _, err := mime.ParseMediaType(typ)
	if err != nil {
		return err
	}
	if !strings.Contains(mt, "/") {
		return errors.New("no subtype")
	}
	return nil
}
