#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp against the MPA start-up of hardware iWARP: hw_peer.py plays
# iw_cxgb4 (Chelsio T4-T6) or irdma (Intel E810/X722) as read from their
# host code in Linux 6.12, in ns1, as initiator or responder; victim, an
# rdma_cm program with a 4 MiB MR, runs on iwtcp_b in ns2 with iwtcp's
# default settings unless a case says otherwise. Each connection either
# comes up and moves verified data (a Send, the victim's INFO, an RDMA
# Write and a Read of it back), or fails at start-up with the reason the
# driver would give, and then a case with the setting that makes it work.
# Documentation/infiniband/iwtcp-interop.rst has the table.
# Runs in the guest; topology: lib.sh's two hosts.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck source-path=SCRIPTDIR source=wire_lib.sh
source "$(dirname "$0")/wire_lib.sh"

HW_PEER=$(dirname "$0")/hw_peer.py

require_cmd ip rdma ss python3 timeout
need_built "$VICTIM"

out=$(mktemp -d)
ports_from 7900

test_cleanup() {
	rm -rf "$out"
}

# iwtcp's defaults on iwtcp_b, then the case's "FILE=VALUE" settings
settings() {
	local kv

	echo 2 >"$dev/mpa_revision"
	echo 1 >"$dev/mpa_enhanced"
	echo 1 >"$dev/mpa_p2p"
	echo on >"$dev/mpa_crc"
	echo on >"$dev/mpa_markers"
	echo "send write read" >"$dev/mpa_rtr"
	for kv in "$@"; do
		echo "${kv#*=}" >"$dev/${kv%%=*}"
	done
}

# hw CASE PROFILE ROLE "SETTING..." [PEER-OPTION...]: the peer and the
# victim, outputs in $out/CASE.peer and $out/CASE.victim; the peer's exit
# status in $out/CASE.rc.
hw() {
	local case=$1 profile=$2 role=$3 vpid ppid rc=0 setting

	read -ra setting <<<"$4"
	shift 4
	settings "${setting[@]}"
	next_port
	if [[ $role == init ]]; then
		timeout 60 ip netns exec "$ns2" env "${venv[@]}" "$VICTIM" \
			192.0.2.2 "$port" 15 >"$out/$case.victim" 2>&1 &
		vpid=$!
		wait_listen
		timeout 60 ip netns exec "$ns1" python3 "$HW_PEER" "$profile" \
			init 192.0.2.2 "$port" "$@" >"$out/$case.peer" 2>&1 || rc=$?
	else
		timeout 60 ip netns exec "$ns1" python3 "$HW_PEER" "$profile" \
			resp 192.0.2.1 "$port" "$@" >"$out/$case.peer" 2>&1 &
		ppid=$!
		wait_for 30 grep -q '^listening' "$out/$case.peer"
		timeout 60 ip netns exec "$ns2" env "${venv[@]}" "$VICTIM" \
			192.0.2.1 "$port" 15 connect >"$out/$case.victim" 2>&1 &
		vpid=$!
		wait "$ppid" || rc=$?
	fi
	wait "$vpid" || true
	echo "$rc" >"$out/$case.rc"
	show "$out/$case.peer" peer
	grep -v 'Flushed' "$out/$case.victim" | sed 's/^/# victim: /' >&2
}

# up CASE PROFILE ROLE "SETTING..." RTR [PEER-OPTION...]: the start-up
# agrees on RTR (or "none"), the data is verified at the peer, and the
# victim saw the connection established, its INFO sent and the end.
up() {
	local case=$1 profile=$2 role=$3 set=$4 rtr=$5

	shift 5
	hw "$case" "$profile" "$role" "$set" "$@"
	has "$out/$case.peer" "^START OK rtr $rtr "
	has "$out/$case.peer" '^DATA OK$'
	[[ $(cat "$out/$case.rc") == 0 ]] ||
		{ echo "# peer exit status $(cat "$out/$case.rc")" >&2; return 1; }
	has "$out/$case.victim" '^# cm event RDMA_CM_EVENT_ESTABLISHED status 0'
	has "$out/$case.victim" '^# info sent '
	has "$out/$case.victim" '^victim: done$'
	hasnt "$out/$case.victim" '^victim: FAIL'
}

