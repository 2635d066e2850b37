/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Just enough of the kernel's types and helpers to build iwtcp's pure code
 * (wire.h, mpa.c, fpdu.c, ddp.c, rdmap.c) in user space. Every linux/ and
 * asm/ header here includes this file.
 */
#ifndef IWTCP_SHIM_H
#define IWTCP_SHIM_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>	/* the system's: __be16 .. __le64 */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#define __packed		__attribute__((packed))

#define U16_MAX			((u16)~0U)
#define U32_MAX			((u32)~0U)

#define BIT(n)			(1UL << (n))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define FIELD_GET(m, r)		((__typeof__(m))(((r) & (m)) >> __builtin_ctzl(m)))
#define FIELD_MAX(m)		((__typeof__(m))((m) >> __builtin_ctzl(m)))
#define FIELD_PREP(m, v)	((((__typeof__(m))(v)) << __builtin_ctzl(m)) & (m))

#define static_assert(e, ...)	_Static_assert(e, #e)
#define BUILD_BUG_ON(e)		_Static_assert(!(e), #e)

#define cpu_to_be16(x)		htobe16(x)
#define cpu_to_be32(x)		htobe32(x)
#define cpu_to_be64(x)		htobe64(x)
#define be16_to_cpu(x)		be16toh(x)
#define be32_to_cpu(x)		be32toh(x)
#define be64_to_cpu(x)		be64toh(x)
#define cpu_to_le32(x)		htole32(x)
#define le32_to_cpu(x)		le32toh(x)

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Same contract as the kernel's: raw register in and out, no inversion. */
u32 crc32c(u32 crc, const void *p, unsigned int len);
/* calls of crc32c() so far (bench_framer, test_framer) */
extern unsigned int shim_crc_calls;

#endif /* IWTCP_SHIM_H */
