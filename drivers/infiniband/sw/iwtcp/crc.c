// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * CRC32c for the FPDUs (RFC 5044 4.4) through the kernel's crc32c.
 */

/**
 * DOC: CRC32c
 *
 * In 6.1 and 6.12 the kernel's crc32c() (libcrc32c) reaches the
 * "crc32c" algorithm (crc32c-intel on x86 with SSE 4.2) through the
 * crypto API with a descriptor sized for any hash (SHASH_DESC_ON_STACK,
 * 376 octets), which Debian's CONFIG_INIT_STACK_ALL_ZERO zeroes at every
 * call. FPDUs are checked in the pieces the socket buffers hold them in,
 * so that call cost as much as the CRC itself (iwtcp-performance.rst,
 * "The CRC per call"). iwtcp holds its own handle on the same algorithm
 * and passes a descriptor of the size it needs, as ext4_chksum() does.
 * From 6.14 on crc32c() calls the CPU's CRC code directly: on a merge
 * upstream this file goes and fpdu.c calls crc32c().
 */
#include <crypto/hash.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/stddef.h>

#include "crc.h"

static struct crypto_shash *crc_tfm;

/* shash_desc and the context "crc32c" drivers keep: the CRC register */
struct crc_desc {
	struct shash_desc shash;
	u32 crc;
};

/**
 * iwtcp_crc32c() - run CRC32c over more octets
 * @crc: the CRC register: ~0 to start (RFC 3720 B.4), else the last value
 * @p: octets, mapped for the CPU
 * @len: octets at @p
 *
 * Context: any context; crc32c-intel uses the FPU from 512 octets on
 * where it may, as for libcrc32c's callers.
 * Return: the updated CRC register (not inverted).
 */
u32 iwtcp_crc32c(u32 crc, const void *p, unsigned int len)
{
	struct crc_desc desc;

	BUILD_BUG_ON(offsetof(struct crc_desc, crc) !=
		     offsetof(struct shash_desc, __ctx));
	desc.shash.tfm = crc_tfm;
	desc.crc = crc;
	/* "crc32c" updates do not fail: their descriptor was checked */
	WARN_ON_ONCE(crypto_shash_update(&desc.shash, p, len));
	return desc.crc;
}

/**
 * iwtcp_crc_init() - take a handle on the kernel's "crc32c" algorithm
 *
 * The driver of the highest priority registered now, as libcrc32c takes
 * it; with none registered, the crypto API loads "crypto-crc32c", all
 * of crc32c's drivers. No softdep: modprobe -r would then try to remove
 * the driver too and fail while anything else uses it (ext4, siw).
 *
 * Context: process context (module load); may load a module.
 * Return: 0, or the crypto API's errno; -EINVAL if the driver's
 * descriptor context is not the CRC register alone.
 */
int iwtcp_crc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32c", 0, 0);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	if (crypto_shash_descsize(tfm) != sizeof(u32)) {
		pr_err("crc32c driver %s: descriptor of %u octets\n",
		       crypto_shash_driver_name(tfm),
		       crypto_shash_descsize(tfm));
		crypto_free_shash(tfm);
		return -EINVAL;
	}
	crc_tfm = tfm;
	return 0;
}

/**
 * iwtcp_crc_exit() - let go of the handle iwtcp_crc_init() took
 *
 * Context: process context (module unload or a failed load).
 */
void iwtcp_crc_exit(void)
{
	crypto_free_shash(crc_tfm);
	crc_tfm = NULL;
}

/**
 * iwtcp_crc_driver() - the crc32c driver in use, for the log
 *
 * Context: any context, between iwtcp_crc_init() and iwtcp_crc_exit().
 * Return: its driver name, such as "crc32c-intel".
 */
const char *iwtcp_crc_driver(void)
{
	return crypto_shash_driver_name(crc_tfm);
}
