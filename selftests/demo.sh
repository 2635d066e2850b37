#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job of `make demo`, run in the guest: two hosts joined by veth,
# one iwtcp device each, what the RDMA tools see of them, verbs objects
# created on them through the stock libsiw provider, then data moved
# between them: rping (Send, RDMA Read and Write, verified) and bandwidth
# runs of perftest over rdma_cm.

set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

VERBS_OBJECTS=$(dirname "$0")/../.cache/bin/verbs_objects

show() {
	echo
	echo "\$ $*"
	"$@" 2>/dev/null
}

vo() { "$VERBS_OBJECTS" "$@"; }

setup_two_hosts
hosts_no_refusals
show rdma link show
show ibv_devices
show ibv_devinfo -d iwtcp_a
echo
echo "# verbs objects through libsiw (the stock rdma-core provider):"
show vo iwtcp_a objects
show vo iwtcp_b rings
show vo iwtcp_a loop 100
echo
echo "# a process holding one object of each kind, as the RDMA core counts them:"
coproc HOLD { exec "$VERBS_OBJECTS" iwtcp_a hold; }
read -r line <&"${HOLD[0]}"
echo "verbs_objects iwtcp_a hold: $line"
show rdma resource show
eval "exec ${HOLD[1]}>&-"
wait "$HOLD_PID"
show rdma resource show

# Start a server in ns2 and wait until it listens: server PORT COMMAND...
server() {
	local port=$1

	shift
	ip netns exec "$ns2" "$@" >/tmp/demo-server.log 2>&1 &
	srv=$!
	wait_for 10 bash -c "ip netns exec $ns2 ss -ltnH | grep -q ':$port '"
}

echo
echo "# rping: 5 round trips of 4 KiB (Send, RDMA Read, RDMA Write), verified"
server 7201 rping -s -a 192.0.2.2 -p 7201 -C 5 -S 4096 -V
echo
echo "\$ rping -c -a 192.0.2.2 -C 5 -S 4096 -V   # client in ns1, server in ns2"
ip netns exec "$ns1" rping -c -a 192.0.2.2 -p 7201 -C 5 -S 4096 -V &&
	echo "rping: 5 round trips of 4 KiB, every octet verified by both sides"
wait "$srv"

port=7210
for tool in ib_write_bw ib_read_bw ib_send_bw; do
	port=$((port + 1))
	server "$port" "$tool" -R -p "$port" -s 65536 -n 100
	echo
	echo "\$ $tool -R -s 65536 -n 100 192.0.2.2   # client in ns1, server in ns2"
	ip netns exec "$ns1" "$tool" -R -p "$port" -s 65536 -n 100 192.0.2.2 |
		grep -A1 '#bytes'
	wait "$srv"
done
echo
echo "# (the guest is emulated by qemu TCG: absolute numbers say little)"
echo
echo "demo: two iwtcp devices up; verbs objects through libsiw; rping verified; write, read and send bandwidth measured"
