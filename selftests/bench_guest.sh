#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (tools/bench): one system's measurements on
# lib.sh's two hosts (veth between two namespaces), as CSV lines.
#
#	selftests/bench_guest.sh SYSTEM REP OUT.csv [QUICK]
#
# SYSTEM is iwtcp or siw (an RDMA link of that type on each end; the
# module must be installed in the guest) or tcp (no RDMA: iperf3 and
# qperf over the same veth). Columns: rep, system, variant, test, size
# (octets), qps, value, unit, cpu_s_per_gib (guest CPU seconds, all
# vCPUs, per GiB moved; empty for latency), cpu (BENCH_CPU, the guest's
# CPU model as tools/bench named it), user_s_per_gib (the part of
# cpu_s_per_gib spent in user space: perftest's busy-polling loop, for
# one). QUICK=1 measures fewer sizes.
# BENCH_SUBSET=crc measures only what the CRC comparison needs: iperf3
# and one kernel crc32c pass (tcp), iwtcp at 64 KiB with CRC on and off.
# BENCH_SUBSET=icount, for a guest of one vCPU under tcg-icount (tools/bench):
# iperf3 and the crc32c pass (tcp), iwtcp's Send and Read with CQ events
# at 64 KiB, CRC off and on, with RFC-sized and with large FPDUs; no
# busy-polled point (on one vCPU perftest's spin would take the CPU from
# the driver it waits for). iwtcp's points with CQ events also give the
# mean wire octets of their FPDUs (test TEST_fpdu, unit octets).
# Every iwtcp and tcp boot measures one crc32c pass over the kernel's
# crypto API (test crc32c_pass, variant: the driver that served it).
# iwtcp boots also run NFS over iwtcp and over TCP with fio (nfs_suite;
# BENCH_SUBSET=nfs: only that), and NVMe over Fabrics with the RDMA
# transport over iwtcp and with TCP (nvme_suite; BENCH_SUBSET=nvme: only
# that).

set -euo pipefail

sys=${1:?usage: bench_guest.sh SYSTEM REP OUT.csv [QUICK]}
rep=${2:?}
csv=${3:?}
quick=${4:-0}

IWTCP_LINK=0
IFINDEX_GAP=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=nfs_lib.sh
source "$(dirname "$0")/nfs_lib.sh"
# shellcheck source-path=SCRIPTDIR source=interop_nvme.sh
source "$(dirname "$0")/interop_nvme.sh"

DUR=4		# seconds per bandwidth point (-D)
MARGIN=1	# perftest measures from MARGIN s to DUR - MARGIN s (-f)
LAT_N=200	# iterations per latency point
port=9000
hz=$(getconf CLK_TCK)
cpu_model=${BENCH_CPU:-unknown}
subset=${BENCH_SUBSET:-all}
case $subset in
all | crc | icount | nfs | nvme) ;;
*) echo "bench_guest: BENCH_SUBSET must be all, crc, icount, nfs or nvme" >&2; exit 2 ;;
esac
# crc and icount: the short subsets, 64 KiB with events and the crc32c pass
short=0
[[ $subset == crc || $subset == icount ]] && short=1

if ((quick)); then
	bw_sizes=(64 4096 65536 1048576)
	lat_sizes=(8 4096 65536)
else
	bw_sizes=(64 1024 4096 16384 65536 262144 1048576)
	lat_sizes=(8 64 1024 4096 16384 65536)
fi

# Busy jiffies of all CPUs (user, nice, system, irq, softirq, steal).
busy() {
	awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}

# User-space jiffies of all CPUs (user, nice).
usr() {
	awk '/^cpu /{print $2 + $3}' /proc/stat
}

# s/GiB: jiffies B over GiB G (empty without octets)
per_gib() {
	awk -v b="$1" -v h="$hz" -v g="$2" 'BEGIN{if (g > 0) printf "%.3f", b / h / g}'
}

row() {
	echo "$rep,$sys,$variant,$1,$2,$3,$4,$5,$6,$cpu_model,${7:-}" >>"$csv"
}

next_port() { port=$((port + 1)); }

