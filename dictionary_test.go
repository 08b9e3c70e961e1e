package jaws

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/zstd"

	"github.com/jaws-go/jaws/internal/testsite"
)

// The tests of compression dictionaries (dictionary.go, dictheader.go,
// dcz.go, dictindex.go); dictionary_ext_test.go has those that mount the
// handler as applications do and count what a request reads.

// bundleName is the name a bundler gives data under dir: base.HASH.ext,
// HASH the first 8 hex digits of its SHA-256.
func bundleName(dir, base, ext string, data []byte) string {
	sum := sha256.Sum256(data)
	return dir + base + "." + hex.EncodeToString(sum[:4]) + ext
}

// availableDictionary is the Available-Dictionary value naming data.
func availableDictionary(data []byte) string {
	sum := sha256.Sum256(data)
	return ":" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// dictBrowser is what Chromium sends for a script it holds a dictionary
// for.
const dictBrowser = "gzip, deflate, br, zstd, dcb, dcz"

// withCacheControl sets Cache-Control before h runs, as
// middleware.CacheControl does.
func withCacheControl(h http.Handler, value string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if value != "" {
			w.Header().Set("Cache-Control", value)
		}
		h.ServeHTTP(w, r)
	})
}

// releases is a script in two builds, the new one a line different, as
// a deploy leaves them: both under assets/ by their hashed names.
type releases struct {
	old, cur         []byte
	oldName, curName string // without the leading slash
}

func newReleases(size, seed int) releases {
	old := jsText(size, seed)
	cur := bytes.Replace(old, []byte("export const v7 = "), []byte("export const v7a = "), 1)
	return releases{old: old, cur: cur,
		oldName: bundleName("assets/", "app", ".js", old), curName: bundleName("assets/", "app", ".js", cur)}
}

// dictSite writes rel's builds and returns a handler for them behind the
// immutable Cache-Control of fingerprinted names.
func dictSite(t *testing.T, rel releases, o Options) (*Handler, http.Handler) {
	t.Helper()
	s := testsite.New(t)
	s.File(rel.oldName, rel.old)
	s.File(rel.curName, rel.cur)
	h := newTestHandler(t, s.Root, o)
	return h, withCacheControl(h, "public, max-age=31536000, immutable")
}

// decodeDcz checks the dcz framing of body (RFC 9842 §5) and decodes it
// with dict, as a browser holding dict would: the window within what the
// RFC has a decoder support.
func decodeDcz(t testing.TB, body, dict []byte) []byte {
	t.Helper()
	if len(body) < dczHeaderLen {
		t.Fatalf("dcz body of %d bytes", len(body))
	}
	if !bytes.Equal(body[:8], []byte{0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00}) {
		t.Fatalf("dcz magic % x", body[:8])
	}
	if sum := sha256.Sum256(dict); !bytes.Equal(body[8:40], sum[:]) {
		t.Fatalf("dcz header names % x, not the dictionary's hash", body[8:40])
	}
	limit := uint64(min(max(8<<20, len(dict)+len(dict)/4), 128<<20))
	var fh zstd.Header
	if err := fh.Decode(body[40:]); err != nil {
		t.Fatalf("zstd frame header: %v", err)
	}
	if fh.WindowSize > limit || fh.DictionaryID != 0 {
		t.Errorf("window %d (limit %d), dictionary ID %d", fh.WindowSize, limit, fh.DictionaryID)
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, dict), zstd.WithDecoderMaxWindow(limit))
	must(t, err)
	defer d.Close()
	out, err := d.DecodeAll(body[40:], nil)
	if err != nil {
		t.Fatalf("decoding dcz: %v", err)
	}
	// A zstd decoder that knows nothing of dcz skips the header, a
	// skippable frame, and decodes the same.
	whole, err := d.DecodeAll(body, nil)
	if err != nil || !bytes.Equal(whole, out) {
		t.Errorf("the stream with its header decodes to %d bytes (%v), without it to %d", len(whole), err, len(out))
	}
	return out
}

// TestDczFraming: the dcz stream of each size of file and dictionary is the
// 40-byte header and a zstd frame that klauspost's decoder, given the
// dictionary as raw content, decodes to the file, with a window no larger
// than RFC 9842 §5 lets a decoder refuse.
func TestDczFraming(t *testing.T) {
	t.Parallel()
	enc := newEncoder(LevelDefault, 1)
	tests := []struct {
		name      string
		dict, src []byte
	}{
		{"small delta", jsText(20<<10, 1), append(jsText(20<<10, 1), "// one more line\n"...)},
		{"300K delta", jsText(300<<10, 2), bytes.Replace(jsText(300<<10, 2), []byte("v100 "), []byte("v100a "), 1)},
		{"unrelated", jsText(8<<10, 3), jsText(8<<10, 4)},
		{"tiny file", jsText(4<<10, 5), []byte("x")},
		{"empty file", jsText(4<<10, 5), nil},
		{"tiny dictionary", []byte("a"), jsText(4<<10, 6)},
		{"file larger than the dictionary", jsText(1<<10, 7), jsText(200<<10, 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum := sha256.Sum256(tt.dict)
			out, err := enc.dcz(tt.src, tt.dict, &sum)
			must(t, err)
			if got := decodeDcz(t, out, tt.dict); !bytes.Equal(got, tt.src) {
				t.Fatalf("decodes to %d bytes, not the file's %d", len(got), len(tt.src))
			}
			t.Logf("%d bytes with a %d-byte dictionary: %d", len(tt.src), len(tt.dict), len(out))
		})
	}
}

