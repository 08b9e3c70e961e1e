//go:build !compressedonly

package main

import "embed"

// site is the demo site served when no -root is given, under "site/"
// (siteDir). With -tags compressedonly, site_compressedonly.go's build
// takes its place.
//
//go:embed site
var site embed.FS

// siteDir is the directory of site that holds the built-in site.
const siteDir = "site"

// demoSite is what the startup line calls the built-in site.
const demoSite = "the built-in demo site"
