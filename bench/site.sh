#!/usr/bin/env bash
# The site benchmark: a SPECweb99-style static site (thousands of files,
# skewed popularity) served by jaws, jaws on its fast lane, jaws.New alone,
# http.FileServer, the net/http ceiling, fasthttp's FS and nginx, each
# replaying the same request list with wrk. See bench/README.md, "The site
# benchmark".
#
#   bench/site.sh                # fits, spills, media; 5 rounds of 5 s at 32 and 1000 connections; writes bench/results/
#   bench/site.sh -quick         # a smoke run: fits, one round of 2 s; results in a temporary directory
#   bench/site.sh -sets fits -rounds 1 -conns 32
#   bench/site.sh -dir /var/tmp/sets   # keep the generated sets there, for the next run
#   bench/site.sh -sets media -net veth -rounds 7 -out bench/results/site-veth   # CPU per MiB as on two hosts (root)
#
# Every server runs with one thread on CPU 0 (GOMAXPROCS=1, nginx with one
# worker process) and wrk with one thread on CPU 1, as in bench/run.sh.
set -Eeuo pipefail # -E: the ERR trap below reports failures inside functions too

usage() { # the options (those for other processes from lib.sh: no $ in this text)
	cat <<EOF
usage: bench/site.sh [-quick] [-sets LIST] [-rounds N] [-duration D] [-warmup D]
                     [-conns LIST] [-servers LIST] [-bigconns N] [-inflight SIZE]
                     [-net NET] [-dir DIR] [-requests N] [-seed N]
                     [-retries N] [-quiet CPUS] [-maxwait S] [-budget S] [-out DIR]

  -quick          smoke run: the fits set, 1 round of 2s, output to a temp dir
  -sets LIST      comma-separated subset of fits,spills,media (default all):
                  fits    8 directories of 36 files (0.1 KiB to 900 KiB), 39 MiB
                  spills  210 such directories, 1 GiB
                  media   10 files of 5 to 50 MiB, uniform popularity
  -rounds N       rounds; each measures every server once per level, and the
                  report takes the median (default 5)
  -duration D     one measurement, in seconds, e.g. 5s (default 5s)
  -warmup D       each server replays the list this long before the first
                  round, not recorded (default: -duration); before it, each
                  is asked for every distinct path of the list once, so
                  that jaws's fast lane has learnt every name
  -conns LIST     connection counts (default 32,1000)
  -servers LIST   comma-separated subset of jaws,jaws-lane,jaws-bare,stdlib,
                  ceiling,fasthttp,nginx (default all)
  -bigconns N     connections for a set whose mean response is 10 MiB or more
                  (media) at every level (default 4, or the level when lower)
  -inflight SIZE  at most SIZE bytes of responses in flight: a level is cut to
                  SIZE / the set's mean response connections (default 256M)
  -net NET        loopback (default) or veth: wrk in a network namespace of
                  its own, reaching the servers over a veth pair, each
                  end's receive work steered to its own side's core, as on
                  two hosts (needs root; see bench/README.md)
  -dir DIR        write the sets into DIR and keep them; a set already there
                  (same seed, same length of list) is used as it is (default:
                  a temporary directory, removed at the end)
  -requests N     paths in each request list (default 400000)
  -seed N         seed of the files' bytes and of the lists' order (default 1)
$(usage_waits)
  -out DIR        where site.md and raw/site-SET.csv go (default bench/results)
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
. bench/lib.sh # log, die, bytes_of, parse_wrk, wait_quiet, rotated, ...

sets=fits,spills,media
rounds=5
duration=5s
warmup=
conns=32,1000
servers=jaws,jaws-lane,jaws-bare,stdlib,ceiling,fasthttp,nginx
bigconns=4
inflight=256M
net=loopback
dir=
requests=400000
seed=1
# -retries, -quiet, -maxwait, -budget, -out and -quick: lib.sh's.
options=(-sets -rounds -duration -warmup -conns -servers -bigconns -inflight -net -dir -requests -seed)
parse_options "$@"
if $quick; then
	rounds=1 duration=2s
	[ -n "${given[-sets]:-}" ] || sets=fits
	[ -n "$out" ] || out=${TMPDIR:-/tmp}/jaws-site-quick
fi
[ -n "$out" ] || out=$repo/bench/results
[ -n "$warmup" ] || warmup=$duration
trap 'log "error: line $LINENO: $BASH_COMMAND failed"' ERR

[[ $duration =~ ^[1-9][0-9]*s$ ]] || die "-duration $duration: want whole seconds, e.g. 5s"
[[ $warmup =~ ^[0-9]+s$ ]] || die "-warmup $warmup: want whole seconds, e.g. 5s"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-rounds $rounds: want a number"
IFS=, read -r -a set_list <<<"$sets"
IFS=, read -r -a server_list <<<"$servers"
for s in "${set_list[@]}"; do
	case $s in fits | spills | media) ;; *) die "unknown set $s (want fits, spills or media)" ;; esac
