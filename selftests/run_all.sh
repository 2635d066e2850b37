#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make check`: run every guest selftest in order, one boot
# for all of them. Each test's TAP goes to OUT/NAME.tap and its echoed
# commands to OUT/NAME.log; a test that dies without a verdict gets a
# "not ok" line of its own, so a crash cannot pass as silence.
#
#	selftests/run_all.sh OUT [TEST...]

set -uo pipefail

out=${1:?usage: run_all.sh OUT [TEST...]}
shift
dir=$(cd "$(dirname "$0")" && pwd)
tests=("$@")
((${#tests[@]})) || tests=(link settings verbs kverbs cm data nic_pair capture kdata nfs wire hwpeer trace restrack counters fuzz coexist unload)

# Every object iwtcp creates logs a "created" and a "destroyed" line.
echo "options iwtcp dyndbg=+p" >/etc/modprobe.d/iwtcp-selftest.conf

# A kernel with kmemleak (make check-debug): what boot leaked is not
# iwtcp's, so it is forgotten; the suites' leaks are looked for before
# the module unloads (their backtraces still name iwtcp's functions) and
# after, each scan a TAP case of kmemleak.tap, its report beside it.
kmemleak=/sys/kernel/debug/kmemleak
# "clear" forgets only what a scan has reported: scan first.
if [[ -w $kmemleak ]]; then
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
fi
kmemleak_scan() {	# kmemleak_scan WHEN
	local report=$out/kmemleak-$1.txt n

	[[ -w $kmemleak ]] || return 0
	# An object younger than 5 s is never reported: scan, wait, scan.
	echo scan >"$kmemleak"
	sleep 6
	echo scan >"$kmemleak"
	cat "$kmemleak" >"$report"
	n=$(grep -c '^unreferenced object' "$report")
	if ((n)); then
		echo "not ok - kmemleak $1: $n unreferenced objects ($report)"
		grep -m 1 -A 12 '^unreferenced object' "$report" | sed 's/^/#| /'
	else
		echo "ok - kmemleak $1: no unreferenced object"
	fi | tee -a "$out/kmemleak.tap"
}

# IWTCP_SUITE_TIMEOUT: seconds one suite may take (a debug kernel is slow).
for t in "${tests[@]}"; do
	tap=$out/$t.tap
	[[ $t == unload ]] && kmemleak_scan before-unload
	echo "# selftest $t"
	start=$SECONDS
	timeout "${IWTCP_SUITE_TIMEOUT:-900}" "$dir/$t.sh" >"$tap" 2>"$out/$t.log"
	rc=$?
	cat "$tap"
	echo "# selftest $t: $((SECONDS - start)) s"
	case $rc in
	0|4) ;;
	*)
		if ! grep -q '^not ok' "$tap"; then
			echo "not ok 999 $t exited with status $rc" | tee -a "$tap"
		fi
		;;
	esac
done
kmemleak_scan after-unload
