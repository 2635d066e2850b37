#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The connection counters of each port (stats.c; rdma statistic show
# link DEV/1): every case takes a snapshot of both devices' counters,
# does one thing between iwtcp_a (ns1) and iwtcp_b (ns2), and checks the
# exact change of every cm_*, mpa_* and TERM counter: those it expects
# grew by exactly what it did, all others stayed. qp_counter (auto mode)
# and qp_counter_manual (bind, unbind) check the
# per-QP counters of the RDMA core's counter interface. Runs in the guest;
# topology: lib.sh's two hosts.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck source-path=SCRIPTDIR source=wire_lib.sh
source "$(dirname "$0")/wire_lib.sh"

require_cmd ip rdma python3 timeout
need_built "$CM_TEST" "$VICTIM"

out=$(mktemp -d)
ports_from 8300
# the counters each case accounts for, every one of them
WATCHED=(cm_connects cm_requests cm_accepts cm_established cm_rejects_sent
	 cm_rejects_received cm_timeouts mpa_bad_frames mpa_insufficient_ird
	 mpa_no_matching_rtr mpa_catastrophic tx_terms rx_terms
	 tx_terms_rdmap tx_terms_ddp tx_terms_llp rx_terms_rdmap rx_terms_ddp
	 rx_terms_llp)

test_cleanup() {
	rm -rf "$out"
}

counter() {
	cat "/sys/class/infiniband/iwtcp_$1/ports/1/hw_counters/$2"
}

# snap: both devices' watched counters into $out/before.
snap() {
	local d c

	for d in a b; do
		for c in "${WATCHED[@]}"; do
			echo "$d.$c $(counter "$d" "$c")"
		done
	done >"$out/before"
}

# expect DEV.COUNTER=N...: since snap, each named counter grew by N, every
# other watched one by 0.
expect() {
	local d c want kv before now bad=0

	for d in a b; do
		for c in "${WATCHED[@]}"; do
			want=0
			for kv in "$@"; do
				[[ ${kv%=*} == "$d.$c" ]] && want=${kv#*=}
			done
			before=$(sed -n "s/^$d\\.$c //p" "$out/before")
			now=$(counter "$d" "$c")
			if ((now - before != want)); then
				echo "# iwtcp_$d $c: +$((now - before)), expected +$want" >&2
				bad=1
			fi
		done
	done
	((bad == 0))
}

# grown DEV COUNTER: it grew since snap (what the peer sends comes late).
grown() {
	local before

	before=$(sed -n "s/^$1\.$2 //p" "$out/before")
	wait_for 10 bash -c "(( \$(cat /sys/class/infiniband/iwtcp_$1/ports/1/hw_counters/$2) > $before ))"
}

# Three connections, each connected, accepted, established, closed.
connects() {
	snap
	# the check itself: nothing happened yet, so +1 is not seen
	if expect a.cm_connects=1 2>/dev/null; then
		echo "# expect saw a change that did not happen" >&2
		return 1
	fi
	cm_pair "accept 4 4 3" "established 4 4 3"
	expect a.cm_connects=3 a.cm_established=3 \
	       b.cm_requests=3 b.cm_accepts=3 b.cm_established=3
}

# RFC 5044 7.1.2: the ULP rejects; a Reply with R set each way.
reject() {
	snap
	cm_pair reject rejected
	expect a.cm_connects=1 a.cm_rejects_received=1 \
	       b.cm_requests=1 b.cm_rejects_sent=1
}

# RFC 6581 9.1: the responder's ORD exceeds the initiator's IRD: its
# accept sends a Reject, then TERM 0x06, which the initiator receives.
insufficient_ird() {
	snap
	cm_pair "refuse 8 8" "unreachable 2 1"
	grown a rx_terms_llp || true
	expect a.cm_connects=1 a.cm_rejects_received=1 a.rx_terms=1 \
	       a.rx_terms_llp=1 \
	       b.cm_requests=1 b.cm_rejects_sent=1 b.mpa_insufficient_ird=1 \
	       b.tx_terms=1 b.tx_terms_llp=1
}

# RFC 6581 9.2: no RTR type in common: the initiator ends the start-up
# with TERM 0x07, which the responder receives.
no_common_rtr() {
	snap
	no_rtr_attempt grown b rx_terms
	defaults
	# the responder accepted (its Reply went out) before the TERM came
	expect a.cm_connects=1 a.mpa_no_matching_rtr=1 a.tx_terms=1 \
	       a.tx_terms_llp=1 \
	       b.cm_requests=1 b.cm_accepts=1 b.rx_terms=1 b.rx_terms_llp=1
}

# A TCP peer that never answers the MPA Request: one start-up timeout.
timeout_initiator() {
	local pid

	echo 2 >/sys/module/iwtcp/parameters/mpa_timeout
	snap
	next_port
	ip netns exec "$ns2" python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('192.0.2.2', $port)); s.listen(1); print('listening', flush=True)
c, _ = s.accept(); time.sleep(8)" >"$out/silent" &
	pid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" "$CM_TEST" client 192.0.2.2 "$port" \
		unreachable >"$out/client" 2>&1
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	defaults
	expect a.cm_connects=1 a.cm_timeouts=1
}

