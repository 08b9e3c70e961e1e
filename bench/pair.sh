#!/usr/bin/env bash
# Server CPU per response of two servers measured at the same time, for a
# machine whose speed drifts (a shared VM): both servers share CPU 0, each
# replayed by a wrk of its own on CPU 1, so a slow second slows both and
# the ratio of their CPU per response keeps. See bench/README.md, "Paired
# runs".
#
#   bench/pair.sh jaws-bare/ceiling jaws/stdlib   # fits at 32 and 1000 connections, 7 rounds of 4 s
#   bench/pair.sh -sets fits,spills -conns 32 -dir /var/tmp/sets jaws-bare/ceiling
#   bench/pair.sh -sets media jaws/stdlib       # CPU per MiB of large files, 4 connections
#   bench/pair.sh -conns 1000 jaws@d5c1934/jaws # the example as of a revision against the tree's
#   bench/pair.sh -sets 80K jaws-bare/stdlib     # one file of 80 KiB, requested over and over
#
# The sets are bench/siteset's, as bench/site.sh writes them (-dir keeps
# them for the next run).
set -Eeuo pipefail
# Globals shared with lib.sh, which reads and sets them (SC2034, SC2154):
# shellcheck disable=SC2034,SC2154

usage() {
	cat <<'EOF'
usage: bench/pair.sh [-sets LIST] [-conns LIST] [-rounds N] [-duration D]
                     [-dir DIR] [-requests N] [-seed N] [-out FILE] A/B...

  A/B             two servers measured together, each of jaws, jaws-bare,
                  stdlib, ceiling, nginx (as bench/site.sh names them); a Go
                  one as NAME@REV is built from git revision REV
  -sets LIST      comma-separated subset of fits,spills,media (default fits);
                  media is measured per MiB read, not per response (two
                  servers on one core share the client's receive work over
                  loopback too: compare large files with site.sh -net
                  veth); a size
                  (80K, 1M) is a set of one file of that many random bytes,
                  /a/b/f.bin, which every request asks for
  -conns LIST     connections for each server's wrk (default 32,1000)
  -bigconns N     connections for media at every level (default 4, as
                  bench/site.sh: a few 28 MiB responses fill the link)
  -rounds N       rounds per pair and level; the report takes the median of
                  the rounds' ratios (default 7)
  -duration D     one round, in whole seconds, e.g. 4s (default 4s)
  -dir DIR        where the sets are written and kept (default: a temporary
                  directory)
  -requests N     paths in each request list (default 400000)
  -seed N         seed of the sets (default 1)
  -out FILE       the markdown table (default: stdout only)
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
. bench/lib.sh # log, die, need_tools, site_prologue, start_site, ...

sets=fits conns=32,1000 bigconns=4 rounds=7 duration=4s dir='' requests=400000 seed=1
pairs=()
args=()
for a in "$@"; do
	if [[ $a =~ ^[a-z][a-z-]*(@[A-Za-z0-9._-]+)?/[a-z][a-z-]*(@[A-Za-z0-9._-]+)?$ ]]; then pairs+=("$a"); else args+=("$a"); fi
done
options=(-sets -conns -bigconns -rounds -duration -dir -requests -seed)
parse_options "${args[@]}"
[ ${#pairs[@]} -gt 0 ] || { usage >&2; exit 2; }
[[ $duration =~ ^[1-9][0-9]*s$ ]] || die "-duration $duration: want whole seconds, e.g. 4s"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-rounds $rounds: want a number"
[[ $bigconns =~ ^[1-9][0-9]*$ ]] || die "-bigconns $bigconns: want a number"
IFS=, read -r -a set_list <<<"$sets"
for s in "${set_list[@]}"; do
	case $s in fits | spills | media) ;; *) [[ $s =~ ^[1-9][0-9]*[KM]$ ]] || die "unknown set $s (want fits, spills, media or a size such as 80K)" ;; esac
done
declare -A want
for p in "${pairs[@]}"; do
	for s in "${p%%/*}" "${p#*/}"; do
		case $s in jaws | jaws-bare | stdlib | ceiling | nginx | jaws@* | jaws-bare@* | stdlib@* | ceiling@*) want[$s]=1 ;;
		*) die "unknown server $s in $p" ;;
		esac
	done
	[ "${p%%/*}" != "${p#*/}" ] || die "$p: two different servers, please"
