package middleware

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jaws-go/jaws"
	"github.com/jaws-go/jaws/internal/httprule"
	"github.com/jaws-go/jaws/internal/testsite"
)

const (
	hex64     = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	base32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" // esbuild's hashes
	hexDigits = "0123456789abcdef"
)

// TestFingerprinted: each form a build tool writes, and its near misses.
func TestFingerprinted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want bool
	}{
		// [name].[hash].[ext]: webpack, Parcel, HashName.
		{"/app.3f9a1c2b.js", true},
		{"/assets/app.3f9a1c2b.js", true},
		{"app.3f9a1c2b.js", true},
		{"/vendor.0123abcd.min.css", true},
		{"/a.b.3f9a1c2b.c.js", true},
		{"/font.0123456789abcdef0123456789abcdef.woff2", true},
		{"/main.262fc9206c15e6d7bb6a.js", true},     // webpack's default 20 digits
		{"/1031.e53b984b2396f51d1049.js", true},     // webpack's numbered chunk
		{"/main.262fc9206c15e6d7bb6a.js.map", true}, // its source map
		{"/3f9a1c2b.3f9a1c2b.js", true},             // name, hash, extension
		{"/js/app.0123456789abcdef.js", true},       // HashName("js/app.js")
		{"/vendor.min.0123456789abcdef.css", true},  // HashName("vendor.min.css")
		{"/LICENSE.0123456789abcdef", true},         // HashName("LICENSE")
		{"/docs/Makefile.fedcba9876543210", true},
		{"/app.js", false},
		{"/app.3f9a1c2.js", false},        // 7 digits
		{"/app.3F9A1C2B.js", false},       // upper case
		{"/app.3f9a1c2g.js", false},       // not hex
		{"/app.12345678.js", false},       // no letter: a serial number
		{"/report.20240101.csv", false},   // a date
		{"/app.deadbeef.js", false},       // no digit: a word
		{"/3f9a1c2b.js", false},           // a name that is all hash
		{"/20240101.csv", false},          // a date
		{"/app.3f9a1c2b", false},          // 8 digits for an extension
		{"/app.0123456789abcde", false},   // 15
		{"/app.0123456789abcdef0", false}, // 17
		{"/app.1234567890123456", false},  // 16 digits, no letter
		{"/0123456789abcdef", false},      // only a hash
		{"/.0123456789abcdef", false},     // hidden, no name
		{"/app.3f9a1c2b.js/", false},      // a directory
		{"/.3f9a1c2b.js", false},          // hidden, no name
		{"/3f9a1c2b.d/app.js", false},     // hash in a directory name
		{"/jquery.min.js", false},
		{"/app.map", false},
		{"", false},
		{"/", false},

		// [name]-[hex hash]: hashfs, webpack's [name]-[contenthash].
		{"/main-262fc9206c15e6d7bb6a.js", true},
		{"/main-" + hex64 + ".js", true},
		{"/jquery-3-" + hex64 + ".7.1.min.js", true}, // hashfs: before the first dot
		{"/LICENSE-" + hex64, true},
		{"/LICENSE-" + hex64[:20], false},      // without an extension only a SHA-256
		{"/main-" + hex64[:15] + ".js", false}, // too short for the hex form (and not 8)
		{"/main-1234567890123456.js", false},   // no letter
		{"/-" + hex64 + ".js", false},          // no name
		{"/main-" + hex64 + "-min.js", false},  // not before a dot
		{"/main-" + hex64 + "0" + ".js", true}, // 65: any length from 16
		{"/main-" + strings.ToUpper(hex64) + ".js", false},

		// [name]-[hash]: Vite, Rollup, Rolldown, esbuild.
		{"/assets/index-GpEN3EET.js", true},
		{"/assets/react-CHdo91hT.svg", true},
		{"/assets/index-B-x_3kQa.js", true},     // '-' and '_' inside the hash
		{"/assets/index--oCY0rLb.js", true},     // a hash that starts with '-'
		{"/assets/photo-B8ykAS--.js", true},     // or ends with it
		{"/assets/logo.min-5Hm-8hZx.svg", true}, // a name with a dot
		{"/assets/jquery-3.7.1.min-84YDo5j8.js", true},
		{"/assets/Inter-SemiBold-BogoBCrM.woff2", true},
		{"/assets/index-CCxGxcHe.js.map", true},
		{"/main-L2TOKX2S.js", true},              // esbuild
		{"/app-3f9a1c2b.js", true},               // Rollup's hashCharacters: "hex"
		{"/assets/index-GpEN3EET", false},        // no extension: a client route
		{"/assets/index-GpEN3EE.js", false},      // 7
		{"/assets/index-GpEN3EET1.js", false},    // 9
		{"/assets/index_GpEN3EET.js", false},     // not after a hyphen
		{"/assets/-GpEN3EET.js", false},          // no name
		{"/assets/index-GpEN.EET.js", false},     // a dot inside
		{"/assets/index-GpEN3EET.min.js", false}, // not just before the extension
		{"/assets/index-Inter_Bd.woff2", false},  // a name (see TestFingerprintedOrdinaryNames)
		{"/assets/bootstrap-5.3.2.min-nRK49_hp.js", true},

		// The residual risk: ordinary names built like hashed ones.
		{"/upload-x7Kq9zPw.png", true},
		{"/logo-v2Dark1X.svg", true},
		{"/map-Dijkstra.svg", true},
	}
	for _, tt := range tests {
		if got := Fingerprinted(tt.path); got != tt.want {
			t.Errorf("Fingerprinted(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestFingerprintedOrdinaryNames lists the ordinary names, taken for hashed
// ones, that would get a year of immutable caching: the false positives
// considered, each of which Fingerprinted must reject.
func TestFingerprintedOrdinaryNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		paths []string
	}{
		{"short names", []string{"/app.js", "/my-logo.svg", "/logo-dark.svg", "/chunk-vendors.js", "/my-component.js",
			"/Inter-Regular.woff2", "/OpenSans-Bold.ttf", "/index.html", "/favicon.ico", "/robots.txt"}},
		{"versions with dots", []string{"/jquery-3.7.1.min.js", "/bootstrap-5.3.2.min.css", "/vue.global.prod.js",
			"/react-dom.production.min.js", "/lodash-4.17.21.js", "/jquery-ui-1.13.2.min.js"}},
		{"a word of eight letters", []string{"/some-longname.js", "/logo-ORIGINAL.png", "/contract-APPROVED.pdf",
			"/Inter-Variable.woff2", "/card-Birthday.png", "/icons-fa-solid.css", "/hero-bg-image.png", "/app-deadbeef.js"}},
		{"Capitalized and camelCase words", []string{"/Inter-SemiBold.woff2", "/Poppins-Semibold.ttf", "/icon-UserPlus.svg",
			"/icon-MenuIcon.svg", "/btn-myButton.png", "/util-parseURL.js", "/docs-HTMLPage.png", "/icon-CSSReset.css",
			"/hero-BannerLg.jpg", "/icon-ButtonSm.svg", "/mockup-iPadMini.png", "/frame-iPhoneXR.png", "/toDoList-app.js", "/app-toDoList.js"}},
		{"camera names", []string{"/photo-IMG_1234.jpg", "/photo-DSC_0042.jpg", "/photo-DSCF1234.jpg", "/photo-PXL_2024.jpg",
			"/clip-GOPR0042.mp4", "/img-CIMG1234.jpg", "/video-MVI_0042.mp4", "/photo-P1010001.jpg"}},
		{"a word and a number", []string{"/font-Roboto40.woff2", "/font-Roboto400.woff2", "/case-iPhone15.png", "/sprite-frame001.png",
			"/audio-Track_01.mp3", "/avatar-user1234.png", "/mockup-iPadPro2.png", "/model-3dModels.glb", "/tile-Level_01.png"}},
		{"dates and serial numbers", []string{"/bundle-20240101.js", "/backup-12345678.zip", "/report.20240101.csv", "/20240101.csv",
			"/build.1700000000.js", "/data.1700000000000000.json", "/log.1700000000000000"}},
		{"locales and versions", []string{"/messages-pt-BR-v2.json", "/locale-en-US-v1.json", "/i18n-zh-Hant.json",
			"/lib-v1_2_3_4.js", "/app-v1.2.3.js", "/font-Inter_Bd.woff2"}},
		{"client routes", []string{"/orders/order-x7Kq9zPw", "/p/post-GpEN3EET", "/users/8f14e45fceea167a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range tt.paths {
				if Fingerprinted(p) {
					t.Errorf("Fingerprinted(%q) = true, want false", p)
				}
			}
		})
	}
}

