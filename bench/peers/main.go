// Command peers serves a directory the ways jaws is compared with in the
// load benchmark (see bench/README.md):
//
//	peers -mode stdlib      -root DIR -addr 127.0.0.1:0   # http.FileServer(http.Dir(DIR))
//	peers -mode ceiling     -root DIR -addr 127.0.0.1:0   # bytes from a map, jaws's header set
//	peers -mode ceiling-min -root DIR -addr 127.0.0.1:0   # bytes from a map, Content-Type and -Length only
//	peers -mode jaws        -root DIR -addr 127.0.0.1:0   # jaws.New(DIR, jaws.Options{}), no router
//	peers -mode jaws-embed            -addr 127.0.0.1:0   # jaws.NewFS of files embedded at build time
//	peers -mode chi-compress -root DIR -addr 127.0.0.1:0  # chi's middleware.Compress(5) around http.FileServer
//
// The two ceilings read every file under DIR into memory at start and answer
// a GET for a file's path with its bytes and header values computed once, so
// a response costs net/http's own work and nothing else: no handler written
// for net/http can do less per request. "ceiling" sends the headers jaws
// sends for a file (Content-Type, Content-Length, Etag, Last-Modified,
// Accept-Ranges), so it does the same HTTP work; "ceiling-min" sends only
// Content-Type and Content-Length. Neither checks methods, preconditions or
// ranges, nor whether a file changed.
//
// "jaws" serves with the jaws handler straight from the http.Server, without
// the example's chi router, to tell the handler's cost from the router's;
// -revalidate sets its Options.Revalidate and -transfer its Options.Transfer
// (auto, zerocopy, fallback), -cachemaxfile its Options.CacheMaxFileSize
// (bench/README.md: why the default is what it is); -stats ADDR serves its counters
// (jaws.Stats, as JSON) at /debug/jaws on a listener of their own, so the
// served handler stays the bare jaws handler. -cpuprofile writes a CPU
// profile of the whole run, for any mode.
//
// "chi-compress" is how a chi application would compress static files
// without jaws: chi's middleware.Compress at level 5 (gzip or deflate, as
// the request accepts, for text types) wrapping http.FileServer, compressing
// every response anew.
//
// -tls CERT,KEY serves HTTPS with that certificate and key (PEM files), for
// any mode: HTTP/1.1 and HTTP/2, as ALPN negotiates, net/http's defaults
// otherwise (bench/run.sh's tls scenario). The -stats listener stays plain
// HTTP. "peers -gencert DIR" writes DIR/cert.pem and DIR/key.pem, a
// self-signed ECDSA P-256 certificate for localhost, 127.0.0.1 and
// 10.77.0.1 (the veth path's server address) valid for a week, and exits.
//
// It prints the URL it serves on, as the example server does, and serves
// until SIGINT or SIGTERM.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/big"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/jaws-go/jaws"
)

