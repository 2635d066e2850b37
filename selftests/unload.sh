#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Last test of a guest run: with every link deleted, iwtcp unloads, leaves
# no device behind, and every object it logged as created (dynamic debug,
# enabled by run_all.sh) it also logged as destroyed.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd rdma modprobe dmesg

delete_links() {
	local link

	# The guest has no RDMA hardware: every link is an iwtcp link.
	for link in $(rdma link show | awk '{ print $2 }' | cut -d/ -f1); do
		rdma link delete "$link"
	done
	[[ -z $(ls /sys/class/infiniband 2>/dev/null) ]]
}

unload() {
	[[ ! -d /sys/module/iwtcp ]] || modprobe -r iwtcp
	[[ ! -d /sys/module/iwtcp ]]
}

# "iwtcp DEV: QP 3 created" must pair with "iwtcp DEV: QP 3 destroyed".
# A guest whose suites made no QP, CQ, MR or endpoint (make check-debug
# with DEBUG_SUITES=settings, say) has nothing to pair: skipped, not
# passed, if a device's "device freed" (a debug line too) shows that the
# logging was on; with no debug line at all, the logging is broken: fail.
created_equals_destroyed() {
	local log created destroyed

	log=$(dmesg)
	# none found is not an error here (pipefail would make it one)
	created=$(grep -oE '(QP|CQ|MR|CEP) [0-9a-fx]+ created' <<<"$log" |
		  sed 's/ created//' | sort || true)
	destroyed=$(grep -oE '(QP|CQ|MR|CEP) [0-9a-fx]+ destroyed' <<<"$log" |
		    sed 's/ destroyed//' | sort || true)
	if [[ -z $created ]]; then
		grep -q ': device freed$' <<<"$log" ||
			{ echo "# no iwtcp debug line: logging off" >&2; exit 1; }
		echo "# no object was created in this guest" >&2
		exit "$KSFT_SKIP"
	fi
	echo "# $(wc -l <<<"$created") objects created" >&2
	diff <(echo "$created") <(echo "$destroyed") >&2
}

ktap_plan 3
ktap_run "all iwtcp links deleted" delete_links
ktap_run "modprobe -r iwtcp" unload
ktap_run "every object created was destroyed" created_equals_destroyed
ktap_finish
