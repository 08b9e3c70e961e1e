package webtypes

import "testing"

// TestCompressible: text, scripts, styles, JSON, XML, SVG, WASM and
// uncompressed fonts compress; media and archives are compressed already.
func TestCompressible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ctype string
		want  bool
	}{
		{"text/plain; charset=utf-8", true},
		{"text/html; charset=utf-8", true},
		{"text/css; charset=utf-8", true},
		{"text/javascript; charset=utf-8", true},
		{"TEXT/CSV", true},
		{"application/javascript", true},
		{"application/json", true},
		{"application/ld+json", true},
		{"application/manifest+json", true},
		{"application/xml", true},
		{"application/atom+xml", true},
		{"image/svg+xml", true},
		{"application/wasm", true},
		{"font/ttf", true},
		{"font/otf", true},
		{"image/x-icon", true},
		{" Application/JSON ; charset=utf-8", true},
		{"font/woff2", false},
		{"font/woff", false},
		{"image/png", false},
		{"image/jpeg", false},
		{"image/webp", false},
		{"video/mp4", false},
		{"audio/mpeg", false},
		{"application/zip", false},
		{"application/gzip", false},
		{"application/octet-stream", false},
		{"application/pdf", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.ctype, func(t *testing.T) {
			t.Parallel()
			if got := Compressible(tt.ctype); got != tt.want {
				t.Errorf("Compressible(%q) = %v, want %v", tt.ctype, got, tt.want)
			}
		})
	}
}
