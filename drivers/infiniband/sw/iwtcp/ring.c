// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Queues shared with user space in the siw ABI layout.
 */

/**
 * DOC: Queues shared with user space
 *
 * Lifetime: a user ring is vmalloc_user() memory published under an mmap
 * entry, whose key user space passes to mmap(). The driver object holds
 * the entry from iwtcp_ring_create() to iwtcp_ring_destroy(); mmap()
 * looks the entry up only for the duration of the call. The mapping
 * itself holds a reference on every page it maps (remap_vmalloc_range()
 * inserts them with vm_insert_page()), so when the last entry reference
 * goes (iwtcp_mmap_free()) and the ring is vfree()d, pages still mapped
 * stay allocated until user space unmaps them: a ring never disappears
 * under a live mapping, and a stale mapping only reaches memory no
 * kernel object uses any more. Kernel rings are plain vzalloc() memory
 * freed by iwtcp_ring_destroy().
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "ring.h"

static int ring_publish(struct iwtcp_ring *ring, struct ib_udata *udata,
			size_t bytes, u64 *key)
{
	struct iwtcp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct iwtcp_ucontext,
					  base_ucontext);
	struct iwtcp_mmap_entry *entry;
	int rv;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->vaddr = ring->queue;
	rv = rdma_user_mmap_entry_insert(&uctx->base_ucontext,
					 &entry->rdma_entry, bytes);
	if (rv) {
		kfree(entry);
		return rv;
	}
	ring->entry = entry;
	*key = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return 0;
}

/**
 * iwtcp_ring_create() - allocate a queue and, for user objects, map it
 * @ring: ring to set up; zeroed by the caller
 * @udata: user data of the create verb, or NULL for a kernel object
 * @num: elements wanted, at least 1; rounded up to a power of two
 * @elem_size: bytes per element
 * @extra: bytes after the elements (the CQ control word), may be 0
 * @key: for user objects, receives the mmap offset to report
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL if @num is 0, or -ENOMEM.
 */
int iwtcp_ring_create(struct iwtcp_ring *ring, struct ib_udata *udata,
		      u32 num, size_t elem_size, size_t extra, u64 *key)
{
	size_t bytes;
	int rv;

	if (!num)
		return -EINVAL;
	ring->size = roundup_pow_of_two(num);
	bytes = array_size(ring->size, elem_size) + extra;
	ring->queue = udata ? vmalloc_user(bytes) : vzalloc(bytes);
	if (!ring->queue)
		return -ENOMEM;
	if (!udata)
		return 0;
	rv = ring_publish(ring, udata, bytes, key);
	if (rv) {
		vfree(ring->queue);
		ring->queue = NULL;
	}
	return rv;
}

/**
 * iwtcp_ring_destroy() - drop the driver's hold on a ring
 * @ring: ring set up by iwtcp_ring_create(), or a zeroed one
 *
 * A user ring's memory lives on until user space unmaps it; the driver
 * must not touch @ring->queue after this call.
 *
 * Context: process context.
 */
void iwtcp_ring_destroy(struct iwtcp_ring *ring)
{
	if (ring->entry)
		rdma_user_mmap_entry_remove(&ring->entry->rdma_entry);
	else
		vfree(ring->queue);
	ring->entry = NULL;
	ring->queue = NULL;
}

/**
 * iwtcp_ring_post_recv() - add one receive work request to a kernel RQ/SRQ
 * @ring: receive ring of &struct siw_rqe, owned by the kernel
 * @lock: the queue's lock (the QP's @rq_lock or the SRQ's @lock)
 * @wr: the work request
 * @max_sge: SGEs allowed per work request on this queue
 *
 * Context: any context; the caller holds @lock.
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM when the ring is full.
 */
int iwtcp_ring_post_recv(struct iwtcp_ring *ring, spinlock_t *lock,
			 const struct ib_recv_wr *wr, u32 max_sge)
{
	struct siw_rqe *rqe;
	int i;

	lockdep_assert_held(lock);
	if (wr->num_sge > max_sge)
		return -EINVAL;
	rqe = iwtcp_ring_slot(ring, sizeof(*rqe), ring->put);
	if (READ_ONCE(rqe->flags) & SIW_WQE_VALID)
		return -ENOMEM;
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	/* Publish the element to its consumer only once it is complete. */
	smp_store_release(&rqe->flags, SIW_WQE_VALID);
	ring->put++;
	return 0;
}

/**
 * iwtcp_mmap() - ib_device_ops.mmap: map a ring into user space
 * @base_ucontext: the caller's context
 * @vma: the mapping; its offset is a key from iwtcp_ring_create()
 *
 * Context: process context (mmap system call).
 * Return: 0, -EPERM for an executable mapping, or -EINVAL for an unknown
 * key or a size that does not match.
 */
int iwtcp_mmap(struct ib_ucontext *base_ucontext, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	int rv;

	/* Rings hold data, never code. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	iwtcp_compat_vm_flags_clear(vma, VM_MAYEXEC);
	rdma_entry = rdma_user_mmap_entry_get(base_ucontext, vma);
	if (!rdma_entry)
		return -EINVAL;
	rv = remap_vmalloc_range(vma, to_iwtcp_mmap_entry(rdma_entry)->vaddr,
				 0);
	rdma_user_mmap_entry_put(rdma_entry);
	return rv;
}

/**
 * iwtcp_mmap_free() - ib_device_ops.mmap_free: last reference to a ring
 * @rdma_entry: entry whose reference count reached zero
 *
 * Context: any context that drops an mmap entry reference; process
 * context in practice (munmap, object destroy, context teardown).
 */
void iwtcp_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct iwtcp_mmap_entry *entry = to_iwtcp_mmap_entry(rdma_entry);

	vfree(entry->vaddr);
	kfree(entry);
}
