#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side check of the guest bench itself: each case boots a guest with
# tools/vm/run and compares the exit status with what the bench promises.
# About 2-3 minutes under TCG. Output: TAP; logs under .cache/vm/selftest/.
#
#	tools/vm/selftest.sh

set -euo pipefail

cd "$(dirname "$0")/../.."
# shellcheck source=selftests/lib.sh
source selftests/lib.sh

logs=.cache/vm/selftest
mkdir -p "$logs"

# expect STATUS NAME RUN-ARGS...: run a guest, compare its exit status.
expect() {
	local want=$1 name=$2 got=0 t0=$SECONDS log

	shift 2
	log=$logs/$((_ktap_count + 1)).log
	tools/vm/run --out "$PWD/$logs/out$((_ktap_count + 1))" "$@" >"$log" 2>&1 || got=$?
	echo "# $name: status $got (want $want), $((SECONDS - t0)) s," \
		"$(grep -o 'boot to command [0-9.?]* s' "$log" || echo 'no boot time')"
	if ((got == want)); then
		ktap_ok "$name"
	else
		sed 's/^/# /' "$log" | tail -n 15
		ktap_fail "$name"
	fi
}

ktap_plan 7
expect 0 "bench_smoke.sh passes" -- selftests/bench_smoke.sh
expect 1 "status of false" -- false
# shellcheck disable=SC2016 # $1 is for the guest's bash
expect 3 "argument vector kept" -- bash -c '[[ $1 == "a b" ]] && exit 3' x "a b"
expect 125 "WARNING in the kernel log fails the run" -- \
	'echo "WARNING: injected by tools/vm/selftest.sh" >/dev/kmsg'
expect 0 "WARNING in the command output does not" -- 'echo "WARNING: BUG: Oops"'
expect 125 "kernel crash fails the run" -- 'echo c >/proc/sysrq-trigger'
expect 124 "guest watchdog" --timeout 3 -- 'sleep 100'
ktap_finish
