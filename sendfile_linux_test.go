package jaws

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	waitTransfers(t, h, 10*time.Second) // the hook sees the last call after its bytes may have been read
	if moved := sendfileBytes.Load() - before; moved < size {
		t.Errorf("sendfile moved %d bytes of a %d-byte body", moved, size)
	}
}

// sendErrOnce makes the first call of each kind fail with err, through
// testHookSendErr, until the test and its transfers are done. Tests that use
// it are not parallel: the hook is the package's.
func sendErrOnce(t *testing.T, h *Handler, err error, calls ...string) (failed func() []string) {
	var mu sync.Mutex
	done := map[string]bool{}
	testHookSendErr = func(call string) error {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(calls, call) || done[call] {
			return nil
		}
		done[call] = true
		return err
	}
	t.Cleanup(func() {
		waitTransfers(t, h, 10*time.Second) // the hook's last reader is done
		testHookSendErr = nil
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		var names []string
		for _, c := range calls {
			if done[c] {
				names = append(names, c)
			}
		}
		return names
	}
}

// readWithin reads one response of c within limit and checks its body.
func readWithin(t *testing.T, c *rawConn, limit time.Duration, want []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("no response within %v: %v", limit, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(body, want) {
		t.Fatalf("%d bytes of the body within %v: %v", len(body), limit, err)
	}
}

// TestSendfileRetriesEINTR: a send interrupted by a signal before it sent
// anything is made again at once, as internal/poll does. Waiting for
// writability instead waits for an event that never comes on a connection
// with an empty send buffer, and the transfer fails at SendTimeout.
func TestSendfileRetriesEINTR(t *testing.T) {
	_, h, files := zcSite(t, Options{SendTimeout: 2 * time.Second}, 70000)
	srv := httptest.NewServer(h)
	defer srv.Close()
	failed := sendErrOnce(t, h, unix.EINTR, "sendmsg", "sendfile")
	c := dialRaw(t, srv)
	c.send(t, get11("/70000.bin"))
	readWithin(t, c, time.Second, files["70000.bin"]) // well before SendTimeout
	if f := failed(); len(f) != 2 {
		t.Errorf("interrupted %v, want both calls", f)
	}
}

// TestSendfileUnsupportedFile: a file sendfile cannot read (EINVAL, as
// internal/poll hears it) is sent by plain writes after its header, whole,
// and counted.
func TestSendfileUnsupportedFile(t *testing.T) {
	_, h, files := zcSite(t, Options{}, 70000)
	srv := httptest.NewServer(h)
	defer srv.Close()
	failed := sendErrOnce(t, h, unix.EINVAL, "sendfile")
	c := dialRaw(t, srv)
	for range 2 { // the second one by sendfile again
		c.send(t, get11("/70000.bin", "Range: bytes=0-99,60000-\r\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, body := c.read(t, "GET")
		checkMultipart(t, resp, body, files["70000.bin"], []span{{0, 100}, {60000, 10000}})
	}
	c.send(t, get11("/70000.bin"))
	readWithin(t, c, 10*time.Second, files["70000.bin"])
	if f := failed(); len(f) != 1 {
		t.Errorf("failed %v, want sendfile", f)
	}
	waitTransfers(t, h, 10*time.Second)
	if s := h.Stats().ZeroCopy; s.Responses != 3 || s.Bytes < 2*10100+70000 {
		t.Errorf("zero-copy stats %+v", s)
	}
}