done
for s in "${server_list[@]}"; do
	case $s in jaws | jaws-lane | jaws-bare | stdlib | ceiling | fasthttp | nginx) ;; *) die "unknown server $s (want jaws, jaws-lane, jaws-bare, stdlib, ceiling, fasthttp or nginx)" ;; esac
done
conns_levels

# --- tools -------------------------------------------------------------------
# shellcheck disable=SC2119 # no tools but those both scripts need
case $net in
loopback) need_tools ;;
veth)
	need_tools ip:iproute2
	veth_check
	;;
*) die "unknown -net $net (want loopback or veth)" ;;
esac
raise_nofile

# --- build -------------------------------------------------------------------
make_tmp jaws-site veth_down
[ -n "$dir" ] || dir=$tmp/sets
mkdir -p "$dir" "$out/raw"

# fasthttp is a module of its own (bench/fasthttp/go.mod): built only
# when asked for, since it may have to be downloaded.
bins=(example bench/peers bench/report bench/siteset)
[[ ,$servers, != *,fasthttp,* ]] || bins+=(bench/fasthttp)
build_bins "${bins[@]}"

# --- servers -----------------------------------------------------------------
srvhost=127.0.0.1
lg() { taskset -c 1 "$@"; } # command...: the load generator, on CPU 1
if [ "$net" = veth ]; then
	veth_up
	lg() { ip netns exec "$vns" taskset -c 1 "$@"; }
fi
declare -A surl
start_nginx() { # name root
	local port
	port=$(free_port)
	# As bench/run.sh's nginx, but for thousands of files: the open file
	# cache holds 10,000 descriptors (and their stat results).
	serve_nginx "$1" "http://$srvhost:$port/" "listen $srvhost:$port;" "$2" 10000
}
stop_servers() { # after a set: note each server's peak memory, then stop it
	local srv p
	for srv in "${server_list[@]}"; do
		p=${spid[$srv]}
		rss[$srv]=$(sed -nE 's/^VmHWM:[[:space:]]*([0-9]+) kB/\1/p' "/proc/$p/status" 2>/dev/null || echo 0)
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=()
}
declare -A rss startsecs

# jaws_counters server: "hits misses evictions cache_bytes memory zerocopy
# fallback lane" from its /debug/jaws (jaws.Stats as JSON), or nothing. The
# fast lane's responses are counted apart from the three paths'.
jaws_counters() {
	[ -n "${surl[$1]:-}" ] || return 0
	local j k v out=()
	j=$(curl -fs "${surl[$1]}" | tr -d ' \n') || die "$1: cannot read ${surl[$1]}"
	for k in CacheHits CacheMisses CacheEvictions CacheBytes 'Memory":\{"Responses' 'ZeroCopy":\{"Responses' 'Fallback":\{"Responses' 'Lane":\{"Responses'; do
		v=$(sed -nE "s/.*\"$k\":(-?[0-9]+).*/\1/p" <<<"$j")
		[ -n "$v" ] || die "$1: no ${k%%\"*} in ${surl[$1]}"
		out+=("$v")
	done
	echo "${out[*]}"
}