// TestDczWindow: the window holds the dictionary and the file, as a power
// of two, and never exceeds what RFC 9842 §5 has decoders support.
func TestDczWindow(t *testing.T) {
	t.Parallel()
	const M = 1 << 20
	for _, tt := range []struct {
		name            string
		dict, src, want int
	}{
		{"nothing", 0, 0, 1 << 10},
		{"small", 20 << 10, 20 << 10, 64 << 10},
		{"exact power", 512 << 10, 512 << 10, 1 * M},
		{"one over", 512 << 10, 512<<10 + 1, 2 * M},
		{"at the 8 MiB floor", 6 * M, 6 * M, 8 * M},
		{"1.25 times the dictionary", 14 * M, 14 * M, 16 * M},
		{"1.25 times, not a power", 13 * M, 13 * M, 16 * M},
		{"below 1.25 times", 12 * M, 12 * M, 8 * M}, // limit 15 MiB: 8 is the largest power below
		{"the 128 MiB ceiling", 200 * M, 200 * M, 128 * M},
	} {
		if got := dczWindow(tt.dict, tt.src); got != tt.want {
			t.Errorf("%s: dczWindow(%d, %d) = %d, want %d", tt.name, tt.dict, tt.src, got, tt.want)
		}
	}
}

// TestParseAvailableDictionary: the field is an RFC 8941 Byte Sequence of
// 32 bytes, parsed strictly.
func TestParseAvailableDictionary(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("dictionary"))
	b64 := base64.StdEncoding.EncodeToString(sum[:])
	raw := strings.TrimRight(b64, "=")
	short := sha256.Sum224([]byte("x"))
	tests := []struct {
		name   string
		values []string
		ok     bool
	}{
		{"padded", []string{":" + b64 + ":"}, true},
		{"unpadded", []string{":" + raw + ":"}, true},
		{"spaces around", []string{"  :" + b64 + ":  "}, true},
		{"parameter", []string{":" + b64 + ":;a=1"}, true},
		{"parameters of each type", []string{":" + b64 + `:;a;b=?0;c=-1.5;d="x\"y";e=tok/en:1;f=:AAA=:;g=12`}, true},
		{"parameter after spaces", []string{":" + b64 + ":; a=1"}, true},
		{"absent", nil, false},
		{"empty", []string{""}, false},
		{"two lines", []string{":" + b64 + ":", ":" + b64 + ":"}, false},
		{"a list", []string{":" + b64 + ":, :" + b64 + ":"}, false},
		{"no colons", []string{b64}, false},
		{"one colon", []string{":" + b64}, false},
		{"a string", []string{`"` + b64 + `"`}, false},
		{"a token", []string{"sha-256"}, false},
		{"URL-safe alphabet", []string{":" + strings.NewReplacer("+", "-", "/", "_").Replace(b64) + ":"}, strings.ContainsAny(b64, "+/") == false},
		{"padding inside", []string{":" + raw[:20] + "=" + raw[21:] + ":"}, false},
		{"too much padding", []string{":" + raw + "===:"}, false},
		{"padding on the wrong length", []string{":" + raw[:len(raw)-1] + "=:"}, false},
		{"a space inside", []string{":" + raw[:10] + " " + raw[10:] + ":"}, false},
		{"a tab before", []string{"\t:" + b64 + ":"}, false},
		{"junk after", []string{":" + b64 + ":x"}, false},
		{"bad parameter key", []string{":" + b64 + ":;A=1"}, false},
		{"bad parameter value", []string{":" + b64 + ":;a=@"}, false},
		{"integer of 16 digits", []string{":" + b64 + ":;a=1234567890123456"}, false},
		{"decimal of 4 places", []string{":" + b64 + ":;a=1.2345"}, false},
		{"unterminated string", []string{":" + b64 + `:;a="x`}, false},
		{"short hash", []string{":" + base64.StdEncoding.EncodeToString(short[:]) + ":"}, false},
		{"long hash", []string{":" + base64.StdEncoding.EncodeToString(append(sum[:], 0)) + ":"}, false},
		{"empty hash", []string{"::"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseAvailableDictionary(tt.values)
			if ok != tt.ok {
				t.Fatalf("parseAvailableDictionary(%q) ok = %v, want %v", tt.values, ok, tt.ok)
			}
			if ok && got != sum {
				t.Errorf("parseAvailableDictionary(%q) = %x, want %x", tt.values, got, sum)
			}
		})
	}
}

// FuzzAvailableDictionary: the parser never panics; what it accepts is a
// byte sequence, with padding or without, of a hash it gives back, which
// the field written anew (:base64:) names again; and the canonical field of
// any 32 bytes parses.
func FuzzAvailableDictionary(f *testing.F) {
	sum := sha256.Sum256([]byte("seed"))
	b64 := base64.StdEncoding.EncodeToString(sum[:])
	for _, s := range []string{":" + b64 + ":", ":" + strings.TrimRight(b64, "=") + ":", " :" + b64 + ": ",
		":" + b64 + `:;a=1;b="x";c=?1;d=:AA==:;e=t`, "::", ":", "", ":" + b64} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := parseAvailableDictionary([]string{v})
		if !ok {
			return
		}
		s := strings.Trim(v, " ")
		if s[0] != ':' || strings.Count(s, ":") < 2 {
			t.Fatalf("accepted %q, which is no byte sequence", v)
		}
		content := s[1 : 1+strings.IndexByte(s[1:], ':')]
		dec, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			dec, err = base64.RawStdEncoding.DecodeString(content)
		}
		if err != nil || !bytes.Equal(dec, got[:]) {
			t.Fatalf("accepted %q as %x; base64 decodes it to %x (%v)", v, got, dec, err)
		}
		again, ok := parseAvailableDictionary([]string{":" + base64.StdEncoding.EncodeToString(got[:]) + ":"})
		if !ok || again != got {
			t.Fatalf("%x written anew does not parse back", got)
		}
	})
}

