#!/usr/bin/env bash
# The load benchmark: jaws against http.FileServer, two net/http ceilings and
# nginx, with wrk, at several connection counts; over TLS (HTTP/1.1 and
# HTTP/2) with h2load; and, for compression, jaws against chi's Compress
# middleware and nginx's gzip. See bench/README.md.
#
#   bench/run.sh                 # the full run (about 75 minutes), results in bench/results/
#   bench/run.sh -conns 32       # one connection count, as before the axis (about 25 minutes)
#   bench/run.sh -quick          # a smoke run (about 3 minutes), results in a temporary directory
#   bench/run.sh -compress-only  # the compression scenario alone (about 2 minutes)
#   bench/run.sh -scenarios tls  # the TLS scenario alone (about 20 minutes)
#   bench/run.sh -net loopback,veth  # every cell over loopback and over a veth pair
#   bench/run.sh -runs 5 -duration 5s -sizes 1K,64K,1M -out /tmp/r
#
# Every server runs with one thread on CPU 0 (GOMAXPROCS=1, nginx with one
# worker process) and the load generator (wrk, h2load) with one thread on
# CPU 1, so they never share a core.
set -Eeuo pipefail # -E: the ERR trap below reports failures inside functions too

usage() { # the options (those for other processes from lib.sh: no $ in this text)
	cat <<EOF
usage: bench/run.sh [-quick] [-scenarios LIST | -compress-only] [-runs N] [-duration D]
                    [-sizes LIST] [-conns LIST] [-bigconns N] [-inflight SIZE] [-net LIST]
                    [-servers LIST] [-cservers LIST] [-tservers LIST] [-tsizes LIST]
                    [-protos LIST] [-streams N]
                    [-retries N] [-quiet CPUS] [-maxwait S] [-budget S] [-out DIR]

  -quick          smoke run: sizes 1K,64K,1M, 1 run of 1s, 32 connections unless
                  -conns is given, output to a temp dir
  -scenarios LIST comma-separated subset of files,compress,tls (default all):
                  files     files of -sizes (random bytes) from -servers, keep-alive
                            and Connection: close, with wrk
                  compress  a 64 KiB JavaScript file (app.js, built from Go's own
                            .js files) with and without Accept-Encoding: gzip,
                            from -cservers, keep-alive, with wrk
                  tls       files of -tsizes from -tservers over TLS, HTTP/1.1
                            and HTTP/2 (-protos), keep-alive, with h2load
  -compress-only  the same as -scenarios compress
  -runs N         runs per cell; the report takes the median (default 5)
  -duration D     one measurement, in seconds, e.g. 3s (default 2s)
  -sizes LIST     comma-separated file sizes (default 1K,16K,64K,256K,1M,10M,100M)
  -conns LIST     connection counts, each a level of the files and tls scenarios
                  (default 32,200,1000); compress uses the first
  -bigconns N     connections for files of 10 MiB and more (default 4, or the
                  level when that is lower)
  -inflight SIZE  under 10 MiB, at most SIZE bytes of responses in flight:
                  a level is cut to SIZE / file size connections (default 256M)
  -net LIST       loopback, veth or both (default loopback): veth puts the load
                  generator in a network namespace of its own, joined to the
                  servers by a veth pair (10.77.0.2 -> 10.77.0.1), each end's
                  receive work steered to its own side's core; needs root
  -servers LIST   comma-separated subset of
                  jaws,jaws-bare,jaws-embed,stdlib,ceiling,ceiling-min,nginx
  -cservers LIST  the compress scenario's servers, a subset of
                  jaws,jaws-bare,chi-compress,stdlib,nginx-gzip (default all):
                  jaws and jaws-bare are measured with and without gzip,
                  chi-compress and nginx-gzip with, stdlib without
  -tservers LIST  the tls scenario's servers, a subset of
                  jaws-bare,stdlib,ceiling,ceiling-min,nginx
                  (default jaws-bare,stdlib,ceiling,nginx)
  -tsizes LIST    the tls scenario's file sizes (default 1K,64K,1M)
  -protos LIST    the tls scenario's protocols: h1 (HTTP/1.1 over TLS), h2
                  (HTTP/2) or both (default h1,h2)
  -streams N      HTTP/2 streams in flight per connection (h2load -m; default 1,
                  one request in flight per connection as with HTTP/1.1)
$(usage_waits)
  -out DIR        where results.md, the SVGs and raw/ go (default bench/results)
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
. bench/lib.sh # log, die, bytes_of, parse_wrk, wait_quiet, rotated, ...

runs=5
duration=2s
sizes=1K,16K,64K,256K,1M,10M,100M
conns=32,200,1000
bigconns=4
inflight=256M
nets=loopback
servers=jaws,jaws-bare,jaws-embed,stdlib,ceiling,ceiling-min,nginx
cservers=jaws,jaws-bare,chi-compress,stdlib,nginx-gzip
tservers=jaws-bare,stdlib,ceiling,nginx
tsizes=1K,64K,1M
protos=h1,h2
streams=1
scenarios=files,compress,tls
# -retries, -quiet, -maxwait, -budget, -out and -quick: lib.sh's.
options=(-runs -duration -sizes -conns -bigconns -inflight -net=nets -servers -cservers
	-tservers -tsizes -protos -streams -scenarios -compress-only:scenarios=compress)
parse_options "$@"
if $quick; then
	runs=1 duration=1s sizes=1K,64K,1M
	[ -n "${given[-conns]:-}" ] || conns=32
	[ -n "$out" ] || out=${TMPDIR:-/tmp}/jaws-bench-quick
fi
[ -n "$out" ] || out=$repo/bench/results

trap 'log "error: line $LINENO: $BASH_COMMAND failed"' ERR

files=false compress=false tls=false
IFS=, read -r -a scenario_list <<<"$scenarios"
for sc in "${scenario_list[@]}"; do
	case $sc in
	files) files=true ;;
	compress) compress=true ;;
	tls) tls=true ;;
	*) usage >&2; die "unknown scenario $sc (want files, compress or tls)" ;;
	esac
