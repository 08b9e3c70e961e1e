#!/usr/bin/env bash
# First requests for large files: time to first byte and bytes read from
# disk, jaws (bench/peers -mode jaws, default Options) against
# http.FileServer (-mode stdlib). See bench/README.md, "First byte".
#
#   bench/firstbyte.sh                       # 512M and 1G, 5 rounds, files in a temp dir
#   bench/firstbyte.sh -sizes 512M -rounds 9 -dir /var/tmp/fb
#
# Each round, for each file and each server, interleaved:
#   warm   the file is in the page cache; touch it (a new mtime, as a deploy
#          gives), then one request for bytes=0-1023; curl's time to first byte
#   cold   the file's pages are dropped (dd iflag=nocache count=0); one
#          request for bytes=0-1023; read_bytes of the server in /proc/PID/io
#          before and after is what it read from the disk
# The servers run on CPU 0 with GOMAXPROCS=1, curl on CPU 1. The report is
# the median of the rounds. The directory must be on a disk-backed file
# system (not tmpfs), or nothing is ever read from a disk.
set -euo pipefail

sizes=512M,1G
rounds=5
dir=
while [ $# -gt 0 ]; do
	case $1 in
	-sizes) sizes=$2; shift 2 ;;
	-rounds) rounds=$2; shift 2 ;;
	-dir) dir=$2; shift 2 ;;
	*) echo "usage: bench/firstbyte.sh [-sizes LIST] [-rounds N] [-dir DIR]" >&2; exit 2 ;;
	esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$dir" ]; then
	dir=$(mktemp -d /var/tmp/jaws-firstbyte.XXXX)
	trap 'cleanup; rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"

go build -o "$tmp/peers" ./bench/peers
IFS=, read -ra sz <<<"$sizes"
for s in "${sz[@]}"; do
	f="$dir/f$s.bin"
	[ -f "$f" ] || head -c "$s" /dev/urandom >"$f"
done

start() { # mode -> sets url and pid
	GOMAXPROCS=1 taskset -c 0 "$tmp/peers" -mode "$1" -root "$dir" -addr 127.0.0.1:0 >"$tmp/$1.out" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		url=$(grep -o 'http://[0-9.:]*' "$tmp/$1.out" | head -1 || true)
		[ -n "$url" ] && break
		sleep 0.05
	done
	eval "url_$1=$url pid_$1=$!"
}
start jaws
start stdlib

ttfb() { taskset -c 1 curl -s -o /dev/null -H 'Range: bytes=0-1023' -w '%{time_starttransfer}' "$1"; }
readbytes() { awk '/^read_bytes/ {print $2}' "/proc/$1/io"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

: >"$tmp/samples"
for r in $(seq "$rounds"); do
	for s in "${sz[@]}"; do
		f="$dir/f$s.bin"
		for m in jaws stdlib; do
			eval "url=\$url_$m pid=\$pid_$m"
			cat "$f" >/dev/null # warm
			touch "$f"
			t=$(ttfb "$url/f$s.bin")
			echo "$s $m warm_ttfb_ms $(awk "BEGIN{print $t*1000}")" >>"$tmp/samples"
			dd if="$f" iflag=nocache count=0 status=none
			touch "$f"
			before=$(readbytes "$pid")
			t=$(ttfb "$url/f$s.bin")
			after=$(readbytes "$pid")
			echo "$s $m cold_ttfb_ms $(awk "BEGIN{print $t*1000}")" >>"$tmp/samples"
			echo "$s $m cold_read_bytes $((after - before))" >>"$tmp/samples"
		done
	done
done

printf '%-6s %-7s %16s %16s %18s\n' size server warm_ttfb_ms cold_ttfb_ms cold_read_bytes
for s in "${sz[@]}"; do
	for m in jaws stdlib; do
		row=()
		for k in warm_ttfb_ms cold_ttfb_ms cold_read_bytes; do
			row+=("$(awk -v s="$s" -v m="$m" -v k="$k" '$1==s && $2==m && $3==k {print $4}' "$tmp/samples" | median)")
		done
		printf '%-6s %-7s %16s %16s %18s\n' "$s" "$m" "${row[@]}"
	done
done
echo "(medians of $rounds rounds; bytes=0-1023 after touch; servers on CPU 0, curl on CPU 1)"
