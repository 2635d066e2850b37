#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wireshark as judge of iwtcp-to-iwtcp traffic. For each CRC x markers
# setting (both devices), dumpcap on veth_a in ns1 captures perftest
# ib_send_bw and ib_write_bw (rdma_cm, 20 messages each) from ns1 to ns2;
# capture_judge.py decodes it in the guest with tshark's iwarp_mpa and
# iwarp_ddp_rdmap dissectors (helpers shared with tools/interop_judge.py
# in tools/iwarp_tshark.py). A case fails unless: dumpcap dropped nothing;
# each connection has one MPA Request and one Reply, with the M and C flags
# of the setting; no frame is malformed or has an expert error; with CRC
# every FPDU's CRC checks good, without it none is checked; DDP headers
# are decoded, one per FPDU (with markers: once Wireshark removed them);
# per direction, the DDP segments decoded equal the sender's tx_fpdus and
# the receiver's rx_fpdus (ports/1/hw_counters). Two more cases, with
# markers at EMSS 1448 and 1449, are judged by align_judge.py: every TCP
# segment begins and ends at an FPDU boundary (RFC 5044 5.1); so are three
# without markers.
# Runs in the guest; topology: lib.sh's two hosts, servers on 192.0.2.2.
# CAPTURE_KEEP=DIR keeps each case's capture and dumpcap log there.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

JUDGE=$(dirname "$0")/capture_judge.py
ALIGN_JUDGE=$(dirname "$0")/align_judge.py

require_cmd ip tc rdma ss dumpcap tshark python3 ib_send_bw ib_write_bw \
	timeout
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

out=$(mktemp -d)
ports_from 7800
MARK_PORT=7899

test_cleanup() {
	rm -rf "$out"
}

# Before each case: CRC on, markers honoured, EMSS 1024 (see the set-up),
# no qdisc or route MTU of a case.
defaults() {
	set_both mpa_crc on
	set_both mpa_markers on
	route_mtu ""
	mtu 1076
	tc -n "$ns1" qdisc del dev veth_a root 2>/dev/null || true
}

# The FPDU counters of both devices: "A_TX A_RX B_TX B_RX".
counters() {
	local d c f v=()

	for d in iwtcp_a iwtcp_b; do
		for c in tx_fpdus rx_fpdus; do
			f=/sys/class/infiniband/$d/ports/1/hw_counters/$c
			[[ -r $f ]] || { echo "# no $f" >&2; return 1; }
			v+=("$(cat "$f")")
		done
	done
	echo "${v[*]}"
}

# No TCP connection on the case's ports left open in either namespace
# (TIME-WAIT aside): the devices have counted all they will count.
ports_quiet() {
	local p ns

	for ns in "$ns1" "$ns2"; do
		for p in "$@"; do
			ip netns exec "$ns" ss -tanH "( sport = :$p or dport = :$p )" |
				grep -vE '^(LISTEN|TIME-WAIT) ' | grep -q . && return 1
		done
	done
	return 0
}

# _marked CAP WORD: send a UDP datagram carrying WORD from ns1; true once
# dumpcap has written one to CAP.
_marked() {
	ip netns exec "$ns1" bash -c "echo $2 >/dev/udp/192.0.2.2/$MARK_PORT"
	grep -qa "$2" "$1"
}

# mark CAP WORD: wait until a datagram carrying WORD is in CAP. Packets
# leave the capture ring in order: at the start, the capture is running;
# at the end, every packet sent before the mark is in the file.
mark() {
	wait_for 60 _marked "$1" "$2"
}

