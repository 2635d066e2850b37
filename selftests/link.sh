#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp devices: rdma link add/delete, module autoload, port state that
# follows the netdev, and every refused link. Runs in the guest:
#
#	tools/vm/run --module drivers/infiniband/sw/iwtcp/iwtcp.ko -- selftests/link.sh
#
# Topology: lib.sh's two hosts (veth_a in ns1, veth_b in ns2), one iwtcp
# link each.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0	# the links are created by the cases below
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd ip rdma ibv_devices ibv_devinfo modprobe
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

# Port state and MTU of an iwtcp device as ibv_devinfo reports them.
port_state() { ibv_devinfo -d "$1" | awk '$1 == "state:" { print $2 }'; }
active_mtu() { ibv_devinfo -d "$1" | awk '$1 == "active_mtu:" { print $2 }'; }
state_is() { [[ $(port_state "$1") == "$2" ]]; }
link_exists() { rdma link show "$1/1" >/dev/null 2>&1; }
no_link() { ! link_exists "$1"; }

autoload() {
	modprobe -r iwtcp 2>/dev/null || true
	[[ ! -d /sys/module/iwtcp ]]
	_add_rdma_link "$ns1" iwtcp_a veth_a
	[[ -d /sys/module/iwtcp ]]
	_add_rdma_link "$ns2" iwtcp_b veth_b
}

