#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp's tracepoints (drivers/infiniband/sw/iwtcp/trace.h): each case
# enables the events in a tracefs instance of its own, does one thing
# between the two hosts of lib.sh (iwtcp_a in ns1, iwtcp_b in ns2) and
# asserts the events and their fields against what it set: the MPA
# result, the RTR, the CEP and QP states of a connection, batches of a
# data transfer, the TERM of a failed start-up, and the FPDU error and
# TERM (with the DDP header it quotes) of a bad FPDU from a raw peer.
# Runs in the guest.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck source-path=SCRIPTDIR source=wire_lib.sh
source "$(dirname "$0")/wire_lib.sh"

EVENTS=(iwtcp_cep_state iwtcp_mpa_result iwtcp_rtr iwtcp_qp_state
	iwtcp_term_tx iwtcp_term_rx iwtcp_fpdu_rx_error iwtcp_tx_batch
	iwtcp_rx_batch)

require_cmd ip rdma rping ib_write_bw python3 timeout
need_built "$CM_TEST" "$VICTIM"

tracefs=/sys/kernel/tracing
if [[ ! -d $tracefs/instances ]]; then
	mount -t tracefs nodev "$tracefs" 2>/dev/null ||
		ktap_skip_all "no tracefs at $tracefs"
fi
inst=$tracefs/instances/iwtcp_selftest
out=$(mktemp -d)
ports_from 7900

test_cleanup() {
	[[ -d $inst ]] && rmdir "$inst"
	rm -rf "$out"
}

# trace_start: a fresh instance with every iwtcp event on.
trace_start() {
	[[ -d $inst ]] && rmdir "$inst"
	mkdir "$inst"
	echo 1 >"$inst/events/iwtcp/enable"
}

# trace_stop: the events so far in $out/trace (and on stderr).
trace_stop() {
	echo 0 >"$inst/events/iwtcp/enable"
	grep -v '^#' "$inst/trace" >"$out/trace" || true
	sed 's/^ */# trace: /' "$out/trace" >&2
}

# seen REGEX: an event line matches REGEX (extended).
seen() {
	grep -Eq -- "$1" "$out/trace" && return 0
	echo "# no event matching: $1" >&2
	return 1
}

# field EVENT_REGEX NAME: the value of NAME= in the first matching line.
field() {
	grep -E -- "$1" "$out/trace" | head -n 1 |
		sed -nE "s/.* $2=([^ ]*).*/\\1/p"
}

every_event_listed() {
	local e

	trace_start
	for e in "${EVENTS[@]}"; do
		[[ -f $inst/events/iwtcp/$e/format ]] ||
			{ echo "# no event $e" >&2; return 1; }
	done
	trace_stop
}

# RFC 6581 7 and 9: the negotiated result on each side (CRC required,
# markers off, the Write RTR alone, IRD/ORD 3/2 against 5/1), the RTR
# sent and received, both CEPs and QPs established, the QP named in the
# result the one that reached RTS.
connection() {
	local qpn_a qpn_b

	both mpa_crc required
	both mpa_markers off
	both mpa_rtr write
	trace_start
	cm_pair "accept 5 1" "established 3 2"
	trace_stop
	defaults
	local a='iwtcp_mpa_result: dev=iwtcp_a .* initiator rv=0'
	local b='iwtcp_mpa_result: dev=iwtcp_b .* responder rv=0'
	seen "$a rev=2 enhanced=1 crc=1 markers_tx=0 markers_rx=0 p2p=1 rtr=0x2 ird=3 ord=2 peer_ird=2 peer_ord=1"
	seen "$b rev=2 enhanced=1 crc=1 markers_tx=0 markers_rx=0 p2p=1 rtr=0x2 .* peer_ird=3 peer_ord=2"
	seen 'iwtcp_rtr: dev=iwtcp_a cep=[0-9]+ sent write'
	seen 'iwtcp_rtr: dev=iwtcp_b cep=[0-9]+ received write'
	seen 'iwtcp_cep_state: dev=iwtcp_a cep=[0-9]+ AWAIT_REPLY -> ESTABLISHED'
	seen 'iwtcp_cep_state: dev=iwtcp_b cep=[0-9]+ AWAIT_RTR -> ESTABLISHED'
	qpn_a=$(field "$a" qpn)
	qpn_b=$(field "$b" qpn)
	[[ -n $qpn_a && -n $qpn_b ]]
	seen "iwtcp_qp_state: dev=iwtcp_a qpn=$qpn_a IDLE -> RTS ib_state=3"
	seen "iwtcp_qp_state: dev=iwtcp_b qpn=$qpn_b IDLE -> RTS ib_state=3"
	# the disconnect: RTS left on both
	seen "iwtcp_qp_state: dev=iwtcp_a qpn=$qpn_a RTS -> "
	seen "iwtcp_qp_state: dev=iwtcp_b qpn=$qpn_b RTS -> "
	# no TERM, no FPDU error in a clean connection
	! grep -Eq 'iwtcp_term_|iwtcp_fpdu_rx_error' "$out/trace"
}

