#!/bin/sh
# regen.sh rebuilds the bundler fixtures that TestFingerprintedBundlers reads:
# it builds project/ (plus generated pages, one chunk each, so that every build
# emits a few hundred real hashes) with Vite 8 (Rolldown), Vite 7 (Rollup),
# webpack 5 and esbuild, each in its own temporary directory with its own
# npm install, and writes the names each emitted to <bundler>/names.txt.
# Nothing is installed here, and node_modules is never committed.
#
#	sh middleware/testdata/bundlers/regen.sh
#
# Needs node (20.19 or newer, for Vite 8) and npm with its registry. The
# versions are pinned below; change them to test a newer release.
set -eu

VITE=8.4.0
VITE_ROLLUP=7.3.8
WEBPACK=5.113.0
ESBUILD=0.28.2
PAGES=250

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# setup DIR PACKAGE...: a copy of project/ with the generated pages and the
# packages installed.
setup() {
	d=$tmp/$1
	shift
	cp -R "$here/project" "$d"
	mkdir "$d/src/pages"
	{
		echo 'export const pages = {'
		# Names that look like words or versions, and numbered pages.
		for name in chunk-vendors my-component some-longname logo-dark \
			Inter-Regular OpenSans-Bold font-Roboto400 bundle-20240101 \
			photo-IMG_1234 bootstrap-5.3.2.min app \
			$(i=0; while [ $i -lt $PAGES ]; do printf 'page-%03d ' $i; i=$((i + 1)); done); do
			printf "export function render(el) {\n  el.textContent = '%s';\n}\n" "$name" >"$d/src/pages/$name.js"
			printf "  '%s': () => import('./%s.js'),\n" "$name" "$name"
		done
		echo '};'
	} >"$d/src/pages/index.js"
	printf '{"private": true, "type": "module"}\n' >"$d/package.json"
	(cd "$d" && npm install --no-audit --no-fund --loglevel=error --save-exact "$@" >/dev/null)
}

# names OUT TITLE HASHED: writes OUT/names.txt from the files under dist,
# "hashed NAME" for those whose path matches the shell pattern HASHED (where
# the bundler's configuration puts a hash in the name) and "plain NAME" for
# the rest (index.html, public/ copies).
names() {
	mkdir -p "$here/$1"
	{
		echo "# $2, node $(node --version): written by regen.sh, do not edit."
		echo '# hashed: the bundler put its [hash] in the name; plain: named as it is.'
		(cd dist && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while read -r f; do
			case $f in
			$3) echo "hashed $f" ;;
			*) echo "plain $f" ;;
			esac
		done
	} >"$here/$1/names.txt"
}

setup vite "vite@$VITE"
(cd "$tmp/vite" && npx vite build && names vite "vite $VITE (Rolldown)" 'assets/*')

setup vite-rollup "vite@$VITE_ROLLUP"
(cd "$tmp/vite-rollup" && npx vite build && names vite-rollup "vite $VITE_ROLLUP (Rollup)" 'assets/*')

setup webpack "webpack@$WEBPACK"
(cd "$tmp/webpack" && node webpack.build.js && names webpack "webpack $WEBPACK" '*')

setup esbuild "esbuild@$ESBUILD"
(cd "$tmp/esbuild" && npx esbuild src/main.js --bundle --splitting --format=esm \
	--minify --sourcemap --outdir=dist --log-level=warning \
	--entry-names='[name]-[hash]' --asset-names='[name]-[hash]' \
	--loader:.svg=file --loader:.jpg=file --loader:.woff2=file &&
	names esbuild "esbuild $ESBUILD" '*')

wc -l "$here"/*/names.txt
