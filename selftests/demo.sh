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
	"$@"
}

setup_two_hosts
show rdma link show
show ibv_devices
show ibv_devinfo -d iwtcp_a
show n1 "$VERBS_OBJECTS" iwtcp_a objects
show n2 "$VERBS_OBJECTS" iwtcp_b rings
show n1 "$VERBS_OBJECTS" iwtcp_a loop 100
show rdma resource show
echo
echo "demo: two iwtcp devices up, verbs objects created and destroyed through libsiw"
