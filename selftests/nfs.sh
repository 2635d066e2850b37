#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA (RPC-over-RDMA version 1: the kernel's rpcrdma client and
# svcrdma server, net/sunrpc/xprtrdma) between two iwtcp hosts, for NFSv3,
# NFSv4.1 and NFSv4.2: fio with crc32c verification at 4 KiB, 64 KiB and
# 1 MiB blocks, a file copied in and out, create/rename/delete churn; then,
# on NFSv4.2, faults under I/O (nfsd restarted, the client's rdma link
# deleted and re-added, carrier lost for 5 s) and at the end rpcrdma
# unloads. Runs in the guest; topology: lib.sh's two hosts.
#
# Server and client: selftests/nfs_lib.sh.
#
# Mounts are hard: a client-side access to a dead server blocks, so every
# one runs under timeout, and each case first makes sure that the server
# and the mount are there (lib.sh ends every process of the namespaces
# after a failed case, the server's with them).

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=nfs_lib.sh
source "$(dirname "$0")/nfs_lib.sh"

require_cmd ip rdma nsenter mount umount timeout fio sha256sum python3 \
	rpc.nfsd rpc.mountd exportfs rpcbind nfsdcld mount.nfs
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"
require_module rpcrdma nfsd nfsv3 nfsv4

out=$(mktemp -d)
nfs_dir=$out
mnt=$out/mnt
mkdir "$mnt"

# ready VERSION: the server runs, both links exist and the export is
# mounted with VERSION; whatever is missing is set up again.
ready() {
	if ! srv_alive; then
		client_umount
		server_down
		server_up
	fi
	# A mount whose device went away reconnects once it is back.
	if ! rdma link show iwtcp_a/1 >/dev/null 2>&1; then
		ip netns exec "$ns1" rdma link add iwtcp_a type iwtcp netdev veth_a
	fi
	mounted_as "$1" || { client_umount; nfs_mount "$1"; }
}

# Client-side commands with a bound (longer on a slow kernel): c COMMAND...
c() {
	timeout -k 5 $((180 * IWTCP_SLOW)) "$@"
}

# The mountstats "xprt:" line of $mnt: "rdma 0 BINDS CONNECTS ...".
xprt_line() {
	sed -n "\\|mounted on $mnt with|,/^device/p" /proc/self/mountstats |
		grep -m1 $'^\txprt:'
}

connects() {
	xprt_line | awk '{ print $5 }'
}

qps_on() {
	rdma resource show qp | grep -c "^link $1/" || true
}

# mount_case VERSION
mount_case() {
	local v=$1 opts

	client_umount
	ready "$v"
	opts=$(mount_opts)
	echo "# $opts" >&2
	[[ ,$opts, == *,vers=$v,* && ,$opts, == *,proto=rdma,* ]]
	xprt_line >&2
	[[ $(xprt_line) == $'\txprt:\trdma '* ]]
	# The transport's queue pairs live on the two iwtcp devices.
	(($(qps_on iwtcp_a) >= 1 && $(qps_on iwtcp_b) >= 1))
}

umount_case() {
	mounted
	timeout -k 10 60 umount "$mnt"
	not mounted
	# The client's transport, its QP with it, goes with the last mount.
	wait_for 30 test "$(qps_on iwtcp_a)" = 0
}

# --- workloads ---------------------------------------------------------------

FIO=(fio --direct=1 --ioengine=libaio --iodepth=4 --verify=crc32c
     --verify_fatal=1 --output-format=terse --terse-version=3)

# fio_case VERSION BS SIZE: sequential write (verified as it goes),
# sequential read, random write, random read, every block's crc32c checked,
# O_DIRECT: every read asks the server. Bandwidths (KiB/s) to the log.
fio_case() {
	local v=$1 bs=$2 size=$3 f=$mnt/fio-$2 r=$out/fio-$2

	ready "$v"
	c rm -f "$f" "$f.rand"
	c "${FIO[@]}" --bs="$bs" --size="$size" \
		--name=write --rw=write --filename="$f" \
		--name=read --stonewall --rw=read --filename="$f" \
		--name=randwrite --stonewall --rw=randwrite --filename="$f.rand" \
		--name=randread --stonewall --rw=randread --filename="$f.rand" \
		>"$r" 2>&1 || { cat "$r" >&2; return 1; }
	# Terse v3: 3 job name, 5 error, 7 read KiB/s, 48 write KiB/s.
	awk -F';' -v v="$v" -v bs="$bs" 'NF > 48 {
		printf "# fio NFSv%s %s %s: read %s KiB/s, write %s KiB/s, error %s\n",
			v, bs, $3, $7, $48, $5 }' "$r" >&2
	[[ $(awk -F';' 'NF > 48' "$r" | wc -l) == 4 ]]
	[[ -z $(awk -F';' 'NF > 48 && $5 != 0' "$r") ]]
	c rm -f "$f" "$f.rand"
}