// TestAcceptsDictionary: dcz is taken only when named, with a weight above
// zero and no lower than that of the coding otherwise sent.
func TestAcceptsDictionary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		ae    []string
		other coding
		want  bool
	}{
		{"Chromium", []string{dictBrowser}, brotliCoding, true},
		{"dcz alone", []string{"dcz"}, identity, true},
		{"no dcz", []string{"gzip, deflate, br, zstd"}, brotliCoding, false},
		{"dcb only", []string{"br, dcb"}, brotliCoding, false},
		{"dcz;q=0", []string{"br, dcz;q=0"}, brotliCoding, false},
		{"star is not dcz", []string{"br, *"}, brotliCoding, false},
		{"lower than br", []string{"br, dcz;q=0.5"}, brotliCoding, false},
		{"lower than br by star", []string{"*, dcz;q=0.5"}, brotliCoding, false},
		{"higher than br", []string{"br;q=0.5, dcz"}, brotliCoding, true},
		{"equal", []string{"br;q=0.8, dcz;q=0.8"}, brotliCoding, true},
		{"case", []string{"BR, DCZ"}, brotliCoding, true},
		{"second line", []string{"br", "dcz"}, brotliCoding, true},
		{"first mention counts", []string{"dcz;q=0, dcz"}, brotliCoding, false},
		{"malformed weight", []string{"br, dcz;q=2"}, brotliCoding, false},
		{"identity otherwise", []string{"identity, dcz;q=0.1"}, identity, true},
		{"absent", nil, identity, false},
	} {
		if got := acceptsDictionary(tt.ae, tt.other); got != tt.want {
			t.Errorf("%s: acceptsDictionary(%q, %v) = %v, want %v", tt.name, tt.ae, tt.other, got, tt.want)
		}
	}
}

// TestDictionaryReadable: RFC 9842 §9.3.3's rule, row by row.
func TestDictionaryReadable(t *testing.T) {
	t.Parallel()
	const origin = "https://other.example"
	tests := []struct {
		name      string
		req, resp []string
		want      bool
	}{
		{"no Fetch Metadata", nil, nil, true},
		{"same-origin", []string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "no-cors"}, nil, true},
		{"same-site without mode", []string{"Sec-Fetch-Site", "same-site"}, nil, true},
		{"cross-site navigate", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}, nil, true},
		{"user-initiated navigate", []string{"Sec-Fetch-Site", "none", "Sec-Fetch-Mode", "navigate"}, nil, true},
		{"mode same-origin", []string{"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "same-origin"}, nil, true},
		{"cross-site no-cors", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors"}, nil, false},
		{"same-site no-cors", []string{"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors"}, nil, false},
		{"websocket", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "websocket"}, nil, false},
		{"cors without ACAO", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", origin}, nil, false},
		{"cors, ACAO *", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", origin},
			[]string{"Access-Control-Allow-Origin", "*"}, true},
		{"cors, ACAO the origin", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", origin},
			[]string{"Access-Control-Allow-Origin", origin}, true},
		{"cors, ACAO another origin", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", origin},
			[]string{"Access-Control-Allow-Origin", "https://third.example"}, false},
		{"cors, ACAO *, no Origin", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors"},
			[]string{"Access-Control-Allow-Origin", "*"}, false},
		{"unknown site value", []string{"Sec-Fetch-Site", "Same-Origin", "Sec-Fetch-Mode", "no-cors"}, nil, false},
		{"two site lines", []string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "no-cors"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, resp := http.Header{}, http.Header{}
			for i := 0; i < len(tt.req); i += 2 {
				req.Add(tt.req[i], tt.req[i+1])
			}
			for i := 0; i < len(tt.resp); i += 2 {
				resp.Add(tt.resp[i], tt.resp[i+1])
			}
			if got := dictionaryReadable(req, resp); got != tt.want {
				t.Errorf("dictionaryReadable(%v, %v) = %v, want %v", req, resp, got, tt.want)
			}
		})
	}
}

// TestDictionaryPattern: the pattern is the client's path with "*" for the
// version, URL Pattern's special characters escaped, whatever prefix a
// router stripped; a path that does not end in the name has none.
func TestDictionaryPattern(t *testing.T) {
	t.Parallel()
	at := func(name, version string) (string, int, int) {
		i := strings.Index(name, version)
		return name, i, i + len(version)
	}
	tests := []struct {
		name, raw, file, version string
		want                     string // "" for none
	}{
		{"root", "/assets/app.3f9a1c2b.js", "assets/app.3f9a1c2b.js", "3f9a1c2b", "/assets/app.*.js"},
		{"under a prefix", "/static/v/assets/app.3f9a1c2b.js", "assets/app.3f9a1c2b.js", "3f9a1c2b", "/static/v/assets/app.*.js"},
		{"a stripped prefix only", "/static/app.3f9a1c2b.js", "app.3f9a1c2b.js", "3f9a1c2b", "/static/app.*.js"},
		{"escaped space", "/my%20app/app.3f9a1c2b.js", "my app/app.3f9a1c2b.js", "3f9a1c2b", "/my%20app/app.*.js"},
		{"escape in the name", "/a%20b.3f9a1c2b.js", "a b.3f9a1c2b.js", "3f9a1c2b", "/a%20b.*.js"},
		{"non-ASCII, escaped", "/d%C3%BCsseldorf-GpEN3EET.js", "düsseldorf-GpEN3EET.js", "GpEN3EET", "/d%C3%BCsseldorf-*.js"},
		{"special characters", "/c++/a:b/(x){y}?/app.3f9a1c2b.js", "app.3f9a1c2b.js", "3f9a1c2b", `/c\+\+/a\:b/\(x\)\{y\}\?/app.*.js`},
		{"a star in the path", "/a*b/app.3f9a1c2b.js", "app.3f9a1c2b.js", "3f9a1c2b", `/a\*b/app.*.js`},
		{"a backslash", `/a\b/app.3f9a1c2b.js`, "app.3f9a1c2b.js", "3f9a1c2b", `/a\\b/app.*.js`},
		{"version in a directory", "/app/v2/main.js", "app/v2/main.js", "v2", "/app/*/main.js"},
		{"version in a directory, prefixed", "/x/app/v2/main.js", "app/v2/main.js", "v2", "/x/app/*/main.js"},
		{"the hash twice", "/3f9a1c2b/app.3f9a1c2b.js", "3f9a1c2b/app.3f9a1c2b.js", "", "/3f9a1c2b/app.*.js"},
		{"another URL (ServeFile)", "/download", "assets/app.3f9a1c2b.js", "3f9a1c2b", ""},
		{"another name", "/assets/app.00000000.js", "assets/app.3f9a1c2b.js", "3f9a1c2b", ""},
		{"another directory after the version", "/app/v2/other.js", "app/v2/main.js", "v2", ""},
		{"no path", "", "app.3f9a1c2b.js", "3f9a1c2b", ""},
		{"a raw space", "/a b/app.3f9a1c2b.js", "app.3f9a1c2b.js", "3f9a1c2b", ""},
		{"a raw quote", `/a"b/app.3f9a1c2b.js`, "app.3f9a1c2b.js", "3f9a1c2b", `/a"b/app.*.js`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name, vs, ve := at(tt.file, tt.version)
			if tt.version == "" { // the last occurrence
				vs = strings.LastIndex(name, "3f9a1c2b")
				ve = vs + 8
			}
			got, ok := dictionaryPattern(tt.raw, name, vs, ve)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("dictionaryPattern(%q, %q[%d:%d]) = %q, %v; want %q", tt.raw, name, vs, ve, got, ok, tt.want)
			}
		})
	}
}

