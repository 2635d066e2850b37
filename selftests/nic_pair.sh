#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# data.sh's cases that need the hosts joined by two e1000 NICs of the
# guest, which qemu connects (lib.sh, IWTCP_WIRE=nic), instead of the veth
# pair: frames leave the kernel, and completions come at a NIC's pace.
# Runs in the guest (tools/vm/run --nic-pair).
IWTCP_WIRE=nic exec "$(dirname "$0")/data.sh"