# term05: how many TERM 0x05 iwtcp_b logged as received in a start-up
term05() {
	dmesg | grep -c 'iwtcp_b: peer ended the MPA start-up with TERM layer 2 type 0 code 0x5$' || true
}

# more_term05 N: more than N of them now
more_term05() { (($(term05) > $1)); }

# RFC 6581 8, TERM 0x05: iwtcp_b asks for markers (M=1 in its Reply),
# iwtcp_a's are off: a ends the start-up with TERM layer 2 type 0 code
# 0x05 in place of the RTR, and b reads that TERM off the wire.
markers_refused() {
	local n0

	n0=$(term05)
	snap
	refused_attempt mpa_markers off required more_term05 "$n0"
	more_term05 "$n0" || { dmesg | tail -n 5 >&2; return 1; }
	defaults
	expect a.cm_connects=1 a.mpa_catastrophic=1 a.tx_terms=1 \
	       a.tx_terms_llp=1 b.cm_requests=1 b.cm_accepts=1 b.rx_terms=1 \
	       b.rx_terms_llp=1
}

# RFC 6581 9: a Reject with no TERM after it; the initiator's wait for
# one ends by its timer, which is no start-up timeout.
reject_no_term() {
	local pid

	echo 2 >/sys/module/iwtcp/parameters/mpa_timeout
	snap
	next_port
	ip netns exec "$ns2" python3 "$(dirname "$0")/mpa_peer.py" rejecthold \
		192.0.2.2 "$port" >"$out/rejecthold" &
	pid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" "$CM_TEST" client 192.0.2.2 "$port" \
		rejected >"$out/client" 2>&1 ||
		{ sed 's/^/# client: /' "$out/client" >&2; return 1; }
	sleep 3
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	defaults
	expect a.cm_connects=1 a.cm_rejects_received=1
}

# RFC 5041 7.2: a raw peer's Write to an STag it was never given: the
# victim's TERM, layer DDP.
ddp_term() {
	snap
	attack write_randstag
	expect b.cm_requests=1 b.cm_accepts=1 b.cm_established=1 \
	       b.tx_terms=1 b.tx_terms_ddp=1
	defaults
}

# RFC 5040 4.8: the raw peer's own TERMINATE (layer LLP) is received.
peer_term() {
	snap
	attack term
	expect b.cm_requests=1 b.cm_accepts=1 b.cm_established=1 \
	       b.rx_terms=1 b.rx_terms_llp=1
	defaults
}

# qpc_sum KEY: KEY's value in the RDMA core counters of iwtcp_b/1 (rdma
# -j statistic qp show), summed over them.
qpc_sum() {
	rdma -j statistic qp show link iwtcp_b/1 | python3 -c '
import json, sys
def walk(o):
    if isinstance(o, dict):
        return sum(v if k == sys.argv[1] and isinstance(v, int) else walk(v)
                   for k, v in o.items())
    return sum(walk(v) for v in o) if isinstance(o, list) else 0
print(walk(json.load(sys.stdin)))' "$1"
}

# qpc_tx_counted: the victim's Send and Read Response FPDUs are in its
# QP counter (tx), and the port counts the same (qp_counter's tx0).
qpc_tx_counted() {
	tx=$(qpc_sum tx_fpdus)
	(($(counter b tx_fpdus) - tx0 == tx && tx >= 2))
}

no_qp_counter() { [[ -z $(rdma statistic qp show link iwtcp_b/1) ]]; }