# Drop the client's page cache: the next read asks the server.
drop_caches() {
	c sh -c 'sync && echo 3 >/proc/sys/vm/drop_caches'
}

# An 8 MiB file copied onto the export and back, through the page cache
# (writeback, readahead): the same SHA-256 here, on the server, and back.
copy_case() {
	local sum t0

	ready "$1"
	[[ -s $out/big ]] || head -c 8M /dev/urandom >"$out/big"
	sum=$(sha256sum <"$out/big")
	t0=$SECONDS
	c cp "$out/big" "$mnt/big"
	c sync
	echo "# copy in: $((SECONDS - t0)) s" >&2
	[[ $(srv sh -c "sha256sum <$EXPORT/big") == "$sum" ]]
	drop_caches
	rm -f "$out/back"
	t0=$SECONDS
	c cp "$mnt/big" "$out/back"
	echo "# copy out: $((SECONDS - t0)) s" >&2
	[[ $(sha256sum <"$out/back") == "$sum" ]]
	c rm "$mnt/big"
	rm "$out/back"
	srv test ! -e "$EXPORT/big"
}

# 60 files created with distinct contents, renamed, half deleted, the rest
# checked here (after dropping caches) and on the server, then all
# removed: the server's directory goes too.
churn_case() {
	local d=$mnt/churn

	ready "$1"
	c rm -rf "$d"
	c python3 - "$d" <<'EOF'
import hashlib, os, sys
d = sys.argv[1]
os.mkdir(d)
data = lambda i: hashlib.sha256(str(i).encode()).digest() * (i * 37 % 300 + 1)
for i in range(60):
    with open(f"{d}/new-{i}", "wb") as f:
        f.write(data(i))
for i in range(60):
    os.rename(f"{d}/new-{i}", f"{d}/file-{i}")
for i in range(1, 60, 2):
    os.unlink(f"{d}/file-{i}")
assert sorted(os.listdir(d)) == sorted(f"file-{i}" for i in range(0, 60, 2))
EOF
	drop_caches
	c sh -c "cd $d && sha256sum -- *" | sort >"$out/churn.client"
	[[ $(wc -l <"$out/churn.client") == 30 ]]
	srv sh -c "cd $EXPORT/churn && sha256sum -- *" | sort >"$out/churn.server"
	diff "$out/churn.client" "$out/churn.server" >&2
	c rm -r "$d"
	srv test ! -e "$EXPORT/churn"
}

# fio's verification is real: a block changed on the server fails the read.
corruption_case() {
	local f=$mnt/corrupt

	ready "$1"
	c "${FIO[@]}" --name=w --rw=write --bs=64k --size=1m \
		--filename="$f" >"$out/fio-corrupt" 2>&1
	srv dd if=/dev/zero of="$EXPORT/corrupt" bs=4k count=1 seek=7 \
		conv=notrunc status=none
	not c "${FIO[@]}" --name=r --rw=read --bs=64k --size=1m \
		--filename="$f" >"$out/fio-corrupt" 2>&1
	grep -m1 'verify failed' "$out/fio-corrupt" >&2
	c rm -f "$f"
}

# --- faults under I/O --------------------------------------------------------

# fault_case VERSION INJECT [reconnect]: a verified fio write, rate-limited
# to 1 MiB/s for 8 MiB, runs while INJECT disturbs the path; it must end
# with its data verified within the RPC timeouts (three minutes are
# plenty). With "reconnect", the transport must have connected anew.
fault_case() {
	local inject=$2 f=$mnt/fault before pid rc=0 t0=$SECONDS

	ready "$1"
	c rm -f "$f"
	before=$(connects)
	timeout -k 5 180 "${FIO[@]}" --name=fault --rw=write --bs=256k \
		--size=8m --rate=1m --filename="$f" >"$out/fio-fault" 2>&1 &
	pid=$!
	# shellcheck disable=SC2064 # this pid, now
	trap "kill $pid 2>/dev/null" EXIT
	wait_for 60 timeout 5 test -s "$f"
	kill -0 "$pid"		# the fault hits running I/O
	echo "# I/O running, $inject at $((SECONDS - t0)) s" >&2
	"$inject"
	echo "# $inject done at $((SECONDS - t0)) s" >&2
	wait "$pid" || rc=$?
	trap - EXIT
	echo "# fio ended with status $rc at $((SECONDS - t0)) s;" \
		"transport connects $before -> $(connects)" >&2
	((rc == 0)) || { cat "$out/fio-fault" >&2; return 1; }
	[[ ${3:-} != reconnect ]] || (($(connects) > before))
	c rm -f "$f"
}

