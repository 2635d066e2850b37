#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verbs objects on an iwtcp device through the stock libsiw provider:
# create, check, destroy, 1000 times; shared rings; CQ arming; limits;
# netdev down/up/delete while a process holds objects. Runs in the guest:
#
#	tools/vm/run --module drivers/infiniband/sw/iwtcp/iwtcp.ko -- selftests/verbs.sh
#
# Topology: lib.sh's two hosts, iwtcp_a on veth_a in ns1.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

VERBS_OBJECTS=${VERBS_OBJECTS:-$(dirname "$0")/../.cache/bin/verbs_objects}

require_cmd ip rdma modprobe
[[ -x $VERBS_OBJECTS ]] || ktap_skip_all "$VERBS_OBJECTS not built (make -C selftests)"
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

vo() { n1 "$VERBS_OBJECTS" iwtcp_a "$@"; }

# Sum of every object count `rdma resource show` gives for a device.
resource_total() {
	rdma resource show | awk -v dev="$1:" '
		$2 == dev { for (i = 3; i < NF; i += 2) sum += $(i + 1) }
		END { print sum + 0 }'
}

resources_zero() { [[ $(resource_total iwtcp_a) == 0 ]]; }

hold_pid=
hold_fifo=
hold_rc=

# A process that holds one object of each kind until its stdin closes.
# Started by the main shell (not in a case's subshell) so that later
# cases can see and stop it.
start_holder() {
	hold_fifo=$(mktemp -u)
	mkfifo "$hold_fifo"
	n1 "$VERBS_OBJECTS" iwtcp_a hold fatal <"$hold_fifo" >"$hold_fifo.out" &
	hold_pid=$!
	track_pid "$hold_pid"
	exec 7>"$hold_fifo"
}

holder_ready() {
	wait_for 10 grep -q holding "$hold_fifo.out"
	(($(resource_total iwtcp_a) > 0))
}

holder_survives_down_up() {
	ip1 link set veth_a down
	ip1 link set veth_a up
	kill -0 "$hold_pid"
	(($(resource_total iwtcp_a) > 0))
	# Still a working device: a second process creates and destroys.
	vo objects
}

no_device() { [[ ! -e /sys/class/infiniband/iwtcp_a ]]; }

# The netdev goes away while a process holds objects: the device is
# unregistered at once, the holder sees DEVICE_FATAL and exits 0.
netdev_delete_with_objects() {
	ip1 link del veth_a
	wait_for 20 no_device
}

# In the main shell: close the holder's stdin and collect its status.
stop_holder() {
	exec 7>&-
	hold_rc=0
	wait "$hold_pid" || hold_rc=$?
	hold_pid=
}

test_cleanup() { [[ -z $hold_pid ]] || kill "$hold_pid" 2>/dev/null; }

CM_QPN=$(dirname "$VERBS_OBJECTS")/cm_qpn

ktap_plan 14
setup_two_hosts
ktap_run "device attributes through libsiw" vo devinfo
ktap_run "PD, CQ, SRQ, QP, MR: create, check, destroy" vo objects
ktap_run "SQ/RQ rings flushed on ERR, doorbell in ERR" vo rings
ktap_run "armed CQ delivers a completion event" vo cqarm
ktap_run "above advertised limits: EINVAL; past count limits: ENOSPC" vo limits
ktap_run "CQ overflow: one IBV_EVENT_CQ_ERR" vo overflow
ktap_run "rdma_connect: own QP only, lookup safe against destroy" \
	n1 "$CM_QPN" 192.0.2.2 10
ktap_run "1000 create/destroy cycles" vo loop 1000
ktap_run "rdma resource counts back to zero" resources_zero
start_holder
ktap_run "a process holds objects" holder_ready
ktap_run "netdev down/up while objects exist" holder_survives_down_up
ktap_run "netdev delete while objects exist" netdev_delete_with_objects
stop_holder
ktap_run "holder got IBV_EVENT_DEVICE_FATAL and exited 0" test "$hold_rc" = 0
ktap_run "no resources left after the device went away" \
	bash -c '! rdma resource show | grep -q iwtcp_a'
ktap_finish
