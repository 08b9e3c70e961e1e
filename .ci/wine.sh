#!/usr/bin/env bash
# Sets up Wine to run Windows test binaries (GOOS=windows go test), as
# CONTRIBUTING.md ("Windows, under Wine") describes, and prints the
# directory to put first on PATH: it holds go_windows_amd64_exec, which go
# test uses to run each binary.
# Idempotent: a prefix already set up is reused.
set -euo pipefail
state=${JAWS_WINE_DIR:-/tmp/jaws-wine}
wine=/usr/lib/wine/wine64
if [ ! -x "$wine" ] || ! command -v x86_64-w64-mingw32-dlltool >/dev/null; then
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		wine64 binutils-mingw-w64-x86-64 >&2
fi
mkdir -p "$state/bin"
export WINEPREFIX="$state/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$state/prefix/.jaws-ready" ]; then
	# Go 1.22+ calls ProcessPrng from bcryptprimitives.dll, which Wine 8
	# lacks: forward it to advapi32's SystemFunction036.
	build=$(mktemp -d)
	printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng = advapi32.SystemFunction036\n' >"$build/bcryptprimitives.def"
	x86_64-w64-mingw32-dlltool -d "$build/bcryptprimitives.def" -e "$build/exports.o"
	x86_64-w64-mingw32-ld -shared --entry 0 -s -o "$build/bcryptprimitives.dll" "$build/exports.o"
	"$wine" wineboot -i >/dev/null 2>&1
	"$wine" winecfg /v win10 >/dev/null 2>&1
	cp "$build/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
	# A server edition, so the TransmitFile path runs without the client
	# editions' two-transfer limit, as on Windows Server.
	"$wine" reg add 'HKLM\System\CurrentControlSet\Control\ProductOptions' /v ProductType /d ServerNT /f >/dev/null 2>&1
	/usr/lib/wine/wineserver -w
	rm -rf "$build"
	touch "$state/prefix/.jaws-ready"
fi
cat >"$state/bin/go_windows_amd64_exec" <<EXEC
#!/bin/sh
export WINEPREFIX="$WINEPREFIX" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
exec $wine "\$@"
EXEC
chmod +x "$state/bin/go_windows_amd64_exec"
echo "$state/bin"