# Column N of perftest's first result line (the numeric one after #bytes).
result_col() {
	awk -v n="$1" '/#bytes/ {f = 1; next}
		f && $1 ~ /^[0-9]+$/ && $n ~ /^[0-9.]+$/ {print $n; exit}'
}

# no_result TEST SIZE OUTPUT: a point without a figure, and why (the
# tool's last lines: under load perftest may refuse to report when its
# clock calibration falls below its r^2 threshold).
no_result() {
	echo "# $1 $2: no result: $(grep -v '^ *$' <<<"$3" | tail -n 2 |
		tr '\n' ' ')" >&2
}

listening() {
	ip netns exec "$ns2" ss -ltnH | grep -q ":$port "
}

# bw TEST SIZE QPS [events]: one perftest bandwidth point over rdma_cm.
# Up to 256 KiB a timed run (-D, measured between the -f margins); 1 MiB
# and up 16 messages per QP (-n), since perftest's timed mode reports
# nothing for messages that large on a slow guest. -Q 1: a completion for
# every work request. "events": both ends sleep on CQ events (-e) instead
# of busy-polling, as kernel consumers do; the variant gets "/events"
# ("events" alone for the defaults)
# (perftest takes -e for Send and Read, and not with -D: 512 MiB of messages;
# and not with -Q 1: its sender waits for an event while the completions
# are already queued, and hangs, on any device). Send with events runs
# with 2048 receives posted (-r 2048, both ends): on iWARP perftest's
# sender stops when it is rx-depth Sends past the receiver's last credit
# (an RDMA Write every rx-depth/3 receives, which completes nothing on
# the sender), and if it stops with no signalled Send outstanding it
# waits for a CQ event that never comes. With the default 512, iwtcp's
# receiver, slower than its sender with the CRC on, fell that far behind
# in about one run of three on the two-vCPU guest; with 2048, 8 of 8 ran
# through (iwtcp-performance.rst, "A stall with CQ events").
# MB/s in every row is 10^6 octets a second, as iperf3's and fio's:
# perftest's "MB/sec" is 2^20 octets a second (its MsgRate times the size
# says so), converted here. CPU per GiB divides the busy time of the whole
# run (set-up included) by the octets it moved: for -n runs the messages
# it sent (one QP then), for -D runs the measured rate over DUR seconds.
# The events runs send 512 MiB, about what iperf3 moves in its DUR
# seconds, so that the set-up (about 0.6 s of the one-vCPU icount guest's
# busy time, perftest's or iperf3's) weighs alike on both; the 16 MiB of
# the 1 MiB points carry it far more.
bw() {
	local t=$1 size=$2 qps=$3 b0 b1 u0 u1 out mib mbs gib mode n=0 f0=
	local variant=$variant

	if [[ ${4:-} == events ]]; then
		n=$((512 * 1048576 / size))
		mode=(-e -n "$n")
		# perftest's credits on iWARP: see the comment above
		[[ $t == ib_send_bw ]] && mode+=(-r 2048)
		[[ $variant == default ]] && variant=events || variant+=/events
	elif ((size >= 1048576)); then
		n=16
		mode=(-n "$n" -Q 1)
	else
		mode=(-D "$DUR" -f "$MARGIN" -Q 1)
	fi
	next_port
	timeout 120 ip netns exec "$ns2" "$t" -R -p "$port" -s "$size" \
		-q "$qps" "${mode[@]}" >/dev/null 2>&1 &
	local srv=$!
	wait_for 20 listening
	if [[ ${4:-} == events && $sys == iwtcp ]]; then
		f0=$(rx_fpdus) || f0=
	fi
	b0=$(busy)
	u0=$(usr)
	out=$(timeout 120 ip netns exec "$ns1" "$t" -R -p "$port" -s "$size" \
		-q "$qps" "${mode[@]}" 192.0.2.2 2>&1) || true
	b1=$(busy)
	u1=$(usr)
	wait "$srv" || true
	[[ -z $f0 ]] || fpdu_row "$t" "$size" "$f0"
	mib=$(result_col 4 <<<"$out")
	[[ -n $mib ]] || { no_result "$t" "$size" "$out"; return 0; }
	mbs=$(awk -v m="$mib" 'BEGIN{printf "%.2f", m * 2^20 / 1e6}')
	if ((n)); then
		gib=$(awk -v n="$n" -v s="$size" 'BEGIN{print n * s / 2^30}')
	else
		gib=$(awk -v m="$mib" -v d="$DUR" 'BEGIN{print m * d / 2^10}')
	fi
	row "$t" "$size" "$qps" "$mbs" MB/s "$(per_gib $((b1 - b0)) "$gib")" \
		"$(per_gib $((u1 - u0)) "$gib")"
}

