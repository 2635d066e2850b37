# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NFS over RDMA (NFSv4.2, the kernel's rpcrdma: xprtrdma client, svcrdma
# server) for the interoperability suite: sourced by selftests/interop.sh
# (guest A, iwtcp) and selftests/interop_peer.sh (guest B, siw), so that
# either guest can be the server or the client of a case. Everything runs
# in the guest's initial namespaces (unlike selftests/nfs.sh, which puts
# two hosts in one guest): rpcrdma connects from a kworker of the initial
# network namespace, and siw creates its sockets in the caller's.
#
# Server: nfsd with an RDMA listener on the case's port (in the suite's
# range, so that guest A's capture has the connection and the wire judge
# decodes it like any other case), NFSv4 only, exporting a tmpfs;
# rpc.mountd and nfsdcld beside it. nfsdcld lets nfsd skip the NFSv4 grace period
# (it knows there is no client to reclaim), so the first OPEN does not
# wait. Client: one mount at a time on $NFS_MNT. Mounts are hard: every
# client command runs under timeout.
#
# The functions print their diagnostics on stderr and fail on the first
# problem (callers run them with set -e).

NFS_EXPORT=/srv/interop-nfs
NFS_MNT=/mnt/interop-nfs
NFS_RUN=/run/interop-nfs	# the guest's own tmpfs: the daemons' pids, logs
NFS_PIPEFS=/run/rpc_pipefs	# where Debian's /etc/nfs.conf has it
NFS_SIZE=3M

_nfs_log() {
	echo "# [nfs] $(cut -d" " -f1 /proc/uptime) $*" >&2
}

_nfs_mountpoint() {
	awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts
}

# An assertion that a command fails (set -e ignores "! command").
_nfs_not() {
	! "$@"
}

