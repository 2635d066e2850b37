#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the test bench: two hosts joined by veth, no rdma links,
# ping each way over IPv4 and IPv6. Runs in the guest:
#
#	tools/vm/run -- selftests/bench_smoke.sh

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0	# the bench itself, no driver needed
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd ip
# iputils ping if installed, else busybox's; -c/-w mean the same in both.
ping=(ping)
command -v ping >/dev/null || ping=(busybox ping)
require_cmd "${ping[0]}"

ping_v4() { n1 "${ping[@]}" -c 2 -w 5 192.0.2.2; }
ping_v6() { n1 "${ping[@]}" -c 2 -w 5 2001:db8::2; }
ping_back() { n2 "${ping[@]}" -c 2 -w 5 192.0.2.1; }
# No default route in the namespaces: nothing can leave the veth pair.
no_route_out() { ! n1 "${ping[@]}" -c 1 -w 1 198.51.100.1 || false; }

ktap_plan 4
setup_two_hosts
ktap_run "ping 192.0.2.2 from ns1" ping_v4
ktap_run "ping 2001:db8::2 from ns1" ping_v6
ktap_run "ping 192.0.2.1 from ns2" ping_back
ktap_run "no route beyond the veth pair" no_route_out
ktap_finish
