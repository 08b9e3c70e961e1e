#!/usr/bin/env bash
# The load benchmark: jaws against http.FileServer, two net/http ceilings and
# nginx, with wrk; and, for compression, jaws against chi's Compress
# middleware and nginx's gzip. See bench/README.md.
#
#   bench/run.sh                 # the full run (about 19 minutes), results in bench/results/
#   bench/run.sh -quick          # a smoke run (about a minute), results in a temporary directory
#   bench/run.sh -compress-only  # the compression scenario alone (about 2 minutes)
#   bench/run.sh -runs 5 -duration 5s -sizes 1K,64K,1M -out /tmp/r
#
# Every server runs with one thread on CPU 0 (GOMAXPROCS=1, nginx with one
# worker process) and wrk with one thread on CPU 1, so they never share a core.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/run.sh [-quick] [-scenarios LIST | -compress-only] [-runs N] [-duration D]
                    [-sizes LIST] [-conns N] [-bigconns N] [-servers LIST] [-cservers LIST]
                    [-retries N] [-quiet CPUS] [-maxwait S] [-budget S] [-out DIR]

  -quick          smoke run: sizes 1K,64K,1M, 1 run of 1s, output to a temp dir
  -scenarios LIST comma-separated subset of files,compress (default both):
                  files     files of -sizes (random bytes) from -servers, keep-alive
                            and Connection: close
                  compress  a 64 KiB JavaScript file (app.js, built from Go's own
                            .js files) with and without Accept-Encoding: gzip,
                            from -cservers, keep-alive
  -compress-only  the same as -scenarios compress
  -runs N         runs per cell; the report takes the median (default 5)
  -duration D     wrk duration per measurement in seconds, e.g. 3s (default 2s)
  -sizes LIST     comma-separated file sizes (default 1K,16K,64K,256K,1M,10M,100M)
  -conns N        wrk connections for files under 10 MiB (default 32)
  -bigconns N     wrk connections for files of 10 MiB and more (default 4)
  -servers LIST   comma-separated subset of jaws,jaws-bare,stdlib,ceiling,ceiling-min,nginx
  -cservers LIST  the compress scenario's servers, a subset of
                  jaws,jaws-bare,chi-compress,stdlib,nginx-gzip (default all):
                  jaws and jaws-bare are measured with and without gzip,
                  chi-compress and nginx-gzip with, stdlib without
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
cservers=jaws,jaws-bare,chi-compress,stdlib,nginx-gzip
scenarios=files,compress
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
	-cservers) cservers=$2; shift ;;
	-scenarios) scenarios=$2; shift ;;
	-compress-only) scenarios=compress ;;
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

files=false compress=false
IFS=, read -r -a scenario_list <<<"$scenarios"
for sc in "${scenario_list[@]}"; do
	case $sc in
	files) files=true ;;
	compress) compress=true ;;
	*) usage >&2; die "unknown scenario $sc (want files or compress)" ;;
	esac
done
$files || $compress || die "no scenario"

# --- tools -------------------------------------------------------------------
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || need+=(nginx-light)
command -v taskset >/dev/null || need+=(util-linux)
command -v curl >/dev/null || need+=(curl)
command -v gzip >/dev/null || need+=(gzip)
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
IFS=, read -r -a cserver_list <<<"$cservers"
$files || size_list=() server_list=()
$compress || cserver_list=()
www=$tmp/www
mkdir -p "$www"
for s in "${size_list[@]}"; do
	head -c "$(bytes_of "$s")" /dev/urandom >"$www/$s.bin"
done
$files && log "files: ${size_list[*]} in $www"

