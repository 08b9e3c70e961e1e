package jaws

import (
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// sendfileBytes counts the bytes every sendfile call of the package moved.
var sendfileBytes atomic.Int64

func init() {
	testHookSendfile = func(n int, err error) {
		if n > 0 {
			sendfileBytes.Add(int64(n))
		}
	}
}

// TestSendfileCarriesBody: the body of a zero-copy response is moved by
// sendfile, not by writes (the hook sees at least its bytes).
func TestSendfileCarriesBody(t *testing.T) {
	t.Parallel()
	const size = 3<<20 + 5
	_, h, files := zcSite(t, Options{}, size)
	srv := httptest.NewServer(h)
	defer srv.Close()
	before := sendfileBytes.Load()
	c := dialRaw(t, srv)
	c.send(t, get11("/3145733.bin"))
	if _, body := c.read(t, "GET"); len(body) != len(files["3145733.bin"]) {
		t.Fatalf("%d bytes", len(body))
	}
	if moved := sendfileBytes.Load() - before; moved < size {
		t.Errorf("sendfile moved %d bytes of a %d-byte body", moved, size)
	}
}
