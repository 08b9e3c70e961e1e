// Package e2e holds jaws's end-to-end test, TestBrowser: the example server
// (../example), built and run as a user would, driven by a headless Chromium.
//
// It is a module of its own so that the browser driver it needs (chromedp)
// stays out of the module graph of jaws's users. Run it from this directory:
//
//	go test -run TestBrowser -v .
package e2e
