#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path (RFC 5044 FPDUs, RFC 5041 DDP, RFC 5040 RDMAP) between two
# iwtcp hosts, through the stock tools: rping -V (Send, RDMA Read, RDMA
# Write, verified), ucmatose, perftest with rdma_cm (-R), and the project's
# dp_test for byte-exact integrity and for bad operations.
# Runs in the guest; topology: lib.sh's two hosts, servers on 192.0.2.2.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

DP_TEST=${DP_TEST:-$(dirname "$0")/../.cache/bin/dp_test}
LATE_LISTEN=$(cd "$(dirname "$0")/.." && pwd)/.cache/bin/late_listen.so

require_cmd ip tc rdma rping ucmatose ib_send_bw ib_write_bw ib_read_bw \
	ib_send_lat ib_write_lat ib_read_lat timeout
[[ -x $DP_TEST && -e $LATE_LISTEN ]] ||
	ktap_skip_all "$DP_TEST or $LATE_LISTEN not built (make -C selftests)"
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

out=$(mktemp -d)
ports_from 7500

defaults() {
	set_both mpa_crc on
	set_both mpa_markers on
	set_both mpa_p2p 1
	set_both mpa_rtr "send write read"
	set_both mpa_large_fpdu 0
}

# counter DEV NAME: a port counter of iwtcp_DEV (stats.c)
counter() {
	cat "/sys/class/infiniband/iwtcp_$1/ports/1/hw_counters/$2"
}

# Start a server in ns2 in the background: bg_server LOG COMMAND...
bg_server() {
	local log=$1

	shift
	timeout $((300 * IWTCP_SLOW)) ip netns exec "$ns2" "$@" >"$log" 2>&1 &
	server_pid=$!
}

# The server's status, its output shown on failure.
server_done() {
	local rc=0

	wait "$server_pid" || rc=$?
	((rc == 0)) || show_log server "$1"
	return "$rc"
}

# rping_v SIZE COUNT: rping -V both ways, verified by both sides.
rping_v() {
	next_port
	bg_server "$out/rping_s" rping -s -a 192.0.2.2 -p "$port" -C "$2" \
		-S "$1" -V
	wait_listen
	timeout $((120 * IWTCP_SLOW)) ip netns exec "$ns1" \
		rping -c -a 192.0.2.2 -p "$port" -C "$2" -S "$1" -V
	server_done "$out/rping_s"
}

rping_sizes() {
	local s

	for s in 23 100 511 512 513 1448 4096 9000 65535; do
		echo "# rping -V -S $s" >&2
		rping_v "$s" 3
	done
}

# Issue 3's matrix: CRC x markers x peer-to-peer and each RTR type, with
# rping -V and ucmatose each. Without peer-to-peer (no RTR) the responder
# sends nothing before the initiator's first FPDU (RFC 5044 7.1.2 rule
# 4): ucmatose, whose server speaks first, can only run with an RTR.
matrix_case() {
	rping_v 1000 2
	[[ $1 == none ]] || ucmatose_run
}

settings_matrix() {
	for_settings_matrix matrix_case
	defaults
}

ucmatose_run() {
	next_port
	bg_server "$out/ucma_s" ucmatose -p "$port" -C 10 -S 4000
	wait_listen
	timeout $((120 * IWTCP_SLOW)) ip netns exec "$ns1" \
		ucmatose -s 192.0.2.2 -p "$port" -C 10 -S 4000
	server_done "$out/ucma_s"
}

ucmatose_markers() {
	set_both mpa_markers required
	ucmatose_run
	defaults
}

# perf TOOL ARGS...: server (ns2) and client (ns1) with the same arguments
# (-R: rdma_cm); prints the client's result lines. -F: under
# a loaded TCG guest perftest's cycles-per-microsecond regression may fall
# below its r^2 of 0.9, and without -F it then exits 1 ("Can't produce a
# report") and tears down the connection: the figures are not what these
# cases check, the transfers are. The server runs under
# "${perf_server[@]}" (env VAR=VALUE) when a case sets it.
perf_server=()
perf() {
	local tool=$1

	shift
	next_port
	bg_server "$out/perf_s" "${perf_server[@]}" "$tool" -F -R -p "$port" "$@"
	wait_listen
	timeout $((300 * IWTCP_SLOW)) ip netns exec "$ns1" \
		"$tool" -F -R -p "$port" "$@" 192.0.2.2 >"$out/perf_c" 2>&1 ||
		{ show_log client "$out/perf_c"; return 1; }
	server_done "$out/perf_s"
	grep -A40 '#bytes' "$out/perf_c" | grep -E '^ *[0-9]' | sed 's/^/# /' >&2
}