# transfers PORT1 PORT2 [SIZE]: ib_send_bw on PORT1 and ib_write_bw on
# PORT2 at once, servers in ns2, clients in ns1 (rdma_cm, two connections
# each), 20 messages each of SIZE octets, by default of 16 full FPDUs:
# with markers at EMSS 1024, MULPDU is 1010 (RFC 5044 4.5), less the
# DDP/RDMAP header, 18 octets untagged (Send), 14 tagged (Write).
# Results on stderr.
transfers() {
	local t p i pids=() names=() rc=0 st ports=("$1" "$2")
	local tools=(ib_send_bw ib_write_bw) sizes=($((16 * 992)) $((16 * 996)))
	# a debug kernel under load took 120 s for one run (2026-12-05)
	local limit=$((120 * IWTCP_SLOW))

	[[ -z ${3:-} ]] || sizes=("$3" "$3")

	for t in 0 1; do
		timeout -k 10 "$limit" ip netns exec "$ns2" "${tools[t]}" -F -R -n 20 \
			-s "${sizes[t]}" -p "${ports[t]}" >"$out/${tools[t]}.s" 2>&1 &
		pids+=($!)
		names+=("${tools[t]} server")
	done
	for p in "${ports[@]}"; do
		port=$p
		wait_listen
	done
	for t in 0 1; do
		timeout -k 10 "$limit" ip netns exec "$ns1" "${tools[t]}" -F -R -n 20 \
			-s "${sizes[t]}" -p "${ports[t]}" 192.0.2.2 \
			>"$out/${tools[t]}.c" 2>&1 &
		pids+=($!)
		names+=("${tools[t]} client")
	done
	# clients first: one that fails at once is told at once
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		st=0
		wait "${pids[i]}" || st=$?
		((st != 124)) || echo "# ${names[i]}: no end after $limit s" >&2
		((st == 0 || st == 124)) || echo "# ${names[i]} exited $st" >&2
		((st == 0)) || rc=$st
	done
	for t in "${tools[@]}"; do
		if ((rc)); then
			show_log "$t client" "$out/$t.c"
			show_log "$t server" "$out/$t.s"
		else
			grep -A2 '#bytes' "$out/$t.c" | grep -E '^ *[0-9]' |
				sed "s/^/# $t: /" >&2
		fi
	done
	return "$rc"
}

# capture_case CRC MARKERS NAME [SIZE]: CRC and markers (1/0) set on both
# devices, a capture of an ib_send_bw and an ib_write_bw run (messages of
# SIZE octets, see transfers), judged by Wireshark, or with ALIGN=1 by
# align_judge.py (ALIGN_PACKED=1: some segment must hold two FPDUs).
capture_case() {
	local crc=$1 markers=$2 cap=$out/$3.pcapng log=$out/$3.dumpcap
	local p1 p2 dpid before after a b deltas t0=$SECONDS

	if ((crc)); then set_both mpa_crc on; else set_both mpa_crc off; fi
	# Markers "on" honours a peer's M=1 without asking (M=0).
	if ((markers)); then
		set_both mpa_markers required
	else
		set_both mpa_markers on
	fi
	next_port
	p1=$port
	next_port
	p2=$port
	# A buffer for all of the case: under TCG, dumpcap falls behind.
	ip netns exec "$ns1" dumpcap -q -i veth_a -B 64 \
		-f "tcp port $p1 or tcp port $p2 or udp port $MARK_PORT" \
		-w "$cap" 2>"$log" &
	dpid=$!
	mark "$cap" "iwtcp-capture-start-$p1"
	echo "# capturing after $((SECONDS - t0)) s" >&2
	before=$(counters)
	transfers "$p1" "$p2" "${4:-}"
	wait_for $((60 * IWTCP_SLOW)) ports_quiet "$p1" "$p2"
	mark "$cap" "iwtcp-capture-end-$p1"
	after=$(counters)
	read -ra b <<<"$before"
	read -ra a <<<"$after"
	deltas="$((a[0] - b[0])) $((a[1] - b[1]))"
	deltas+=" $((a[2] - b[2])) $((a[3] - b[3]))"
	kill -INT "$dpid"
	wait "$dpid" || true
	sed 's/^/# dumpcap: /' "$log" >&2
	echo "# transfers done after $((SECONDS - t0)) s" >&2
	[[ -z ${CAPTURE_KEEP:-} ]] || cp "$cap" "$log" "$CAPTURE_KEEP/"
	if [[ -n ${ALIGN:-} ]]; then
		ALIGN_PACKED=${ALIGN_PACKED:-0} python3 "$ALIGN_JUDGE" \
			"$cap" "$markers" "$deltas" "$p1" "$p2"
	else
		python3 "$JUDGE" "$cap" "$log" "$crc" "$markers" "$deltas" \
			"$p1" "$p2"
	fi
	echo "# judged after $((SECONDS - t0)) s" >&2
}

crc_on_markers_on() { capture_case 1 1 "${FUNCNAME[0]}"; }
crc_on_markers_off() { capture_case 1 0 "${FUNCNAME[0]}"; }
crc_off_markers_on() { capture_case 0 1 "${FUNCNAME[0]}"; }
crc_off_markers_off() { capture_case 0 0 "${FUNCNAME[0]}"; }

# mtu MTU: the veth pair's MTU, both ends.
mtu() {
	ip -n "$ns1" link set veth_a mtu "$1"
	ip -n "$ns2" link set veth_b mtu "$1"
}

