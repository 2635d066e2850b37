#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What iwtcp does with a peer that breaks the wire protocols: a raw MPA
# Rev 1 initiator (mpa_evil.py, its own FPDU encoder, markers and CRC) in
# ns1 against victim, an rdma_cm server with a 4 MiB MR, on iwtcp_b in
# ns2. Each bad FPDU must be answered with the TERMINATE whose cause RFC
# 5040 4.8 / 7.2, RFC 5041 7.1 / 7.2 and RFC 5044 8 give, followed by the
# end of the connection; odd but valid streams must be received intact;
# a peer that shuts its receive window must not block dereg_mr or the
# exit of a killed process; nothing may be left on the device.
# Runs in the guest; topology: lib.sh's two hosts.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck source-path=SCRIPTDIR source=wire_lib.sh
source "$(dirname "$0")/wire_lib.sh"

require_cmd ip rdma ss python3 timeout
need_built "$VICTIM"

out=$(mktemp -d)
ports_from 7700

test_cleanup() {
	rm -rf "$out"
}

# peer_term CASE LAYER ETYPE ECODE [RESULT]: the peer got exactly this
# one TERMINATE and then EOF (RESULT: the kinds it received, a regex); the
# victim saw the connection end and ended by itself.
peer_term() {
	local p=$out/$1.peer v=$out/$1.victim

	has "$p" "^TERM layer $2 etype $3 ecode $4 hdrctl "
	[[ $(grep -c '^TERM ' "$p") == 1 ]] ||
		{ echo "# expected one TERM" >&2; return 1; }
	has "$p" "^RESULT ${5:-TERM EOF}\$"
	has "$v" '^# cm event RDMA_CM_EVENT_DISCONNECTED '
	has "$v" '^victim: done$'
}

# expect_term CASE LAYER ETYPE ECODE [RESULT]: peer_term, and the victim's
# QP failed (an async event).
expect_term() {
	peer_term "$@"
	has "$out/$1.victim" '^# async event '
}

# term_case CASE LAYER ETYPE ECODE [OPTION...]
term_case() {
	local case=$1 l=$2 e=$3 c=$4

	shift 4
	attack "$case" "$@"
	expect_term "$case" "$l" "$e" "$c"
}

# --- RFC 5044 8: MPA (LLP) errors, layer 2 ---------------------------------

# counted COUNTER N COMMAND...: COMMAND passes, and the victim's port
# counter COUNTER (stats.c) grew by exactly N meanwhile.
counted() {
	local c=/sys/class/infiniband/iwtcp_b/ports/1/hw_counters/$1 n=$2 v0

	shift 2
	v0=$(cat "$c")
	"$@"
	(($(cat "$c") == v0 + n)) ||
		{ echo "# ${c##*/}: $v0 -> $(cat "$c"), expected +$n" >&2; return 1; }
}

# The victim counts the bad CRC or marker and its TERMINATE.
badcrc() {
	counted rx_crc_errors 1 counted tx_terms 1 term_case badcrc 2 0 0x2 crc
}
badmarker() {
	counted rx_marker_errors 1 term_case badmarker 2 0 0x3 crc markers
}
# ULPDU_Length 65535: with markers FPDUPTR cannot reach the header
bigfpdu() { counted rx_marker_errors 1 term_case bigfpdu 2 0 0x3 markers; }

# --- RFC 6581 9.2 and RFC 5044 8: a first FPDU that is no RTR -------------

# startup_term CASE ECODE [OPTION...]: the responder answers the bad
# first FPDU with one MPA TERM (layer 2, type 0) and closes; its ULP sees
# the connection end.
startup_term() {
	local case=$1 c=$2

	shift 2
	attack "$case" p2p "$@"
	peer_term "$case" 2 0 "$c"
}

