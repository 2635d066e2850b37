#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interoperability of iwtcp with the kernel's siw, guest A's side (see
# tools/interop, which boots this guest with iwtcp and guest B with siw,
# joined by a qemu socket network on the host's loopback):
#
#	selftests/interop.sh OUT
#
# ┌──────────────────────────────┐   qemu socket   ┌──────────────────────────────┐
# │ guest A: iwtcp (this script) │     network     │ guest B: siw                 │
# │ rdma link iwtcp_a on eth0    ├─────────────────┤ rdma link siw_b on eth0      │
# │ 198.51.100.1/24              │ 127.0.0.1:PORT  │ 198.51.100.2/24              │
# │ dumpcap on eth0              │                 │ selftests/interop_peer.sh    │
# └──────────────────────────────┘                 └──────────────────────────────┘
#
# This script drives both: guest B runs what it asks through a command
# agent (selftests/interop_agent.py, port 5999). Each case is one
# connection scenario, in one direction (iwtcp initiates: "iwtcp>siw",
# siw initiates: "siw>iwtcp"), with one siw build (tools/siw: siw has no
# run-time settings) and iwtcp settings (sysfs), one tool, on a port of
# its own (7100 and up). A case passes when the tools end as expected,
# iwtcp logged the expected line, and iwtcp holds no resource afterwards
# (rdma resource show all 0, every CEP created also destroyed).
#
# OUT gets: cases.tsv (one line per case: port, name, expected wire
# values for the judge, tools/interop_judge.py, which reads the capture
# on the host), capture.pcapng (every packet of ports 7100-7999 on eth0)
# and dumpcap.log. TAP on stdout, commands and tool output on stderr.
#
# Environment: INTEROP_ONLY (an extended regex: only the cases whose
# name matches), INTEROP_REPEAT=N (each case N times), INTEROP_SIW_CRASH=1 (add the case that crashes siw's
# guest, last).

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=interop_nfs.sh
source "$(dirname "$0")/interop_nfs.sh"
# shellcheck source-path=SCRIPTDIR source=interop_nvme.sh
source "$(dirname "$0")/interop_nvme.sh"
# shellcheck source-path=SCRIPTDIR source=interop_iser.sh
source "$(dirname "$0")/interop_iser.sh"

out=${1:?usage: interop.sh OUT}
ADDR_A=198.51.100.1
ADDR_B=198.51.100.2
CTL_PORT=5999
DEV=iwtcp_a
sys=/sys/class/infiniband/$DEV
bin=$(cd "$(dirname "$0")/.." && pwd)/.cache/bin
run=/run/interop
cases=$out/cases.tsv
peer_sh=$(cd "$(dirname "$0")" && pwd)/interop_peer.sh
port=7100

require_cmd rdma dumpcap rping ucmatose ib_send_bw ib_write_bw ib_read_bw \
	ib_send_lat ib_write_lat ib_read_lat timeout ss
[[ -x $bin/dp_test && -x $bin/cm_test && -e $bin/late_listen.so ]] ||
	ktap_skip_all "$bin/dp_test, cm_test or late_listen.so not built (make selftests)"
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

# --- guest B ------------------------------------------------------------------

# peer COMMAND ARGS...: run selftests/interop_peer.sh COMMAND in guest B;
# its output on stdout, its exit status as ours (125: no agent).
peer() {
	local fd line rc=125

	exec {fd}<>"/dev/tcp/$ADDR_B/$CTL_PORT" || return 125
	printf '%q ' "$@" >&"$fd"
	printf '\n' >&"$fd"
	while IFS= read -r line <&"$fd"; do
		case $line in
		"@@rc "*) rc=${line#@@rc } ;;
		*) echo "$line" ;;
		esac
	done
	exec {fd}>&-
	return "$rc"
}

# --- set-up -------------------------------------------------------------------

port_active() {
	rdma link show "$DEV/1" | grep -q 'state ACTIVE'
}

capturing() {
	[[ -s $run/capture.pcapng ]]
}

setup() {
	mkdir -p "$run"
	: >"$cases"
	modprobe virtio_net
	wait_for 10 test -e /sys/class/net/eth0
	ip addr add "$ADDR_A/24" dev eth0
	ip link set eth0 up
	# Every CEP iwtcp creates logs "created" and "destroyed".
	echo "options iwtcp dyndbg=+p" >/etc/modprobe.d/iwtcp-interop.conf
	modprobe iwtcp
	rdma link add "$DEV" type iwtcp netdev eth0
	wait_for 10 port_active
	# NFS's modules take seconds to load: here while guest B boots, there
	# in the background while the other cases run.
	((!need_nfs)) || modprobe -a "${NFS_MODULES[@]}"
	((!need_nvme)) || nvme_modules
	((!need_iser)) || iser_modules
	# Guest B boots at the same time; its agent answers when it is ready.
	wait_for 240 peer res
	# perftest's second listen (see no_refusals in lib.sh)
	no_refusals eth0 tc
	no_refusals eth0 peer run 10 tc
	((!need_nfs)) || peer bg nfs_modules 600 modprobe -a "${NFS_MODULES[@]}"
	((!need_nvme)) || peer bg nvme_modules 600 "$peer_sh" nvme_modules
	((!need_iser)) || peer bg iser_modules 600 "$peer_sh" iser_modules
	# A buffer for all of a case: under TCG, dumpcap falls behind.
	dumpcap -q -i eth0 -f "tcp portrange 7100-7999" -B 256 \
		-w "$run/capture.pcapng" 2>"$out/dumpcap.log" &
	dumpcap_pid=$!
	wait_for 60 capturing
}

