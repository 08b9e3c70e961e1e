// Command wire counts the bytes on the wire jaws sends for each file of a
// site, by the Accept-Encoding the client sends:
//
//	go run ./bench/wire                                   # example/site, the table on stdout
//	go run ./bench/wire -o bench/results/wire.md          # and into a file
//	go run ./bench/wire -root DIR
//
// It serves the directory (read from disk) with jaws.New(root,
// jaws.Options{}) on an httptest server, and asks for every regular file in
// it (an index.html by its directory's URL, as jaws redirects the name) with
// no Accept-Encoding, with "gzip", "br" and "zstd", and with what Chrome
// sends, "gzip, deflate, br, zstd". The client's Transport has
// DisableCompression, so it asks for nothing itself and hands the bytes over
// as they came; its connection counts every byte it reads, so a response's
// count is its status line, headers and body as sent. Every answer is
// checked: 200, the Content-Encoding asked for (or none), and a body that
// decodes to the file.
//
// It prints a Markdown table: a row per file and a total, each cell the
// bytes of one response and what that saves against no Accept-Encoding.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/decode"
	"github.com/jaws-go/jaws/internal/sitefiles"
)

func main() {
	root := flag.String("root", "example/site", "directory to serve")
	out := flag.String("o", "", "also write the table to `file`")
	flag.Parse()
	res, err := measure(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wire:", err)
		os.Exit(1)
	}
	var b bytes.Buffer
	writeMarkdown(&b, *root, res)
	os.Stdout.Write(b.Bytes())
	if *out != "" {
		if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "wire:", err)
			os.Exit(1)
		}
	}
}

// request is one Accept-Encoding a client sends: its column title and the
// field's value ("" for none).
type request struct {
	title, accept string
}

var requests = []request{
	{"none", ""},
	{"`gzip`", "gzip"},
	{"`br`", "br"},
	{"`zstd`", "zstd"},
	{"Chrome: `gzip, deflate, br, zstd`", "gzip, deflate, br, zstd"},
}

// response is what one request brought back.
type response struct {
	wire     int64       // bytes read from the connection: status line, headers, body
	body     int64       // body bytes as sent
	encoding string      // Content-Encoding, "" for none
	status   string      // the status line, "HTTP/1.1 200 OK"
	header   http.Header // as the client parsed it
}

// file is one file's responses, in the order of requests.
type file struct {
	name string // slash-separated, relative to the root
	url  string // the path it was asked for
	size int64
	resp []response
}

// measure serves root with jaws and asks for each of its files with each
// Accept-Encoding of requests.
func measure(root string) ([]file, error) {
	files, err := list(root)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files in %s", root)
	}
	h, err := jaws.New(root, jaws.Options{})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	var read atomic.Int64
	dialer := &net.Dialer{}
	tr := &http.Transport{
		DisableCompression: true,
		MaxConnsPerHost:    1, // one connection: the count between two reads is one response
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countConn{Conn: c, n: &read}, nil
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for i := range files {
		f := &files[i]
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.name)))
		if err != nil {
			return nil, err
		}
		for _, rq := range requests {
			req, err := http.NewRequest(http.MethodGet, srv.URL+f.url, nil)
			if err != nil {
				return nil, err
			}
			if rq.accept != "" {
				req.Header.Set("Accept-Encoding", rq.accept)
			}
			before := read.Load()
			resp, err := client.Do(req)
			if err != nil {
				return nil, err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			r := response{
				wire: read.Load() - before, body: int64(len(body)),
				encoding: resp.Header.Get("Content-Encoding"),
				status:   resp.Proto + " " + resp.Status, header: resp.Header,
			}
			if resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("%s (%q): %s", f.url, rq.accept, resp.Status)
			}
			if err := check(rq.accept, r.encoding, body, want); err != nil {
				return nil, fmt.Errorf("%s (%q): %w", f.url, rq.accept, err)
			}
			f.resp = append(f.resp, r)
		}
	}
	return files, nil
}

// list returns the regular files under root that jaws serves (no hidden
// names), in path order.
func list(root string) ([]file, error) {
	var files []file
	err := sitefiles.Walk(os.DirFS(root), func(name string, d fs.DirEntry) error {
		if isSibling(root, name) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		u := "/" + name
		if path.Base(name) == "index.html" {
			u = strings.TrimSuffix(u, "index.html")
		}
		files = append(files, file{name: name, url: u, size: info.Size()})
		return nil
	})
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.name, b.name) })
	return files, err
}

// isSibling reports whether name is a precompressed sibling of another
// file ("app.js.br" next to "app.js"): pages never link to those, jaws
// serves them in place of their originals.
func isSibling(root, name string) bool {
	for _, ext := range []string{".br", ".zst", ".gz"} {
		if orig, ok := strings.CutSuffix(name, ext); ok {
			if info, err := os.Stat(filepath.Join(root, orig)); err == nil && info.Mode().IsRegular() {
				return true
			}
		}
	}
	return false
}

