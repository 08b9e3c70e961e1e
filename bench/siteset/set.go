package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// A Set is one file set: its layout and how its requests are drawn.
type Set struct {
	Name string
	// Dirs is the number of SPECweb99-style directories, each of
	// len(Classes) × FilesPerClass files; 0 for a set of Media files.
	Dirs int
	// Media lists the sizes of a flat set of large files under media/,
	// requested with uniform popularity.
	Media []int64
}

// The three sets of the site benchmark.
var sets = map[string]Set{
	// 8 directories, 288 files, 39.1 MiB: every file fits in jaws's
	// default 64 MiB cache (CacheMaxBytes).
	"fits": {Name: "fits", Dirs: 8},
	// 210 directories, 7,560 files, 1.0 GiB: many times the cache.
	"spills": {Name: "spills", Dirs: 210},
	// 10 files of 5, 10, ... 50 MiB, 275 MiB.
	"media": {Name: "media", Media: mediaSizes()},
}

// setNames are the sets in the order the driver and the report use.
var setNames = []string{"fits", "spills", "media"}

func mediaSizes() []int64 {
	s := make([]int64, 10)
	for i := range s {
		s[i] = int64(i+1) * 5 << 20
	}
	return s
}

// A class of files: SPECweb99's four, each of FilesPerClass files whose
// sizes step through the class (file i is (i+1) tenths of the class's
// upper decade: 0.1–0.9 KB, 1–9 KB, 10–90 KB, 100–900 KB, KB = 1024
// bytes), and the share of requests it gets.
type class struct {
	unit  int64   // the size of file 0 in bytes ×10: 1024 for 0.1 KiB
	share float64 // the class's share of requests
}

var classes = []class{
	{1024, 0.35},
	{10240, 0.50},
	{102400, 0.14},
	{1024000, 0.01},
}

// FilesPerClass is the number of files of each class in a directory.
const FilesPerClass = 9

// rankOrder lists the files of a class, most requested first: SPECweb99
// gives the middle file (file 4) Zipf rank 1, then 3, 5, 2, 6, 1, 7, 8, 0,
// so that a class's most requested file is one of middling size (its
// table: 35.3%, 17.7%, 11.8%, ... 3.9%, which is 1/rank over H(9)).
var rankOrder = [FilesPerClass]int{4, 3, 5, 2, 6, 1, 7, 8, 0}

// fileSize is the size in bytes of file i (0-based) of class c.
func fileSize(c, i int) int64 { return int64(i+1) * classes[c].unit / 10 }

// A File is one file of a set: its URL path and size.
type File struct {
	Path  string // "/dir00003/class1_4.bin"
	Size  int64
	Class int // 0–3; -1 for media
}

// Files lists the set's files: directory by directory, class by class,
// file by file (or the media files by size).
func (s Set) Files() []File {
	if s.Dirs == 0 {
		out := make([]File, len(s.Media))
		for i, n := range s.Media {
			out[i] = File{Path: fmt.Sprintf("/media/%dM.bin", n>>20), Size: n, Class: -1}
		}
		return out
	}
	out := make([]File, 0, s.Dirs*len(classes)*FilesPerClass)
	for d := range s.Dirs {
		for c := range classes {
			for i := range FilesPerClass {
				out = append(out, File{Path: fmt.Sprintf("/dir%05d/class%d_%d.bin", d, c, i), Size: fileSize(c, i), Class: c})
			}
		}
	}
	return out
}

// Bytes is the total size of the set's files.
func (s Set) Bytes() int64 {
	var n int64
	for _, f := range s.Files() {
		n += f.Size
	}
	return n
}

// zipf is the Zipf (exponent 1) probability of each rank 1..n, in order.
func zipf(n int) []float64 {
	p := make([]float64, n)
	var h float64
	for r := 1; r <= n; r++ {
		h += 1 / float64(r)
	}
	for r := 1; r <= n; r++ {
		p[r-1] = 1 / float64(r) / h
	}
	return p
}

// Weights is each file's share of the requests, in Files' order: the
// class's share × the directory's Zipf probability (directory 0 most
// popular) × the file's Zipf probability within its class (rankOrder);
// for media, 1/len(Media) each.
func (s Set) Weights() []float64 {
	if s.Dirs == 0 {
		w := make([]float64, len(s.Media))
		for i := range w {
			w[i] = 1 / float64(len(w))
		}
		return w
	}
	pd, pf := zipf(s.Dirs), zipf(FilesPerClass)
	var rank [FilesPerClass]int // file index -> 0-based rank
	for r, i := range rankOrder {
		rank[i] = r
	}
	w := make([]float64, 0, s.Dirs*len(classes)*FilesPerClass)
	for d := range s.Dirs {
		for c := range classes {
			for i := range FilesPerClass {
				w = append(w, classes[c].share*pd[d]*pf[rank[i]])
			}
		}
	}
	return w
}

// counts apportions n requests to the weights (which sum to 1, within
// rounding) by the
// largest remainder: each gets the floor of its share, and the ones with
// the largest fractions one more, ties to the earlier, until they sum to n.
func counts(w []float64, n int) []int {
	out := make([]int, len(w))
	type rest struct {
		i int
		f float64
	}
	rests := make([]rest, len(w))
	left := n
	for i, x := range w {
		exact := x * float64(n)
		out[i] = int(math.Floor(exact))
		left -= out[i]
		rests[i] = rest{i, exact - math.Floor(exact)}
	}
	slices.SortStableFunc(rests, func(a, b rest) int { return cmp.Compare(b.f, a.f) })
	for k := 0; k < left; k++ {
		out[rests[k%len(rests)].i]++
	}
	return out
}

// Counts is how often each file, in Files' order, is in a list of n
// requests. Each class gets its share of n and each file of a class its
// share of the class's count, by Weights; both are apportioned by the
// largest remainder, so the classes' shares are exact and a file's count
// is its weight's to within one request.
func (s Set) Counts(n int) []int {
	w := s.Weights()
	if s.Dirs == 0 {
		return counts(w, n)
	}
	shares := make([]float64, len(classes))
	for c := range classes {
		shares[c] = classes[c].share
	}
	perClass := counts(shares, n)
	out := make([]int, len(w))
	files := s.Files()
	for c := range classes {
		var idx []int
		var cw []float64
		for i, f := range files {
			if f.Class == c {
				idx = append(idx, i)
				cw = append(cw, w[i]/classes[c].share)
			}
		}
		for k, m := range counts(cw, perClass[c]) {
			out[idx[k]] = m
		}
	}
	return out
}

// Requests is the request list: n indexes into Files, each file as often
// as Counts gives it, in an order shuffled with a generator seeded by seed
// (Fisher-Yates, PCG), so the same seed gives the same list.
func (s Set) Requests(n int, seed uint64) []int {
	list := make([]int, 0, n)
	for i, k := range s.Counts(n) {
		for range k {
			list = append(list, i)
		}
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	return list
}

// contentSeed is the seed of a file's bytes: they depend on the seed and
// the file's path only, not on the set or the order files are written in.
func contentSeed(seed uint64, path string) [32]byte {
	return sha256.Sum256(binary.LittleEndian.AppendUint64([]byte(path+"\x00"), seed))
}

// newContent is the stream of a file's bytes: random, incompressible
// bytes from ChaCha8 seeded by contentSeed, read from the start.
func newContent(seed uint64, path string) *rand.ChaCha8 {
	return rand.NewChaCha8(contentSeed(seed, path))
}

// label is a byte count for people: "39.1 MiB".
func label(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 2, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
