# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NVMe over Fabrics with the RDMA transport for the interoperability
# suite: sourced by selftests/interop.sh (guest A, iwtcp) and
# selftests/interop_peer.sh (guest B, siw), so that either guest can be
# the target or the host of a case. nvme-rdma and nvmet-rdma create their
# rdma_cm IDs in the initial network namespace only: everything runs in
# the guests' initial namespaces. make bench (selftests/bench_guest.sh)
# takes its target and host too, for NVMe over iwtcp against NVMe/TCP
# (NVME_TRTYPE below).
#
# Target: the kernel's nvmet, configured through configfs: one subsystem
# (any host allowed) with one namespace on null_blk (memory backed; a
# loop device over a file in tmpfs when null_blk is missing), one RDMA
# port on the guest's address and the case's port (in the suite's range,
# so that guest A's capture has the connections and the wire judge
# decodes them like any other case). Host: nvme-cli (discover, connect,
# disconnect) over nvme-rdma, one controller at a time.
#
# The functions print their diagnostics on stderr and fail on the first
# problem (callers run them with set -e). Every nvme-cli command runs
# under timeout.

NVME_RUN=/run/interop-nvme	# the guest's own tmpfs: state, data
NVME_CFG=/sys/kernel/config/nvmet
NVME_SIZE=4M			# written with dd, read back, checked on the target
NVME_FIO_SIZE=2M		# fio with verify=crc32c, after the dd data
NVME_MODULES=(nvmet nvmet-rdma nvme-rdma)
# The transport of nvme_target_up()'s port and nvme_connect()'s
# controller: rdma for the interoperability suite; make bench's NVMe/TCP
# rows set tcp (selftests/bench_guest.sh). nvme_discover() is RDMA's.
NVME_TRTYPE=rdma
# null_blk: one memory-backed device (its pages allocated as written).
NVME_NULLB_OPTS="nr_devices=1 memory_backed=1 gb=1"
# What a kernel log must not show during a case.
NVME_BAD_LOG='WARNING|\bBUG\b|Call Trace|Oops|general protection|refcount_t'

_nvme_log() {
	echo "# [nvme] $(cut -d" " -f1 /proc/uptime) $*" >&2
}

# An assertion that a command fails (set -e ignores "! command").
_nvme_not() {
	! "$@"
}

# nvme_nqn PORT: the subsystem NQN of the case on PORT.
nvme_nqn() {
	echo "nqn.2026-11.org.example.iwtcp:interop-$1"
}

