#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp's restrack detail: the driver attributes of QPs and MRs in
# `rdma -j -dd resource show`, read while a connection is up and compared
# with what the case set: addresses and ports, endpoint and QP state,
# the MPA result (revision, CRC, markers each way, peer-to-peer, RTR),
# IRD/ORD both sides, queue sizes, a Read in flight and the transmitter
# stopped by a full send buffer; an MR's type and access; a CQ's arming.
# Runs in the guest; topology: lib.sh's two hosts.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck source-path=SCRIPTDIR source=wire_lib.sh
source "$(dirname "$0")/wire_lib.sh"

require_cmd ip rdma python3 timeout
need_built "$CM_TEST" "$VICTIM"

out=$(mktemp -d)
ports_from 8100

test_cleanup() {
	rm -rf "$out"
}

# res KIND DEV: the JSON of `rdma -dd resource show KIND` for DEV into
# $out/KIND.DEV.json (and on stderr).
res() {
	rdma -j -dd resource show "$1" | python3 -c "import json, sys
print(json.dumps([e for e in json.load(sys.stdin) if e.get('ifname') == sys.argv[1]]))" \
		"$2" >"$out/$1.$2.json"
	sed "s/^/# $1 $2: /" "$out/$1.$2.json" >&2
	rdma -dd resource show "$1" | sed "s/^/# $1: /" >&2
}

