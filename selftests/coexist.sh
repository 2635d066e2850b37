#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp unloads without touching the kernel's siw. The two drivers carry
# the same driver id (the siw user ABI); the project never loads them
# together except here, where that is the point: iwtcp loaded with a
# device of its own, then siw, two siw devices created, then iwtcp
# unloaded. iwtcp's device must go and siw's survive and still serve a
# verified rping (an iwtcp that unregistered devices by driver id would
# take them down too). Needs siw.ko in the guest (tools/check passes
# tools/siw's build as a --module); modprobe --ignore-install loads it
# even where make install's modprobe.d file keeps siw away.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0
IFINDEX_GAP=1	# siw's wildcard listens collide on equal interface indexes
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd rdma modprobe rping
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"
modinfo siw >/dev/null 2>&1 || ktap_skip_all "module siw not installed"

out=$(mktemp -d)
ports_from 7400

no_iwtcp_device() {
	local link

	for link in $(rdma link show | awk '{ print $2 }' | cut -d/ -f1); do
		[[ $(cat "/sys/class/infiniband/$link/node_desc") != iwtcp* ]] ||
			{ echo "# iwtcp link $link left by an earlier suite" >&2; return 1; }
	done
}

load_iwtcp_then_siw() {
	no_iwtcp_device
	modprobe iwtcp
	ip1 link add veth_c type veth peer name veth_d
	n1 rdma link add iwtcp_c type iwtcp netdev veth_c
	_created_links+=("$ns1 iwtcp_c")
	modprobe --ignore-install siw
	[[ -d /sys/module/iwtcp && -d /sys/module/siw ]]
	rdma link show iwtcp_c/1 >&2
}

siw_devices() {
	n1 rdma link add siw_a type siw netdev "$dev_a"
	_created_links+=("$ns1 siw_a")
	n2 rdma link add siw_b type siw netdev "$dev_b"
	_created_links+=("$ns2 siw_b")
	rdma link show siw_a/1 && rdma link show siw_b/1
}

# An iwtcp link now is refused: a siw device exists (EBUSY).
iwtcp_refuses_links() {
	local err

	ip1 link add veth_w type veth peer name veth_z
	err=$(n1 rdma link add iwtcp_w type iwtcp netdev veth_w 2>&1) && return 1
	echo "# $err" >&2
	ip1 link del veth_w
	[[ $err == *"busy"* ]]
}

unload_iwtcp() {
	modprobe -r iwtcp
	[[ ! -d /sys/module/iwtcp ]]
	if rdma link show iwtcp_c/1 2>/dev/null; then return 1; fi
	_created_links=("$ns1 siw_a" "$ns2 siw_b")
	ip1 link del veth_c
}

siw_survives() {
	rdma link show siw_a/1 >&2
	rdma link show siw_b/1 >&2
}

siw_serves_rping() {
	next_port
	timeout 120 ip netns exec "$ns2" rping -s -a 192.0.2.2 -p "$port" \
		-C 20 -S 4096 -V >"$out/rping_s" 2>&1 &
	local server=$!

	wait_listen
	timeout 120 ip netns exec "$ns1" rping -c -a 192.0.2.2 -p "$port" \
		-C 20 -S 4096 -V
	wait "$server" || { show_log server "$out/rping_s"; return 1; }
}

unload_siw() {
	n1 rdma link delete siw_a
	n2 rdma link delete siw_b
	_created_links=()
	modprobe -r siw
	[[ ! -d /sys/module/siw ]]
}

ktap_plan 7
setup_two_hosts
ktap_run "iwtcp loaded with a device, then siw" load_iwtcp_then_siw
ktap_run "two siw devices created beside iwtcp" siw_devices
ktap_run "iwtcp refuses a link while siw devices exist (EBUSY)" iwtcp_refuses_links
ktap_run "modprobe -r iwtcp removes its device, siw's present" unload_iwtcp
ktap_run "the siw devices survive iwtcp's unload" siw_survives
ktap_run "and serve rping -V" siw_serves_rping
ktap_run "siw unloads after" unload_siw
rm -rf "$out"
ktap_finish