# route_mtu MTU: the MTU of the route between the hosts, locked (no
# path MTU discovery), both ends; "" for none, the device's.
route_mtu() {
	local lock=()

	[[ -z $1 ]] || lock=(mtu lock "$1")
	ip -n "$ns1" route replace 192.0.2.0/24 dev veth_a proto kernel \
		scope link src 192.0.2.1 "${lock[@]}"
	ip -n "$ns2" route replace 192.0.2.0/24 dev veth_b proto kernel \
		scope link src 192.0.2.2 "${lock[@]}"
}

# EMSS 1448 (MTU 1500): a full FPDU holds two or three markers, as the
# stream falls; each is sized to fill its segment (RFC 5044 4.5, 5.1), and
# the last, short FPDU of a message (messages of 20001 octets) ends its
# segment. align_judge.py walks the stream: every segment begins and ends
# at an FPDU boundary. (Wireshark 4.0 counts a marker that falls between
# two FPDUs in the first, against RFC 5044 4.3, and loses the stream.)
markers_emss_1448() {
	mtu 1500
	ALIGN=1 capture_case 1 1 "${FUNCNAME[0]}" 20001
}

# EMSS 1449 (a route's MTU of 1501; the devices' 1600 give iwtcp no
# reason to round the MSS, see no_markers_mtu_1501): no FPDU (a multiple of 4
# octets) fills a segment, so each one ends its own.
markers_emss_1449() {
	mtu 1600
	route_mtu 1501
	ALIGN=1 capture_case 1 1 "${FUNCNAME[0]}" 20001
}

# Without markers, EMSS 1448: full FPDUs fill segments by their size
# (RFC 5044 4.5). Each message's last FPDU is short, and the next
# message's first FPDU, written while that one still waits in TCP's
# queue, must not share its socket buffer: it would be cut at the MSS and
# every later FPDU of the message would straddle two segments.
no_markers_emss_1448() {
	mtu 1500
	ALIGN=1 capture_case 1 0 "${FUNCNAME[0]}" 20001
}

# Without markers, devices of MTU 1501: the MSS would be 1461 and the EMSS
# 1449, where full FPDUs (1448 octets, RFC 5044 4.5) straddle segments
# within a message (aligning them would take a socket buffer per FPDU,
# see tx_build_batch()). The connecting end offers an MSS of 1460
# instead (cm_sock_set_mss()), both ends take the smaller: the EMSS is
# 1448, and FPDUs fill segments.
no_markers_mtu_1501() {
	mtu 1501
	ALIGN=1 capture_case 1 0 "${FUNCNAME[0]}" 20001
}

# Without markers, EMSS 1448, messages of 300 octets: FPDUs of 320 and
# 324 octets. The sender's first window is one segment (route initcwnd
# 1), which netem on veth_a holds for 50 ms times IWTCP_SLOW, so messages
# posted meanwhile queue in TCP and share segments: four to a segment,
# never one across two (RFC 5044 5.1: packed "as long as they are
# entirely contained in the TCP segment"). With the default window of 10
# segments, the debug kernel posted too slowly to fill it: every FPDU
# went alone.
no_markers_small() {
	mtu 1500
	ip -n "$ns1" route replace 192.0.2.0/24 dev veth_a proto kernel \
		scope link src 192.0.2.1 initcwnd 1
	tc -n "$ns1" qdisc add dev veth_a root netem delay $((50 * IWTCP_SLOW))ms
	ALIGN=1 ALIGN_PACKED=1 capture_case 1 0 "${FUNCNAME[0]}" 300
}

tests=(crc_on_markers_on crc_on_markers_off crc_off_markers_on
	crc_off_markers_off markers_emss_1448 markers_emss_1449
	no_markers_emss_1448 no_markers_mtu_1501 no_markers_small)

ktap_plan "${#tests[@]}"
setup_two_hosts
hosts_no_refusals
# Wireshark 4.0's MPA dissector finds markers only in an FPDU that starts
# its TCP segment and fills it (it places them from the segment's sequence
# number and length); it sees one MSS per packet (no GSO super-packets).
# The four CRC x markers cases run at an EMSS of 1024 (MTU 1076,
# timestamps on), where any full FPDU is 1024 octets with its markers
# (two in any 1024 octets of stream); markers_emss_1448 runs at MTU 1500.
ip -n "$ns1" link set veth_a gso_max_segs 1
ip -n "$ns2" link set veth_b gso_max_segs 1
defaults
ktap_run_timed tests defaults
defaults
ktap_finish
