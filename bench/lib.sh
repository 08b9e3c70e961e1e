# Helpers shared by bench/run.sh and bench/site.sh, sourced by both (not
# run on its own) before they read their options. Functions, the few
# globals they need and the defaults of the options both take: they read
# the calling script's settings ($tmp, $srvhost, $probe, $quiet, $maxwait,
# $budget, $retries, $duration, $conns, $bigconns, $inflight) when called,
# not when sourced. The globals it reads and sets are those scripts'
# (SC2154, SC2034):
# shellcheck shell=bash disable=SC2154,SC2034

# usage_waits: the usage lines of the options both scripts take for other
# processes' CPU (wait_quiet, measure_attempts).
usage_waits() {
	cat <<'EOF'
  -quiet CPUS     other processes using more CPU than this during a measurement
                  disturb it (default 0.10: a tenth of one CPU)
  -retries N      measure a disturbed cell again, at most N times (default 2)
  -maxwait S      wait at most S seconds for other processes to go quiet before
                  a measurement (default 60)
  -budget S       wait and repeat for S seconds in all, then measure as it comes
                  (default 600)
EOF
}

# The options both scripts take: for other processes' CPU (wait_quiet,
# measure_attempts; usage_waits), -out (the results' directory) and -quick
# (a smoke run); their defaults here.
retries=2 quiet=0.10 maxwait=60 budget=600 out='' quick=false
declare -A given
# parse_options arg...: the command line into the script's variables, by
# its array options and the options above: "-NAME" takes the next argument
# into the variable NAME, "-NAME=VAR" into VAR, "-NAME:VAR=VALUE" none, and
# sets VAR to VALUE. given[-NAME] notes the options given. -h prints usage;
# anything else prints it and exits 2.
parse_options() {
	local o spec var
	while [ $# -gt 0 ]; do
		case $1 in -h | -help | --help) usage; exit 0 ;; esac
		spec=
		for o in "${options[@]}" -retries -quiet -maxwait -budget -out -quick:quick=true; do
			[ "${o%%[=:]*}" != "$1" ] || spec=$o
		done
		[ -n "$spec" ] || { usage >&2; exit 2; }
		given[$1]=1
		case $spec in
		*:*)
			var=${spec#*:}
			printf -v "${var%%=*}" '%s' "${var#*=}"
			;;
		*)
			[ $# -ge 2 ] || { usage >&2; exit 2; }
			var=${spec#-}
			[[ $spec != *=* ]] || var=${spec#*=}
			printf -v "$var" '%s' "$2"
			shift
			;;
		esac
		shift
	done
}

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# machine_meta: the meta files' first lines ("key: value"): when, at
# which commit, on what, with which versions.
machine_meta() {
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- . ':!bench/results' 2>/dev/null || echo ' (modified)')"
	echo "cpu: $({ lscpu 2>/dev/null || true; } | sed -nE 's/^Model name:[[:space:]]*//p' | head -1), $(nproc) CPUs"
	echo "kernel: $(uname -sr)"
	echo "go: $(go version | cut -d' ' -f3-)"
	echo "wrk: $({ wrk -v 2>&1 || true; } | head -1 | cut -d' ' -f1-2)" # wrk -v exits 1
	echo "nginx: $(nginx -v 2>&1 | cut -d/ -f2)"
}

# install_tools package...: apt-get install the packages (as root; else
# die, naming them), and stop the nginx service Debian starts with nginx:
# the benchmarks run their own.
install_tools() {
	[ $# -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "missing $*; install them (apt-get install $*) or run as root"
	local had_nginx
	had_nginx=$(pgrep -x nginx || true)
	log "apt-get install $*"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
	# Debian starts the packaged nginx service; the benchmark runs its own.
	if [ -z "$had_nginx" ] && pgrep -x nginx >/dev/null; then
		log "stopping the nginx service the package started"
		service nginx stop >/dev/null 2>&1 || systemctl stop nginx >/dev/null 2>&1 || true
	fi
}

# conns_levels: -conns ($conns) split into conns_list, each a whole number
# of connections, and the largest in maxconns, which sets the open files
# (raise_nofile) and nginx's worker_connections.
conns_levels() {
	local c
	IFS=, read -r -a conns_list <<<"$conns"
	maxconns=0
	for c in "${conns_list[@]}"; do
		[[ $c =~ ^[1-9][0-9]*$ ]] || die "-conns: $c is not a number of connections"
		[ "$c" -le "$maxconns" ] || maxconns=$c
	done
}

# need_tools [command:package...]: install_tools the packages of the
# missing commands, of those both benchmarks run (wrk, nginx, taskset,
# curl) and those named; then go must be there, and two CPUs should, one
# for the servers and one for the load generator.
need_tools() {
	local cp need=()
	for cp in wrk:wrk nginx:nginx-light taskset:util-linux curl:curl "$@"; do
		command -v "${cp%%:*}" >/dev/null || need+=("${cp#*:}")
	done
	install_tools "${need[@]}"
	command -v go >/dev/null || die "go is not installed"
	[ "$(nproc)" -ge 2 ] || log "warning: fewer than 2 CPUs; server and wrk will share one"
}

# raise_nofile: raise the soft limit of open files to want_fds, twice
# $maxconns plus 1024, for this shell and everything it starts (root may
# raise the hard limit too), or die. Every connection is a file descriptor,
# in the server and in the load generator: 1000 connections need more than
# the usual soft limit of 1024.
raise_nofile() {
	want_fds=$((2 * maxconns + 1024))
	if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$want_fds" ]; then
		if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$want_fds" ]; then
			ulimit -Hn "$want_fds" 2>/dev/null || die "open files are limited to $(ulimit -Hn); $maxconns connections need $want_fds (raise it, or run as root)"
		fi
		ulimit -Sn "$want_fds"
	fi
}

# make_tmp name [command]: tmp, a new temporary directory, and pids, the
# servers started (start_go, serve_nginx). On exit (cleanup) the servers
# are stopped, $tmp removed and command run (run.sh's veth pair goes); an
# interrupt exits, and so cleans up too.
make_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	pids=()
	at_exit=${2:-}
	trap cleanup EXIT
	trap 'exit 130' INT TERM
}
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
	[ -z "$at_exit" ] || "$at_exit"
}