# A Write RTR whose CRC fails: a CRC error, not "no matching RTR"
rtr_badcrc() {
	counted rx_crc_errors 1 counted tx_terms 1 \
		startup_term rtr_badcrc 0x2 crc
}
# A Send with data in place of the RTR
rtr_send() { startup_term rtr_send 0x7; }

# --- RFC 5041 7.2: DDP errors, layer 1 -------------------------------------

# A ULPDU shorter than its DDP header: local catastrophic (type 0, code 0)
ulpdu0() { term_case ulpdu0 1 0 0x0; }
ulpdu1() { term_case ulpdu1 1 0 0x0; }
ulpdu13() { term_case ulpdu13 1 0 0x0; }
ulpdu13u() { term_case ulpdu13u 1 0 0x0; }

# RDMA Writes: RFC 5040 7.2 has DDP check them (RFC 5041 7.1, tagged),
# and its Figure 10 allows RDMAP remote protection errors only for Read
# Request and Send with Invalidate: DDP tagged buffer errors (type 1).
write_stag0() { term_case write_stag0 1 1 0x0; }
write_randstag() { term_case write_randstag 1 1 0x0; }
write_to_wrap() { term_case write_to_wrap 1 1 0x3; }
write_to_top() { term_case write_to_top 1 1 0x1; }
write_oob() { term_case write_oob 1 1 0x1; }
write_below() { term_case write_below 1 1 0x1; }

# Untagged buffer errors (type 2)
send_qn3() { term_case send_qn3 1 2 0x1; }
send_badmsn() { term_case send_badmsn 1 2 0x2; }
readreq_badmsn() { term_case readreq_badmsn 1 2 0x3; }
send_mo_huge() { term_case send_mo_huge 1 2 0x4; }
send_mo_big() { term_case send_mo_big 1 2 0x5; }
send_too_long() { term_case send_too_long 1 2 0x5; }
bigfpdu_nomarkers() {
	attack bigfpdu
	expect_term bigfpdu 1 2 0x5
}

# RFC 5040 6.1: IRD Reads outstanding at once (the peer's window is
# shut) are served; one more has no buffer (MSN, no buffer available).
readreq_ird() {
	attack readreq_ird
	expect_term readreq_ird 1 2 0x2 '(READ_RESP )?TERM EOF'
}

readreq_ird_ok() {
	local p=$out/readreq_ird_ok.peer

	attack readreq_ird_ok
	[[ $(grep -c '^READ MATCH$' "$p") == 4 ]] || {
		echo "# expected 4 Reads read back" >&2
		return 1
	}
	hasnt "$p" '^TERM '
	has "$p" '^RESULT EOF$'
}

# --- RFC 5040 4.8, 7.2: RDMAP errors, layer 0 ------------------------------

readresp_noreq() { term_case readresp_noreq 0 2 0x6; }
# Read Request Data Source checks: remote protection, base or bounds
# (the TO is out of range before the sum wraps); the TERMINATE quotes the
# DDP and the RDMA Read Request header (M, D and R; RFC 5040 Figure 10).
readreq_huge() {
	term_case readreq_huge 0 1 0x1
	has "$out/readreq_huge.peer" '^TERM .* hdrctl 0xe000$'
}

readreq_wrap() {
	term_case readreq_wrap 0 1 0x1
	has "$out/readreq_wrap.peer" '^TERM .* hdrctl 0xe000$'
}

# --- the peer ends the stream ----------------------------------------------

# A TERMINATE from the peer: none back (RFC 5040 4.8), the QP fails; the
# victim may close or reset the connection (RFC 5040 6.2.1).
term() {
	attack term
	hasnt "$out/term.peer" '^TERM '
	has "$out/term.peer" '^RESULT (EOF|RST)$'
	has "$out/term.victim" '^# async event '
	has "$out/term.victim" '^victim: done$'
}

# A reset in the middle of an FPDU: the victim disconnects.
rst_mid() {
	attack rst_mid
	has "$out/rst_mid.victim" '^# cm event RDMA_CM_EVENT_DISCONNECTED '
	has "$out/rst_mid.victim" '^victim: done$'
}

