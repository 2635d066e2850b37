# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the iwtcp kselftest-style scripts. Source it, do not run it:
#
#	source "$(dirname "$0")/lib.sh"
#
# The two-host topology that setup_two_hosts builds, in one kernel:
#
# ┌──────────────────────────────────┐      ┌──────────────────────────────────┐
# │ $ns1 (n1, ip1)                   │      │ $ns2 (n2, ip2)                   │
# │                                  │      │                                  │
# │  rdma link iwtcp_a               │      │  rdma link iwtcp_b               │
# │    on veth_a                     │      │    on veth_b                     │
# │  ┌────────────────────────────┐  │      │  ┌────────────────────────────┐  │
# │  │ veth_a                     │  │      │  │ veth_b                     │  │
# │  │ 192.0.2.1/24               ├──┼──────┼──┤ 192.0.2.2/24               │  │
# │  │ 2001:db8::1/64             │  │ veth │  │ 2001:db8::2/64             │  │
# │  └────────────────────────────┘  │ pair │  └────────────────────────────┘  │
# └──────────────────────────────────┘      └──────────────────────────────────┘
#
# IWTCP_WIRE=nic joins the hosts by two e1000 NICs of the guest instead of
# the veth pair: qemu connects them through a hub (tools/check asks
# tools/vm/run --nic-pair), and they are renamed nic_a and nic_b.
# Frames then leave the kernel through qemu: nothing TCP sends is looped
# into a local socket, and TCP paces itself to a NIC's completions. The
# cases name the devices $dev_a and $dev_b.
#
# The rdma links exist only with IWTCP_LINK=1 (the default). Addresses are
# documentation prefixes (RFC 5737, RFC 3849): nothing here can leave the
# machine. Namespaces carry the shell's pid, so parallel runs cannot collide
# on them (rdma link names are global, though: one topology per kernel).
#
# Output is TAP 13 on stdout; commands run through n1/n2/ip1/ip2 are echoed
# on stderr as "# [ns] command". Exit status: 0 pass, 1 fail, 4 skip.

# shellcheck source-path=SCRIPTDIR source=wait_for.sh
source "$(dirname "${BASH_SOURCE[0]}")/wait_for.sh"

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

IWTCP_LINK=${IWTCP_LINK:-1}
IWTCP_WIRE=${IWTCP_WIRE:-veth}
NIC_A_MAC=52:54:00:00:7a:01
NIC_B_MAC=52:54:00:00:7a:02
case $IWTCP_WIRE in
nic) dev_a=nic_a; dev_b=nic_b ;;
veth) dev_a=veth_a; dev_b=veth_b ;;
*) echo "lib.sh: IWTCP_WIRE is veth or nic, not '$IWTCP_WIRE'" >&2; exit 1 ;;
esac

ns1="iwtcp-$$-1"
ns2="iwtcp-$$-2"

# What cleanup must undo, recorded as it is created.
_created_ns=()
_created_links=()	# "namespace link" pairs
_moved_nics=()		# "namespace device" pairs, back to the first
_tracked_pids=()

_ktap_plan=
_ktap_count=0
_ktap_pass=0
_ktap_fail=0
_ktap_skip=0

# --- TAP ---------------------------------------------------------------------

ktap_plan() {
	_ktap_plan=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	_ktap_count=$((_ktap_count + 1))
	_ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_count $1"
}

ktap_fail() {
	_ktap_count=$((_ktap_count + 1))
	_ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_count $1"
}

ktap_skip() {
	_ktap_count=$((_ktap_count + 1))
	_ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_count $1 # SKIP $2"
}

# Skip the whole script: before the plan, as "1..0 # SKIP"; after it, by
# skipping every case not run yet, so that the plan still holds.
ktap_skip_all() {
	if [[ -z $_ktap_plan ]]; then
		echo "TAP version 13"
		echo "1..0 # SKIP $1"
	else
		while ((_ktap_count < _ktap_plan)); do
			ktap_skip "not run" "$1"
		done
	fi
	exit "$KSFT_SKIP"
}