# rx_fpdus: "FPDUS OCTETS" both iwtcp devices received so far (their
# rx_fpdus and rx_fpdu_octets counters, wire octets).
rx_fpdus() {
	local d c f=0 o=0

	for d in iwtcp_a iwtcp_b; do
		c=/sys/class/infiniband/$d/ports/1/hw_counters
		f=$((f + $(<"$c/rx_fpdus")))
		o=$((o + $(<"$c/rx_fpdu_octets")))
	done
	echo "$f $o"
}

# fpdu_row TEST SIZE "FPDUS OCTETS": the mean wire octets of the FPDUs a
# point carried (its messages, and a Read's Requests), test TEST_fpdu:
# tools/bench_report.py splits iwtcp's instructions per octet into a
# part per octet and a part per FPDU with it.
fpdu_row() {
	local f0 o0 f1 o1

	read -r f0 o0 <<<"$3"
	read -r f1 o1 < <(rx_fpdus) || return 0
	[[ -n $f1 ]] && ((f1 > f0)) || return 0
	row "${1}_fpdu" "$2" 1 "$(((o1 - o0) / (f1 - f0)))" octets ""
}

# lat TEST SIZE [events]: one perftest latency point, typical latency in
# usec. "events": both ends sleep on CQ events (-e; perftest has it for
# Send and Read, not for Write), variant "events". Busy-polled ping-pong
# under the guest's single-threaded TCG measures qemu's round robin of
# the vCPUs, not the driver: each poller spins until a timer interrupt
# (the guest's 4 ms tick) hands the host thread to the other vCPU
# (2026-12-04: ib_send_lat 4000 us polled, 97 us with events; 27 us
# polled with IWTCP_VM_ACCEL=tcg-multi). The events rows are the ones
# that compare with qperf's blocking ping-pong.
lat() {
	local t=$1 size=$2 out us variant=$variant ev=()

	if [[ ${3:-} == events ]]; then
		ev=(-e)
		variant=events
	fi
	next_port
	timeout 120 ip netns exec "$ns2" "$t" -R -p "$port" -s "$size" -n "$LAT_N" \
		"${ev[@]}" >/dev/null 2>&1 &
	local srv=$!
	wait_for 20 listening
	out=$(timeout 120 ip netns exec "$ns1" "$t" -R -p "$port" -s "$size" \
		-n "$LAT_N" "${ev[@]}" 192.0.2.2 2>&1) || true
	wait "$srv" || true
	us=$(result_col 5 <<<"$out")
	[[ -n $us ]] || { no_result "$t" "$size" "$out"; return 0; }
	row "$t" "$size" 1 "$us" usec ""
}

# crc_pass: one crc32c pass over the kernel's crypto API (lib.sh
# crc32c_pass), as a row: variant the driver, value CPU s/GiB.
crc_pass() {
	local drv s

	read -r drv s < <(crc32c_pass) || return 0
	variant=$drv row crc32c_pass 1073741824 1 "$s" s/GiB "$s"
}

rdma_suite() {
	local t s

	for t in ib_write_bw ib_read_bw ib_send_bw; do
		for s in "${bw_sizes[@]}"; do
			bw "$t" "$s" 1
		done
		bw "$t" 65536 4
	done
	bw ib_send_bw 65536 1 events
	bw ib_read_bw 65536 1 events
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		for s in "${lat_sizes[@]}"; do
			lat "$t" "$s"
		done
	done
	for t in ib_send_lat ib_read_lat; do
		for s in "${lat_sizes[@]}"; do
			lat "$t" "$s" events
		done
	done
}