test_cleanup() {
	nfs_cleanup >/dev/null 2>&1
	nvme_cleanup >/dev/null 2>&1
	iser_cleanup >/dev/null 2>&1
	peer kill_all >/dev/null 2>&1
	if [[ -n ${dumpcap_pid:-} ]]; then
		kill -INT "$dumpcap_pid" 2>/dev/null
		wait "$dumpcap_pid" 2>/dev/null
		cp "$run/capture.pcapng" "$out/capture.pcapng"
	fi
	peer quit >/dev/null 2>&1
	rdma link delete "$DEV" 2>/dev/null
}

# --- iwtcp settings ------------------------------------------------------------

# The defaults, in an order every state can reach them from.
iwtcp_defaults() {
	echo 2 >"$sys/mpa_revision"
	echo 1 >"$sys/mpa_enhanced"
	echo 1 >"$sys/mpa_p2p"
	echo "send write read" >"$sys/mpa_rtr"
	echo on >"$sys/mpa_crc"
	echo on >"$sys/mpa_markers"
	echo 128 >"$sys/mpa_ird"
	echo 128 >"$sys/mpa_ord"
}

# iwtcp_set "FILE=VALUE ..." (files without mpa_, applied in order;
# "default" or "" for none). A comma stands for a space in a value.
iwtcp_set() {
	local kv

	for kv in $1; do
		[[ $kv == default ]] && continue
		echo "${kv#*=}" | tr , ' ' >"$sys/mpa_${kv%%=*}"
	done
}

# --- tools ----------------------------------------------------------------------

# tool_cmds TOOL SERVER_ADDR: the server and client command lines, in
# srv=() and cli=(). cm_test takes its arguments in the tool name:
# cm:SERVER_MODE:IRD:ORD:CLIENT_EXPECT:IRD:ORD.
tool_cmds() {
	local t=$1 a=$2 f

	case $t in
	rping)
		srv=(rping -s -a "$a" -p "$port" -C 3 -S 1000 -V)
		cli=(rping -c -a "$a" -p "$port" -C 3 -S 1000 -V) ;;
	ucmatose)
		srv=(ucmatose -b "$a" -p "$port" -C 10 -S 4000)
		cli=(ucmatose -s "$a" -p "$port" -C 10 -S 4000) ;;
	# -F: see perf() in data.sh (perftest's clock check under load)
	ib_*_bw)
		srv=("$t" -F -R -p "$port" -s 65536 -n 20)
		cli=("${srv[@]}" "$a") ;;
	ib_*_lat)
		srv=("$t" -F -R -p "$port" -s 64 -n 20)
		cli=("${srv[@]}" "$a") ;;
	# the server listens for the data QP 2.5 s late (late_listen.c)
	ib_*_lat:late)
		srv=("${t%:late}" -F -R -p "$port" -s 64 -n 20)
		cli=("${srv[@]}" "$a")
		srv=(env LD_PRELOAD="$bin/late_listen.so" "${srv[@]}") ;;
	dp_test)
		srv=("$bin/dp_test" server "$a" "$port" integrity)
		cli=("$bin/dp_test" client "$a" "$port" integrity) ;;
	cm:*)
		IFS=: read -r -a f <<<"$t"
		srv=("$bin/cm_test" server "$a" "$port" "${f[1]}" "${f[2]}" "${f[3]}")
		cli=("$bin/cm_test" client "$a" "$port" "${f[4]}" "${f[5]}" "${f[6]}") ;;
	*) echo "# unknown tool $t" >&2; return 1 ;;
	esac
}

tool_label() {
	local f

	case $1 in
	rping) echo "rping -V" ;;
	*:late) echo "${1%:late}, server listening late" ;;
	cm:*)
		IFS=: read -r -a f <<<"$1"
		echo "cm_test IRD/ORD ${f[5]}/${f[6]} to ${f[2]}/${f[3]}, ${f[4]}" ;;
	nfs) echo "nfs (NFSv4.2 over RDMA, $NFS_SIZE file)" ;;
	nvme) echo "nvme (NVMe-oF over RDMA, $NVME_SIZE written)" ;;
	iser) echo "iser (iSCSI over iSER, $ISER_SIZE written)" ;;
	*) echo "$1" ;;
	esac
}

