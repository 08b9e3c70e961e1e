package testsite

import (
	"flag"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

// Main runs a package's tests (call it from TestMain) with three settings
// that make them cheaper and check the same things:
//
//   - Temporary trees go to a memory file system (tmpfs, /dev/shm on Linux)
//     when TMPDIR is not set. The tests create thousands of files, and on
//     some machines (virtual disks with ext4's journal behind them) each
//     creation costs half a millisecond of kernel time, a quarter of the
//     root package's CPU. Set TMPDIR to test on a disk's file system; CI
//     runs the root package once that way.
//   - The garbage collector runs at GOGC=400 unless GOGC is set: the tests
//     read whole bodies of up to megabytes, and collecting at every doubling
//     took an eighth of their CPU. Tests that measure the heap call
//     runtime.GC first; the soak, which bounds RSS, runs at GOGC=100.
//   - Tests run 2×GOMAXPROCS at a time unless -parallel is given (or
//     -fuzz, which takes it as its number of workers): many wait on a
//     timeout of their own (the hand-back and slow-client tests), and at
//     GOMAXPROCS at a time the cores sat idle behind them.
func Main(m *testing.M) {
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	// -fuzz takes -parallel as its number of workers: more than the cores
	// only starve them.
	fuzz := flag.Lookup("test.fuzz")
	fuzzing := fuzz != nil && fuzz.Value.String() != ""
	if !parallelSet && !fuzzing {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	if _, set := os.LookupEnv("TMPDIR"); !set {
		if dir := memoryTempDir(); dir != "" {
			os.Setenv("TMPDIR", dir)
		}
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
