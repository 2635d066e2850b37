#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An NFS server and client on lib.sh's two hosts, sourced by
# selftests/nfs.sh (the NFS over RDMA suite) and selftests/bench_guest.sh
# (NFS over iwtcp against NFS over TCP) and selftests/profile_guest.sh.
# The caller sources lib.sh, sets $nfs_dir (a scratch folder in the
# guest's own tmpfs) and $mnt (the client's mount point), and calls
# setup_two_hosts before server_up.
#
# Server: nfsd, rpc.mountd, rpcbind and nfsdcld in $ns2 with a mount
# namespace of their own (a "holder" process keeps it alive; every server
# command enters it with nsenter). There the nfsd filesystem is mounted on
# /proc/fs/nfsd, so rpc.nfsd's "rdma 20049" lands in $ns2's nfsd (nfsd is
# per network namespace, and the namespace of the nfsd mount decides), and
# tmpfs covers /run, /var/lib/nfs and the export /srv (NFS_EXPORT_SIZE,
# default 200m): nothing of the machine's own NFS state is touched. nfsd
# also listens on TCP port 2049, as rpc.nfsd does by default.
#
# Client: mounts are made with `nsenter --net`, which enters $ns1's network
# namespace but keeps this script's mount namespace, so the mount outlives
# the mount command (`ip netns exec` gives each command a private mount
# namespace, and a mount made in it vanishes with it). The NFS client uses
# the network namespace of the mount, and rpcrdma creates its rdma_cm id
# there; iwtcp creates its TCP sockets in the namespace of its netdev.

# shellcheck disable=SC2154 # nfs_dir and mnt are the caller's, ns1 and ns2 lib.sh's
PORT=20049
EXPORT=/srv
: "${NFS_EXPORT_SIZE:=200m}"

# An assertion that a command fails (set -e ignores "! command").
not() {
	! "$@"
}

# --- server ------------------------------------------------------------------

# Run a command in the server's network and mount namespaces.
srv() {
	echo "# [server] $*" >&2
	nsenter -t "$(cat "$nfs_dir/holder")" -m -n "$@"
}

holder_alive() {
	[[ -s $nfs_dir/holder ]] && kill -0 "$(cat "$nfs_dir/holder")" 2>/dev/null
}

srv_alive() {
	holder_alive && srv grep -q "^rdma $PORT\$" /proc/fs/nfsd/portlist
}

is_sleep() {
	[[ $(cat "/proc/$1/comm" 2>/dev/null) == sleep ]]
}

start_nfsd() {
	# Short NFSv4 grace and lease: a restart must not stall the test.
	srv rpc.nfsd --grace-time 10 --lease-time 10 --rdma="$PORT" 4
	srv grep -q "^rdma $PORT\$" /proc/fs/nfsd/portlist
	srv grep -q "^tcp 2049\$" /proc/fs/nfsd/portlist
}

server_up() {
	local pid

	ip netns exec "$ns2" sleep 100000 </dev/null >/dev/null 2>&1 &
	pid=$!
	echo "$pid" >"$nfs_dir/holder"
	# ip netns exec sets up the mount namespace, then execs sleep.
	wait_for $((10 * IWTCP_SLOW)) is_sleep "$pid"
	srv mount -t tmpfs -o mode=0755 tmpfs /run
	srv mount -t tmpfs -o mode=0755 tmpfs /var/lib/nfs
	srv mkdir /var/lib/nfs/rpc_pipefs /var/lib/nfs/nfsdcld
	srv touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	srv mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs
	# The daemons read /etc/nfs.conf: this one, not the machine's
	# (Debian's puts rpc_pipefs in /run/rpc_pipefs).
	printf '[general]\npipefs-directory=/var/lib/nfs/rpc_pipefs\n' \
		>"$nfs_dir/nfs.conf"
	srv mount --bind "$nfs_dir/nfs.conf" /etc/nfs.conf
	srv mount -t nfsd nfsd /proc/fs/nfsd
	srv mount -t tmpfs -o mode=0755,size="$NFS_EXPORT_SIZE" tmpfs "$EXPORT"
	# nfsdcld keeps the NFSv4 client records that reclaims after a
	# restart need: nfsd has no other client tracking outside the
	# initial network namespace.
	srv nfsdcld -p /var/lib/nfs/rpc_pipefs -s /var/lib/nfs/nfsdcld
	srv rpcbind
	# fsid=0: the export is also the NFSv4 root (a pseudo root on the
	# guest's / would be an overlayfs, which cannot be exported).
	srv exportfs -o rw,no_root_squash,no_subtree_check,fsid=0 \
		"192.0.2.1:$EXPORT"
	srv rpc.mountd
	start_nfsd
}

ns2_empty() {
	[[ -z $(ip netns pids "$ns2") ]]
}

# Everything of an earlier server ends: its nfsd, its processes, and with
# the last of them its mount namespace.
server_down() {
	if holder_alive && [[ $(srv cat /proc/fs/nfsd/threads) != 0 ]]; then
		srv rpc.nfsd 0
	fi
	ip netns pids "$ns2" | xargs -r kill
	wait_for 10 ns2_empty
}

server_started() {
	server_up
	srv cat /proc/fs/nfsd/portlist /proc/fs/nfsd/versions >&2
}

# --- client ------------------------------------------------------------------

cli() {
	echo "# [$ns1] $*" >&2
	nsenter --net="/run/netns/$ns1" "$@"
}

# The options of the mount on $mnt, from /proc/mounts (a stat of a hard
# mount whose server is gone would block).
mount_opts() {
	awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts
}

mounted() {
	[[ -n $(mount_opts) ]]
}

mounted_as() {
	[[ ,$(mount_opts), == *,vers=$1,* ]]
}

# nfs_mount VERSION [rdma|tcp]: the export on $mnt over RDMA (default) or
# TCP.
nfs_mount() {
	local opts="vers=$1,proto=rdma,port=$PORT" src=192.0.2.2:/

	[[ ${2:-rdma} == tcp ]] && opts="vers=$1,proto=tcp"

	# NFSv3 names the export's path; no lock manager (no statd here).
	[[ $1 == 3 ]] && { opts+=,nolock; src=192.0.2.2:$EXPORT; }
	cli timeout -k 10 120 mount -t nfs -o "$opts" "$src" "$mnt"
}

# Away with the mount, whatever state its server is in: no helper (-i),
# no stat of the path (-c), forced and lazy. The mount leaves the
# namespace at once; the end of an NFSv4 session may then wait for a
# server that is gone until the timeout ends it.
client_umount() {
	mounted || return 0
	timeout -k 5 30 umount -i -c -f -l "$mnt" || true
	not mounted
}

# nfs_layout FILE: a 256 MiB file on the mounted export for fio's timed
# jobs to read and overwrite, written once.
nfs_layout() {
	[[ -s $1 ]] || timeout -k 10 300 fio --name=layout --rw=write \
		--bs=1m --size=256m --filename="$1" >/dev/null
}

# Everything of the NFS set-up away, whatever state it is in: the mount,
# then the server (for a caller's test_cleanup, before lib.sh deletes
# the rdma links the transport holds).
nfs_down() {
	[[ -n ${nfs_dir:-} && -n ${mnt:-} ]] || return 0
	client_umount || true
	server_down || true
}