// TestUseAsDictionaryValue: the field is an RFC 8941 Dictionary: the
// pattern an sf-string (quotes and backslashes escaped), match-dest an
// inner list of the destination the type says.
func TestUseAsDictionaryValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ pattern, ctype, want string }{
		{"/assets/app.*.js", "text/javascript; charset=utf-8", `match="/assets/app.*.js", match-dest=("script")`},
		{"/assets/app.*.mjs", "application/javascript", `match="/assets/app.*.mjs", match-dest=("script")`},
		{"/css/site.*.css", "text/css; charset=utf-8", `match="/css/site.*.css", match-dest=("style")`},
		{"/data.*.json", "application/json", `match="/data.*.json"`},
		{"/app.*.wasm", "application/wasm", `match="/app.*.wasm"`},
		{`/a\:b"c/*.js`, "text/plain", `match="/a\\:b\"c/*.js"`},
	}
	for _, tt := range tests {
		if got := useAsDictionary(tt.pattern, tt.ctype); got != tt.want {
			t.Errorf("useAsDictionary(%q, %q) = %s, want %s", tt.pattern, tt.ctype, got, tt.want)
		}
	}
}

// TestDictionaryNegotiation: a request for the new build gets dcz when it
// names the old one it holds and accepts dcz, and what it would get
// without a dictionary otherwise; never an error.
func TestDictionaryNegotiation(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 20)
	_, srv := dictSite(t, rel, Options{})
	old := availableDictionary(rel.old)
	tests := []struct {
		name   string
		header []string
		want   string // Content-Encoding
	}{
		{"Chromium", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old}, "dcz"},
		{"unpadded hash", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", strings.TrimRight(old, "=:") + ":"}, "dcz"},
		{"no Available-Dictionary", []string{"Accept-Encoding", dictBrowser}, "br"},
		{"malformed", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", strings.Trim(old, ":")}, "br"},
		{"two dictionaries", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old, "Available-Dictionary", old}, "br"},
		{"unknown hash", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary([]byte("nobody"))}, "br"},
		{"the new build's own hash", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.cur)}, "dcz"},
		{"no dcz", []string{"Accept-Encoding", "gzip, deflate, br, zstd", "Available-Dictionary", old}, "br"},
		{"dcz;q=0", []string{"Accept-Encoding", "br, zstd, dcz;q=0", "Available-Dictionary", old}, "br"},
		{"dcz below br", []string{"Accept-Encoding", "br, dcz;q=0.5", "Available-Dictionary", old}, "br"},
		{"zstd and dcz", []string{"Accept-Encoding", "zstd, dcz", "Available-Dictionary", old}, "dcz"},
		{"dcz alone", []string{"Accept-Encoding", "dcz", "Available-Dictionary", old}, "dcz"},
		{"no Accept-Encoding", []string{"Available-Dictionary", old}, ""},
		{"same-origin", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old,
			"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "no-cors"}, "dcz"},
		{"cross-site no-cors", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old,
			"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors"}, "br"},
		{"cross-site cors without ACAO", []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old,
			"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", "https://other.example"}, "br"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := testsite.Serve(srv, "GET", "/"+rel.curName, tt.header...)
			if w.Code != 200 {
				t.Fatalf("%d", w.Code)
			}
			enc := w.Header().Get("Content-Encoding")
			if enc != tt.want {
				t.Errorf("Content-Encoding %q, want %q", enc, tt.want)
			}
			var got []byte
			switch enc {
			case "dcz":
				dict := rel.old
				if tt.name == "the new build's own hash" {
					dict = rel.cur
				}
				got = decodeDcz(t, w.Body.Bytes(), dict)
			default:
				got = decodeAs(t, enc, w.Body.Bytes())
			}
			if !bytes.Equal(got, rel.cur) {
				t.Errorf("decodes to %d bytes, not the file's %d", len(got), len(rel.cur))
			}
			if vary := testsite.VaryTokens(w.Header()); !slices.Equal(vary, []string{"Accept-Encoding", "Available-Dictionary"}) {
				t.Errorf("Vary %q", vary)
			}
		})
	}
	// CORS allowed by an outer handler: dcz again.
	cors := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		srv.ServeHTTP(w, r)
	})
	w := testsite.Serve(cors, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", old,
		"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Origin", "https://other.example")
	if enc := w.Header().Get("Content-Encoding"); enc != "dcz" {
		t.Errorf("CORS request, Access-Control-Allow-Origin *: Content-Encoding %q, want dcz", enc)
	}
}

