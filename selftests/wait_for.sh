# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# wait_for, on its own: sourced by lib.sh, and by the interop peer
# (interop_peer.sh), which does not take lib.sh (its top level sets the
# suite's traps and plan).

# wait_for TIMEOUT COMMAND [ARGS...]: poll COMMAND (output discarded) until it
# succeeds; fail after TIMEOUT seconds. Waits on a condition, never a guess.
wait_for() {
	local timeout=$1 deadline

	shift
	deadline=$((SECONDS + timeout))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= deadline)); then
			echo "# wait_for: timed out after $timeout s: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}
