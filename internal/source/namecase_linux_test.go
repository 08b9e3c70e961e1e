package source

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/jaws-go/jaws/internal/testsite"
)

// TestNameCaseCasefold opens names in a Linux casefold directory
// (FS_CASEFOLD_FL, chattr +F), where the kernel opens PRIVATE/secret.txt
// for private/secret.txt: the source must see that the directory folds
// names and refuse every spelling but the stored one (package jaws's
// TestNameCaseRouteGuard serves them). It needs root and a kernel with
// casefold (CONFIG_UNICODE): a tmpfs mounted with -o casefold (Linux
// 6.13+), else an ext4 image made with -O casefold on a loop device; it
// skips, saying why, where neither mounts.
func TestNameCaseCasefold(t *testing.T) {
	t.Parallel()
	site := casefoldDir(t)
	if folds, handled := foldsNamesAt(t, site); !folds || !handled {
		t.Fatalf("foldsNames(casefold directory) = %v, %v; want true, true", folds, handled)
	}
	testsite.At(t, site).
		File("private/secret.txt", []byte("secret")).
		File("private/index.html", []byte("secret")).
		File("Mixed/Case.txt", []byte("mixed"))
	if _, err := os.Stat(filepath.Join(site, "PRIVATE", "SECRET.TXT")); err != nil {
		t.Fatalf("the directory does not fold names: %v", err)
	}
	d := openDir(t, site, true)
	tests := []struct {
		name string
		ok   bool
	}{
		{"private/secret.txt", true},
		{"private/index.html", true},
		{"private", true},
		{"Mixed/Case.txt", true},
		{"PRIVATE/secret.txt", false},
		{"Private/secret.txt", false},
		{"private/SECRET.TXT", false},
		{"PRIVATE/index.html", false},
		{"PRIVATE", false},
		{"mixed/Case.txt", false},
		{"Mixed/case.txt", false},
	}
	for _, tt := range tests {
		// Twice: the second time, a name that passed is remembered.
		for range 2 {
			f, _, _, err := d.Open(tt.name)
			if err == nil {
				f.Close()
			}
			if (err == nil) != tt.ok {
				t.Errorf("Open(%q): %v, want ok %v", tt.name, err, tt.ok)
			}
		}
	}
}

func foldsNamesAt(t *testing.T, dir string) (folds, handled bool) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return foldsNames(d)
}

// casefoldDir returns an empty directory with FS_CASEFOLD_FL set, on a file
// system mounted for the test and unmounted after it, or skips.
func casefoldDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount a file system with casefold")
	}
	mnt := filepath.Join(tempDir(t), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	terr := unix.Mount("tmpfs", mnt, "tmpfs", 0, "casefold")
	if terr != nil {
		if _, err := os.Stat("/sys/fs/ext4/features/casefold"); err != nil {
			t.Skipf("kernel without casefold (CONFIG_UNICODE): tmpfs -o casefold: %v; no /sys/fs/ext4/features/casefold", terr)
		}
		if _, err := exec.LookPath("mkfs.ext4"); err != nil {
			t.Skipf("tmpfs -o casefold: %v; no mkfs.ext4 for an ext4 image", terr)
		}
		img := filepath.Join(tempDir(t), "casefold.img")
		if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-O", "casefold", img, "16M").CombinedOutput(); err != nil {
			t.Skipf("tmpfs -o casefold: %v; mkfs.ext4 -O casefold: %v: %s", terr, err, out)
		}
		if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
			t.Skipf("tmpfs -o casefold: %v; mount -o loop of an ext4 casefold image: %v: %s", terr, err, strings.TrimSpace(string(out)))
		}
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	site := filepath.Join(mnt, "site")
	if err := os.Mkdir(site, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(site)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	flags, err := unix.IoctlGetUint32(int(d.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(d.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsCasefoldFL))
	}
	if err != nil {
		t.Skipf("chattr +F: %v", err)
	}
	return site
}

// TestNameCaseFoldsNames asks file systems this machine has whether they
// fold names: the temporary directory's and /dev/shm's (tmpfs) say they do
// not, by their type and flags; /proc cannot say.
func TestNameCaseFoldsNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dir      string
		folds, handled bool
	}{
		{"temporary directory", tempDir(t), false, true},
		{"tmpfs", "/dev/shm", false, true},
		{"proc", "/proc", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(tt.dir); err != nil {
				t.Skip(err)
			}
			var st unix.Statfs_t
			if err := unix.Statfs(tt.dir, &st); err != nil {
				t.Fatal(err)
			}
			folds, handled := foldsNamesAt(t, tt.dir)
			if tt.name == "temporary directory" && !handled {
				t.Skipf("file system type %#x is not one foldsNames knows", st.Type)
			}
			if folds != tt.folds || handled != tt.handled {
				t.Errorf("foldsNames(%s, type %#x) = %v, %v; want %v, %v", tt.dir, st.Type, folds, handled, tt.folds, tt.handled)
			}
		})
	}
}
