# Helpers shared by bench/run.sh and bench/site.sh, sourced by both (not
# run on its own). Functions only, and the few globals they need: they read
# the calling script's settings ($tmp, $srvhost, $quiet, $maxwait, $budget)
# when called, not when sourced.

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

# raise_nofile fds connections: raise the soft limit of open files to fds
# for this shell and everything it starts (root may raise the hard limit
# too), or die. Every connection is a file descriptor, in the server and in
# the load generator: 1000 connections need more than the usual soft limit
# of 1024.
raise_nofile() {
	local want_fds=$1 maxconns=$2
	if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$want_fds" ]; then
		if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$want_fds" ]; then
			ulimit -Hn "$want_fds" 2>/dev/null || die "open files are limited to $(ulimit -Hn); $maxconns connections need $want_fds (raise it, or run as root)"
		fi
		ulimit -Sn "$want_fds"
	fi
}

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
cpu_split() { # pid: its user and system time in clock ticks, "user system"
	cut -d')' -f2- "/proc/$1/stat" | awk '{ print $12, $13 }'
}
cores() { # file: the cpu0 and cpu1 lines of /proc/stat
	grep -E '^cpu[01] ' /proc/stat >"$1"
}
core_busy() { # before after: "server_core,client_core", each the share of the time it was not idle
	awk 'NR == FNR { for (i = 2; i <= 9; i++) t0[$1] += $i; i0[$1] = $5 + $6; next }
	{ t = 0; for (i = 2; i <= 9; i++) t += $i; d = t - t0[$1]; b[$1] = d > 0 ? 1 - ($5 + $6 - i0[$1]) / d : 0 }
	END { printf "%.2f,%.2f", b["cpu0"], b["cpu1"] }' "$1" "$2"
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
# configuration. Uses $want_fds and $worker_conns.
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
    worker_connections $worker_conns;
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

# transfer_path m0 z0 f0 m1 z1 f1: the transfer path jaws took between two
# reads of its memory, zero-copy and fallback response counters.
transfer_path() {
	local path=unknown
	[ "$4" -gt "$1" ] && path=memory
	[ "$5" -gt "$2" ] && path=zerocopy
	[ "$6" -gt "$3" ] && path=fallback
	echo "$path"
}
