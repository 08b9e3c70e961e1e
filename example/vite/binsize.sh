#!/bin/sh
# Prints what shipping the Vite build compressed-only saves in the example's
# binary. It builds ./example with -tags compressedonly three times, from
# copies of this tree that differ only in example/site-compressed/:
#
#   plain     the build as Vite wrote it (decoded by precompress -decode)
#   br,zst,gz as committed: text as .br, .zst and .gz
#   br        text as .br only (precompress -codings br)
#
# each with Go's default flags and with -trimpath -ldflags='-s -w', as a
# release is built. From the repository's root: sh example/vite/binsize.sh
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go run ./internal/precompress -decode -out "$tmp/plain" example/site-compressed
for v in plain br,zst,gz br; do
	mkdir "$tmp/tree-$v"
	tar --exclude=.git --exclude=node_modules --exclude=dist -cf - . | tar -xf - -C "$tmp/tree-$v"
	site="$tmp/tree-$v/example/site-compressed"
	rm -r "$site"
	if [ "$v" = plain ]; then
		cp -r "$tmp/plain" "$site"
	else
		go run ./internal/precompress -codings "$v" -out "$site" "$tmp/plain" >/dev/null
	fi
	bytes=$(find "$site" -type f -exec cat {} + | wc -c)
	(cd "$tmp/tree-$v" &&
		go build -tags compressedonly -o "$tmp/$v.default" ./example &&
		go build -tags compressedonly -trimpath -ldflags='-s -w' -o "$tmp/$v.stripped" ./example)
	printf '%-10s site %8d bytes   binary %9d bytes (default flags)   %9d bytes (-trimpath -ldflags="-s -w")\n' \
		"$v" "$bytes" "$(wc -c <"$tmp/$v.default")" "$(wc -c <"$tmp/$v.stripped")"
done
