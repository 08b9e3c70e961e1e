package jaws

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync/atomic"
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
	if closeAfter {
		return closingConnection(r, hdr, keepAlivesEnabled, c)
	}
	c.keepAlive = true
	return c
}

// closingConnection is c for a response after which net/http closes the
// connection: it drops the handler's Connection header and says "close",
// unless keep-alives are on and the handler said "close" itself.
func closingConnection(r *http.Request, hdr http.Header, keepAlivesEnabled bool, c connection) connection {
	c.keepAlive = false
	if !keepAlivesEnabled || !httprule.HasToken(first(hdr, "Connection"), "close") {
		c.drop = true
		if r.ProtoAtLeast(1, 1) {
			c.add = "close"
		}
	}
	return c
}

// responseHead is the status line and header block as net/http would write
// them for these headers, for a response with a Content-Length.
func responseHead(r *http.Request, status int, hdr http.Header, conn connection) []byte {
	return appendHead(make([]byte, 0, 512), r, status, hdr, conn, -1, "")
}

// appendHead appends to dst the status line and header block net/http
// writes for a response to r (writeStatusLine, chunkWriter.writeHeader):
// hdr's fields, less those conn drops and those the status forbids, then
// Date when hdr has none, Content-Length when clen is not -1 (net/http's own,
// for a handler that finished with its body buffered), Content-Type when
// ctype is not "" (sniffed), and conn's Connection. Field order is the
// map's. Like Header.WriteSubset it skips names that are not tokens and
// writes CR and LF in values as spaces, trimmed.
func appendHead(dst []byte, r *http.Request, status int, hdr http.Header, conn connection, clen int64, ctype string) []byte {
	if r.ProtoAtLeast(1, 1) {
		dst = append(dst, "HTTP/1.1 "...)
	} else {
		dst = append(dst, "HTTP/1.0 "...)
	}
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, ' ')
	if text := http.StatusText(status); text != "" {
		dst = append(dst, text...)
	} else {
		dst = append(dst, "status code "...)
		dst = strconv.AppendInt(dst, int64(status), 10)
	}
	dst = append(dst, "\r\n"...)
	for k, vv := range hdr {
		if conn.drop && k == "Connection" || suppressed(status, k) || !isToken(k) {
			continue
		}
		for _, v := range vv {
			dst = append(dst, k...)
			dst = append(dst, ": "...)
			dst = appendFieldValue(dst, v)
			dst = append(dst, "\r\n"...)
		}
	}
	if _, ok := hdr["Date"]; !ok {
		dst = append(dst, "Date: "...)
		dst = appendDate(dst)
		dst = append(dst, "\r\n"...)
	}
	if clen >= 0 {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, clen, 10)
		dst = append(dst, "\r\n"...)
	}
	if ctype != "" {
		dst = append(dst, "Content-Type: "...)
		dst = append(dst, ctype...)
		dst = append(dst, "\r\n"...)
	}
	if conn.add != "" {
		dst = append(dst, "Connection: "...)
		dst = append(dst, conn.add...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// suppressed reports whether net/http leaves the field key out of a
// response with status, which has no body (suppressedHeaders).
func suppressed(status int, key string) bool {
	switch {
	case status == http.StatusNotModified:
		return key == "Content-Type" || key == "Content-Length" || key == "Transfer-Encoding"
	case status == http.StatusNoContent || status >= 100 && status < 200:
		return key == "Content-Length" || key == "Transfer-Encoding"
	}
	return false
}

// bodyAllowed is net/http's bodyAllowedForStatus.
func bodyAllowed(status int) bool {
	return !(status >= 100 && status < 200 || status == http.StatusNoContent || status == http.StatusNotModified)
}

// isToken reports whether s is a non-empty token (a valid field name).
func isToken(s string) bool {
	for i := range len(s) {
		if !httprule.IsTchar(s[i]) {
			return false
		}
	}
	return s != ""
}

// appendFieldValue appends v as net/http writes a field value: CR and LF
// as spaces, then leading and trailing white space trimmed.
func appendFieldValue(dst []byte, v string) []byte {
	v = textproto.TrimString(v)
	if strings.ContainsAny(v, "\r\n") {
		start := len(dst)
		dst = append(dst, v...)
		for k := start; k < len(dst); k++ {
			if dst[k] == '\r' || dst[k] == '\n' {
				dst[k] = ' '
			}
		}
		return dst
	}
	return append(dst, v...)
}

// dateStamp is the Date value of one second; appendDate formats it once a
// second rather than once a response.
type dateStamp struct {
	sec int64
	b   []byte
}

var dateNow atomic.Pointer[dateStamp]

// appendDate appends the current time as net/http writes Date.
func appendDate(dst []byte) []byte {
	now := time.Now()
	d := dateNow.Load()
	if d == nil || d.sec != now.Unix() {
		d = &dateStamp{sec: now.Unix(), b: now.UTC().AppendFormat(make([]byte, 0, 29), http.TimeFormat)}
		dateNow.Store(d)
	}
	return append(dst, d.b...)
}

// idleTimeout is net/http's Server.idleTimeout.
func idleTimeout(srv *http.Server) time.Duration {
	if srv.IdleTimeout != 0 {
		return srv.IdleTimeout
	}
	return srv.ReadTimeout
}
