package jaws

import (
	"bytes"
	"maps"
	"mime"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jaws-go/jaws/internal/webtypes"
)

// TestWebContentTypes pins the types of the web's common extensions, which
// come from jaws's table whatever the host's tables say; text types carry
// their charset, and an extension's case does not matter.
func TestWebContentTypes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"index.html", "text/html; charset=utf-8"},
		{"style.css", "text/css; charset=utf-8"},
		{"app.js", "text/javascript; charset=utf-8"}, // RFC 9239, not application/javascript
		{"module.mjs", "text/javascript; charset=utf-8"},
		{"data.json", "application/json; charset=utf-8"},
		{"app.js.map", "application/json; charset=utf-8"}, // source maps are JSON
		{"site.webmanifest", "application/manifest+json; charset=utf-8"},
		{"app.wasm", "application/wasm"},
		{"font.woff", "font/woff"},
		{"font.woff2", "font/woff2"},
		{"font.ttf", "font/ttf"},
		{"font.otf", "font/otf"}, // Debian's tables say an OpenDocument formula template
		{"photo.avif", "image/avif"},
		{"photo.webp", "image/webp"},
		{"logo.svg", "image/svg+xml"}, // SVG declares its own encoding, as Go's table has it
		{"clip.mp4", "video/mp4"},     // not application/mp4
		{"clip.webm", "video/webm"},   // not audio/webm, as Go's and shared-mime-info's tables say
		{"song.mp3", "audio/mpeg"},
		{"paper.pdf", "application/pdf"},
		{"notes.txt", "text/plain; charset=utf-8"},
		{"feed.xml", "text/xml; charset=utf-8"}, // as Go's table, not application/xml
		{"favicon.ico", "image/vnd.microsoft.icon"},
		{"image.png", "image/png"},
		{"image.jpg", "image/jpeg"},
		{"STYLE.CSS", "text/css; charset=utf-8"},
		{"Clip.WebM", "video/webm"},
	}
	for _, tt := range tests {
		// The head would sniff as HTML: the extension must win.
		if got := contentType(tt.name, []byte("<!doctype html>"), nil); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestContentTypeOrder: Options.ContentTypes beat the web's table, which
// beats the host's tables, which beat sniffing. It runs in a process of its
// own, since it changes the mime package's tables, which are the process's:
// there the host's tables give every extension of the web's table another
// type.
func TestContentTypeOrder(t *testing.T) {
	if os.Getenv("JAWS_MIME_CHILD") == "" {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestContentTypeOrder$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "JAWS_MIME_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("--- PASS: TestContentTypeOrder")) {
			t.Fatalf("child did not run the test:\n%s", out)
		}
		return
	}
	const host = "application/x-host"
	for ext := range webtypes.All() {
		must(t, mime.AddExtensionType(ext, host))
	}
	must(t, mime.AddExtensionType(".hostonly", host))
	overrides, err := parseContentTypes(map[string]string{".CSS": "text/x-override", ".hostonly": "text/x-override"})
	must(t, err)
	html := []byte("<!doctype html><title>x</title>")
	tests := []struct {
		name  string
		file  string
		types map[string]string
		want  string
	}{
		{"override beats table", "style.css", overrides, "text/x-override"},
		{"override in any case", "STYLE.Css", overrides, "text/x-override"},
		{"override beats host", "a.hostonly", overrides, "text/x-override"},
		{"table beats host", "font.otf", overrides, "font/otf"},
		{"table beats host without overrides", "style.css", nil, "text/css; charset=utf-8"},
		{"table in any case", "FONT.OTF", nil, "font/otf"},
		{"host beats sniffing", "page.hostonly", nil, host},
		{"host in any case", "PAGE.HOSTONLY", nil, host},
		{"sniffing without a known extension", "page.nosuchext", nil, "text/html; charset=utf-8"},
		{"sniffing without an extension", "page", nil, "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentType(tt.file, html, tt.types); got != tt.want {
				t.Errorf("%s: %q, want %q", tt.file, got, tt.want)
			}
		})
	}
	t.Run("every extension of the table beats host", func(t *testing.T) {
		if mime.TypeByExtension(".otf") != host {
			t.Fatalf("the host's tables were not changed: .otf is %q", mime.TypeByExtension(".otf"))
		}
		for ext, want := range webtypes.All() {
			for _, name := range []string{"f" + ext, "F" + strings.ToUpper(ext)} {
				if got := contentType(name, html, nil); got != want {
					t.Errorf("%s: %q, want the table's %q", name, got, want)
				}
			}
		}
	})
}

// TestParseContentTypes: Options.ContentTypes are checked, and copied with
// their keys in lower case.
func TestParseContentTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      map[string]string
		want    map[string]string
		wantErr string // part of the error; "" for none
	}{
		{"nil", nil, nil, ""},
		{"empty", map[string]string{}, nil, ""},
		{"lower-cased", map[string]string{".MD": "text/markdown; charset=utf-8", ".webm": "audio/webm"},
			map[string]string{".md": "text/markdown; charset=utf-8", ".webm": "audio/webm"}, ""},
		{"one extension twice, one type", map[string]string{".md": "text/markdown", ".MD": "text/markdown"},
			map[string]string{".md": "text/markdown"}, ""},
		{"one extension twice, two types", map[string]string{".md": "text/markdown", ".MD": "text/plain"}, nil, "twice"},
		{"no dot", map[string]string{"md": "text/markdown"}, nil, "not an extension"},
		{"a dot alone", map[string]string{".": "text/markdown"}, nil, "not an extension"},
		{"two dots", map[string]string{".tar.gz": "application/gzip"}, nil, "not an extension"},
		{"a slash", map[string]string{".a/b": "text/plain"}, nil, "not an extension"},
		{"no type", map[string]string{".md": ""}, nil, "no media type"},
		{"no subtype", map[string]string{".md": "text"}, nil, "no subtype"},
		{"a bad parameter", map[string]string{".md": "text/markdown; charset"}, nil, "ContentTypes"},
		{"a header injected", map[string]string{".md": "text/markdown\r\nSet-Cookie: a=b"}, nil, "control"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseContentTypes(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
			case !maps.Equal(got, tt.want):
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}