# The RDMA core's counter interface, auto mode: the victim's QP binds at
# INIT and its data path counts in the counter, exactly the raw peer's
# 40 FPDUs ("many": Send, 10 Writes, 8 Sends, 20 empty Writes, a Read
# Request; a Rev 1 start-up sends no RTR). The port counters count them
# once, while bound and after the counter is gone (the core keeps a
# released counter's values).
qp_counter() {
	local rx0 tx0 vpid ppid n tx rc=0

	rdma statistic qp set link iwtcp_b/1 auto type on
	rx0=$(counter b rx_fpdus)
	tx0=$(counter b tx_fpdus)
	victim_settings
	next_port
	timeout 60 ip netns exec "$ns2" "$VICTIM" 192.0.2.2 "$port" 40 \
		>"$out/qpc.victim" 2>&1 &
	vpid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" python3 "$PEER" 192.0.2.2 "$port" \
		many hold=$((4 * IWTCP_SLOW)) >"$out/qpc.peer" 2>&1 &
	ppid=$!
	wait_for 30 grep -q '^READ MATCH' "$out/qpc.peer" || rc=1
	n=$(qpc_sum rx_fpdus)
	# a batch counts once TCP took it: the peer may read it first
	wait_for 10 qpc_tx_counted ||
		{ echo "# port tx_fpdus +$(($(counter b tx_fpdus) - tx0)), counter $tx" >&2; rc=1; }
	rdma statistic qp show link iwtcp_b/1 | sed 's/^/# /' >&2
	((n == 40)) || { echo "# counter rx_fpdus $n, expected 40" >&2; rc=1; }
	(($(counter b rx_fpdus) - rx0 == 40)) ||
		{ echo "# port rx_fpdus +$(($(counter b rx_fpdus) - rx0)) while bound" >&2; rc=1; }
	wait "$ppid" || rc=1
	wait "$vpid" || rc=1
	wait_for 10 no_qp_counter ||
		{ echo "# a counter outlived its QP" >&2; rc=1; }
	(($(counter b rx_fpdus) - rx0 == 40)) ||
		{ echo "# port rx_fpdus +$(($(counter b rx_fpdus) - rx0)) after" >&2; rc=1; }
	rdma statistic qp set link iwtcp_b/1 auto off
	return "$rc"
}

# victim_qpn: the QP number of the victim's QP on iwtcp_b.
victim_qpn() {
	rdma -j resource show qp link iwtcp_b/1 | python3 -c '
import json, sys
print(" ".join(str(q["lqpn"]) for q in json.load(sys.stdin)
               if q.get("comm") == "victim"))'
}

# qpc_cntn: the ids of iwtcp_b's RDMA core counters.
qpc_cntn() {
	rdma -j statistic qp show link iwtcp_b/1 | python3 -c '
import json, sys
print(" ".join(str(c["cntn"]) for c in json.load(sys.stdin)))'
}

# Manual mode (rdma statistic qp bind, unbind) during a connection: the
# victim's QP counts in its counter from the bind on, the raw peer's 39
# FPDUs of "many" (its "hello" came before), and in its device again
# after the unbind, which releases the counter (iwtcp_counter_dealloc());
# the port counters count the 40 once throughout.
qp_counter_manual() {
	local rx0 vpid ppid qpn cntn n rc=0

	rx0=$(counter b rx_fpdus)
	victim_settings
	next_port
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns2" "$VICTIM" 192.0.2.2 \
		"$port" 40 >"$out/qpm.victim" 2>&1 &
	vpid=$!
	wait_listen
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns1" python3 "$PEER" \
		192.0.2.2 "$port" many hold=$((4 * IWTCP_SLOW)) go="$out/qpm.go" \
		>"$out/qpm.peer" 2>&1 &
	ppid=$!
	wait_for 30 grep -q '^# waiting for' "$out/qpm.peer" || rc=1
	qpn=$(victim_qpn)
	echo "# victim QP $qpn" >&2
	rdma statistic qp bind link iwtcp_b/1 lqpn "$qpn" || rc=1
	cntn=$(qpc_cntn)
	[[ -n $cntn ]] || { echo "# no counter after the bind" >&2; rc=1; }
	touch "$out/qpm.go"
	wait_for 30 grep -q '^READ MATCH' "$out/qpm.peer" || rc=1
	n=$(qpc_sum rx_fpdus)
	rdma statistic qp show link iwtcp_b/1 | sed 's/^/# /' >&2
	((n == 39)) || { echo "# counter rx_fpdus $n, expected 39" >&2; rc=1; }
	rdma statistic qp unbind link iwtcp_b/1 cntn "$cntn" lqpn "$qpn" ||
		rc=1
	no_qp_counter || { echo "# the counter outlived its unbind" >&2; rc=1; }
	(($(counter b rx_fpdus) - rx0 == 40)) ||
		{ echo "# port rx_fpdus +$(($(counter b rx_fpdus) - rx0))" >&2; rc=1; }
	wait "$ppid" || rc=1
	wait "$vpid" || rc=1
	(($(counter b rx_fpdus) - rx0 == 40)) ||
		{ echo "# port rx_fpdus +$(($(counter b rx_fpdus) - rx0)) after" >&2; rc=1; }
	return "$rc"
}

tests=(connects reject insufficient_ird no_common_rtr timeout_initiator
	markers_refused reject_no_term ddp_term peer_term qp_counter
	qp_counter_manual)

ktap_plan "${#tests[@]}"
setup_two_hosts
ktap_run_timed tests defaults
ktap_finish
