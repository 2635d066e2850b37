#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peer guest (B) of the interoperability suite (tools/interop): the
# kernel's siw on eth0, driven by guest A (iwtcp, selftests/interop.sh)
# through a command agent on the two guests' private socket network.
#
#	interop_peer.sh serve OUT	boot command: set up, serve until A quits
#	interop_peer.sh COMMAND ...	what the agent runs for guest A:
#
#	use VARIANT		siw build VARIANT (tools/siw) on siw_b
#	bg NAME SECS CMD...	start CMD in the background, killed after SECS
#	wait NAME SECS		its exit status and output (124: still running)
#	listening PORT		wait until something listens on PORT
#	bg_listening NAME SECS PORT CMD...	bg, then listening PORT
#	run SECS CMD...		run CMD, at most SECS seconds
#	kill_all		end every background command
#	res			rdma resource show
#	nfs_server_up PORT CLIENT, nfs_server_down, nfs_sum, nfs_mount
#	SERVER PORT, nfs_write, nfs_read SUM, nfs_umount, nfs_cleanup
#				NFS over RDMA (selftests/interop_nfs.sh)
#	nvme_modules, nvme_target_up PORT ADDR, nvme_target_down,
#	nvme_target_sum, nvme_discover ADDR PORT, nvme_connect ADDR PORT,
#	nvme_io PORT, nvme_reread PORT, nvme_disconnect PORT, nvme_no_qp,
#	nvme_log_mark, nvme_log_clean, nvme_cleanup
#				NVMe over Fabrics (selftests/interop_nvme.sh)
#	iser_modules, iser_target_up PORT ADDR, iser_target_down,
#	iser_target_sum, iser_login ADDR PORT, iser_io PORT, iser_logout
#	ADDR PORT, iser_initiator_down, iser_cleanup
#				iSER (selftests/interop_iser.sh)
#
# Never load iwtcp here: siw and iwtcp must not share a kernel.

set -uo pipefail

ADDR=198.51.100.2	# this guest; guest A is 198.51.100.1
CTL_PORT=5999		# the agent; the suite's connections use 7100-7999
DEV=siw_b
repo=$(cd "$(dirname "$0")/.." && pwd)
run=/run/interop-peer	# the guest's own tmpfs
# shellcheck source-path=SCRIPTDIR source=wait_for.sh
source "$repo/selftests/wait_for.sh"
# shellcheck source-path=SCRIPTDIR source=interop_nfs.sh
source "$repo/selftests/interop_nfs.sh"
# shellcheck source-path=SCRIPTDIR source=interop_nvme.sh
source "$repo/selftests/interop_nvme.sh"
# shellcheck source-path=SCRIPTDIR source=interop_iser.sh
source "$repo/selftests/interop_iser.sh"

die() {
	echo "interop_peer: $*" >&2
	exit 1
}

port_active() {
	rdma link show "$DEV/1" 2>/dev/null | grep -q 'state ACTIVE'
}

wait_active() {
	local i

	for ((i = 0; i < 100; i++)); do
		port_active && return 0
		sleep 0.1
	done
	die "$DEV/1 not ACTIVE"
}

loaded_variant() {
	[[ -d /sys/module/siw ]] || { echo none; return; }
	cat /sys/module/siw/version 2>/dev/null || echo stock
}

# use VARIANT: reload siw as that build, with its CM debug messages on.
use() {
	local v=$1 ko

	[[ $(loaded_variant) == "$v" ]] && return 0
	kill_all
	rdma link delete "$DEV" 2>/dev/null
	if [[ -d /sys/module/siw ]]; then
		rmmod siw || die "rmmod siw failed"
	fi
	if [[ $v == stock ]]; then
		modprobe siw || die "modprobe siw failed"
	else
		ko=$repo/.cache/siw/$v/siw.ko
		[[ -f $ko ]] || die "no $ko (tools/siw $v)"
		modprobe -a ib_core ib_uverbs libcrc32c
		insmod "$ko" || die "insmod $ko failed"
	fi
	[[ $(loaded_variant) == "$v" ]] || die "loaded $(loaded_variant), not $v"
	echo "file siw_cm.c +p" >/sys/kernel/debug/dynamic_debug/control
	rdma link add "$DEV" type siw netdev eth0 || die "rdma link add failed"
	wait_active
	echo "siw $v on $DEV"
}

