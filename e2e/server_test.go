package e2e

import (
	"bufio"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// example is the example server running in a process of its own.
type example struct {
	url  string // base URL, without the trailing slash
	stop func() (log []string, err error)
}

// startExample builds ../example as a user would (go build, in the jaws
// module; with -race when the test has it) and runs it on a free port with its request log on (-log), as
//
//	go run ./example -addr 127.0.0.1:0 -log [args...]
//
// (args such as -root DIR) and returns once it prints the URL it serves on. stop sends it SIGINT,
// waits for its graceful shutdown and returns what it wrote to stderr, one
// line each: the request log (chi's, one line per request, written when the
// request is done) and the handler's errors, if any. It also runs at cleanup.
func startExample(t *testing.T, args ...string) *example {
	t.Helper()
	return startExampleBuilt(t, nil, args...)
}

// startExampleBuilt is startExample with buildFlags added to go build's,
// such as -tags compressedonly.
func startExampleBuilt(t *testing.T, buildFlags []string, args ...string) *example {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "example")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	goArgs := append([]string{"build", "-o", exe}, buildFlags...)
	if raceEnabled {
		goArgs = append(goArgs, "-race")
	}
	build := exec.Command("go", append(goArgs, ".")...)
	build.Dir = filepath.Join("..", "example")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s ../example: %v\n%s", strings.Join(buildFlags, " "), err, out)
	}

	cmd := exec.Command(exe, append([]string{"-addr", "127.0.0.1:0", "-log"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log []string
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log = append(log, sc.Text())
		}
	}()
	stop := sync.OnceValues(func() ([]string, error) {
		exited := make(chan error, 1)
		go func() {
			<-logDone // Wait closes the pipes: read them to the end first
			exited <- cmd.Wait()
		}()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			cmd.Process.Kill() // no SIGINT on Windows
		}
		select {
		case err = <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			err = errors.Join(errors.New("no exit within 30s of SIGINT"), <-exited)
		}
		return log, err
	})
	t.Cleanup(func() { stop() })

	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		lines <- line
		for { // the example may print more; never block it
			if _, err := br.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(time.Minute):
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "jaws example serving ")
	i := strings.LastIndex(rest, " on ")
	if !ok || i < 0 {
		log, err := stop()
		t.Fatalf("the example printed %q, want \"jaws example serving WHAT on URL\" (exit: %v)\n%s", line, err, strings.Join(log, "\n"))
	}
	return &example{url: strings.TrimSuffix(rest[i+len(" on "):], "/"), stop: stop}
}

// logged is one request in the example's request log.
type logged struct {
	method, path string
	status       int
	bytes        int64
	coding       string // jaws's lines: the body's content coding, "" for none
}

// requestLine is a line of chi's request log (middleware.DefaultLogFormatter
// without colour):
//
//	2006/01/02 15:04:05 "GET http://127.0.0.1:8080/assets/video.webm HTTP/1.1" from 127.0.0.1:53412 - 206 65536B in 1.2ms
var requestLine = regexp.MustCompile(`"([A-Z]+) (\S+) HTTP/[0-9.]+" from \S+ - ([0-9]{3}) ([0-9]+)B in `)

// accessLine is a line of jaws's access log (Options.AccessLog through
// slog's text handler), which the example writes for its site's files:
//
//	time=... level=INFO msg=jaws method=GET path=/assets/video.webm status=206 bytes=65536 duration=1.2ms transfer=fallback coding=""
var accessLine = regexp.MustCompile(`msg=jaws method=([A-Z]+) path=(\S+) status=([0-9]{3}) bytes=([0-9]+) .* coding="?([a-z]*)"?$`)

// parseRequest reads a request log line, chi's or jaws's; ok is false for
// other lines.
func parseRequest(line string) (r logged, ok bool) {
	if m := accessLine.FindStringSubmatch(line); m != nil {
		r.method, r.path = m[1], m[2]
		r.status, _ = strconv.Atoi(m[3])
		r.bytes, _ = strconv.ParseInt(m[4], 10, 64)
		r.coding = m[5]
		return r, true
	}
	m := requestLine.FindStringSubmatch(line)
	if m == nil {
		return logged{}, false
	}
	u, err := url.Parse(m[2])
	if err != nil {
		return logged{}, false
	}
	r.method, r.path = m[1], u.Path
	r.status, _ = strconv.Atoi(m[3])
	r.bytes, _ = strconv.ParseInt(m[4], 10, 64)
	return r, true
}