func main() {
	mode := flag.String("mode", "stdlib", "`stdlib`, ceiling, ceiling-min, jaws or chi-compress")
	root := flag.String("root", ".", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:0", "`host:port` to listen on; port 0 picks a free port")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to `file`")
	flag.DurationVar(&revalidate, "revalidate", 0, "jaws's Options.Revalidate, for -mode jaws")
	flag.StringVar(&transfer, "transfer", "auto", "jaws's Options.Transfer, for -mode jaws: `auto`, zerocopy or fallback")
	flag.Int64Var(&cacheMaxFile, "cachemaxfile", 0, "jaws's Options.CacheMaxFileSize, for -mode jaws (0: its default)")
	flag.StringVar(&statsAddr, "stats", "", "for -mode jaws: serve jaws.Stats as JSON at /debug/jaws on `host:port`")
	flag.StringVar(&tlsFiles, "tls", "", "serve HTTPS (HTTP/1.1 and HTTP/2) with the certificate and key in `CERT,KEY` (PEM files)")
	gencert := flag.String("gencert", "", "write a self-signed ECDSA P-256 certificate and key to `DIR`/cert.pem and DIR/key.pem, and exit")
	flag.Parse()
	if *gencert != "" {
		if err := genCert(*gencert); err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if err := run(*mode, *root, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(mode, root, addr string) error {
	h, err := handler(mode, root)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// The same server settings as the example serving jaws.
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	var cert, key string
	scheme := "http"
	if tlsFiles != "" {
		var ok bool
		if cert, key, ok = strings.Cut(tlsFiles, ","); !ok || cert == "" || key == "" {
			return fmt.Errorf("-tls %q: want CERT,KEY", tlsFiles)
		}
		scheme = "https"
	}
	fmt.Printf("peers %s serving %s on %s://%s/\n", mode, root, scheme, ln.Addr())
	if j, ok := h.(*jaws.Handler); ok && statsAddr != "" {
		// After the line above: run.sh takes the first URL printed.
		if err := serveStats(j, statsAddr); err != nil {
			return err
		}
	}
	if cert != "" {
		// With no TLSConfig, ServeTLS offers h2 and http/1.1 by ALPN.
		err = srv.ServeTLS(ln, cert, key)
	} else {
		err = srv.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// embeddedSite is the files embedded by a build with -tags jawsembed
// (embed.go), for -mode jaws-embed; nil otherwise.
var embeddedSite func() (fs.FS, error)

var (
	revalidate   time.Duration
	transfer     string
	cacheMaxFile int64
	statsAddr    string
	tlsFiles     string
)

// genCert writes dir/cert.pem and dir/key.pem: a self-signed ECDSA P-256
// certificate for the addresses the benchmark serves on, valid for a week.
func genCert(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "jaws bench"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 77, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
}

func handler(mode, root string) (http.Handler, error) {
	switch mode {
	case "stdlib":
		return http.FileServer(http.Dir(root)), nil
	case "jaws":
		t, ok := map[string]jaws.Transfer{"auto": jaws.TransferAuto, "zerocopy": jaws.TransferZeroCopy, "fallback": jaws.TransferFallback}[transfer]
		if !ok {
			return nil, fmt.Errorf("unknown -transfer %q", transfer)
		}
		return jaws.New(root, jaws.Options{Revalidate: revalidate, Transfer: t, CacheMaxFileSize: cacheMaxFile})
	case "jaws-embed":
		if embeddedSite == nil {
			return nil, errors.New("-mode jaws-embed needs a build with -tags jawsembed and the files in bench/peers/embedded (bench/run.sh does both)")
		}
		site, err := embeddedSite()
		if err != nil {
			return nil, err
		}
		return jaws.NewFS(site, jaws.Options{})
	case "chi-compress":
		return middleware.Compress(5)(http.FileServer(http.Dir(root))), nil
	case "ceiling", "ceiling-min":
		files, err := load(root, mode == "ceiling")
		if err != nil {
			return nil, err
		}
		return files, nil
	}
	return nil, fmt.Errorf("unknown -mode %q: want stdlib, ceiling, ceiling-min, jaws, jaws-embed or chi-compress", mode)
}

// serveStats serves h.Stats() as JSON at /debug/jaws on a listener at addr
// of its own, as the example does on its router, and prints its URL.
func serveStats(h *jaws.Handler, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/jaws", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(h.Stats())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Printf("peers jaws stats on http://%s/debug/jaws\n", ln.Addr())
	return nil
}

// file is one file's response, computed once.
type file struct {
	body   []byte
	header []field // assigned key by key, sharing the value slices
}

type field struct {
	key   string // canonical
	value []string
}

// memFiles maps a URL path ("/1K.bin") to its response.
type memFiles map[string]*file

func (m memFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := m[r.URL.Path]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	for _, f := range f.header {
		h[f.key] = f.value
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.body)
	}
}

// load reads every regular file under root. full adds the validators and
// Accept-Ranges that jaws sends; their values are worked out as jaws does
// (a content-hash ETag, the mtime as Last-Modified), though their cost is
// paid here once and does not matter.
func load(root string, full bool) (memFiles, error) {
	m := memFiles{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = http.DetectContentType(body)
		}
		h := []field{
			{"Content-Type", []string{ctype}},
			{"Content-Length", []string{strconv.Itoa(len(body))}},
		}
		if full {
			info, err := d.Info()
			if err != nil {
				return err
			}
			sum := sha256.Sum256(body)
			h = append(h,
				field{"Etag", []string{`"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`}},
				field{"Last-Modified", []string{info.ModTime().UTC().Format(http.TimeFormat)}},
				field{"Accept-Ranges", []string{"bytes"}})
		}
		m["/"+filepath.ToSlash(rel)] = &file{body: body, header: h}
		return nil
	})
	return m, err
}
