#!/usr/bin/env bash
# The load benchmark: jaws against http.FileServer, two net/http ceilings and
# nginx, with wrk. See bench/README.md.
#
#   bench/run.sh                 # the full run (about 15 minutes), results in bench/results/
#   bench/run.sh -quick          # a smoke run (under a minute), results in a temporary directory
#   bench/run.sh -runs 5 -duration 5s -sizes 1K,64K,1M -out /tmp/r
#
# Every server runs with one thread on CPU 0 (GOMAXPROCS=1, nginx with one
# worker process) and wrk with one thread on CPU 1, so they never share a core.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/run.sh [-quick] [-runs N] [-duration D] [-sizes LIST] [-conns N]
                    [-bigconns N] [-servers LIST] [-retries N] [-quiet CPUS] [-maxwait S] [-budget S] [-out DIR]

  -quick          smoke run: sizes 1K,64K,1M, 1 run of 1s, output to a temp dir
  -runs N         runs per cell; the report takes the median (default 5)
  -duration D     wrk duration per measurement in seconds, e.g. 3s (default 2s)
  -sizes LIST     comma-separated file sizes (default 1K,16K,64K,256K,1M,10M,100M)
  -conns N        wrk connections for files under 10 MiB (default 32)
  -bigconns N     wrk connections for files of 10 MiB and more (default 4)
  -servers LIST   comma-separated subset of jaws,jaws-bare,stdlib,ceiling,ceiling-min,nginx
  -quiet CPUS     other processes using more CPU than this during a measurement
                  disturb it (default 0.10: a tenth of one CPU)
  -retries N      measure a disturbed cell again, at most N times (default 2)
  -maxwait S      wait at most S seconds for other processes to go quiet before
                  a measurement (default 60)
  -budget S       wait and repeat for S seconds in all, then measure as it comes
                  (default 600)
  -out DIR        where results.md, the SVGs and raw/ go (default bench/results)
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

runs=5
duration=2s
retries=2
quiet=0.10
maxwait=60
budget=600
sizes=1K,16K,64K,256K,1M,10M,100M
conns=32
bigconns=4
servers=jaws,jaws-bare,stdlib,ceiling,ceiling-min,nginx
out=
quick=false
while [ $# -gt 0 ]; do
	case $1 in
	-quick) quick=true ;;
	-runs) runs=$2; shift ;;
	-duration) duration=$2; shift ;;
	-sizes) sizes=$2; shift ;;
	-conns) conns=$2; shift ;;
	-bigconns) bigconns=$2; shift ;;
	-retries) retries=$2; shift ;;
	-quiet) quiet=$2; shift ;;
	-maxwait) maxwait=$2; shift ;;
	-budget) budget=$2; shift ;;
	-servers) servers=$2; shift ;;
	-out) out=$2; shift ;;
	-h | -help | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if $quick; then
	runs=1 duration=1s sizes=1K,64K,1M
	[ -n "$out" ] || out=${TMPDIR:-/tmp}/jaws-bench-quick
fi
[ -n "$out" ] || out=$repo/bench/results

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
trap 'log "error: line $LINENO: $BASH_COMMAND failed"' ERR

# --- tools -------------------------------------------------------------------
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || need+=(nginx-light)
command -v taskset >/dev/null || need+=(util-linux)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root"
	had_nginx=$(pgrep -x nginx || true)
	log "apt-get install ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
	# Debian starts the packaged nginx service; the benchmark runs its own.
	if [ -z "$had_nginx" ] && pgrep -x nginx >/dev/null; then
		log "stopping the nginx service the package started"
		service nginx stop >/dev/null 2>&1 || systemctl stop nginx >/dev/null 2>&1 || true
	fi
fi
command -v go >/dev/null || die "go is not installed"
[ "$(nproc)" -ge 2 ] || log "warning: fewer than 2 CPUs; server and wrk will share one"

# --- build -------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jaws-bench.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building into $tmp/bin"
mkdir -p "$tmp/bin"
go build -o "$tmp/bin/example" ./example
go build -o "$tmp/bin/peers" ./bench/peers
go build -o "$tmp/bin/report" ./bench/report