// TestUseAsDictionaryOffer: the offer is on the 200s (GET and HEAD, in any
// coding) of a versioned, compressible file kept a day or more, and on no
// other response.
func TestUseAsDictionaryOffer(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 21)
	s := testsite.New(t)
	s.File(rel.oldName, rel.old)
	s.File(rel.curName, rel.cur)
	s.File("assets/plain.js", rel.cur)
	s.File("assets/tiny.3f9a1c2b.js", []byte("console.log(1)"))
	s.File("assets/logo.3f9a1c2b.png", testsite.Random(8<<10, 21))
	s.File("assets/big.3f9a1c2b.js", jsText(2<<20, 21))
	s.File("assets/app.3f9a1c2b.js/index.html", rel.cur)
	h := newTestHandler(t, s.Root, Options{})
	hashed, err := h.HashName("assets/plain.js")
	must(t, err)
	off := newTestHandler(t, s.Root, Options{Compression: Compression{DisableDictionaries: true}})
	const immutable = "public, max-age=31536000, immutable"
	etag := testsite.Serve(h, "GET", "/"+rel.curName, "Accept-Encoding", "br").Header().Get("Etag")
	const script = `match="/assets/app.*.js", match-dest=("script")`
	tests := []struct {
		name     string
		handler  http.Handler
		method   string
		target   string
		cc       string
		header   []string
		status   int
		want     string // Use-As-Dictionary
		wantVary bool   // Vary names Available-Dictionary
	}{
		{"GET", h, "GET", "/" + rel.curName, immutable, nil, 200, script, true},
		{"GET br", h, "GET", "/" + rel.curName, immutable, []string{"Accept-Encoding", "br"}, 200, script, true},
		{"HEAD", h, "HEAD", "/" + rel.curName, immutable, nil, 200, script, true},
		{"the old build", h, "GET", "/" + rel.oldName, immutable, nil, 200, script, true},
		{"max-age of a day", h, "GET", "/" + rel.curName, "max-age=86400", nil, 200, script, true},
		{"immutable alone", h, "GET", "/" + rel.curName, "immutable", nil, 200, script, true},
		{"206", h, "GET", "/" + rel.curName, immutable, []string{"Range", "bytes=0-9"}, 206, "", true},
		{"304", h, "GET", "/" + rel.curName, immutable, []string{"Accept-Encoding", "br", "If-None-Match", etag}, 304, "", true},
		{"412", h, "GET", "/" + rel.curName, immutable, []string{"If-Match", `"other"`}, 412, "", true},
		{"416", h, "GET", "/" + rel.curName, immutable, []string{"Range", "bytes=999999-"}, 416, "", true},
		{"no Cache-Control", h, "GET", "/" + rel.curName, "", nil, 200, "", false},
		{"an hour", h, "GET", "/" + rel.curName, "max-age=3600", nil, 200, "", false},
		{"no-cache", h, "GET", "/" + rel.curName, "no-cache", nil, 200, "", false},
		{"immutable but no-store", h, "GET", "/" + rel.curName, immutable + ", no-store", nil, 200, "", false},
		{"not versioned", h, "GET", "/assets/plain.js", immutable, nil, 200, "", false},
		{"hashed name", h, "GET", "/" + hashed, "", nil, 200, `match="/assets/plain.*.js", match-dest=("script")`, true},
		{"hashed name, outer no-cache", h, "GET", "/" + hashed, "no-cache", nil, 200, "", false},
		{"below MinSize", h, "GET", "/assets/tiny.3f9a1c2b.js", immutable, nil, 200, "", false},
		{"above MaxSize", h, "GET", "/assets/big.3f9a1c2b.js", immutable, nil, 200, "", false},
		{"not compressible", h, "GET", "/assets/logo.3f9a1c2b.png", immutable, nil, 200, "", false},
		{"a directory's index", h, "GET", "/assets/app.3f9a1c2b.js/", immutable, nil, 200, "", false},
		{"disabled", off, "GET", "/" + rel.curName, immutable, nil, 200, "", false},
		{"missing", h, "GET", "/assets/app.00000000.js", immutable, nil, 404, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := testsite.Serve(withCacheControl(tt.handler, tt.cc), tt.method, tt.target, tt.header...)
			if w.Code != tt.status {
				t.Fatalf("%d, want %d", w.Code, tt.status)
			}
			if got := strings.Join(w.Header().Values("Use-As-Dictionary"), " | "); got != tt.want {
				t.Errorf("Use-As-Dictionary %q, want %q", got, tt.want)
			}
			vary := testsite.VaryTokens(w.Header())
			if slices.Contains(vary, "Available-Dictionary") != tt.wantVary {
				t.Errorf("Vary %q; Available-Dictionary in it: %v, want %v", vary, !tt.wantVary, tt.wantVary)
			}
		})
	}
	// An outer compressor takes over: jaws neither offers nor uses
	// dictionaries.
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		withCacheControl(h, immutable).ServeHTTP(w, r)
	})
	w := testsite.Serve(outer, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
	if w.Header().Get("Use-As-Dictionary") != "" || w.Header().Get("Content-Encoding") != "gzip" ||
		slices.Contains(testsite.VaryTokens(w.Header()), "Available-Dictionary") || !bytes.Equal(w.Body.Bytes(), rel.cur) {
		t.Errorf("behind an outer Content-Encoding: Use-As-Dictionary %q, Content-Encoding %q, Vary %q, %d bytes",
			w.Header().Get("Use-As-Dictionary"), w.Header().Get("Content-Encoding"), w.Header().Values("Vary"), w.Body.Len())
	}
}

// TestDictionaryVary: every response of a path with dictionaries names
// Accept-Encoding and Available-Dictionary in Vary once each, whatever its
// status and coding, merged with what an outer handler set.
func TestDictionaryVary(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 22)
	_, srv := dictSite(t, rel, Options{})
	old := availableDictionary(rel.old)
	dcz := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", old)
	if dcz.Header().Get("Content-Encoding") != "dcz" {
		t.Fatalf("Content-Encoding %q", dcz.Header().Get("Content-Encoding"))
	}
	outer := func(vary ...string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, v := range vary {
				w.Header().Add("Vary", v)
			}
			srv.ServeHTTP(w, r)
		})
	}
	both := []string{"Accept-Encoding", "Available-Dictionary"}
	cur := "/" + rel.curName
	checkVary(t, []varyCase{
		{"identity", "GET", cur, srv, nil, 200, both},
		{"br", "GET", cur, srv, []string{"Accept-Encoding", "br"}, 200, both},
		{"dcz", "GET", cur, srv, []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old}, 200, both},
		{"dcz 304", "GET", cur, srv, []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old, "If-None-Match", dcz.Header().Get("Etag")}, 304, both},
		{"dcz 206", "GET", cur, srv, []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", old, "Range", "bytes=0-9"}, 206, both},
		{"unknown hash", "GET", cur, srv, []string{"Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(nil)}, 200, both},
		{"outer Accept", "GET", cur, outer("Accept"), []string{"Accept-Encoding", "br"}, 200, []string{"Accept", "Accept-Encoding", "Available-Dictionary"}},
		{"outer Accept-Encoding", "GET", cur, outer("Accept-Encoding"), nil, 200, both},
		{"outer Available-Dictionary", "GET", cur, outer("available-dictionary"), nil, 200, []string{"available-dictionary", "Accept-Encoding"}},
		{"outer both", "GET", cur, outer("accept-encoding, available-dictionary"), nil, 200, []string{"accept-encoding", "available-dictionary"}},
		{"outer star", "GET", cur, outer("*"), nil, 200, []string{"*"}},
	})
}

