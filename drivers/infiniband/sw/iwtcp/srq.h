/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_SRQ_H
#define IWTCP_SRQ_H

#include "iwtcp.h"

int iwtcp_create_srq(struct ib_srq *base_srq, struct ib_srq_init_attr *attr,
		     struct ib_udata *udata);
int iwtcp_modify_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int iwtcp_query_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr);
int iwtcp_destroy_srq(struct ib_srq *base_srq, struct ib_udata *udata);
int iwtcp_post_srq_recv(struct ib_srq *base_srq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

void iwtcp_srq_check_limit(struct iwtcp_srq *srq);

#endif /* IWTCP_SRQ_H */
