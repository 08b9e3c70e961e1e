#!/bin/sh
# Rebuilds ../site-compressed/, the jaws example's compressed-only site
# (go run -tags compressedonly ./example), from this Vite app: installs
# the locked packages, builds dist/ with Vite, and writes it compressed-only
# with ../../internal/precompress (its doc gives the rule). Needs Node.js,
# npm and Go; run it from anywhere, or from the repository's root as
#
#	go generate -tags compressedonly ./example
#
# CI never runs it: it tests the committed output.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run build
rm -rf ../site-compressed
go run ../../internal/precompress -out ../site-compressed dist
