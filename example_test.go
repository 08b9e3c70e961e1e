package jaws_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

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