// check reports whether body, sent in encoding for a request accepting
// accept, is the file's bytes want.
func check(accept, encoding string, body, want []byte) error {
	if encoding != "" && !slices.Contains(strings.Split(strings.ReplaceAll(accept, " ", ""), ","), encoding) {
		return fmt.Errorf("Content-Encoding %q, not asked for", encoding)
	}
	got, err := decode.Body(encoding, body)
	if err != nil {
		return fmt.Errorf("decoding %s: %w", encoding, err)
	}
	if !bytes.Equal(got, want) {
		return errors.New("the body is not the file")
	}
	return nil
}

// countConn adds the bytes read from its connection to n.
type countConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// totals sums the files' wire bytes per request.
func totals(files []file) []int64 {
	t := make([]int64, len(requests))
	for _, f := range files {
		for i, r := range f.resp {
			t[i] += r.wire
		}
	}
	return t
}

// saved is the share of base that n saves.
func saved(n, base int64) float64 {
	if base == 0 {
		return 0
	}
	return 1 - float64(n)/float64(base)
}

func writeMarkdown(w io.Writer, root string, files []file) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Bytes on the wire: %s\n\n", root)
	p("Written by `go run ./bench/wire -o bench/results/wire.md` (see `bench/README.md`). ")
	p("jaws with default `Options` serves the directory; each file is asked for once per `Accept-Encoding`, ")
	p("and each cell counts the bytes of the response as the client read them off the connection ")
	p("(status line, headers and body), with the coding jaws answered in and what that saves against the same file asked for with no `Accept-Encoding`. ")
	p("jaws compresses text of 1 KiB to 1 MiB (`Compression.MinSize`, `MaxSize`) and keeps a coding only where it saves at least 10%%; ")
	p("smaller files, and media that is compressed already, go as they are, with a `Vary: Accept-Encoding` where the file has variants.\n\n")
	head := []string{"file", "size"}
	align := []string{"---", "---:"}
	for _, rq := range requests {
		head = append(head, rq.title)
		align = append(align, "---:")
	}
	row(w, head)
	row(w, align)
	for _, f := range files {
		cols := []string{"`" + f.name + "`", group(f.size)}
		base := f.resp[0].wire
		for i, r := range f.resp {
			cols = append(cols, cellText(r.wire, base, r.encoding, i == 0))
		}
		row(w, cols)
	}
	t := totals(files)
	var size int64
	for _, f := range files {
		size += f.size
	}
	cols := []string{"**total**", group(size)}
	for i, n := range t {
		c := "**" + group(n) + "**"
		if i > 0 {
			c += " (" + savedText(n, t[0]) + ")"
		}
		cols = append(cols, c)
	}
	row(w, cols)
	last := len(t) - 1
	p("\nWith what Chrome sends, the %d files take %s bytes on the wire instead of %s: %s fewer, %.1f%% saved.",
		len(files), group(t[last]), group(t[0]), group(t[0]-t[last]), 100*saved(t[last], t[0]))
	if m0, m := mediaWire(files, 0), mediaWire(files, last); m0 > 0 {
		p(" Leaving out media (audio, video, images other than SVG), which is compressed already and goes as it is: %s instead of %s, %.1f%% saved.",
			group(t[last]-m), group(t[0]-m0), 100*saved(t[last]-m, t[0]-m0))
	}
	p("\n")
}

// mediaWire sums the wire bytes of request i for files that are media
// (audio, video, images other than SVG).
func mediaWire(files []file, i int) int64 {
	var n int64
	for _, f := range files {
		ct := f.resp[i].header.Get("Content-Type")
		if strings.HasPrefix(ct, "video/") || strings.HasPrefix(ct, "audio/") ||
			(strings.HasPrefix(ct, "image/") && !strings.HasPrefix(ct, "image/svg")) {
			n += f.resp[i].wire
		}
	}
	return n
}

func cellText(n, base int64, encoding string, first bool) string {
	if first {
		return group(n)
	}
	if encoding == "" {
		encoding = "identity"
	}
	return fmt.Sprintf("%s %s (%s)", group(n), encoding, savedText(n, base))
}

// savedText writes what n saves against base: "−71.3%", "±0", "+0.4%".
func savedText(n, base int64) string {
	switch s := 100 * saved(n, base); {
	case n == base:
		return "±0"
	case s >= 0:
		return fmt.Sprintf("−%.1f%%", s)
	default:
		return fmt.Sprintf("+%.1f%%", -s)
	}
}

func row(w io.Writer, cols []string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cols, " | "))
}

// group writes n with a comma every three digits: 271,332.
func group(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + group(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
