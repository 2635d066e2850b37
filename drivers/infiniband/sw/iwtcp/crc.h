/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * CRC32c (RFC 3720 B.4), the MPA CRC of RFC 5044 4.4: the kernel's in the
 * module (crc.c), the unit tests' shim in user space.
 */
#ifndef IWTCP_CRC_H
#define IWTCP_CRC_H

#include <linux/types.h>

u32 iwtcp_crc32c(u32 crc, const void *p, unsigned int len);
int iwtcp_crc_init(void);
void iwtcp_crc_exit(void);
const char *iwtcp_crc_driver(void);

#endif /* IWTCP_CRC_H */
