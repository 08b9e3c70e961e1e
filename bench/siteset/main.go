// Command siteset writes the file sets and request lists of the site
// benchmark (bench/site.sh, see bench/README.md), and checks that a server
// serves a set right:
//
//	siteset -set fits -dir DIR          # DIR/www/..., DIR/requests.txt, DIR/siteset.txt
//	siteset -check URL -dir DIR         # every file of DIR's set, GET from URL, compared
//
// A set is SPECweb99's layout: directories of 36 files, 9 in each of four
// classes (0.1–0.9 KiB, 1–9 KiB, 10–90 KiB, 100–900 KiB, sizes stepping
// through the class), named /dirNNNNN/classC_F.bin. "fits" has 8 of them
// (288 files, 39.1 MiB, within jaws's default 64 MiB cache), "spills" 210
// (7,560 files, 1.0 GiB); "media" is 10 files of 5 to 50 MiB under
// /media/. Every file is random bytes, from ChaCha8 seeded by -seed and
// its path, so the same seed writes the same bytes.
//
// The request list has -requests paths (400,000): each class gets its
// SPECweb99 share of them (35, 50, 14, 1%), each directory its Zipf share
// (1/rank, directory 0 first) and each file its Zipf share within its
// class (SPECweb99's ranks: the middle file first); for media, every file
// the same. The counts are apportioned exactly (largest remainder) and the
// list is shuffled with a generator seeded by -seed, so every run and
// every server replays the same list. requests.txt has a line per request,
// "PATH SIZE"; siteset.txt records what was generated ("key: value"
// lines), and a second run with the same flags leaves a complete set as
// it is.
//
// -check asks URL for every file of the set (URL joined with its path),
// with a few connections in parallel, and fails unless each answer is 200
// with exactly the file's bytes.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// version changes whenever the same flags would write other bytes, so an
// old set on disk is written again.
const version = 1

func main() {
	set := flag.String("set", "fits", "the set to write: "+strings.Join(setNames, ", "))
	dir := flag.String("dir", "", "directory to write the set into (www/, requests.txt, siteset.txt), or to -check")
	seed := flag.Uint64("seed", 1, "seed of the files' bytes and of the request list's order")
	n := flag.Int("requests", 400000, "paths in the request list")
	force := flag.Bool("force", false, "write the set even if -dir holds it already")
	check := flag.String("check", "", "ask `URL` for every file of -dir's set and compare the answers with the files")
	workers := flag.Int("workers", 4, "requests in parallel for -check")
	flag.Parse()
	if *dir == "" {
		fail(errors.New("-dir is required"))
	}
	var err error
	if *check != "" {
		err = checkServer(*check, *dir, *workers)
	} else {
		s, ok := sets[*set]
		if !ok {
			fail(fmt.Errorf("unknown -set %q: want one of %s", *set, strings.Join(setNames, ", ")))
		}
		err = generate(s, *dir, *seed, *n, *force)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "siteset:", err)
	os.Exit(1)
}

// stamp is what siteset.txt must begin with for a set on disk to be the
// one asked for.
func stamp(s Set, seed uint64, n int) string {
	return fmt.Sprintf("set: %s\nseed: %d\nrequests: %d\nversion: %d\n", s.Name, seed, n, version)
}

func generate(s Set, dir string, seed uint64, n int, force bool) error {
	meta := filepath.Join(dir, "siteset.txt")
	files := s.Files()
	if !force {
		if b, err := os.ReadFile(meta); err == nil && bytes.HasPrefix(b, []byte(stamp(s, seed, n))) && complete(dir, files) {
			fmt.Printf("siteset: %s is already in %s\n", s.Name, dir)
			os.Stdout.Write(b)
			return nil
		}
	}
	start := time.Now()
	os.Remove(meta) // incomplete until written again, at the end
	www := filepath.Join(dir, "www")
	if err := os.RemoveAll(www); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFile(www, f, seed); err != nil {
			return err
		}
	}
	list := s.Requests(n, seed)
	sum, err := writeList(filepath.Join(dir, "requests.txt"), files, list)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(stamp(s, seed, n))
	for _, kv := range summary(s, files, list) {
		fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "list sha256: %s\n", sum)
	if err := os.WriteFile(meta, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("siteset: wrote %s into %s in %.1fs\n", s.Name, dir, time.Since(start).Seconds())
	fmt.Print(b.String())
	return nil
}

// complete reports whether every file of the set is in dir/www with its
// size, and the request list is there.
func complete(dir string, files []File) bool {
	if _, err := os.Stat(filepath.Join(dir, "requests.txt")); err != nil {
		return false
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, "www", filepath.FromSlash(f.Path)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
			return false
		}
	}
	return true
}

