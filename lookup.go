package jaws

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Finding what a URL path names (a file, an index page, a clean URL's page,
// a hashed name), then its redirect or its answer.

// serveName serves the cleaned name; redirects says whether the URL is the
// name's, to be made canonical by a redirect. It returns the body its
// caller writes (mover.send). A request the fast lane may learn from has a
// learning, which serveName tells the file it found.
func (h *Handler) serveName(w http.ResponseWriter, r *http.Request, next http.Handler, name string, redirects bool, lr *learning) unsent {
	f, err := h.find(w, r, name)
	if err != nil {
		if errorStatus(err) == http.StatusNotFound {
			h.notFound(w, r, next)
		} else {
			h.fail(w, err)
		}
		return unsent{}
	}
	t := &f.t
	if t.listing() && (!h.opts.DirectoryListing || !redirects) {
		t.close()
		h.notFound(w, r, next)
		return unsent{}
	}
	if loc := f.redirect(r.URL.Path); redirects && loc != "" {
		t.close()
		localRedirect(w, r, loc)
		return unsent{}
	}
	if t.listing() {
		h.serveDir(w, r, t.f)
		t.close()
		return unsent{}
	}
	if lr != nil {
		lr.served(r, name, t.e)
	}
	return h.serveFound(w, r, &f)
}

// found is what a request's name resolved to, and what its transfer needs.
type found struct {
	t        target
	name     string // the file's: a hashed name's without its hash, a page's with ".html"
	hashed   bool   // the request named the file by HashName's name
	page     bool   // the request named the file without its ".html" (Options.CleanURLs)
	zeroCopy bool   // the request is a candidate for zero-copy (zeroCopyCandidate)
	need     fdNeed // the descriptor its transfer reads
	// lookupNeed is the descriptor the lookup took: none, for a request
	// that may be answered from a compressed variant in memory; serveEntry
	// takes the one its transfer reads if the answer is the file itself
	// after all.
	lookupNeed fdNeed
	// fields are those of Options.Header that serveFound added to the
	// response, the file's: dropped from an answer that is not the file's.
	fields []headerField
}

// setImmutable gives a hashed name its year of caching, unless a handler
// in front set Cache-Control.
func (f *found) setImmutable(hdr http.Header) {
	if _, set := hdr["Cache-Control"]; f.hashed && !set {
		hdr["Cache-Control"] = hdrImmutable
	}
}

// find looks name up for r, answered through w. A name HashName made is
// the file without the hash, as long as the hash is its content's, which
// never changes under this name. It is tried first: the file is cached
// under its own name, the hashed one under none. With Options.CleanURLs, a
// name that is nothing served (no file, no directory with an index page)
// is the page name+".html" when there is one (findPage).
func (h *Handler) find(w http.ResponseWriter, r *http.Request, name string) (found, error) {
	var f found
	f.zeroCopy, f.need = h.tx.need(w, r)
	f.lookupNeed = f.need
	if h.variants.mayEncode(r) {
		f.lookupNeed = fdNone
	}
	t, orig, hashed := h.resolveHashed(r.Context(), name, f.lookupNeed)
	if hashed {
		f.t, f.name, f.hashed = t, orig, true
		return f, nil
	}
	t, err := h.lookup(name, f.lookupNeed, h.opts.CleanURLs)
	if err == nil && t.e != nil && t.e.page {
		f.t, f.name, f.page = t, t.e.File, true // a page cached under name
		return f, nil
	}
	f.t, f.name = t, name
	if h.opts.CleanURLs {
		if pt, ok := h.findPage(name, t, err, f.lookupNeed); ok {
			t.close()
			f.t, f.name, f.page = pt, name+htmlExt, true
			return f, nil
		}
	}
	return f, err
}

// findPage looks for the page of name (Options.CleanURLs), whose lookup
// gave t and err: name+".html", when name is nothing served.
func (h *Handler) findPage(name string, t target, err error, need fdNeed) (target, bool) {
	if name == "." || strings.HasSuffix(name, htmlExt) {
		return target{}, false
	}
	var pt target
	var perr error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Cached under name, standing on name and its compressed-only
		// siblings being missing: a hit costs what the page's own does.
		pt, perr = h.store.page(name, name+htmlExt, h.variants.codedNames(name))
		if errors.Is(perr, fs.ErrNotExist) {
			// A compressed-only page: not cached under name.
			pt, perr = h.variants.onlyCoded(name+htmlExt, name+htmlExt, false)
		}
	case err == nil && t.listing():
		// Not cached: a directory's index page that appears is served
		// from the next request on. No event of this directory would
		// tell the page's entry.
		pt, perr = h.lookup(name+htmlExt, need, false)
	default:
		return target{}, false
	}
	if perr != nil {
		return target{}, false
	}
	if pt.isDir() {
		pt.close()
		return target{}, false
	}
	return pt, true
}

