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
((${#tests[@]})) || tests=(link settings verbs kverbs cm data nic_pair capture kdata nfs wire unload)

# Every object iwtcp creates logs a "created" and a "destroyed" line.
echo "options iwtcp dyndbg=+p" >/etc/modprobe.d/iwtcp-selftest.conf

for t in "${tests[@]}"; do
	tap=$out/$t.tap
	echo "# selftest $t"
	timeout 900 "$dir/$t.sh" >"$tap" 2>"$out/$t.log"
	rc=$?
	cat "$tap"
	case $rc in
	0|4) ;;
	*)
		if ! grep -q '^not ok' "$tap"; then
			echo "not ok 999 $t exited with status $rc" | tee -a "$tap"
		fi
		;;
	esac
done
