#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The wire fuzzer (wire_fuzz.c) against iwtcp in both roles, with CRC and
# markers off and on: as the initiator against an iwtcp responder
# (victim.c listening in ns2), and as the responder ("listen", in ns2) to
# an iwtcp initiator (victim.c connect, in ns1); the victim starts again
# for each connection. Every connection completes a valid MPA start-up (or
# sends a mutated Request or Reply), sends valid RDMA Writes and then one
# mutated frame. The kernel log of the guest run must stay clean
# (tools/vm/run), and afterwards the device still serves a fresh rping.
#
#	FUZZ_SEED=S FUZZ_FRAMES=N FUZZ_VALID=V selftests/fuzz.sh
#
# FUZZ_FRAMES (default 4000) are split over the eight variants, with up
# to FUZZ_VALID (default 64) valid Writes before each connection's
# mutated frame: about 120 mutated frames and start-ups in make check;
# make check-debug sends 10^6 frames, with FUZZ_VALID 8000. FUZZ_SEED (default 0x1f2e3d4c) makes a run
# repeatable: each variant's seed is FUZZ_SEED plus its number, and each
# connection's line in fuzz-VARIANT.log names its seed and number, so
# "wire_fuzz HOST PORT SEED 1 valid=V [crc] [markers] [listen] conn=N"
# replays it.
# fuzz_regressions.txt lists such connections that once found a fault;
# they run first, every time.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

bin=$(cd "$(dirname "$0")/.." && pwd)/.cache/bin
regressions=$(dirname "$0")/fuzz_regressions.txt
require_cmd rdma rping
[[ -x $bin/wire_fuzz && -x $bin/victim ]] || ktap_skip_all "wire_fuzz or victim not built (make selftests)"

seed=${FUZZ_SEED:-0x1f2e3d4c}
frames=${FUZZ_FRAMES:-4000}
valid=${FUZZ_VALID:-64}
out=${FUZZ_OUT:-$(mktemp -d)}
mkdir -p "$out"
ports_from 7600

# victims_start [connect]: victim.c, one after the other, until stopped:
# listening in ns2, or connecting from ns1 to wire_fuzz listening in ns2.
victims_start() {
	local ns=$ns2 role=${1:-}

	[[ -z $role ]] || ns=$ns1
	# Each victim ends at its connection's end; 600 s bounds one whose
	# connection never ends. A refused connect tries again.
	ip netns exec "$ns" bash -c "while :; do '$bin/victim' 192.0.2.2 $port 600 $role >/dev/null 2>&1 || sleep 0.2; done" &
	victims=$!
	track_pid "$victims"
	[[ -n $role ]] || wait_listen
}

victims_stop() {
	kill "$victims" 2>/dev/null || true
	wait "$victims" 2>/dev/null || true
	pkill -f "$bin/victim 192.0.2.2 $port" 2>/dev/null || true
}

# set_victim CRC MARKERS: the victims' device settings (both devices:
# the victim responds on iwtcp_b, initiates on iwtcp_a).
set_victim() {
	set_both mpa_crc "$1"
	set_both mpa_markers "$2"
}

# fuzz SECONDS ARG...: wire_fuzz 192.0.2.2 $port ARG... for at most
# SECONDS, with the victims of its role: "listen" in ARG... makes
# victim.c connect.
fuzz() {
	local limit=$1 fuzzer rc=0

	shift
	if [[ " $* " == *" listen "* ]]; then
		# wire_fuzz's responder takes the Write RTR alone; iwtcp's
		# initiator offers Read unless told otherwise
		echo write >/sys/class/infiniband/iwtcp_a/mpa_rtr
		timeout "$limit" ip netns exec "$ns2" "$bin/wire_fuzz" \
			192.0.2.2 "$port" "$@" &
		fuzzer=$!
		wait_listen || rc=1
		victims_start connect
		wait "$fuzzer" || rc=$?
		echo "send write read" >/sys/class/infiniband/iwtcp_a/mpa_rtr
	else
		victims_start
		timeout "$limit" ip netns exec "$ns1" "$bin/wire_fuzz" \
			192.0.2.2 "$port" "$@" || rc=$?
	fi
	victims_stop
	return "$rc"
}

# variant NAME N CRC MARKERS ARG...: one fuzz run, its RESULT line checked.
variant() {
	local name=$1 n=$2 log=$out/fuzz-$1.log result

	shift 2
	set_victim "$@"
	shift 2
	next_port
	fuzz 3600 $((seed + n)) $((frames / 8)) "valid=$valid" "$@" >"$log" 2>&1 ||
		true
	result=$(tail -n 1 "$log")
	grep '^#' "$log" | head -n 5 >&2 || true
	echo "# $name: $result" >&2
	echo "# connections left open by the victim: $(grep -c 'end open$' "$log" || true)" >&2
	[[ $result == "RESULT frames "* && $result != *"did not start"* ]]
}

regressions() {
	local s c args

	[[ -f $regressions ]] || return 0
	while read -r s c args; do
		[[ -z $s || $s == \#* ]] && continue
		next_port
		set_victim "$([[ $args == *crc* ]] && echo on || echo off)" \
			"$([[ $args == *markers* ]] && echo required || echo off)"
		# shellcheck disable=SC2086 # the listed arguments
		fuzz 600 "$s" 1 $args "conn=$c" >&2 || return 1
	done <"$regressions"
}

fresh_rping() {
	set_victim on on
	next_port
	ip netns exec "$ns2" rping -s -a 192.0.2.2 -p "$port" -C 10 -V \
		>"$out/rping_s" 2>&1 &
	local server=$!

	wait_listen
	timeout 120 ip netns exec "$ns1" rping -c -a 192.0.2.2 -p "$port" \
		-C 10 -V
	wait "$server" || { show_log server "$out/rping_s"; return 1; }
}

ktap_plan 10
setup_two_hosts
ktap_run "saved regressions replayed" regressions
ktap_run "fuzz the responder, CRC off, markers off" variant plain 0 off off
ktap_run "fuzz the responder, CRC on, markers off" variant crc 1 on off crc
ktap_run "fuzz the responder, CRC off, markers on" variant markers 2 off required markers
ktap_run "fuzz the responder, CRC on, markers on" variant crc_markers 3 on required crc markers
ktap_run "fuzz the initiator, CRC off, markers off" variant i_plain 4 off off listen
ktap_run "fuzz the initiator, CRC on, markers off" variant i_crc 5 on off crc listen
ktap_run "fuzz the initiator, CRC off, markers on" variant i_markers 6 off required markers listen
ktap_run "fuzz the initiator, CRC on, markers on" variant i_crc_markers 7 on required crc markers listen
ktap_run "the device serves a fresh rping -V" fresh_rping
ktap_finish