# iwtcp's framing variants at 64 KiB: CRC and markers on and off (the
# default run is CRC on, markers off), and FPDUs of up to 32 KiB (siw's G
# bit, mpa_large_fpdu) with CRC on and off.
iwtcp_variants() {
	local v crc markers large t vs=("on required 0" "off off 0"
		"off required 0" "on off 1" "off off 1")

	# icount: large FPDUs too, for the split per octet and per FPDU
	[[ $subset == crc ]] && vs=("on off 0" "off off 0")
	[[ $subset == icount ]] && vs=("on off 0" "off off 0" "on off 1"
		"off off 1")
	for v in "${vs[@]}"; do
		read -r crc markers large <<<"$v"
		set_both mpa_crc "$crc"
		set_both mpa_markers "$markers"
		set_both mpa_large_fpdu "$large"
		variant="crc-$crc/markers-${markers/required/on}"
		((large)) && variant+=/large
		# iwtcp's defaults: the subset's CRC-on figures
		[[ $variant == crc-on/markers-off ]] && variant=default
		if [[ $subset != icount ]]; then
			for t in ib_write_bw ib_read_bw ib_send_bw; do
				bw "$t" 65536 1
			done
		fi
		bw ib_send_bw 65536 1 events
		bw ib_read_bw 65536 1 events
	done
	set_both mpa_large_fpdu 0
	variant=default
}

# fio_point TEST RW BS: one fio job on the NFS mount (on $fio_file, when
# set) for DUR seconds, O_DIRECT (every read asks the server), 16 I/Os in
# flight: MB/s and guest CPU per GiB; "randread" also gives IOPS
# (TEST_iops).
fio_point() {
	local t=$1 rw=$2 bs=$3 b0 b1 u0 u1 res kib gib mbs iops cpu user

	b0=$(busy)
	u0=$(usr)
	res=$(timeout -k 10 120 fio --direct=1 --ioengine=libaio --iodepth=16 \
		--bs="$bs" --rw="$rw" --size=256m --runtime="$DUR" --time_based \
		--filename="${fio_file:-$mnt/bench}" --name="$t" --output-format=terse \
		--terse-version=3 2>&1) || { no_result "$t" "$bs" "$res"; return 0; }
	b1=$(busy)
	u1=$(usr)
	# Terse v3: 6 and 47 KiB read and written, 7 and 48 KiB/s, 8 and 49 IOPS.
	read -r kib mbs iops < <(awk -F';' 'NF > 49 {
		printf "%d %.2f %d\n", $6 + $47, ($7 + $48) * 1024 / 1e6, $8 + $49 }' \
		<<<"$res") || true
	[[ -n $kib && $kib != 0 ]] || { no_result "$t" "$bs" "$res"; return 0; }
	gib=$(awk -v k="$kib" 'BEGIN{print k / 2^20}')
	cpu=$(per_gib $((b1 - b0)) "$gib")
	user=$(per_gib $((u1 - u0)) "$gib")
	bs=$(numfmt --from=iec "${bs^^}")
	row "$t" "$bs" 1 "$mbs" MB/s "$cpu" "$user"
	[[ $rw == randread ]] && row "${t}_iops" "$bs" 1 "$iops" IOPS "$cpu" "$user"
	return 0
}

