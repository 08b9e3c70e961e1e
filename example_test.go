package jaws_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"expvar"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/middleware"
)

func Example() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	srv := httptest.NewServer(http.StripPrefix("/static", h))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/static/hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Print(string(body))
	// Output:
	// 200 OK text/plain; charset=utf-8
	// hello, world
}

// A compressible file is compressed once, in the coding the client prefers
// (a tie, as browsers send, goes to brotli), and a precompressed sibling
// is served as it is; every answer for such a file says Vary:
// Accept-Encoding, since its bytes depend on that header.
func ExampleCompression() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	css := strings.Repeat("body { margin: 0 auto; max-width: 40em; }\n", 100)
	os.WriteFile(filepath.Join(dir, "style.css"), []byte(css), 0o644)
	// app.js with a sibling a build step wrote (gzip -9 -k app.js).
	js := strings.Repeat("console.log('hello, jaws');\n", 100)
	os.WriteFile(filepath.Join(dir, "app.js"), []byte(js), 0o644)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte(js))
	zw.Close()
	os.WriteFile(filepath.Join(dir, "app.js.gz"), gz.Bytes(), 0o644)

	h, err := jaws.New(dir, jaws.Options{}) // compression is on by default
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, req := range []struct{ name, content, acceptEncoding string }{
		{"style.css", css, "gzip, deflate, br, zstd"}, // a browser
		{"style.css", css, "gzip"},
		{"style.css", css, ""}, // no Accept-Encoding: the file as it is
		{"app.js", js, "gzip, br;q=0"},
	} {
		r := httptest.NewRequest("GET", "/"+req.name, nil)
		if req.acceptEncoding != "" {
			r.Header.Set("Accept-Encoding", req.acceptEncoding)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Printf("%s, Accept-Encoding %q: %d, Content-Encoding %q, Vary %q, smaller: %v, the sibling: %v\n",
			req.name, req.acceptEncoding, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Vary"),
			w.Body.Len() < len(req.content), bytes.Equal(w.Body.Bytes(), gz.Bytes()))
	}
	st := h.Stats()
	fmt.Println("compressions:", st.Compressions, "encoded responses:", st.Encoded)
	// Output:
	// style.css, Accept-Encoding "gzip, deflate, br, zstd": 200, Content-Encoding "br", Vary "Accept-Encoding", smaller: true, the sibling: false
	// style.css, Accept-Encoding "gzip": 200, Content-Encoding "gzip", Vary "Accept-Encoding", smaller: true, the sibling: false
	// style.css, Accept-Encoding "": 200, Content-Encoding "", Vary "Accept-Encoding", smaller: false, the sibling: false
	// app.js, Accept-Encoding "gzip, br;q=0": 200, Content-Encoding "gzip", Vary "Accept-Encoding", smaller: true, the sibling: true
	// compressions: 2 encoded responses: 3
}

// A deploy that keeps the previous build beside the new one, as bundlers'
// hashed names let it: a browser that holds the old script as a dictionary
// (RFC 9842) gets the new one as the difference. Cache-Control comes from
// middleware.CacheControl, whose default rules make hashed names immutable.
func Example_compressionDictionaries() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Mkdir(filepath.Join(dir, "assets"), 0o755)
	build := func(release int) (name string, data []byte) {
		var b strings.Builder
		for i := range 2000 {
			fmt.Fprintf(&b, "export const v%d = %d;\n", i, i*7)
		}
		fmt.Fprintf(&b, "export const release = %d;\n", release) // the one line a deploy changed
		sum := sha256.Sum256([]byte(b.String()))
		name = "assets/app." + hex.EncodeToString(sum[:4]) + ".js"
		os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
		return name, []byte(b.String())
	}
	oldName, old := build(1)
	newName, _ := build(2)

	h, err := jaws.New(dir, jaws.Options{}) // dictionaries are on by default
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	site := middleware.CacheControl()(h)

	get := func(name string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/"+name, nil)
		for i := 0; i < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		site.ServeHTTP(w, r)
		return w
	}
	// Yesterday's visit: the old build, offered as a dictionary.
	w := get(oldName, "Accept-Encoding", "gzip, deflate, br, zstd")
	fmt.Printf("old build: %s\n  Use-As-Dictionary: %s\n  Vary: %s\n",
		w.Header().Get("Content-Encoding"), w.Header().Get("Use-As-Dictionary"), w.Header().Get("Vary"))
	// Today's: the browser names the dictionary it holds.
	br := get(newName, "Accept-Encoding", "gzip, deflate, br, zstd")
	sum := sha256.Sum256(old)
	w = get(newName, "Accept-Encoding", "gzip, deflate, br, zstd, dcb, dcz",
		"Available-Dictionary", ":"+base64.StdEncoding.EncodeToString(sum[:])+":")
	fmt.Printf("new build: %s, under a tenth of br's size: %v\n", w.Header().Get("Content-Encoding"), w.Body.Len()*10 < br.Body.Len())
	st := h.Stats()
	fmt.Println("dcz responses:", st.DictionaryEncoded, "bytes saved:", st.DictionarySaved > 0)
	// Output:
	// old build: br
	//   Use-As-Dictionary: match="/assets/app.*.js", match-dest=("script")
	//   Vary: Accept-Encoding, Available-Dictionary
	// new build: dcz, under a tenth of br's size: true
	// dcz responses: 1 bytes saved: true
}