send_bw_all() { perf ib_send_bw -a -n 5; }
write_bw_all() { perf ib_write_bw -a -n 5; }
read_bw_all() { perf ib_read_bw -a -n 5; }
send_lat_all() { perf ib_send_lat -a -n 5; }
write_lat_all() { perf ib_write_lat -a -n 5; }
read_lat_all() { perf ib_read_lat -a -n 5; }

# perftest's server listens again for the data QP after the handshake,
# here 2.5 s late (late_listen.c): the client, not refused
# (hosts_no_refusals), connects when it listens.
late_listen() {
	local perf_server=(env LD_PRELOAD="$LATE_LISTEN")

	perf ib_read_lat -s 64 -n 20
}

bw_markers_nocrc() {
	set_both mpa_markers required
	set_both mpa_crc off
	perf ib_write_bw -s 65536 -n 50
	perf ib_read_bw -s 65536 -n 50
	perf ib_send_bw -s 65536 -n 50
	defaults
}

# RFC 5040 6.1: one outstanding Read (ORD 1) and many (16). perftest
# keeps up to its TX depth (128) Reads posted, above the ORD: those wait
# on the sender, none overruns the peer's IRD.
read_bw_ord() {
	perf ib_read_bw -s 4096 -n 100 -o 1
	perf ib_read_bw -s 4096 -n 100 -o 16
}

# dp_test MODE: the project's checker, server and client.
dp() {
	next_port
	bg_server "$out/dp_s" "$DP_TEST" server 192.0.2.2 "$port" "$1"
	wait_listen
	timeout $((300 * IWTCP_SLOW)) ip netns exec "$ns1" \
		"$DP_TEST" client 192.0.2.2 "$port" "$1" >"$out/dp_c" 2>&1 ||
		{ cat "$out/dp_c" >&2; kill "$server_pid" 2>/dev/null
		  server_done "$out/dp_s"; return 1; }
	sed 's/^/# /' "$out/dp_c" >&2
	server_done "$out/dp_s"
	grep -q "dp_test server $1: ok" "$out/dp_s"
	grep -q "dp_test client $1: ok" "$out/dp_c"
}

integrity() { dp integrity; }

# The server receives every Send case of integrity through an SRQ.
srq() { dp srq; }

# RFC 5040 5.4: a receive CQ armed for solicited completions only.
solicited() { dp solicited; }

# User-space Send with Invalidate of a user MR (RFC 5040 5.3: not one
# that may be invalidated remotely): one RDMAP TERM from the server;
# IBV_WR_LOCAL_INV refused at post time.
send_inv() {
	local t0

	t0=$(counter b tx_terms_rdmap)
	dp send_inv
	(($(counter b tx_terms_rdmap) == t0 + 1)) ||
		{ echo "# tx_terms_rdmap +$(($(counter b tx_terms_rdmap) - t0))" >&2; return 1; }
}

# A source buffer the application writes into while it is sent (verbs
# leave what arrives undefined): the transmitter computes each FPDU's CRC
# over the octets it sends (RFC 5044 4.4), so the peer sees no CRC error
# and the connection carries on (dp_test busy_source).
busy_source() {
	local e0

	e0=$(counter b rx_crc_errors)
	dp busy_source
	(($(counter b rx_crc_errors) == e0)) ||
		{ echo "# rx_crc_errors +$(($(counter b rx_crc_errors) - e0))" >&2; return 1; }
}

integrity_markers_crc_off() {
	set_both mpa_markers required
	set_both mpa_crc off
	dp integrity
	defaults
}

# avg_fpdu DEV TOOL ARGS...: perf, then the average FPDU iwtcp_DEV sent.
avg_fpdu() {
	local d=$1 f0 o0

	shift
	f0=$(counter "$d" tx_fpdus)
	o0=$(counter "$d" tx_fpdu_octets)
	perf "$@" >&2
	echo $((($(counter "$d" tx_fpdu_octets) - o0) /
		($(counter "$d" tx_fpdus) - f0)))
}

# siw's G bit (mpa_large_fpdu): FPDUs of up to 32 KiB when both sides set
# it, MSS-sized when one does not; data intact either way, with markers
# and CRC (the marker arithmetic of long FPDUs) and without.
large_fpdu() {
	local avg

	set_both mpa_large_fpdu 1
	set_both mpa_markers required
	avg=$(avg_fpdu a ib_write_bw -s 65536 -n 50)
	echo "# average FPDU a->b, both G: $avg octets" >&2
	((avg > 16384))
	avg=$(avg_fpdu b ib_read_bw -s 65536 -n 50)
	echo "# average Read Response FPDU b->a, both G: $avg octets" >&2
	((avg > 16384))
	perf ib_send_bw -s 65536 -n 50
	dp integrity
	set_both mpa_markers off
	set_both mpa_crc off
	dp integrity
	echo 0 >/sys/class/infiniband/iwtcp_b/mpa_large_fpdu
	avg=$(avg_fpdu a ib_write_bw -s 65536 -n 50)
	echo "# average FPDU a->b, G from a only: $avg octets" >&2
	((avg <= 1500))
	defaults
}