listening_here() {
	ss -ltnH | grep -q ":$port "
}

# --- checks ---------------------------------------------------------------------

no_resources() {
	rdma resource show | grep -q "$DEV: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0"
}

# Every CEP iwtcp logged as created it logged as destroyed.
ceps_balanced() {
	local log

	log=$(dmesg)
	[[ $(grep -oE 'CEP [0-9]+ created' <<<"$log" | sed 's/ created//' | sort) == \
	   "$(grep -oE 'CEP [0-9]+ destroyed' <<<"$log" | sed 's/ destroyed//' | sort)" ]]
}

# --- one case -------------------------------------------------------------------

# The rdma resource counts of iwtcp's device: "pd 0 cq 0 qp 0 cm_id 0 ...".
iwtcp_res() {
	rdma resource show | sed -n "s/^[0-9]*: $DEV: \(.*[^ ]\) *$/\1/p"
}

res_is() {
	[[ $(iwtcp_res) == "$1" ]]
}

qps() {
	rdma resource show qp | grep -c "^link $DEV/" || true
}

# cmd_out COMMAND...: its output but the last line on stderr, the last
# line on stdout (peer merges a command's stderr into its stdout).
cmd_out() {
	local o rc

	# set -e: a command substitution does not inherit it.
	o=$(set -e; "$@")
	rc=$?
	[[ $o != *$'\n'* ]] || sed '$d' <<<"$o" >&2
	echo "${o##*$'\n'}"
	return "$rc"
}

nfs_abort() {
	echo "# NFS case failed: cleaning up" >&2
	peer nfs_cleanup >&2
	nfs_cleanup
}

# nfs_run DIR: NFSv4.2 over RDMA on the case's port, the NFS client
# initiating: for iwtcp>siw this guest mounts guest B's export, for
# siw>iwtcp guest B mounts this guest's. The client writes a file of
# random data (the server must have the same SHA-256), drops its page
# cache and reads the file back over the wire (the same SHA-256), and
# unmounts: iwtcp then holds again what it held with the server idle
# (nothing, or the server's listeners). The server stops at the end;
# case_run then checks that iwtcp holds nothing at all.
nfs_run() {
	local srv_do cli_do srv_addr cli_addr idle sum

	if [[ $1 == "iwtcp>siw" ]]; then
		srv_do=(peer) cli_do=() srv_addr=$ADDR_B cli_addr=$ADDR_A
	else
		srv_do=() cli_do=(peer) srv_addr=$ADDR_A cli_addr=$ADDR_B
	fi
	trap nfs_abort EXIT
	"${srv_do[@]}" nfs_server_up "$port" "$cli_addr" >&2
	idle=$(iwtcp_res)
	echo "# iwtcp, server idle: $idle" >&2
	[[ $idle == "pd 0 cq 0 qp 0 cm_id "*" mr 0 ctx 0 srq 0" ]]
	"${cli_do[@]}" nfs_mount "$srv_addr" "$port" >&2
	# The transport's QP is on iwtcp's device.
	(($(qps) >= 1))
	sum=$(cmd_out "${cli_do[@]}" nfs_write)
	[[ $sum =~ ^[0-9a-f]{64}$ ]]
	[[ $(cmd_out "${srv_do[@]}" nfs_sum) == "$sum" ]]
	echo "# the server has the file: $sum" >&2
	"${cli_do[@]}" nfs_read "$sum" >&2
	"${cli_do[@]}" nfs_umount >&2
	wait_for 30 res_is "$idle" || { iwtcp_res >&2; false; }
	echo "# $(cut -d' ' -f1 /proc/uptime) iwtcp holds what it held before" >&2
	"${srv_do[@]}" nfs_server_down >&2
	trap - EXIT
}

_no_cq() {
	sed 's/ cq [0-9]*//'
}

# res_but_cq RES: iwtcp's resource counts are RES, but for the CQs.
res_but_cq() {
	[[ $(iwtcp_res | _no_cq) == "$(_no_cq <<<"$1")" ]]
}

# iwtcp_relink: iwtcp's device unregistered and added again. The kernel
# keeps the CQs its ULPs took from the device's shared pool
# (ib_cq_pool_get: nvme-rdma, nvmet-rdma) until the device goes.
iwtcp_relink() {
	rdma link delete "$DEV"
	rdma link add "$DEV" type iwtcp netdev eth0
	wait_for 10 port_active
}

# ulp_roles DIR: for a kernel ULP case, who runs the target (tgt_do, a
# command prefix: "peer" for guest B, nothing for this guest) on which
# address (tgt_addr), and who connects to it (host_do): for iwtcp>siw
# this guest connects to guest B's target. Sets the caller's locals.
ulp_roles() {
	if [[ $1 == "iwtcp>siw" ]]; then
		tgt_do=(peer) host_do=() tgt_addr=$ADDR_B
	else
		tgt_do=() host_do=(peer) tgt_addr=$ADDR_A
	fi
}