_nfs_running() {
	[[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

NFS_MODULES=(nfsd rpcrdma nfsv4)

# nfs_modules: NFS's modules loaded (selftests/interop.sh has both guests
# load them early: modprobe takes seconds under emulation).
nfs_modules() {
	local m

	for m in "${NFS_MODULES[@]}"; do
		[[ -d /sys/module/$m ]] || { modprobe -a "${NFS_MODULES[@]}"; break; }
	done
}

# nfs_server_up PORT CLIENT_ADDR: nfsd listening for RDMA on PORT,
# exporting a fresh tmpfs to CLIENT_ADDR as the NFSv4 root.
nfs_server_up() {
	local port=$1 client=$2 d

	_nfs_log "server: rdma $port, export $NFS_EXPORT to $client"
	nfs_modules
	mkdir -p "$NFS_RUN" "$NFS_EXPORT" "$NFS_PIPEFS"
	_nfs_mountpoint /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	# nfsd must not be running already (an earlier case's leftover).
	[[ $(cat /proc/fs/nfsd/threads) == 0 ]]
	# The guest's root is an overlay of the host's: fresh NFS state.
	mount -t tmpfs -o mode=0755 tmpfs /var/lib/nfs
	mkdir /var/lib/nfs/nfsdcld
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	_nfs_mountpoint "$NFS_PIPEFS" ||
		mount -t rpc_pipefs rpc_pipefs "$NFS_PIPEFS"
	mount -t tmpfs -o mode=0755,size=64m tmpfs "$NFS_EXPORT"
	_nfs_log "server: state and export mounted"
	# The daemons in the foreground, each its pid in $NFS_RUN, their
	# output in files (the agent of guest B waits for its command's).
	# NFSv4 only (-N 3): no rpcbind, no lockd, no MOUNT protocol;
	# rpc.mountd answers nfsd's export upcalls.
	for d in "nfsdcld -F -p $NFS_PIPEFS -s /var/lib/nfs/nfsdcld" \
		 "rpc.mountd -F -N 2 -N 3"; do
		# shellcheck disable=SC2086 # the daemon's words
		setsid $d </dev/null >"$NFS_RUN/${d%% *}.log" 2>&1 &
		echo $! >"$NFS_RUN/${d%% *}.pid"
	done
	# fsid=0: the export is the NFSv4 root (the guest's / is an overlay,
	# which cannot be exported).
	exportfs -o rw,no_root_squash,no_subtree_check,fsid=0 \
		"$client:$NFS_EXPORT"
	_nfs_log "server: exported"
	# nfsd finds nfsdcld on its rpc_pipefs pipe when it starts and, with
	# no client to reclaim, skips the grace period.
	rpc.nfsd -N 3 --grace-time 10 --lease-time 10 --rdma="$port" 4
	grep -q "^rdma $port\$" /proc/fs/nfsd/portlist
	_nfs_log "server: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

_nfs_daemons_gone() {
	local p

	for p in "$NFS_RUN"/*.pid; do
		[[ -e $p ]] || continue
		_nfs_running "$p" && return 1
	done
	return 0
}

# nfs_server_down: nfsd stopped (its listeners close), the daemons this
# file started ended, the state unmounted. Quietly does what is left to
# do after a failure.
nfs_server_down() {
	local p rc=0

	if [[ -e /proc/fs/nfsd/threads && $(cat /proc/fs/nfsd/threads) != 0 ]]; then
		timeout -k 5 60 rpc.nfsd 0 || rc=1
	fi
	exportfs -ua 2>/dev/null || rc=1
	for p in "$NFS_RUN"/*.pid; do
		if _nfs_running "$p"; then
			kill "$(cat "$p")" || rc=1
		fi
	done
	wait_for 20 _nfs_daemons_gone || rc=1
	rm -f "$NFS_RUN"/*.pid
	! _nfs_mountpoint "$NFS_EXPORT" || umount "$NFS_EXPORT" || rc=1
	! _nfs_mountpoint /var/lib/nfs || umount /var/lib/nfs || rc=1
	_nfs_log "server down"
	return "$rc"
}

# nfs_sum: the SHA-256 of the client's file, as the server has it.
nfs_sum() {
	sha256sum <"$NFS_EXPORT/data" | cut -d' ' -f1
}

# nfs_mount SERVER PORT: the server's NFSv4 root on $NFS_MNT over RDMA.
nfs_mount() {
	local opts

	mkdir -p "$NFS_MNT"
	_nfs_not _nfs_mountpoint "$NFS_MNT"
	nfs_modules
	timeout -k 10 120 mount -t nfs -o "vers=4.2,proto=rdma,port=$2" \
		"$1:/" "$NFS_MNT"
	opts=$(awk -v m="$NFS_MNT" '$2 == m { print $4 }' /proc/mounts)
	_nfs_log "mounted: $opts"
	[[ ,$opts, == *,vers=4.2,* && ,$opts, == *,proto=rdma,* ]]
}

# nfs_write: $NFS_SIZE of new random data written to the mount through
# the page cache and synced; prints its SHA-256 last.
nfs_write() {
	local t0=$SECONDS sum

	sum=$(head -c "$NFS_SIZE" /dev/urandom |
		timeout -k 5 120 tee "$NFS_MNT/data" | sha256sum | cut -d' ' -f1)
	timeout -k 5 120 sync -f "$NFS_MNT/data"
	_nfs_log "wrote $NFS_SIZE in $((SECONDS - t0)) s"
	echo "$sum"
}

# _nfs_reads: the READ operations of the mount on $NFS_MNT so far
# (/proc/self/mountstats: "READ: ops transmissions ...").
_nfs_reads() {
	awk -v m="$NFS_MNT" '$1 == "device" { on = $5 == m }
		on && $1 == "READ:" { print $2; exit }' /proc/self/mountstats
}

# nfs_read SUM: with the client's page cache dropped, the file read back
# over the wire (READ operations counted) has SUM.
nfs_read() {
	local t0=$SECONDS sum reads

	# nfs_write synced: every page is clean, and goes.
	echo 3 >/proc/sys/vm/drop_caches
	reads=$(_nfs_reads)
	sum=$(timeout -k 5 120 sha256sum "$NFS_MNT/data" | cut -d' ' -f1)
	_nfs_log "read back in $((SECONDS - t0)) s," \
		"$(($(_nfs_reads) - reads)) READs: $sum"
	(($(_nfs_reads) > reads))
	[[ $sum == "$1" ]]
}

nfs_umount() {
	timeout -k 10 60 umount "$NFS_MNT"
	_nfs_not _nfs_mountpoint "$NFS_MNT"
	_nfs_log "unmounted"
}

# nfs_cleanup: after a failure, away with the mount whatever state its
# server is in (no helper, forced, lazy), and the server.
nfs_cleanup() {
	if _nfs_mountpoint "$NFS_MNT"; then
		timeout -k 5 30 umount -i -f -l "$NFS_MNT" || true
	fi
	nfs_server_down || true
}