# Fail the whole script: before the plan, as one failed case; after it,
# by failing every case not run yet.
ktap_fail_all() {
	if [[ -z $_ktap_plan ]]; then
		echo "TAP version 13"
		echo "1..1"
		echo "not ok 1 $1"
	else
		while ((_ktap_count < _ktap_plan)); do
			ktap_fail "$1"
		done
	fi
	exit "$KSFT_FAIL"
}

# Run one case: ktap_run NAME COMMAND [ARGS...]. The command runs in a
# subshell with set -e, so every command in it is an assertion; it may exit
# $KSFT_SKIP to skip. errexit is dropped around the subshell by hand: a
# subshell used as a condition (||, if) would silently ignore set -e.
ktap_run() {
	local name=$1 rc errexit=0 diag

	shift
	diag=$(mktemp)
	[[ $- == *e* ]] && errexit=1
	set +e
	# The case's stderr also goes to $diag, for its "not ok" to quote.
	(set -e; "$@") 2> >(tee "$diag" >&2)
	rc=$?
	((errexit)) && set -e
	case $rc in
	0) ktap_ok "$name" ;;
	"$KSFT_SKIP") ktap_skip "$name" "requirement missing" ;;
	*)
		ktap_fail "$name"
		_ktap_quote "$diag"
		_ktap_kernel_quote
		# What the failed case left running (a server waiting for
		# connections that never come) must not spill into the next.
		_kill_ns_pids
		;;
	esac
	rm -f "$diag"
}

# The last lines a failed case wrote to stderr, as "#| " diagnostics
# after its "not ok": tools/check and tools/interop pass them on, so a CI
# log says why. tee may still be writing: give it a moment.
_ktap_quote() {
	sleep 0.2
	tail -n 30 "$1" | sed 's/^/#| /'
}

# The kernel's last lines, as "#| kernel: " diagnostics: a CI log has no
# other view of the guest's kernel log. The debug lines every object logs
# at creation, destruction and state change (run_all.sh turns them on)
# are left out: what stays is errors, TERMINATEs and warnings.
_ktap_kernel_quote() {
	dmesg 2>/dev/null | grep -vE ' (created|destroyed)([ ,]|$)| -> ' |
		tail -n 8 | sed 's/^/#| kernel: /'
}

# show_log LABEL FILE: for a failed case's diagnostics, FILE's last lines
# on stderr as "# LABEL: ...". perftest's banner (its "Name : value"
# table, rules and boxes) is dropped, so the 30 lines a "not ok" quotes
# reach the error lines of every tool that ran.
show_log() {
	no_banner "$2" | tail -n 6 | sed "s/^/# $1: /" >&2
}

# no_banner FILE: FILE without perftest's banner (see show_log).
no_banner() {
	grep -vE '^ *([-*]+|\*.*\*|[^:]*[^ :][[:space:]]{2,}: .*)$' "$1" || true
}

# Exit 1 if any case failed or the plan was not met, 4 if all were skipped.
ktap_finish() {
	echo "# pass $_ktap_pass fail $_ktap_fail skip $_ktap_skip"
	if [[ -n $_ktap_plan && $_ktap_plan != "$_ktap_count" ]]; then
		echo "# planned $_ktap_plan tests, ran $_ktap_count"
		exit "$KSFT_FAIL"
	fi
	((_ktap_fail == 0)) || exit "$KSFT_FAIL"
	((_ktap_pass > 0 || _ktap_skip == 0)) || exit "$KSFT_SKIP"
	exit "$KSFT_PASS"
}

# --- requirements ------------------------------------------------------------

require_cmd() {
	local cmd

	for cmd in "$@"; do
		command -v "$cmd" >/dev/null || ktap_skip_all "$cmd not found"
	done
}

