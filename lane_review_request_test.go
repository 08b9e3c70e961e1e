package jaws_test

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// What the handlers in front of jaws do to the request (not to the
// response) is not learnt: the lane runs jaws on the request fields as the
// client sent them. docs/fastlane.md says the response headers set in front
// are learnt, and the URL a router rewrites; it says nothing of request
// fields a middleware changes, and a popular one does.

// TestReviewChiGetRouteHEAD: notes are per Host and target, not per method.
// A chi route made with r.Get answers HEAD with 405 (chi routes HEAD only
// to routes that register it, or through middleware.GetHead); once a GET
// has been learnt, the lane answers HEAD with 200.
func TestReviewChiGetRouteHEAD(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello"))
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		r := chi.NewRouter()
		r.Get("/*", h.ServeHTTP)
		return r
	}, nil)
	p.teach(t, getRaw("/a.txt"))
	head := "HEAD /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"
	lane, ref := exchange(t, p.lane, head), exchange(t, p.ref, head)
	if statusOf(lane) != statusOf(ref) {
		resp, _ := http.ReadResponse(bufio.NewReader(bytes.NewReader(ref)), &http.Request{Method: "HEAD"})
		t.Errorf("HEAD: lane %d, net/http + chi %d (Allow %q)", statusOf(lane), statusOf(ref), resp.Header.Get("Allow"))
	}
}

// TestReviewLearntSetCookie: session or CSRF middleware in front of the
// whole router sets a cookie on a response when the request has none
// (gorilla/sessions, nosurf, gorilla/csrf, ...). The lane learns the first
// client's Set-Cookie with the name and sends it to every client after:
// one session id for everyone (session fixation), and a client that has a
// session of its own gets it overwritten. jaws learns it although the
// response says "Vary: Cookie".
func TestReviewLearntSetCookie(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", []byte("hello"))
	var n atomic.Int64
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Vary", "Cookie")
			if _, err := r.Cookie("sid"); err != nil {
				http.SetCookie(w, &http.Cookie{Name: "sid", Value: "session-" + strconv.FormatInt(n.Add(1), 10), HttpOnly: true})
			}
			h.ServeHTTP(w, r)
		})
	}, nil)
	p.teach(t, getRaw("/a.txt")) // the first visitor: a session is made for it
	for _, cookie := range []string{"", "Cookie: sid=mine\r\n"} {
		lane, ref := p.both(t, getRaw("/a.txt", cookie))
		laneSet, refSet := headerOf(t, lane, "Set-Cookie"), headerOf(t, ref, "Set-Cookie")
		if (laneSet == "") != (refSet == "") || laneSet != "" && laneSet == "sid=session-1; HttpOnly" {
			t.Errorf("a visitor with %q: lane Set-Cookie %q, net/http %q", cookie, laneSet, refSet)
		}
	}
}

// TestReviewForwardedHostTenants: notes are per Host and target. Behind a
// reverse proxy that does not pass Host on, a multi-tenant site routes by
// X-Forwarded-Host (here: each tenant's files under a directory of its
// own); every tenant's request reaches jaws with the proxy's Host, and the
// lane answers all tenants with the tenant it learnt first.
func TestReviewForwardedHostTenants(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.example/index.html", []byte("tenant A\n")).File("b.example/index.html", []byte("tenant B\n"))
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tenant := r.Header.Get("X-Forwarded-Host")
			if tenant != "a.example" && tenant != "b.example" {
				http.NotFound(w, r)
				return
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + tenant + r.URL.Path
			h.ServeHTTP(w, r2)
		})
	}, nil)
	p.teach(t, getRaw("/", "X-Forwarded-Host: a.example\r\n"))
	lane, ref := p.both(t, getRaw("/", "X-Forwarded-Host: b.example\r\n"))
	if bodyOf(lane) != bodyOf(ref) {
		t.Errorf("tenant B's /: lane %q, net/http %q", bodyOf(lane), bodyOf(ref))
	}
}

// TestReviewLearntVaryAcceptEncoding: an application that sets "Vary:
// Accept-Encoding" in front of jaws, on net/http's own writer, gets
// compressed answers through net/http (outerNegotiates: nothing in front
// can encode beneath the server's own writer). On the lane the learnt Vary
// is replayed on the lane's connWriter, which outerNegotiates does not
// take for the server's own (serversOwn checks the package path): jaws
// thinks a compressor sits in front and serves identity.
func TestReviewLearntVaryAcceptEncoding(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("a.txt", bytes.Repeat([]byte("compressible text. "), 100))
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Vary", "Accept-Encoding")
			h.ServeHTTP(w, r)
		})
	}, nil)
	p.teach(t, getRaw("/a.txt"))
	raw := getRaw("/a.txt", "Accept-Encoding: gzip, br\r\n")
	var lane []byte
	if n := p.laneAnswered(func() { lane = exchange(t, p.lane, raw) }); n != 1 {
		t.Fatalf("the lane did not answer (%d)", n)
	}
	ref := exchange(t, p.ref, raw)
	if headerOf(t, lane, "Content-Encoding") != headerOf(t, ref, "Content-Encoding") {
		t.Errorf("lane: Content-Encoding %q, %d bytes; net/http: %q, %d bytes", headerOf(t, lane, "Content-Encoding"),
			len(bodyOf(lane)), headerOf(t, ref, "Content-Encoding"), len(bodyOf(ref)))
	}
}

// TestReviewCookieAuthBypass: files behind a cookie-checking middleware
// (a members' area of a site served with prefix "/", as the README
// suggests for "a site whose files are at the top"). The lane refuses to
// learn from requests with Authorization, but learns from one with a
// session Cookie: once a member has fetched a file, the lane serves it to
// anyone. The prefix's promise forbids this setup, but nothing stops it,
// and learning from no request that carries a Cookie would (the member's
// request is the only one the middleware lets through).
func TestReviewCookieAuthBypass(t *testing.T) {
	t.Parallel()
	site := testsite.New(t).File("members/report.pdf", []byte("%PDF- members only"))
	p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, err := r.Cookie("session"); err != nil || c.Value != "member" {
				http.Error(w, "members only", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
		})
	}, nil)
	p.teach(t, getRaw("/members/report.pdf", "Cookie: session=member\r\n"))
	lane, ref := p.both(t, getRaw("/members/report.pdf"))
	if statusOf(lane) != statusOf(ref) {
		t.Errorf("without the cookie: lane %d %q, net/http %d", statusOf(lane), bodyOf(lane), statusOf(ref))
	}
}

// TestReviewLearntTrailerNotLearnt: a response whose handlers in front
// announce trailers (Trailer) or set Transfer-Encoding is not learnt: the
// lane frames its answers itself, and would send neither. Such a name
// stays with net/http.
func TestReviewLearntTrailerNotLearnt(t *testing.T) {
	t.Parallel()
	for _, field := range []string{"Trailer", "Transfer-Encoding"} {
		t.Run(field, func(t *testing.T) {
			t.Parallel()
			site := testsite.New(t).File("a.txt", []byte("hello"))
			p := newReviewPair(t, site.Root, jaws.Options{}, func(h *jaws.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if field == "Trailer" {
						w.Header().Set("Trailer", "X-Checksum")
					} else {
						w.Header().Set("Transfer-Encoding", "chunked")
					}
					h.ServeHTTP(w, r)
				})
			}, nil)
			p.teach(t, getRaw("/a.txt"))
			if n := p.laneAnswered(func() { p.teach(t, getRaw("/a.txt")) }); n != 0 {
				t.Errorf("the lane answered %d times", n)
			}
		})
	}
}
