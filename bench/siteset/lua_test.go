package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestSiteLua runs wrk with bench/site.lua against a server that notes
// the paths each connection asks for: every thread walks the list in
// order from its start, wrapping at the end, and the script's count is
// the server's. Skipped without wrk.
func TestSiteLua(t *testing.T) {
	t.Parallel()
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("no wrk")
	}
	list := []string{"/a", "/b", "/c", "/d", "/e", "/f"}
	name := filepath.Join(t.TempDir(), "requests.txt")
	var text []byte
	for i, p := range list {
		text = fmt.Appendf(text, "%s %d\n", p, i+1)
	}
	if err := os.WriteFile(name, text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name           string
		threads, start int
		starts         []int // where each connection must start, in any order
	}{
		{"one thread from 0", 1, 0, []int{0}},
		{"one thread from 4, wrapping", 1, 4, []int{4}},
		{"two threads", 2, 1, []int{1, 4}}, // thread 1 starts 6/2 further on
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			seen := map[string][]string{} // remote address -> paths, in order
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen[r.RemoteAddr] = append(seen[r.RemoteAddr], r.URL.Path)
				mu.Unlock()
				// Paced: wrk runs a second at the least, and unpaced it
				// and this server spend the second on both cores, which
				// the rest of the suite wants; a thousand requests a
				// connection still walk the list many times round.
				time.Sleep(time.Millisecond)
			}))
			defer srv.Close()
			n := strconv.Itoa(tc.threads)
			out, err := exec.Command(wrk, "-t"+n, "-c"+n, "-d1s", "-s", "../site.lua", srv.URL+"/",
				"--", name, strconv.Itoa(tc.start), n).CombinedOutput()
			if err != nil {
				t.Fatalf("wrk: %v\n%s", err, out)
			}
			m := regexp.MustCompile(`site: made (\d+) bytes (\d+)`).FindSubmatch(out)
			if m == nil {
				t.Fatalf("no count in wrk's output:\n%s", out)
			}
			srv.Close() // every request answered and noted
			var starts []int
			total, bytes := 0, 0
			for addr, paths := range seen {
				first := slices.Index(list, paths[0])
				starts = append(starts, first)
				for k, p := range paths {
					i := (first + k) % len(list)
					if p != list[i] {
						t.Fatalf("connection %s: request %d was %s, want %s", addr, k, p, list[i])
					}
					bytes += i + 1
				}
				total += len(paths)
			}
			slices.Sort(starts)
			if !slices.Equal(starts, tc.starts) {
				t.Errorf("connections started at %v, want %v", starts, tc.starts)
			}
			// The count is of requests made; the server saw them all
			// but those wrk dropped unsent at the end (one a connection
			// at most).
			made, _ := strconv.Atoi(string(m[1]))
			madeBytes, _ := strconv.Atoi(string(m[2]))
			if made < total || made > total+tc.threads {
				t.Errorf("site.lua made %d requests, the server saw %d", made, total)
			}
			if made == total && madeBytes != bytes {
				t.Errorf("site.lua counted %d bytes, the server's paths %d", madeBytes, bytes)
			}
		})
	}
}