require_module() {
	local mod

	for mod in "$@"; do
		modprobe -q "$mod" || ktap_skip_all "module $mod not available"
	done
}

# --- namespaces --------------------------------------------------------------

# Echo a command, then run it in a namespace: _in_ns NS COMMAND [ARGS...]
_in_ns() {
	local ns=$1

	shift
	echo "# [$ns] $*" >&2
	ip netns exec "$ns" "$@"
}

n1() { _in_ns "$ns1" "$@"; }
n2() { _in_ns "$ns2" "$@"; }
ip1() { echo "# [$ns1] ip $*" >&2; ip -n "$ns1" "$@"; }
ip2() { echo "# [$ns2] ip $*" >&2; ip -n "$ns2" "$@"; }

# Remember a background pid for cleanup: n1 rping -s & track_pid $!
track_pid() {
	_tracked_pids+=("$@")
}

_add_ns() {
	ip netns add "$1"
	_created_ns+=("$1")
	ip -n "$1" link set lo up
}

# _add_host NS IFNAME N: address .N / ::N on IFNAME and bring it up.
_add_host() {
	local ns=$1 dev=$2 n=$3

	ip -n "$ns" addr add "192.0.2.$n/24" dev "$dev"
	# nodad: the address is usable at once, no DAD timer to wait out.
	ip -n "$ns" addr add "2001:db8::$n/64" dev "$dev" nodad
	ip -n "$ns" link set "$dev" up
}

_add_rdma_link() {
	local ns=$1 link=$2 dev=$3

	_in_ns "$ns" rdma link add "$link" type iwtcp netdev "$dev"
	_created_links+=("$ns $link")
}

_link_up() {
	[[ $(ip -n "$1" -o link show dev "$2") == *"state UP"* ]]
}

# _nic MAC: the name of the guest's NIC with that MAC, if there is one.
_nic() {
	ip -o link | awk -v mac="$1" '$0 ~ "link/ether " mac {
		sub(/:$/, "", $2); sub(/@.*/, "", $2); print $2 }'
}

_has_nic() {
	[[ -n $(_nic "$1") ]]
}

# _move_nic MAC NS NAME: the guest's NIC with that MAC into NS, as NAME;
# cleanup moves it back. Missing, it skips the script, or fails it with
# IWTCP_NIC_REQUIRED=1 (tools/check, which asks for the pair).
_move_nic() {
	local dev why

	modprobe -q e1000 || echo "# modprobe e1000 failed" >&2
	wait_for 10 _has_nic "$1" 2>/dev/null || true
	dev=$(_nic "$1")
	if [[ -z $dev ]]; then
		why="no NIC $1 (IWTCP_WIRE=nic: tools/vm/run --nic-pair, e1000)"
		[[ ${IWTCP_NIC_REQUIRED:-0} == 1 ]] || ktap_skip_all "$why"
		ktap_fail_all "$why"
	fi
	ip link set dev "$dev" netns "$2"
	ip -n "$2" link set dev "$dev" name "$3"
	_moved_nics+=("$2 $3")
}

setup_two_hosts() {
	_add_ns "$ns1"
	_add_ns "$ns2"
	# IFINDEX_GAP=1: a dummy device in ns2 first, so that the two veth
	# ends get different interface indexes (siw's wildcard listens
	# collide on equal ones; the benchmark runs siw).
	if [[ ${IFINDEX_GAP:-0} == 1 ]]; then
		ip -n "$ns2" link add gap0 type dummy
	fi
	if [[ $IWTCP_WIRE == nic ]]; then
		_move_nic "$NIC_A_MAC" "$ns1" nic_a
		_move_nic "$NIC_B_MAC" "$ns2" nic_b
	else
		ip link add veth_a netns "$ns1" type veth peer name veth_b \
			netns "$ns2"
	fi
	_add_host "$ns1" "$dev_a" 1
	_add_host "$ns2" "$dev_b" 2
	# an e1000's carrier came up after 10 s on the debug kernel
	wait_for $((10 * IWTCP_SLOW)) _link_up "$ns1" "$dev_a"
	wait_for $((10 * IWTCP_SLOW)) _link_up "$ns2" "$dev_b"
	if [[ $IWTCP_LINK == 1 ]]; then
		# No driver is a skip, not a failure (kselftest rule).
		require_cmd rdma
		require_module iwtcp
		_add_rdma_link "$ns1" iwtcp_a "$dev_a"
		_add_rdma_link "$ns2" iwtcp_b "$dev_b"
	fi
}

