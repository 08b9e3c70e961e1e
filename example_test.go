package jaws_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaws-go/jaws"
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
