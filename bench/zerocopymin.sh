#!/usr/bin/env bash
# Where zero-copy starts to pay (Options.ZeroCopyMinSize): jaws with
# Transfer zerocopy against jaws with Transfer fallback (net/http's own
# sendfile), files of 64 KiB to 1 MiB, 32 and 200 keep-alive connections,
# three interleaved rounds of 3 s; servers on CPU 0 with GOMAXPROCS=1, wrk on
# CPU 1. Prints a line per measurement (round, connections, size, path,
# req/s, server CPU µs per response), then the medians. Needs wrk; see
# bench/README.md, "Where zero-copy starts".
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/peers" ./bench/peers
mkdir "$tmp/www"
sizes=(64 128 256 512 1024)
for s in "${sizes[@]}"; do head -c $((s * 1024)) /dev/urandom >"$tmp/www/$s.bin"; done
hz=$(getconf CLK_TCK)

declare -A url pid
for path in zerocopy fallback; do
	GOMAXPROCS=1 taskset -c 0 "$tmp/peers" -mode jaws -transfer "$path" -root "$tmp/www" -addr 127.0.0.1:0 >"$tmp/$path.log" 2>&1 &
	pid[$path]=$!
	pids+=($!)
done
for path in zerocopy fallback; do
	for _ in $(seq 50); do
		url[$path]=$(grep -oE 'http://[0-9.:]+/' "$tmp/$path.log" | head -1 || true)
		[ -n "${url[$path]}" ] && break
		sleep 0.1
	done
	[ -n "${url[$path]}" ] || { cat "$tmp/$path.log" >&2; exit 1; }
done

ticks() { cut -d')' -f2- "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
for round in 1 2 3; do
	for c in 32 200; do
		for s in "${sizes[@]}"; do
			for path in zerocopy fallback; do
				t0=$(ticks "${pid[$path]}")
				out=$(taskset -c 1 wrk -t1 -c"$c" -d3s "${url[$path]}$s.bin")
				t1=$(ticks "${pid[$path]}")
				rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
				n=$(awk '/requests in/ { print $1 }' <<<"$out")
				echo "$round $c ${s}K $path $rps $(awk -v a="$t0" -v b="$t1" -v n="$n" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }')"
			done
		done
	done
done | tee "$tmp/out.txt"

echo
echo "medians: connections size path req/s µs/response"
awk '{ k = $2 " " $3 " " $4; r[k] = r[k] " " $5; u[k] = u[k] " " $6 }
	END { for (k in r) print k "|" r[k] "|" u[k] }' "$tmp/out.txt" |
	while IFS='|' read -r k rs us; do
		echo "$k $(tr ' ' '\n' <<<"$rs" | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') $(tr ' ' '\n' <<<"$us" | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
	done | sort -k1,1n -k2,2n