# no_refusals DEV TC...: DEV sends no reset that answers a SYN (RST+ACK
# with sequence number 0, the reset of a segment without ACK, RFC 9293
# 3.10.7.1; a connection's reset never looks like that), IPv4. A client
# that comes before its listener sends its SYN again a second later
# instead of being refused. TC... runs tc: "tc -n NS", or interop.sh's
# "peer run 10 tc". For perftest -R: its server closes the listener of
# the connection that exchanges parameters and listens again for the data
# QP after the two shook hands, and its client connects right after that
# handshake; refused, perftest 4.5-0.17 crashes in its retry (a general
# protection fault in librdmacm). Cases that expect a refusal (cm.sh
# no_listener) run without it.
no_refusals() {
	local dev=$1

	shift
	"$@" qdisc del dev "$dev" clsact >/dev/null 2>&1 || true
	"$@" qdisc add dev "$dev" clsact &&
		"$@" filter add dev "$dev" egress protocol ip u32 \
			match u8 0x45 0xff at 0 match ip protocol 6 0xff \
			match u8 0x14 0x3f at 33 match u32 0 0xffffffff at 24 \
			action drop
}

# no_refusals on both hosts of setup_two_hosts (the scripts that run
# perftest with -R).
hosts_no_refusals() {
	no_refusals "$dev_a" tc -n "$ns1"
	no_refusals "$dev_b" tc -n "$ns2"
}

# --- helpers of the case scripts --------------------------------------------

# IWTCP_SLOW: how many times slower than Debian's kernel under TCG the
# guest's kernel is; the time limits of cases that wait on many
# connections or move much data grow with it, and so do dp_test's waits
# (make check-debug sets 4).
export IWTCP_SLOW=${IWTCP_SLOW:-1}

# ports_from BASE: next_port then sets $port to BASE+1, BASE+2, ... Cases
# run in subshells, so the counter lives in a file of $out (the script's
# scratch folder, which it sets).
# shellcheck disable=SC2154 # $out is the calling script's
ports_from() {
	echo "$1" >"$out/port"
}

next_port() {
	port=$(($(cat "$out/port") + 1))
	echo "$port" >"$out/port"
}

# Wait until something listens on $port in ns2 (iwtcp's kernel sockets
# show there too). A python peer may take over 10 s to start on a loaded
# emulated guest; the wait ends as soon as the port listens.
wait_listen() {
	wait_for $((30 * IWTCP_SLOW)) \
		bash -c "ip netns exec $ns2 ss -ltnH | grep -q ':$port '"
}

# Both devices get the same setting: set_both FILE VALUE
set_both() {
	echo "$2" >"/sys/class/infiniband/iwtcp_a/$1"
	echo "$2" >"/sys/class/infiniband/iwtcp_b/$1"
}

# for_settings_matrix FN: every CRC and marker policy, without
# peer-to-peer and with it for each RTR type, set on both devices (24
# combinations); FN runs after each with the RTR type (none without
# peer-to-peer) as its argument. A failing FN ends the case (set -e).
for_settings_matrix() {
	local crc markers rtr

	for crc in off on required; do
		for markers in on required; do
			for rtr in none send write read; do
				set_both mpa_crc "$crc"
				set_both mpa_markers "$markers"
				if [[ $rtr == none ]]; then
					set_both mpa_p2p 0
				else
					set_both mpa_p2p 1
					set_both mpa_rtr "$rtr"
				fi
				echo "# crc $crc markers $markers rtr $rtr" >&2
				"$1" "$rtr"
			done
		done
	done
}

