package jaws_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/testsite"
)

// TestNameCaseRouteGuard is the route bypass a case-insensitive file system
// opens: chi guards /private/* with authentication and jaws serves the
// rest, as an application mounts it (the router's NotFound). chi matches
// the path as spelled, so /PRIVATE/secret.txt misses the guard and reaches
// jaws; on Windows (NTFS), macOS (APFS) and in Linux casefold directories
// the file system would open private/secret.txt for it, and for the other
// spellings Windows accepts (trailing dots and spaces, 8.3 short names,
// stream suffixes). jaws serves a name only as it is stored: each of them
// is a 404, or the guard's 401. Under Wine (.ci/run), which resolves names
// case-insensitively on a Linux directory, it fails without that check; on
// a case-sensitive file system it passes either way.
func TestNameCaseRouteGuard(t *testing.T) {
	t.Parallel()
	const secret = "the-private-secret"
	dir := testsite.At(t, testsite.TempDir(t)).
		File("private/secret.txt", []byte(secret)).
		File("private/index.html", []byte("<p>"+secret+"</p>")).
		File("private/deep/er.txt", []byte(secret)).
		File("public/hello.txt", []byte("hello")).
		File("Mixed/Case.txt", []byte("mixed")).
		Path(".")
	h, err := jaws.New(dir, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	r := chi.NewRouter()
	r.Group(func(r chi.Router) {
		r.Use(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.Header.Get("Authorization") != "Bearer ok" {
					http.Error(w, "unauthorized", http.StatusUnauthorized)
					return
				}
				next.ServeHTTP(w, req)
			})
		})
		r.Handle("/private", h)
		r.Handle("/private/*", h)
	})
	r.NotFound(h.ServeHTTP)
	srv := testsite.Start(t, testsite.HTTP1, r)

	tests := []struct {
		name, target string
		status       int
		want         string
		auth         bool
	}{
		// Controls: the file is there and served to whoever passes the
		// guard; the rest of the site is public; names stored in mixed
		// case are served as stored.
		{"control/authorized", "/private/secret.txt", 200, secret, true},
		{"control/unauthorized", "/private/secret.txt", 401, "", false},
		{"control/public", "/public/hello.txt", 200, "hello", false},
		{"control/mixed", "/Mixed/Case.txt", 200, "mixed", false},

		{"case/upper-dir", "/PRIVATE/secret.txt", 404, "", false},
		{"case/title-dir", "/Private/secret.txt", 404, "", false},
		{"case/mixed", "/pRiVaTe/SeCrEt.TxT", 404, "", false},
		{"case/deep", "/PRIVATE/deep/er.txt", 404, "", false},
		{"case/deep-inner", "/PRIVATE/DEEP/ER.TXT", 404, "", false},
		{"case/index", "/PRIVATE/", 404, "", false},
		{"case/dir-no-slash", "/PRIVATE", 404, "", false},
		{"case/guarded-file", "/private/SECRET.TXT", 401, "", false},
		{"case/public-lower", "/mixed/case.txt", 404, "", false},
		{"case/public-file", "/Mixed/case.txt", 404, "", false},

		{"dot/dir", "/private./secret.txt", 404, "", false},
		{"dot/dirs", "/private../secret.txt", 404, "", false},
		{"dot/file", "/private/secret.txt.", 401, "", false},
		{"dot/file-unguarded", "/PRIVATE/secret.txt.", 404, "", false},
		{"space/dir", "/private%20/secret.txt", 404, "", false},
		{"space/dir-dot", "/private.%20/secret.txt", 404, "", false},
		{"space/file", "/PRIVATE/secret.txt%20", 404, "", false},

		{"short/dir", "/PRIVAT~1/secret.txt", 404, "", false},
		{"short/dir-lower", "/privat~1/secret.txt", 404, "", false},
		{"short/file", "/PRIVATE/SECRET~1.TXT", 404, "", false},

		{"stream/data", "/PRIVATE/secret.txt::$DATA", 404, "", false},
		{"stream/data-one-colon", "/PRIVATE/secret.txt:$DATA", 404, "", false},
		{"stream/dir", "/private::$INDEX_ALLOCATION/secret.txt", 404, "", false},
		{"stream/dir-i30", "/private:$I30:$INDEX_ALLOCATION/secret.txt", 404, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var hdr []string
			leak := secret // what no answer may hold: the secret, unless authorized
			if tt.auth {
				hdr, leak = []string{"Authorization", "Bearer ok"}, "\x00"
			}
			resp, body := srv.Get(t, tt.target, hdr...)
			testsite.CheckAnswer(t, tt.target, resp, body, tt.status, tt.want, leak)
		})
	}
}