# The module's load line names the CRC32c driver it took (crc.c): the
# best registered, crc32c-intel on a CPU with SSE 4.2 (with none
# registered, the crypto API loaded all of crc32c's drivers).
crc_driver() {
	local line

	line=$(dmesg | grep -o 'iwtcp: loaded, CRC32c by .*' | tail -n 1) || true
	echo "# ${line:-no load line}"
	[[ -n $line && ${line##* by } == "$(crc32c_best)" ]]
	if grep -qw sse4_2 /proc/cpuinfo; then
		[[ ${line##* by } == crc32c-intel ]]
	fi
}

# Outputs are captured first: with pipefail, `cmd | grep -q` fails when
# grep exits early and cmd dies of SIGPIPE.
listed_as_iwarp() {
	local devices info

	devices=$(ibv_devices)
	info=$(ibv_devinfo -v -d iwtcp_a)
	grep -qw iwtcp_a <<<"$devices"
	grep -qw iwtcp_b <<<"$devices"
	grep -q 'transport:.*iWARP' <<<"$info"
	grep -q 'max_qp_wr:.*4096' <<<"$info"
	# rdma names the netdev only to callers in its namespace
	[[ $(n1 rdma link show iwtcp_a/1) == *"netdev veth_a"* ]]
	[[ $(cat /sys/class/infiniband/iwtcp_a/node_type) == *RNIC* ]]
}

# GID holds the MAC; GUID is derived from it (EUI-48 to EUI-64).
gid_from_mac() {
	local mac gid

	mac=$(ip -n "$ns1" -o link show veth_a | grep -o 'link/ether [0-9a-f:]*')
	mac=${mac#link/ether }
	gid=$(cat /sys/class/infiniband/iwtcp_a/ports/1/gids/0)
	[[ ${gid//:/} == "${mac//:/}"* ]]
}

port_follows_netdev() {
	wait_for 5 state_is iwtcp_a PORT_ACTIVE
	ip1 link set veth_a down
	wait_for 5 state_is iwtcp_a PORT_DOWN
	ip1 link set veth_a up
	wait_for 5 state_is iwtcp_a PORT_ACTIVE
	# Carrier: the peer going down takes veth_a's carrier with it.
	ip2 link set veth_b down
	wait_for 5 state_is iwtcp_a PORT_DOWN
	ip2 link set veth_b up
	wait_for 5 state_is iwtcp_a PORT_ACTIVE
}

mtu_follows_netdev() {
	[[ $(active_mtu iwtcp_a) == 1024 ]]
	ip1 link set veth_a mtu 2100
	[[ $(active_mtu iwtcp_a) == 2048 ]]
	ip1 link set veth_a mtu 4200
	[[ $(active_mtu iwtcp_a) == 4096 ]]
	ip1 link set veth_a mtu 1500
	[[ $(active_mtu iwtcp_a) == 1024 ]]
}

second_link_same_netdev() {
	local err

	err=$(n1 rdma link add iwtcp_c type iwtcp netdev veth_a 2>&1) && return 1
	echo "# $err" >&2
	[[ $err == *"File exists"* ]]
	no_link iwtcp_c
}

# A tunnel has no Ethernet-like link type: no TCP for iWARP over it.
netdev_without_tcp() {
	local err

	modprobe -q ipip || exit "$KSFT_SKIP"
	ip1 link add ipip_t type ipip local 192.0.2.1 remote 192.0.2.2
	err=$(n1 rdma link add iwtcp_t type iwtcp netdev ipip_t 2>&1) && return 1
	echo "# $err" >&2
	[[ $err == *"Protocol not supported"* ]]
	ip1 link del ipip_t
	no_link iwtcp_t
}

add_delete_loop() {
	local i

	for ((i = 0; i < 50; i++)); do
		n1 rdma link delete iwtcp_a 2>/dev/null
		no_link iwtcp_a
		n1 rdma link add iwtcp_a type iwtcp netdev veth_a 2>/dev/null
		link_exists iwtcp_a
	done
	wait_for 5 state_is iwtcp_a PORT_ACTIVE
}

netdev_delete_removes_device() {
	ip1 link add veth_x type veth peer name veth_y
	ip1 link set veth_x up
	ip1 addr add 198.51.100.1/24 dev veth_x
	n1 rdma link add iwtcp_x type iwtcp netdev veth_x
	link_exists iwtcp_x
	ip1 link del veth_x
	wait_for 10 no_link iwtcp_x
}

# iwtcp@.service's own ExecStart and ExecStop (the guest has no systemd),
# the instance a netdev with a "-" in its name, escaped as systemd-escape
# does: %I is the name, and the link iwtcp_<name> comes and goes.
unit_commands() {
	local unit dev=veth-u start stop

	unit=$(dirname "$0")/../tools/systemd/iwtcp@.service
	start=$(sed -n 's/^ExecStart=//p' "$unit")
	# "-": systemd ignores the command's failure
	stop=$(sed -n 's/^ExecStop=-\{0,1\}//p' "$unit")
	[[ -n $start && -n $stop ]]
	grep -qx 'BindsTo=sys-subsystem-net-devices-%i.device' "$unit"
	[[ $(systemd-escape "$dev") == 'veth\x2du' ]]
	ip1 link add "$dev" type veth peer name veth_v
	ip1 link set "$dev" up
	ip1 link set veth_v up
	# shellcheck disable=SC2086 # the unit's command line, split as systemd does
	n1 ${start//%I/$dev}
	link_exists "iwtcp_$dev"
	wait_for 5 state_is "iwtcp_$dev" PORT_ACTIVE
	# shellcheck disable=SC2086
	n1 ${stop//%I/$dev}
	no_link "iwtcp_$dev"
	ip1 link del "$dev"
}

ktap_plan 11
setup_two_hosts
ktap_run "rdma link add autoloads iwtcp" autoload
ktap_run "the module's CRC32c is the best driver there is" crc_driver
ktap_run "ibv_devices/ibv_devinfo show iWARP RNIC devices" listed_as_iwarp
ktap_run "GID carries the netdev MAC" gid_from_mac
ktap_run "port state follows netdev up/down/carrier" port_follows_netdev
ktap_run "active MTU follows netdev MTU" mtu_follows_netdev
ktap_run "second link on one netdev: EEXIST" second_link_same_netdev
ktap_run "netdev without TCP: EPROTONOSUPPORT" netdev_without_tcp
ktap_run "50 link delete/add cycles" add_delete_loop
ktap_run "netdev delete removes its device" netdev_delete_removes_device
ktap_run "iwtcp@.service's commands add and delete the link" unit_commands
ktap_finish