func writeFile(www string, f File, seed uint64) error {
	p := filepath.Join(www, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.Create(p)
	if err != nil {
		return err
	}
	_, err = io.CopyN(out, newContent(seed, f.Path), f.Size)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeList writes the request list, "PATH SIZE" a line, and returns its
// SHA-256.
func writeList(name string, files []File, list []int) (string, error) {
	f, err := os.Create(name)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
	for _, i := range list {
		w.WriteString(files[i].Path)
		w.WriteByte(' ')
		w.WriteString(strconv.FormatInt(files[i].Size, 10))
		w.WriteByte('\n')
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// summary describes a set and its request list, for siteset.txt and the
// driver's meta file.
func summary(s Set, files []File, list []int) [][2]string {
	var total, reqBytes, distinctBytes int64
	for _, f := range files {
		total += f.Size
	}
	seen := make([]bool, len(files))
	distinct := 0
	perClass := make([]int, len(classes))
	for _, i := range list {
		reqBytes += files[i].Size
		if c := files[i].Class; c >= 0 {
			perClass[c]++
		}
		if !seen[i] {
			seen[i] = true
			distinct++
			distinctBytes += files[i].Size
		}
	}
	layout := fmt.Sprintf("%d files of 5 to 50 MiB, uniform popularity", len(files))
	if s.Dirs > 0 {
		layout = fmt.Sprintf("%d directories of %d files (classes of %d: 0.1-0.9, 1-9, 10-90, 100-900 KiB)", s.Dirs, len(classes)*FilesPerClass, FilesPerClass)
	}
	out := [][2]string{
		{"layout", layout},
		{"files", strconv.Itoa(len(files))},
		{"bytes", fmt.Sprintf("%d (%s)", total, label(total))},
		{"requested files", fmt.Sprintf("%d of %d (the rest are never asked for)", distinct, len(files))},
		{"requested bytes", fmt.Sprintf("%d (%s): the distinct files the list asks for", distinctBytes, label(distinctBytes))},
		{"mean response", fmt.Sprintf("%d bytes", reqBytes/int64(max(len(list), 1)))},
	}
	if s.Dirs > 0 {
		shares := make([]string, len(perClass))
		for c, k := range perClass {
			shares[c] = fmt.Sprintf("%.2f%%", float64(k)/float64(len(list))*100)
		}
		out = append(out, [2]string{"class shares", strings.Join(shares, " ")})
	}
	return out
}

// readSet is the set dir holds, from its siteset.txt.
func readSet(dir string) (Set, error) {
	b, err := os.ReadFile(filepath.Join(dir, "siteset.txt"))
	if err != nil {
		return Set{}, err
	}
	var name string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "set: "); ok {
			name = v
		}
	}
	s, ok := sets[name]
	if !ok {
		return Set{}, fmt.Errorf("%s/siteset.txt names no known set (%q)", dir, name)
	}
	return s, nil
}

// checkServer asks base for every file of dir's set and compares each
// answer with the file on disk.
func checkServer(base, dir string, workers int) error {
	s, err := readSet(dir)
	if err != nil {
		return err
	}
	files := s.Files()
	base = strings.TrimSuffix(base, "/")
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: workers}}
	jobs := make(chan File)
	var mu sync.Mutex
	var bad []string
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for f := range jobs {
				if err := checkFile(client, base, dir, f); err != nil {
					mu.Lock()
					bad = append(bad, err.Error())
					mu.Unlock()
				}
			}
		})
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	if n := len(bad); n > 0 {
		slices.Sort(bad)
		more := ""
		if n > 5 {
			more = fmt.Sprintf(" (and %d more)", n-5)
			bad = bad[:5]
		}
		return fmt.Errorf("%s: %d of %d files answered wrong: %s%s", base, n, len(files), strings.Join(bad, "; "), more)
	}
	fmt.Printf("siteset: %s answered all %d files of %s right\n", base, len(files), s.Name)
	return nil
}

func checkFile(client *http.Client, base, dir string, f File) error {
	want, err := os.ReadFile(filepath.Join(dir, "www", filepath.FromSlash(f.Path)))
	if err != nil {
		return err
	}
	resp, err := client.Get(base + f.Path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %v", f.Path, err)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %s", f.Path, resp.Status)
	case !bytes.Equal(got, want):
		return fmt.Errorf("%s: %d bytes that are not the file's %d", f.Path, len(got), len(want))
	}
	return nil
}