# jaws's default CacheMaxFileSize, for the report's crossover marker: the
# constant in handler.go, written as "N << M" or as a number.
cachemax=$(sed -nE 's/^[[:space:]]*defaultCacheMaxFileSize[[:space:]]*=[[:space:]]*([0-9]+([[:space:]]*<<[[:space:]]*[0-9]+)?).*/\1/p' handler.go | head -1)
if [ -n "$cachemax" ]; then cachemax=$((cachemax)); else cachemax=0; log "warning: could not read defaultCacheMaxFileSize from handler.go"; fi

# --- files -------------------------------------------------------------------
bytes_of() {
	local s=$1
	case $s in
	*K) echo $((${s%K} << 10)) ;;
	*M) echo $((${s%M} << 20)) ;;
	*G) echo $((${s%G} << 30)) ;;
	*) echo "$s" ;;
	esac
}
IFS=, read -r -a size_list <<<"$sizes"
IFS=, read -r -a server_list <<<"$servers"
www=$tmp/www
mkdir -p "$www"
for s in "${size_list[@]}"; do
	head -c "$(bytes_of "$s")" /dev/urandom >"$www/$s.bin"
done
log "files: ${size_list[*]} in $www"

# --- servers -----------------------------------------------------------------
declare -A url spid
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}
wait_url() { # name logfile: the URL the server printed, once it answers
	local name=$1 logf=$2 u=
	for _ in $(seq 200); do
		u=${u:-$(grep -oE 'http://[0-9.:]+/' "$logf" | head -1 || true)}
		if [ -n "$u" ] && curl -fs -o /dev/null "$u${size_list[0]}.bin"; then
			echo "$u"
			return
		fi
		sleep 0.05
	done
	cat "$logf" >&2
	die "$name did not start"
}
start_go() { # name binary args...
	local name=$1
	shift
	GOMAXPROCS=1 taskset -c 0 "$@" >"$tmp/$name.log" 2>&1 &
	pids+=($!)
	spid[$name]=$!
	url[$name]=$(wait_url "$name" "$tmp/$name.log")
}
start_nginx() {
	local p port
	p=$tmp/nginx
	port=$(free_port)
	mkdir -p "$p/logs"
	cat >"$p/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $p/nginx.pid;
error_log $p/logs/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    default_type application/octet-stream;
    client_body_temp_path $p/body;
    proxy_temp_path $p/proxy;
    fastcgi_temp_path $p/fastcgi;
    uwsgi_temp_path $p/uwsgi;
    scgi_temp_path $p/scgi;
    server {
        listen 127.0.0.1:$port;
        root $www;
    }
}
EOF
	echo "nginx serving $www on http://127.0.0.1:$port/" >"$tmp/nginx.log"
	taskset -c 0 nginx -p "$p/" -c "$p/nginx.conf" -e "$p/logs/error.log" >>"$tmp/nginx.log" 2>&1 &
	pids+=($!)
	spid[nginx]=$!
	url[nginx]=$(wait_url nginx "$tmp/nginx.log")
}
for srv in "${server_list[@]}"; do
	case $srv in
	jaws) start_go jaws "$tmp/bin/example" -root "$www" -addr 127.0.0.1:0 ;;
	jaws-bare) start_go jaws-bare "$tmp/bin/peers" -mode jaws -root "$www" -addr 127.0.0.1:0 ;;
	stdlib | ceiling | ceiling-min) start_go "$srv" "$tmp/bin/peers" -mode "$srv" -root "$www" -addr 127.0.0.1:0 ;;
	nginx) start_nginx ;;
	*) die "unknown server $srv" ;;
	esac
	log "$srv: ${url[$srv]}"
done