// TestFingerprintedBundlers reads the names real builds emitted (see
// testdata/bundlers/regen.sh): index.html and the files copied as they are
// must not be taken for hashed ones; every hashed name must be, except
// those whose 8-character hash reads as a name (httprule.NameLike), at about the
// rate TestFingerprintedMissRate measures on random hashes.
func TestFingerprintedBundlers(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/bundlers/*/names.txt")
	if err != nil || len(files) < 4 {
		t.Fatalf("bundler fixtures: %q, %v", files, err)
	}
	// The hash of [name]-[hash][extname], found without Fingerprinted's code.
	dashHash := regexp.MustCompile(`-([A-Za-z0-9_-]{8})\.[a-z0-9]+(\.map)?$`)
	for _, file := range files {
		bundler := filepath.Base(filepath.Dir(file))
		t.Run(bundler, func(t *testing.T) {
			t.Parallel()
			hashed, plain, missed := 0, 0, 0
			for line := range readLines(t, file) {
				kind, name, _ := strings.Cut(line, " ")
				got := Fingerprinted("/" + name)
				switch kind {
				case "plain":
					plain++
					if got {
						t.Errorf("%s: unhashed %s taken for a hashed name", bundler, name)
					}
				case "hashed":
					hashed++
					m := dashHash.FindStringSubmatch(name)
					switch {
					case m != nil && httprule.NameLike(m[1]):
						missed++
						if got {
							t.Errorf("%s: %s: hash %s reads as a name, yet the name was taken", bundler, name, m[1])
						}
					case !got:
						t.Errorf("%s: hashed %s not recognised", bundler, name)
					}
				default:
					t.Fatalf("%s: bad line %q", file, line)
				}
			}
			t.Logf("%s: %d hashed names, %d missed (%.1f%%), %d unhashed", bundler, hashed, missed, 100*float64(missed)/float64(hashed), plain)
			if hashed < 100 || missed*5 > hashed {
				t.Errorf("%s: %d of %d hashed names missed; want fewer than 20%% of 100 or more", bundler, missed, hashed)
			}
		})
	}
}

// readLines yields the lines of a file that are not empty or # comments.
func readLines(t *testing.T, file string) func(func(string) bool) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return func(yield func(string) bool) {
		for line := range strings.Lines(string(b)) {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if !yield(line) {
				return
			}
		}
	}
}

// TestFingerprintedMissRate measures the false negatives on random hashes
// of each form: the share of hashed names Fingerprinted does not recognise.
// go test -run TestFingerprintedMissRate -v ./middleware prints them.
func TestFingerprintedMissRate(t *testing.T) {
	t.Parallel()
	const n = 100_000
	tests := []struct {
		form     string
		alphabet string
		size     int
		name     func(hash string) string
		max      float64 // fraction
	}{
		{"Vite and Rollup [name]-[hash]", base64URL, 8, func(h string) string { return "/assets/index-" + h + ".js" }, 0.10},
		{"esbuild [name]-[hash]", base32, 8, func(h string) string { return "/main-" + h + ".js" }, 0.18},
		{"webpack [name].[contenthash:8]", hexDigits, 8, func(h string) string { return "/main." + h + ".js" }, 0.025},
		{"HashName, 16 hex", hexDigits, 16, func(h string) string { return "/js/app." + h + ".js" }, 0.001},
		{"HashName without extension", hexDigits, 16, func(h string) string { return "/LICENSE." + h }, 0.001},
		{"webpack [name].[contenthash]", hexDigits, 20, func(h string) string { return "/main." + h + ".js" }, 0.0002},
		{"hashfs name-<sha256>", hexDigits, 64, func(h string) string { return "/main-" + h + ".js" }, 0},
	}
	for i, tt := range tests {
		t.Run(tt.form, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(14, uint64(i)))
			b := make([]byte, tt.size)
			missed := 0
			var examples []string
			for range n {
				for j := range b {
					b[j] = tt.alphabet[r.IntN(len(tt.alphabet))]
				}
				if p := tt.name(string(b)); !Fingerprinted(p) {
					missed++
					if len(examples) < 5 {
						examples = append(examples, path.Base(p))
					}
				}
			}
			rate := float64(missed) / n
			t.Logf("%s: %d of %d random hashes missed (%.3f%%), e.g. %q", tt.form, missed, n, 100*rate, examples)
			if rate > tt.max {
				t.Errorf("%s: missed %.3f%%, want at most %.3f%%", tt.form, 100*rate, 100*tt.max)
			}
		})
	}
}

var wordsFile = flag.String("words", "", "a word list, one word a line (such as /usr/share/dict/words from Debian's wamerican), for TestFingerprintedWords")

// TestFingerprintedWords measures the false positives on names made of
// dictionary words, as a font's style, an icon's or a photo's name would be:
// the share of them Fingerprinted takes for hashed names. It needs a word list:
//
//	go test -run TestFingerprintedWords -v ./middleware -words /usr/share/dict/words
func TestFingerprintedWords(t *testing.T) {
	if *wordsFile == "" {
		t.Skip("no -words list")
	}
	byLen := map[int][]string{}
	letters := regexp.MustCompile(`^[a-z]+$`)
	for w := range readLines(t, *wordsFile) {
		if letters.MatchString(strings.ToLower(w)) {
			byLen[len(w)] = append(byLen[len(w)], strings.ToLower(w))
		}
	}
	title := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	r := rand.New(rand.NewPCG(14, 3))
	word := func(n int) string { return byLen[n][r.IntN(len(byLen[n]))] }
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	const samples = 100_000
	tests := []struct {
		form string
		name func(i int) (string, bool)
	}{
		{"word", func(i int) (string, bool) {
			w := byLen[8]
			return [...]func(string) string{strings.ToLower, title, strings.ToUpper}[i%3](w[i/3%len(w)]), i < 3*len(w)
		}},
		{"PascalCase", func(i int) (string, bool) { k := 2 + r.IntN(5); return title(word(k)) + title(word(8-k)), i < samples }},
		{"camelCase", func(i int) (string, bool) { k := 2 + r.IntN(5); return word(k) + title(word(8-k)), i < samples }},
		{"word and number", func(i int) (string, bool) {
			k := 1 + r.IntN(4)
			return [...]func(string) string{strings.ToLower, title, strings.ToUpper}[i%3](word(8-k)) + digits(k), i < samples
		}},
		{"word_number", func(i int) (string, bool) {
			k := 1 + r.IntN(4)
			return [...]func(string) string{strings.ToLower, title, strings.ToUpper}[i%3](word(7-k)) + "_" + digits(k), i < samples
		}},
	}
	for _, tt := range tests {
		taken, total := 0, 0
		var examples []string
		for i := 0; ; i++ {
			s, ok := tt.name(i)
			if !ok {
				break
			}
			total++
			if Fingerprinted("/x-" + s + ".png") {
				taken++
				if len(examples) < 8 {
					examples = append(examples, s)
				}
			}
		}
		rate := float64(taken) / float64(total)
		t.Logf("%s: %d of %d taken for hashed names (%.3f%%), e.g. %q", tt.form, taken, total, 100*rate, examples)
		if rate > 0.001 {
			t.Errorf("%s: %.3f%% taken for hashed names, want at most 0.1%%", tt.form, 100*rate)
		}
	}
}

// FuzzFingerprinted: only the last element counts, a directory never does,
// a hashed name has a name before its hash, and its source map is hashed
// too.
func FuzzFingerprinted(f *testing.F) {
	for _, s := range []string{"/app.3f9a1c2b.js", "/assets/index-GpEN3EET.js", "/LICENSE.0123456789abcdef",
		"/main-" + hex64 + ".js", "/photo-IMG_1234.jpg", "/Inter-SemiBold.woff2", "/a/b-c_d.e.f", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := Fingerprinted(p)
		if p == "" || strings.HasSuffix(p, "/") {
			if got {
				t.Fatalf("Fingerprinted(%q): a directory", p)
			}
			return
		}
		base := path.Base(p)
		if got != Fingerprinted("/dir/"+base) {
			t.Fatalf("Fingerprinted(%q) = %v, but %v for its last element %q", p, got, !got, base)
		}
		if Fingerprinted(p + "/") {
			t.Fatalf("Fingerprinted(%q/) = true for a directory", p)
		}
		if !got {
			return
		}
		if base[0] == '.' || !strings.ContainsAny(base, ".-") {
			t.Fatalf("Fingerprinted(%q) = true without a name and a hash", p)
		}
		if strings.Contains(base, ".") && !Fingerprinted(p+".map") {
			t.Fatalf("Fingerprinted(%q) = true, but not for its source map", p)
		}
	})
}

var hashNameRE = regexp.MustCompile(`\.([0-9a-f]{16})(\.|$)`)

// TestFingerprintedHashName: the names jaws.Handler.HashName makes are
// recognised, with and without an extension, and CacheControl's defaults
// make them immutable; only a hash that happens to be all digits (one in
// about 2,000) reads as a serial number and is not.
func TestFingerprintedHashName(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	for i := range 300 {
		site.File(fmt.Sprintf("js/app%d.js", i), []byte(fmt.Sprint("console.log(", i, ")")))
		site.File(fmt.Sprintf("LICENSE%d", i), []byte(fmt.Sprint("license ", i)))
	}
	h, err := jaws.New(site.Root, jaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i := range 300 {
		for _, name := range []string{fmt.Sprintf("js/app%d.js", i), fmt.Sprintf("LICENSE%d", i)} {
			hashed, err := h.HashName(name)
			if err != nil {
				t.Fatal(err)
			}
			hash := hashNameRE.FindStringSubmatch(hashed)
			if hash == nil {
				t.Fatalf("HashName(%q) = %q: no hash", name, hashed)
			}
			allDigits := strings.Trim(hash[1], "0123456789") == ""
			if Fingerprinted("/"+hashed) == allDigits {
				t.Errorf("Fingerprinted(%q) = %v", hashed, !allDigits)
			}
		}
	}
}