nvme_abort() {
	echo "# NVMe-oF case failed: cleaning up" >&2
	peer nvme_cleanup >&2
	nvme_cleanup
	# Nor do the pool's CQs stay for the next case.
	iwtcp_relink >&2 || true
}

# nvme_run DIR: NVMe over Fabrics (RDMA) on the case's port, the host
# initiating: for iwtcp>siw this guest connects to guest B's nvmet, for
# siw>iwtcp guest B connects to this guest's. The host discovers the
# subsystem, connects (an admin queue and an I/O queue per CPU, each a
# connection), writes random data to the namespace with O_DIRECT and
# reads it back (the same SHA-256, also on the target's backing device;
# fio verifies more with crc32c), then disconnects and connects again
# three times, each time reading the data back. After the last
# disconnect neither guest holds a QP and iwtcp holds again what it held
# with the target idle, but for the CQs of the device's shared pool. The
# target goes, iwtcp's device is added again (the pool's CQs go with the
# old one), and both kernel logs of the case are clean. case_run then
# checks that iwtcp holds nothing at all.
nvme_run() {
	local tgt_do host_do tgt_addr idle sum i

	ulp_roles "$1"
	trap nvme_abort EXIT
	nvme_log_mark
	peer nvme_log_mark >&2
	"${tgt_do[@]}" nvme_target_up "$port" "$tgt_addr" >&2
	idle=$(iwtcp_res)
	echo "# iwtcp, target idle: $idle" >&2
	[[ $idle == "pd 0 cq "*" qp 0 cm_id "*" mr 0 ctx 0 srq 0" ]]
	"${host_do[@]}" nvme_discover "$tgt_addr" "$port" >&2
	"${host_do[@]}" nvme_connect "$tgt_addr" "$port" >&2
	# The admin queue's and the I/O queues' QPs are on iwtcp's device.
	echo "# iwtcp, connected: $(iwtcp_res)" >&2
	(($(qps) >= 2))
	sum=$(cmd_out "${host_do[@]}" nvme_io "$port")
	[[ $sum =~ ^[0-9a-f]{64}$ ]]
	[[ $(cmd_out "${tgt_do[@]}" nvme_target_sum) == "$sum" ]]
	echo "# the target has the data: $sum" >&2
	for i in 1 2 3; do
		"${host_do[@]}" nvme_disconnect "$port" >&2
		"${host_do[@]}" nvme_connect "$tgt_addr" "$port" >&2
		"${host_do[@]}" nvme_reread "$port" >&2
		echo "# reconnect $i: the data read back" >&2
	done
	"${host_do[@]}" nvme_disconnect "$port" >&2
	nvme_no_qp >&2
	peer nvme_no_qp >&2
	wait_for 30 res_but_cq "$idle" || { iwtcp_res >&2; false; }
	echo "# $(cut -d' ' -f1 /proc/uptime) iwtcp holds what it held before" \
		"but for the CQ pool: $(iwtcp_res)" >&2
	"${tgt_do[@]}" nvme_target_down >&2
	iwtcp_relink
	nvme_log_clean >&2
	peer nvme_log_clean >&2
	trap - EXIT
}

iser_abort() {
	echo "# iSER case failed: cleaning up" >&2
	peer iser_cleanup >&2
	iser_cleanup
	iwtcp_relink >&2 || true
}

# iser_run DIR: an iSER smoke test on the case's port, the initiator
# connecting: for iwtcp>siw this guest logs in to guest B's LIO target,
# for siw>iwtcp guest B to this guest's. The initiator logs in over iSER
# (iscsiadm's "iser" interface), writes random data to the LUN with
# O_DIRECT and reads it back (the same SHA-256, also in the target's
# backing file), then logs out. Neither guest holds a QP afterwards and
# iwtcp holds again what it held with the target idle, but for the CQs
# of the device's shared pool; the target goes, iwtcp's device is added
# again, and both kernel logs of the case are clean.
iser_run() {
	local tgt_do host_do tgt_addr idle sum

	ulp_roles "$1"
	trap iser_abort EXIT
	nvme_log_mark
	peer nvme_log_mark >&2
	"${tgt_do[@]}" iser_target_up "$port" "$tgt_addr" >&2
	idle=$(iwtcp_res)
	echo "# iwtcp, target idle: $idle" >&2
	"${host_do[@]}" iser_login "$tgt_addr" "$port" >&2
	echo "# iwtcp, logged in: $(iwtcp_res)" >&2
	(($(qps) >= 1))
	sum=$(cmd_out "${host_do[@]}" iser_io "$port")
	[[ $sum =~ ^[0-9a-f]{64}$ ]]
	"${host_do[@]}" iser_logout "$tgt_addr" "$port" >&2
	[[ $(cmd_out "${tgt_do[@]}" iser_target_sum) == "$sum" ]]
	echo "# the target has the data: $sum" >&2
	"${host_do[@]}" iser_initiator_down >&2
	nvme_no_qp >&2
	peer nvme_no_qp >&2
	wait_for 30 res_but_cq "$idle" || { iwtcp_res >&2; false; }
	"${tgt_do[@]}" iser_target_down >&2
	iwtcp_relink
	nvme_log_clean >&2
	peer nvme_log_clean >&2
	trap - EXIT
}

