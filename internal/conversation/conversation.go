// Package conversation plays scripted HTTP/1.x conversations over raw TCP
// and writes down what the server did, for differential tests: the same
// script against net/http's own file server and against jaws must give the
// same record.
//
// A record is a list of events, one per line: each response (status line,
// the headers that decide framing and the connection, and a digest of the
// body), what became of a read (EOF, reset, timeout), and whether the
// server kept the connection open or closed it within a step's window.
// Times appear only as the windows the script chose, so records compare
// with ==.
package conversation

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Step is one move of the client, or of the test, in a conversation. Its
// fields act in the order they are declared; zero fields do nothing.
type Step struct {
	Pause time.Duration // the client waits this long first
	Do    func() string // a move of the test (a Shutdown, say); a non-empty result is an event
	Send  string        // bytes the client writes

	HalfClose bool // the client closes its side (CloseWrite)

	Read int // responses the client reads, each to the end of its body

	// Drain reads responses until the server closes the connection, waiting
	// at most this long for each.
	Drain time.Duration

	// SlowBody reads the next response's body at about 4 MiB/s, for at
	// most this long: the event says whether it ended whole, was cut, or
	// was still arriving.
	SlowBody time.Duration

	Open   time.Duration // the server must keep the connection open this long: "open" or how it ended
	Closed time.Duration // the server must close the connection within this: "closed" or "still open"
}

// readLimit bounds every read that is not a step's own window: long enough
// for a loaded machine, short enough for a failing test to end.
const readLimit = 10 * time.Second

// Run plays steps against the server at addr and returns the record.
func Run(addr string, steps []Step) []string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return []string{"dial: " + err.Error()}
	}
	defer c.Close()
	r := &run{c: c, br: bufio.NewReader(c)}
	for _, s := range steps {
		r.step(s)
	}
	return r.events
}

type run struct {
	c      net.Conn
	br     *bufio.Reader
	events []string
	sent   []string // methods of the requests sent and not yet answered
}

func (r *run) add(format string, args ...any) {
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *run) step(s Step) {
	if s.Pause > 0 {
		time.Sleep(s.Pause)
	}
	if s.Do != nil {
		if e := s.Do(); e != "" {
			r.add("%s", e)
		}
	}
	if s.Send != "" {
		r.sent = append(r.sent, Methods(s.Send)...)
		r.c.SetWriteDeadline(time.Now().Add(readLimit))
		if _, err := io.WriteString(r.c, s.Send); err != nil {
			r.add("send: %s", ending(err))
		}
	}
	if s.HalfClose {
		if cw, ok := r.c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}
	for range s.Read {
		r.response(readLimit, 0)
	}
	if s.Drain > 0 {
		for {
			if e := r.peek(s.Drain); e != "data" {
				r.add("then %s", e)
				break
			}
			if !r.response(s.Drain, 0) {
				break
			}
		}
	}
	if s.SlowBody > 0 {
		r.response(readLimit, s.SlowBody)
	}
	if s.Open > 0 {
		if e := r.peek(s.Open); e == "timeout" {
			r.add("open for %v", s.Open)
		} else {
			r.add("closed within %v (%s)", s.Open, e)
		}
	}
	if s.Closed > 0 {
		if e := r.peek(s.Closed); e == "timeout" {
			r.add("still open after %v", s.Closed)
		} else {
			r.add("closed within %v (%s)", s.Closed, e)
		}
	}
}

// peek waits up to d for the server to send or close, and names what
// happened: "timeout", "data", "EOF" or "reset".
func (r *run) peek(d time.Duration) string {
	r.c.SetReadDeadline(time.Now().Add(d))
	_, err := r.br.Peek(1)
	if err == nil {
		return "data"
	}
	return ending(err)
}

// response reads one response, within limit, and records it; slow > 0
// reads its body slowly for at most that long. It reports whether the
// connection can go on.
func (r *run) response(limit, slow time.Duration) bool {
	method := "GET"
	if len(r.sent) > 0 {
		method, r.sent = r.sent[0], r.sent[1:]
	}
	r.c.SetReadDeadline(time.Now().Add(limit))
	resp, err := http.ReadResponse(r.br, &http.Request{Method: method})
	if err != nil {
		r.add("no response: %s", ending(err))
		return false
	}
	head := describe(resp)
	if slow > 0 {
		r.add("%s", head)
		r.add("body: %s", slowRead(r.c, resp.Body, slow))
		return false
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.add("%s | body cut after %d bytes: %s", head, len(body), ending(err))
		return false
	}
	// A multipart boundary is random: the same parts compare equal.
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && params["boundary"] != "" {
		body = bytes.ReplaceAll(body, []byte(params["boundary"]), []byte("BOUNDARY"))
	}
	sum := sha256.Sum256(body)
	r.add("%s | body %d bytes %x", head, len(body), sum[:6])
	return true
}

// slowRead reads body at about 4 MiB/s for at most limit.
func slowRead(c net.Conn, body io.Reader, limit time.Duration) string {
	buf := make([]byte, 64<<10)
	end := time.Now().Add(limit)
	c.SetReadDeadline(end)
	for {
		_, err := body.Read(buf)
		switch {
		case err == io.EOF:
			return "whole"
		case err != nil && ending(err) == "timeout":
			return "still arriving"
		case err != nil:
			return "cut"
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// headers are the response headers a record keeps: those that decide
// framing and the connection, and the tests' own X- headers.
var headers = []string{"Connection", "Content-Length", "Content-Range", "Transfer-Encoding"}

func describe(resp *http.Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d", resp.Proto, resp.StatusCode)
	keys := append([]string(nil), headers...)
	for k := range resp.Header {
		if strings.HasPrefix(k, "X-") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys[len(headers):])
	for _, k := range keys {
		v, ok := resp.Header[k]
		if k == "Transfer-Encoding" {
			v, ok = resp.TransferEncoding, resp.TransferEncoding != nil
		}
		if ok {
			fmt.Fprintf(&b, " | %s: %s", k, strings.Join(v, ", "))
		}
	}
	return b.String()
}

// ending names how a read or write ended.
func ending(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "EOF"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "reset"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "error: " + err.Error()
}

// Methods returns the methods of the requests in raw, as far as they parse
// as net/http's server parses them: what tells a reader of the responses
// which of them answer a HEAD, and so have no body.
func Methods(raw string) []string {
	var ms []string
	br := bufio.NewReader(strings.NewReader(raw))
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return ms
		}
		ms = append(ms, req.Method)
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return ms
		}
	}
}
