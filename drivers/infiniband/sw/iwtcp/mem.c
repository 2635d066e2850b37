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
 * then releases the pinned pages and frees the MR in process context.
 */
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
	ib_umem_release(mr->umem);
	kfree(mr->pages);
	kfree(mr);
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
	ibdev_dbg(pd->device, "MR %#x created\n", mr->base_mr.lkey);
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
	mr->base_mr.length = U64_MAX;
	return mem_finish(pd, mr);
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
	mr->valid = true;
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
	ibdev_dbg(pd->device, "MR %#x created\n", mr->base_mr.lkey);
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
	ibdev_dbg(&dev->base_dev, "MR %#x destroyed\n", stag);
	return 0;
}
