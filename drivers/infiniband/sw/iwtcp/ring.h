/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_RING_H
#define IWTCP_RING_H

#include "iwtcp.h"

int iwtcp_ring_create(struct iwtcp_ring *ring, struct ib_udata *udata,
		      u32 num, size_t elem_size, size_t extra, u64 *key);
void iwtcp_ring_destroy(struct iwtcp_ring *ring);
int iwtcp_ring_post_recv(struct iwtcp_ring *ring, spinlock_t *lock,
			 const struct ib_recv_wr *wr, u32 max_sge);
int iwtcp_mmap(struct ib_ucontext *base_ucontext, struct vm_area_struct *vma);
void iwtcp_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* Element @idx (any u32, wrapped here) of a ring of @elem_size elements. */
static inline void *iwtcp_ring_slot(const struct iwtcp_ring *ring,
				    size_t elem_size, u32 idx)
{
	return ring->queue + (size_t)(idx & (ring->size - 1)) * elem_size;
}

/**
 * iwtcp_ring_hand_back() - give an SQ element back to its producer
 * @flags: the element's flags word (VALID set by the producer)
 *
 * The release orders the reads of the element's fields before the clear:
 * the producer may fill the element again at once. The full barrier
 * orders the clear before the kernel's next VALID read of the ring (the
 * caller's, or the transmitter's it kicks): libsiw stores a new element's
 * VALID and then reads the previous one's to decide on a doorbell, the
 * kernel clears one and then reads the next VALID (store buffering: both
 * sides need a full barrier; smp_store_mb(), siw's, would not order the
 * field reads before the clear). siw ABI contract, "Shared rings". Only
 * the SQ has a doorbell: receive hands RQ elements back with the release
 * alone (rx_pop_rqe()); a flush of either ring uses this helper.
 *
 * Context: any; the caller owns the element (its ring's lock held).
 */
static inline void iwtcp_ring_hand_back(u16 *flags)
{
	/* the element's fields were read before the producer sees it free */
	smp_store_release(flags, 0);
	/* the clear before the kernel's next VALID read (store buffering) */
	smp_mb();
}

#endif /* IWTCP_RING_H */
