// Command gen writes internal/webtypes/table.go, jaws's table of the web's
// content types by extension, from db.json of the mime-db package on the npm
// registry (the dataset Express and serve-static use). It reads nothing but
// the files it is given, so it needs no network. Fetch a release, then run
// it from the repository's root:
//
//	npm pack --pack-destination /tmp mime-db@1.54.0 && tar -xzf /tmp/mime-db-1.54.0.tgz -C /tmp
//	go run ./internal/webtypes/gen -db /tmp/package/db.json
//
// The version comes from the package.json beside db.json, and the table
// records it with db.json's SHA-256. With JAWS_MIME_DB naming that db.json,
// TestTableUpToDate checks that table.go is what gen makes of it.
//
// # Which types
//
// A type is in the table when it is one the web serves:
//
//   - its top-level type is text, image, audio, video or font, and its
//     subtype is not in a vendor or personal tree ("vnd.", "prs."): those
//     name one product's formats, and the web serves few of them; or
//   - it is in extraTypes: the application types of scripts' data,
//     manifests, WASM, feeds, streaming playlists, legacy fonts and
//     documents, and the favicon's type.
//
// # Which type, when the dataset maps an extension twice
//
// Every type the dataset gives an extension competes for it, in the table
// or not. The winner is picked so:
//
//  1. a type pinned in prefer wins (each entry says why);
//  2. else the type from the best source wins: IANA's registry, then
//     Apache's table, then nginx's, then mime-db's own additions;
//  3. a tie is an error that names the extension: pin it in prefer.
//
// An extension is kept when its winner is in the table. One whose winner is
// not is left out: it is not given to a loser.
//
// # Charset
//
// text/* types, and types whose dataset entry says charset UTF-8
// (application/json, application/manifest+json), get "; charset=utf-8",
// as Go's mime package writes text types. Others go without: an SVG or
// XHTML document declares its own encoding.
package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// extraTypes are the types in the table beyond the top-level rule.
var extraTypes = map[string]bool{
	// Scripts' data, manifests and modules.
	"application/json":          true, // .json, and .map: source maps
	"application/ld+json":       true,
	"application/geo+json":      true,
	"application/manifest+json": true, // .webmanifest
	"application/wasm":          true,
	// Documents of the web: XHTML and feeds.
	"application/xhtml+xml": true,
	"application/atom+xml":  true,
	"application/rss+xml":   true,
	// Fonts: .eot, which old browsers load.
	"application/vnd.ms-fontobject": true,
	// Audio and video: streaming playlists and manifests (HLS, DASH), Ogg.
	"application/vnd.apple.mpegurl": true, // .m3u8, RFC 8216
	"application/dash+xml":          true, // .mpd
	"application/ogg":               true, // .ogx
	// Images: the favicon's registered type.
	"image/vnd.microsoft.icon": true,
	// Documents people download.
	"application/pdf":               true,
	"application/epub+zip":          true,
	"application/rtf":               true,
	"application/msword":            true,
	"application/vnd.ms-excel":      true,
	"application/vnd.ms-powerpoint": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   true,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
	"application/vnd.oasis.opendocument.text":                                   true,
	"application/vnd.oasis.opendocument.spreadsheet":                            true,
	"application/vnd.oasis.opendocument.presentation":                           true,
}

// prefer pins the type of extensions the dataset maps twice, where the
// source does not decide or its answer is not the web's.
var prefer = map[string]string{
	".js":   "text/javascript", // RFC 9239; application/javascript is obsolete
	".mp3":  "audio/mpeg",      // RFC 3003; audio/mp3 is unregistered
	".mp4":  "video/mp4",       // RFC 4337 §2: application/mp4 is for files with neither audio nor video
	".mpg4": "video/mp4",       // as .mp4
	".3gpp": "video/3gpp",      // the container usually holds video; audio/3gpp is for audio alone
	".mts":  "video/mp2t",      // AVCHD video, not the model format
	".rtf":  "application/rtf", // RTF is 7-bit with its own code pages, so no text charset
	".xml":  "text/xml",        // as Go's mime package, so jaws agrees with http.FileServer
	".wav":  "audio/wav",       // the common name; audio/x-wav is Apache's unregistered one, audio/wave an alias
}

// entry is a type of db.json: the fields the rules read.
type entry struct {
	Source     string   `json:"source"`
	Charset    string   `json:"charset"`
	Extensions []string `json:"extensions"`
}