# build_bins package...: go build each (example, bench/peers, ...) into
# $tmp/bin/NAME, before anything is measured: nothing runs under go run.
# A package with a go.mod of its own (bench/fasthttp, so that its
# dependencies stay out of jaws's go.mod) is built in its module.
build_bins() {
	local p
	log "building into $tmp/bin"
	mkdir -p "$tmp/bin"
	for p in "$@"; do
		if [ -f "$p/go.mod" ]; then
			(cd "$p" && go build -o "$tmp/bin/${p##*/}" .)
		else
			go build -o "$tmp/bin/${p##*/}" "./$p"
		fi
	done
}

# site_prologue name: the temporary directory (make_tmp name), the sets'
# directory (dir, in it unless -dir gave one), the binaries the site
# scripts run (pair.sh, newstack.sh) and the servers' address.
site_prologue() {
	make_tmp "$1"
	[ -n "$dir" ] || dir=$tmp/sets
	build_bins example bench/peers bench/siteset
	srvhost=127.0.0.1
}

# start_site server www: one of site.sh's Go servers (jaws, the example;
# jaws-bare; stdlib; ceiling) serving www, started by start_go; as
# server@REV, built from git revision REV (build_rev).
start_site() {
	local bin=$tmp/bin
	[[ $1 != *@* ]] || bin=$tmp/rev-${1#*@}/bin
	case ${1%@*} in
	jaws) start_go "$1" "$bin/example" -root "$2" -addr "$srvhost:0" ;;
	jaws-bare) start_go "$1" "$bin/peers" -mode jaws -root "$2" -addr "$srvhost:0" ;;
	*) start_go "$1" "$bin/peers" -mode "${1%@*}" -root "$2" -addr "$srvhost:0" ;;
	esac
}

# build_rev rev: the example and bench/peers of git revision rev, in
# $tmp/rev-REV/bin, from a worktree that goes on exit (remove_revs), so
# that a change can be measured against what came before it.
build_rev() {
	local w=$tmp/rev-$1
	[ -d "$w" ] && return
	git -C "$repo" worktree add -q --detach "$w" "$1" || die "no revision $1"
	revs+=("$w")
	log "building $1 into $w/bin"
	(cd "$w" && go build -o bin/example ./example && go build -o bin/peers ./bench/peers)
}
remove_revs() {
	local w
	for w in "${revs[@]}"; do git -C "$repo" worktree remove --force "$w" 2>/dev/null || true; done
}
revs=()

