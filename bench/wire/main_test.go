package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinySite writes a directory with a compressible script, a page served as
// its directory, a text file below Compression.MinSize, a binary file and a
// hidden one.
func tinySite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var js strings.Builder
	for i := range 200 {
		fmt.Fprintf(&js, "function f%d(x) { return x * %d + g(%q); }\n", i, i*7, fmt.Sprint("k", i%13))
	}
	page := "<!doctype html>\n<title>t</title>\n" + strings.Repeat("<p>Some text, then more text.</p>\n", 60)
	bin := make([]byte, 3000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range bin {
		bin[i] = byte(rng.Uint32())
	}
	for name, body := range map[string][]byte{
		"app.js":         []byte(js.String()),
		"sub/index.html": []byte(page),
		"small.txt":      []byte("short\n"),
		"blob.bin":       bin,
		".secret":        []byte(strings.Repeat("hidden ", 500)),
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	dir := tinySite(t)
	files, err := measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names, urls []string
	for _, f := range files {
		names, urls = append(names, f.name), append(urls, f.url)
	}
	if got, want := strings.Join(names, " "), "app.js blob.bin small.txt sub/index.html"; got != want {
		t.Fatalf("files %q, want %q (hidden ones left out, in path order)", got, want)
	}
	if got, want := strings.Join(urls, " "), "/app.js /blob.bin /small.txt /sub/"; got != want {
		t.Errorf("URLs %q, want %q", got, want)
	}

	// The coding each request gets, per file: jaws prefers brotli when the
	// client weighs all equally; the small and the binary file have none.
	wantEnc := map[string][]string{
		"app.js":         {"", "gzip", "br", "zstd", "br"},
		"sub/index.html": {"", "gzip", "br", "zstd", "br"},
		"small.txt":      {"", "", "", "", ""},
		"blob.bin":       {"", "", "", "", ""},
	}
	for _, f := range files {
		if len(f.resp) != len(requests) {
			t.Fatalf("%s: %d responses, want %d", f.name, len(f.resp), len(requests))
		}
		for i, r := range f.resp {
			if r.encoding != wantEnc[f.name][i] {
				t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q, want %q", f.name, requests[i].accept, r.encoding, wantEnc[f.name][i])
			}
			// The counted bytes are the response as sent: the status
			// line, each header line, the blank line and the body.
			if want := headLen(r) + r.body; r.wire != want {
				t.Errorf("%s, Accept-Encoding %q: %d bytes counted, want %d (%d of head, %d of body)",
					f.name, requests[i].accept, r.wire, want, headLen(r), r.body)
			}
			switch {
			case r.encoding == "" && r.body != f.size:
				t.Errorf("%s: %d body bytes uncompressed, want the file's %d", f.name, r.body, f.size)
			case r.encoding != "" && r.body >= f.size*9/10:
				t.Errorf("%s in %s: %d body bytes of %d, want at least 10%% less", f.name, r.encoding, r.body, f.size)
			}
		}
	}

	// The total row adds the columns up.
	tot := totals(files)
	for i := range requests {
		var sum int64
		for _, f := range files {
			sum += f.resp[i].wire
		}
		if tot[i] != sum {
			t.Errorf("total of %s: %d, want %d", requests[i].title, tot[i], sum)
		}
	}
	var b bytes.Buffer
	writeMarkdown(&b, dir, files)
	md := b.String()
	var size int64
	for _, f := range files {
		size += f.size
	}
	total := fmt.Sprintf("| **total** | %s | **%s** | **%s** (%s) |", group(size), group(tot[0]), group(tot[1]), savedText(tot[1], tot[0]))
	if !strings.Contains(md, total) {
		t.Errorf("the table lacks the total row starting %q:\n%s", total, md)
	}
	js := files[0]
	appRow := fmt.Sprintf("| `app.js` | %s | %s | %s gzip (%s) |", group(js.size), group(js.resp[0].wire), group(js.resp[1].wire), savedText(js.resp[1].wire, js.resp[0].wire))
	if !strings.Contains(md, appRow) {
		t.Errorf("the table lacks app.js's row starting %q:\n%s", appRow, md)
	}
	if !strings.Contains(md, "| `small.txt` | 6 |") || !strings.Contains(md, "identity (±0)") {
		t.Errorf("the table lacks small.txt, served as it is:\n%s", md)
	}
	if want := fmt.Sprintf("%s fewer", group(tot[0]-tot[len(tot)-1])); !strings.Contains(md, want) {
		t.Errorf("the summary lacks %q:\n%s", want, md)
	}
}

// headLen is the length of a response's head as net/http's server writes
// it, from what the client parsed: "HTTP/1.1 200 OK\r\n", "Key: value\r\n"
// for each value, "\r\n".
func headLen(r response) int64 {
	n := int64(len(r.status) + 2)
	for k, vs := range r.header {
		for _, v := range vs {
			n += int64(len(k) + 2 + len(v) + 2)
		}
	}
	return n + 2
}

func TestGroupAndSaved(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 271332: "271,332", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q, want %q", n, got, want)
		}
	}
	for _, c := range []struct {
		n, base int64
		want    string
	}{{30, 100, "−70.0%"}, {100, 100, "±0"}, {101, 100, "+1.0%"}} {
		if got := savedText(c.n, c.base); got != c.want {
			t.Errorf("savedText(%d, %d) = %q, want %q", c.n, c.base, got, c.want)
		}
	}
}

func TestMeasureEmpty(t *testing.T) {
	t.Parallel()
	if _, err := measure(t.TempDir()); err == nil {
		t.Error("no error for a directory without files")
	}
}
