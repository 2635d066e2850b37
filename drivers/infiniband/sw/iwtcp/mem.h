/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_MEM_H
#define IWTCP_MEM_H

#include "iwtcp.h"

struct ib_mr *iwtcp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *iwtcp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);
struct ib_mr *iwtcp_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			     u32 max_num_sg);
int iwtcp_map_mr_sg(struct ib_mr *base_mr, struct scatterlist *sg,
		    int sg_nents, unsigned int *sg_offset);
int iwtcp_dereg_mr(struct ib_mr *base_mr, struct ib_udata *udata);
int iwtcp_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *base_mr);

/* Called by iwtcp_mem_walk() for each page piece; non-zero stops. */
typedef int (*iwtcp_mem_fn)(void *arg, struct page *page, u32 off, u32 len);

struct iwtcp_mr *iwtcp_mem_get(struct iwtcp_device *dev, u32 stag);
void iwtcp_mem_put(struct iwtcp_mr *mr);

/**
 * struct iwtcp_mem_cache - the MR of the last lookup of a run of FPDUs
 * @mr: that MR, with a reference, or NULL
 * @stag: the STag it was looked up by
 */
struct iwtcp_mem_cache {
	struct iwtcp_mr *mr;
	u32 stag;
};

struct iwtcp_mr *iwtcp_mem_cached(struct iwtcp_mem_cache *c,
				  struct iwtcp_device *dev, u32 stag);
void iwtcp_mem_cache_drop(struct iwtcp_mem_cache *c);
int iwtcp_mem_check(struct iwtcp_mr *mr, u32 stag, struct ib_pd *pd,
		    int access, u64 addr, u64 len);
int iwtcp_mem_walk(struct iwtcp_mr *mr, u64 addr, u32 len,
		   iwtcp_mem_fn fn, void *arg);

/**
 * struct iwtcp_mem_cursor - where the next received octet goes in an MR
 * @mr: the MR, its range checked with iwtcp_mem_check()
 * @addr: the next octet's address (tagged offset or local address)
 * @left: octets of the checked range not yet written
 * @page: the page @addr is in, while @room
 * @off: @addr's offset in @page
 * @room: octets from @addr to @page's end; 0: look @page up
 *
 * Set @mr, @addr and @left; the rest starts at 0.
 */
struct iwtcp_mem_cursor {
	struct iwtcp_mr *mr;
	u64 addr;
	u32 left;
	struct page *page;
	u32 off;
	u32 room;
};

int iwtcp_mem_place(void *ctx, const void *p, u32 len);
int iwtcp_mem_fast_reg(struct ib_pd *pd, struct ib_mr *base_mr, u32 key,
		       int access);
int iwtcp_mem_invalidate(struct iwtcp_device *dev, struct ib_pd *pd,
			 u32 stag);

#endif /* IWTCP_MEM_H */
