# SPDX-License-Identifier: GPL-2.0
#
# The raw peer against victim, for wire.sh, trace.sh, restrack.sh and
# counters.sh (sourced after
# lib.sh; needs $out, $ns1, $ns2 and ports_from): mpa_evil.py in ns1, an
# MPA Rev 1 initiator (or RFC 6581 peer-to-peer with "p2p"), against
# victim, an rdma_cm server with a 4 MiB MR, on iwtcp_b in ns2.

# shellcheck shell=bash
# shellcheck disable=SC2154 # ns2, port (lib.sh) and out (the suite)

VICTIM=${VICTIM:-$(dirname "$0")/../.cache/bin/victim}
CM_TEST=${CM_TEST:-$(dirname "$0")/../.cache/bin/cm_test}
PEER=$(dirname "$0")/mpa_evil.py
dev=/sys/class/infiniband/iwtcp_b

# need_built PROGRAM...: skip the whole suite unless each selftest
# program is built and the module is installed.
need_built() {
	local p

	for p in "$@"; do
		[[ -x $p ]] || ktap_skip_all "$p not built (make -C selftests)"
	done
	modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"
}

# The victim's MPA settings for the peer's options: crc, markers, p2p
# (RFC 6581 peer-to-peer; else Rev 1 alone, the order each way being one
# that the settings' checks allow).
victim_settings() {
	local crc=off markers=off

	[[ " $* " == *" crc "* ]] && crc=required
	[[ " $* " == *" markers "* ]] && markers=required
	echo "$crc" >"$dev/mpa_crc"
	echo "$markers" >"$dev/mpa_markers"
	if [[ " $* " == *" p2p "* ]]; then
		echo 2 >"$dev/mpa_revision"
		echo 1 >"$dev/mpa_enhanced"
		echo 1 >"$dev/mpa_p2p"
	else
		echo 0 >"$dev/mpa_p2p"
		echo 0 >"$dev/mpa_enhanced"
		echo 1 >"$dev/mpa_revision"
	fi
}

show() {
	sed "s/^/# $2: /" "$1" >&2
}

# attack CASE [OPTION...]: a victim (environment from the array venv), the
# peer with CASE and its options; both must exit 0. The outputs are in
# $out/CASE.peer and $out/CASE.victim.
venv=()
attack() {
	local case=$1 vpid rc=0

	shift
	victim_settings "$@"
	next_port
	# limits scale: on a loaded debug kernel the peer's python had not
	# connected when the victim's 60 s were up (its listener gone: refused)
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns2" env "${venv[@]}" \
		"$VICTIM" 192.0.2.2 "$port" $((20 * IWTCP_SLOW)) \
		>"$out/$case.victim" 2>&1 &
	vpid=$!
	wait_listen
	timeout $((60 * IWTCP_SLOW)) ip netns exec "$ns1" python3 "$PEER" \
		192.0.2.2 "$port" \
		"$case" "$@" >"$out/$case.peer" 2>&1 || rc=$?
	wait "$vpid" || rc=$?
	show "$out/$case.peer" peer
	grep -v 'Flushed' "$out/$case.victim" | sed 's/^/# victim: /' >&2
	return "$rc"
}

# has FILE REGEX: FILE has a line matching REGEX (extended).
has() {
	grep -Eq -- "$2" "$1" && return 0
	echo "# expected in ${1##*/}: $2" >&2
	return 1
}

# hasnt FILE REGEX: no line of FILE matches REGEX.
hasnt() {
	grep -Eq -- "$2" "$1" || return 0
	echo "# unexpected in ${1##*/}: $(grep -E -- "$2" "$1" | head -n 1)" >&2
	return 1
}


# --- two iwtcp hosts (trace.sh, restrack.sh, counters.sh) -----------------

# both FILE VALUE: a setting of iwtcp_a and iwtcp_b.
both() {
	echo "$2" >"/sys/class/infiniband/iwtcp_a/$1"
	echo "$2" >"/sys/class/infiniband/iwtcp_b/$1"
}

# defaults: the settings again (iwtcp_b's revision first: a victim may
# have set 1) and mpa_timeout; run after every case.
defaults() {
	victim_settings p2p
	both mpa_crc on
	both mpa_markers on
	both mpa_p2p 1
	both mpa_rtr "send write read"
	echo 10 >/sys/module/iwtcp/parameters/mpa_timeout
}

# cm_pair "SERVER ARGS" "CLIENT ARGS": cm_test server on iwtcp_b (ns2),
# client on iwtcp_a (ns1); both must pass.
cm_pair() {
	local rc=0 spid

	next_port
	# shellcheck disable=SC2086 # the arguments are words
	timeout 120 ip netns exec "$ns2" "$CM_TEST" server 192.0.2.2 "$port" \
		$1 >"$out/server" 2>&1 &
	spid=$!
	wait_listen
	# shellcheck disable=SC2086 # the arguments are words
	timeout 120 ip netns exec "$ns1" "$CM_TEST" client 192.0.2.2 "$port" \
		$2 >"$out/client" 2>&1 || rc=$?
	wait "$spid" || rc=$?
	sed 's/^/# server: /' "$out/server" >&2
	sed 's/^/# client: /' "$out/client" >&2
	return "$rc"
}

# refused_attempt FILE A-VALUE B-VALUE COMMAND...: iwtcp_a's setting
# FILE is A-VALUE, iwtcp_b's B-VALUE; a cm_test connect that must fail,
# then up to 10 s for COMMAND (what the failed start-up sent arriving).
refused_attempt() {
	local spid

	echo "$2" >"/sys/class/infiniband/iwtcp_a/$1"
	echo "$3" >"/sys/class/infiniband/iwtcp_b/$1"
	shift 3
	next_port
	timeout 60 ip netns exec "$ns2" "$CM_TEST" server 192.0.2.2 "$port" \
		>"$out/server" 2>&1 &
	spid=$!
	wait_listen
	timeout 60 ip netns exec "$ns1" "$CM_TEST" client 192.0.2.2 "$port" \
		unreachable >"$out/client" 2>&1 || true
	wait_for 10 "$@" || true
	kill "$spid" 2>/dev/null || true
	wait "$spid" || true
}

# no_rtr_attempt COMMAND...: iwtcp_a offers the Read RTR alone, iwtcp_b
# takes Write alone (RFC 6581 9.2: no RTR in common); the TERM 0x07.
no_rtr_attempt() { refused_attempt mpa_rtr read write "$@"; }