# The compress scenario's file: 64 KiB of real JavaScript, the same bytes on
# every run with the same Go: Go's own .js files one after the other, cut at
# 65536 bytes. Random bytes would not compress at all, and one file repeated
# would compress far better than any real bundle.
appjs_bytes=65536
appjs_sources=(
	lib/wasm/wasm_exec.js
	src/cmd/vendor/github.com/google/pprof/internal/driver/html/common.js
	src/cmd/vendor/github.com/google/pprof/internal/driver/html/stacks.js
	src/cmd/vendor/github.com/google/pprof/third_party/svgpan/svgpan.js
	misc/chrome/gophertool/popup.js
	misc/chrome/gophertool/gopher.js
	misc/chrome/gophertool/background.js
	src/internal/trace/traceviewer/static/webcomponents.min.js
)
make_appjs() { # -> $www/app.js; the sources used in $appjs_used
	local goroot f
	goroot=$(go env GOROOT)
	appjs_used=()
	for f in "${appjs_sources[@]}"; do
		[ -f "$goroot/$f" ] && appjs_used+=("$f")
	done
	[ ${#appjs_used[@]} -gt 0 ] || die "none of the JavaScript sources is in $goroot"
	(cd "$goroot" && cat "${appjs_used[@]}") >"$www/app.js"
	[ "$(wc -c <"$www/app.js")" -ge "$appjs_bytes" ] ||
		die "the JavaScript sources in $goroot make only $(wc -c <"$www/app.js") bytes, want $appjs_bytes"
	truncate -s "$appjs_bytes" "$www/app.js"
}
if $compress; then
	make_appjs
	log "app.js: $appjs_bytes bytes of ${appjs_used[*]}, sha256 $(sha256sum "$www/app.js" | cut -c1-16)"
fi

# --- servers -----------------------------------------------------------------
declare -A url spid surl
# The path each server is asked for until it answers.
if $files; then probe=${size_list[0]}.bin; else probe=app.js; fi
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
		if [ -n "$u" ] && curl -fs -o /dev/null "$u$probe"; then
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
start_nginx() { # name [extra server configuration]
	local name=$1 extra=${2:-} p port
	p=$tmp/$name
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
        root $www;$extra
    }
}
EOF
	echo "$name serving $www on http://127.0.0.1:$port/" >"$tmp/$name.log"
	taskset -c 0 nginx -p "$p/" -c "$p/nginx.conf" -e "$p/logs/error.log" >>"$tmp/$name.log" 2>&1 &
	pids+=($!)
	spid[$name]=$!
	url[$name]=$(wait_url "$name" "$tmp/$name.log")
}
# nginx-gzip compresses JavaScript on every request, at chi-compress's level.
nginx_gzip='
        types { application/javascript js; }
        gzip on;
        gzip_comp_level 5;
        gzip_types application/javascript;'
declare -A started
for srv in "${server_list[@]}" "${cserver_list[@]}"; do
	[ -z "${started[$srv]:-}" ] || continue
	started[$srv]=1
	case $srv in
	# The example serves -root DIR at / (middleware.SPA), so its files are
	# at /NAME, as with every other server.
	jaws) start_go jaws "$tmp/bin/example" -root "$www" -addr 127.0.0.1:0 ;;
	jaws-bare)
		# Its counters on a listener of their own, as the example's /debug/jaws.
		start_go jaws-bare "$tmp/bin/peers" -mode jaws -stats 127.0.0.1:0 -root "$www" -addr 127.0.0.1:0
		surl[jaws-bare]=$(grep -oE 'http://[0-9.:]+/debug/jaws' "$tmp/jaws-bare.log" | head -1)
		;;
	stdlib | ceiling | ceiling-min | chi-compress) start_go "$srv" "$tmp/bin/peers" -mode "$srv" -root "$www" -addr 127.0.0.1:0 ;;
	nginx) start_nginx nginx ;;
	nginx-gzip) start_nginx nginx-gzip "$nginx_gzip" ;;
	*) die "unknown server $srv" ;;
	esac
	log "$srv: ${url[$srv]}"
done
[ -z "${url[jaws]:-}" ] || surl[jaws]=${url[jaws]}debug/jaws

# --- check every response once; note jaws's transfer path per size -----------
mkdir -p "$out/raw"
jaws_counts() { # Memory ZeroCopy Fallback responses, from /debug/jaws
	{ curl -fs "${url[jaws]}debug/jaws" | tr -d ' \n'; echo; } |
		sed -nE 's/.*"Memory":\{"Responses":([0-9]+).*"ZeroCopy":\{"Responses":([0-9]+).*"Fallback":\{"Responses":([0-9]+).*/\1 \2 \3/p'
}
if $files; then
	echo "size,bytes,path" >"$out/raw/paths.csv"
fi
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

# The compress scenario's cases, "server:encoding": jaws with and without
# gzip, the compressing peers with it, the plain ones without.
cases=()
for srv in "${cserver_list[@]}"; do
	case $srv in
	jaws | jaws-bare) cases+=("$srv:gzip" "$srv:identity") ;;
	chi-compress | nginx-gzip) cases+=("$srv:gzip") ;;
	*) cases+=("$srv:identity") ;;
	esac
