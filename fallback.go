package jaws

import (
	"errors"
	"io"
	"net/http"
	"os"
)

// sendFallback is the portable path: it works through any ResponseWriter
// (TLS, HTTP/2, wrappers, recorders) and returns the body bytes written.
func sendFallback(w http.ResponseWriter, r *http.Request, f *os.File, resp *response) int64 {
	w.WriteHeader(resp.status)
	if r.Method == http.MethodHead {
		return 0
	}
	n, err := copyBody(w, f, resp)
	if errors.Is(err, errShortFile) {
		// The file shrank after its size was announced. Padding would send
		// bytes that are not the file's; abort so the client sees a
		// truncated response instead of a wrong one.
		panic(http.ErrAbortHandler)
	}
	return n
}

var errShortFile = errors.New("jaws: file shorter than its announced size")

// copyBody writes the planned body from f to w. It does not move data itself:
// io.CopyN hands an io.LimitedReader over an *os.File to the writer's
// ReadFrom, where net/http uses sendfile on plain TCP connections.
func copyBody(w io.Writer, f *os.File, resp *response) (int64, error) {
	var written int64
	for i, s := range resp.spans {
		if resp.mp != nil {
			n, err := w.Write(resp.mp.heads[i])
			written += int64(n)
			if err != nil {
				return written, err
			}
		}
		if _, err := f.Seek(s.off, io.SeekStart); err != nil {
			return written, err
		}
		n, err := io.CopyN(w, f, s.n)
		written += n
		if err == io.EOF {
			return written, errShortFile
		}
		if err != nil {
			return written, err
		}
	}
	if resp.mp != nil {
		n, err := w.Write(resp.mp.tail)
		written += int64(n)
		return written, err
	}
	return written, nil
}
