#!/usr/bin/env bash
# bench/calibrate.sh: go run ./bench/calibrate, over loopback or, with
# -net veth, with wrk in a network namespace of its own behind the veth
# pair of bench/run.sh and bench/site.sh, each end receiving on its own
# side's core (root). Every other argument goes to calibrate. What the
# veth figures showed on a virtual machine: bench/README.md, "Calibration
# over veth".
#
#   bench/calibrate.sh -net veth
#   bench/calibrate.sh -net veth -sizes 8K,16K,32K,64K -rounds 7 -duration 2s
set -Eeuo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
. bench/lib.sh # die, make_tmp, build_bins, veth_check, veth_up, veth_down

net=loopback
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-net) net=${2:?-net needs loopback or veth}; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done

case $net in
loopback) exec go run ./bench/calibrate "${args[@]}" ;;
veth) ;;
*) die "-net $net: want loopback or veth" ;;
esac
command -v wrk >/dev/null || die "-net veth needs wrk"
veth_check
make_tmp jaws-calibrate veth_down
build_bins bench/calibrate
veth_up
"$tmp/bin/calibrate" -netns "$vns" -listen "$srvhost" "${args[@]}"