// lookup is the store's lookup of name, and where the store finds no file,
// or a directory without index page, a compressed-only one (compressedonly.go).
// With pages, a page cached under name is found too (store.lookupPage).
func (h *Handler) lookup(name string, need fdNeed, pages bool) (target, error) {
	var t target
	var err error
	if pages || !h.opts.CleanURLs {
		// Without CleanURLs no page is cached: nothing to tell apart.
		t, err = h.store.lookupPage(name, need)
	} else {
		t, err = h.store.lookup(name, need)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t, err = h.variants.onlyCoded(name, name, false)
	case err == nil && t.listing():
		if it, ierr := h.variants.onlyCoded(name, path.Join(name, indexPage), true); ierr == nil {
			t.close()
			t = it
		}
	}
	return t, err
}

// htmlExt is what Options.CleanURLs adds to a name.
const htmlExt = ".html"

// redirect returns the Location that makes urlPath, the URL f was found
// for, canonical, or "": a directory's ends in a slash, a file's does not,
// and a page found by CleanURLs for ".../index" is its directory's.
func (f *found) redirect(urlPath string) string {
	loc := redirectFor(urlPath, f.t.isDir())
	if loc == "" && f.page && path.Base(f.name) == indexPage {
		loc = "./"
	}
	return loc
}

// serveFound serves f, a regular file found for r: its fields
// (Options.Header), its coding, then serveEntry. It releases f's
// descriptors.
func (h *Handler) serveFound(w http.ResponseWriter, r *http.Request, f *found) unsent {
	defer f.t.close()
	f.setImmutable(w.Header())
	// The file's fields, as if set in front of jaws (after a hashed
	// name's Cache-Control, before the dictionary rules read): every
	// variant is served with its file's.
	f.fields = f.t.e.rep.fields
	addFields(w.Header(), f.fields)
	// An outer handler that set Content-Encoding encodes the body itself.
	_, outerEncoded := w.Header()["Content-Encoding"]
	var d dictUse // compression dictionaries (dictionary.go)
	if !outerEncoded && h.variants.has(f.t.e) && !outerNegotiates(w) {
		d = h.variants.dictFor(w.Header(), r, f.t.e, f.hashed)
		h.variants.addVary(w.Header(), &d)
		// A range is a range of the file, whatever the client accepts:
		// one resuming a download from its decoded size gets the bytes
		// that follow it.
		if !asksRange(r) {
			if v, ok := h.variants.choose(r, f.name, f.t.e, f.need, &d); ok {
				f.t.close()
				f.t = v
			}
		}
	}
	if f.t.e.index {
		// A compressed-only file's identity: no coding chosen, or a range,
		// or a handler in front that encodes (compressedonly.go).
		v, err := h.variants.identityOf(r.Context(), f.t.e)
		if err != nil {
			h.failFound(w, f, err)
			return unsent{}
		}
		f.t.close()
		f.t = v
		f.lookupNeed = fdNone
	}
	if f.need != f.lookupNeed && !h.store.holdsVersion(&f.t) {
		// The file itself after all, changed in a way the lookup's
		// confirmation did not see: its new version.
		f.t.close()
		h.store.forget(f.name)
		dropFields(w.Header(), f.fields)
		var err error
		if f.t, err = h.store.lookup(f.name, f.need); err != nil || f.t.listing() {
			h.fail(w, errChanged)
			return unsent{}
		}
		f.fields = f.t.e.rep.fields
		addFields(w.Header(), f.fields)
	}
	return h.serveEntry(w, r, f, outerEncoded, &d)
}

// failFound answers err for f, a file found that cannot be served after
// all. Options.Header's fields go: they are the file's answer's, not an
// error's.
func (h *Handler) failFound(w http.ResponseWriter, f *found, err error) {
	dropFields(w.Header(), f.fields)
	h.fail(w, err)
}

// localRedirect redirects with a relative Location, as http.FileServer does,
// so it stays right under http.StripPrefix and any mount point. Unlike
// http.FileServer it percent-encodes the name: Location is a URI reference
// (RFC 9110 §10.2.2), and a directory named "c#d" or "100%" must not turn
// into a fragment or an unparsable URL. url.URL also guards a first segment
// with a colon ("a:b/"), which would otherwise read as a scheme.
func localRedirect(w http.ResponseWriter, r *http.Request, loc string) {
	loc = (&url.URL{Path: loc}).String()
	if q := r.URL.RawQuery; q != "" {
		loc += "?" + q
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
}
