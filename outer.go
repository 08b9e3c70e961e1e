package jaws

import (
	"net/http"
	"reflect"

	"github.com/jaws-go/jaws/internal/httprule"
)

// A compressor in front of jaws either says so before jaws runs or decides
// when the body is written. What the common ones leave before calling the
// handler inside them, when the client accepts their coding (and when it
// does not), and what they do with a Content-Encoding that handler sets:
//
//	compressor                 left before the handler runs            a handler's Content-Encoding
//	gorilla CompressHandler    Vary, Content-Encoding, Accept-Encoding  none can be set: its own is
//	                           deleted, an httpsnoop writer (Vary)
//	gin-contrib/gzip           Content-Encoding, Vary, its writer       none can be set: its own is
//	                           (nothing)
//	chi middleware.Compress    its writer, with Unwrap (the same)       passed through
//	klauspost gzhttp           Vary, its writer, with Unwrap (Vary, a   passed through
//	                           writer that encodes nothing)
//	NYTimes gziphandler        Vary, its writer, no Unwrap (Vary)       passed through
//	echo middleware.Gzip       Vary, its writer, with Unwrap; Accept-   replaced by "gzip" at the first
//	                           Encoding kept (Vary)                     Write, and the body gzipped
//
// A Content-Encoding set before jaws runs is taken at its word: serveName's
// outerEncoded, jaws writing the file as it is through the compressor. The
// rest is outerNegotiates: echo's Gzip is the one that needs it.

// outerNegotiates reports whether something in front of jaws, having set no
// Content-Encoding, may yet encode the body jaws writes through w, so that
// jaws must write the file as it is: no coding of its own, from a sibling,
// compressed, or against a dictionary.
//
// The sign is the one every compressor that negotiates before its handler
// runs leaves, "Vary: Accept-Encoding" already in the header, on a writer
// that is not the server's own (a wrapper, which may encode). Each
// compressor known to pass an encoded body through untouched (gzhttp,
// gziphandler), found on the way from w to the server's writer by Unwrap,
// accounts for one such Vary element; any element left over is a
// negotiator jaws does not know, which may encode over jaws's coding as
// echo's Gzip does, and jaws then serves identity. A plain stack (a router,
// a logger, otelhttp, promhttp) sets no Vary and keeps jaws's coding; so
// does net/http's own writer, unwrapped, whatever Vary says, since nothing
// can encode beneath it.
//
// False positives, where nothing in front would have encoded: a wrapper in
// front and an application that sets "Vary: Accept-Encoding" itself, or a
// known compressor behind a wrapper without Unwrap. The file then goes out
// as it is (compressed by the compressor, if there is one): correct bytes
// over compression.
func outerNegotiates(w http.ResponseWriter) bool {
	n := httprule.ListCount(w.Header()["Vary"], "Accept-Encoding")
	if n == 0 {
		return false
	}
	if w = baseWriter(w); serversOwn(w) {
		return false // nothing in front wraps the writer: the Vary is the application's
	}
	for range maxUnwrap {
		if passesEncoded(w) {
			n--
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		if w = u.Unwrap(); w == nil || serversOwn(w) {
			break
		}
	}
	return n > 0
}

// maxUnwrap bounds the walk down a chain of writers' Unwrap, against a
// chain that loops.
const maxUnwrap = 32

// passThrough names the writer types of compressors that add one "Vary:
// Accept-Encoding" before their handler runs and leave a body that their
// handler encoded untouched: its Content-Encoding is seen when the body is
// written. Named by package path and type, so that jaws links neither.
var passThrough = map[[2]string]bool{
	{"github.com/klauspost/compress/gzhttp", "GzipResponseWriter"}:                true,
	{"github.com/klauspost/compress/gzhttp", "GzipResponseWriterWithCloseNotify"}: true,
	{"github.com/klauspost/compress/gzhttp", "NoGzipResponseWriter"}:              true, // encodes nothing
	{"github.com/NYTimes/gziphandler", "GzipResponseWriter"}:                      true,
	{"github.com/NYTimes/gziphandler", "GzipResponseWriterWithCloseNotify"}:       true,
}

// passesEncoded reports whether w is a known compressor's writer that
// passes an encoded body through (passThrough). An unnamed struct that
// embeds an http.ResponseWriter first is looked at through that writer:
// gzhttp's, when it compresses nothing, is a struct{http.ResponseWriter;
// http.Hijacker; ...} over its NoGzipResponseWriter.
func passesEncoded(w http.ResponseWriter) bool {
	t := namedType(w)
	if t != nil && t.Kind() == reflect.Struct && t.Name() == "" && t.NumField() > 0 &&
		t.Field(0).Anonymous && t.Field(0).Type == writerType {
		v := reflect.ValueOf(w)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			v = v.Elem()
		}
		inner, _ := v.Field(0).Interface().(http.ResponseWriter)
		t = namedType(inner)
	}
	return t != nil && passThrough[[2]string{t.PkgPath(), t.Name()}]
}

var writerType = reflect.TypeFor[http.ResponseWriter]()

// serversOwn reports whether w is a server's own writer or a recorder,
// which writes the bytes it is given: net/http's, for HTTP/1 and HTTP/2,
// httptest's ResponseRecorder, and x/net/http2's.
func serversOwn(w http.ResponseWriter) bool {
	if isOwned(w) {
		return true // the fast lane's writer, beneath which nothing encodes
	}
	t := namedType(w)
	if t == nil {
		return false
	}
	switch t.PkgPath() {
	case "net/http", "net/http/httptest", "golang.org/x/net/http2":
		return true
	}
	return false
}

// namedType is the type of w, or what it points to; nil for nil.
func namedType(w http.ResponseWriter) reflect.Type {
	t := reflect.TypeOf(w)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