# --- check every response once; note jaws's transfer path per size -----------
mkdir -p "$out/raw"
jaws_counts() { # Memory ZeroCopy Fallback responses, from /debug/jaws
	{ curl -fs "${url[jaws]}debug/jaws" | tr -d ' \n'; echo; } |
		sed -nE 's/.*"Memory":\{"Responses":([0-9]+).*"ZeroCopy":\{"Responses":([0-9]+).*"Fallback":\{"Responses":([0-9]+).*/\1 \2 \3/p'
}
echo "size,bytes,path" >"$out/raw/paths.csv"
for s in "${size_list[@]}"; do
	want="200 $(bytes_of "$s")"
	for srv in "${server_list[@]}"; do
		[ "$srv" = jaws ] && read -r m0 z0 f0 < <(jaws_counts)
		got=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "${url[$srv]}$s.bin")
		[ "$got" = "$want" ] || die "$srv answered $got for $s.bin, want $want"
		if [ "$srv" = jaws ]; then
			read -r m1 z1 f1 < <(jaws_counts)
			path=unknown
			[ "$m1" -gt "$m0" ] && path=memory
			[ "$z1" -gt "$z0" ] && path=zerocopy
			[ "$f1" -gt "$f0" ] && path=fallback
			echo "$s,$(bytes_of "$s"),$path" >>"$out/raw/paths.csv"
		fi
	done
done

# --- measure -----------------------------------------------------------------
# wrk prints sizes in binary units and latencies in us/ms/s.
parse_wrk() { # wrk output on stdin -> requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx
	awk '
	function bytes(v,   n, u) {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "KB") n *= 1024; else if (u == "MB") n *= 1048576
		else if (u == "GB") n *= 1073741824; else if (u == "TB") n *= 1099511627776
		return n
	}
	function micros(v,   n, u) {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000; else if (u == "m") n *= 60000000
		return n
	}
	$1 == "50%" { p50 = micros($2) }
	$1 == "99%" { p99 = micros($2) }
	$2 == "requests" && $3 == "in" { req = $1 }
	$1 == "Socket" && $2 == "errors:" { gsub(/,/, ""); errs = $4 + $6 + $8 + $10 }
	/Non-2xx or 3xx responses:/ { non2xx = $NF }
	$1 == "Requests/sec:" { rps = $2 }
	$1 == "Transfer/sec:" { tps = bytes($2) }
	END {
		if (rps == "") exit 1
		printf "%d,%.2f,%.0f,%.1f,%.1f,%d,%d\n", req, rps, tps, p50, p99, errs, non2xx
	}'
}