restart_nfsd() {
	srv rpc.nfsd 0
	not srv grep -q rdma /proc/fs/nfsd/portlist
	sleep 3
	start_nfsd
}

relink_client() {
	timeout 60 ip netns exec "$ns1" rdma link delete iwtcp_a
	sleep 3
	ip netns exec "$ns1" rdma link add iwtcp_a type iwtcp netdev veth_a
}

# listens NS: a TCP socket listens on $PORT in namespace NS.
listens() {
	[[ -n $(ip netns exec "$1" ss -ltnH "sport = :$PORT") ]]
}

# rdma_cm extends nfsd's wildcard listener to every device added later.
# On the server's re-added device it listens again; on the client's it
# must not (the listener belongs to the server's namespace, not to the
# namespace of the task adding the link).
relink_listener_case() {
	client_umount
	listens "$ns2"
	not listens "$ns1"
	timeout 60 ip netns exec "$ns2" rdma link delete iwtcp_b
	not listens "$ns2"
	ip netns exec "$ns2" rdma link add iwtcp_b type iwtcp netdev veth_b
	wait_for 10 listens "$ns2"
	relink_client
	not listens "$ns1"
	# Both links gone, the client's comes back first: nothing tells
	# iwtcp whose listener it extends there (see iwtcp-nfs.rst), but
	# that guess must not cost the server its own listener.
	timeout 60 ip netns exec "$ns1" rdma link delete iwtcp_a
	timeout 60 ip netns exec "$ns2" rdma link delete iwtcp_b
	ip netns exec "$ns1" rdma link add iwtcp_a type iwtcp netdev veth_a
	ip netns exec "$ns2" rdma link add iwtcp_b type iwtcp netdev veth_b
	wait_for 10 listens "$ns2"
	copy_case "$1"
}

# Down on veth_b: veth_a loses its carrier (iwtcp_a's port goes DOWN).
drop_carrier() {
	ip -n "$ns2" link set veth_b down
	wait_for 10 bash -c "ip -n $ns1 link show veth_a | grep -q NO-CARRIER"
	sleep 5
	ip -n "$ns2" link set veth_b up
}

# --- the end -----------------------------------------------------------------

# nfsd stopped, rpcrdma unloads: no transport holds an iwtcp resource.
unload_case() {
	not mounted
	holder_alive
	srv rpc.nfsd 0
	wait_for 30 modprobe -r rpcrdma
	[[ ! -d /sys/module/rpcrdma ]]
	rdma resource show | grep -E 'iwtcp_[ab]:' | tee "$out/res" >&2
	[[ $(wc -l <"$out/res") == 2 ]]
	not grep -vqE ' pd 0 cq 0 qp 0 cm_id 0 mr 0 ' "$out/res"
}

test_cleanup() {
	client_umount
	if holder_alive && [[ $(srv cat /proc/fs/nfsd/threads) != 0 ]]; then
		srv rpc.nfsd 0
	fi
	rm -rf "$out"
}

timed() {
	local start=$SECONDS name=$1

	shift
	ktap_run "$name" "$@"
	echo "# $name: $((SECONDS - start)) s"
}

versions=(3 4.1 4.2)
ktap_plan $((1 + ${#versions[@]} * 7 + 5 + 1))
setup_two_hosts
timed "server in $ns2: nfsd with rdma $PORT in its portlist" server_started
for v in "${versions[@]}"; do
	timed "NFSv$v: mount with proto=rdma, transport on iwtcp" mount_case "$v"
	for bs in 4k:256k 64k:2m 1m:8m; do
		timed "NFSv$v: fio ${bs%:*} blocks, ${bs#*:}, seq/random write/read, crc32c" \
			fio_case "$v" "${bs%:*}" "${bs#*:}"
	done
	timed "NFSv$v: 8 MiB copied in and out, same SHA-256" copy_case "$v"
	timed "NFSv$v: create/rename/delete churn, server agrees" churn_case "$v"
	if [[ $v == "${versions[-1]}" ]]; then
		timed "NFSv$v: a block corrupted on the server fails fio's verify" \
			corruption_case "$v"
		timed "NFSv$v: nfsd restarted during I/O, I/O completes verified" \
			fault_case "$v" restart_nfsd reconnect
		timed "NFSv$v: client's rdma link deleted and re-added during I/O" \
			fault_case "$v" relink_client reconnect
		timed "NFSv$v: carrier lost for 5 s during I/O, I/O completes" \
			fault_case "$v" drop_carrier
		timed "NFSv$v: links re-added under nfsd: it listens on the server's only" \
			relink_listener_case "$v"
	fi
	timed "NFSv$v: unmount, the client's QP is gone" umount_case
done
timed "nfsd stopped, rpcrdma unloads, no iwtcp resource left" unload_case
ktap_finish
