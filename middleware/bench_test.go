package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// BenchmarkMiddleware_1K: what each middleware adds to a hit of a 1 KiB file
// served from memory.
func BenchmarkMiddleware_1K(b *testing.B) {
	s := testsite.New(b).File("a.1234abcd.js", testsite.Random(1<<10, 1))
	h, err := jaws.New(s.Root, jaws.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	notFound := http.NotFoundHandler()
	stacks := []struct {
		name, target string
		h            http.Handler
	}{
		{"Handler", "/a.1234abcd.js", h},
		{"Static", "/a.1234abcd.js", Static(h)(notFound)},
		{"Mount", "/assets/a.1234abcd.js", Mount("/assets", h)},
		{"SPA", "/a.1234abcd.js", SPA(h, SPAOptions{})(nil)},
		{"CacheControl+SPA", "/a.1234abcd.js", CacheControl()(SPA(h, SPAOptions{})(nil))},
	}
	for _, st := range stacks {
		b.Run(st.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", st.target, nil)
			w := &testsite.Discard{H: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.H)
				st.h.ServeHTTP(w, req)
			}
		})
	}
}