done
$files || $compress || $tls || die "no scenario"
conns_levels
IFS=, read -r -a net_list <<<"$nets"
IFS=, read -r -a proto_list <<<"$protos"
veth=false
for n in "${net_list[@]}"; do
	case $n in
	loopback) ;;
	veth) veth=true ;;
	*) die "unknown -net $n (want loopback or veth)" ;;
	esac
done
for p in "${proto_list[@]}"; do
	case $p in h1 | h2) ;; *) die "unknown -protos $p (want h1 or h2)" ;; esac
done

# --- tools -------------------------------------------------------------------
tools=(gzip:gzip)
$tls && tools+=(h2load:nghttp2-client)
$veth && tools+=(ip:iproute2)
need_tools "${tools[@]}"
! $veth || veth_check
raise_nofile

# --- build -------------------------------------------------------------------
make_tmp jaws-bench veth_down
build_bins example bench/peers bench/report

# jaws's default CacheMaxFileSize, for the report's crossover marker: the
# constant in options.go, written as "N << M" or as a number.
cachemax=$(sed -nE 's/^[[:space:]]*defaultCacheMaxFileSize[[:space:]]*=[[:space:]]*([0-9]+([[:space:]]*<<[[:space:]]*[0-9]+)?).*/\1/p' options.go | head -1)
# A warning here once went unread for many runs, each writing "cachemax: 0".
[ -n "$cachemax" ] || die "could not read defaultCacheMaxFileSize from options.go"
cachemax=$((cachemax))

# --- files -------------------------------------------------------------------
IFS=, read -r -a size_list <<<"$sizes"
IFS=, read -r -a server_list <<<"$servers"
IFS=, read -r -a cserver_list <<<"$cservers"
IFS=, read -r -a tsize_list <<<"$tsizes"
IFS=, read -r -a tserver_list <<<"$tservers"
$files || size_list=() server_list=()
$compress || cserver_list=()
$tls || tsize_list=() tserver_list=()
# conns_for size level: the connections a file of that size is measured with
# at a connection level (conns_capped).
conns_for() { conns_capped "$(bytes_of "$1")" "$2"; }
www=$tmp/www
mkdir -p "$www"
for s in "${size_list[@]}" "${tsize_list[@]}"; do
	[ -f "$www/$s.bin" ] || head -c "$(bytes_of "$s")" /dev/urandom >"$www/$s.bin"
done
$files && log "files: ${size_list[*]} in $www"