# --- measure -----------------------------------------------------------------
# conns_for level: the connections a level is measured with for this set
# (conns_capped over its mean response: -bigconns for the media set).
conns_for() { conns_capped "$mean" "$1"; }
# replay server conns start seconds: one wrk run over the set's list from
# start, in the background; sets wrkjob and limit (its timeout). Its output
# goes to $tmp/load.out, its errors (and site.lua's "ready" line) to
# $tmp/load.err, bash's time for it to $tmp/load.time.
replay() {
	local srv=$1 c=$2 start=$3 secs=$4
	limit=$((secs + 60))
	: >"$tmp/load.err"
	{ time lg timeout -k 5 "$limit" wrk -t1 -c"$c" -d"${secs}s" --timeout 30s --latency \
		-s "$repo/bench/site.lua" "${url[$srv]}" -- "$list" "$start" 1 >"$tmp/load.out" 2>"$tmp/load.err"; } 2>"$tmp/load.time" &
	wrkjob=$!
}
# ready: wait until site.lua has read the list (its "ready" line), or wrk
# ended; prints the CPU seconds wrk had used by then.
ready() {
	local line
	for _ in $(seq 3000); do
		line=$(grep -m1 '^site: ready' "$tmp/load.err" || true)
		if [ -n "$line" ]; then
			sed -nE 's/.*, cpu ([0-9.]+) s$/\1/p' <<<"$line"
			return
		fi
		kill -0 "$wrkjob" 2>/dev/null || break
		sleep 0.01
	done
	echo 0
}
# measure server level run: one measurement (measure_attempts), appended
# to site-$set.csv.
measure() {
	local srv=$1 level=$2 run=$3 c start t0 t1 cpu0 wall cu cs other busy01 res made mbytes j0 j1 jaws what serr non2xx limit
	local -a c0 c1 a b
	c=$(conns_for "$level")
	start=$(((run - 1) * nreq / rounds))
	what="run $run $set c$level $srv"
	measure_attempts "$what" wrk parse_wrk site_try
	IFS=, read -r _ _ _ _ _ serr non2xx <<<"$res"
	if [ "$non2xx" != 0 ]; then
		cat "$tmp/load.out" >&2
		die "$what: $srv answered $non2xx requests with an error status (wrk counts status 400 and up)"
	fi
	[ "$serr" = 0 ] || log "warning: $what: wrk counted $serr socket errors (connect, read, write, timeout)"
	made= mbytes=
	read -r made mbytes < <(sed -nE 's/^site: made ([0-9]+) bytes ([0-9]+)$/\1 \2/p' "$tmp/load.out") || true
	[ -n "$made" ] || die "$what: site.lua printed no count"
	read -r wall cu cs <"$tmp/load.time"
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	cu=$(awk -v u="$cu" -v s="$cs" -v r="$cpu0" 'BEGIN { printf "%.3f", u + s - r }')
	jaws=,,,,,,,
	if [ -n "$j0" ]; then
		read -r -a a <<<"$j0"
		read -r -a b <<<"$j1"
		jaws="$((b[0] - a[0])),$((b[1] - a[1])),$((b[2] - a[2])),${b[3]},$((b[4] - a[4])),$((b[5] - a[5])),$((b[6] - a[6])),$((b[7] - a[7]))"
	fi
	echo "$run,$set,$srv,$level,$c,${duration%s},$start,$res,$made,$mbytes,$other,$attempt,$(cpu_secs "${c0[0]}" "${c1[0]}"),$(cpu_secs "${c0[1]}" "${c1[1]}"),$cu,$wall,$busy01,$jaws" >>"$csv"
	log_measured "$what" "$cu,$wall" wrk "$(
		[ -z "$j0" ] || echo ", cache hits $((b[0] - a[0])) misses $((b[1] - a[1])) evictions $((b[2] - a[2]))$([ "${b[7]}" = "${a[7]}" ] || echo ", fast lane $((b[7] - a[7])) responses")"
	)"
}
# warm server: each path of $tmp/paths once, in order, one at a time on one
# keep-alive connection (one curl for all of them, from the load
# generator's side); every answer must be 200.
warm() {
	local srv=$1 t codes bad
	t=$(now)
	awk -v base="${url[$srv]%/}" '{ printf "url = \"%s%s\"\noutput = \"/dev/null\"\n", base, $0 }' "$tmp/paths" >"$tmp/warm.curl"
	lg curl -s -w '%{http_code}\n' -K "$tmp/warm.curl" >"$tmp/warm.codes" || die "$set: warming $srv: curl failed"
	codes=$(wc -l <"$tmp/warm.codes")
	bad=$(grep -vc '^200$' "$tmp/warm.codes" || true)
	if [ "$codes" != "$npaths" ] || [ "$bad" != 0 ]; then
		die "$set: warming $srv: $bad of $codes answers were not 200 ($npaths paths)"
	fi
	log "$set: $srv warm: $npaths paths in $(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
}
# site_try: one try of measure, in its variables (srv, c, start; sets j0,
# j1, c0, c1, cpu0, t0, t1 and limit): the server's counters and CPU time
# read before wrk starts, since it asks for the first files as soon as
# site.lua has read the list; the window from then (ready) to wrk's end.
site_try() {
	j0=$(jaws_counters "$srv")
	read -r -a c0 <<<"$(cpu_split "${spid[$srv]}")"
	replay "$srv" "$c" "$start" "${duration%s}"
	cpu0=$(ready)
	t0=$(now)
	window_open
	wait "$wrkjob" || rc=$?
	t1=$(now)
	window_close
	read -r -a c1 <<<"$(cpu_split "${spid[$srv]}")"
	j1=$(jaws_counters "$srv")
}