# Where a trace line ran: the receive work, or a softirq (the flags'
# third column).
rx_work_re='^ *(kworker/[^ ]+|iwtcp_rx-[0-9]+|<\.\.\.>-[0-9]+) +\[[0-9]+\] b[^ ][.]'
rx_softirq_re='\[[0-9]+\] [^ ][^ ]s'

# rping's Sends and Reads: transmit and receive batches on both devices,
# each of at least one FPDU and more wire octets than FPDU headers;
# transmit batches written by a worker (the client's first doorbell,
# before it received anything, queues the transmitter) and by rping's
# own system call (a doorbell that answers a received Send runs one
# batch: iwtcp_qp_tx_doorbell(), DOC: Transmit); every receive batch
# read in TCP's softirq or by the receive work, and rping's 1000 octets,
# which leave little unread, at least once in the softirq (DOC: Receive).
batches() {
	local rc=0 spid

	trace_start
	next_port
	timeout 60 ip netns exec "$ns2" rping -s -a 192.0.2.2 -p "$port" -C 3 \
		-S 1000 -V >"$out/server" 2>&1 &
	spid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" rping -c -a 192.0.2.2 -p "$port" -C 3 \
		-S 1000 -V >"$out/client" 2>&1 || rc=$?
	wait "$spid" || rc=$?
	trace_stop
	((rc == 0))
	seen 'iwtcp_tx_batch: dev=iwtcp_a qpn=[0-9]+ fpdus=[1-9][0-9]* octets=[0-9]+'
	seen 'iwtcp_rx_batch: dev=iwtcp_a qpn=[0-9]+ fpdus=[1-9][0-9]* octets=[0-9]+'
	seen 'iwtcp_tx_batch: dev=iwtcp_b qpn=[0-9]+ fpdus=[1-9][0-9]* octets=[0-9]+'
	seen 'iwtcp_rx_batch: dev=iwtcp_b qpn=[0-9]+ fpdus=[1-9][0-9]* octets=[0-9]+'
	# a 1000-octet rping buffer travels in FPDUs of more than 1000 octets
	seen 'iwtcp_rx_batch: .* octets=(1[0-9]{3}|[2-9][0-9]{3}|[0-9]{5,})$'
	seen '^ *kworker/[^ ]+ .* iwtcp_tx_batch: dev=iwtcp_a '
	seen '^ *rping-[0-9]+ .* iwtcp_tx_batch: dev=iwtcp_a '
	seen '^ *rping-[0-9]+ .* iwtcp_tx_batch: dev=iwtcp_b '
	# the receive work: a kworker or the queue's rescuer (<...>: a task
	# name the trace no longer holds) with bottom halves off, outside an
	# interrupt; or a softirq (flags: irqs-off/BH-off, need-resched,
	# hardirq/softirq)
	if grep -E ' iwtcp_rx_batch: ' "$out/trace" |
		grep -Ev "$rx_work_re|$rx_softirq_re" >&2; then
		echo "# a receive batch ran outside the receive work and TCP's softirq" >&2
		return 1
	fi
	seen "$rx_softirq_re.* iwtcp_rx_batch: "
}

# ib_write_bw's 64 KiB Writes leave more unread than the softirq takes:
# the receiver's batches are read by its receive work (DOC: Receive),
# and no batch in a softirq holds more than RX_INLINE_MAX (16 KiB). A
# debug kernel's TCP hands the receiver two segments at a time, which the
# softirq keeps up with: there (IWTCP_SLOW > 1) the stream may stay inline.
stream_batches() {
	local rc=0 spid

	trace_start
	next_port
	timeout $((120 * IWTCP_SLOW)) ip netns exec "$ns2" ib_write_bw -F -R \
		-p "$port" -s 65536 -n 200 >"$out/server" 2>&1 &
	spid=$!
	wait_listen
	timeout $((120 * IWTCP_SLOW)) ip netns exec "$ns1" ib_write_bw -F -R \
		-p "$port" -s 65536 -n 200 192.0.2.2 >"$out/client" 2>&1 || rc=$?
	wait "$spid" || rc=$?
	trace_stop
	((rc == 0))
	seen ' iwtcp_rx_batch: dev=iwtcp_b '
	if grep -E "$rx_softirq_re.* iwtcp_rx_batch: " "$out/trace" |
		awk '{ sub(/.*octets=/, ""); if ($1 + 0 > 16384) bad = 1 }
		     END { exit !bad }' >&2; then
		echo "# a softirq receive batch above 16 KiB" >&2
		return 1
	fi
	((IWTCP_SLOW > 1)) || seen "$rx_work_re.* iwtcp_rx_batch: dev=iwtcp_b "
}