// TestDictionaryValidators: the dcz variant is a representation of its
// own: its strong ETag is its bytes' hash, If-None-Match matches it and no
// other variant's, and ranges count its bytes (one range; several get the
// whole variant).
func TestDictionaryValidators(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 23)
	_, srv := dictSite(t, rel, Options{})
	old := availableDictionary(rel.old)
	requests := map[string][]string{
		"identity": nil,
		"br":       {"Accept-Encoding", "br"},
		"zstd":     {"Accept-Encoding", "zstd"},
		"dcz":      {"Accept-Encoding", dictBrowser, "Available-Dictionary", old},
	}
	etags := map[string]string{}
	var dczBody []byte
	for kind, hdr := range requests {
		w := testsite.Serve(srv, "GET", "/"+rel.curName, hdr...)
		etags[kind] = w.Header().Get("Etag")
		if kind == "dcz" {
			dczBody = w.Body.Bytes()
			sum := sha256.Sum256(dczBody)
			if want := formatETag(sum[:]); etags[kind] != want {
				t.Errorf("dcz ETag %s, want its bytes' %s", etags[kind], want)
			}
		}
	}
	for a, ea := range etags {
		for b, eb := range etags {
			if a < b && ea == eb {
				t.Errorf("%s and %s share the ETag %s", a, b, ea)
			}
		}
	}
	for kind, hdr := range requests {
		for inm, etag := range etags {
			t.Run(kind+"/If-None-Match of "+inm, func(t *testing.T) {
				t.Parallel()
				w := testsite.Serve(srv, "GET", "/"+rel.curName, append(slices.Clone(hdr), "If-None-Match", etag)...)
				want := 200
				if kind == inm {
					want = 304
				}
				if w.Code != want {
					t.Errorf("%d, want %d", w.Code, want)
				}
				if got := w.Header().Get("Etag"); got != etags[kind] {
					t.Errorf("ETag %s, want %s", got, etags[kind])
				}
			})
		}
	}
	// A range is of the file, whatever the client holds: its If-Range
	// holds for the file's own ETag only.
	dczReq := requests["dcz"]
	w := testsite.Serve(srv, "GET", "/"+rel.curName, append(slices.Clone(dczReq), "Range", "bytes=4-9")...)
	if w.Code != 206 || w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), rel.cur[4:10]) {
		t.Errorf("a range asked for with a dictionary: %d, Content-Encoding %q; want the file's bytes", w.Code, w.Header().Get("Content-Encoding"))
	}
	w = testsite.Serve(srv, "GET", "/"+rel.curName, append(slices.Clone(dczReq), "Range", "bytes=0-1", "If-Range", etags["dcz"])...)
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("If-Range of the dcz ETag: %d %q, want 200 of the file", w.Code, w.Header().Get("Content-Encoding"))
	}
}

// TestDictionaryOncePerPair: many requests, at once and after, make one
// delta per version and dictionary; Stats counts them, the dcz answers and
// the bytes saved on the br variant.
func TestDictionaryOncePerPair(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 24)
	h, srv := dictSite(t, rel, Options{})
	br := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser)
	h.store.cache.sync()
	before := h.Stats().Compressions
	var wg sync.WaitGroup
	sizes := make([]int, 16)
	for i := range sizes {
		wg.Go(func() {
			w := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
			if w.Header().Get("Content-Encoding") == "dcz" {
				sizes[i] = w.Body.Len()
			}
		})
	}
	wg.Wait()
	h.store.cache.sync()
	for range 4 {
		testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
		testsite.Serve(srv, "HEAD", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
	}
	st := h.Stats()
	if n := st.Compressions - before; n != 1 {
		t.Errorf("%d compressions for 24 dcz requests, want 1", n)
	}
	for i, n := range sizes {
		if n == 0 || n != sizes[0] {
			t.Fatalf("request %d: %d dcz bytes (first %d)", i, n, sizes[0])
		}
	}
	if st.DictionaryEncoded != 24 {
		t.Errorf("Stats.DictionaryEncoded %d, want 24", st.DictionaryEncoded)
	}
	if want := uint64(20 * (br.Body.Len() - sizes[0])); st.DictionarySaved != want {
		t.Errorf("Stats.DictionarySaved %d, want %d (20 GETs of %d bytes for %d)", st.DictionarySaved, want, sizes[0], br.Body.Len())
	}
}

// TestDictionaryNotWorth: a delta no smaller than the br variant is not
// sent, and not made again for the next request; the request gets br.
func TestDictionaryNotWorth(t *testing.T) {
	t.Parallel()
	// English words, which brotli's built-in dictionary knows, against a
	// dictionary of random bytes, which shares nothing with them.
	var b bytes.Buffer
	r := testsite.Random(64<<10, 25)
	words := strings.Fields("the of and to in is that for with as on by this are from which information people government would")
	for i := 0; b.Len() < 16<<10; i++ {
		b.WriteString(words[int(r[i%len(r)])%len(words)])
		b.WriteByte(" ,.\n"[int(r[(i+1)%len(r)])%4])
	}
	text := b.Bytes()
	dict := testsite.Random(16<<10, 26)
	s := testsite.New(t)
	name := bundleName("", "notes", ".txt", text)
	s.File(name, text)
	dictName := bundleName("", "notes", ".txt", dict)
	s.File(dictName, dict)
	h := newTestHandler(t, s.Root, Options{})
	srv := withCacheControl(h, "public, max-age=31536000, immutable")
	testsite.Serve(srv, "GET", "/"+dictName) // offered, so its hash is known
	for i := range 3 {
		w := testsite.Serve(srv, "GET", "/"+name, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(dict))
		if enc := w.Header().Get("Content-Encoding"); enc != "br" {
			t.Fatalf("request %d: Content-Encoding %q, want br (the delta is no smaller)", i, enc)
		}
		h.store.cache.sync()
	}
	// br once, the delta once (not worth it), and no more.
	if n := h.Stats().Compressions; n != 2 {
		t.Errorf("%d compressions, want 2", n)
	}
	if st := h.Stats(); st.DictionaryEncoded != 0 || st.DictionarySaved != 0 {
		t.Errorf("Stats %+v", st)
	}
}

