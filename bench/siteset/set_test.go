package main

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const testRequests = 400000

// shares are the request shares of the classes, as specified.
var shares = []float64{0.35, 0.50, 0.14, 0.01}

func TestSetLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		files          int
		minMiB, maxMiB float64
	}{
		{"fits", 288, 38, 40},        // about 39 MiB, under the default 64 MiB cache
		{"spills", 7560, 1000, 1050}, // about 1 GiB
		{"media", 10, 275, 275},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := sets[tc.name]
			files := s.Files()
			if len(files) != tc.files {
				t.Errorf("%d files, want %d", len(files), tc.files)
			}
			if mib := float64(s.Bytes()) / (1 << 20); mib < tc.minMiB || mib > tc.maxMiB {
				t.Errorf("%.1f MiB, want %.0f to %.0f", mib, tc.minMiB, tc.maxMiB)
			}
			paths := map[string]bool{}
			for _, f := range files {
				if paths[f.Path] {
					t.Errorf("%s twice", f.Path)
				}
				paths[f.Path] = true
			}
		})
	}
}

func TestClassSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		class    int
		min, max int64 // the class's range, in bytes
	}{
		{"0.1-0.9 KiB", 0, 102, 922},
		{"1-9 KiB", 1, 1024, 9216},
		{"10-90 KiB", 2, 10240, 92160},
		{"100-900 KiB", 3, 102400, 921600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sizes []int64
			for _, f := range sets["fits"].Files() {
				if f.Class == tc.class && filepath.Dir(f.Path) == "/dir00003" {
					sizes = append(sizes, f.Size)
				}
			}
			if len(sizes) != FilesPerClass {
				t.Fatalf("%d files of the class in a directory, want %d", len(sizes), FilesPerClass)
			}
			if sizes[0] < tc.min || sizes[len(sizes)-1] > tc.max {
				t.Errorf("sizes %v outside %d-%d", sizes, tc.min, tc.max)
			}
			// Stepping through the class: file i is (i+1) times file 0,
			// to within the rounding of 102.4 bytes.
			for i, n := range sizes {
				if want := float64(i+1) * float64(sizes[0]); math.Abs(float64(n)-want) > float64(i+1) {
					t.Errorf("file %d: %d bytes, want about %.0f", i, n, want)
				}
			}
		})
	}
	t.Run("media", func(t *testing.T) {
		t.Parallel()
		for i, f := range sets["media"].Files() {
			if want := int64(i+1) * 5 << 20; f.Size != want {
				t.Errorf("%s: %d bytes, want %d", f.Path, f.Size, want)
			}
		}
	})
}

func TestRequestsDeterministic(t *testing.T) {
	t.Parallel()
	for _, name := range setNames {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := sets[name]
			a, b := s.Requests(testRequests, 1), s.Requests(testRequests, 1)
			if len(a) != testRequests {
				t.Fatalf("%d requests, want %d", len(a), testRequests)
			}
			if !slices.Equal(a, b) {
				t.Error("the same seed gave two lists")
			}
			if c := s.Requests(testRequests, 2); slices.Equal(a, c) {
				t.Error("seeds 1 and 2 gave the same list")
			}
		})
	}
}

// classCounts counts the list's requests by class.
func classCounts(files []File, list []int) []int {
	n := make([]int, len(classes))
	for _, i := range list {
		n[files[i].Class]++
	}
	return n
}

func TestClassShares(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fits", "spills"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := sets[name]
			files, list := s.Files(), s.Requests(testRequests, 1)
			for c, k := range classCounts(files, list) {
				if want := int(math.Round(shares[c] * testRequests)); k != want {
					t.Errorf("class %d: %d requests, want %d", c, k, want)
				}
			}
			// Shuffled: the first twentieth of the list has the shares too.
			head := list[:len(list)/20]
			for c, k := range classCounts(files, head) {
				if got := float64(k) / float64(len(head)); math.Abs(got-shares[c]) > 0.01 {
					t.Errorf("class %d: %.3f of the first %d requests, want %.2f: not shuffled", c, got, len(head), shares[c])
				}
			}
		})
	}
}

// harmonic is H(n) = 1 + 1/2 + ... + 1/n.
func harmonic(n int) float64 {
	var h float64
	for r := 1; r <= n; r++ {
		h += 1 / float64(r)
	}
	return h
}