# case_run DIR VARIANT SETTINGS TOOL OUTCOME WIRE DMESG (see add_case)
case_run() {
	# $6, the wire expectation, is the judge's (cases.tsv)
	local dir=$1 variant=$2 settings=$3 tool=$4 outcome=$5
	local want_log=$7 srv_rc=0 cli_rc=0 log0 srv_pid wait_srv=3 cli_s=120

	# A server that never sees the connection waits: do not wait long.
	[[ $outcome == ok || $outcome == srvfail ]] && wait_srv=30
	[[ $outcome == stalls ]] && cli_s=12

	log0=$(dmesg | wc -l)
	# Guest B reloads siw only for another build.
	if [[ $(cat "$run/variant" 2>/dev/null) != "$variant" ]]; then
		peer use "$variant" >&2
		echo "$variant" >"$run/variant"
	fi
	iwtcp_defaults
	iwtcp_set "$settings"
	if [[ $tool == nfs ]]; then
		# Its own assertions, each ending the case (set -e).
		nfs_run "$dir"
	elif [[ $tool == nvme ]]; then
		nvme_run "$dir"
	elif [[ $tool == iser ]]; then
		iser_run "$dir"
	elif [[ $dir == "iwtcp>siw" ]]; then
		tool_cmds "$tool" "$ADDR_B"
		echo "# [B] ${srv[*]}" >&2
		peer bg_listening srv 150 "$port" "${srv[@]}" >&2
		echo "# [A] ${cli[*]}" >&2
		timeout "$cli_s" "${cli[@]}" >"$run/cli.log" 2>&1 || cli_rc=$?
		no_banner "$run/cli.log" | sed 's/^/# client: /' >&2
		# Nor after its client failed.
		((cli_rc == 0)) || wait_srv=5
		peer wait srv "$wait_srv" >"$run/srv.log" 2>&1 || srv_rc=$?
		no_banner "$run/srv.log" | sed 's/^/# server: /' >&2
	else
		tool_cmds "$tool" "$ADDR_A"
		echo "# [A] ${srv[*]}" >&2
		timeout 150 "${srv[@]}" >"$run/srv.log" 2>&1 &
		srv_pid=$!
		wait_for 20 listening_here
		echo "# [B] ${cli[*]}" >&2
		peer run "$cli_s" "${cli[@]}" >"$run/cli.log" 2>&1 || cli_rc=$?
		no_banner "$run/cli.log" | sed 's/^/# client: /' >&2
		((cli_rc == 0)) || wait_srv=5
		wait_for "$wait_srv" bash -c "! kill -0 $srv_pid" ||
			kill "$srv_pid" 2>/dev/null || true
		wait "$srv_pid" || srv_rc=$?
		no_banner "$run/srv.log" | sed 's/^/# server: /' >&2
	fi
	# A server that did not end (see wait above) is still running there.
	((srv_rc != 124)) || peer kill_all >/dev/null
	echo "# client status $cli_rc, server status $srv_rc" >&2
	iwtcp_defaults
	case $outcome in
	ok) ((cli_rc == 0 && srv_rc == 0)) ;;
	client) ((cli_rc == 0)) ;;
	fails) ((cli_rc != 0 && cli_rc != 124)) ;;
	srvfail) ((srv_rc != 0 && srv_rc != 124)) ;;
	stalls) ((cli_rc == 124)) ;;
	esac
	if [[ -n $want_log ]]; then
		wait_for 10 bash -c "dmesg | tail -n +$((log0 + 1)) | grep -qE '$want_log'" ||
			{ echo "# no kernel log line /$want_log/" >&2; false; }
	fi
	wait_for 20 no_resources || { rdma resource show >&2; false; }
	wait_for 20 ceps_balanced || { echo "# a CEP was not destroyed" >&2; false; }
}

