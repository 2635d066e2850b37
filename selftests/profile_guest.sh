#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make profile` (tools/profile): where the guest's CPU goes
# while data moves, by kernel symbol, for iwtcp beside plain TCP on lib.sh's
# two hosts (veth between two namespaces, both ends in this guest).
#
#	selftests/profile_guest.sh OUTDIR
#
# Cases: one crc32c pass over 256 MiB through the kernel's crypto API (the
# CRC's own cost in this guest); iperf3 with 64 KiB writes; iwtcp
# ib_send_bw at 64 KiB with CQ events, CRC on and off; ib_write_bw at 64
# KiB (busy-polling) with CRC on; ib_read_bw at 64 KiB with CQ events
# and CRC on (the data flows to $ns1); ib_send_bw at 64 octets and 4 KiB
# with CQ events, CRC off (the per-message costs; a deep receive queue,
# see iwtcp-performance.rst on perftest's credits); fio's 1 MiB O_DIRECT
# reads from an NFSv4.2 server (selftests/nfs_lib.sh) over iwtcp and
# over TCP. PROFILE_CASES picks some (default "crc iperf3 send write
# read small nfs"). Each runs PROFILE_SECS (default 8) seconds under `perf
# record -a -g -e cpu-clock` (a software clock: TCG guests have no PMU).
# For each case OUTDIR gets CASE.top (share of the busy samples by
# symbol, the idle loop left out), CASE.paths (the busy samples by path: iwtcp receive and
# transmit, TCP receive and transmit, other; selftests/profile_paths.awk),
# CASE.dso (by module), CASE.callers (the call chains into the
# CRC routines), CASE.busy (guest busy jiffies and the octets veth_a sent
# meanwhile, or received for the NFS reads, headers included: guest CPU
# seconds per GiB on the wire; not_idle_s, wall time less idle, beside
# the busy ticks), CASE.threads (the threads that ran most,
# CPU seconds from schedstat and % of one CPU: a softirq counts to the
# thread it interrupted), CASE.perf.log (perf's messages) and CASE.data
# (the samples, for a closer look: perf report -i CASE.data --kallsyms
# OUTDIR/kallsyms). perf's events are on exactly for the window of
# CASE.busy; the thread snapshots are taken just outside it. The two
# ends are stopped after the window.

set -euo pipefail

out=${1:?usage: profile_guest.sh OUTDIR}
secs=${PROFILE_SECS:-8}
IWTCP_LINK=0
IFINDEX_GAP=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=nfs_lib.sh
source "$(dirname "$0")/nfs_lib.sh"

port=9500
mkdir -p "$out"

busy() {
	awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}

# not_idle: the same from the other side, in jiffies: wall time of all
# CPUs (/proc/uptime) less their idle and iowait, which NO_HZ measures
# by the clock; the busy fields count ticks, one per tick handled
not_idle() {
	awk -v h="$(getconf CLK_TCK)" '/^cpu / { idle = $5 + $6 }
		/^cpu[0-9]/ { n++ }
		FILENAME == "/proc/uptime" { printf "%.0f\n", $1 * h * n - idle }' \
		/proc/stat /proc/uptime
}

# wire_octets tx|rx: octets veth_a (ns1's end) sent or received so far
wire_octets() {
	ip netns exec "$ns1" cat "/sys/class/net/veth_a/statistics/${1}_bytes"
}

listening() {
	ip netns exec "$ns2" ss -ltnH | grep -q ":$port "
}

idle='^(pv_native_safe_halt|native_safe_halt|default_idle|default_idle_call|arch_cpu_idle|do_idle|cpu_idle_poll|acpi_safe_halt|poll_idle)$'

# report CASE: the recorded profile as text
report() {
	local c=$1 data=/tmp/profile-$1.data
	local pr=(perf report -i "$data" --kallsyms=/proc/kallsyms --stdio)

	: >"$out/$c.top"
	perf script -i "$data" --kallsyms=/proc/kallsyms -F ip,sym 2>/dev/null |
		awk -v idle="$idle" -v top="$out/$c.top" \
			-f "$(dirname "$0")/profile_paths.awk" >"$out/$c.paths" ||
		true
	"${pr[@]}" --no-children -g none --sort dso,sym 2>/dev/null |
		awk -v idle="$idle" '$1 ~ /%$/ && $NF !~ idle {
			p = $1; sub(/%/, "", p); d[$2] += p; all += p }
		END {for (k in d) printf "%6.2f%%  %s\n", 100 * d[k] / all, k}' |
		sort -rn | head -n 20 >"$out/$c.dso" || true
	"${pr[@]}" --no-children -G --sort sym --symbol-filter=crc \
		2>/dev/null | grep -v '^$' | head -n 150 >"$out/$c.callers" || true
	# kept for a closer look on the host: perf report -i CASE.data
	# --kallsyms=OUTDIR/kallsyms
	mv "$data" "$out/$c.data"
}