# refused CASE PROFILE ROLE "SETTING..." PEER-REASON VICTIM-EVENT
# [PEER-OPTION...]: the start-up fails, the peer for PEER-REASON (a
# regex), the victim's rdma_cm reports VICTIM-EVENT (a regex) and never
# a connection established without error.
refused() {
	local case=$1 profile=$2 role=$3 set=$4 why=$5 ev=$6

	shift 6
	hw "$case" "$profile" "$role" "$set" "$@"
	has "$out/$case.peer" "^START FAIL $why"
	[[ $(cat "$out/$case.rc") == 2 ]] ||
		{ echo "# peer exit status $(cat "$out/$case.rc")" >&2; return 1; }
	has "$out/$case.victim" "$ev"
	hasnt "$out/$case.victim" 'RDMA_CM_EVENT_ESTABLISHED status 0'
}

# --- iw_cxgb4 as initiator, iwtcp responds -----------------------------------

# p2p_type Read (the default): the one RTR type offered, answered
cxgb4_init() { up cxgb4_init cxgb4 init "" read; }
cxgb4_init_write() { up cxgb4_init_write cxgb4 init "" write p2p_type=write; }
# markers_enabled=1: the Request has M, iwtcp inserts markers towards it
cxgb4_init_markers() {
	up cxgb4_init_markers cxgb4 init "" read markers_enabled=1
	has "$out/cxgb4_init_markers.peer" ' markers_rx 1 '
}
# crc_enabled=0: iwtcp's "on" still asks for CRCs (RFC 5044 7.1.1)
cxgb4_init_nocrc() {
	up cxgb4_init_nocrc cxgb4 init "" read crc_enabled=0
	has "$out/cxgb4_init_nocrc.peer" ' crc 1 '
}
# mpa_rev=1 (its fallback after a reset, too): a Revision 1 start-up, and
# still the RTR of its p2p_type, a zero-length Read that iwtcp answers
cxgb4_init_rev1() { up cxgb4_init_rev1 cxgb4 init "" read mpa_rev=1; }
# p2p_type Write against an iwtcp that takes Read alone: its Reply names
# Read, iw_cxgb4 sends no RTR and closes (the TERM 0x07 its code asks for
# is never posted); iwtcp's ULP, which accepted, sees ESTABLISHED with
# -ECONNRESET (iw_cm's one way out of an accepted connection), then
# DISCONNECTED.
cxgb4_init_mismatch() {
	refused cxgb4_init_mismatch cxgb4 init "mpa_rtr=read" \
		"fin no RTR: Reply RTR read, p2p_type write" \
		'RDMA_CM_EVENT_ESTABLISHED status -104' p2p_type=write
	has "$out/cxgb4_init_mismatch.victim" 'RDMA_CM_EVENT_DISCONNECTED'
}
# NVMe-oF's 32 octets of private data, a read depth of 8
cxgb4_init_nvme() { up cxgb4_init_nvme cxgb4 init "" read ulp=nvme depth=8; }

# --- iw_cxgb4 as responder, iwtcp initiates ----------------------------------

# iwtcp offers Read alone: iw_cxgb4 expects Read and its Reply says Read
cxgb4_resp() { up cxgb4_resp cxgb4 resp "" read; }
# An NFS or NVMe-oF client asks ORD 0: iwtcp's Request says 1 for its
# Read RTR (RFC 6581 9.1), iw_cxgb4 raises its IRD to that 1 (its ULP
# accepts IRD 0, as svcrdma does) and the RTR has room.
cxgb4_resp_ord0() {
	venv=(VICTIM_ORD=0)
	up cxgb4_resp_ord0 cxgb4 resp "" read
	venv=()
	has "$out/cxgb4_resp_ord0.peer" "^# Request .*'ird': 4, 'ord': 1, 'p2p': True"
	has "$out/cxgb4_resp_ord0.peer" '^START OK rtr read .* ird 1 ord 4$'
}
irdma_resp_ord0() {
	venv=(VICTIM_ORD=0)
	up irdma_resp_ord0 irdma resp "" read
	venv=()
	has "$out/irdma_resp_ord0.peer" "^# Request .*'ird': 4, 'ord': 1, 'p2p': True"
}

