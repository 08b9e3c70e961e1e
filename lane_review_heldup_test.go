package jaws_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// Probes that held up: kept as passing tests, so that a fix of the
// findings does not undo them.

// TestReviewDeployOnKeepAliveLaneConn: a deploy changes a learnt file while
// a client holds a keep-alive connection on the lane; its next request, on
// that connection, sees the change: deleted, renamed over, rewritten in
// place with the same size and mtime, or the root symlink flipped to a
// new release.
func TestReviewDeployOnKeepAliveLaneConn(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	tests := []struct {
		name   string
		deploy func(site *testsite.Site, root string)
		want   string // status and body of the next request
	}{
		{"deleted", func(s *testsite.Site, root string) { os.Remove(filepath.Join(root, "a.txt")) }, "404"},
		{"renamed over", func(s *testsite.Site, root string) { s.Replace("v1/a.txt", []byte("version 2")) }, "200 version 2"},
		{"rewritten in place, same size and mtime", func(s *testsite.Site, root string) {
			p := filepath.Join(root, "a.txt")
			os.WriteFile(p, []byte("VERSION 1"), 0o644)
			os.Chtimes(p, old, old)
		}, "200 VERSION 1"},
		{"root symlink flipped", func(s *testsite.Site, root string) {
			s.File("v2/a.txt", []byte("release 2"))
			s.Symlink("next", "v2")
			os.Rename(s.Path("next"), s.Path("current"))
		}, "200 release 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			site := testsite.New(t).FileAt("v1/a.txt", []byte("version 1"), old).Symlink("current", "v1")
			root := site.Path("current")
			p := newReviewPair(t, root, jaws.Options{}, nil, nil)
			p.teach(t, getRaw("/a.txt", "Connection: close\r\n"))
			c := dialRawConn(t, p.lane)
			br := bufio.NewReader(c)
			io.WriteString(c, getRaw("/a.txt"))
			if _, body, err := readOne(br, "GET"); err != nil || body != "version 1" {
				t.Fatalf("before: %q %v", body, err)
			}
			if p.laneH.Stats().Lane.Responses != 1 {
				t.Fatal("the lane did not answer")
			}
			tc.deploy(site, root)
			io.WriteString(c, getRaw("/a.txt"))
			resp, body, err := readOne(br, "GET")
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Status[:3]
			if resp.StatusCode == 200 {
				got += " " + body
			}
			if got != tc.want {
				t.Errorf("after the deploy: %q, want %q", got, tc.want)
			}
		})
	}
}
