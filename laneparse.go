package jaws

import "github.com/jaws-go/jaws/internal/httprule"

// The fast lane's request parser (fastlane.go). It reads a strict subset of
// HTTP/1.1 and reports anything else as laneRefuse, so that the request
// goes to net/http with its bytes intact. FuzzLaneParse holds it to
// net/http's own reader: a request it accepts is the request net/http reads
// there, with the same method, target, version, the headers jaws reads and
// the same boundary.
//
// What it accepts:
//
//	request-line = ("GET" / "HEAD") SP target SP "HTTP/1.1" CRLF
//	target       = "/" *( %x21-7E ), every "%" before a "?" followed by two hex digits
//	field-line   = token ":" *( SP / HTAB / %x21-7E ) CRLF
//	end          = CRLF
//
// with exactly one Host (of host characters only), at most one
// Connection ("close" or "keep-alive"), X-Forwarded-Host and
// X-Forwarded-Proto, and none of the fields that make a
// request something other than a plain read of a public file: a body
// (Content-Length, Transfer-Encoding, Expect), a protocol switch (Upgrade),
// credentials (Authorization, Proxy-Authorization) or a cross-origin fetch
// (Origin). No obs-fold, no bare CR or LF, no byte outside ASCII.

// laneVerdict is what the parser makes of the bytes it was given.
type laneVerdict int8

const (
	laneRefuse  laneVerdict = iota // not a request the lane answers: hand it over
	lanePartial                    // a valid start: more bytes may complete it
	laneOK                         // a whole request, of laneRequest.size bytes
)

// laneField names the request fields jaws reads, in http.Header's canonical
// form; a parsed request keeps their values.
var laneFields = [...]string{
	"Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since",
	"If-Unmodified-Since", "Accept-Encoding", "Available-Dictionary",
	"Sec-Fetch-Site", "Sec-Fetch-Mode", "Connection",
}

const (
	fieldConnection = len(laneFields) - 1
	maxLaneValues   = 16 // values of those fields a request may carry
)

// laneValue is one value of a field jaws reads: the field's index in
// laneFields, and its bytes, trimmed, within the parsed buffer.
type laneValue struct {
	field      int8
	start, end int32
}

// laneRequest is a request the parser read. Its byte ranges point into the
// buffer it parsed.
type laneRequest struct {
	head                bool // HEAD, else GET
	targetAt, targetEnd int32
	hostAt, hostEnd     int32
	fhostAt, fhostEnd   int32 // X-Forwarded-Host, at most one
	fprotoAt, fprotoEnd int32 // X-Forwarded-Proto, at most one
	fhosts, fprotos     int
	closeConn           bool // Connection: close
	size                int  // the request line and header block, CRLFs included
	values              [maxLaneValues]laneValue
	nvalues             int
	hosts, connections  int
}

// parseLaneRequest reads the request at the start of b, of at most limit bytes
// (the lane's buffer, never more than the server's MaxHeaderBytes).
func parseLaneRequest(b []byte, limit int, p *laneRequest) laneVerdict {
	*p = laneRequest{}
	end := min(len(b), limit)
	// The request line.
	i := 0
	switch {
	case hasPrefixAt(b, 0, "GET "):
		i = 4
	case hasPrefixAt(b, 0, "HEAD "):
		i, p.head = 5, true
	default:
		return partialIf(b, limit, "GET ", "HEAD ")
	}
	if i >= end {
		return lanePartialOrRefuse(len(b), limit)
	}
	if b[i] != '/' {
		return laneRefuse
	}
	p.targetAt = int32(i)
	query := false
	for i < end && b[i] != ' ' {
		switch c := b[i]; {
		case c < 0x21 || c > 0x7e:
			return laneRefuse
		case c == '?':
			query = true
		case c == '%' && !query:
			// net/url decodes the path and refuses a bad escape.
			if i+2 < end && (!isHexByte(b[i+1]) || !isHexByte(b[i+2])) {
				return laneRefuse
			}
		}
		i++
	}
	if i >= end {
		return lanePartialOrRefuse(len(b), limit)
	}
	p.targetEnd = int32(i)
	i++ // SP
	const proto = "HTTP/1.1\r\n"
	for k := 0; k < len(proto); k, i = k+1, i+1 {
		if i >= end {
			return lanePartialOrRefuse(len(b), limit)
		}
		if b[i] != proto[k] {
			return laneRefuse
		}
	}
	// The field lines, up to the empty one.
	for {
		if i >= end {
			return lanePartialOrRefuse(len(b), limit)
		}
		if b[i] == '\r' {
			if i+1 >= end {
				return lanePartialOrRefuse(len(b), limit)
			}
			if b[i+1] != '\n' {
				return laneRefuse
			}
			if p.hosts != 1 {
				return laneRefuse
			}
			p.size = i + 2
			return laneOK
		}
		next, v := parseLaneField(b, i, end, p)
		if v != laneOK {
			if v == lanePartial {
				return lanePartialOrRefuse(len(b), limit)
			}
			return v
		}
		i = next
	}
}