# check FILE PYTHON_EXPR...: each expression holds for the one entry of
# FILE (a list of resources) for which the first expression holds.
check() {
	python3 - "$@" <<'EOF'
import json, sys
def num(v):
    """rdma prints a hex attribute as a number in JSON; either works."""
    return int(v, 0) if isinstance(v, str) else v
# iwtcp's own attributes come as "drv_NAME"; the core's keep their names
entries = [{k[4:] if k.startswith("drv_") else k: v for k, v in e.items()}
           for e in json.load(open(sys.argv[1]))]
select, *exprs = sys.argv[2:]
found = [e for e in entries if eval(select, {}, dict(e=e, num=num))]
if len(found) != 1:
    sys.exit(f"# {len(found)} entries where {select}")
e = found[0]
bad = [x for x in exprs if not eval(x, {}, dict(e=e, num=num))]
for x in bad:
    print(f"# does not hold: {x}", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

b_established() {
	rdma -dd resource show qp | grep -q 'iwtcp_b/.* drv_cep_state ESTABLISHED '
}

# RFC 5044 7.1, RFC 6581 9: iwtcp_a initiates with CRC and markers
# required and the Write RTR alone, IRD/ORD 3/2; iwtcp_b answers with its
# defaults and IRD/ORD 5/1 (lowered to 2/1). Markers go one way: a asks
# for them (M=1), b ("on") honours that and asks for none. Both QPs,
# read while the connection is up, must say so, with the addresses each
# side sees.
# held LISTEN-ADDR: cm_test's server on LISTEN-ADDR in ns2 (accept 5 1),
# its client from ns1 to 192.0.2.2 holding the connection (established 3
# 2) while both devices' QPs are read into $out/qp.DEV.json.
held() {
	local spid cpid rc=0

	next_port
	timeout 120 ip netns exec "$ns2" "$CM_TEST" server "$1" "$port" \
		accept 5 1 >"$out/server" 2>&1 &
	spid=$!
	wait_listen
	# long enough for both reads, also on a debug kernel (IWTCP_SLOW)
	CM_TEST_HOLD=$((6 * IWTCP_SLOW)) timeout 120 \
		ip netns exec "$ns1" "$CM_TEST" client \
		192.0.2.2 "$port" established 3 2 >"$out/client" 2>&1 &
	cpid=$!
	wait_for 30 grep -q '^# holding' "$out/client" || rc=1
	# the responder may still wait for the RTR when the client holds
	wait_for 10 b_established || rc=1
	res qp iwtcp_a
	res qp iwtcp_b
	wait "$cpid" || rc=1
	wait "$spid" || rc=1
	sed 's/^/# client: /' "$out/client" >&2
	return "$rc"
}

# lport: iwtcp_a's local port of the connection read by held
lport() {
	python3 -c "import json, sys
print([e for e in json.load(open(sys.argv[1])) if e.get('drv_iw_state') == 'RTS'][0]['drv_local'].split(':')[1])" \
		"$out/qp.iwtcp_a.json"
}

connection() {
	local rc=0 lport

	echo required >/sys/class/infiniband/iwtcp_a/mpa_crc
	echo required >/sys/class/infiniband/iwtcp_a/mpa_markers
	echo write >/sys/class/infiniband/iwtcp_a/mpa_rtr
	held 192.0.2.2 || rc=1
	defaults
	((rc == 0))
	check "$out/qp.iwtcp_a.json" "e.get('iw_state') == 'RTS'" \
		"e['cep_state'] == 'ESTABLISHED'" \
		"e['local'].startswith('192.0.2.1:')" \
		"e['remote'] == '192.0.2.2:$port'" \
		"e['mpa_rev'] == 2" "e['enhanced'] == 1" "e['crc'] == 1" \
		"e['markers_tx'] == 0" "e['markers_rx'] == 1" "e['p2p'] == 1" \
		"e['rtr'] == 'write'" "e['ird'] == 3" "e['ord'] == 2" \
		"e['peer_ird'] == 2" "e['peer_ord'] == 1" \
		"e['sq_size'] > 0" "e['rq_size'] > 0" \
		"e['sq_executing'] == 0" "e['ord_used'] == 0" \
		"e['tx_busy'] == 0" "e['tx_again'] == 0" \
		"e['sq_waiting'] == 0" "e['tx_unsent'] == 0"
	lport=$(lport)
	check "$out/qp.iwtcp_b.json" "e.get('iw_state') == 'RTS'" \
		"e['cep_state'] == 'ESTABLISHED'" \
		"e['local'] == '192.0.2.2:$port'" \
		"e['remote'] == '192.0.2.1:$lport'" \
		"e['mpa_rev'] == 2" "e['crc'] == 1" \
		"e['markers_tx'] == 1" "e['markers_rx'] == 0" \
		"e['rtr'] == 'write'" "e['ird'] == 2" "e['ord'] == 1" \
		"e['peer_ird'] == 3" "e['peer_ord'] == 2"
}

# A listener on :: (dual-stack) takes an IPv4 client: the child's
# addresses read as IPv4, as its CM events give them, not ::ffff:a.b.c.d.
dual_stack() {
	local lport

	held :: || return 1
	lport=$(lport)
	check "$out/qp.iwtcp_b.json" "e['cep_state'] == 'ESTABLISHED'" \
		"e['local'] == '192.0.2.2:$port'" \
		"e['remote'] == '192.0.2.1:$lport'"
}

# A raw peer (mpa_evil.py, revision 1, CRC) reads the victim's 4 MiB MR
# and keeps its receive window shut: the victim's QP shows the Read in
# flight (ird_used 1), no RTR and revision 1, and Read Response octets
# TCP could not take (tx_unsent); its CQ armed for the next completion
# with none waiting; its MR (found by the rkey the victim sent, which the
# core shows root) type user, remote read.
read_in_flight() {
	local vpid ppid rc=0 rkey

	victim_settings crc
	next_port
	# the three dumps must fall in the stall (a debug kernel is slow)
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns2" "$VICTIM" \
		192.0.2.2 "$port" $((20 * IWTCP_SLOW)) >"$out/victim" 2>&1 &
	vpid=$!
	wait_listen
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns1" python3 "$PEER" \
		192.0.2.2 "$port" read_stall crc stall=$((6 * IWTCP_SLOW)) \
		>"$out/peer" 2>&1 &
	ppid=$!
	wait_for $((20 * IWTCP_SLOW)) grep -q '^# stalling' "$out/peer" || rc=1
	sleep 1
	res qp iwtcp_b
	res cq iwtcp_b
	res mr iwtcp_b
	wait "$ppid" || true
	wait "$vpid" || true
	show "$out/victim" victim
	defaults
	((rc == 0))
	rkey=$(sed -n 's/^# info sent .* rkey \(0x[0-9a-f]*\) .*/\1/p' "$out/victim")
	[[ -n $rkey ]]
	check "$out/qp.iwtcp_b.json" "e.get('cep_state') == 'ESTABLISHED'" \
		"e['iw_state'] == 'RTS'" "e['state'] == 'RTS'" "e['mpa_rev'] == 1" "e['enhanced'] == 0" \
		"e['crc'] == 1" "e['markers_tx'] == 0" "e['p2p'] == 0" \
		"e['rtr'] == 'none'" "e['ird_used'] == 1" \
		"e['local'] == '192.0.2.2:$port'" \
		"e['remote'].startswith('192.0.2.1:')" \
		"e['tx_unsent'] > 0" "e['sq_waiting'] == 0"
	# the victim waits for an event with nothing left to poll
	check "$out/cq.iwtcp_b.json" "e.get('comm') == 'victim'" \
		"e['armed'] == 'next'" "e['cqes_ready'] == 0" \
		"e['overflowed'] == 0"
	check "$out/mr.iwtcp_b.json" "int(e.get('rkey', '-1'), 16) == $rkey" \
		"e['type'] == 'user'" "e['valid'] == 1" \
		"num(e['access']) & 4 == 4" "'stag' not in e"
}

# The dump against connection teardown: rdma reads every QP's, MR's and
# CQ's entry in a loop while cm_test makes and ends 20 connections; every dump must
# succeed (the kernel log check of run_all.sh catches what KASAN or
# lockdep would say) and after the churn no QP is left.
dump_during_churn() {
	local spid cpid rc=0 dumps=0

	next_port
	timeout 120 ip netns exec "$ns2" "$CM_TEST" server 192.0.2.2 "$port" \
		accept 4 4 20 >"$out/server" 2>&1 &
	spid=$!
	wait_listen
	timeout 120 ip netns exec "$ns1" "$CM_TEST" client 192.0.2.2 "$port" \
		established 4 4 20 >"$out/client" 2>&1 &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		rdma -j -dd resource show qp >/dev/null || rc=1
		rdma -dd resource show mr >/dev/null || rc=1
		rdma -dd resource show cq >/dev/null || rc=1
		dumps=$((dumps + 1))
	done
	wait "$cpid" || rc=1
	wait "$spid" || rc=1
	echo "# $dumps dumps during 20 connections" >&2
	((rc == 0 && dumps > 1))
	wait_for 10 bash -c "! rdma resource show qp | grep -q 'iwtcp_[ab]/'"
}

tests=(connection dual_stack read_in_flight dump_during_churn)

ktap_plan "${#tests[@]}"
setup_two_hosts
ktap_run_timed tests defaults
ktap_finish
