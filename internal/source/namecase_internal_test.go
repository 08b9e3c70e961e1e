package source

import (
	"errors"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/jaws-go/jaws/internal/testsite"
)

func TestNameCaseFinalIs(t *testing.T) {
	t.Parallel()
	const root = `\\?\C:\srv\site`
	tests := []struct {
		name             string
		final, root, req string
		sep              byte
		want             bool
	}{
		{"file", root + `\private\secret.txt`, root, "private/secret.txt", '\\', true},
		{"top-level file", root + `\a.txt`, root, "a.txt", '\\', true},
		{"directory", root + `\private`, root, "private", '\\', true},
		{"directory with slash", root + `\private`, root, "private/", '\\', false},
		{"case of a directory", root + `\private\secret.txt`, root, "PRIVATE/secret.txt", '\\', false},
		{"case of the file", root + `\private\secret.txt`, root, "private/Secret.txt", '\\', false},
		{"short name", root + `\private\secret.txt`, root, "PRIVAT~1/secret.txt", '\\', false},
		{"trailing dot", root + `\private\secret.txt`, root, "private./secret.txt", '\\', false},
		{"stream", root + `\private\secret.txt`, root, "private/secret.txt::$DATA", '\\', false},
		{"a link on the way", root + `\v2\a.txt`, root, "latest/a.txt", '\\', false},
		{"root's sibling", `\\?\C:\srv\site2\a.txt`, root, "2/a.txt", '\\', false},
		{"root's sibling, no separator", `\\?\C:\srv\site2\a.txt`, root, "a.txt", '\\', false},
		{"outside the root", `\\?\C:\srv\other\a.txt`, root, "a.txt", '\\', false},
		{"root spelled otherwise", `\\?\C:\SRV\site\a.txt`, root, "a.txt", '\\', false},
		{"the root itself", root, root, "", '\\', false},
		{"no root", `\a.txt`, "", "a.txt", '\\', false},
		{"drive root", `\\?\C:\a\b.txt`, `\\?\C:\`, "a/b.txt", '\\', true},
		{"drive root, case", `\\?\C:\a\b.txt`, `\\?\C:\`, "A/b.txt", '\\', false},
		{"volume GUID", `\\?\Volume{0b1e}\site\a.txt`, `\\?\Volume{0b1e}\site`, "a.txt", '\\', true},
		{"volume GUID, other volume", `\\?\Volume{0b1f}\site\a.txt`, `\\?\Volume{0b1e}\site`, "a.txt", '\\', false},
		{"UNC", `\\?\UNC\host\share\site\a.txt`, `\\?\UNC\host\share\site`, "a.txt", '\\', true},
		{"slash in the final path", root + `/private/secret.txt`, root, "private/secret.txt", '\\', false},
		{"longer final path", root + `\private\secret.txt.bak`, root, "private/secret.txt", '\\', false},
		{"shorter final path", root + `\private\secret`, root, "private/secret.txt", '\\', false},
		{"slash separator", "/srv/site/private/secret.txt", "/srv/site", "private/secret.txt", '/', true},
		{"slash separator, case", "/srv/site/private/secret.txt", "/srv/site", "Private/secret.txt", '/', false},
		{"slash root", "/a.txt", "/", "a.txt", '/', true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := finalIs(tt.final, tt.root, tt.req, tt.sep); got != tt.want {
				t.Errorf("finalIs(%q, %q, %q) = %v, want %v", tt.final, tt.root, tt.req, got, tt.want)
			}
		})
	}
}

func TestNameCaseHoldsName(t *testing.T) {
	t.Parallel()
	dir := testsite.At(t, tempDir(t)).File("Mixed.txt", nil).File("b", nil).File("c", nil).Path(".")
	tests := []struct {
		name, elem string
		max        int
		want       error
	}{
		{"stored", "Mixed.txt", maxNamesScanned, nil},
		{"other case", "mixed.txt", maxNamesScanned, errNotStored},
		{"absent", "d", maxNamesScanned, errNotStored},
		{"prefix", "Mixed", maxNamesScanned, errNotStored},
		{"nothing read", "b", 0, errNotStored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := os.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := holdsName(d, tt.elem, tt.max); !errors.Is(err, tt.want) {
				t.Errorf("holdsName(%q) = %v, want %v", tt.elem, err, tt.want)
			}
		})
	}
}

func TestNameCaseMemo(t *testing.T) {
	t.Parallel()
	site := testsite.At(t, tempDir(t)).File("a", []byte("a")).File("b", []byte("b"))
	stat := func(name string) os.FileInfo {
		info, err := os.Stat(site.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	var s storedNames
	s.memo.seed = maphash.MakeSeed()
	a := stat("a")
	if s.memo.seen("a", a) {
		t.Fatal("seen before added")
	}
	s.memo.add("a", a)
	if !s.memo.seen("a", stat("a")) {
		t.Error("not seen after added")
	}
	if s.memo.seen("A", a) {
		t.Error("another name seen")
	}
	if s.memo.seen("a", stat("b")) {
		t.Error("another file seen under the name")
	}
	site.Chtime("a", time.Unix(1e9, 0))
	if s.memo.seen("a", stat("a")) {
		t.Error("seen after the file changed")
	}
}

// TestNameCaseOpen opens names through a directory source, by both checks:
// the final path where the system gives one (Windows), and the names of
// each directory on the way. Where the file system folds names (Wine on
// Linux, Windows, macOS) the other spellings open a file, and the check
// refuses them; elsewhere they are missing anyway.
func TestNameCaseOpen(t *testing.T) {
	t.Parallel()
	dir := testsite.At(t, tempDir(t)).
		File("private/secret.txt", []byte("s")).
		File("Mixed/Case.txt", []byte("m")).
		File("private/deep/er.txt", []byte("d")).
		Path(".")
	tests := []struct {
		name string
		ok   bool
	}{
		{".", true},
		{"private", true},
		{"private/secret.txt", true},
		{"private/deep/er.txt", true},
		{"Mixed/Case.txt", true},
		{"PRIVATE", false},
		{"Private/secret.txt", false},
		{"private/SECRET.TXT", false},
		{"private/Deep/er.txt", false},
		{"private/deep/ER.txt", false},
		{"mixed/Case.txt", false},
		{"Mixed/case.txt", false},
		{"PRIVAT~1/secret.txt", false},
	}
	for _, mode := range []string{"final path", "names"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			d, err := openDirSource(dir, false, func() {})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			if runtime.GOOS == "windows" && d.cur.Load().root.names.final == "" {
				t.Error("no final path for the root")
			}
			if mode == "names" {
				d.cur.Load().root.names.final = ""
			}
			for _, tt := range tests {
				f, _, _, err := d.Open(tt.name)
				if err == nil {
					f.Close()
				}
				if (err == nil) != tt.ok {
					t.Errorf("open(%q): %v, want ok %v", tt.name, err, tt.ok)
				}
			}
		})
	}
}

// TestNameCaseFinalPath: where the system gives final paths, a file opened
// by another spelling has its stored one.
func TestNameCaseFinalPath(t *testing.T) {
	t.Parallel()
	dir := testsite.At(t, tempDir(t)).File("private/secret.txt", []byte("s")).Path(".")
	f, err := os.Open(filepath.Join(dir, "private", "secret.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, handled := finalPath(f)
	if runtime.GOOS != "windows" {
		if handled {
			t.Errorf("finalPath handled on %s: %q", runtime.GOOS, p)
		}
		return
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s storedNames
	s.init(r)
	if !handled || s.final == "" {
		t.Fatalf("finalPath = %q, %v; root's %q", p, handled, s.final)
	}
	if !finalIs(p, s.final, "private/secret.txt", os.PathSeparator) {
		t.Errorf("final path %q is not root %q joined with private/secret.txt", p, s.final)
	}
	g, err := r.Open("PRIVATE/SECRET.TXT")
	if err != nil {
		t.Skipf("no case-insensitive open here: %v", err)
	}
	defer g.Close()
	q, _ := finalPath(g)
	if q != p {
		t.Errorf("final path of PRIVATE/SECRET.TXT = %q, want %q", q, p)
	}
}