bytes_of() {
	local s=$1
	case $s in
	*K) echo $((${s%K} << 10)) ;;
	*M) echo $((${s%M} << 20)) ;;
	*G) echo $((${s%G} << 30)) ;;
	*) echo "$s" ;;
	esac
}

free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/$srvhost/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}

# wrk prints sizes in binary units and latencies in us/ms/s.
wrk_bytes_awk='
	function bytes(v,   n, u) {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "KB") n *= 1024; else if (u == "MB") n *= 1048576
		else if (u == "GB") n *= 1073741824; else if (u == "TB") n *= 1099511627776
		return n
	}'
parse_wrk() { # wrk output on stdin -> requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx
	awk "$wrk_bytes_awk"'
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
cpu_split() { # pid: its user and system time in clock ticks, "user system"
	cut -d')' -f2- "/proc/$1/stat" | awk '{ print $12, $13 }'
}
cores() { # file: the cpu0 and cpu1 lines of /proc/stat
	grep -E '^cpu[01] ' /proc/stat >"$1"
}
core_busy() { # before after: "server_core,client_core", each the share of the time it was not idle
	awk 'NR == FNR { for (i = 2; i <= 9; i++) t0[$1] += $i; i0[$1] = $5 + $6; next }
	{ t = 0; for (i = 2; i <= 9; i++) t += $i; d = t - t0[$1]; b[$1] = d > 0 ? 1 - ($5 + $6 - i0[$1]) / d : 0 }
	END { printf "%.3f,%.3f", b["cpu0"], b["cpu1"] }' "$1" "$2"
}
# The load generator's own CPU time: bash's time keyword, for the command
# and all it started (ip netns exec and taskset exec it in place).
TIMEFORMAT='%3R %3U %3S'
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

# window_open, window_close: the readings around a measured window, taken
# by the scripts' own tries (see measure_attempts): other processes' CPU
# time ($tmp/s0, $tmp/s1) and the two cores' (core_busy: $tmp/k0, $tmp/k1).
# The snapshot is the slower reading; it lies outside the cores'.
window_open() {
	snapshot "$tmp/s0"
	cores "$tmp/k0"
}
window_close() {
	cores "$tmp/k1"
	snapshot "$tmp/s1"
}

# measure_attempts what gen parser try: one measurement, taken again while
# other processes disturb it (wait_quiet before each try, their CPU during
# it), at most $retries times more and while $budget lasts. try is the
# calling script's function for one try, since each starts its load
# generator (gen: wrk, h2load) its own way and reads the server around it:
# it runs gen under `timeout -k 5 $limit` (limit set by it or its caller),
# its output in $tmp/load.out and $tmp/load.err, sets rc to its exit status
# and the caller's t0 and t1 (now) to the ends of the measured window, and
# calls window_open and window_close around it. A generator killed by
# timeout has hung (h2load once spun for minutes at 1000 connections): it
# is counted in $hung and run again. One that failed, or whose output the
# parser (parse_wrk, parse_h2load) cannot read, ends the script. Sets
# attempt (the tries repeated), res (the parser's line), other (other
# processes' CPUs), answered (the requests counted over all tries) and
# busy01 (the two cores' busy shares).
hung=0
measure_attempts() {
	local what=$1 gen=$2 parser=$3 try=$4 rc
	answered=0
	for attempt in $(seq 0 "$retries"); do
		wait_quiet
		rc=0
		"$try"
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			hung=$((hung + 1))
			[ "$attempt" -lt "$retries" ] || die "$what: $gen did not finish in $limit s, $((retries + 1)) times"
			log "$what: $gen did not finish in $limit s and was killed; again"
			continue
		fi
		if [ "$rc" != 0 ]; then
			cat "$tmp/load.out" "$tmp/load.err" >&2
			die "$what: $gen failed (exit status $rc)"
		fi
		other=$(others "$tmp/s0" "$tmp/s1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
		if ! res=$("$parser" <"$tmp/load.out"); then
			cat "$tmp/load.out" "$tmp/load.err" >&2
			die "$what: could not parse $gen's output"
		fi
		answered=$((answered + ${res%%,*}))
		busy "$other" || break
		[ "$waited" -lt "$budget" ] || break
		waited=$((waited + ${duration%s}))
		[ "$attempt" -lt "$retries" ] && log "$what: disturbed (other processes used $other CPUs), again"
	done
	busy01=$(core_busy "$tmp/k0" "$tmp/k1")
}

# log_measured what client label [extra]: a measurement's log line: its
# requests/s (from res), the load generator's share of its core (client:
# "CPU seconds,wall seconds") as "label CPU", client-bound at 95% or more
# (as the report marks it), extra, and whether others disturbed it.
log_measured() {
	local share
	share=$(awk -F, '{ printf "%.0f", ($2 > 0 ? $1 / $2 * 100 : 0) }' <<<"$2")
	log "$1: $(cut -d, -f2 <<<"$res") req/s, $3 CPU $share%$([ "$share" -lt 95 ] || echo ' (client-bound)')${4:-}$(busy "$other" && echo " (disturbed: others used $other CPUs)")"
}

# cpu_secs before after: seconds between two readings of clock ticks
# (cpu_ticks, cpu_split), as the raw files give them.
cpu_secs() {
	awk -v a="$1" -v b="$2" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }'
}

# conns_capped bytes level: the connections a level is measured with for
# responses of bytes (a file's size, a set's mean response). From 10 MiB
# up, -bigconns: with 32 responses of 100 MiB in flight, a run of a few
# seconds counts only whole responses, one more or less per connection, a
# ±20% error; with 4 about 1%. Below, at most -inflight bytes of responses
# in flight (256 MiB: 1000 connections up to 256 KiB, 256 at 1 MiB), for
# the same reason and because every response in flight sits in socket
# buffers: 1000 connections of 1 MiB would put a GiB in them and drive TCP
# into memory pressure (net.ipv4.tcp_mem), which would be measured instead
# of the servers.
conns_capped() {
	local b=$1 c=$2 cap
	if [ "$b" -ge $((10 << 20)) ]; then
		cap=$bigconns
	else
		cap=$(($(bytes_of "$inflight") / b))
		[ "$cap" -ge 1 ] || cap=1
	fi
	[ "$c" -le "$cap" ] || c=$cap
	echo "$c"
}

rotated() { # run item...: the items, starting at a place that moves on each run,
	# so that no server is always measured first or right after another
	local run=$1 i
	shift
	for i in $(seq 0 $(($# - 1))); do
		echo "${@:$(((i + run - 1) % $# + 1)):1}"
	done
}

# nginx_conf prefix listen root open_files [extra]: the nginx.conf of the
# benchmarks' nginx, in prefix: one worker, sendfile on, tcp_nopush on, an
# open file cache of open_files descriptors, no access log, keep-alive for
# as long as a run; listen is its listen directive(s), extra more server
# configuration. Its open files and connections are those of raise_nofile
# ($want_fds) and twice $maxconns (4096 at least).
nginx_conf() {
	local p=$1 listen=$2 root=$3 open_files=$4 extra=${5:-}
	mkdir -p "$p/logs"
	cat >"$p/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile $want_fds;
pid $p/nginx.pid;
error_log $p/logs/error.log warn;
events {
    worker_connections $((2 * maxconns > 4096 ? 2 * maxconns : 4096));
}
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=$open_files inactive=60s;
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
        $listen
        root $root;$extra
    }
}
EOF
}

# Servers are named ("jaws-bare"; run.sh names a server's HTTPS instance
# "tls:jaws-bare"); spid holds their pids, url the URL each serves at.
declare -A spid url
# wait_url name logfile: the URL the server printed in its log, once it
# answers for $probe (a path, its leading / or not). A minute at most:
# site.sh's ceiling reads a whole set first.
wait_url() {
	local name=$1 logf=$2 u=
	for _ in $(seq 1200); do
		u=${u:-$(grep -oE 'https?://[0-9.:]+/' "$logf" | head -1 || true)}
		if [ -n "$u" ] && curl -fsk -o /dev/null "$u${probe#/}"; then
			echo "$u"
			return
		fi
		kill -0 "${spid[$name]}" 2>/dev/null || break
		sleep 0.05
	done
	cat "$logf" >&2
	die "$name did not start"
}
# await_server name logfile: the server just started in the background
# ($!): its pid in pids (stopped on exit) and spid, its URL in url once it
# answers.
await_server() {
	pids+=($!)
	spid[$1]=$!
	url[$1]=$(wait_url "$1" "$2")
}
# start_go name binary args...: a Go server with one thread on CPU 0
# (GOMAXPROCS=1), its output in $tmp/NAME.log (":" made "-").
start_go() {
	local name=$1 logf=$tmp/${1//:/-}.log
	shift
	GOMAXPROCS=1 taskset -c 0 "$@" >"$logf" 2>&1 &
	await_server "$name" "$logf"
}
# serve_nginx name url listen root open_files [extra]: nginx (nginx_conf, in
# $tmp/NAME) on CPU 0, serving root at url, listen its listen directive(s);
# its log, $tmp/NAME.log, starts with the URL, for wait_url.
serve_nginx() {
	local name=$1 u=$2 root=$4 p=$tmp/${1//:/-}
	nginx_conf "$p" "$3" "$root" "$5" "${6:-}"
	echo "$name serving $root on $u" >"$p.log"
	taskset -c 0 nginx -p "$p/" -c "$p/nginx.conf" -e "$p/logs/error.log" >>"$p.log" 2>&1 &
	await_server "$name" "$p.log"
}
# stats_url name: the URL of the counters (/debug/jaws) of a server started
# with -stats, from its log.
stats_url() {
	grep -oE 'http://[0-9.:]+/debug/jaws' "$tmp/${1//:/-}.log" | head -1
}

# transfer_path m0 z0 f0 m1 z1 f1: the transfer path jaws took between two
# reads of its memory, zero-copy and fallback response counters.
transfer_path() {
	local path=unknown
	[ "$4" -gt "$1" ] && path=memory
	[ "$5" -gt "$2" ] && path=zerocopy
	[ "$6" -gt "$3" ] && path=fallback
	echo "$path"
}

# --- veth: the load generator behind a network stack of its own ------------
# veth_check: dies unless this is root and 10.77.0.1 and .2 are free.
veth_check() {
	[ "$(id -u)" = 0 ] || die "-net veth needs root (ip netns, ip link)"
	! ip -o addr show 2>/dev/null | grep -qE ' 10\.77\.0\.[12]/' ||
		die "10.77.0.1 or 10.77.0.2 is already in use (another run with -net veth?)"
}
# veth_up: the namespace $vns and a veth pair, 10.77.0.1 on $vlink here
# and 10.77.0.2 in $vns, with a real link's MTU (1500); sets srvhost. Each
# end's receive processing is steered (RPS) to its own side's core: what
# arrives for the servers to CPU 0, what arrives for the load generator to
# CPU 1. Without that the kernel receives a packet on the core that sent
# it, so the client's TCP receive work lands on the server's core (and the
# server's ACK processing, with the sends it sets off, on the client's),
# in shares that follow how fast each side goes; two hosts each do their
# own. veth_down (the caller's at_exit) removes both.
vns='' vlink=''
veth_up() {
	vns=jaws-bench-$$ vlink=jbv$$a
	ip netns add "$vns"
	ip link add "$vlink" type veth peer name "jbv$$b"
	ip link set "jbv$$b" netns "$vns"
	ip addr add 10.77.0.1/24 dev "$vlink"
	ip link set "$vlink" up
	ip netns exec "$vns" ip addr add 10.77.0.2/24 dev "jbv$$b"
	ip netns exec "$vns" ip link set "jbv$$b" up
	ip netns exec "$vns" ip link set lo up
	[ -w "/sys/class/net/$vlink/queues/rx-0/rps_cpus" ] || die "veth: no RPS in this kernel (/sys/class/net/$vlink/queues/rx-0/rps_cpus)"
	echo 1 >"/sys/class/net/$vlink/queues/rx-0/rps_cpus"
	ip netns exec "$vns" sh -c "echo 2 >/sys/class/net/jbv$$b/queues/rx-0/rps_cpus"
	srvhost=10.77.0.1
	log "veth: namespace $vns, 10.77.0.2 ($vlink's peer) -> 10.77.0.1 ($vlink), mtu $(cat "/sys/class/net/$vlink/mtu"), receive steered to CPU 0 here and CPU 1 there"
}
veth_down() {
	# Deleting the namespace deletes the veth end in it, and so the pair.
	[ -z "$vns" ] || ip netns del "$vns" 2>/dev/null || true
	[ -z "$vlink" ] || ip link del "$vlink" 2>/dev/null || true
}
# veth_meta: the meta line that says how the load generator reached the
# servers.
veth_meta() {
	echo "load generator in a namespace of its own at 10.77.0.2, servers at 10.77.0.1, mtu $(cat "/sys/class/net/$vlink/mtu"), receive steered (RPS) to the receiving side's core"
}