# add_case DIR VARIANT SETTINGS TOOL OUTCOME WIRE [DMESG]
#   DIR      iwtcp>siw (iwtcp initiates) or siw>iwtcp
#   VARIANT  siw build (tools/siw)
#   SETTINGS iwtcp settings, "crc=off rtr=read ..." or default
#   TOOL     rping, ucmatose, ib_*_bw, ib_*_lat, dp_test, cm:..., nfs,
#            nvme, iser
#   OUTCOME  ok (both tools succeed), client (the client's checks pass,
#            the server may never see the connection), fails (the client
#            fails, in time), srvfail (the server fails, in time), stalls
#            (the client still waits after 12 s)
#   WIRE     what the judge must decode, "key=value ..." (see
#            tools/interop_judge.py)
#   DMESG    an extended regex iwtcp's log must show during the case
add_case() {
	local name

	name="$1 $(tool_label "$4"): siw $2, iwtcp $3"
	[[ -z ${INTEROP_ONLY:-} || $name =~ $INTEROP_ONLY ]] || return 0
	local r

	# INTEROP_REPEAT: each case that many times (a flaky case, found)
	if ((${INTEROP_REPEAT:-1} > 1 && ${_repeat:-0} == 0)); then
		for ((r = 0; r < INTEROP_REPEAT; r++)); do
			_repeat=1 add_case "$@"
		done
		return
	fi
	if [[ $phase == count ]]; then
		planned=$((planned + 1))
		[[ $4 != nfs ]] || need_nfs=1
		[[ $4 != nvme ]] || need_nvme=1
		[[ $4 != iser ]] || need_iser=1
		return
	fi
	port=$((port + 1))
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$port" "$name" "$1" "$2" \
		"$3" "$4" "$5" "$6" >>"$cases"
	echo "# case $name (port $port)" >&2
	SECONDS=0
	ktap_run "$name" case_run "$@" "${7:-}"
	echo "# $((SECONDS)) s" >&2
}

# --- the matrix -------------------------------------------------------------------

# MPA start-up frames as the judge decodes them: q.* the Request, p.* the
# Reply; rev, M, C, R, S (RFC 6581 enhanced), A (peer-to-peer), rtr (the
# RTR flags B Send, C Write, D Read), ird, ord; crc=1: FPDUs carry a
# checked CRC; data=1: FPDUs flowed.
I_REQ="q.rev=2 q.M=0 q.C=1 q.S=1 q.A=1 q.rtr=D"	# iwtcp default
S_REQ="q.rev=2 q.M=0 q.C=0 q.S=1 q.A=0 q.rtr=-"		# siw stock

data_suite() {
	local t

	# siw answers iwtcp's offer (the Read RTR alone) with Read; the RTR
	# is the first FPDU, answered by a zero-length Read Response. Below,
	# without RTR, iwtcp's responder waits for siw's first FPDU (RFC 5044
	# 7.1.2).
	for t in rping ucmatose ib_send_bw ib_write_bw ib_read_bw ib_send_lat \
		 ib_write_lat ib_read_lat dp_test; do
		add_case "iwtcp>siw" stock default "$t" ok \
			"$I_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=1 p.rtr=D crc=1 data=1 first=initiator"
	done
	# perftest's server closes its first listener and listens again for
	# the data QP; its client may come in between: not refused
	# (no_refusals), it connects a second later.
	add_case "iwtcp>siw" stock default ib_read_lat:late ok \
		"$I_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=1 p.rtr=D crc=1 data=1 first=initiator"
	# siw's stock initiator uses no peer-to-peer model: no RTR.
	for t in rping ib_send_bw ib_write_bw ib_read_bw ib_send_lat \
		 ib_read_lat dp_test; do
		add_case "siw>iwtcp" stock default "$t" ok \
			"$S_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=0 p.rtr=- crc=1 data=1 first=initiator"
	done
	add_case "siw>iwtcp" stock default ib_read_lat:late ok \
		"$S_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=0 p.rtr=- crc=1 data=1 first=initiator"
	# Without an RTR, iwtcp's responder sends nothing before the
	# initiator's first FPDU (RFC 5044 7.1.2); these tools' servers speak
	# first and their clients wait for them: both wait.
	add_case "siw>iwtcp" stock default ucmatose stalls \
		"$S_REQ p.rev=2 p.C=1 p.R=0 p.S=1 p.A=0 data=0"
	add_case "siw>iwtcp" stock default ib_write_lat stalls \
		"$S_REQ p.rev=2 p.C=1 p.R=0 p.S=1 p.A=0"
	# With siw built for the peer-to-peer model they run.
	add_case "siw>iwtcp" p2p default ib_write_lat ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=CD crc=1 data=1"
}

crc_cases() {
	# Neither side asks for CRC.
	add_case "iwtcp>siw" stock "crc=off" rping ok \
		"q.C=0 p.C=0 p.R=0 crc=0 data=1"
	add_case "siw>iwtcp" stock "crc=off" rping ok \
		"q.C=0 p.C=0 p.R=0 crc=0 data=1"
	# siw built to require CRC: its Request has C=1.
	add_case "siw>iwtcp" crc default rping ok \
		"q.C=1 p.C=1 p.R=0 crc=1 data=1"
	# RFC 5044 7.1.1: C=1 in either frame means CRC both ways, so iwtcp
	# (CRC off) answers C=0 and uses CRC; siw refuses that Reply.
	add_case "siw>iwtcp" crc "crc=off" cm:accept:8:8:unreachable:8:8 ok \
		"q.C=1 p.C=0 p.R=0"
	# siw's mpa_crc_required does not make its Reply ask for CRC.
	add_case "iwtcp>siw" crc "crc=off" rping ok \
		"q.C=0 p.C=0 p.R=0 crc=0 data=1"
	# siw built to refuse CRC (mpa_crc_strict) rejects iwtcp's C=1 ...
	add_case "iwtcp>siw" strict default cm:accept:8:8:unreachable:8:8 client \
		"q.C=1 p.R=1" "CEP [0-9]+ AWAIT_REPLY -> (AWAIT_TERM|CLOSED)"
	# ... and refuses iwtcp's Reply with C=1.
	add_case "siw>iwtcp" strict default cm:accept:8:8:unreachable:8:8 ok \
		"q.C=0 p.C=1 p.R=0"
	add_case "iwtcp>siw" strict "crc=off" rping ok \
		"q.C=0 p.C=0 p.R=0 crc=0 data=1"
	add_case "siw>iwtcp" strict "crc=off" rping ok \
		"q.C=0 p.C=0 p.R=0 crc=0 data=1"
}

