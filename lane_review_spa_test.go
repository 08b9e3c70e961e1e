package jaws_test

import (
	"net/http"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
	"github.com/jaws-go/jaws/middleware"
)

// The SPA middleware answers a missing name with the index page when the
// request is a client route: a decision made from the request's Accept
// field and from the name's absence. The lane must not learn the index
// page under the client route's target, or it would replay it for every
// request of that target, whatever its Accept, and whatever the tree holds
// later. The project's own example serves its site this way
// (example/routes.go: filesFirst(..., jawsmw.SPA(h, ...)), behind
// h.FastLane(ln, srv, "/") in example/main.go).

func spaSite(t *testing.T) (*testsite.Site, *reviewPair) {
	site := testsite.New(t).
		File("index.html", []byte("<!doctype html><title>app</title><div id=app></div>\n")).
		File("app.js", []byte("console.log('app')\n"))
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		return middleware.SPA(h, middleware.SPAOptions{})(nil)
	}, nil)
	// A browser navigates to a client route: the index page, through srv.
	// The SPA answers it with a path of its own, so the lane learns
	// nothing (laneMaps) and hands the route to srv every time.
	const nav = "GET /about HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
	p.teach(t, nav)
	if n := p.laneAnswered(func() { exchange(t, p.lane, nav) }); n != 0 {
		t.Fatalf("the lane learnt a client route (%d lane answers)", n)
	}
	return site, p
}

// TestReviewSPAAcceptIgnoredOnLane: once a client route is learnt, the lane
// answers it with the index page for a request that is not a client route
// (Accept without text/html: a fetch asking for JSON, curl, a crawler), which
// net/http + SPA answer with 404. The learnt "Vary: Accept" even tells
// caches the 200 holds for that Accept.
func TestReviewSPAAcceptIgnoredOnLane(t *testing.T) {
	t.Parallel()
	_, p := spaSite(t)
	for _, accept := range []string{"Accept: application/json\r\n", "Accept: */*\r\n", ""} {
		lane, ref := p.both(t, getRaw("/about", accept))
		if statusOf(lane) != statusOf(ref) {
			t.Errorf("%q: lane %d (%d bytes, Vary %q), net/http + SPA %d", accept, statusOf(lane), len(bodyOf(lane)),
				headerOf(t, lane, "Vary"), statusOf(ref))
		}
	}
}

// TestReviewSPANeverStale: a deploy adds a page for a name the lane had
// learnt as a client route. A request made after the deploy completed gets,
// from net/http + SPA, the new page (here the canonical redirect to its
// directory, as for any directory); from the lane, the old index page, for
// as long as index.html does not change.
func TestReviewSPANeverStale(t *testing.T) {
	t.Parallel()
	site, p := spaSite(t)
	site.File("about/index.html", []byte("<!doctype html><title>about</title><p>pre-rendered</p>\n"))
	raw := "GET /about HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
	lane, ref := p.both(t, raw)
	if statusOf(lane) != statusOf(ref) || bodyOf(lane) != bodyOf(ref) {
		t.Errorf("after the deploy: lane %d %q, net/http + SPA %d (Location %q)", statusOf(lane),
			bodyOf(lane), statusOf(ref), headerOf(t, ref, "Location"))
	}
}

// TestReviewSPANeverStaleFile: the same with a file: a route learnt as the
// index page keeps being the index page on the lane after a file of that
// name was deployed.
func TestReviewSPANeverStaleFile(t *testing.T) {
	t.Parallel()
	site, p := spaSite(t)
	site.File("about", []byte("the about file, deployed after the route was learnt\n"))
	raw := "GET /about HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
	lane, ref := p.both(t, raw)
	if bodyOf(lane) != bodyOf(ref) {
		t.Errorf("after the deploy: lane %d %q, net/http + SPA %d %q", statusOf(lane), bodyOf(lane), statusOf(ref), bodyOf(ref))
	}
}
