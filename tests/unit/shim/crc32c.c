// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* CRC32c (Castagnoli, reflected polynomial 0x82F63B78), table driven. */
#include "shim.h"
#include "crc.h"

static u32 table[256];
unsigned int shim_crc_calls;

static void init_table(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (c & 1 ? 0x82f63b78 : 0);
		table[i] = c;
	}
}

u32 crc32c(u32 crc, const void *p, unsigned int len)
{
	const u8 *b = p;

	shim_crc_calls++;
	if (!table[1])
		init_table();
	while (len--)
		crc = (crc >> 8) ^ table[(crc ^ *b++) & 0xff];
	return crc;
}

/* crc.h: the module's CRC32c, here the table above */
u32 iwtcp_crc32c(u32 crc, const void *p, unsigned int len)
{
	return crc32c(crc, p, len);
}