# Every SQ element goes back to libsiw before its completion shows:
# perftest posts into an element the moment it polled the completion of
# the one there before, and libsiw refuses an element still VALID
# ("Couldn't post send"). 2000 Writes and Sends of 64 KiB wrap perftest's
# 128-deep SQ 15 times; over the NIC pair this failed in 5 of 6 guest
# runs while completions came first (never over veth).
sq_reuse() {
	perf ib_write_bw -s 65536 -n 2000
	perf ib_send_bw -s 65536 -n 2000
}

integrity_rev1() {
	set_both mpa_p2p 0
	set_both mpa_enhanced 0
	set_both mpa_revision 1
	dp integrity
	set_both mpa_revision 2
	set_both mpa_enhanced 1
	defaults
}

# TCP segments retransmitted by a namespace (its /proc/net/snmp).
retrans() {
	ip netns exec "$1" cat /proc/net/snmp |
		awk '$1 == "Tcp:" && !c { for (i = 2; i <= NF; i++)
			if ($i == "RetransSegs") c = i; next }
			$1 == "Tcp:" { print $c }'
}

# A link that loses, delays and reorders packets both ways (netem): TCP
# retransmits, cutting the stream anew, and queues segments partly old
# (seq before rcv_nxt) whole; the receiver finds an FPDU's octets by
# sequence number (qp_rx.c). Data intact with markers and CRC, no CRC or
# marker error, no TERMINATE, and TCP did retransmit.
lossy_link() {
	local q="delay 2ms 1ms reorder 20% 50% loss 3%" r0 r1 t

	set_both mpa_markers required
	declare -A before
	for t in rx_crc_errors rx_marker_errors rx_terms; do
		before[$t]=$(counter b "$t")$(counter a "$t")
	done
	r0=$(($(retrans "$ns1") + $(retrans "$ns2")))
	# One segment per packet: losses cut the stream finer.
	ip -n "$ns1" link set veth_a gso_max_segs 1
	ip -n "$ns2" link set veth_b gso_max_segs 1
	# shellcheck disable=SC2086 # the netem words
	tc -n "$ns1" qdisc add dev veth_a root netem $q
	# shellcheck disable=SC2086
	tc -n "$ns2" qdisc add dev veth_b root netem $q
	local rc=0
	dp integrity || rc=$?
	perf ib_write_bw -s 65536 -n 100 || rc=$?
	perf ib_send_bw -s 20000 -n 100 || rc=$?
	tc -n "$ns1" qdisc del dev veth_a root
	tc -n "$ns2" qdisc del dev veth_b root
	ip -n "$ns1" link set veth_a gso_max_segs 65535
	ip -n "$ns2" link set veth_b gso_max_segs 65535
	r1=$(($(retrans "$ns1") + $(retrans "$ns2")))
	echo "# TCP segments retransmitted: $((r1 - r0))" >&2
	((rc == 0))
	((r1 > r0))
	for t in rx_crc_errors rx_marker_errors rx_terms; do
		[[ $(counter b "$t")$(counter a "$t") == "${before[$t]}" ]]
	done
	defaults
}

read_ird() { dp read_ird; }
bad_rkey() { dp bad_rkey; }
bad_bounds() { dp bad_bounds; }
bad_access() { dp bad_access; }
bad_read_access() { dp bad_read_access; }
no_recv() { dp no_recv; }