# threads: CPU nanoseconds each thread has run so far ("TID COMM NS"),
# from schedstat, with builtins only (a fork per thread would be profiled)
threads() {
	local f t rt comm

	for f in /proc/[0-9]*/task/[0-9]*/schedstat; do
		t=${f%/schedstat}
		read -r rt _ 2>/dev/null <"$f" || continue
		read -r comm 2>/dev/null <"$t/comm" || continue
		echo "${t##*/} ${comm//[[:space:]]/_} $rt"
	done
}

# perf_ready CASE: perf recording with its events off, set up and
# listening on a control FIFO before the workload starts: under load its
# set-up took longer than a workload's 40 s, and a window opened "in a
# moment" missed the workload (2026-12-04).
perf_ready() {
	local c=$1 ctl=/tmp/profile-ctl ack=/tmp/profile-ack

	rm -f "$ctl" "$ack"
	mkfifo "$ctl" "$ack"
	# the guest's own tmpfs: writing it to OUTDIR (9p) would be profiled
	perf record -q -a -g -B -N -e cpu-clock -F 499 -D -1 \
		--control "fifo:$ctl,$ack" -o "/tmp/profile-$c.data" \
		>"$out/$c.perf.log" 2>&1 &
	perf_pid=$!
	_tracked_pids+=("$perf_pid")
	# read-write opens never block, should perf fail before opening them
	exec {perf_cfd}<>"$ctl" {perf_afd}<>"$ack"
	# an acknowledged no-op: perf is set up and reads its FIFO
	echo disable >&"$perf_cfd"
	if ! read -r -t 300 -u "$perf_afd" _; then
		echo "profile_guest: perf not ready ($c, $out/$c.perf.log)" >&2
		kill -0 "$perf_pid" 2>/dev/null || return 1
	fi
}

# perf_stop: perf_ready's perf ends and writes its samples
perf_stop() {
	kill -INT "$perf_pid" 2>/dev/null || true
	wait "$perf_pid" || true
	exec {perf_cfd}>&- {perf_afd}>&-
	rm -f /tmp/profile-ctl /tmp/profile-ack
}

# sample CASE DIR: perf_ready's perf on for PROFILE_SECS seconds of
# whatever runs now; CASE.busy counts the octets veth_a sent (DIR tx) or
# received (rx), CASE.threads the CPU seconds of each thread, both in the
# same window.
sample() {
	local c=$1 dir=$2 b0 b1 o0 o1 t0 t1 u0 u1 n0 n1

	# the thread snapshots take a second or more under load: outside
	# perf's window, inside their own (u0 to u1)
	read -r u0 _ </proc/uptime
	threads >"/tmp/profile-$c.threads0"
	echo enable >&"$perf_cfd"
	read -r -t 60 -u "$perf_afd" _ || true
	read -r t0 _ </proc/uptime
	b0=$(busy)
	n0=$(not_idle)
	o0=$(wire_octets "$dir")
	sleep "$secs"
	b1=$(busy)
	n1=$(not_idle)
	o1=$(wire_octets "$dir")
	read -r t1 _ </proc/uptime
	echo disable >&"$perf_cfd"
	read -r -t 60 -u "$perf_afd" _ || true
	threads >"/tmp/profile-$c.threads1"
	read -r u1 _ </proc/uptime
	perf_stop
	awk -v b=$((b1 - b0)) -v o=$((o1 - o0)) -v s="$t0" -v e="$t1" \
		-v n=$((n1 - n0)) -v h="$(getconf CLK_TCK)" 'BEGIN { s = e - s
		printf "busy_s %.2f wire_octets %.0f seconds %.1f", b / h, o, s
		printf " MB/s %.1f cpu_s_per_gib %.2f", o / s / 1e6,
			o ? b / h / (o / 2^30) : 0
		printf " not_idle_s %.2f\n", n / h }' >"$out/$c.busy"
	# the threads that ran most: CPU seconds, % of one CPU over u0..u1
	awk -v s="$u0" -v e="$u1" 'NR == FNR { t0[$1] = $3; next }
		$1 in t0 { d = ($3 - t0[$1]) / 1e9
			if (d >= 0.01)
				printf "%7.2f s %5.1f%%  %s\n", d, 100 * d / (e - s), $2 }' \
		"/tmp/profile-$c.threads0" "/tmp/profile-$c.threads1" |
		sort -rn | head -n 15 >"$out/$c.threads" || true
}

# profile CASE SERVER-CMD... -- CLIENT-CMD...: both ends, perf around the
# client's run
profile() {
	local c=$1 srv_cmd=() cli_cmd=()

	shift
	while [[ $1 != -- ]]; do
		srv_cmd+=("$1")
		shift
	done
	shift
	cli_cmd=("$@")
	port=$((port + 1))
	perf_ready "$c"
	timeout 120 ip netns exec "$ns2" "${srv_cmd[@]}" -p "$port" \
		>"$out/$c.server" 2>&1 &
	local srv=$!
	wait_for 20 listening
	timeout 120 ip netns exec "$ns1" "${cli_cmd[@]}" -p "$port" \
		>"$out/$c.client" 2>&1 &
	local cli=$!
	sleep 1
	sample "$c" "${dir:-tx}"	# dir=rx: the data flows to $ns1
	kill "$cli" "$srv" 2>/dev/null || true
	wait "$cli" "$srv" 2>/dev/null || true
	report "$c"
	echo "# profiled $c: $(head -n 1 "$out/$c.top")"
}