revision_cases() {
	# MPA revision 1 (RFC 5044): no IRD/ORD word, no RTR. siw hands its
	# ULP IRD 0 and ORD 0 for such a Request: rping's server cannot
	# post its RDMA Read.
	add_case "iwtcp>siw" stock "p2p=0 enhanced=0 revision=1" rping srvfail \
		"q.rev=1 q.S=0 p.rev=1 p.S=0 p.R=0 crc=1 data=1"
	add_case "iwtcp>siw" stock "p2p=0 enhanced=0 revision=1" ucmatose ok \
		"q.rev=1 q.S=0 p.rev=1 p.S=0 p.R=0 crc=1 data=1 first=responder"
	add_case "siw>iwtcp" rev1 default rping ok \
		"q.rev=1 q.S=0 p.rev=1 p.S=0 p.R=0 crc=1 data=1"
	add_case "siw>iwtcp" rev1 "p2p=0 enhanced=0 revision=1" rping ok \
		"q.rev=1 q.S=0 p.rev=1 p.S=0 p.R=0 crc=1 data=1"
	# Revision 2 without the enhanced word.
	add_case "iwtcp>siw" stock "p2p=0 enhanced=0" ucmatose ok \
		"q.rev=2 q.S=0 p.rev=2 p.S=0 p.R=0 crc=1 data=1"
	# RFC 6581 10: a responder without the enhanced start-up closes on
	# an enhanced Request: the ULP's accept fails.
	add_case "siw>iwtcp" stock "p2p=0 enhanced=0" cm:refuse:8:8:unreachable:8:8 ok \
		"q.S=1"
}

ird_ord_cases() {
	# RFC 6581 9.1: siw answers with its ULP's IRD/ORD, ORD capped at
	# the initiator's IRD; iwtcp lowers its IRD to the initiator's ORD.
	add_case "iwtcp>siw" stock default cm:accept:5:1:established:3:2 ok \
		"q.ird=3 q.ord=2 p.ird=5 p.ord=1 p.R=0"
	add_case "siw>iwtcp" stock default cm:accept:5:1:established:3:2 ok \
		"q.ird=3 q.ord=2 p.ird=2 p.ord=1 p.R=0"
	# siw raises its IRD to the initiator's ORD (its "relaxed" rule).
	add_case "iwtcp>siw" stock default cm:accept:4:2:established:4:8 ok \
		"q.ird=4 q.ord=8 p.ird=8 p.ord=2 p.R=0"
	# iwtcp's ORD above siw's IRD: iwtcp's ULP accept fails, the Reply
	# rejects and names the ORD, TERM 0x06 follows (RFC 6581 9.1).
	add_case "siw>iwtcp" stock default cm:refuse:4:4:unreachable:2:8 ok \
		"q.ird=2 q.ord=8 p.R=1 p.ord=4" "CEP [0-9]+: TERM LLP/MPA/0x6"
}