# A ULP that destroys its QP right after its last Send completed, with no
# disconnect (perftest's server at its exit): the Send still arrives,
# though its segment was lost and TCP must send it again after the
# destroy. A filter drops the server's buffer info (48 octets: an IPv4
# packet of 124 octets, 20 + 32 of TCP with timestamps + a 72-octet
# FPDU) until the server has exited; it must have dropped one at least.
last_send_after_abort() {
	local tcdev=(tc -n "$ns2" filter) drops rc=0 client

	"${tcdev[@]}" add dev veth_b egress pref 10 protocol ip u32 \
		match u16 124 0xffff at 2 match ip protocol 6 0xff action drop
	next_port
	bg_server "$out/dp_s" "$DP_TEST" server 192.0.2.2 "$port" last_send
	wait_listen || rc=1
	timeout $((300 * IWTCP_SLOW)) ip netns exec "$ns1" \
		"$DP_TEST" client 192.0.2.2 "$port" last_send >"$out/dp_c" 2>&1 &
	client=$!
	server_done "$out/dp_s" || rc=1
	drops=$(tc -s -n "$ns2" filter show dev veth_b egress pref 10 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p') || true
	# the filter goes before anything can fail: later cases need those packets
	"${tcdev[@]}" del dev veth_b egress pref 10
	wait "$client" || { cat "$out/dp_c" >&2; return 1; }
	sed 's/^/# /' "$out/dp_c" >&2
	echo "# segments of the last Send dropped: ${drops:-none}" >&2
	((rc == 0 && ${drops:-0} > 0))
	grep -q "dp_test server last_send: ok" "$out/dp_s"
	grep -q "dp_test client last_send: ok" "$out/dp_c"
}

# A connection that failed leaves the others running: rping while a bad
# operation tears another connection down.
others_keep_running() {
	next_port
	local rport=$port

	bg_server "$out/rping_s" rping -s -a 192.0.2.2 -p "$rport" -C 200 \
		-S 2000 -V
	local rserver=$server_pid
	wait_listen
	timeout $((300 * IWTCP_SLOW)) ip netns exec "$ns1" \
		rping -c -a 192.0.2.2 -p "$rport" -C 200 -S 2000 -V \
		>"$out/rping_c" 2>&1 &
	local rclient=$!
	dp bad_rkey
	server_pid=$rserver
	wait "$rclient" || { sed 's/^/# client: /' "$out/rping_c" >&2; return 1; }
	server_done "$out/rping_s"
}

# The port counters: what one side wrote to TCP the other read, FPDU for
# FPDU and octet for octet (RTR included), with markers and CRC; rping's
# answers partly written by its own doorbell; no error counted; rdma
# statistic shows them.
counters() {
	local n t a0 b0 a1 b1

	set_both mpa_markers required
	declare -A before
	for n in a b; do
		for t in tx_fpdus rx_fpdus tx_fpdu_octets rx_fpdu_octets \
			 tx_inline_fpdus tx_doorbell_fpdus \
			 rx_crc_errors rx_marker_errors tx_terms rx_terms; do
			before[$n.$t]=$(counter "$n" "$t")
		done
	done
	rping_v 5000 10
	delta() { echo $(($(counter "$1" "$2") - before[$1.$2])); }
	for t in fpdus fpdu_octets; do
		a0=$(delta a "tx_$t") b1=$(delta b "rx_$t")
		b0=$(delta b "tx_$t") a1=$(delta a "rx_$t")
		echo "# $t: a->b $a0/$b1, b->a $b0/$a1" >&2
		((a0 > 0 && a0 == b1 && b0 > 0 && b0 == a1))
	done
	# rping -C 10: at least 10 Sends and 10 RDMA Reads each way
	(($(delta a tx_fpdus) >= 20))
	# user QPs never take a kernel post_send's inline run (their own
	# doorbell's one batch does not count there)
	for n in a b; do
		[[ $(delta "$n" tx_inline_fpdus) == 0 ]]
	done
	# rping answers each Send it receives: its doorbell finds the
	# transmitter idle and writes some of those answers itself (a
	# doorbell that always queued the worker would count none)
	for n in a b; do
		echo "# $n: tx_doorbell_fpdus +$(delta "$n" tx_doorbell_fpdus)" >&2
		(($(delta "$n" tx_doorbell_fpdus) > 0))
	done
	for n in a b; do
		for t in rx_crc_errors rx_marker_errors tx_terms rx_terms; do
			[[ $(delta "$n" "$t") == 0 ]]
		done
	done
	rdma statistic show link iwtcp_a/1 | tee /dev/stderr |
		grep -q "tx_fpdus $(counter a tx_fpdus) "
}

tests=(
	counters
	rping_sizes settings_matrix ucmatose_run ucmatose_markers
	send_bw_all write_bw_all read_bw_all send_lat_all write_lat_all
	read_lat_all late_listen bw_markers_nocrc read_bw_ord
	integrity integrity_markers_crc_off integrity_rev1 lossy_link
	large_fpdu read_ird srq solicited send_inv busy_source
	bad_rkey bad_bounds bad_access bad_read_access no_recv
	last_send_after_abort others_keep_running
)
# Over the NIC pair (nic_pair.sh), the cases that need it.
[[ $IWTCP_WIRE != nic ]] || tests=(sq_reuse)

ktap_plan "${#tests[@]}"
setup_two_hosts
hosts_no_refusals
defaults
ktap_run_timed tests defaults
ktap_finish
