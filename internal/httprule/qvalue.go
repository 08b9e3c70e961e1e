package httprule

import "strings"

// Weight reads the parameters after a list element, the part after its
// first ";" ("q=0.5" of "gzip;q=0.5", "level=1;q=0" of
// "text/html;level=1;q=0"), and returns the element's weight in thousandths:
// 0 to 1000, and 1000 when no "q" parameter gives one (RFC 9110 §12.4.2).
// Parameter names compare ASCII case-insensitively; white space around
// names and values is trimmed. ok is false when a "q" parameter's value is
// not a qvalue (see ParseQValue): such an element is malformed and says
// nothing, so callers skip it as if the client had not sent it, jaws's
// reading of Accept-Encoding and Accept alike (net/http reads neither).
// Where "q" is given more than once (RFC 9110 makes the weight the last
// parameter) each must be a qvalue and the last one counts.
func Weight(params string) (w int, ok bool) {
	w = 1000
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, _ := strings.Cut(p, "=")
		if !EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		if w, ok = ParseQValue(strings.TrimSpace(val)); !ok {
			return 0, false
		}
	}
	return w, true
}

// ParseQValue parses a qvalue (RFC 9110 §12.4.2), "0" to "1" with at most
// three decimals,
//
//	qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//
// into thousandths: "0.5" is 500, "1." is 1000. Anything else (".5",
// "0.0001", "1.5", "00", "", a sign, a space) is not a qvalue: ok is false.
func ParseQValue(s string) (w int, ok bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	w = int(s[0]-'0') * 1000
	if len(s) == 1 {
		return w, true
	}
	if s[1] != '.' || len(s) > 5 {
		return 0, false
	}
	scale := 100
	for _, d := range []byte(s[2:]) {
		if d < '0' || d > '9' {
			return 0, false
		}
		w += int(d-'0') * scale
		scale /= 10
	}
	if w > 1000 {
		return 0, false
	}
	return w, true
}
