/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_CQ_H
#define IWTCP_CQ_H

#include "iwtcp.h"

/**
 * struct iwtcp_wc - one completion, as the producers describe it
 * @id: work request id
 * @qp: the QP the work request was posted to
 * @bytes: bytes transferred
 * @inval_stag: STag invalidated by a Send with Invalidate, or 0
 * @opcode: &enum siw_opcode of the work request (SIW_OP_RECEIVE for RQ)
 * @status: &enum siw_wc_status
 * @solicited: the completion carries a solicited event
 */
struct iwtcp_wc {
	u64 id;
	struct iwtcp_qp *qp;
	u32 bytes;
	u32 inval_stag;
	u8 opcode;
	u8 status;
	bool solicited;
};

int iwtcp_create_cq(struct ib_cq *base_cq, const struct ib_cq_init_attr *attr,
		    struct iwtcp_compat_cq_attrs *attrs);
int iwtcp_pre_destroy_cq(struct ib_cq *base_cq);
int iwtcp_destroy_cq(struct ib_cq *base_cq, struct ib_udata *udata);
int iwtcp_poll_cq(struct ib_cq *base_cq, int num_entries, struct ib_wc *wc);
int iwtcp_req_notify_cq(struct ib_cq *base_cq, enum ib_cq_notify_flags flags);
int iwtcp_cq_push(struct iwtcp_cq *cq, const struct iwtcp_wc *wc);
void iwtcp_cq_notify(struct iwtcp_cq *cq);
int iwtcp_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *base_cq);

#endif /* IWTCP_CQ_H */
