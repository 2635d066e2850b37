#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel verbs data path between two iwtcp devices, as kernel ULPs use
# it: iwtcp_kdata.ko (selftests/kverbs/) connects a kernel rdma_cm client in
# $ns1 to a kernel server in $ns2 and moves data; its checks are reported
# here, one TAP line each, from the kernel log. Runs in the guest.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# IWTCP_KVERBS_DIR: a build for another kernel (make check-debug).
KO=${IWTCP_KVERBS_DIR:-$(dirname "$0")/kverbs}/iwtcp_kdata.ko

require_cmd insmod rmmod dmesg rdma
[[ -f $KO ]] || ktap_skip_all "$KO not built (make selftests)"
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"
require_module rdma_cm

echo "TAP version 13"
setup_two_hosts
# The module finds each namespace through a process living in it.
# ip netns exec enters the namespace and execs sleep: $! becomes the sleep.
ip netns exec "$ns1" sleep 600 &
pid1=$!
track_pid "$pid1"
ip netns exec "$ns2" sleep 600 &
pid2=$!
track_pid "$pid2"
in_ns() {
	[[ $(readlink "/proc/$1/ns/net") == \
		"$(ip netns exec "$2" readlink /proc/self/ns/net)" ]]
}
wait_for 10 in_ns "$pid1" "$ns1"
wait_for 10 in_ns "$pid2" "$ns2"
counter() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
declare -A before
for d in iwtcp_a iwtcp_b; do
	for t in tx_fpdus tx_inline_fpdus; do
		before[$d.$t]=$(counter "$d" "$t")
	done
done
rc=0
ctl=/sys/module/iwtcp_kdata/parameters/ctl
# Each step runs in the namespace where its socket must live (the listener
# in ns2, the client's connect in ns1); the load itself checks a listener
# set up from the initial namespace, as a kernel ULP may.
if insmod "$KO" ns1_pid="$pid1" ns2_pid="$pid2"; then
	n2 sh -c "echo listen >$ctl" || rc=1
	n1 sh -c "echo run >$ctl" || rc=1
else
	rc=1
fi
rmmod iwtcp_kdata 2>/dev/null || true
lines=$(dmesg | sed -n 's/.*iwtcp_kdata: \(\(not \)\{0,1\}ok [0-9]* .*\)/\1/p')
[[ -n $lines ]] || ktap_fail "iwtcp_kdata reported no check (insmod status $rc)"
while IFS= read -r line; do
	[[ -n $line ]] || continue
	name=${line#* ok }
	name=${name#ok }
	name=${name#* }
	if [[ $line == "not ok "* ]]; then ktap_fail "$name"; else ktap_ok "$name"; fi
done <<<"$lines"
# The module's diagnostics, for the log.
dmesg | sed -n 's/.*iwtcp_kdata: \(# .*\)/\1/p' >&2
ktap_run "module status matches the checks" test "$rc" = "$((_ktap_fail ? 1 : 0))"
# Kernel post_send writes FPDUs inline when the transmitter is idle (qp_tx.c,
# DOC: Transmit); the worker writes the rest.
inline_fpdus() {
	local d all inl

	for d in iwtcp_a iwtcp_b; do
		all=$(($(counter "$d" tx_fpdus) - before[$d.tx_fpdus]))
		inl=$(($(counter "$d" tx_inline_fpdus) - before[$d.tx_inline_fpdus]))
		echo "# $d: $inl of $all FPDUs written inline" >&2
		((inl > 0 && inl <= all)) || return 1
	done
}
ktap_run "both sides wrote FPDUs inline from post_send" inline_fpdus
unloaded() { ! grep -q '^iwtcp_kdata ' /proc/modules; }
ktap_run "iwtcp_kdata unloaded" unloaded
no_resources() {
	local dev ns

	for dev in iwtcp_a iwtcp_b; do
		ns=$ns1
		[[ $dev == iwtcp_b ]] && ns=$ns2
		[[ $(ip netns exec "$ns" rdma resource show "$dev") == *" pd 0 cq 0 qp 0 "* ]] || return 1
	done
}
ktap_run "no resources left on iwtcp_a and iwtcp_b" no_resources
echo "1..$_ktap_count"
ktap_finish