# --- valid streams, cut up -------------------------------------------------

split1() {
	attack split1 crc markers
	has "$out/split1.victim" '^# recv second send, split$'
	has "$out/split1.peer" '^RESULT EOF$'
}

many() {
	local i

	attack many markers
	has "$out/many.peer" '^READ MATCH$'
	has "$out/many.peer" '^RESULT EOF$'
	for i in 0 1 2 3 4 5 6 7; do
		has "$out/many.victim" "^# recv many $i\$"
	done
}

bigsplit() {
	attack bigsplit crc
	has "$out/bigsplit.peer" '^READ MATCH$'
	has "$out/bigsplit.peer" '^RESULT EOF$'
}

# --- a peer that stops reading ---------------------------------------------

# dereg_mr while the peer's window holds a 4 MiB Read Response: it
# returns at once, and the Read ends with TERM remote protection,
# invalid STag, once the peer reads again.
dereg_stall() {
	local v=$out/read_stall.victim secs

	venv=(VICTIM_DEREG=3)
	attack read_stall stall=6
	venv=()
	secs=$(sed -n 's/^# dereg_mr returned 0 after \([0-9.]*\) s$/\1/p' "$v")
	[[ -n $secs ]] || { echo "# dereg_mr did not return 0" >&2; return 1; }
	echo "# dereg_mr took $secs s" >&2
	((${secs%.*} < 5))
	expect_term read_stall 0 1 0x0 '(READ_RESP )?TERM EOF'
}

gone() {
	[[ ! -e /proc/$1 ]] || [[ $(cut -d' ' -f3 "/proc/$1/stat") == Z ]]
}

# kill -9 of the victim while the peer keeps its window shut.
kill_stall() {
	local vpid peer_pid rc=0

	victim_settings
	next_port
	ip netns exec "$ns2" "$VICTIM" 192.0.2.2 "$port" 60 \
		>"$out/kill.victim" 2>&1 &
	vpid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" python3 "$PEER" 192.0.2.2 "$port" \
		read_stall stall=30 >"$out/kill.peer" 2>&1 &
	peer_pid=$!
	wait_for 20 grep -q '^# stalling' "$out/kill.peer"
	sleep 1
	gone "$vpid" && { show "$out/kill.victim" victim; return 1; }
	kill -9 "$vpid"
	wait_for 10 gone "$vpid" || rc=1
	if ((rc)); then
		echo "# victim still there: $(ps -o stat=,wchan:32= -p "$vpid")" >&2
		cat "/proc/$vpid/stack" >&2 || true
	fi
	kill "$peer_pid" 2>/dev/null || true
	wait "$peer_pid" || true
	wait "$vpid" || true
	show "$out/kill.peer" peer
	show "$out/kill.victim" victim
	return "$rc"
}

# --- afterwards ------------------------------------------------------------

no_qp_mr() {
	rdma resource show | grep -E '^[0-9]+: iwtcp_b: ' |
		grep -Eq ' qp 0 .* mr 0 '
}

nothing_left() {
	wait_for 10 no_qp_mr || { rdma resource show >&2; return 1; }
	rdma resource show | sed 's/^/# /' >&2
}

tests=(
	badcrc badmarker bigfpdu
	rtr_badcrc rtr_send
	ulpdu0 ulpdu1 ulpdu13 ulpdu13u
	write_stag0 write_randstag write_to_wrap write_to_top write_oob
	write_below
	send_qn3 send_badmsn readreq_badmsn send_mo_huge send_mo_big
	send_too_long bigfpdu_nomarkers readreq_ird readreq_ird_ok
	readresp_noreq readreq_huge readreq_wrap
	term rst_mid
	split1 many bigsplit
	dereg_stall kill_stall
	nothing_left
)

ktap_plan "${#tests[@]}"
setup_two_hosts
ktap_run_timed tests
ktap_finish
