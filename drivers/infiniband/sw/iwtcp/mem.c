// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memory regions and their STags.
 *
 * An STag (RFC 5040 section 2.1, "Steering Tag") is 32 bits: the upper
 * 24 bits index the device's @mem_xa, the lower 8 bits are the key that
 * the consumer may change for fast-registration MRs. lkey == rkey == STag.
 */

/**
 * DOC: MR lifetime
 *
 * An MR is counted by @ref. Holders: the creation reference (dropped by
 * iwtcp_dereg_mr()) and data path lookups. Deregistration unpublishes the
 * STag index first, drops the creation reference and waits for @released,
 * then releases the pinned pages in process context. Lookups
 * (iwtcp_mem_get()) find the MR under RCU and take a reference only if
 * the count is not zero yet, so the struct itself is freed after an RCU
 * grace period. Data path references are short: one transmit batch or
 * one tcp_read_sock() call (struct iwtcp_mem_cache), or one inbound RDMA
 * Read until its response is sent.
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "mem.h"

#define MEM_STAG_INDEX_MAX 0xffffff

/*
 * Access flags accepted at registration. The device has no atomics, no
 * memory windows and no on-demand paging: asking for them is refused.
 */
#define MEM_ACCESS_OK (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_RELAXED_ORDERING)

static void mem_release(struct kref *ref)
{
	complete(&container_of(ref, struct iwtcp_mr, ref)->released);
}

static struct iwtcp_mr *mem_alloc(struct iwtcp_device *dev,
				  enum iwtcp_mr_type type)
{
	struct iwtcp_mr *mr;

	if (iwtcp_count_get(&dev->num_mr, IWTCP_MAX_MR))
		return ERR_PTR(-ENOSPC);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		iwtcp_count_put(&dev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&mr->ref);
	init_completion(&mr->released);
	mr->type = type;
	return mr;
}

static void mem_free(struct iwtcp_device *dev, struct iwtcp_mr *mr)
{
	kvfree(mr->upages);
	ib_umem_release(mr->umem);
	kfree(mr->pages);
	/* iwtcp_mem_get() may still read the struct under RCU */
	kfree_rcu(mr, rcu);
	iwtcp_count_put(&dev->num_mr);
}

/*
 * Reserve an STag index, then publish the complete MR under it: a lookup
 * never finds an MR whose STag is not set. Returns 0 or -errno.
 */
static int mem_publish(struct iwtcp_device *dev, struct iwtcp_mr *mr)
{
	u32 index;
	int rv;

	rv = xa_alloc(&dev->mem_xa, &index, NULL,
		      XA_LIMIT(1, MEM_STAG_INDEX_MAX), GFP_KERNEL);
	if (rv)
		return rv == -EBUSY ? -ENOSPC : rv;
	mr->base_mr.lkey = index << 8 | get_random_u8();
	mr->base_mr.rkey = mr->base_mr.lkey;
	xa_store(&dev->mem_xa, index, mr, GFP_KERNEL);
	return 0;
}

static struct ib_mr *mem_finish(struct ib_pd *pd, struct iwtcp_mr *mr)
{
	struct iwtcp_device *dev = to_iwtcp_dev(pd->device);
	int rv = mem_publish(dev, mr);

	if (rv) {
		mem_free(dev, mr);
		return ERR_PTR(rv);
	}
	ibdev_dbg(pd->device, "MR %#x created\n", mr->base_mr.lkey >> 8);
	return &mr->base_mr;
}

/**
 * iwtcp_get_dma_mr() - ib_device_ops.get_dma_mr: all of kernel memory
 * @pd: protection domain
 * @access: IB_ACCESS_* rights
 *
 * Context: process context, may sleep.
 * Return: the MR, or ERR_PTR(-ENOSPC) at %IWTCP_MAX_MR or ERR_PTR(-ENOMEM).
 */
struct ib_mr *iwtcp_get_dma_mr(struct ib_pd *pd, int access)
{
	struct iwtcp_mr *mr = mem_alloc(to_iwtcp_dev(pd->device),
					IWTCP_MR_DMA);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->valid = true;
	mr->access = access;
	mr->base_mr.length = U64_MAX;
	return mem_finish(pd, mr);
}

