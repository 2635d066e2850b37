/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_QP_H
#define IWTCP_QP_H

#include "iwtcp.h"

int iwtcp_create_qp(struct ib_qp *base_qp, struct ib_qp_init_attr *attr,
		    struct ib_udata *udata);
int iwtcp_modify_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata);
int iwtcp_query_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr);
int iwtcp_destroy_qp(struct ib_qp *base_qp, struct ib_udata *udata);
int iwtcp_post_send(struct ib_qp *base_qp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int iwtcp_post_recv(struct ib_qp *base_qp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
void iwtcp_qp_add_ref(struct ib_qp *base_qp);
void iwtcp_qp_rem_ref(struct ib_qp *base_qp);
struct ib_qp *iwtcp_get_qp(struct ib_device *base_dev, int qpn);
int iwtcp_qp_bind_cep(struct iwtcp_qp *qp, struct iwtcp_cep *cep);
int iwtcp_qp_connected(struct iwtcp_qp *qp, struct iwtcp_cep *cep, u32 ird,
		       u32 ord);
void iwtcp_qp_disconnected(struct iwtcp_qp *qp, struct iwtcp_cep *cep);

#endif /* IWTCP_QP_H */
