#!/usr/bin/env bash
# Goroutine stack growths per response: how often a server's requests
# outgrow the stack the collector shrank their idle connection's to, and
# copy it (runtime.newstack, counted by a uprobe). See bench/README.md,
# "Stack depth".
#
#   bench/newstack.sh jaws jaws-bare ceiling          # fits at 32 and 1000 connections
#   bench/newstack.sh -conns 1000 -dir /var/tmp/sets jaws
#   bench/newstack.sh -close jaws ceiling                # each request on a new connection
#
# Needs perf (linux-perf) and root, for the uprobe.
set -Eeuo pipefail
# Globals shared with lib.sh, which reads and sets them (SC2034, SC2154):
# shellcheck disable=SC2034,SC2154

usage() {
	cat <<'EOF'
usage: bench/newstack.sh [-sets LIST] [-conns LIST] [-duration D] [-close]
                         [-dir DIR] [-requests N] [-seed N] SERVER...

  SERVER          jaws (the example), jaws-bare, stdlib or ceiling, as
                  bench/site.sh names them
  -sets LIST      comma-separated subset of fits,spills (default fits)
  -conns LIST     connections of wrk (default 32,1000)
  -duration D     the measured run, in whole seconds, after as long a
                  warm-up (default 4s)
  -close          requests with Connection: close, each on a connection of
                  its own, whose goroutine starts on a small stack
  -dir DIR        where the sets are written and kept (default: a temporary
                  directory)
  -requests N     paths in each request list (default 400000)
  -seed N         seed of the sets (default 1)
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
. bench/lib.sh # log, die, need_tools, site_prologue, start_site, ...

sets=fits conns=32,1000 duration=4s close=false dir='' requests=400000 seed=1
servers=()
args=()
for a in "$@"; do
	case $a in jaws | jaws-bare | stdlib | ceiling) servers+=("$a") ;; *) args+=("$a") ;; esac
done
options=(-sets -conns -duration -close:close=true -dir -requests -seed)
parse_options "${args[@]}"
[ ${#servers[@]} -gt 0 ] || { usage >&2; exit 2; }
[[ $duration =~ ^[1-9][0-9]*s$ ]] || die "-duration $duration: want whole seconds, e.g. 4s"
IFS=, read -r -a set_list <<<"$sets"
for s in "${set_list[@]}"; do
	case $s in fits | spills) ;; *) die "unknown set $s (want fits or spills)" ;; esac
done
conns_levels # conns_list, maxconns
# shellcheck disable=SC2119
need_tools perf:linux-perf
raise_nofile

site_prologue jaws-newstack

# probe binary: a uprobe on binary's runtime.newstack; its event name.
probe() {
	perf probe -q -x "$1" -a "newstack_$2=runtime.newstack" >/dev/null 2>&1 || die "perf probe on $1 failed (root? perf?)"
	perf probe -l 2>/dev/null | grep -o "probe_[a-z0-9_]*:newstack_$2" | head -1
}

hdr=()
[ "$close" = false ] || hdr=(-H "Connection: close")
table="| set | conns | server | responses | stack growths | per response |
| --- | ---: | --- | ---: | ---: | ---: |"
for set in "${set_list[@]}"; do
	sdir=$dir/$set
	"$tmp/bin/siteset" -set "$set" -dir "$sdir" -seed "$seed" -requests "$requests" | sed -n 1p >&2
	www=$sdir/www list=$sdir/requests.txt
	probe=$(head -1 "$list" | cut -d' ' -f1)
	for srv in "${servers[@]}"; do
		declare -A url spid
		start_site "$srv" "$www"
		bin=$tmp/bin/peers
		[ "$srv" != jaws ] || bin=$tmp/bin/example
		ev=$(probe "$bin" "${srv//-/_}")
		for c in "${conns_list[@]}"; do
			taskset -c 1 wrk -t1 -c"$c" -d"$duration" --timeout 30s "${hdr[@]}" -s "$repo/bench/site.lua" "${url[$srv]}" -- "$list" 0 1 >/dev/null 2>&1
			perf stat -e "$ev" -p "${spid[$srv]}" -o "$tmp/perf" &
			pp=$!
			taskset -c 1 wrk -t1 -c"$c" -d"$duration" --timeout 30s "${hdr[@]}" -s "$repo/bench/site.lua" "${url[$srv]}" -- "$list" 1000 1 >"$tmp/wrk" 2>&1
			kill -INT "$pp"
			wait "$pp" || true
			IFS=, read -r n _ _ _ _ _ non2xx <<<"$(parse_wrk <"$tmp/wrk")"
			[ "$non2xx" = 0 ] || die "$srv answered $non2xx requests with an error status"
			g=$(awk -v e="$ev" '$2 == e { gsub(/,/, "", $1); print $1 }' "$tmp/perf")
			table+=$'\n'"$(awk -v s="$set" -v c="$c" -v v="$srv" -v n="$n" -v g="$g" \
				'BEGIN { printf "| %s | %d | %s | %d | %d | %.3f |", s, c, v, n, g, g / n }')"
			log "$set c$c $srv: $g growths in $n responses"
		done
		perf probe -q -d "$ev" >/dev/null 2>&1 || true
		kill "${spid[$srv]}" 2>/dev/null || true
		wait "${spid[$srv]}" 2>/dev/null || true
		unset url spid
	done
done
echo "$table"