total=0
for set in "${set_list[@]}"; do
	sdir=$dir/$set
	log "$set: writing the set into $sdir"
	"$tmp/bin/siteset" -set "$set" -dir "$sdir" -seed "$seed" -requests "$requests" | sed -n 1p >&2
	www=$sdir/www list=$sdir/requests.txt
	mean=$(sed -nE 's/^mean response: ([0-9]+) bytes$/\1/p' "$sdir/siteset.txt")
	nreq=$(wc -l <"$list")
	awk '!seen[$1]++ { print $1 }' "$list" >"$tmp/paths" # the distinct paths, in the list's order, for warm
	npaths=$(wc -l <"$tmp/paths")
	probe=$(head -1 "$list" | cut -d' ' -f1) # the path each server is asked for until it answers

	for srv in "${server_list[@]}"; do
		t=$(now)
		case $srv in
		# The example serves -root DIR at / (middleware.SPA) and its
		# counters at /debug/jaws, on the same server.
		jaws) start_go jaws "$tmp/bin/example" -root "$www" -addr "$srvhost:0"
			surl[jaws]=${url[jaws]}debug/jaws ;;
		# The same with the fast lane at /: the counters stay on the
		# router, since the lane answers only what jaws has served.
		jaws-lane) start_go jaws-lane "$tmp/bin/example" -root "$www" -addr "$srvhost:0" -fastlane
			surl[jaws-lane]=${url[jaws-lane]}debug/jaws ;;
		# Its counters on a listener of their own, as run.sh does.
		jaws-bare)
			start_go jaws-bare "$tmp/bin/peers" -mode jaws -stats 127.0.0.1:0 -root "$www" -addr "$srvhost:0"
			surl[jaws-bare]=$(stats_url jaws-bare) ;;
		stdlib | ceiling) start_go "$srv" "$tmp/bin/peers" -mode "$srv" -root "$www" -addr "$srvhost:0" ;;
		fasthttp) start_go fasthttp "$tmp/bin/fasthttp" -root "$www" -addr "$srvhost:0" ;;
		nginx) start_nginx nginx "$www" ;;
		esac
		startsecs[$srv]=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
		log "$set: $srv on ${url[$srv]} (started in ${startsecs[$srv]} s)"
	done
	# Every server must answer every file of the set with its bytes.
	for srv in "${server_list[@]}"; do
		"$tmp/bin/siteset" -check "${url[$srv]}" -dir "$sdir" >&2 || die "$set: $srv does not serve the set right"
	done

	# The levels this set is measured at: each connection count once (the
	# media set has the same few connections at every level).
	levels=() seen=" "
	for level in "${conns_list[@]}"; do
		c=$(conns_for "$level")
		[[ $seen == *" $c "* ]] && continue
		seen+="$c "
		levels+=("$level")
	done
	csv=$out/raw/site-$set.csv
	meta=$out/raw/site-$set-meta.txt
	{
		machine_meta
		echo "rounds: $rounds"
		echo "duration: $duration"
		echo "warm-up: every distinct path of the list once ($npaths), then $warmup per server from the start of the list, not recorded"
		echo "connections: $conns (at most $inflight of responses in flight; a mean response of 10 MiB or more: $bigconns)"
		echo "net: $net$([ "$net" = loopback ] || echo " ($(veth_meta))")"
		sed -E 's/^/set /' "$sdir/siteset.txt"
		echo "nginx config: worker_processes 1; sendfile on; tcp_nopush on; open_file_cache max=10000 inactive=60s; open_file_cache_valid 60s; keepalive_requests 1000000"
		[ -z "${url[fasthttp]:-}" ] || echo "fasthttp: $(sed -nE 's/^fasthttp (v[^ ]+) serving.*/\1/p' "$tmp/fasthttp.log" | head -1)"
		echo "quiet: $quiet"
		echo "retries: $retries"
		echo "wait budget: $budget s"
		echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$meta"
	echo "run,set,server,conns_level,conns,duration_s,start,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,made,made_bytes,other_cpus,retries,server_user_s,server_sys_s,client_cpu_s,client_wall_s,server_core_busy,client_core_busy,jaws_hits,jaws_misses,jaws_evictions,jaws_cache_bytes,jaws_memory,jaws_zerocopy,jaws_fallback,jaws_lane" >"$csv"

	# Warm each server alike: every distinct path once, so that the fast
	# lane has learnt every name the list asks for (it answers a name only
	# after jaws answered it once through net/http); then the replay, for
	# connections, heap, caches, and the page cache.
	for srv in "${server_list[@]}"; do
		warm "$srv"
	done
	for srv in "${server_list[@]}"; do
		[ "${warmup%s}" -gt 0 ] || break
		replay "$srv" "$(conns_for "${levels[0]}")" 0 "${warmup%s}"
		wait "$wrkjob" || log "warning: the warm-up of $srv failed or hung"
	done
	n=$((rounds * ${#levels[@]} * ${#server_list[@]}))
	total=$((total + n))
	log "$set: $rounds round(s) x ${#levels[@]} level(s) x ${#server_list[@]} servers = $n x $duration"
	# Interleaved: every round measures all servers at a level back to
	# back, in an order that rotates from round to round, all from the same
	# place in the list (round r starts (r-1)/rounds of the way in).
	for run in $(seq "$rounds"); do
		for level in "${levels[@]}"; do
			for srv in $(rotated "$run" "${server_list[@]}"); do
				measure "$srv" "$level" "$run"
			done
		done
	done
	stop_servers
	{
		echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "waited for quiet: $waited s (all sets so far)"
		echo "wrk killed and repeated: $hung (all sets so far)"
		for srv in "${server_list[@]}"; do
			echo "$srv memory: peak rss ${rss[$srv]} KiB, started in ${startsecs[$srv]} s"
		done
	} >>"$meta"
done

"$tmp/bin/report" -site -raw "$out/raw" -out "$out"
log "results in $out/site.md"