# nfs_case TRANSPORT: fio's 1 MiB O_DIRECT sequential reads, 16 in
# flight, from nfs_lib.sh's NFSv4.2 server in $ns2, mounted over rdma
# (iwtcp, default settings) or tcp; the data flows to $ns1 (DIR rx).
nfs_case() {
	local tr=$1 c=nfs-read-$1

	nfs_mount 4.2 "$tr"
	nfs_layout "$mnt/profile"
	perf_ready "$c"
	timeout -k 10 120 fio --direct=1 --ioengine=libaio --iodepth=16 --bs=1m \
		--rw=read --size=256m --runtime="$long" --time_based \
		--filename="$mnt/profile" --name="$c" >"$out/$c.client" 2>&1 &
	local cli=$!
	sleep 1
	sample "$c" rx
	kill "$cli" 2>/dev/null || true
	wait "$cli" 2>/dev/null || true
	client_umount
	report "$c"
	echo "# profiled $c: $(head -n 1 "$out/$c.top")"
}

# crc_case: one crc32c pass over the crypto API (lib.sh), profiled: the
# cost of the CRC itself in this guest, the yardstick of iwtcp's CRC work
crc_case() {
	local drv s

	perf record -q -a -g -B -N -e cpu-clock -F 499 -o /tmp/profile-crc32c-pass.data \
		-- bash -c "$(declare -f crc32c_pass); crc32c_pass" \
		>"$out/crc32c-pass.client" 2>&1 || true
	read -r drv s <"$out/crc32c-pass.client" || true
	echo "driver ${drv:-none} cpu_s_per_gib ${s:-none} (one pass)" \
		>"$out/crc32c-pass.busy"
	report crc32c-pass
	echo "# profiled crc32c-pass: $(head -n 1 "$out/crc32c-pass.top")"
}

setup_two_hosts
hosts_no_refusals
long=$((secs + 30))	# the ends outlast perf's window and wind-up
all_cases="crc iperf3 send write read small nfs"
cases=" ${PROFILE_CASES:-$all_cases} "
has() { [[ $cases == *" $1 "* ]]; }
for c in $cases; do
	[[ " $all_cases " == *" $c "* ]] ||
		{ echo "profile_guest: no case $c" >&2; exit 2; }
done

test_cleanup() {
	nfs_down
}

if has crc; then
	crc_case
fi
if has iperf3; then
	profile iperf3 iperf3 -s -1 -- iperf3 -c 192.0.2.2 -t "$long" -l 65536
fi

modprobe iwtcp
# loaded before kallsyms is copied: their symbols, for perf report on the host
has nfs && modprobe -a rpcrdma nfsd nfsv4
cp /proc/kallsyms "$out/kallsyms"
ip netns exec "$ns1" rdma link add iwtcp_a type iwtcp netdev veth_a
ip netns exec "$ns2" rdma link add iwtcp_b type iwtcp netdev veth_b
_created_links+=("$ns1 iwtcp_a" "$ns2 iwtcp_b")
if has send; then
	# --rx-depth=2048: perftest's iWARP credits deadlock with -e when the
	# receiver falls 512 behind (iwtcp-performance.rst, "A stall with CQ
	# events")
	for crc in on off; do
		set_both mpa_crc "$crc"
		profile "send-events-crc-$crc" ib_send_bw -R -s 65536 -e -n 200000 \
			--rx-depth=2048 -- \
			ib_send_bw -R -s 65536 -e -n 200000 --rx-depth=2048 \
			192.0.2.2	# stopped
	done
	set_both mpa_crc on
fi
if has write; then
	profile write-crc-on ib_write_bw -R -s 65536 -D "$long" -- \
		ib_write_bw -R -s 65536 -D "$long" 192.0.2.2
fi
if has read; then
	dir=rx profile read-events-crc-on ib_read_bw -R -s 65536 -e -n 200000 -- \
		ib_read_bw -R -s 65536 -e -n 200000 192.0.2.2	# stopped
fi
if has small; then
	set_both mpa_crc off
	for size in 64 4096; do
		profile "send-$size-events-crc-off" \
			ib_send_bw -R -s "$size" -e -n 2000000 --rx-depth=2048 -- \
			ib_send_bw -R -s "$size" -e -n 2000000 --rx-depth=2048 \
			192.0.2.2	# stopped
	done
	set_both mpa_crc on
fi
if has nfs; then
	nfs_dir=$(mktemp -d)
	mnt=$nfs_dir/mnt
	mkdir "$mnt"
	NFS_EXPORT_SIZE=400m
	server_up
	nfs_case rdma
	nfs_case tcp
	nfs_down
fi