done
conns_levels # conns_list, maxconns
maxconns=$((2 * maxconns)) # two servers' connections at once
# shellcheck disable=SC2119
need_tools
raise_nofile

site_prologue jaws-pair
at_exit=remove_revs
for s in "${!want[@]}"; do
	[[ $s != *@* ]] || build_rev "${s#*@}"
done

# replay server conns start: a wrk for server on CPU 1, in the background,
# its output in $tmp/SERVER.wrk; its pid joins wrks.
replay() {
	taskset -c 1 wrk -t1 -c"$2" -d"$duration" --timeout 30s -s "$repo/bench/site.lua" "${url[$1]}" -- "$list" "$3" 1 \
		>"$tmp/$1.wrk" 2>"$tmp/$1.err" &
	wrks+=($!)
}
# both a b conns start: a wrk for each at once, until both end; the
# cores' times in $tmp/cores0 once both have read the list (site.lua's
# "ready" line) and in $tmp/cores1 at the end.
both() {
	wrks=()
	: >"$tmp/$1.err"
	: >"$tmp/$2.err"
	replay "$1" "$3" "$4"
	replay "$2" "$3" "$4"
	for _ in $(seq 3000); do
		grep -q '^site: ready' "$tmp/$1.err" && grep -q '^site: ready' "$tmp/$2.err" && break
		sleep 0.01
	done
	cores "$tmp/cores0"
	wait "${wrks[@]}"
	cores "$tmp/cores1"
}
# responses server: the requests its last wrk counted, after checking
# that none had an error status; for media, the MiB it read (wrk's "read",
# partial responses too: a round ends with a few large ones in flight).
responses() {
	local res
	res=$(parse_wrk <"$tmp/$1.wrk")
	IFS=, read -r n _ _ _ _ _ non2xx <<<"$res"
	[ "$non2xx" = 0 ] || die "$1 answered $non2xx requests with an error status"
	[ "$n" -gt 0 ] || die "$1 answered nothing: $(cat "$tmp/$1.err")"
	if [ "$set" = media ]; then
		awk "$wrk_bytes_awk"'$2 == "requests" && $3 == "in" { v = $5; sub(/read$/, "", v); printf "%.3f\n", bytes(v) / 1048576 }' "$tmp/$1.wrk"
		return
	fi
	echo "$n"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

table="| set | conns | A | B | CPU µs per response (media: per MiB), A / B (medians) | B ÷ A, CPU per response (median, range of $rounds rounds) | CPU 0 / CPU 1 busy |
| --- | ---: | --- | --- | --- | --- | --- |"
# one_file dir size: a set of one file of size random bytes in dir, kept
# while it has that size, and a request list that asks for nothing else.
one_file() {
	local n f=$1/www/a/b/f.bin
	n=$(bytes_of "$2")
	if [ "$(stat -c %s "$f" 2>/dev/null)" != "$n" ]; then
		mkdir -p "$1/www/a/b"
		head -c "$n" /dev/urandom >"$f"
		yes "/a/b/f.bin $n" | head -1000 >"$1/requests.txt" || true
	fi
	log "one file of $2: $f"
}
# check_set server: the server answers every file of the set right.
check_set() {
	if [ -n "$one" ]; then
		curl -fsS "${url[$1]}a/b/f.bin" | cmp -s - "$www/a/b/f.bin" || die "$1 does not serve $www/a/b/f.bin right"
		return
	fi
	"$tmp/bin/siteset" -check "${url[$1]}" -dir "$sdir" >&2 || die "$set: $1 does not serve the set right"
}
for set in "${set_list[@]}"; do
	one=''
	if [[ $set =~ ^[1-9][0-9]*[KM]$ ]]; then
		one=$set sdir=$dir/one-$set
		one_file "$sdir" "$set"
	else
		sdir=$dir/$set
		"$tmp/bin/siteset" -set "$set" -dir "$sdir" -seed "$seed" -requests "$requests" | sed -n 1p >&2
	fi
	www=$sdir/www list=$sdir/requests.txt
	nreq=$(wc -l <"$list")
	probe=$(head -1 "$list" | cut -d' ' -f1)
	declare -A url spid
	for srv in "${!want[@]}"; do
		case $srv in
		nginx)
			port=$(free_port)
			serve_nginx nginx "http://$srvhost:$port/" "listen $srvhost:$port;" "$www" 10000
			;;
		*) start_site "$srv" "$www" ;;
		esac
		check_set "$srv"
	done
	levels=("${conns_list[@]}") unit=response
	if [ "$set" = media ]; then
		levels=("$bigconns") unit=MiB
	fi
	for p in "${pairs[@]}"; do
		a=${p%%/*} b=${p#*/}
		for c in "${levels[@]}"; do
			log "$set c$c: $a and $b, warming up"
			both "$a" "$b" "$c" 0
			: >"$tmp/rounds"
			for r in $(seq "$rounds"); do
				start=$((r * nreq / (rounds + 1)))
				ta=$(cpu_ticks "${spid[$a]}") tb=$(cpu_ticks "${spid[$b]}")
				both "$a" "$b" "$c" "$start"
				ta=$(($(cpu_ticks "${spid[$a]}") - ta)) tb=$(($(cpu_ticks "${spid[$b]}") - tb))
				IFS=, read -r busy0 busy1 <<<"$(core_busy "$tmp/cores0" "$tmp/cores1")"
				na=$(responses "$a") nb=$(responses "$b")
				awk -v ta="$ta" -v tb="$tb" -v na="$na" -v nb="$nb" -v hz="$hz" -v b0="$busy0" -v b1="$busy1" \
					'BEGIN { ua = ta / hz * 1e6 / na; ub = tb / hz * 1e6 / nb
					         printf "%.2f %.2f %.4f %.2f %.2f\n", ua, ub, ub / ua, b0, b1 }' >>"$tmp/rounds"
				log "$set c$c round $r: $a $(awk 'END { print $1 }' "$tmp/rounds") µs, $b $(awk 'END { print $2 }' "$tmp/rounds") µs per $unit"
			done
			ua=$(cut -d' ' -f1 "$tmp/rounds" | median) ub=$(cut -d' ' -f2 "$tmp/rounds" | median)
			ratio=$(cut -d' ' -f3 "$tmp/rounds" | median)
			lo=$(cut -d' ' -f3 "$tmp/rounds" | sort -g | head -1) hi=$(cut -d' ' -f3 "$tmp/rounds" | sort -g | tail -1)
			busy0=$(cut -d' ' -f4 "$tmp/rounds" | median) busy1=$(cut -d' ' -f5 "$tmp/rounds" | median)
			table+=$'\n'"$(printf '| %s | %s | %s | %s | %.1f / %.1f | %.2f (%.2f–%.2f) | %.0f%% / %.0f%% |' \
				"$set" "$c" "$a" "$b" "$ua" "$ub" "$ratio" "$lo" "$hi" "$(awk -v x="$busy0" 'BEGIN { print x * 100 }')" "$(awk -v x="$busy1" 'BEGIN { print x * 100 }')")"
		done
	done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
	unset url spid
done
echo "$table"
if [ -n "$out" ]; then
	{
		echo "# Paired runs"
		echo
		echo "\`bench/pair.sh ${*}\`, $(date -u +%F)."
		echo
		echo "$table"
	} >"$out"
	log "wrote $out"
fi
