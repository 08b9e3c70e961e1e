package jaws

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/jaws-go/jaws/internal/httprule"
)

// net/http's rules for a connection around one response, copied step by
// step so that a zero-copy response and what follows it are what net/http
// would do: whether the connection stays open, the Connection header it
// sends, the status line and header block, and the idle timeout between two
// requests. httpstate.go reads the state these rules are applied to.

// wantsClose is net/http's Request.wantsClose: any "close" token in the
// first Connection value, by httprule.HasToken, which also finds it in
// "keep-alive close" or after a tab, unlike r.Close.
func wantsClose(r *http.Request) bool {
	return r.Close || httprule.HasToken(first(r.Header, "Connection"), "close")
}

// wantsHTTP10KeepAlive is net/http's Request.wantsHttp10KeepAlive.
func wantsHTTP10KeepAlive(r *http.Request) bool {
	return r.ProtoMajor == 1 && r.ProtoMinor == 0 && httprule.HasToken(first(r.Header, "Connection"), "keep-alive")
}

// connection is what net/http does about the connection for a response:
// whether it keeps it open, whether it drops the handler's Connection
// header, and the one it adds ("" for none).
type connection struct {
	keepAlive bool
	drop      bool
	add       string
}

// replyConnection is net/http's decision for a response to r with header
// hdr, a Content-Length and a body, on a server whose keep-alives are
// enabled or not (doKeepAlives): chunkWriter.writeHeader's closeAfterReply
// and Connection header, step by step, quirks and all (an HTTP/1.0 client
// asking for keep-alive keeps it even with a "close" token; a handler's
// "Connection: close" counts only as the whole first value).
func replyConnection(r *http.Request, hdr http.Header, keepAlivesEnabled bool) connection {
	var c connection
	closeAfter := false
	if wantsHTTP10KeepAlive(r) {
		if _, set := hdr["Connection"]; !set {
			c.add = "keep-alive"
		}
	} else if !r.ProtoAtLeast(1, 1) || wantsClose(r) {
		closeAfter = true
	}
	if first(hdr, "Connection") == "close" || !keepAlivesEnabled {
		closeAfter = true
	}
	if closeAfter && (!keepAlivesEnabled || !httprule.HasToken(first(hdr, "Connection"), "close")) {
		c.drop = true
		if r.ProtoAtLeast(1, 1) {
			c.add = "close"
		}
	}
	c.keepAlive = !closeAfter
	return c
}

// responseHead is the status line and header block as net/http would write
// them for these headers (writeStatusLine and chunkWriter.writeHeader).
func responseHead(r *http.Request, status int, hdr http.Header, conn connection) []byte {
	var b bytes.Buffer
	b.Grow(512)
	if r.ProtoAtLeast(1, 1) {
		b.WriteString("HTTP/1.1 ")
	} else {
		b.WriteString("HTTP/1.0 ")
	}
	b.WriteString(strconv.Itoa(status))
	b.WriteByte(' ')
	b.WriteString(http.StatusText(status))
	b.WriteString("\r\n")
	exclude := map[string]bool(nil)
	if conn.drop {
		exclude = excludeConnection
	}
	hdr.WriteSubset(&b, exclude)
	if _, ok := hdr["Date"]; !ok {
		b.WriteString("Date: ")
		b.WriteString(time.Now().UTC().Format(http.TimeFormat))
		b.WriteString("\r\n")
	}
	if conn.add != "" {
		b.WriteString("Connection: ")
		b.WriteString(conn.add)
		b.WriteString("\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

var excludeConnection = map[string]bool{"Connection": true}

// idleTimeout is net/http's Server.idleTimeout.
func idleTimeout(srv *http.Server) time.Duration {
	if srv.IdleTimeout != 0 {
		return srv.IdleTimeout
	}
	return srv.ReadTimeout
}
