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

#endif /* IWTCP_MEM_H */