// TestDictionaryRedeploy: the target of issue 23: a redeploy that changes
// one line of a 300 KB bundle sends at most 2% of the br size to a browser
// holding the old build.
func TestDictionaryRedeploy(t *testing.T) {
	t.Parallel()
	rel := newReleases(300<<10, 27)
	h, srv := dictSite(t, rel, Options{})
	br := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser)
	w := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
	if w.Header().Get("Content-Encoding") != "dcz" || br.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("Content-Encoding %q and %q, want dcz and br", w.Header().Get("Content-Encoding"), br.Header().Get("Content-Encoding"))
	}
	if got := decodeDcz(t, w.Body.Bytes(), rel.old); !bytes.Equal(got, rel.cur) {
		t.Fatal("the delta does not decode to the new build")
	}
	dcz, brn := w.Body.Len(), br.Body.Len()
	t.Logf("%d-byte bundle, one line changed: br %d bytes, dcz %d bytes (%.2f%% of br); saved %d",
		len(rel.cur), brn, dcz, 100*float64(dcz)/float64(brn), h.Stats().DictionarySaved)
	if dcz*50 > brn {
		t.Errorf("dcz %d bytes, more than 2%% of br's %d", dcz, brn)
	}
}

// TestDictionaryEarlierReleases: for a source that keeps only the current
// build, the dictionary comes from Compression.Dictionaries: the old build
// by its own hashed name there, or a HashName'd file at its own path.
func TestDictionaryEarlierReleases(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 28)
	plainOld, plainCur := jsText(20<<10, 29), append(jsText(20<<10, 29), "// release 2\n"...)
	current := fstest.MapFS{rel.curName: {Data: rel.cur}, "js/app.js": {Data: plainCur}}
	earlier := fstest.MapFS{rel.oldName: {Data: rel.old}, "js/app.js": {Data: plainOld}}
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"with Dictionaries", Options{Compression: Compression{Dictionaries: []fs.FS{earlier}}}, "dcz"},
		{"without", Options{}, "br"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewFS(current, tt.opts)
			must(t, err)
			t.Cleanup(func() { h.Close() })
			srv := withCacheControl(h, "public, max-age=31536000, immutable")
			w := testsite.Serve(srv, "GET", "/"+rel.curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
			if enc := w.Header().Get("Content-Encoding"); enc != tt.want {
				t.Fatalf("bundle: Content-Encoding %q, want %q", enc, tt.want)
			}
			if tt.want == "dcz" && !bytes.Equal(decodeDcz(t, w.Body.Bytes(), rel.old), rel.cur) {
				t.Error("bundle: the delta does not decode to the new build")
			}
			hashed, err := h.HashName("js/app.js")
			must(t, err)
			w = testsite.Serve(h, "GET", "/"+hashed, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(plainOld))
			if enc := w.Header().Get("Content-Encoding"); enc != tt.want {
				t.Fatalf("hashed name: Content-Encoding %q, want %q", enc, tt.want)
			}
			if got := w.Header().Get("Use-As-Dictionary"); got != `match="/js/app.*.js", match-dest=("script")` {
				t.Errorf("hashed name: Use-As-Dictionary %q", got)
			}
			if tt.want == "dcz" && !bytes.Equal(decodeDcz(t, w.Body.Bytes(), plainOld), plainCur) {
				t.Error("hashed name: the delta does not decode to the new file")
			}
		})
	}
}