# RFC 6581 9.2: no RTR type in common; the initiator's TERM 0x07 (layer
# LLP, type MPA) is traced as sent by iwtcp_a and received by iwtcp_b,
# by their endpoints (cep nonzero); the initiator's result says why
# (-ENOPROTOOPT).
startup_term() {
	trace_start
	no_rtr_attempt bash -c "grep -q 'iwtcp_term_rx: dev=iwtcp_b' $inst/trace"
	trace_stop
	defaults
	seen 'iwtcp_mpa_result: dev=iwtcp_a .* initiator rv=-92 '
	seen 'iwtcp_term_tx: dev=iwtcp_a qpn=[0-9]+ cep=[1-9][0-9]* layer=2 type=0 code=0x7 ddp_hdr=\[\] rdmap_hdr=\[\]'
	seen 'iwtcp_term_rx: dev=iwtcp_b qpn=[0-9]+ cep=[1-9][0-9]* layer=2 type=0 code=0x7 '
}

# RFC 5041 7.2: a tagged Write to an STag that does not exist (the raw
# peer's 0x5a5a5a5a at TO 0x1000): iwtcp_b traces the FPDU error and the
# TERM (DDP, tagged buffer, invalid STag) quoting the DDP header, the
# STag and TO in it; its QP goes RTS -> TERMINATE -> ERROR.
bad_stag() {
	local qpn

	trace_start
	attack write_randstag
	trace_stop
	defaults
	seen 'iwtcp_fpdu_rx_error: dev=iwtcp_b qpn=[0-9]+ seq=[0-9]+ ulpdu_len=78 layer=1 type=1 code=0x0'
	seen 'iwtcp_term_tx: dev=iwtcp_b qpn=[0-9]+ cep=0 layer=1 type=1 code=0x0 ddp_hdr=\[[0-9a-f]{4}5a5a5a5a0000000000001000\]'
	qpn=$(field 'iwtcp_term_tx: dev=iwtcp_b' qpn)
	seen "iwtcp_qp_state: dev=iwtcp_b qpn=$qpn RTS -> TERMINATE"
	seen "iwtcp_qp_state: dev=iwtcp_b qpn=$qpn TERMINATE -> ERROR"
}

# RFC 5044 8: a CRC error (code 0x02, layer LLP, type MPA): traced as an
# FPDU error, then as the TERM, which quotes no header.
bad_crc() {
	trace_start
	attack badcrc crc
	trace_stop
	defaults
	seen 'iwtcp_fpdu_rx_error: dev=iwtcp_b qpn=[0-9]+ seq=[0-9]+ ulpdu_len=26 layer=2 type=0 code=0x2'
	seen 'iwtcp_term_tx: dev=iwtcp_b qpn=[0-9]+ cep=0 layer=2 type=0 code=0x2 ddp_hdr=\[\] rdmap_hdr=\[\]'
}

# RFC 5040 4.8: the peer's own TERMINATE (LLP, type 1, code 5) is traced
# as received; iwtcp sends none back.
peer_term_rx() {
	trace_start
	attack term
	trace_stop
	defaults
	seen 'iwtcp_term_rx: dev=iwtcp_b qpn=[0-9]+ cep=0 layer=2 type=1 code=0x5 '
	! grep -q 'iwtcp_term_tx: ' "$out/trace"
}

# RFC 5044 4.3, 8: a peer-to-peer start-up with markers and CRC whose
# first FPDU (the Write RTR, 14 octets of ULPDU) has a bad CRC: the error
# is traced with the length field read behind the stream's first marker.
startup_crc_markers() {
	trace_start
	attack rtr_badcrc p2p crc markers
	trace_stop
	defaults
	seen 'iwtcp_fpdu_rx_error: dev=iwtcp_b qpn=[0-9]+ seq=0 ulpdu_len=14 layer=2 type=0 code=0x2'
	seen 'iwtcp_term_tx: dev=iwtcp_b qpn=[0-9]+ cep=[1-9][0-9]* layer=2 type=0 code=0x2 '
}

tests=(every_event_listed connection batches stream_batches startup_term bad_stag bad_crc
	peer_term_rx startup_crc_markers)

ktap_plan "${#tests[@]}"
setup_two_hosts
# perftest's second connect must not be refused (iwtcp-interop.rst)
hosts_no_refusals
ktap_run_timed tests defaults
ktap_finish
