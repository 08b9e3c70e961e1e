// Package e2e holds jaws's end-to-end tests: TestBrowser,
// TestBrowserDictionaries and TestBrowserCompressedOnly, the example server
// (../example), built and run as a user would, driven by a headless
// Chromium (the demo app; a build redeployed under the server, fetched
// again as compression-dictionary deltas; a real Vite build shipped
// compressed-only, with -tags compressedonly); TestSharedCacheDictionaries and TestSharedCacheVaryLines, nginx's
// proxy_cache in front of it, keeping each client's variant its own; and
// TestStacks, a Handler mounted behind the routers and middleware
// applications put in front of it (chi, gin, echo, gorilla, otelhttp,
// promhttp, gzhttp, gziphandler, their compressors), every answer decoded
// and compared with its file.
//
// It is a module of its own so that what these tests need (chromedp, the
// routers and middleware) stays out of the module graph of jaws's users.
// Run them from this directory:
//
//	go test -run '^TestBrowser' -v .
//	go test -run '^TestSharedCache' -v .
//	go test -run TestStacks .
package e2e