done
enc_header() { # encoding: wrk's and curl's arguments asking for it
	[ "$1" = identity ] || echo "Accept-Encoding: $1"
}
jaws_stats() { # server: "Compressions Encoded" from its /debug/jaws, or nothing
	[ -n "${surl[$1]:-}" ] || return 0
	{ curl -fs "${surl[$1]}" | tr -d ' \n'; echo; } |
		sed -nE 's/.*"Compressions":([0-9]+).*"Encoded":([0-9]+).*/\1 \2/p'
}
# Every answer must be app.js: gzip ones with Content-Encoding: gzip,
# decoding to its bytes; identity ones without, its bytes as they are. A
# second request with --raw (no decoding of chunked framing) counts the
# bytes on the wire.
declare -A hbytes bbytes wbytes
for cs in "${cases[@]}"; do
	srv=${cs%%:*} enc=${cs#*:}
	hdr=()
	[ "$enc" = identity ] || hdr=(-H "$(enc_header "$enc")")
	got=$(curl -s "${hdr[@]}" -D "$tmp/check.hdr" -o "$tmp/check.body" -w '%{http_code} %{size_header} %{size_download}' "${url[$srv]}app.js")
	read -r code hb bb <<<"$got"
	[ "$code" = 200 ] || die "$srv ($enc) answered $code for app.js"
	ce=$(tr -d '\r' <"$tmp/check.hdr" | sed -nE 's/^[Cc]ontent-[Ee]ncoding:[[:space:]]*//p')
	if [ "$enc" = identity ]; then
		[ -z "$ce" ] || die "$srv answered app.js without Accept-Encoding in Content-Encoding: $ce"
		cmp -s "$tmp/check.body" "$www/app.js" || die "$srv's app.js is not the file"
	else
		[ "$ce" = "$enc" ] || die "$srv answered app.js with Content-Encoding '$ce', want $enc"
		gzip -dc <"$tmp/check.body" | cmp -s - "$www/app.js" || die "$srv's $enc app.js does not decode to the file"
	fi
	got=$(curl -s --raw "${hdr[@]}" -o /dev/null -w '%{size_header} %{size_download}' "${url[$srv]}app.js")
	read -r hb2 raw <<<"$got"
	hbytes[$cs]=$hb bbytes[$cs]=$bb wbytes[$cs]=$((hb2 + raw))
	log "$srv $enc: app.js checked, $hb header + $bb body bytes, $((hb2 + raw)) on the wire"
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
# load_test server conns what url [wrk arguments...]: one wrk measurement of
# url, repeated while other processes disturb it (see wait_quiet); sets res
# (parse_wrk's line), other, attempt, cpu (the server's CPU seconds) and
# answered (the responses wrk counted, over all attempts).
load_test() {
	local srv=$1 c=$2 what=$3 u=$4 t0 t1 c0 c1
	shift 4
	answered=0
	for attempt in $(seq 0 "$retries"); do
		wait_quiet
		snapshot "$tmp/s0"
		c0=$(cpu_ticks "${spid[$srv]}")
		t0=$(now)
		taskset -c 1 wrk -t1 -c"$c" -d"$duration" --timeout 30s --latency "$@" "$u" >"$tmp/wrk.out"
		t1=$(now)
		c1=$(cpu_ticks "${spid[$srv]}")
		snapshot "$tmp/s1"
		other=$(others "$tmp/s0" "$tmp/s1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
		if ! res=$(parse_wrk <"$tmp/wrk.out"); then
			cat "$tmp/wrk.out" >&2
			die "could not parse wrk's output"
		fi
		answered=$((answered + ${res%%,*}))
		busy "$other" || break
		[ "$waited" -lt "$budget" ] || break
		waited=$((waited + ${duration%s}))
		[ "$attempt" -lt "$retries" ] && log "$what: disturbed (other processes used $other CPUs), again"
	done
	cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')
	log "$what: $(cut -d, -f2 <<<"$res") req/s$(busy "$other" && echo " (disturbed: others used $other CPUs)")"
}
measure() { # server size mode run
	local srv=$1 s=$2 mode=$3 run=$4 c=$conns hdr=()
	[ "$(bytes_of "$s")" -ge $((10 << 20)) ] && c=$bigconns
	[ "$mode" = close ] && hdr=(-H 'Connection: close')
	load_test "$srv" "$c" "run $run $s $mode $srv" "${url[$srv]}$s.bin" "${hdr[@]}"
	echo "$run,$s,$(bytes_of "$s"),$srv,$mode,$c,${duration%s},$res,$other,$attempt,$cpu" >>"$out/raw/results.csv"
}
cmeasure() { # server:encoding run
	local cs=$1 run=$2 srv=${1%%:*} enc=${1#*:} hdr=()
	[ "$enc" = identity ] || hdr=(-H "$(enc_header "$enc")")
	load_test "$srv" "$conns" "run $run app.js $enc $srv" "${url[$srv]}app.js" "${hdr[@]}"
	echo "$run,app.js,$appjs_bytes,$srv,$enc,keepalive,$conns,${duration%s},$res,$other,$attempt,$cpu,${hbytes[$cs]},${bbytes[$cs]},${wbytes[$cs]}" >>"$out/raw/compress.csv"
	if [ "$enc" = gzip ]; then gzipped[$srv]=$((${gzipped[$srv]:-0} + answered)); fi
}

common_meta() {
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- . ':!bench/results' 2>/dev/null || echo ' (modified)')"
	echo "cpu: $(lscpu 2>/dev/null | sed -nE 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs"
	echo "kernel: $(uname -sr)"
	echo "go: $(go version | cut -d' ' -f3-)"
	echo "wrk: $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
	echo "nginx: $(nginx -v 2>&1 | cut -d/ -f2)"
	echo "runs: $runs"
	echo "duration: $duration"
}
if $files; then
	n=$((runs * ${#size_list[@]} * 2 * ${#server_list[@]}))
	log "files: $runs run(s) x ${#size_list[@]} size(s) x 2 modes x ${#server_list[@]} servers = $n x $duration"
	{
		common_meta
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
fi

if $compress; then
	log "compress: $runs run(s) x ${#cases[@]} cases = $((runs * ${#cases[@]})) x $duration"
	# Warm up each case: after it, jaws holds app.js's gzip variant, and its
	# counters must not move but for Encoded.
	for cs in "${cases[@]}"; do
		hdr=()
		[ "${cs#*:}" = identity ] || hdr=(-H "$(enc_header "${cs#*:}")")
		taskset -c 1 wrk -t1 -c"$conns" -d1s "${hdr[@]}" "${url[${cs%%:*}]}app.js" >/dev/null
	done
	declare -A stats0 gzipped # gzipped: gzip responses wrk counted, per server, retries included
	for srv in jaws jaws-bare; do stats0[$srv]=$(jaws_stats "$srv"); done
	{
		common_meta
		echo "connections: $conns"
		echo "quiet: $quiet"
		echo "retries: $retries"
		echo "file: app.js, $appjs_bytes bytes of $(go env GOROOT)/{$(
			IFS=,
			echo "${appjs_used[*]}"
		)}"
		echo "file sha256: $(sha256sum "$www/app.js" | cut -d' ' -f1)"
		echo "nginx-gzip: gzip on; gzip_comp_level 5; gzip_types application/javascript"
		echo "chi-compress: middleware.Compress(5) around http.FileServer"
		echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$out/raw/compress-meta.txt"
	echo "run,file,bytes,server,encoding,mode,conns,duration_s,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,other_cpus,retries,server_cpu_s,header_bytes,body_bytes,wire_bytes" >"$out/raw/compress.csv"
	for run in $(seq "$runs"); do
		k=${#cases[@]}
		for i in $(seq 0 $((k - 1))); do
			cmeasure "${cases[$(((i + run - 1) % k))]}" "$run"
		done
	done
	{
		echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "waited for quiet: $waited s"
		# The proof that no response was compressed while measuring:
		# Compressions before and after, and Encoded's growth against the
		# gzip responses wrk counted.
		for srv in jaws jaws-bare; do
			[ -n "${stats0[$srv]}" ] || continue
			read -r comp0 enc0 <<<"${stats0[$srv]}"
			read -r comp1 enc1 <<<"$(jaws_stats "$srv")"
			counted=${gzipped[$srv]:-0}
			echo "$srv stats: compressions $comp0 $comp1, encoded $enc0 $enc1, wrk gzip responses $counted"
			[ "$comp1" = "$comp0" ] || log "warning: $srv compressed $((comp1 - comp0)) time(s) while measuring"
			[ "$((enc1 - enc0))" -ge "$counted" ] || log "warning: $srv sent $((enc1 - enc0)) encoded responses, wrk counted $counted gzip ones"
		done
	} >>"$out/raw/compress-meta.txt"
fi

"$tmp/bin/report" -raw "$out/raw" -out "$out"
log "results in $out/results.md"