func TestZipfDirectories(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fits", "spills"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := sets[name]
			files := s.Files()
			perDir := make([]int, s.Dirs)
			for i, k := range s.Counts(testRequests) {
				perDir[i/(len(classes)*FilesPerClass)] += k
			}
			h := harmonic(s.Dirs)
			for d, k := range perDir {
				// Each of a directory's 36 counts is rounded by less
				// than one request.
				want := testRequests / float64(d+1) / h
				if math.Abs(float64(k)-want) > float64(len(classes)*FilesPerClass) {
					t.Errorf("%s: %d requests, want %.0f (Zipf rank %d of %d)", files[d*36].Path[:9], k, want, d+1, s.Dirs)
				}
			}
		})
	}
}

func TestZipfWithinClass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		class int
	}{
		{"class 0", 0}, {"class 1", 1}, {"class 2", 2}, {"class 3", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := sets["fits"]
			files, counts := s.Files(), s.Counts(testRequests)
			perFile := make([]int, FilesPerClass) // by file index, over all directories
			total := 0
			for i, f := range files {
				if f.Class == tc.class {
					perFile[i%FilesPerClass] += counts[i]
					total += counts[i]
				}
			}
			h := harmonic(FilesPerClass)
			for r, i := range rankOrder {
				want := float64(total) / float64(r+1) / h
				if math.Abs(float64(perFile[i])-want) > float64(s.Dirs) {
					t.Errorf("file %d (rank %d): %d requests, want %.0f", i, r+1, perFile[i], want)
				}
			}
			// SPECweb99's order: the middle file is the most requested.
			if slices.Index(perFile, slices.Max(perFile)) != 4 {
				t.Errorf("counts by file %v: file 4 is not the most requested", perFile)
			}
		})
	}
}

func TestMediaUniform(t *testing.T) {
	t.Parallel()
	s := sets["media"]
	for i, k := range s.Counts(testRequests) {
		if k != testRequests/len(s.Media) {
			t.Errorf("file %d: %d requests, want %d", i, k, testRequests/len(s.Media))
		}
	}
}

func TestCountsSum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, set string
		n         int
	}{
		{"fits 400000", "fits", 400000},
		{"fits 7", "fits", 7},
		{"spills 400000", "spills", 400000},
		{"spills 1001", "spills", 1001},
		{"media 13", "media", 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum := 0
			for _, k := range sets[tc.set].Counts(tc.n) {
				sum += k
			}
			if sum != tc.n {
				t.Errorf("counts sum to %d, want %d", sum, tc.n)
			}
		})
	}
}

// A small set, to write to disk in tests.
var tiny = Set{Name: "tiny", Dirs: 1}

func TestContentDeterministic(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	if err := generate(tiny, a, 7, 1000, false); err != nil {
		t.Fatal(err)
	}
	if err := generate(tiny, b, 7, 1000, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"requests.txt", "siteset.txt", "www/dir00000/class0_0.bin", "www/dir00000/class3_8.bin"} {
		x, y := read(t, filepath.Join(a, name)), read(t, filepath.Join(b, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	for _, f := range tiny.Files() {
		fi, err := os.Stat(filepath.Join(a, "www", filepath.FromSlash(f.Path)))
		if err != nil || fi.Size() != f.Size {
			t.Errorf("%s: %v, want %d bytes", f.Path, err, f.Size)
		}
	}
	// Incompressible: gzip saves nothing on 64 KiB of a file.
	body := read(t, filepath.Join(a, "www/dir00000/class3_8.bin"))[:64<<10]
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(body)
	w.Close()
	if z.Len() < len(body) {
		t.Errorf("gzip made %d bytes of %d: not random", z.Len(), len(body))
	}
	// Another seed, other bytes.
	other := make([]byte, len(body))
	newContent(8, "/dir00000/class3_8.bin").Read(other)
	if bytes.Equal(body, other) {
		t.Error("seeds 7 and 8 make the same bytes")
	}
}

func TestGenerateKeepsCompleteSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := generate(tiny, dir, 7, 1000, false); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "www", "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := generate(tiny, dir, 7, 1000, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("a second run wrote the complete set again")
	}
	// A file of the wrong size makes the set incomplete: written again.
	if err := os.WriteFile(filepath.Join(dir, "www/dir00000/class1_1.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := generate(tiny, dir, 7, 1000, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an incomplete set was not written again")
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