// parseLaneField reads the field line at b[i:end], records what the lane
// needs of it in p, and returns where the next line starts.
func parseLaneField(b []byte, i, end int, p *laneRequest) (int, laneVerdict) {
	nameAt := i
	for i < end && httprule.IsTchar(b[i]) {
		i++
	}
	if i >= end {
		return 0, lanePartial
	}
	if b[i] != ':' || i == nameAt {
		return 0, laneRefuse // obs-fold, a space before the colon, a bad name
	}
	name := b[nameAt:i]
	i++
	valAt := i
	for i < end && b[i] != '\r' {
		if c := b[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return 0, laneRefuse
		}
		i++
	}
	if i+1 >= end {
		return 0, lanePartial
	}
	if b[i+1] != '\n' {
		return 0, laneRefuse
	}
	valEnd := i
	for valAt < valEnd && (b[valAt] == ' ' || b[valAt] == '\t') {
		valAt++
	}
	for valEnd > valAt && (b[valEnd-1] == ' ' || b[valEnd-1] == '\t') {
		valEnd--
	}
	val := b[valAt:valEnd]
	switch k := laneFieldKind(name); {
	case k == kindRefuse:
		return 0, laneRefuse
	case k == kindHost:
		p.hosts++
		if p.hosts > 1 || !isHostValue(val) {
			return 0, laneRefuse
		}
		p.hostAt, p.hostEnd = int32(valAt), int32(valEnd)
	case k == kindFwdHost:
		if p.fhosts++; p.fhosts > 1 {
			return 0, laneRefuse
		}
		p.fhostAt, p.fhostEnd = int32(valAt), int32(valEnd)
	case k == kindFwdProto:
		if p.fprotos++; p.fprotos > 1 {
			return 0, laneRefuse
		}
		p.fprotoAt, p.fprotoEnd = int32(valAt), int32(valEnd)
	case k >= 0:
		if k == fieldConnection {
			p.connections++
			switch {
			case p.connections > 1:
				return 0, laneRefuse
			case asciiEqualFold(val, "close"):
				p.closeConn = true
			case !asciiEqualFold(val, "keep-alive"):
				return 0, laneRefuse
			}
		}
		if p.nvalues == maxLaneValues {
			return 0, laneRefuse
		}
		p.values[p.nvalues] = laneValue{int8(k), int32(valAt), int32(valEnd)}
		p.nvalues++
	}
	return i + 2, laneOK
}

// What a field name means to the lane, besides an index into laneFields.
const (
	kindIgnore = -1 // a field jaws does not read
	kindRefuse = -2 // a field that sends the request to net/http
	kindHost   = -3
	// What a proxy in front says of the client's host and scheme: part of
	// what a note is learnt for (noteKey).
	kindFwdHost  = -4
	kindFwdProto = -5
)

// laneFieldKind classifies a field name, ASCII case-insensitively.
func laneFieldKind(name []byte) int {
	for k, f := range laneFields {
		if asciiEqualFold(name, f) {
			return k
		}
	}
	switch {
	case asciiEqualFold(name, "Host"):
		return kindHost
	case asciiEqualFold(name, "X-Forwarded-Host"):
		return kindFwdHost
	case asciiEqualFold(name, "X-Forwarded-Proto"):
		return kindFwdProto
	case asciiEqualFold(name, "Authorization"), asciiEqualFold(name, "Proxy-Authorization"),
		asciiEqualFold(name, "Origin"), asciiEqualFold(name, "Content-Length"),
		asciiEqualFold(name, "Transfer-Encoding"), asciiEqualFold(name, "Expect"),
		asciiEqualFold(name, "Upgrade"):
		return kindRefuse
	}
	return kindIgnore
}

// lanePartialOrRefuse: bytes that end before the request does may be
// completed by more, unless the lane could not hold the whole request.
func lanePartialOrRefuse(have, limit int) laneVerdict {
	if have >= limit {
		return laneRefuse
	}
	return lanePartial
}

// partialIf reports lanePartial when b is a proper prefix of one of the
// method words, so that a request line arriving a byte at a time is waited
// for.
func partialIf(b []byte, limit int, words ...string) laneVerdict {
	for _, w := range words {
		if len(b) < len(w) && len(b) < limit && w[:len(b)] == string(b) {
			return lanePartial
		}
	}
	return laneRefuse
}

func hasPrefixAt(b []byte, at int, s string) bool {
	return len(b)-at >= len(s) && string(b[at:at+len(s)]) == s
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isHostValue reports whether v holds only characters of a host name, an
// IP literal and a port: a subset of what net/http lets through.
func isHostValue(v []byte) bool {
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '-', c == ':', c == '[', c == ']', c == '_':
		default:
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether b is s, ASCII letters compared without
// case: httprule.EqualFold for the parser's bytes, which a conversion to a
// string would copy.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
