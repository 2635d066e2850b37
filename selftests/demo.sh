#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job of `make demo`, run in the guest: two hosts joined by veth,
# one iwtcp device each, what the RDMA tools see of them, and verbs
# objects created on them through the stock libsiw provider.

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
echo
echo "demo: two iwtcp devices up; PD, CQ, SRQ, QPs and MRs created, used and destroyed through libsiw"
