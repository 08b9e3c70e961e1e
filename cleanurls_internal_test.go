package jaws

import (
	"strings"
	"testing"

	"github.com/jaws-go/jaws/internal/testsite"
)

// TestCleanURLsHitCosts: a page hit by its clean URL is one cache lookup
// and one look at the root, as a hit of the page's own name is. It opens
// nothing and stats nothing: the page's entry stands on the name and its
// compressed-only siblings being missing (store.page), and events vouch
// for them. A name that is a file, or a compressed-only file, then wins at
// the next request. A page beside a directory without an index page is
// looked up on every request (findPage).
func TestCleanURLsHitCosts(t *testing.T) {
	t.Parallel()
	p := strings.ReplaceAll(t.Name(), "/", "-")
	page := []byte(strings.Repeat("<p>a page</p>\n", 100))
	s := testsite.New(t).File(p+"/about.html", page)
	h := newTestHandler(t, s.Root, Options{CleanURLs: true})
	get := func(target, accept, want string) {
		t.Helper()
		w := testsite.Serve(h, "GET", target, "Accept-Encoding", accept)
		got := w.Body.String()
		if w.Header().Get("Content-Encoding") == "gzip" {
			got = string(decodeAs(t, "gzip", w.Body.Bytes()))
		}
		if w.Code != 200 || got != want {
			t.Fatalf("GET %s: %d %.40q, want 200 %.40q", target, w.Code, got, want)
		}
	}
	for _, accept := range []string{"", "gzip"} {
		get("/"+p+"/about", accept, string(page))
	}
	h.store.cache.sync()
	names := []string{p + "/about", p + "/about.html", p + "/about.br", p + "/about.gz", p + "/about.zst"}
	before := map[string][2]int64{}
	for _, n := range names {
		before[n] = [2]int64{openCount(n), statCount(n)}
	}
	looks, st := lookCount(h), h.Stats()
	for range 3 {
		for _, accept := range []string{"", "gzip"} {
			get("/"+p+"/about", accept, string(page))
		}
	}
	for _, n := range names {
		if o, s := openCount(n)-before[n][0], statCount(n)-before[n][1]; o != 0 || s != 0 {
			t.Errorf("6 hits of /%s/about: %d opens and %d stats of %s, want none", p, o, s, n)
		}
	}
	if n := lookCount(h) - looks; n != 6 {
		t.Errorf("6 hits looked at the root %d times, want 6", n)
	}
	if n := h.Stats().CacheMisses - st.CacheMisses; n != 0 {
		t.Errorf("6 hits counted %d cache misses, want none", n)
	}

	// What wins over the page appears: the next request serves it.
	s.File(p+"/about.gz", encodeAs(gzipCoding, []byte("compressed-only about"), ""))
	get("/"+p+"/about", "", "compressed-only about")
	s.File(p+"/about", []byte("the file about"))
	get("/"+p+"/about", "", "the file about")
}