rtr_cases() {
	# iwtcp offers only the Write RTR (the default offers Read): siw
	# answers Write.
	add_case "iwtcp>siw" stock "rtr=write" rping ok \
		"q.A=1 q.rtr=C p.A=1 p.rtr=C data=1"
	# Only with INTEROP_SIW_CRASH=1 (and last, see the end): iwtcp
	# offering only the Send RTR. siw answers Write, iwtcp ends the
	# start-up with TERM 0x07 (RFC 6581 9.2), and the siw guest's kernel
	# dies: BUG() at drivers/infiniband/core/iwcm.c:964 (siw reports
	# CLOSE on a connection it never reported ESTABLISHED).
	# Enhanced start-up without peer-to-peer: siw's responder sends its
	# FPDUs before the initiator's first (RFC 5044 7.1.2 says it may not).
	add_case "iwtcp>siw" stock "p2p=0" ucmatose ok \
		"q.S=1 q.A=0 p.S=1 p.A=0 data=1 first=responder"
	# siw built for peer-to-peer offers Write and Read.
	add_case "siw>iwtcp" p2p default rping ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=CD data=1"
	add_case "siw>iwtcp" p2p default ucmatose ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=CD data=1"
	add_case "siw>iwtcp" p2p "rtr=read" rping ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=D data=1"
	# iwtcp accepts only Send: no common RTR, siw sends TERM 0x07 (its
	# layer and error type nibbles swapped) without the CRC that iwtcp's
	# Reply made mandatory: iwtcp drops that FPDU, answers TERM 0x02 (CRC).
	add_case "siw>iwtcp" p2p "rtr=send" cm:accept:8:8:unreachable:8:8 ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=B badcrc=1" "CEP [0-9]+: TERM LLP/MPA/0x2"
	# Without CRC iwtcp reads siw's TERM, as siw encodes it.
	add_case "siw>iwtcp" p2p "rtr=send crc=off" cm:accept:8:8:unreachable:8:8 ok \
		"q.A=1 q.rtr=CD p.A=1 p.rtr=B p.C=0 crc=0" \
		"peer ended the MPA start-up with TERM layer 0 type 2 code 0x7"
	add_case "siw>iwtcp" p2p_read default rping ok \
		"q.A=1 q.rtr=D p.A=1 p.rtr=D data=1"
	# A ULP IRD of 0 (perftest's Write tests): iwtcp's Reply raises
	# its IRD to 1 for siw's zero-length Read RTR (RFC 6581 9.1).
	add_case "siw>iwtcp" p2p_read default ib_write_lat ok \
		"q.A=1 q.rtr=D q.ord=1 p.A=1 p.rtr=D p.ird=1 data=1"
}

marker_cases() {
	# siw has no markers: it rejects a Request with M=1 ...
	add_case "iwtcp>siw" stock "markers=required" cm:accept:8:8:unreachable:8:8 client \
		"q.M=1 p.R=1" "CEP [0-9]+ AWAIT_REPLY -> (AWAIT_TERM|CLOSED)"
	add_case "iwtcp>siw" stock "markers=required" rping fails \
		"q.M=1 p.R=1" "CEP [0-9]+ AWAIT_REPLY -> (AWAIT_TERM|CLOSED)"
	# ... and refuses a Reply with M=1.
	add_case "siw>iwtcp" stock "markers=required" cm:accept:8:8:unreachable:8:8 ok \
		"q.M=0 p.M=1 p.R=0"
}

# A kernel ULP, NFSv4.2 over RDMA, in both directions (see nfs_run).
# Its RDMA connections are on the case's port: the judge decodes them
# like the tools', then (rpc=1) their Sends as RPC-over-RDMA headers.
nfs_cases() {
	add_case "iwtcp>siw" stock default nfs ok \
		"$I_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=1 p.rtr=D crc=1 data=1 first=initiator rpc=1"
	add_case "siw>iwtcp" stock default nfs ok \
		"$S_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=0 p.rtr=- crc=1 data=1 first=initiator rpc=1"
}

# A second kernel ULP, NVMe over Fabrics with the RDMA transport (nvmet
# target, nvme-rdma host), in both directions (see nvme_run); its
# connections (discovery, then an admin and two I/O queues per connect)
# on the case's port too. The host asks ORD 0 (only the target reads and
# writes the host's memory), which iwtcp's Request sends as 1 for its Read
# RTR (RFC 6581 9.1); siw's target raises its IRD 0 to that 1.
nvme_cases() {
	add_case "iwtcp>siw" stock default nvme ok \
		"$I_REQ q.ord=1 p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=1 p.rtr=D p.ird=1 crc=1 data=1 first=initiator"
	add_case "siw>iwtcp" stock default nvme ok \
		"$S_REQ q.ord=0 p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=0 p.rtr=- p.ird=0 crc=1 data=1 first=initiator"
}

# iSCSI over iSER (LIO target with ib_isert, open-iscsi initiator with
# ib_iser), a smoke test in both directions (see iser_run); its
# connection on the case's port.
iser_cases() {
	add_case "iwtcp>siw" stock default iser ok \
		"$I_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=1 p.rtr=D crc=1 data=1 first=initiator"
	add_case "siw>iwtcp" stock default iser ok \
		"$S_REQ p.rev=2 p.M=0 p.C=1 p.R=0 p.S=1 p.A=0 p.rtr=- crc=1 data=1 first=initiator"
}

matrix() {
	data_suite
	crc_cases
	revision_cases
	ird_ord_cases
	rtr_cases
	marker_cases
	nfs_cases
	nvme_cases
	iser_cases
	if [[ ${INTEROP_SIW_CRASH:-0} == 1 ]]; then
		add_case "iwtcp>siw" stock "rtr=send" cm:accept:8:8:unreachable:8:8 client \
			"q.A=1 q.rtr=B p.A=1 p.rtr=C" "CEP [0-9]+: TERM LLP/MPA/0x7"
	fi
}

phase=count
planned=0
need_nfs=0
need_nvme=0
need_iser=0
matrix
ktap_plan "$planned"
setup
phase=run
matrix
ktap_finish
