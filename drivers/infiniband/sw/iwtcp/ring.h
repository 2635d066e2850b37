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

#endif /* IWTCP_RING_H */
