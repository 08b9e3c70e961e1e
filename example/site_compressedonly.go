//go:build compressedonly

package main

import "embed"

// site is, with -tags compressedonly, a real build served when no -root is
// given, in place of the demo: the React app of vite/, built by Vite and
// shipped compressed-only, under "site-compressed/" (siteDir). Its HTML,
// scripts, stylesheet, SVG and JSON are there only as NAME.br, NAME.zst and
// NAME.gz; its PNG and fonts, compressed already, as they are. jaws serves
// each under its own name (jaws.NewFS, as for the demo):
//
//	go run -tags compressedonly ./example
//
// site-compressed/ is generated: do not edit it. vite/build.sh rebuilds it
// (npm ci, vite build, then go run ./internal/precompress, whose doc gives
// the rule of which files are compressed); from the repository's root:
//
//	go generate -tags compressedonly ./example
//
// internal/precompress's tests check that the committed files are what the
// command makes of the build they decode to.
//
//go:generate sh vite/build.sh
//go:embed site-compressed
var site embed.FS

// siteDir is the directory of site that holds the built-in site.
const siteDir = "site-compressed"

// demoSite is what the startup line calls the built-in site.
const demoSite = "the built-in Vite build, compressed-only"