// TestVersionedNames: a pattern of Compression.VersionedNames marks names
// whose version is elsewhere than a hash in the last element, such as a
// directory per release; bad patterns are errors.
func TestVersionedNames(t *testing.T) {
	t.Parallel()
	v1, v2 := jsText(20<<10, 30), append(jsText(20<<10, 30), "// v2\n"...)
	s := testsite.New(t)
	s.File("app/v1/main.js", v1)
	s.File("app/v2/main.js", v2)
	h := newTestHandler(t, s.Root, Options{Compression: Compression{VersionedNames: []string{"app/*/main.js"}}})
	srv := withCacheControl(h, "max-age=604800")
	w := testsite.Serve(srv, "GET", "/app/v2/main.js", "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(v1))
	if w.Header().Get("Content-Encoding") != "dcz" || !bytes.Equal(decodeDcz(t, w.Body.Bytes(), v1), v2) {
		t.Errorf("Content-Encoding %q", w.Header().Get("Content-Encoding"))
	}
	if got := w.Header().Get("Use-As-Dictionary"); got != `match="/app/*/main.js", match-dest=("script")` {
		t.Errorf("Use-As-Dictionary %q", got)
	}
	for _, bad := range [][]string{{"app/main.js"}, {"app/*/*.js"}, {"a**b.js"}, {"app//*.js"}, {"../*.js"}} {
		if _, err := New(s.Root, Options{Compression: Compression{VersionedNames: bad}}); err == nil {
			t.Errorf("VersionedNames %q: no error", bad)
		}
	}
	tests := []struct {
		pattern, file, version string // version "" : no match
	}{
		{"app/*/main.js", "app/v2/main.js", "v2"},
		{"/app/*/main.js", "app/v2/main.js", "v2"},
		{"app/*/main.js", "app//main.js", ""},
		{"app/*/main.js", "app/v2/x/main.js", ""},
		{"app/*/main.js", "app/v2/main.jsx", ""},
		{"assets/app-v*.js", "assets/app-v12.js", "12"},
		{"assets/app-v*.js", "assets/app-v.js", ""},
		{"*.js", "x.js", "x"},
		{"*.js", "a/x.js", ""},
	}
	for _, tt := range tests {
		ps, err := parseVersionedNames([]string{tt.pattern})
		must(t, err)
		s, e, ok := ps[0].match(tt.file)
		if ok != (tt.version != "") || ok && tt.file[s:e] != tt.version {
			t.Errorf("%q matching %q: [%d:%d] %v, want version %q", tt.pattern, tt.file, s, e, ok, tt.version)
		}
	}
}

// TestDictionaryIndexBound: the index keeps at most its bound, the least
// recently used going first, one record per file and per hash.
func TestDictionaryIndexBound(t *testing.T) {
	t.Parallel()
	x := dictIndex{max: 10 * (dictRecordOverhead + 2*int64(len("file-00")))}
	rec := func(i, content int) dictRecord {
		return dictRecord{file: fmt.Sprintf("file-%02d", i), sum: sha256.Sum256([]byte(strconv.Itoa(content)))}
	}
	for i := range 30 {
		x.add(rec(i, i))
		if n, held := x.size(); n > 10 || held > x.limit() {
			t.Fatalf("after %d adds: %d records, %d held, bound %d", i+1, n, held, x.limit())
		}
	}
	for i := range 30 {
		r := rec(i, i)
		_, ok := x.lookup(&r.sum)
		if ok != (i >= 20) {
			t.Errorf("file %d: found %v", i, ok)
		}
	}
	// A file's new version replaces its old one; a hash found in another
	// file moves there.
	x.add(rec(25, 100))
	if r := rec(25, 25); func() bool { _, ok := x.lookup(&r.sum); return ok }() {
		t.Error("file 25's old hash still found")
	}
	x.add(rec(26, 100))
	if r := rec(26, 100); func() bool { got, ok := x.lookup(&r.sum); return !ok || got.file != "file-26" }() {
		t.Error("hash 100 not found in file 26")
	}
	if r := rec(25, 25); x.has(0, r.file, r.ver) {
		t.Error("file 25 still indexed, its hash gone")
	}
}

// TestDictionaryHitAllocations: a request for a versioned asset with
// dictionaries, without Available-Dictionary, allocates what it does with
// dictionaries disabled, but for the one more header; the offer is made
// once, not per request.
func TestDictionaryHitAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts (sync.Pool drops items)")
	}
	rel := newReleases(20<<10, 31)
	s := testsite.New(t)
	s.File(rel.curName, rel.cur)
	allocs := func(o Options, extra bool) float64 {
		h := newTestHandler(t, s.Root, o)
		r := httptest.NewRequest("GET", "/"+rel.curName, nil)
		r.Header.Set("Accept-Encoding", "br")
		w := &testsite.Discard{H: http.Header{}}
		cc := []string{"public, max-age=31536000, immutable"}
		serve := func() {
			clear(w.H)
			w.H["Cache-Control"] = cc
			if extra {
				w.H["X-Extra"] = cc // stands in for Use-As-Dictionary
			}
			h.ServeHTTP(w, r)
		}
		serve()
		h.store.cache.sync()
		serve()
		if got := w.H.Get("Content-Encoding"); got != "br" {
			t.Fatalf("Content-Encoding %q", got)
		}
		return testing.AllocsPerRun(200, serve)
	}
	off := Options{Compression: Compression{DisableDictionaries: true}}
	if with, without := allocs(Options{}, false), allocs(off, true); with > without {
		t.Errorf("a br hit with dictionaries allocates %v times, %v without them (and one more header)", with, without)
	}
}

// TestDictionaryFoundBeside: an earlier build beside the file, never
// served by this process, is found by the one look for earlier versions,
// in the root's top directory or below, from every kind of source; a
// hidden file of the pattern is not, and a directory of it is skipped.
func TestDictionaryFoundBeside(t *testing.T) {
	t.Parallel()
	rel := newReleases(20<<10, 32)
	for _, dir := range []string{"", "assets/", "a/b/c/"} {
		oldName, curName := dir+strings.TrimPrefix(rel.oldName, "assets/"), dir+strings.TrimPrefix(rel.curName, "assets/")
		s := testsite.New(t)
		s.File(oldName, rel.old)
		s.File(curName, rel.cur)
		hidden := dir + ".app.0123abcd.js"
		s.File(hidden, rel.old[:len(rel.old)-1])
		s.Dir(dir + "app.0123abce.js")
		mapFS := fstest.MapFS{oldName: {Data: rel.old}, curName: {Data: rel.cur}}
		for kind, open := range map[string]func() (*Handler, error){
			"New":         func() (*Handler, error) { return New(s.Root, Options{}) },
			"NewFS DirFS": func() (*Handler, error) { return NewFS(os.DirFS(s.Root), Options{}) },
			"NewFS MapFS": func() (*Handler, error) { return NewFS(mapFS, Options{}) },
		} {
			t.Run(kind+"/"+cmp.Or(dir, "top"), func(t *testing.T) {
				t.Parallel()
				h, err := open()
				must(t, err)
				t.Cleanup(func() { h.Close() })
				srv := withCacheControl(h, "max-age=31536000")
				w := testsite.Serve(srv, "GET", "/"+curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old))
				if w.Header().Get("Content-Encoding") != "dcz" || !bytes.Equal(decodeDcz(t, w.Body.Bytes(), rel.old), rel.cur) {
					t.Errorf("Content-Encoding %q, want dcz", w.Header().Get("Content-Encoding"))
				}
				w = testsite.Serve(srv, "GET", "/"+curName, "Accept-Encoding", dictBrowser, "Available-Dictionary", availableDictionary(rel.old[:len(rel.old)-1]))
				if w.Header().Get("Content-Encoding") != "br" {
					t.Errorf("a hidden earlier build: Content-Encoding %q, want br", w.Header().Get("Content-Encoding"))
				}
			})
		}
	}
}