func main() {
	db := flag.String("db", "", "mime-db's `db.json`; the package.json beside it gives the version")
	out := flag.String("o", "internal/webtypes/table.go", "the Go `file` to write")
	flag.Parse()
	if *db == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*db, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dbPath, out string) error {
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		return err
	}
	version, err := readVersion(filepath.Join(filepath.Dir(dbPath), "package.json"))
	if err != nil {
		return err
	}
	var db map[string]entry
	if err := json.Unmarshal(raw, &db); err != nil {
		return fmt.Errorf("%s: %v", dbPath, err)
	}
	table, err := build(db)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	src, err := render(version, hex.EncodeToString(sum[:]), table)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// readVersion returns the version of the mime-db package.json at path.
func readVersion(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if pkg.Name != "mime-db" || pkg.Version == "" {
		return "", fmt.Errorf("%s: not mime-db's package.json (name %q, version %q)", path, pkg.Name, pkg.Version)
	}
	return pkg.Version, nil
}

// build returns the table: extension, with its dot, to Content-Type.
func build(db map[string]entry) (map[string]string, error) {
	claims := map[string][]string{} // extension -> every type that claims it
	for typ, e := range db {
		for _, ext := range e.Extensions {
			// jaws looks up lower-case extensions.
			if ext == "" || ext != strings.ToLower(ext) || strings.ContainsAny(ext, "./") {
				return nil, fmt.Errorf("%s: extension %q is not lower-case, or not one path.Ext returns", typ, ext)
			}
			claims["."+ext] = append(claims["."+ext], typ)
		}
	}
	for _, ext := range slices.Sorted(maps.Keys(prefer)) {
		if typ := prefer[ext]; !slices.Contains(claims[ext], typ) {
			return nil, fmt.Errorf("prefer: the dataset does not map %s to %s", ext, typ)
		}
	}
	table := map[string]string{}
	for _, ext := range slices.Sorted(maps.Keys(claims)) {
		types := claims[ext]
		if !slices.ContainsFunc(types, inTable) {
			continue
		}
		typ, err := winner(ext, types, db)
		if err != nil {
			return nil, err
		}
		if inTable(typ) {
			table[ext] = withCharset(typ, db[typ])
		}
	}
	return table, nil
}

// inTable reports whether typ is one the web serves (see the package doc).
func inTable(typ string) bool {
	top, sub, _ := strings.Cut(typ, "/")
	switch top {
	case "text", "image", "audio", "video", "font":
		if !strings.HasPrefix(sub, "vnd.") && !strings.HasPrefix(sub, "prs.") {
			return true
		}
	}
	return extraTypes[typ]
}

// winner picks the type of ext among the types that claim it.
func winner(ext string, types []string, db map[string]entry) (string, error) {
	if typ, ok := prefer[ext]; ok {
		return typ, nil
	}
	types = slices.Clone(types)
	slices.SortFunc(types, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(db[a].Source), rank(db[b].Source)), strings.Compare(a, b))
	})
	if len(types) > 1 && rank(db[types[0]].Source) == rank(db[types[1]].Source) {
		return "", fmt.Errorf("%s: %s and %s tie (source %q): pin one in prefer", ext, types[0], types[1], db[types[0]].Source)
	}
	return types[0], nil
}

// rank orders sources, best first: registered types before the servers'
// tables, and those before mime-db's own additions.
func rank(source string) int {
	switch source {
	case "iana":
		return 0
	case "apache":
		return 1
	case "nginx":
		return 2
	}
	return 3
}

// withCharset is typ as a Content-Type: text/* and types the dataset
// marks as UTF-8 get "; charset=utf-8".
func withCharset(typ string, e entry) string {
	if strings.HasPrefix(typ, "text/") || strings.EqualFold(e.Charset, "UTF-8") {
		return typ + "; charset=utf-8"
	}
	return typ
}

// render returns the Go source of the table, its keys sorted.
func render(version, sum string, table map[string]string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./internal/webtypes/gen; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package webtypes\n\n")
	fmt.Fprintf(&b, "// Version is the mime-db release the table comes from.\n")
	fmt.Fprintf(&b, "const Version = %q\n\n", version)
	fmt.Fprintf(&b, "// dbSHA256 is the SHA-256 of that release's db.json.\n")
	fmt.Fprintf(&b, "const dbSHA256 = %q\n\n", sum)
	fmt.Fprintf(&b, "// table maps an extension, lower-case with its dot, to its Content-Type.\n")
	fmt.Fprintf(&b, "var table = map[string]string{\n")
	for _, ext := range slices.Sorted(maps.Keys(table)) {
		fmt.Fprintf(&b, "\t%q: %q,\n", ext, table[ext])
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}