# p2p_type Write: iw_cxgb4 expects Read (the Request's one type) but its
# Reply says Write; iwtcp sends TERM 0x07 (RFC 6581 9.2) instead of an RTR
cxgb4_resp_write() {
	refused cxgb4_resp_write cxgb4 resp "" \
		"term received, layer 2 etype 0 ecode 0x7 " \
		'RDMA_CM_EVENT_CONNECT_ERROR status -92' p2p_type=write
}
# ... and mpa_rtr=write makes both sides agree
cxgb4_resp_write_set() {
	up cxgb4_resp_write_set cxgb4 resp "mpa_rtr=write" write p2p_type=write
}
# markers_enabled=1: the Reply has M, iwtcp inserts markers
cxgb4_resp_markers() {
	up cxgb4_resp_markers cxgb4 resp "" read markers_enabled=1
	has "$out/cxgb4_resp_markers.peer" ' markers_rx 1 '
}
# mpa_rev=1: iw_cxgb4 resets a Revision 2 Request
cxgb4_resp_rev1() {
	refused cxgb4_resp_rev1 cxgb4 resp "" "rst Request revision 2" \
		'RDMA_CM_EVENT_(UNREACHABLE|CONNECT_ERROR|REJECTED)' mpa_rev=1
}
# ... iwtcp at Revision 1 needs peer2peer=0 there: a Revision 1 start-up
# has no RTR to send, and iw_cxgb4 with peer2peer=1 waits for one
cxgb4_resp_rev1_set() {
	up cxgb4_resp_rev1_set cxgb4 resp \
		"mpa_p2p=0 mpa_enhanced=0 mpa_revision=1" none mpa_rev=1 \
		peer2peer=0
}

# --- irdma as initiator, iwtcp responds --------------------------------------

# Write and Read offered, Read chosen: a Read RTR with STags 0xabcd/0x1234
irdma_init() { up irdma_init irdma init "" read; }
irdma_init_x722() { up irdma_init_x722 irdma init "" read gen=x722 ulp=iser; }
# iwtcp takes Write alone: irdma follows the Reply
irdma_init_write() { up irdma_init_write irdma init "mpa_rtr=write" write; }

# --- irdma as responder, iwtcp initiates -------------------------------------

irdma_resp() { up irdma_resp irdma resp "" read; }
irdma_resp_nvme() { up irdma_resp_nvme irdma resp "" read ulp=nvme; }
irdma_resp_write() { up irdma_resp_write irdma resp "mpa_rtr=write" write; }
# irdma resets a Request without peer-to-peer (mpa_p2p=1 is the default)
irdma_resp_nop2p() {
	refused irdma_resp_nop2p irdma resp "mpa_p2p=0" \
		"rst Request without peer-to-peer" \
		'RDMA_CM_EVENT_(UNREACHABLE|CONNECT_ERROR|REJECTED)'
}

nothing_left() {
	wait_for 10 no_qp_mr || { rdma resource show >&2; return 1; }
}

no_qp_mr() {
	rdma resource show | grep -E '^[0-9]+: iwtcp_b: ' |
		grep -Eq ' qp 0 .* mr 0 '
}

tests=(
	cxgb4_init cxgb4_init_write cxgb4_init_markers cxgb4_init_nocrc
	cxgb4_init_rev1 cxgb4_init_mismatch cxgb4_init_nvme
	cxgb4_resp cxgb4_resp_ord0 cxgb4_resp_write cxgb4_resp_write_set cxgb4_resp_markers
	cxgb4_resp_rev1 cxgb4_resp_rev1_set
	irdma_init irdma_init_x722 irdma_init_write
	irdma_resp irdma_resp_ord0 irdma_resp_nvme irdma_resp_write irdma_resp_nop2p
	nothing_left
)

ktap_plan "${#tests[@]}"
setup_two_hosts
# The hardware's TCP negotiates neither timestamps nor SACK (iw_cxgb4's
# defaults, irdma ignores TCP options): iwtcp then sizes FPDUs to an EMSS
# of the MTU less 40, as it would against the NIC. Per namespace.
ip netns exec "$ns1" sysctl -qw net.ipv4.tcp_timestamps=0 net.ipv4.tcp_sack=0
ktap_run_timed tests
ktap_finish