# NFS over iwtcp against NFS over TCP: one NFSv4.2 server in $ns2
# (nfs_lib.sh) listening on both, the same client and export (tmpfs).
# Rows of variant "nfs", system iwtcp (iwtcp's default settings) or tcp
# (the transport, both measured in this boot); tests fio_read and
# fio_write (1 MiB sequential), fio_randread (4 KiB random). Then variant
# "nfs-crc-off": NFS over iwtcp with CRC off on both devices, what the
# transport costs apart from the CRC (under emulation one crc32c pass
# costs about as much per octet as all of TCP), if the client's
# connection really runs without it (restrack's drv_crc).
nfs_suite() {
	local tr sys qps

	modprobe -a rpcrdma nfsd nfsv4
	NFS_EXPORT_SIZE=400m
	server_up
	variant=nfs
	for tr in rdma tcp; do
		sys=tcp
		[[ $tr == rdma ]] && sys=iwtcp
		nfs_mount 4.2 "$tr"
		nfs_layout "$mnt/bench"
		fio_point fio_read read 1m
		fio_point fio_write write 1m
		fio_point fio_randread randread 4k
		client_umount
	done
	sys=iwtcp
	variant=nfs-crc-off
	set_both mpa_crc off
	nfs_mount 4.2 rdma
	qps=$(rdma -dd resource show qp)
	if grep -q ' drv_crc 0 ' <<<"$qps" && ! grep -q ' drv_crc 1 ' <<<"$qps"; then
		fio_point fio_read read 1m
		fio_point fio_write write 1m
	else
		no_result nfs-crc-off 1m "$(grep -o 'drv_crc [0-9]*' <<<"$qps")"
	fi
	client_umount
	set_both mpa_crc on
	variant=default
	nfs_down
}

# nfs_points: nfs_suite, whose failure costs its own rows only (a note on
# stderr, as for a perftest point without a figure).
nfs_points() {
	local rc

	nfs_dir=$(mktemp -d)
	mnt=$nfs_dir/mnt
	mkdir "$mnt"
	set +e
	(set -e; nfs_suite)
	rc=$?
	set -e
	set_both mpa_crc on	# if nfs_suite stopped while CRC was off
	((rc == 0)) && return 0
	echo "# nfs: no result: nfs_suite failed ($rc)" >&2
	nfs_down
}

# NVMe over Fabrics, the RDMA transport over iwtcp against NVMe/TCP: the
# kernel's target (nvmet, interop_nvme.sh) exports a memory-backed
# null_blk namespace, its host connects, and fio_point runs on the host's
# block device. nvme-rdma and nvmet-rdma make their rdma_cm IDs in the
# initial namespace only, so target and host both run there. rdma_cm
# takes no RDMA device on lo: it resolves a local address to the netdev
# that holds it. So NVME_ADDR sits on a dummy netdev with an iwtcp device
# of iwtcp's defaults, and both transports' TCP connections run over lo,
# whose MTU is the veth pair's 1500 meanwhile, so that iwtcp's FPDUs are
# as large as between the namespaces. Rows of variant "nvme", system
# iwtcp (the RDMA transport) or tcp.
NVME_ADDR=198.51.100.1
nvme_suite() {
	local tr port=4420 sys variant

	modprobe -a nvmet nvmet-rdma nvme-rdma nvmet-tcp nvme-tcp
	modprobe dummy numdummies=0
	mkdir -p "$NVME_RUN"
	cat /sys/class/net/lo/mtu >"$NVME_RUN/lo_mtu"
	ip link add nvme_bench type dummy
	ip link set nvme_bench mtu 1500 up
	ip addr add "$NVME_ADDR/32" dev nvme_bench
	ip link set lo mtu 1500
	rdma link add iwtcp_nvme type iwtcp netdev nvme_bench
	# fio's 256 MiB written once first: neither transport finds the
	# memory-backed namespace's pages unallocated
	nvme_modules
	wait_for 30 _nvme_nullb_ready
	dd if=/dev/zero of=/dev/nullb0 bs=1M count=256 oflag=direct status=none
	variant=nvme
	for tr in rdma tcp; do
		sys=tcp
		[[ $tr == rdma ]] && sys=iwtcp
		NVME_TRTYPE=$tr
		port=$((port + 1))
		nvme_target_up "$port" "$NVME_ADDR"
		nvme_connect "$NVME_ADDR" "$port"
		fio_file=$(_nvme_dev "$(nvme_nqn "$port")")
		fio_point fio_read read 1m
		fio_point fio_write write 1m
		fio_point fio_randread randread 4k
		fio_file=
		nvme_disconnect "$port"
		nvme_target_down
	done
	nvme_down
}

