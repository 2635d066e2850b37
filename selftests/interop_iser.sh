# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# iSCSI Extensions for RDMA (iSER) for the interoperability suite: a smoke
# test, sourced by selftests/interop.sh (guest A, iwtcp) and
# selftests/interop_peer.sh (guest B, siw), so that either guest can be
# the target or the initiator. ib_iser and ib_isert create their rdma_cm
# IDs in the initial network namespace only: everything runs in the
# guests' initial namespaces.
#
# Target: the kernel's LIO (iscsi_target_mod, ib_isert), configured
# through configfs: one iSCSI target with one LUN on a file in tmpfs
# (fileio), any initiator allowed, one network portal with iSER on the
# guest's address and the case's port. LIO always opens a TCP portal on
# the portal's address and port first, and a software iWARP listener
# (iwtcp's or siw's) is a kernel TCP socket too: on one address and port
# the two cannot both listen. So the portal is created from a scratch
# network namespace that holds the same address on a dummy device: LIO's
# TCP socket listens there (it is created in the namespace of the process
# that makes the portal), and the iSER listener in the initial namespace.
# Initiator: open-iscsi (iscsid, iscsiadm) with its "iser" interface.
#
# The functions print their diagnostics on stderr and fail on the first
# problem (callers run them with set -e).

ISER_RUN=/run/interop-iser	# the guest's own tmpfs: state, data
ISER_CFG=/sys/kernel/config/target
ISER_NS=iser-tcp		# LIO's TCP portal, out of iWARP's way
ISER_SIZE=4M			# written with dd, read back, checked on the target
# sd_mod: the LUN's disk (no udev in the guests to load it)
ISER_MODULES=(target_core_mod target_core_file iscsi_target_mod ib_isert
	ib_iser sd_mod)

_iser_log() {
	echo "# [iser] $(cut -d" " -f1 /proc/uptime) $*" >&2
}

# iser_iqn PORT: the target IQN of the case on PORT.
iser_iqn() {
	echo "iqn.2026-11.org.example.iwtcp:interop-$1"
}

# iser_modules: LIO, its iSER transport and the iSER initiator loaded
# (either guest may take either role).
iser_modules() {
	local m

	for m in "${ISER_MODULES[@]}"; do
		[[ -d /sys/module/$m ]] || { modprobe -a "${ISER_MODULES[@]}"; break; }
	done
}

_iser_listening() {
	ss -ltnH | grep -q ":$1 "
}

# iser_target_up PORT ADDR: LIO exporting a 64 MiB LUN as $(iser_iqn
# PORT) to any initiator, iSER listening on ADDR:PORT.
iser_target_up() {
	local port=$1 addr=$2 iqn t np

	iqn=$(iser_iqn "$port")
	t=$ISER_CFG/iscsi/$iqn/tpgt_1
	np=$t/np/$addr:$port
	_iser_log "target: $iqn on iser $addr:$port"
	iser_modules
	# LIO's fabrics appear when their directory is made.
	[[ -d $ISER_CFG ]]
	mkdir -p "$ISER_CFG/iscsi"
	[[ ! -e $ISER_CFG/iscsi/$iqn ]]
	mkdir -p "$ISER_RUN/store"
	mount -t tmpfs -o size=80m tmpfs "$ISER_RUN/store"
	truncate -s 64M "$ISER_RUN/store/lun0"
	mkdir -p "$ISER_CFG/core/fileio_0/lun0"
	echo "fd_dev_name=$ISER_RUN/store/lun0,fd_dev_size=67108864" \
		>"$ISER_CFG/core/fileio_0/lun0/control"
	echo 1 >"$ISER_CFG/core/fileio_0/lun0/enable"
	mkdir -p "$t/lun/lun_0"
	ln -s "$ISER_CFG/core/fileio_0/lun0" "$t/lun/lun_0/lun0"
	echo 1 >"$t/attrib/generate_node_acls"
	echo 1 >"$t/attrib/cache_dynamic_acls"
	echo 0 >"$t/attrib/demo_mode_write_protect"
	echo 0 >"$t/attrib/authentication"
	ip netns add "$ISER_NS"
	ip -n "$ISER_NS" link add dummy0 type dummy
	ip -n "$ISER_NS" addr add "$addr/32" dev dummy0
	ip -n "$ISER_NS" link set dummy0 up
	nsenter --net="/run/netns/$ISER_NS" mkdir "$np"
	echo 1 >"$np/iser"
	[[ $(cat "$np/iser") == 1 ]]
	echo 1 >"$t/enable"
	wait_for 20 _iser_listening "$port"
	_iser_log "target: LUN 0 on $ISER_RUN/store/lun0, iSER listening"
}

# iser_target_sum: the SHA-256 of the LUN's first $ISER_SIZE, read on the
# target from its backing file.
iser_target_sum() {
	local sum

	sum=$(head -c "$ISER_SIZE" "$ISER_RUN/store/lun0" | sha256sum |
		cut -d' ' -f1)
	_iser_log "target: $sum"
	echo "$sum"
}

