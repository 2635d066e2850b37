/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The INFO message victim.c sends after its first receive: where its data
 * MR is, for the raw peers (mpa_evil.py, wire_fuzz.c). Little endian.
 */
#ifndef IWTCP_SELFTEST_VICTIM_H
#define IWTCP_SELFTEST_VICTIM_H

#include <linux/types.h>

#define INFO_MAGIC 0x1badc0de

struct info {
	__u32 magic;
	__u32 pad;
	__u64 addr;
	__u32 rkey;
	__u32 len;
};

#endif /* IWTCP_SELFTEST_VICTIM_H */
