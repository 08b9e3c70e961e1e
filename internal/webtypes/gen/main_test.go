package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withPins returns db with an entry for each pinned type, claiming its
// extension, as the real dataset has them.
func withPins(db map[string]entry) map[string]entry {
	db = maps.Clone(db)
	for ext, typ := range prefer {
		e := db[typ]
		e.Source = "iana"
		e.Extensions = append(e.Extensions, strings.TrimPrefix(ext, "."))
		db[typ] = e
	}
	return db
}

// TestBuild: the selection, the duplicate rule and the charset rule on a
// small dataset.
func TestBuild(t *testing.T) {
	t.Parallel()
	db := withPins(map[string]entry{
		"application/mp4":                 {Source: "iana", Extensions: []string{"mp4", "m4p"}},
		"application/json":                {Source: "iana", Charset: "UTF-8", Extensions: []string{"json", "map"}},
		"application/x-obscure":           {Source: "apache", Extensions: []string{"obs"}},
		"image/vnd.adobe.photoshop":       {Source: "iana", Extensions: []string{"psd"}},
		"image/vnd.microsoft.icon":        {Source: "iana", Extensions: []string{"ico"}},
		"image/x-icon":                    {Source: "apache", Extensions: []string{"ico"}},
		"image/svg+xml":                   {Source: "iana", Extensions: []string{"svg"}},
		"text/css":                        {Source: "iana", Charset: "UTF-8", Extensions: []string{"css"}},
		"text/x-org":                      {Extensions: []string{"org"}},
		"application/vnd.lotus-organizer": {Source: "iana", Extensions: []string{"org"}},
		"font/woff2":                      {Source: "iana", Extensions: []string{"woff2"}},
	})
	table, err := build(db)
	if err != nil {
		t.Fatal(err)
	}
	for ext, want := range map[string]string{
		".mp4":   "video/mp4",                       // pinned over application/mp4
		".m4p":   "",                                // application/mp4 is not a web type
		".map":   "application/json; charset=utf-8", // the dataset says UTF-8
		".obs":   "",
		".psd":   "",                         // a vendor tree
		".ico":   "image/vnd.microsoft.icon", // IANA over Apache
		".svg":   "image/svg+xml",            // no charset
		".css":   "text/css; charset=utf-8",
		".org":   "", // the winner is no web type: left to the host
		".woff2": "font/woff2",
		".js":    "text/javascript; charset=utf-8",
	} {
		if got := table[ext]; got != want {
			t.Errorf("%s: %q, want %q", ext, got, want)
		}
	}
}

// TestBuildTie: two types of the same source for one extension, with no
// pin, stop the generator.
func TestBuildTie(t *testing.T) {
	t.Parallel()
	db := withPins(map[string]entry{
		"audio/x-one": {Source: "apache", Extensions: []string{"one"}},
		"video/x-one": {Source: "apache", Extensions: []string{"one"}},
	})
	if _, err := build(db); err == nil || !strings.Contains(err.Error(), ".one") {
		t.Fatalf("build: %v, want an error naming .one", err)
	}
}

// TestBuildStalePin: a pin the dataset does not back stops the generator.
func TestBuildStalePin(t *testing.T) {
	t.Parallel()
	db := withPins(map[string]entry{})
	delete(db, "audio/wav")
	if _, err := build(db); err == nil || !strings.Contains(err.Error(), ".wav") {
		t.Fatalf("build: %v, want an error naming .wav", err)
	}
}

// TestTableUpToDate regenerates the table from the db.json that JAWS_MIME_DB
// names, and compares it with the one committed. It skips without JAWS_MIME_DB.
func TestTableUpToDate(t *testing.T) {
	db := os.Getenv("JAWS_MIME_DB")
	if db == "" {
		t.Skip("JAWS_MIME_DB names no db.json")
	}
	out := filepath.Join(t.TempDir(), "table.go")
	if err := run(db, out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../table.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("table.go differs from what gen makes of JAWS_MIME_DB: run gen and commit")
	}
}