# iser_target_down: every target, portal, LUN and backstore removed, the
# scratch namespace and the store gone. Quietly does what is left to do
# after a failure.
iser_target_down() {
	local t x rc=0

	for t in "$ISER_CFG"/iscsi/iqn.*/tpgt_*; do
		[[ -d $t ]] || continue
		echo 0 2>/dev/null >"$t/enable"
		for x in "$t"/lun/lun_*/*; do
			[[ -L $x ]] && { rm "$x" || rc=1; }
		done
		for x in "$t"/lun/lun_* "$t"/np/*; do
			[[ -d $x ]] && { rmdir "$x" || rc=1; }
		done
		rmdir "$t" "${t%/*}" || rc=1
	done
	for x in "$ISER_CFG"/core/fileio_*/*; do
		[[ -d $x ]] && { rmdir "$x" || rc=1; }
	done
	for x in "$ISER_CFG"/core/fileio_*; do
		[[ -d $x ]] && { rmdir "$x" || rc=1; }
	done
	if [[ -e /run/netns/$ISER_NS ]]; then
		ip netns del "$ISER_NS" || rc=1
	fi
	if mountpoint -q "$ISER_RUN/store"; then
		umount "$ISER_RUN/store" || rc=1
	fi
	_iser_log "target down"
	return "$rc"
}

# iser_initiator_up: iscsid running with this guest's initiator name.
iser_initiator_up() {
	iser_modules
	pgrep -x iscsid >/dev/null && return 0
	# The guest's root is an overlay: these stay out of the host's /etc.
	mkdir -p /etc/iscsi /run/lock/iscsi "$ISER_RUN"
	echo "InitiatorName=iqn.2026-11.org.example.iwtcp:initiator-$(cut -c1-8 \
		/proc/sys/kernel/random/uuid)" >/etc/iscsi/initiatorname.iscsi
	# It listens for iscsiadm before it forks: ready once it returns.
	iscsid </dev/null >/dev/null 2>&1
	_iser_log "iscsid running"
}

# _iser_dev IQN: the LUN's block device on the initiator, /dev/sdX.
_iser_dev() {
	local s b

	for s in /sys/class/iscsi_session/session*; do
		[[ -e $s/targetname && $(cat "$s/targetname") == "$1" ]] ||
			continue
		for b in "$s"/device/target*/*/block/*; do
			[[ -b /dev/${b##*/} ]] || continue
			echo "/dev/${b##*/}"
			return 0
		done
	done
	return 1
}

_iser_no_session() {
	! _iser_dev "$1" && ! iscsiadm -m session 2>/dev/null | grep -q "$1"
}

# iser_login ADDR PORT: a session with the case's target over iSER, its
# LUN a block device.
iser_login() {
	local addr=$1 port=$2 iqn dev sess

	iqn=$(iser_iqn "$port")
	iser_initiator_up
	timeout -k 5 30 iscsiadm -m node -o new -T "$iqn" -p "$addr:$port" \
		-I iser >&2
	timeout -k 5 90 iscsiadm -m node -T "$iqn" -p "$addr:$port" -I iser \
		--login >&2
	sess=$(iscsiadm -m session | grep " $iqn")
	_iser_log "session: $sess"
	[[ $sess == iser:* ]]
	wait_for 30 _iser_dev "$iqn"
	dev=$(_iser_dev "$iqn")
	_iser_log "logged in: $dev, $(($(blockdev --getsize64 "$dev") >> 20)) MiB"
}

# iser_io PORT: $ISER_SIZE of new random data written to the LUN with
# O_DIRECT and read back the same way (the same SHA-256). Prints the
# data's SHA-256 last.
iser_io() {
	local dev t0=$SECONDS sum back

	dev=$(_iser_dev "$(iser_iqn "$1")")
	mkdir -p "$ISER_RUN"
	head -c "$ISER_SIZE" /dev/urandom >"$ISER_RUN/data"
	sum=$(sha256sum <"$ISER_RUN/data" | cut -d' ' -f1)
	timeout -k 5 120 dd if="$ISER_RUN/data" of="$dev" bs=1M oflag=direct \
		status=none
	_iser_log "wrote $ISER_SIZE to $dev in $((SECONDS - t0)) s"
	t0=$SECONDS
	back=$(timeout -k 5 120 dd if="$dev" bs="$ISER_SIZE" count=1 \
		iflag=direct status=none | sha256sum | cut -d' ' -f1)
	_iser_log "read back in $((SECONDS - t0)) s: $back"
	[[ $back == "$sum" ]]
	echo "$sum"
}

# iser_logout ADDR PORT: the session ended, its node record and block
# device gone.
iser_logout() {
	local addr=$1 port=$2 iqn

	iqn=$(iser_iqn "$port")
	timeout -k 5 60 iscsiadm -m node -T "$iqn" -p "$addr:$port" \
		--logout >&2
	timeout -k 5 30 iscsiadm -m node -o delete -T "$iqn" \
		-p "$addr:$port" >&2
	wait_for 20 _iser_no_session "$iqn"
	_iser_log "logged out"
}

# iser_initiator_down: iscsid stopped.
iser_initiator_down() {
	pkill -x iscsid || true
	wait_for 20 _iser_not pgrep -x iscsid
	_iser_log "iscsid stopped"
}

_iser_not() {
	! "$@"
}

# iser_cleanup: after a failure, away with every session, iscsid and
# everything the target set up.
iser_cleanup() {
	timeout -k 5 60 iscsiadm -m node --logoutall=all >/dev/null 2>&1 ||
		true
	timeout -k 5 30 iscsiadm -m node -o delete >/dev/null 2>&1 || true
	pkill -x iscsid 2>/dev/null || true
	iser_target_down || true
}
