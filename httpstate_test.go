package jaws

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHTTPStateFound: jaws finds the private state of net/http it reads
// (httpstate.go), and reads it right. Should a Go release move it, the
// zero-copy path turns itself off, and this test says why.
func TestHTTPStateFound(t *testing.T) {
	t.Parallel()
	if !serverFlags.ok {
		t.Fatal("http.Server's disableKeepAlives and inShutdown not found: no zero-copy path")
	}
	var srv http.Server
	check := func(when string, want bool) {
		t.Helper()
		if on, known := keepAlivesEnabled(&srv); !known || on != want {
			t.Errorf("%s: keep-alives enabled %v (known %v), want %v", when, on, known, want)
		}
	}
	check("new server", true)
	srv.SetKeepAlivesEnabled(false)
	check("SetKeepAlivesEnabled(false)", false)
	srv.SetKeepAlivesEnabled(true)
	check("SetKeepAlivesEnabled(true)", true)
	srv.Close()
	check("after Close", false)

	var server, before, after, beforeKnown, afterKnown bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server = isServerWriter(w)
		before, beforeKnown = headerWritten(w)
		w.WriteHeader(http.StatusNoContent)
		after, afterKnown = headerWritten(w)
	}))
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL)
	must(t, err)
	resp.Body.Close()
	if !server {
		t.Error("net/http's own ResponseWriter not recognised")
	}
	if !beforeKnown || !afterKnown || before || !after {
		t.Errorf("header written before WriteHeader %v (known %v), after %v (known %v)", before, beforeKnown, after, afterKnown)
	}
}