# Run every case of the array named by $1 with ktap_run, each timed; $2,
# if given, is run before each case (a failed case may leave settings).
# IWTCP_CASES="NAME..." runs only those, the others skipped.
ktap_run_timed() {
	local -n cases=$1
	local t start

	for t in "${cases[@]}"; do
		# IWTCP_CASES="a b": only those (a developer's shortcut)
		if [[ -n ${IWTCP_CASES:-} && " $IWTCP_CASES " != *" $t "* ]]; then
			ktap_skip "$t" "not in IWTCP_CASES"
			continue
		fi
		start=$SECONDS
		[[ -z ${2:-} ]] || "$2"
		ktap_run "$t" "$t"
		echo "# $t: $((SECONDS - start)) s"
	done
}

# --- cleanup -----------------------------------------------------------------

_kill_ns_pids() {
	local ns

	for ns in "${_created_ns[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	return 0
}

# The "crc32c" driver of highest priority the crypto API has registered.
crc32c_best() {
	awk -F': *' '/^name/ {n = $2} /^driver/ {d = $2}
		/^priority/ && n == "crc32c" && $2 + 0 > best {best = $2 + 0; pick = d}
		END {print pick}' /proc/crypto
}

# crc32c_pass: print "DRIVER SECONDS": the crc32c driver the kernel's
# crypto API serves (the highest-priority "crc32c" in /proc/crypto, the
# one the kernel's crc32c library uses: crc32c-intel where the CPU has
# SSE 4.2) and the guest CPU seconds one pass over a GiB takes through it
# (AF_ALG, 256 MiB in 1 MiB writes into one hash).
crc32c_pass() {
	local drv

	modprobe -q crc32c_intel 2>/dev/null || true
	modprobe -q crc32c_generic 2>/dev/null || true
	drv=$(crc32c_best)
	python3 -c '
import os, socket, sys, time
alg = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
alg.bind(("hash", "crc32c"))
op, _ = alg.accept()
buf = os.urandom(1 << 20)
n = 256
t0 = time.process_time()
for _ in range(n):
    op.sendmsg([buf], [], socket.MSG_MORE)
op.send(b"")
op.recv(4)
print("%s %.3f" % (sys.argv[1], (time.process_time() - t0) * 1024 / n))' \
		"${drv:-unknown}"
}

# EXIT trap: undo in reverse order of creation, keep the script's status.
# A test may define test_cleanup to run first.
cleanup() {
	local rc=$? i ns link

	set +e
	declare -F test_cleanup >/dev/null && test_cleanup
	for ((i = ${#_created_links[@]} - 1; i >= 0; i--)); do
		read -r ns link <<<"${_created_links[i]}"
		ip netns exec "$ns" rdma link delete "$link" 2>/dev/null
	done
	((${#_tracked_pids[@]})) && kill "${_tracked_pids[@]}" 2>/dev/null
	# Whatever still runs in the namespaces would outlive the test.
	_kill_ns_pids
	((${#_tracked_pids[@]})) && wait "${_tracked_pids[@]}" 2>/dev/null
	# Not left to the namespace's teardown, which a lingering socket
	# delays: the next script looks for the NICs at once.
	for i in "${_moved_nics[@]}"; do
		read -r ns link <<<"$i"
		ip -n "$ns" link set dev "$link" netns 1 ||
			echo "# cleanup: $link stays in $ns" >&2
	done
	for ((i = ${#_created_ns[@]} - 1; i >= 0; i--)); do
		ip netns del "${_created_ns[i]}" 2>/dev/null
	done
	exit "$rc"
}

trap cleanup EXIT