bg() {
	local name=$1 secs=$2

	shift 2
	mkdir -p "$run"
	rm -f "$run/$name".{rc,log,pid}
	# shellcheck disable=SC2016 # expanded by the inner bash
	setsid bash -c 'echo $$ >"$1.pid"; shift; timeout "$@"; echo $? >"$0.rc"' \
		"$run/$name" "$run/$name" "$secs" "$@" \
		>"$run/$name.log" 2>&1 </dev/null &
}

# wait NAME SECS: the command's status (124 if it is still running then).
wait_bg() {
	local name=$1 secs=$2 deadline

	deadline=$((SECONDS + secs))
	while [[ ! -s $run/$name.rc ]] && ((SECONDS < deadline)); do
		sleep 0.2
	done
	cat "$run/$name.log" 2>/dev/null
	if [[ ! -s $run/$name.rc ]]; then
		kill -- "-$(cat "$run/$name.pid")" 2>/dev/null
		return 124
	fi
	return "$(cat "$run/$name.rc")"
}

kill_all() {
	local p

	for p in "$run"/*.pid; do
		[[ -e $p ]] || continue
		kill -- "-$(cat "$p")" 2>/dev/null
		rm -f "$p"
	done
	return 0
}

listening() {
	local i

	for ((i = 0; i < 200; i++)); do
		ss -ltnH | grep -q ":$1 " && return 0
		sleep 0.1
	done
	echo "interop_peer: nothing listens on port $1" >&2
	return 1
}

serve() {
	local out=$1 rc

	modprobe virtio_net || die "no virtio_net"
	for ((i = 0; i < 100; i++)); do
		[[ -e /sys/class/net/eth0 ]] && break
		sleep 0.1
	done
	ip addr add "$ADDR/24" dev eth0 || die "no eth0"
	ip link set eth0 up
	use stock || exit 1
	python3 "$repo/selftests/interop_agent.py" "$ADDR" "$CTL_PORT" \
		"$repo/selftests/interop_peer.sh" 900
	rc=$?
	kill_all
	nfs_cleanup >/dev/null 2>&1
	nvme_cleanup >/dev/null 2>&1
	iser_cleanup >/dev/null 2>&1
	rdma resource show >"$out/peer-resources.txt" 2>&1
	rdma link delete "$DEV"
	return "$rc"
}

cmd=${1:-}
shift
case $cmd in
serve) serve "$@" ;;
use) use "$@" ;;
bg) bg "$@" ;;
wait) wait_bg "$@" ;;
listening) listening "$@" ;;
bg_listening)
	name=$1 secs=$2 port=$3
	shift 3
	bg "$name" "$secs" "$@"
	listening "$port" ;;
run) secs=$1; shift; timeout "$secs" "$@" ;;
kill_all) kill_all ;;
res) rdma resource show ;;
# set -e: each of these stops at its first failed step.
nfs_server_up|nfs_server_down|nfs_sum|nfs_mount|nfs_write|nfs_read|nfs_umount|nfs_cleanup)
	(set -e; "$cmd" "$@") ;;
nvme_modules|nvme_target_up|nvme_target_down|nvme_target_sum|nvme_discover|\
nvme_connect|nvme_io|nvme_reread|nvme_disconnect|nvme_no_qp|nvme_log_mark|\
nvme_log_clean|nvme_cleanup)
	(set -e; "$cmd" "$@") ;;
iser_modules|iser_target_up|iser_target_down|iser_target_sum|iser_login|\
iser_io|iser_logout|iser_initiator_down|iser_cleanup)
	(set -e; "$cmd" "$@") ;;
*) die "unknown command '$cmd'" ;;
esac
