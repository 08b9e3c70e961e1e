package jaws

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestSendfileRetriesEINTR: a send interrupted by a signal before it sent
// anything is made again at once, as internal/poll does. Waiting for
// writability instead waits for an event that never comes on a connection
// with an empty send buffer, and the transfer fails at SendTimeout. Not
// parallel: it sets the package's hook.
func TestSendfileRetriesEINTR(t *testing.T) {
	_, h, files := zcSite(t, Options{SendTimeout: 2 * time.Second}, 70000)
	srv := httptest.NewServer(h)
	defer srv.Close()
	var mu sync.Mutex
	interrupted := map[string]bool{}
	testHookInterrupt = func(call string) bool {
		mu.Lock()
		defer mu.Unlock()
		first := !interrupted[call]
		interrupted[call] = true
		return first
	}
	defer func() {
		waitTransfers(t, h, 10*time.Second) // the hook's last reader is done
		testHookInterrupt = nil
	}()
	c := dialRaw(t, srv)
	c.send(t, get11("/70000.bin"))
	c.SetReadDeadline(time.Now().Add(time.Second)) // well before SendTimeout
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("no response within a second: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(body, files["70000.bin"]) {
		t.Fatalf("%d bytes of the body within a second: %v", len(body), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !interrupted["sendmsg"] || !interrupted["sendfile"] {
		t.Errorf("interrupted %v, want both calls", interrupted)
	}
}
