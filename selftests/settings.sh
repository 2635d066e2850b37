#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-device MPA settings under /sys/class/infiniband/<dev>/: defaults,
# every valid value read back, invalid values and inconsistent sets
# refused with EINVAL, module parameters as defaults of new devices.
# Runs in the guest.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd rdma modprobe
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

sys=/sys/class/infiniband/iwtcp_a

get() { cat "$sys/$1"; }
# put FILE VALUE: the write must succeed and read back as VALUE (or $3)
put() {
	echo "$2" >"$sys/$1"
	[[ $(get "$1") == "${3:-$2}" ]]
}
# refuse FILE VALUE: the write must fail and leave the file unchanged
refuse() {
	local before

	before=$(get "$1")
	! (echo "$2" >"$sys/$1") 2>/dev/null || return 1
	[[ $(get "$1") == "$before" ]]
}

defaults() {
	[[ $(get mpa_revision) == 2 ]]
	[[ $(get mpa_enhanced) == 1 ]]
	[[ $(get mpa_crc) == on ]]
	[[ $(get mpa_markers) == on ]]
	[[ $(get mpa_p2p) == 1 ]]
	[[ $(get mpa_rtr) == "send write read" ]]
	[[ $(get mpa_ird) == 128 ]]
	[[ $(get mpa_ord) == 128 ]]
	[[ $(get mpa_large_fpdu) == 0 ]]
}

valid_values() {
	local v

	for v in off required on; do put mpa_crc "$v"; done
	for v in off required on; do put mpa_markers "$v"; done
	put mpa_rtr write write
	put mpa_rtr "read,send" "send read"
	put mpa_rtr "send write read"
	put mpa_ird 0
	put mpa_ird 128
	put mpa_ord 1
	put mpa_ord 128
	put mpa_large_fpdu 1
	put mpa_large_fpdu 0
}

invalid_values() {
	refuse mpa_crc maybe
	refuse mpa_markers 2
	refuse mpa_revision 3
	refuse mpa_revision 0
	refuse mpa_ird 129
	refuse mpa_ord -1
	refuse mpa_rtr atomic
	refuse mpa_p2p maybe
	refuse mpa_large_fpdu maybe
}

# RFC 6581: the enhanced word needs revision 2 and an RTR type; the
# peer-to-peer model needs the enhanced word.
consistency() {
	refuse mpa_revision 1
	refuse mpa_enhanced 0
	refuse mpa_rtr ""
	put mpa_p2p 0
	put mpa_enhanced 0
	put mpa_revision 1
	refuse mpa_enhanced 1
	put mpa_revision 2
	put mpa_enhanced 1
	put mpa_p2p 1
}

# Settings are per device: iwtcp_b keeps its own.
per_device() {
	put mpa_crc off
	[[ $(cat /sys/class/infiniband/iwtcp_b/mpa_crc) == on ]]
	put mpa_crc on
}

module_defaults() {
	n1 rdma link delete iwtcp_a
	n2 rdma link delete iwtcp_b
	modprobe -r iwtcp
	modprobe iwtcp mpa_crc=required mpa_rtr=read mpa_ord=4
	n1 rdma link add iwtcp_a type iwtcp netdev veth_a
	[[ $(get mpa_crc) == required ]]
	[[ $(get mpa_rtr) == read ]]
	[[ $(get mpa_ord) == 4 ]]
	[[ $(cat /sys/module/iwtcp/parameters/mpa_crc) == required ]]
	# A parameter changed later applies to devices created later only.
	echo off >/sys/module/iwtcp/parameters/mpa_crc
	[[ $(get mpa_crc) == required ]]
	n2 rdma link add iwtcp_b type iwtcp netdev veth_b
	[[ $(cat /sys/class/infiniband/iwtcp_b/mpa_crc) == off ]]
}

bad_module_parameter() {
	n1 rdma link delete iwtcp_a
	n2 rdma link delete iwtcp_b
	modprobe -r iwtcp
	! modprobe iwtcp mpa_crc=sometimes 2>/dev/null || return 1
	[[ ! -d /sys/module/iwtcp ]]
	# An inconsistent set is refused when a device is created.
	modprobe iwtcp mpa_revision=1
	! n1 rdma link add iwtcp_a type iwtcp netdev veth_a 2>/dev/null || return 1
	modprobe -r iwtcp
	modprobe iwtcp
	n1 rdma link add iwtcp_a type iwtcp netdev veth_a
	n2 rdma link add iwtcp_b type iwtcp netdev veth_b
}

ktap_plan 7
setup_two_hosts
ktap_run "defaults: rev 2, enhanced, CRC on, markers on, p2p, all RTRs" defaults
ktap_run "every valid value reads back" valid_values
ktap_run "invalid values: EINVAL, nothing changed" invalid_values
ktap_run "inconsistent sets refused (RFC 6581 6, 9.2)" consistency
ktap_run "settings are per device" per_device
ktap_run "module parameters are the defaults of new devices" module_defaults
ktap_run "bad module parameters refused" bad_module_parameter
ktap_finish
