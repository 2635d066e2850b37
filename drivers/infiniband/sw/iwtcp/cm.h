/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_CM_H
#define IWTCP_CM_H

#include <rdma/iw_cm.h>

struct iwtcp_cep;

int iwtcp_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int iwtcp_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int iwtcp_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int iwtcp_create_listen(struct iw_cm_id *cm_id, int backlog);
int iwtcp_destroy_listen(struct iw_cm_id *cm_id);
void iwtcp_cm_qp_closing(struct iwtcp_cep *cep, bool abort);
void iwtcp_cm_get(struct iwtcp_cep *cep);
int iwtcp_cm_fill_res(struct sk_buff *msg, struct iwtcp_cep *cep);
void iwtcp_cm_put(struct iwtcp_cep *cep);
int iwtcp_cm_init(void);
void iwtcp_cm_exit(void);

#endif /* IWTCP_CM_H */
