#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel verbs on an iwtcp device, as kernel ULPs use them: the checks run
# in iwtcp_kverbs.ko's init (selftests/kverbs/) and are reported here, one
# TAP line each, from the kernel log. Runs in the guest.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

# IWTCP_KVERBS_DIR: a build for another kernel (make check-debug).
KO=${IWTCP_KVERBS_DIR:-$(dirname "$0")/kverbs}/iwtcp_kverbs.ko

require_cmd insmod rmmod dmesg rdma
[[ -f $KO ]] || ktap_skip_all "$KO not built (make selftests)"
modinfo iwtcp >/dev/null 2>&1 || ktap_skip_all "module iwtcp not installed"

echo "TAP version 13"
setup_two_hosts
rc=0
insmod "$KO" dev=iwtcp_a || rc=$?
rmmod iwtcp_kverbs 2>/dev/null || true
lines=$(dmesg | sed -n 's/.*iwtcp_kverbs: \(\(not \)\{0,1\}ok [0-9]* .*\)/\1/p')
[[ -n $lines ]] || ktap_fail "iwtcp_kverbs reported no check (insmod status $rc)"
while IFS= read -r line; do
	[[ -n $line ]] || continue
	name=${line#* ok }
	name=${name#ok }
	name=${name#* }
	if [[ $line == "not ok "* ]]; then ktap_fail "$name"; else ktap_ok "$name"; fi
done <<<"$lines"
ktap_run "insmod status matches the checks" test "$rc" = "$((_ktap_fail ? 1 : 0))"
no_resources() { [[ $(rdma resource show iwtcp_a) == *" pd 0 cq 0 qp 0 "* ]]; }
ktap_run "no resources left" no_resources
echo "1..$_ktap_count"
ktap_finish