# Other work on the machine (a build, a test run) disturbs a measurement. To
# see it, snapshot the CPU time of every user process outside this script's
# session before and after, and turn the difference into CPUs used by others.
mysid=$(cut -d')' -f2- /proc/$$/stat | awk '{print $4}')
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
snapshot() { # file: "pid ticks" of user processes outside this session
	# Processes come and go while cat reads: ignore the ones that went.
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } |
		awk -v sid="$mysid" '{ pid = $1; sub(/^.*\) /, ""); if ($4 != sid && $4 != 0 && $2 != 2) print pid, $12 + $13 }' >"$1"
}
others() { # before after seconds: CPUs used by other processes in between
	awk -v secs="$3" -v hz="$hz" 'NR == FNR { t[$1] = $2; next } { d += $2 - t[$1] } END { printf "%.2f\n", d / hz / secs }' "$1" "$2"
}
cpu_ticks() { # pid: its user and system time in clock ticks
	cut -d')' -f2- "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
busy() { awk -v a="$1" -v b="$quiet" 'BEGIN { exit !(a > b) }'; }
now() { date +%s.%N; }
waited=0 # seconds spent waiting and repeating, against $budget
wait_quiet() { # until other processes use less than $quiet CPUs, for $maxwait s at most
	local o t0 t1 first=true
	t0=$(date +%s)
	[ "$waited" -lt "$budget" ] || return 0
	while :; do
		snapshot "$tmp/q0"
		t1=$(now)
		sleep 0.3
		snapshot "$tmp/q1"
		o=$(others "$tmp/q0" "$tmp/q1" "$(awk -v a="$t1" -v b="$(now)" 'BEGIN { print b - a }')")
		if ! busy "$o"; then
			waited=$((waited + $(date +%s) - t0))
			return 0
		fi
		if $first; then
			log "other processes use $o CPUs; waiting for them to go quiet"
			first=false
		fi
		if [ $(($(date +%s) - t0)) -ge "$maxwait" ] || [ $((waited + $(date +%s) - t0)) -ge "$budget" ]; then
			waited=$((waited + $(date +%s) - t0))
			log "still busy; measuring anyway (waited $waited s of $budget s in all)"
			return 0
		fi
	done
}
measure() { # server size mode run
	local srv=$1 s=$2 mode=$3 run=$4 c=$conns hdr=() res t0 t1 c0 c1 other attempt
	[ "$(bytes_of "$s")" -ge $((10 << 20)) ] && c=$bigconns
	[ "$mode" = close ] && hdr=(-H 'Connection: close')
	for attempt in $(seq 0 "$retries"); do
		wait_quiet
		snapshot "$tmp/s0"
		c0=$(cpu_ticks "${spid[$srv]}")
		t0=$(now)
		taskset -c 1 wrk -t1 -c"$c" -d"$duration" --timeout 30s --latency "${hdr[@]}" "${url[$srv]}$s.bin" >"$tmp/wrk.out"
		t1=$(now)
		c1=$(cpu_ticks "${spid[$srv]}")
		snapshot "$tmp/s1"
		other=$(others "$tmp/s0" "$tmp/s1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
		if ! res=$(parse_wrk <"$tmp/wrk.out"); then
			cat "$tmp/wrk.out" >&2
			die "could not parse wrk's output"
		fi
		busy "$other" || break
		[ "$waited" -lt "$budget" ] || break
		waited=$((waited + ${duration%s}))
		[ "$attempt" -lt "$retries" ] && log "run $run $s $mode $srv: disturbed (other processes used $other CPUs), again"
	done
	echo "$run,$s,$(bytes_of "$s"),$srv,$mode,$c,${duration%s},$res,$other,$attempt,$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')" >>"$out/raw/results.csv"
	log "run $run $s $mode $srv: $(cut -d, -f2 <<<"$res") req/s$(busy "$other" && echo " (disturbed: others used $other CPUs)")"
}

n=$((runs * ${#size_list[@]} * 2 * ${#server_list[@]}))
log "measuring: $runs run(s) x ${#size_list[@]} size(s) x 2 modes x ${#server_list[@]} servers = $n x $duration"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- . ':!bench/results' 2>/dev/null || echo ' (modified)')"
	echo "cpu: $(lscpu 2>/dev/null | sed -nE 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs"
	echo "kernel: $(uname -sr)"
	echo "go: $(go version | cut -d' ' -f3-)"
	echo "wrk: $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
	echo "nginx: $(nginx -v 2>&1 | cut -d/ -f2)"
	echo "runs: $runs"
	echo "duration: $duration"
	echo "connections: $conns (files of 10 MiB and more: $bigconns)"
	echo "quiet: $quiet"
	echo "retries: $retries"
	echo "wait budget: $budget s"
	echo "cachemax: $cachemax"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/raw/meta.txt"
echo "run,size,bytes,server,mode,conns,duration_s,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,other_cpus,retries,server_cpu_s" >"$out/raw/results.csv"

# Warm up each server (connections, heap, caches) without recording.
for srv in "${server_list[@]}"; do
	taskset -c 1 wrk -t1 -c"$conns" -d1s "${url[$srv]}${size_list[0]}.bin" >/dev/null
done

# Interleaved: every run measures all servers for a size and mode back to
# back, in an order that rotates from run to run, so drift on the machine
# spreads over all of them.
for run in $(seq "$runs"); do
	for s in "${size_list[@]}"; do
		for mode in keepalive close; do
			k=${#server_list[@]}
			for i in $(seq 0 $((k - 1))); do
				measure "${server_list[$(((i + run - 1) % k))]}" "$s" "$mode" "$run"
			done
		done
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/raw/meta.txt"
echo "waited for quiet: $waited s" >>"$out/raw/meta.txt"

"$tmp/bin/report" -raw "$out/raw" -out "$out"
log "results in $out/results.md"