# nvme_down: what nvme_suite set up, gone, lo's MTU back (quietly, after
# a failure too; nothing if it set nothing up).
nvme_down() {
	[[ -s $NVME_RUN/lo_mtu ]] || return 0
	nvme_cleanup >/dev/null 2>&1
	rdma link delete iwtcp_nvme 2>/dev/null || true
	ip link del nvme_bench 2>/dev/null || true
	ip link set lo mtu "$(cat "$NVME_RUN/lo_mtu")" || true
	rm -f "$NVME_RUN/lo_mtu"
}

# nvme_points: nvme_suite, whose failure costs its own rows only.
nvme_points() {
	local rc

	set +e
	(set -e; nvme_suite)
	rc=$?
	set -e
	((rc == 0)) && return 0
	echo "# nvme: no result: nvme_suite failed ($rc)" >&2
	nvme_down
}

test_cleanup() {
	nfs_down
	nvme_down
}

# Plain TCP on the same path: iperf3 bandwidth, qperf ping-pong latency.
tcp_suite() {
	local s b0 b1 u0 u1 bps octets mbs gib us out sizes=("${bw_sizes[@]}")

	((short)) && sizes=(65536)
	for s in "${sizes[@]}"; do
		next_port
		timeout 60 ip netns exec "$ns2" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
		wait_for 20 listening
		b0=$(busy)
		u0=$(usr)
		out=$(timeout 60 ip netns exec "$ns1" iperf3 -c 192.0.2.2 -p "$port" \
			-t "$DUR" -l "$s" -J 2>/dev/null) || true
		b1=$(busy)
		u1=$(usr)
		wait || true
		read -r bps octets < <(python3 -c 'import json,sys; r = json.load(sys.stdin)["end"]["sum_received"]; print(r["bits_per_second"], r["bytes"])' <<<"$out" 2>/dev/null) || continue
		mbs=$(awk -v b="$bps" 'BEGIN{printf "%.2f", b / 8 / 1e6}')
		gib=$(awk -v o="$octets" 'BEGIN{print o / 2^30}')
		row iperf3 "$s" 1 "$mbs" MB/s "$(per_gib $((b1 - b0)) "$gib")" \
			"$(per_gib $((u1 - u0)) "$gib")"
	done
	((short)) && return 0
	next_port
	ip netns exec "$ns2" qperf -lp "$port" >/dev/null 2>&1 &
	local srv=$!
	wait_for 20 listening
	for s in "${lat_sizes[@]}"; do
		out=$(timeout 60 ip netns exec "$ns1" qperf -lp "$port" -m "$s" \
			-t "$DUR" -vu 192.0.2.2 tcp_lat 2>&1) || true
		# qperf prints "latency = 12.3 us" (or ms)
		us=$(awk '/latency/{v = $3; if ($4 == "ms") v *= 1000; print v; exit}' <<<"$out")
		[[ -n $us ]] && row qperf_tcp_lat "$s" 1 "$us" usec ""
	done
	kill "$srv" 2>/dev/null || true
}

setup_two_hosts
hosts_no_refusals
variant=default
case $sys in
iwtcp | siw)
	modprobe "$sys"
	ip netns exec "$ns1" rdma link add "${sys}_a" type "$sys" netdev veth_a
	ip netns exec "$ns2" rdma link add "${sys}_b" type "$sys" netdev veth_b
	_created_links+=("$ns1 ${sys}_a" "$ns2 ${sys}_b")
	[[ $subset == all ]] && rdma_suite
	if [[ $sys == iwtcp ]]; then
		if [[ $subset == nvme ]]; then
			nvme_points
		else
			[[ $subset == nfs ]] || iwtcp_variants
			[[ $subset == nfs ]] || crc_pass
			((short)) || nfs_points
			[[ $subset == nfs ]] || ((short)) || nvme_points
		fi
	fi
	;;
tcp)
	tcp_suite
	crc_pass
	;;
*)
	echo "bench_guest: unknown system $sys" >&2
	exit 2
	;;
esac
echo "# $sys rep $rep: $(grep -c "^$rep," "$csv") points"