# jaws-embed serves the same files from an embed.FS: they are copied next to
# bench/peers for a build with -tags jawsembed, and removed again.
if [[ ",${servers}," == *,jaws-embed,* ]] && $files; then
	emb=$repo/bench/peers/embedded
	rm -rf "$emb" && mkdir -p "$emb"
	cp "$www"/*.bin "$emb"/
	log "building jaws-embed with $(du -sh "$emb" | cut -f1) of embedded files"
	go build -tags jawsembed -o "$tmp/bin/peers-embed" ./bench/peers
	rm -rf "$emb"
fi
$tls && log "tls files: ${tsize_list[*]} in $www"

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

# --- network -----------------------------------------------------------------
# Servers listen on $srvhost. Over loopback the load generator runs here;
# over veth in the namespace of veth_up (lib.sh). With veth in -net the
# servers listen on 10.77.0.1 for both paths: a client in this namespace
# reaches a local address over loopback all the same.
srvhost=127.0.0.1
! $veth || veth_up
lg() { # net command...: the load generator, with one thread on CPU 1, on that path
	local net=$1
	shift
	if [ "$net" = veth ]; then
		ip netns exec "$vns" taskset -c 1 "$@"
	else
		taskset -c 1 "$@"
	fi
}

# --- servers -----------------------------------------------------------------
declare -A surl
# The path each server is asked for until it answers (wait_url).
if $files; then probe=${size_list[0]}.bin; elif $compress; then probe=app.js; else probe=${tsize_list[0]}.bin; fi
# nginx 1.25.1 turned "listen ... http2" into "http2 on;".
nginx_version=$(nginx -v 2>&1 | sed -nE 's|.*nginx/([0-9.]+).*|\1|p')
if printf '%s\n' 1.25.1 "$nginx_version" | sort -V -C; then nginx_h2=new; else nginx_h2=old; fi
start_nginx() { # name [extra server configuration [tls]]
	local port listen scheme=http
	port=$(free_port)
	listen="listen $srvhost:$port;"
	if [ "${3:-}" = tls ]; then
		scheme=https
		if [ "$nginx_h2" = new ]; then
			listen="listen $srvhost:$port ssl;
        http2 on;"
		else
			listen="listen $srvhost:$port ssl http2;"
		fi
		listen+="
        ssl_certificate $tmp/cert.pem;
        ssl_certificate_key $tmp/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;"
	fi
	serve_nginx "$1" "$scheme://$srvhost:$port/" "$listen" "$www" 1000 "${2:-}"
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
	jaws) start_go jaws "$tmp/bin/example" -root "$www" -addr "$srvhost:0" ;;
	jaws-bare)
		# Its counters on a listener of their own, as the example's /debug/jaws.
		start_go jaws-bare "$tmp/bin/peers" -mode jaws -stats 127.0.0.1:0 -root "$www" -addr "$srvhost:0"
		surl[jaws-bare]=$(stats_url jaws-bare)
		;;
	# jaws.NewFS over an embed.FS of the same files, built in below.
	jaws-embed) start_go jaws-embed "$tmp/bin/peers-embed" -mode jaws-embed -addr "$srvhost:0" ;;
	stdlib | ceiling | ceiling-min | chi-compress) start_go "$srv" "$tmp/bin/peers" -mode "$srv" -root "$www" -addr "$srvhost:0" ;;
	nginx) start_nginx nginx ;;
	nginx-gzip) start_nginx nginx-gzip "$nginx_gzip" ;;
	*) die "unknown server $srv" ;;
	esac
	log "$srv: ${url[$srv]}"
done
[ -z "${url[jaws]:-}" ] || surl[jaws]=${url[jaws]}debug/jaws
# The tls scenario's servers: the same, serving HTTPS (HTTP/1.1 and HTTP/2
# by ALPN) with one self-signed ECDSA P-256 certificate. The example has no
# TLS flag, so jaws is measured as jaws-bare (bench/peers -mode jaws).
if $tls; then
	"$tmp/bin/peers" -gencert "$tmp"
	for srv in "${tserver_list[@]}"; do
		case $srv in
		jaws-bare)
			start_go tls:jaws-bare "$tmp/bin/peers" -mode jaws -stats 127.0.0.1:0 -tls "$tmp/cert.pem,$tmp/key.pem" -root "$www" -addr "$srvhost:0"
			surl[tls:jaws-bare]=$(stats_url tls:jaws-bare)
			;;
		stdlib | ceiling | ceiling-min) start_go "tls:$srv" "$tmp/bin/peers" -mode "$srv" -tls "$tmp/cert.pem,$tmp/key.pem" -root "$www" -addr "$srvhost:0" ;;
		nginx) start_nginx tls:nginx "" tls ;;
		jaws) die "the tls scenario has no jaws (the example has no TLS flag); it measures jaws-bare" ;;
		*) die "unknown tls server $srv" ;;
		esac
		log "$srv (tls): ${url[tls:$srv]}"
	done
fi

# --- check every response once; note jaws's transfer path per size -----------
mkdir -p "$out/raw"
jaws_counts() { # [stats URL]: Memory ZeroCopy Fallback responses, from /debug/jaws
	{ curl -fs "${1:-${url[jaws]}debug/jaws}" | tr -d ' \n'; echo; } |
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
			echo "$s,$(bytes_of "$s"),$(transfer_path "$m0" "$z0" "$f0" "$m1" "$z1" "$f1")" >>"$out/raw/paths.csv"
		fi
	done
done
# Over TLS every server must answer in each protocol; jaws-bare's counters
# tell its transfer path (no zero-copy: its sendfile needs the plain TCP
# connection).
if $tls; then
	echo "size,bytes,path,proto" >"$out/raw/tls-paths.csv"
fi
for s in "${tsize_list[@]}"; do
	for proto in "${proto_list[@]}"; do
		if [ "$proto" = h1 ]; then popt=--http1.1 pver=1.1; else popt=--http2 pver=2; fi
		want="200 $(bytes_of "$s") $pver"
		for srv in "${tserver_list[@]}"; do
			[ "$srv" = jaws-bare ] && read -r m0 z0 f0 < <(jaws_counts "${surl[tls:jaws-bare]}")
			got=$(curl -sk "$popt" -o /dev/null -w '%{http_code} %{size_download} %{http_version}' "${url[tls:$srv]}$s.bin")
			[ "$got" = "$want" ] || die "$srv (tls) answered $got for $s.bin over $proto, want $want"
			if [ "$srv" = jaws-bare ]; then
				read -r m1 z1 f1 < <(jaws_counts "${surl[tls:jaws-bare]}")
				echo "$s,$(bytes_of "$s"),$(transfer_path "$m0" "$z0" "$f0" "$m1" "$z1" "$f1"),$proto" >>"$out/raw/tls-paths.csv"
			fi
		done
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
# h2load prints no percentiles: the mean time for a request stands in.
parse_h2load() { # h2load output on stdin -> requests,rps,transfer_bps,mean_us,socket_errors,non2xx
	awk '
	function micros(v,   n, u) {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000
		return n
	}
	$1 == "finished" && $2 == "in" { secs = $3 + 0; rps = $4 }
	$1 == "requests:" { req = $8; errs = $10 + $12 + $14 }
	$1 == "status" && $2 == "codes:" { non2xx = $7 + $9 }
	$1 == "traffic:" { b = $3; gsub(/[()]/, "", b) }
	$1 == "time" && $2 == "for" && $3 == "request:" { mean = micros($6) }
	END {
		if (rps == "" || secs <= 0) exit 1
		printf "%d,%.2f,%.0f,%.1f,%d,%d\n", req, rps, b / secs, mean, errs, non2xx
	}'
}

# load_test server net what parser warmup command...: one measurement
# (measure_attempts), the load generator's command run on the net's path
# and its output read by parser (parse_wrk or parse_h2load); sets res,
# other, attempt, answered and busy01 as measure_attempts does, cpu (the
# server's CPU seconds) and client ("CPU seconds,wall seconds" of the load
# generator). A warmup of more than 0 seconds is the load generator's own
# (h2load --warm-up-time), which it does not count: the server's CPU time,
# the cores and other processes are then read from that many seconds after
# its start. A load generator that has not finished 30 s after it should
# have is killed, and the measurement taken again.
load_test() {
	local srv=$1 net=$2 what=$3 parser=$4 warmup=$5 t0 t1 c0 c1 wall cu cs limit lw=0 cmd
	shift 5
	cmd=("$@")
	limit=$(awk -v d="${duration%s}" -v w="$warmup" 'BEGIN { printf "%d", d + w + 30 }')
	measure_attempts "$what" "$1" "$parser" load_try
	cpu=$(cpu_secs "$c0" "$c1")
	read -r wall cu cs <"$tmp/load.time"
	if [ "$warmup" != 0 ]; then
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		cu=$(awk -v u="$cu" -v s="$cs" -v w="$lw" -v hz="$hz" 'BEGIN { printf "%.3f", u + s - w / hz }') cs=0
	fi
	client=$(awk -v w="$wall" -v u="$cu" -v s="$cs" 'BEGIN { printf "%.3f,%.3f", u + s, w }')
	log_measured "$what" "$client" client
}
# load_try: one try of load_test, in its variables (srv, net, warmup,
# limit, cmd; sets t0, t1, c0, c1 and lw): the server's CPU time read
# around the window, and, after a warm-up, what the load generator spent in
# it, taken off its time in load_test, so its CPU share covers the window
# measured.
load_try() {
	local bg lgpid
	if [ "$warmup" = 0 ]; then
		window_open
		c0=$(cpu_ticks "${spid[$srv]}")
		t0=$(now)
		{ time lg "$net" timeout -k 5 "$limit" "${cmd[@]}" >"$tmp/load.out" 2>"$tmp/load.err"; } 2>"$tmp/load.time" || rc=$?
	else
		{ time lg "$net" timeout -k 5 "$limit" "${cmd[@]}" >"$tmp/load.out" 2>"$tmp/load.err"; } 2>"$tmp/load.time" &
		bg=$!
		sleep "$warmup"
		window_open
		c0=$(cpu_ticks "${spid[$srv]}")
		t0=$(now)
		lgpid=$(pgrep -n -x "${cmd[0]}" || true)
		[ -z "$lgpid" ] || lw=$(cpu_ticks "$lgpid" 2>/dev/null || echo 0)
		wait "$bg" || rc=$?
	fi
	t1=$(now)
	c1=$(cpu_ticks "${spid[$srv]}")
	window_close
}
measure() { # server size mode run net level
	local srv=$1 s=$2 mode=$3 run=$4 net=$5 level=$6 c hdr=()
	c=$(conns_for "$s" "$level")
	[ "$mode" = close ] && hdr=(-H 'Connection: close')
	load_test "$srv" "$net" "run $run $net c$level $s $mode $srv" parse_wrk 0 \
		wrk -t1 -c"$c" -d"$duration" --timeout 30s --latency "${hdr[@]}" "${url[$srv]}$s.bin"
	echo "$run,$s,$(bytes_of "$s"),$srv,$mode,$c,${duration%s},$res,$other,$attempt,$cpu,$level,$net,$client,$busy01" >>"$out/raw/results.csv"
}
# h2load offers only TLS_AES_128_GCM_SHA256, so that every server does the
# same cipher's work: nginx would take the client's first choice
# (AES-256-GCM with OpenSSL's defaults), Go its own (AES-128-GCM).
tls_cipher=TLS_AES_128_GCM_SHA256
# h2load connects in a warm-up it does not count, and the server's CPU is
# read after it too: 0.5 s and 1 ms per connection (1.5 s at 1000). The
# clients connected first load the server while it is still shaking hands
# with the others: 1000 connections take up to 0.9 s to set up, and with
# 0.5 s of warm-up a cell at 1000 counted about 5% fewer responses.
tls_warmup() { # connections: seconds
	awk -v c="$1" 'BEGIN { printf "%.3f", 0.5 + c / 1000 }'
}
tls_warmup_ms() { # connections: the same for h2load, which takes whole units
	awk -v c="$1" 'BEGIN { printf "%dms", 500 + c }'
}
tmeasure() { # server size proto run net level
	local srv=$1 s=$2 proto=$3 run=$4 net=$5 level=$6 c opt=() alpn=h2
	c=$(conns_for "$s" "$level")
	[ "$proto" = h1 ] && opt=(--h1) alpn=http/1.1
	load_test "tls:$srv" "$net" "run $run $net c$level $s $proto $srv" parse_h2load "$(tls_warmup "$c")" \
		h2load -c"$c" -t1 -m"$streams" -D"${duration%s}" --warm-up-time="$(tls_warmup_ms "$c")" --tls13-ciphers="$tls_cipher" "${opt[@]}" "${url[tls:$srv]}$s.bin"
	grep -qx "Application protocol: $alpn" "$tmp/load.out" || die "$srv (tls) did not speak $alpn: $(grep -E '^(Application protocol|No protocol)' "$tmp/load.out")"
	grep -qx "Cipher: $tls_cipher" "$tmp/load.out" || die "$srv (tls) did not use $tls_cipher: $(grep '^Cipher' "$tmp/load.out")"
	echo "$run,$s,$(bytes_of "$s"),$srv,$proto,keepalive,$level,$c,$streams,${duration%s},$res,$other,$attempt,$cpu,$net,$client,$busy01" >>"$out/raw/tls.csv"
}
cconns=${conns_list[0]}
cmeasure() { # server:encoding run
	local cs=$1 run=$2 srv=${1%%:*} enc=${1#*:} hdr=()
	[ "$enc" = identity ] || hdr=(-H "$(enc_header "$enc")")
	load_test "$srv" loopback "run $run app.js $enc $srv" parse_wrk 0 \
		wrk -t1 -c"$cconns" -d"$duration" --timeout 30s --latency "${hdr[@]}" "${url[$srv]}app.js"
	echo "$run,app.js,$appjs_bytes,$srv,$enc,keepalive,$cconns,${duration%s},$res,$other,$attempt,$cpu,${hbytes[$cs]},${bbytes[$cs]},${wbytes[$cs]},$client,$busy01" >>"$out/raw/compress.csv"
	if [ "$enc" = gzip ]; then gzipped[$srv]=$((${gzipped[$srv]:-0} + answered)); fi
}

# interleaved measure sizes variants servers: measure (measure, tmeasure)
# every cell of the files or the tls scenario, "measure server size variant
# run net level", the variants being modes or protocols, the arguments the
# names of the arrays of sizes, variants and servers. Every run measures all
# servers for a size and variant back to back, in an order that rotates
# from run to run, so drift on the machine spreads over all of them; then
# the next variant, size, connection level and net.
interleaved() {
	local fn=$1 run net level s v srv
	local -n cell_sizes=$2 cell_variants=$3 cell_servers=$4
	for run in $(seq "$runs"); do
		for net in "${net_list[@]}"; do
			for level in "${conns_list[@]}"; do
				for s in "${cell_sizes[@]}"; do
					for v in "${cell_variants[@]}"; do
						for srv in $(rotated "$run" "${cell_servers[@]}"); do
							"$fn" "$srv" "$s" "$v" "$run" "$net" "$level"
						done
					done
				done
			done
		done
	done
}

common_meta() {
	machine_meta
	echo "runs: $runs"
	echo "duration: $duration"
}
net_meta() {
	echo "net: $nets$($veth && echo " (veth: $(veth_meta))")"
}
if $files; then
	n=$((runs * ${#net_list[@]} * ${#conns_list[@]} * ${#size_list[@]} * 2 * ${#server_list[@]}))
	log "files: $runs run(s) x ${#net_list[@]} net(s) x ${#conns_list[@]} connection level(s) x ${#size_list[@]} size(s) x 2 modes x ${#server_list[@]} servers = $n x $duration"
	{
		common_meta
		echo "connections: $conns (files of 10 MiB and more: $bigconns; smaller ones: at most $inflight of responses in flight)"
		net_meta
		echo "quiet: $quiet"
		echo "retries: $retries"
		echo "wait budget: $budget s"
		echo "cachemax: $cachemax"
		echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$out/raw/meta.txt"
	echo "run,size,bytes,server,mode,conns,duration_s,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,other_cpus,retries,server_cpu_s,conns_level,net,client_cpu_s,client_wall_s,server_core_busy,client_core_busy" >"$out/raw/results.csv"

	# Warm up each server (connections, heap, caches) without recording.
	for srv in "${server_list[@]}"; do
		lg loopback timeout -k 5 60 wrk -t1 -c"${conns_list[0]}" -d1s "${url[$srv]}${size_list[0]}.bin" >/dev/null ||
			log "warning: the warm-up of $srv failed or hung"
	done

	# shellcheck disable=SC2034 # interleaved reads it by its name
	modes=(keepalive close)
	interleaved measure size_list modes server_list
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/raw/meta.txt"
	echo "waited for quiet: $waited s" >>"$out/raw/meta.txt"
	echo "load generator killed and repeated: $hung" >>"$out/raw/meta.txt"
fi

if $compress; then
	log "compress: $runs run(s) x ${#cases[@]} cases = $((runs * ${#cases[@]})) x $duration"
	# Warm up each case: after it, jaws holds app.js's gzip variant, and its
	# counters must not move but for Encoded.
	for cs in "${cases[@]}"; do
		hdr=()
		[ "${cs#*:}" = identity ] || hdr=(-H "$(enc_header "${cs#*:}")")
		lg loopback timeout -k 5 60 wrk -t1 -c"$cconns" -d1s "${hdr[@]}" "${url[${cs%%:*}]}app.js" >/dev/null ||
			log "warning: the warm-up of $cs failed or hung"
	done
	declare -A stats0 gzipped # gzipped: gzip responses wrk counted, per server, retries included
	for srv in jaws jaws-bare; do stats0[$srv]=$(jaws_stats "$srv"); done
	{
		common_meta
		echo "connections: $cconns"
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
	echo "run,file,bytes,server,encoding,mode,conns,duration_s,requests,rps,transfer_bps,p50_us,p99_us,socket_errors,non2xx,other_cpus,retries,server_cpu_s,header_bytes,body_bytes,wire_bytes,client_cpu_s,client_wall_s,server_core_busy,client_core_busy" >"$out/raw/compress.csv"
	for run in $(seq "$runs"); do
		for c in $(rotated "$run" "${cases[@]}"); do
			cmeasure "$c" "$run"
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

if $tls; then
	n=$((runs * ${#net_list[@]} * ${#conns_list[@]} * ${#tsize_list[@]} * ${#proto_list[@]} * ${#tserver_list[@]}))
	log "tls: $runs run(s) x ${#net_list[@]} net(s) x ${#conns_list[@]} connection level(s) x ${#tsize_list[@]} size(s) x ${#proto_list[@]} protocol(s) x ${#tserver_list[@]} servers = $n x $duration"
	{
		common_meta
		echo "h2load: $({ h2load --version 2>&1 || true; } | head -1 | cut -d' ' -f2)"
		echo "connections: $conns (files of 10 MiB and more: $bigconns; smaller ones: at most $inflight of responses in flight)"
		echo "streams: $streams per HTTP/2 connection"
		echo "warm-up: 0.5 s + 1 ms per connection per measurement, not counted (h2load --warm-up-time; connections and handshakes)"
		echo "tls: TLS 1.3, $tls_cipher (the only cipher h2load offers), X25519, self-signed ECDSA P-256 certificate; nginx $(
			[ "$nginx_h2" = new ] && echo 'listen ssl; http2 on;' || echo 'listen ssl http2;'
		)"
		net_meta
		echo "quiet: $quiet"
		echo "retries: $retries"
		echo "wait budget: $budget s"
		echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$out/raw/tls-meta.txt"
	echo "run,size,bytes,server,proto,mode,conns_level,conns,streams,duration_s,requests,rps,transfer_bps,mean_us,socket_errors,non2xx,other_cpus,retries,server_cpu_s,net,client_cpu_s,client_wall_s,server_core_busy,client_core_busy" >"$out/raw/tls.csv"
	c=$(conns_for "${tsize_list[0]}" "${conns_list[0]}")
	for srv in "${tserver_list[@]}"; do
		for proto in "${proto_list[@]}"; do
			opt=()
			[ "$proto" = h1 ] && opt=(--h1)
			lg loopback timeout -k 5 60 h2load -c"$c" -t1 -m"$streams" -D1 --warm-up-time="$(tls_warmup_ms "$c")" "${opt[@]}" "${url[tls:$srv]}${tsize_list[0]}.bin" >/dev/null ||
				log "warning: the warm-up of $srv (tls, $proto) failed or hung"
		done
	done
	interleaved tmeasure tsize_list proto_list tserver_list
	{
		echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "waited for quiet: $waited s"
		echo "load generator killed and repeated: $hung (all scenarios so far)"
	} >>"$out/raw/tls-meta.txt"
fi

"$tmp/bin/report" -raw "$out/raw" -out "$out"
log "results in $out/results.md"