# nvme_modules: NVMe-oF's modules loaded, and null_blk with one memory
# backed device (selftests/interop.sh has both guests load them early:
# modprobe takes seconds under emulation). null_blk may be missing: the
# target then falls back to a loop device.
nvme_modules() {
	local m

	for m in "${NVME_MODULES[@]}"; do
		[[ -d /sys/module/${m//-/_} ]] ||
			{ modprobe -a "${NVME_MODULES[@]}"; break; }
	done
	if [[ ! -d /sys/module/null_blk ]]; then
		# shellcheck disable=SC2086 # the options' words
		modprobe null_blk $NVME_NULLB_OPTS ||
			_nvme_log "no null_blk: the target will use a loop device"
	fi
}

_nvme_nullb_ready() {
	[[ -b /dev/nullb0 &&
	   $(cat /sys/module/null_blk/parameters/memory_backed) == [1Y] ]]
}

_nvme_listening() {
	ss -ltnH | grep -q ":$1 "
}

# nvme_target_up PORT ADDR: nvmet exporting one namespace as subsystem
# $(nvme_nqn PORT) to any host, on a port of $NVME_TRTYPE listening on
# ADDR:PORT.
nvme_target_up() {
	local port=$1 addr=$2 nqn dev subsys p

	nqn=$(nvme_nqn "$port")
	subsys=$NVME_CFG/subsystems/$nqn
	p=$NVME_CFG/ports/$port
	_nvme_log "target: $nqn on $NVME_TRTYPE $addr:$port"
	nvme_modules
	mkdir -p "$NVME_RUN"
	[[ -d $NVME_CFG ]]
	# No leftover of an earlier case.
	_nvme_not test -e "$subsys"
	_nvme_not test -e "$p"
	if [[ -d /sys/module/null_blk ]]; then
		wait_for 30 _nvme_nullb_ready
		dev=/dev/nullb0
	else
		mkdir -p "$NVME_RUN/store"
		mount -t tmpfs -o size=80m tmpfs "$NVME_RUN/store"
		truncate -s 64M "$NVME_RUN/store/ns1"
		dev=$(losetup --find --show "$NVME_RUN/store/ns1")
		echo "$dev" >"$NVME_RUN/loop"
	fi
	echo "$dev" >"$NVME_RUN/dev"
	mkdir "$subsys"
	echo 1 >"$subsys/attr_allow_any_host"
	mkdir "$subsys/namespaces/1"
	echo -n "$dev" >"$subsys/namespaces/1/device_path"
	echo 1 >"$subsys/namespaces/1/enable"
	[[ $(cat "$subsys/namespaces/1/enable") == 1 ]]
	mkdir "$p"
	echo "$NVME_TRTYPE" >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$addr" >"$p/addr_traddr"
	echo "$port" >"$p/addr_trsvcid"
	# The link enables the port: nvmet-rdma (nvmet-tcp) listens.
	ln -s "$subsys" "$p/subsystems/$nqn"
	wait_for 20 _nvme_listening "$port"
	_nvme_log "target: namespace 1 on $dev, listening"
}

# nvme_target_down: the port, namespace and subsystem of every case
# removed, the loop device detached. Quietly does what is left to do
# after a failure.
nvme_target_down() {
	local l p s rc=0

	for l in "$NVME_CFG"/ports/*/subsystems/*; do
		[[ -L $l ]] || continue
		rm "$l" || rc=1
	done
	for p in "$NVME_CFG"/ports/*; do
		[[ -d $p ]] || continue
		rmdir "$p" || rc=1
	done
	for s in "$NVME_CFG"/subsystems/*; do
		[[ -d $s ]] || continue
		for p in "$s"/namespaces/*; do
			[[ -d $p ]] || continue
			echo 0 >"$p/enable" || rc=1
			rmdir "$p" || rc=1
		done
		rmdir "$s" || rc=1
	done
	if [[ -s $NVME_RUN/loop ]]; then
		losetup -d "$(cat "$NVME_RUN/loop")" || rc=1
		rm -f "$NVME_RUN/loop"
	fi
	if awk -v m="$NVME_RUN/store" '$2 == m { f = 1 } END { exit !f }' \
		/proc/mounts; then
		umount "$NVME_RUN/store" || rc=1
	fi
	_nvme_log "target down"
	return "$rc"
}

# nvme_target_sum: the SHA-256 of the namespace's first $NVME_SIZE, read
# on the target from its backing device.
nvme_target_sum() {
	local sum

	sum=$(dd if="$(cat "$NVME_RUN/dev")" bs="$NVME_SIZE" count=1 \
		iflag=direct status=none | sha256sum | cut -d' ' -f1)
	_nvme_log "target: $sum"
	echo "$sum"
}

# _nvme_ctrls NQN: the host's controllers (nvme0 ...) of subsystem NQN.
_nvme_ctrls() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[[ -e $c/subsysnqn && $(cat "$c/subsysnqn") == "$1" ]] &&
			echo "${c##*/}"
	done
	return 0
}

# _nvme_dev NQN: the namespace's block device on the host, /dev/nvmeXnY
# (with native multipath the subsystem's, else the controller's).
_nvme_dev() {
	local b

	for b in /sys/block/nvme*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[[ -e $b/device/subsysnqn &&
		   $(cat "$b/device/subsysnqn") == "$1" ]] || continue
		[[ -b /dev/${b##*/} ]] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}

_nvme_no_ctrl() {
	[[ -z $(_nvme_ctrls "$1") ]]
}

# nvme_discover ADDR PORT: the target's discovery log lists the case's
# subsystem, over RDMA, on PORT.
nvme_discover() {
	local addr=$1 port=$2 nqn log

	nqn=$(nvme_nqn "$port")
	nvme_modules
	log=$(timeout -k 5 60 nvme discover -t rdma -a "$addr" -s "$port")
	awk '{ print "# discover: " $0 }' <<<"$log" >&2
	grep -qE "^subnqn: +$nqn\$" <<<"$log"
	grep -qE "^trsvcid: +$port\$" <<<"$log"
	grep -qE "^trtype: +rdma\$" <<<"$log"
	# The discovery controller is gone again.
	wait_for 20 _nvme_no_ctrl nqn.2014-08.org.nvmexpress.discovery
}

# nvme_connect ADDR PORT: one controller of the case's subsystem, over
# $NVME_TRTYPE to ADDR:PORT, its namespace a block device.
nvme_connect() {
	local addr=$1 port=$2 nqn c dev

	nqn=$(nvme_nqn "$port")
	nvme_modules
	_nvme_no_ctrl "$nqn"
	timeout -k 5 90 nvme connect -t "$NVME_TRTYPE" -a "$addr" -s "$port" \
		-n "$nqn" >&2
	c=$(_nvme_ctrls "$nqn")
	[[ $c =~ ^nvme[0-9]+$ ]]
	[[ $(cat "/sys/class/nvme/$c/transport") == "$NVME_TRTYPE" ]]
	grep -q "traddr=$addr,trsvcid=$port" "/sys/class/nvme/$c/address"
	wait_for 30 _nvme_dev "$nqn"
	dev=$(_nvme_dev "$nqn")
	_nvme_log "connected: $c ($(cat "/sys/class/nvme/$c/state")," \
		"$(cat "/sys/class/nvme/$c/queue_count") queues), $dev," \
		"$(($(blockdev --getsize64 "$dev") >> 20)) MiB"
}

# nvme_io PORT: $NVME_SIZE of new random data written to the namespace
# with O_DIRECT and read back the same way (the same SHA-256); with fio,
# also $NVME_FIO_SIZE written and verified (crc32c) after it. Prints the
# data's SHA-256 last.
nvme_io() {
	local nqn dev t0=$SECONDS sum back

	nqn=$(nvme_nqn "$1")
	dev=$(_nvme_dev "$nqn")
	mkdir -p "$NVME_RUN"
	head -c "$NVME_SIZE" /dev/urandom >"$NVME_RUN/data"
	sum=$(sha256sum <"$NVME_RUN/data" | cut -d' ' -f1)
	echo "$sum" >"$NVME_RUN/sum"
	timeout -k 5 120 dd if="$NVME_RUN/data" of="$dev" bs=1M oflag=direct \
		status=none
	_nvme_log "wrote $NVME_SIZE to $dev in $((SECONDS - t0)) s"
	t0=$SECONDS
	back=$(timeout -k 5 120 dd if="$dev" bs="$NVME_SIZE" count=1 \
		iflag=direct status=none | sha256sum | cut -d' ' -f1)
	_nvme_log "read back in $((SECONDS - t0)) s: $back"
	[[ $back == "$sum" ]]
	if command -v fio >/dev/null; then
		t0=$SECONDS
		timeout -k 5 180 fio --name=interop-nvme --filename="$dev" \
			--offset="$NVME_SIZE" --size="$NVME_FIO_SIZE" \
			--rw=randwrite --bs=64k --direct=1 --ioengine=libaio \
			--iodepth=4 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --output-format=terse --terse-version=3 \
			>"$NVME_RUN/fio.log" 2>&1 ||
			{ cat "$NVME_RUN/fio.log" >&2; false; }
		_nvme_log "fio: $NVME_FIO_SIZE written and verified in $((SECONDS - t0)) s"
	fi
	echo "$sum"
}

# nvme_reread PORT: the data nvme_io wrote, read again (O_DIRECT), has
# its SHA-256 still.
nvme_reread() {
	local dev back

	dev=$(_nvme_dev "$(nvme_nqn "$1")")
	back=$(timeout -k 5 120 dd if="$dev" bs="$NVME_SIZE" count=1 \
		iflag=direct status=none | sha256sum | cut -d' ' -f1)
	_nvme_log "reread from $dev: $back"
	[[ $back == "$(cat "$NVME_RUN/sum")" ]]
}

# nvme_disconnect PORT: the controller of the case's subsystem
# disconnected, its block device gone.
nvme_disconnect() {
	local nqn log

	nqn=$(nvme_nqn "$1")
	log=$(timeout -k 5 60 nvme disconnect -n "$nqn")
	_nvme_log "$log"
	[[ $log == *"disconnected 1 controller(s)"* ]]
	wait_for 20 _nvme_no_ctrl "$nqn"
	_nvme_not _nvme_dev "$nqn"
}

_nvme_qps() {
	rdma resource show qp | grep -c "^link $DEV/" || true
}

_nvme_no_qp() {
	(($(_nvme_qps) == 0))
}

# nvme_no_qp: no QP left on this guest's RDMA device (the target frees
# its queues in a work item: wait for it).
nvme_no_qp() {
	wait_for 30 _nvme_no_qp || { rdma resource show qp >&2; false; }
	_nvme_log "no QP on $DEV: $(rdma resource show | grep " $DEV: ")"
}

# nvme_log_mark: the kernel log from here on is the case's.
nvme_log_mark() {
	mkdir -p "$NVME_RUN"
	dmesg | wc -l >"$NVME_RUN/log0"
}

# nvme_log_clean: the kernel log since nvme_log_mark shows no warning,
# BUG or call trace.
nvme_log_clean() {
	local hits

	hits=$(dmesg | tail -n "+$(($(cat "$NVME_RUN/log0") + 1))" |
		grep -E "$NVME_BAD_LOG") || true
	[[ -z $hits ]] || { echo "$hits" >&2; false; }
	_nvme_log "kernel log clean"
}

# nvme_cleanup: after a failure, away with every controller of the host
# and everything the target set up.
nvme_cleanup() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[[ -e $c/delete_controller ]] || continue
		timeout -k 5 30 sh -c "echo 1 >$c/delete_controller" || true
	done
	nvme_target_down || true
}
