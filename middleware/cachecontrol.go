package middleware

import (
	"net/http"
	"path"
	"strings"

	"github.com/jaws-go/jaws/internal/httprule"
)

// Cache-Control values for CacheRule.Value.
const (
	// CacheImmutable, "public, max-age=31536000, immutable", lets any
	// cache keep a response for a year without asking again (RFC 8246): for
	// names that change whenever their content does, such as
	// app.3f9a1c2b.js. It is the value jaws.Handler sets on the names
	// HashName makes.
	CacheImmutable = httprule.Immutable
	// CacheNoCache lets caches store a response but not use it before
	// revalidating it, which the ETag makes cheap (a 304): for pages whose
	// name stays while their content changes, such as index.html.
	CacheNoCache = "no-cache"
)

// CacheRule gives the requests whose URL path it matches a Cache-Control
// value.
type CacheRule struct {
	// Match reports whether the rule applies to a URL path, as this
	// middleware sees it (after any prefix an outer handler stripped). nil
	// matches every path, for a last, catch-all rule. A *regexp.Regexp's
	// MatchString fits, as do Fingerprinted, HTMLPath and Glob.
	Match func(urlPath string) bool
	// Value is the Cache-Control header to set. "" sets none, so a rule can
	// exempt paths from the ones after it.
	Value string
}

// DefaultCacheRules are the rules CacheControl uses when given none:
// fingerprinted names, whose content changes only with the name, are
// immutable (CacheImmutable): the hashed names that webpack, Vite, Rollup,
// esbuild, Parcel, hashfs and Handler.HashName write, as Fingerprinted
// tells them apart from ordinary ones. HTML pages, directories and
// extensionless paths (client routes of a single-page application) are
// no-cache (CacheNoCache), and anything else gets no Cache-Control, leaving
// freshness to the client's heuristics on Last-Modified. Prepend your own
// rules to change it: the first rule that matches wins.
//
// Fingerprinted judges a name alone, and rather misses a hash than takes an
// ordinary name for one, so some of a bundler's hashed names stay without
// the immutable policy (see Fingerprinted). Where the layout of a build
// says which files are hashed, a rule on it misses none. Vite writes every
// hashed file, and nothing else, to assets/ (unless its public/ folder has
// an assets/ of its own):
//
//	rules := append([]middleware.CacheRule{
//		{Match: middleware.Glob("/assets/*"), Value: middleware.CacheImmutable},
//	}, middleware.DefaultCacheRules()...)
func DefaultCacheRules() []CacheRule {
	return []CacheRule{
		{Match: Fingerprinted, Value: CacheImmutable},
		{Match: HTMLPath, Value: CacheNoCache},
	}
}

// CacheControl returns middleware that sets Cache-Control on GET and HEAD
// requests from the first of rules that matches the URL path (or from
// DefaultCacheRules when no rules are given), before calling next.
//
// The header is set before next runs, so next can still change or remove it:
// an API route behind the same middleware sets its own. A jaws.Handler keeps
// it on 200, 206 and 304 responses (a revalidated response carries the same
// policy) and drops it from its own error responses, as net/http does, so a
// 404 is not cached for a year. A custom error page (jaws.Options.NotFound,
// or the next handler behind Static) must drop or replace it itself:
//
//	w.Header().Del("Cache-Control")
//
// Put CacheControl in front of the static routes only:
//
//	r.With(middleware.CacheControl()).Mount("/assets", middleware.Mount("/assets", h))
//
// jaws reads the policy: a day or more of max-age on a versioned name lets
// it use compression dictionaries. "The response header contract" in the
// repository's CONTRIBUTING.md says which later step reads which field.
func CacheControl(rules ...CacheRule) func(next http.Handler) http.Handler {
	if len(rules) == 0 {
		rules = DefaultCacheRules()
	}
	type compiled struct {
		match func(string) bool
		value []string // shared by every response, never modified
	}
	cr := make([]compiled, len(rules))
	for i, rule := range rules {
		cr[i].match = rule.Match
		if rule.Value != "" {
			cr[i].value = []string{rule.Value}
		}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isGetOrHead(r) {
				for _, rule := range cr {
					if rule.match == nil || rule.match(r.URL.Path) {
						if rule.value != nil {
							w.Header()["Cache-Control"] = rule.value
						}
						break
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// HTMLPath reports whether urlPath names an HTML page: a .html or .htm file,
// a directory (a path ending in a slash, served by its index.html), or a
// last element without an extension, as a single-page application's client
// routes are.
func HTMLPath(urlPath string) bool {
	if urlPath == "" || strings.HasSuffix(urlPath, "/") {
		return true
	}
	switch strings.ToLower(path.Ext(urlPath)) {
	case ".html", ".htm":
		return true
	case "":
		return true
	}
	return false
}

// Glob returns a matcher for a path.Match pattern. A pattern without a slash
// matches the last element of the path ("*.woff2"); one with a slash matches
// the whole path ("/fonts/*").
func Glob(pattern string) func(urlPath string) bool {
	if _, err := path.Match(pattern, ""); err != nil {
		panic("middleware.Glob: bad pattern " + pattern + ": " + err.Error())
	}
	whole := strings.Contains(pattern, "/")
	return func(urlPath string) bool {
		name := urlPath
		if !whole {
			name = path.Base(urlPath)
		}
		ok, _ := path.Match(pattern, name)
		return ok
	}
}