/* The pinned pages in order, for placement by offset (mem_page()). */
static int mem_user_pages(struct iwtcp_mr *mr)
{
	struct sg_page_iter iter;
	unsigned long i = 0;

	mr->nupages = ib_umem_num_pages(mr->umem);
	mr->upages = kvmalloc_array(mr->nupages, sizeof(*mr->upages),
				    GFP_KERNEL);
	if (!mr->upages)
		return -ENOMEM;
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (i == mr->nupages)
			break;
		mr->upages[i++] = sg_page_iter_page(&iter);
	}
	return i == mr->nupages ? 0 : -EFAULT;
}

static int mem_respond(struct iwtcp_mr *mr, struct ib_udata *udata)
{
	struct siw_uresp_reg_mr uresp = { .stag = mr->base_mr.lkey };

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * iwtcp_reg_user_mr() - ib_device_ops.reg_user_mr: pin user memory
 * @pd: protection domain
 * @start: user virtual address of the region
 * @length: bytes, 1 to %IWTCP_MAX_MR_SIZE
 * @virt_addr: the region's tagged offset base (RFC 5040 TO) as the
 *	consumer addresses it
 * @access: IB_ACCESS_* rights: local write, remote write and read
 *	(atomics, memory windows and on-demand paging are not offered)
 * @udata: user data (siw_uresp_reg_mr out with the STag)
 *
 * Pinned pages count against RLIMIT_MEMLOCK through ib_umem_get().
 *
 * Context: process context, sleeps.
 * Return: the MR; ERR_PTR of -EINVAL (length, short response buffer),
 * -EOPNOTSUPP (access flags), -ENOSPC, -ENOMEM, or ib_umem_get()'s error.
 */
struct ib_mr *iwtcp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(pd->device);
	struct iwtcp_mr *mr;
	int rv;

	if (!length || length > IWTCP_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	if (access & ~MEM_ACCESS_OK)
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->outlen < sizeof(struct siw_uresp_reg_mr))
		return ERR_PTR(-EINVAL);
	mr = mem_alloc(dev, IWTCP_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		rv = PTR_ERR(mr->umem);
		mr->umem = NULL;
		mem_free(dev, mr);
		return ERR_PTR(rv);
	}
	rv = mem_user_pages(mr);
	if (rv) {
		mem_free(dev, mr);
		return ERR_PTR(rv);
	}
	mr->valid = true;
	mr->access = access;
	mr->base_mr.iova = virt_addr;
	mr->base_mr.length = length;
	rv = mem_publish(dev, mr);
	if (rv) {
		mem_free(dev, mr);
		return ERR_PTR(rv);
	}
	if (udata) {
		rv = mem_respond(mr, udata);
		if (rv) {
			xa_erase(&dev->mem_xa, mr->base_mr.lkey >> 8);
			mem_free(dev, mr);
			return ERR_PTR(rv);
		}
	}
	ibdev_dbg(pd->device, "MR %#x created\n", mr->base_mr.lkey >> 8);
	return &mr->base_mr;
}

/**
 * iwtcp_alloc_mr() - ib_device_ops.alloc_mr: a fast-registration MR
 * @pd: protection domain
 * @mr_type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages the MR can map, 1 to %IWTCP_MAX_FRMR_PAGES
 *
 * The STag starts invalid; an IB_WR_REG_MR work request validates it.
 *
 * Context: process context, may sleep.
 * Return: the MR; ERR_PTR of -EOPNOTSUPP (type), -EINVAL (size),
 * -ENOSPC or -ENOMEM.
 */
struct ib_mr *iwtcp_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			     u32 max_num_sg)
{
	struct iwtcp_device *dev = to_iwtcp_dev(pd->device);
	struct iwtcp_mr *mr;