// An embed.FS is served from the program's own bytes: the usual
// //go:embed of a directory, through fs.Sub.
func ExampleNewFS() {
	// //go:embed testdata/embedsite
	// var embedded embed.FS
	site, err := fs.Sub(embedded, "testdata/embedsite")
	if err != nil {
		log.Fatal(err)
	}
	h, err := jaws.NewFS(site, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, path := range []string{"/", "/dir/file.txt", "/missing"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		fmt.Printf("%s: %d %q, Last-Modified %q\n", path, w.Code, strings.TrimSpace(w.Body.String()), w.Header().Get("Last-Modified"))
	}
	// Output:
	// /: 200 "<h1>root</h1>", Last-Modified ""
	// /dir/file.txt: 200 "file in dir", Last-Modified ""
	// /missing: 404 "404 page not found", Last-Modified ""
}

// A build may ship its text only compressed, to keep a binary that embeds
// it small: index.html.gz, and no index.html (internal/precompress writes
// such a build; go run -tags compressedonly ./example serves one). jaws
// serves the page under its own name: the stored bytes to a client that
// takes their coding, the page decoded, once, to any other.
func ExampleNewFS_compressedOnly() {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("<h1>shipped compressed</h1>\n"))
	zw.Close()
	// As the embed.FS of such a build holds it.
	site := fstest.MapFS{"index.html.gz": {Data: gz.Bytes()}}
	h, err := jaws.NewFS(site, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, accept := range []string{"gzip, deflate, br, zstd", ""} {
		r := httptest.NewRequest("GET", "/", nil)
		if accept != "" {
			r.Header.Set("Accept-Encoding", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Header().Get("Content-Encoding") != "" {
			body = fmt.Sprintf("index.html.gz as it is: %v", bytes.Equal(w.Body.Bytes(), gz.Bytes()))
		}
		fmt.Printf("Accept-Encoding %q: %d, Content-Encoding %q, %s\n", accept, w.Code, w.Header().Get("Content-Encoding"), strings.TrimSpace(body))
	}
	// Output:
	// Accept-Encoding "gzip, deflate, br, zstd": 200, Content-Encoding "gzip", index.html.gz as it is: true
	// Accept-Encoding "": 200, Content-Encoding "", <h1>shipped compressed</h1>
}

// HashName gives templates a name that changes with the content, served
// with a year of caching while it is current.
func ExampleHandler_HashName() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "js"), 0o755)
	os.WriteFile(filepath.Join(dir, "js", "app.js"), []byte("console.log('v1')\n"), 0o644)

	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	page := template.Must(template.New("page").Funcs(template.FuncMap{
		"asset": func(name string) (string, error) {
			hashed, err := h.HashName(name)
			return "/static/" + hashed, err
		},
	}).Parse(`<script src="{{asset "js/app.js"}}"></script>`))
	var html strings.Builder
	page.Execute(&html, nil)
	fmt.Println(html.String())

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", strings.TrimPrefix(strings.Split(html.String(), `"`)[1], "/static"), nil))
	fmt.Println(w.Code, w.Header().Get("Cache-Control"))
	// Output:
	// <script src="/static/js/app.631af28df28be19e.js"></script>
	// 200 public, max-age=31536000, immutable
}

// ServeFile serves one file from an application's own route, here behind
// an authorization check, with everything ServeHTTP does: ranges,
// preconditions, compression, zero-copy.
func ExampleHandler_ServeFile() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "reports"), 0o755)
	os.WriteFile(filepath.Join(dir, "reports", "2026.csv"), []byte("month,total\n1,42\n"), 0o644)

	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /download/{year}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		h.ServeFile(w, r, "reports/"+r.PathValue("year")+".csv")
	})
	for _, auth := range []string{"", "Bearer secret"} {
		r := httptest.NewRequest("GET", "/download/2026", nil)
		r.Header.Set("Authorization", auth)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Printf("%d %q\n", w.Code, w.Body.String())
	}
	// Output:
	// 403 "forbidden\n"
	// 200 "month,total\n1,42\n"
}

// AccessLog logs every static response, zero-copy ones included, without a
// wrapping ResponseWriter: keep the router's logger for the API and let
// jaws log its files.
func ExampleOptions_accessLog() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{} // left out, so the output is the same every run
			}
			return a
		},
	}))
	h, err := jaws.New(dir, jaws.Options{AccessLog: logger})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, path := range []string{"/hello.txt", "/nope"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	// Output:
	// level=INFO msg=jaws method=GET path=/hello.txt status=200 bytes=13 transfer=memory coding=""
	// level=INFO msg=jaws method=GET path=/nope status=404 bytes=19 transfer="" coding=""
}

// OnResponse feeds metrics: here expvar counters by transfer path and
// status class, which /debug/vars serves; a Prometheus CounterVec fits the
// same way. The library adds no dependency for it.
func ExampleOptions_onResponse() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	responses := new(expvar.Map) // expvar.NewMap("jaws_responses") in a program
	bytesSent := new(expvar.Int)
	h, err := jaws.New(dir, jaws.Options{OnResponse: func(r jaws.ResponseRecord) {
		responses.Add(fmt.Sprintf("%dxx", r.Status/100), 1)
		if r.Transfer != "" {
			responses.Add(r.Transfer, 1)
		}
		bytesSent.Add(r.Bytes)
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, path := range []string{"/hello.txt", "/hello.txt", "/nope"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	fmt.Println(responses.String(), bytesSent.Value())
	// Output:
	// {"2xx": 2, "4xx": 1, "memory": 2} 45
}

// Header gives files response fields of their own, asked once per version
// of a file: here fonts readable by other origins and downloads saved
// under their name. A handler in front of jaws that sets the same field
// for a request wins.
func ExampleOptions_header() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "fonts"), 0o755)
	os.MkdirAll(filepath.Join(dir, "downloads"), 0o755)
	os.WriteFile(filepath.Join(dir, "fonts", "body.woff2"), []byte("wOF2"), 0o644)
	os.WriteFile(filepath.Join(dir, "downloads", "report.pdf"), []byte("%PDF-1.7"), 0o644)

	h, err := jaws.New(dir, jaws.Options{Header: func(name string, h http.Header) {
		switch {
		case strings.HasPrefix(name, "fonts/"):
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Cache-Control", "public, max-age=604800")
		case strings.HasPrefix(name, "downloads/"):
			h.Set("Content-Disposition", `attachment; filename="`+path.Base(name)+`"`)
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	for _, p := range []string{"/fonts/body.woff2", "/downloads/report.pdf"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		hdr := w.Result().Header
		fmt.Printf("%s: %d %q %q %q\n", p, w.Code, hdr.Get("Access-Control-Allow-Origin"),
			hdr.Get("Cache-Control"), hdr.Get("Content-Disposition"))
	}
	// Output:
	// /fonts/body.woff2: 200 "*" "public, max-age=604800" ""
	// /downloads/report.pdf: 200 "" "" "attachment; filename=\"report.pdf\""
}

// Shutdown ends a server in one call after http.Server.Shutdown, which
// waits for the requests net/http tracks but not for the zero-copy
// transfers jaws took over: Handler.Shutdown waits for those, ends the rest
// when ctx ends, and closes the handler.
func ExampleHandler_Shutdown() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("%s %q\n", resp.Status, body)

	// On SIGTERM, say:
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(ctx)
	err = errors.Join(err, h.Shutdown(ctx))
	fmt.Println("shut down:", err, <-served)

	// The handler is closed: a request that still reaches it gets 503.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/hello.txt", nil))
	fmt.Println(w.Code)
	// Output:
	// 200 OK "hello, world\n"
	// shut down: <nil> http: Server closed
	// 503
}

// A file sent from disk, larger than CacheMaxFileSize, gets an ETag from its
// size and mtime, so no request reads more of it than it sends. A digest
// sibling written at build time (sha256sum video.mp4 > video.mp4.sha256)
// gives it its content's ETag, the same on every replica whatever the
// mtimes, and an RFC 9530 Repr-Digest for clients that check downloads.
func Example_digestSibling() {
	dir, err := os.MkdirTemp("", "jaws-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	video := bytes.Repeat([]byte("not really a video\n"), 1<<16) // 1.2 MB
	os.WriteFile(filepath.Join(dir, "video.mp4"), video, 0o644)
	sum := sha256.Sum256(video) // what sha256sum writes, after the file
	os.WriteFile(filepath.Join(dir, "video.mp4.sha256"), []byte(hex.EncodeToString(sum[:])+"  video.mp4\n"), 0o644)

	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/video.mp4", nil))
	fmt.Println(w.Code, w.Body.Len(), "bytes")
	fmt.Println("ETag:", w.Header().Get("Etag"))
	fmt.Println("Repr-Digest:", w.Header().Get("Repr-Digest"))
	// Output:
	// 200 1245184 bytes
	// ETag: "2LQaqbc9sqK3u-lZCQUNwA"
	// Repr-Digest: sha-256=:2LQaqbc9sqK3u+lZCQUNwOhnFXq4Xol+XZ/JidKOj24=:
}