	if (mr_type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > IWTCP_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = mem_alloc(dev, IWTCP_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		mem_free(dev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	return mem_finish(pd, mr);
}

static int mem_set_page(struct ib_mr *base_mr, u64 addr)
{
	struct iwtcp_mr *mr = to_iwtcp_mr(base_mr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

/**
 * iwtcp_map_mr_sg() - ib_device_ops.map_mr_sg: fill a fast-reg MR's pages
 * @base_mr: MR from iwtcp_alloc_mr()
 * @sg: scatterlist of kernel virtual addresses (virtual DMA device)
 * @sg_nents: entries in @sg
 * @sg_offset: byte offset into the first entry, updated by the core
 *
 * Context: any context; the ULP serialises use of the MR.
 * Return: number of @sg entries mapped (see ib_sg_to_pages()), or -EINVAL
 * for an MR that is not a fast-registration MR.
 */
int iwtcp_map_mr_sg(struct ib_mr *base_mr, struct scatterlist *sg,
		    int sg_nents, unsigned int *sg_offset)
{
	struct iwtcp_mr *mr = to_iwtcp_mr(base_mr);

	if (mr->type != IWTCP_MR_FAST)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(base_mr, sg, sg_nents, sg_offset, mem_set_page);
}

/**
 * iwtcp_fill_res_mr_entry() - ib_device_ops.fill_res_mr_entry
 * @msg: the netlink message of ``rdma resource show mr`` (``-dd``)
 * @base_mr: the MR, held by restrack
 *
 * Adds the driver attributes (RDMA_NLDEV_ATTR_DRIVER) valid (0 until a
 * fast-registration MR is registered, and after an invalidation), type
 * (dma, user or fast) and access (IB_ACCESS_* bits, hex). Not the STag:
 * the core shows the keys only to CAP_NET_ADMIN, and so does iwtcp.
 *
 * Context: process context.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int iwtcp_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *base_mr)
{
	static const char * const type_name[] = {
		[IWTCP_MR_DMA] = "dma",
		[IWTCP_MR_USER] = "user",
		[IWTCP_MR_FAST] = "fast",
	};
	struct iwtcp_mr *mr = to_iwtcp_mr(base_mr);
	struct nlattr *table;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "valid", READ_ONCE(mr->valid)) ||
	    rdma_nl_put_driver_string(msg, "type", type_name[mr->type]) ||
	    rdma_nl_put_driver_u32_hex(msg, "access", READ_ONCE(mr->access))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/**
 * iwtcp_dereg_mr() - ib_device_ops.dereg_mr
 * @base_mr: the MR
 * @udata: unused
 *
 * Context: process context, sleeps until data path users are done.
 * Return: 0.
 */
int iwtcp_dereg_mr(struct ib_mr *base_mr, struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_mr->device);
	struct iwtcp_mr *mr = to_iwtcp_mr(base_mr);
	u32 stag = base_mr->lkey;

	xa_erase(&dev->mem_xa, stag >> 8);
	kref_put(&mr->ref, mem_release);
	wait_for_completion(&mr->released);
	mem_free(dev, mr);
	/* by STag index: fast registration changes the key */
	ibdev_dbg(&dev->base_dev, "MR %#x destroyed\n", stag >> 8);
	return 0;
}

/**
 * iwtcp_mem_get() - look an STag up for the data path
 * @dev: the device
 * @stag: STag from a work request (lkey) or from the wire (RFC 5040 2.1)
 *
 * Context: any context.
 * Return: the MR with a reference (drop it with iwtcp_mem_put()), or NULL
 * if no MR has this STag (index and key).
 */
struct iwtcp_mr *iwtcp_mem_get(struct iwtcp_device *dev, u32 stag)
{
	struct iwtcp_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mem_xa, stag >> 8);
	if (mr && (READ_ONCE(mr->base_mr.lkey) != stag ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * iwtcp_mem_put() - drop a reference from iwtcp_mem_get()
 * @mr: the MR
 *
 * Context: any context (dereg_mr waits for this put and frees).
 */
void iwtcp_mem_put(struct iwtcp_mr *mr)
{
	kref_put(&mr->ref, mem_release);
}

/**
 * iwtcp_mem_cached() - iwtcp_mem_get() through a one-entry cache
 * @c: the cache, owned by the caller's run
 * @dev: the device
 * @stag: STag from a work request (lkey) or from the wire (RFC 5040 2.1)
 *
 * The FPDUs of a message use one STag each: a run of them (one transmit
 * batch, the FPDUs of one tcp_read_sock() call) looks it up once. The
 * reference stays in @c until iwtcp_mem_cache_drop(), which the run
 * calls when it ends, since iwtcp_dereg_mr() waits for it. Validity,
 * PD, rights and bounds remain iwtcp_mem_check()'s, per use: an
 * invalidation or a new key between two uses is seen. A deregistration
 * that begins during a run lets the run finish with the MR, as if its
 * FPDUs had come a moment earlier; its pages stay pinned until then.
 *
 * Context: any context; @c is not shared.
 * Return: the MR (the reference belongs to @c, not to the caller) or NULL
 * if no MR has this STag.
 */
struct iwtcp_mr *iwtcp_mem_cached(struct iwtcp_mem_cache *c,
				  struct iwtcp_device *dev, u32 stag)
{
	if (c->mr && c->stag == stag)
		return c->mr;
	iwtcp_mem_cache_drop(c);
	c->mr = iwtcp_mem_get(dev, stag);
	c->stag = stag;
	return c->mr;
}

/**
 * iwtcp_mem_cache_drop() - end a run: drop the reference iwtcp_mem_cached()
 *	keeps
 * @c: the cache
 *
 * Context: any context.
 */
void iwtcp_mem_cache_drop(struct iwtcp_mem_cache *c)
{
	if (c->mr)
		iwtcp_mem_put(c->mr);
	c->mr = NULL;
}

/**
 * iwtcp_mem_check() - may @len octets at @addr of @mr be used so?
 * @mr: MR from iwtcp_mem_get()
 * @stag: the STag @mr was looked up by
 * @pd: the PD of the QP using it
 * @access: IB_ACCESS_* rights needed; 0 for a local read
 * @addr: first octet: tagged offset (RFC 5040 TO) or local address
 * @len: octets; 0 checks only validity, PD and rights
 *
 * The checks of RFC 5040 7.2 (and RFC 5041 7.1, tagged) in their order:
 * STag valid, same PD (the STag belongs to this stream), rights, bounds.
 *
 * Context: any context.
 * Return: 0; -ENOENT invalid STag; -EPERM another PD; -EACCES missing
 * rights; -ERANGE outside the region or wrapping.
 */
int iwtcp_mem_check(struct iwtcp_mr *mr, u32 stag, struct ib_pd *pd,
		    int access, u64 addr, u64 len)
{
	u64 base, size;

	/*
	 * valid first, pairing with iwtcp_mem_fast_reg()'s release, then the
	 * key it published: iwtcp_mem_get() may have matched a key that an
	 * invalidation and a new registration replaced since.
	 */
	if (!smp_load_acquire(&mr->valid) ||
	    READ_ONCE(mr->base_mr.lkey) != stag)
		return -ENOENT;
	base = READ_ONCE(mr->base_mr.iova);
	size = READ_ONCE(mr->base_mr.length);
	if (mr->base_mr.pd != pd)
		return -EPERM;
	if ((READ_ONCE(mr->access) & access) != access)
		return -EACCES;
	if (!len)
		return 0;
	if (addr + len < addr || addr < base || addr - base > size ||
	    len > size - (addr - base))
		return -ERANGE;
	return 0;
}

/* The page and offset of @addr, and octets to the page's end. */
static struct page *mem_page(struct iwtcp_mr *mr, u64 addr, u32 *off,
			     u32 *room)
{
	u64 rel = addr - mr->base_mr.iova;
	unsigned long va;

	switch (mr->type) {
	case IWTCP_MR_USER:
		rel += ib_umem_offset(mr->umem);
		if (rel >> PAGE_SHIFT >= mr->nupages)
			return NULL;
		*off = offset_in_page(rel);
		*room = PAGE_SIZE - *off;
		return mr->upages[rel >> PAGE_SHIFT];
	case IWTCP_MR_FAST:
		/* ib_sg_to_pages(): pages of page_size from iova's page */
		rel += mr->base_mr.iova & (mr->base_mr.page_size - 1);
		if (rel / mr->base_mr.page_size >= mr->npages)
			return NULL;
		va = mr->pages[rel / mr->base_mr.page_size] +
		     rel % mr->base_mr.page_size;
		break;
	default:
		va = addr;
		break;
	}
	*off = offset_in_page(va);
	*room = PAGE_SIZE - *off;
	return virt_to_page((void *)va);
}

/**
 * iwtcp_mem_walk() - visit the pages behind a checked range of an MR
 * @mr: MR from iwtcp_mem_get(), range checked with iwtcp_mem_check()
 * @addr: first octet (tagged offset or local address)
 * @len: octets
 * @fn: called with each page, the offset in it and the octets there, in
 *	order; a non-zero return stops the walk and is returned
 * @arg: passed to @fn
 *
 * Context: any context; @fn decides how to map the page.
 * Return: 0, -EFAULT if the MR does not back the range, or @fn's value.
 */
int iwtcp_mem_walk(struct iwtcp_mr *mr, u64 addr, u32 len,
		   iwtcp_mem_fn fn, void *arg)
{
	struct page *page;
	u32 off, room, n;
	int rv;

	while (len) {
		page = mem_page(mr, addr, &off, &room);
		if (!page)
			return -EFAULT;
		n = min(len, room);
		rv = fn(arg, page, off, n);
		if (rv)
			return rv;
		addr += n;
		len -= n;
	}
	return 0;
}

/**
 * iwtcp_mem_place() - copy received octets to where a cursor points in an MR
 * @ctx: a struct iwtcp_mem_cursor, advanced past the octets
 * @p: the octets, mapped for the CPU
 * @len: octets at @p
 *
 * The visitor (iwtcp_fpdu_visit_t) that placement hands a segment's
 * payload to (RFC 5041 5), in the pieces the socket buffers and the
 * markers cut it into: each piece is copied into the pages behind the
 * MR's range, a target page looked up only when the cursor enters it.
 *
 * Context: any context; does not sleep.
 * Return: 0, or -EFAULT beyond the checked range or the MR's pages.
 */
int iwtcp_mem_place(void *ctx, const void *p, u32 len)
{
	struct iwtcp_mem_cursor *c = ctx;
	const u8 *src = p;
	u32 n;
	void *va;

	/* the framer hands over no more than the range it was given */
	if (WARN_ON_ONCE(len > c->left))
		return -EFAULT;
	while (len) {
		if (!c->room) {
			c->page = mem_page(c->mr, c->addr, &c->off, &c->room);
			if (!c->page)
				return -EFAULT;
		}
		n = min(len, c->room);
		va = kmap_local_page(c->page);
		memcpy(va + c->off, src, n);
		kunmap_local(va);
		c->addr += n;
		c->off += n;
		c->room -= n;
		c->left -= n;
		src += n;
		len -= n;
	}
	return 0;
}

/**
 * iwtcp_mem_fast_reg() - execute IB_WR_REG_MR: validate a fast MR
 * @pd: PD of the QP the work request was posted to
 * @base_mr: the MR, mapped with map_mr_sg
 * @key: new STag, whose index must be the MR's
 * @access: IB_ACCESS_* rights to grant
 *
 * Context: any context.
 * Return: 0, or -EINVAL (not a fast MR of this PD, index changed, still
 * valid).
 */
int iwtcp_mem_fast_reg(struct ib_pd *pd, struct ib_mr *base_mr, u32 key,
		       int access)
{
	struct iwtcp_mr *mr = to_iwtcp_mr(base_mr);

	if (mr->type != IWTCP_MR_FAST || base_mr->pd != pd ||
	    (key >> 8) != (base_mr->lkey >> 8) || READ_ONCE(mr->valid))
		return -EINVAL;
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(base_mr->lkey, key);
	WRITE_ONCE(base_mr->rkey, key);
	/* Publish the new mapping with the valid flag. */
	smp_store_release(&mr->valid, true);
	return 0;
}

/**
 * iwtcp_mem_invalidate() - invalidate an STag (RFC 5040 5.3, local or
 *	by Send with Invalidate)
 * @dev: the device
 * @pd: PD of the QP asking
 * @stag: the STag
 *
 * Only fast-registration STags can be invalidated.
 *
 * Context: any context.
 * Return: 0, -ENOENT (no such valid STag), -EPERM (other PD), -EINVAL
 * (not invalidatable).
 */
int iwtcp_mem_invalidate(struct iwtcp_device *dev, struct ib_pd *pd, u32 stag)
{
	struct iwtcp_mr *mr = iwtcp_mem_get(dev, stag);
	int rv = 0;

	if (!mr)
		return -ENOENT;
	if (mr->base_mr.pd != pd)
		rv = -EPERM;
	else if (mr->type != IWTCP_MR_FAST)
		rv = -EINVAL;
	else if (!READ_ONCE(mr->valid))
		rv = -ENOENT;
	else
		WRITE_ONCE(mr->valid, false);
	iwtcp_mem_put(mr);
	return rv;
}
