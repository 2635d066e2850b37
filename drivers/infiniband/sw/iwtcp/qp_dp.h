/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The QP data path, shared by qp.c (state, flush), qp_tx.c, qp_rx.c and
 * cm.c (socket callbacks).
 */
#ifndef IWTCP_QP_DP_H
#define IWTCP_QP_DP_H

#include "iwtcp.h"
#include "fpdu.h"
#include "srq.h"

/* The driver's record of SQ element @idx (any u32, wrapped here). */
static inline struct iwtcp_sq_slot *iwtcp_sq_slot(struct iwtcp_qp *qp, u32 idx)
{
	return &qp->sq_slots[idx & (qp->sq.size - 1)];
}

/* qp.c */
void iwtcp_qp_terminate(struct iwtcp_qp *qp,
			const struct iwtcp_rdmap_term *term, u8 status);
void iwtcp_qp_terminated(struct iwtcp_qp *qp, u8 status);
void iwtcp_qp_to_error(struct iwtcp_qp *qp);

/* qp_tx.c */
void iwtcp_sq_done(struct iwtcp_qp *qp, u32 idx, u8 status);
bool iwtcp_sq_retire_head(struct iwtcp_qp *qp, u8 status);
void iwtcp_qp_tx_kick(struct iwtcp_qp *qp);
void iwtcp_qp_tx_work(struct work_struct *work);
void iwtcp_qp_tx_post(struct iwtcp_qp *qp);
void iwtcp_qp_tx_doorbell(struct iwtcp_qp *qp);
int iwtcp_qp_tx_fill_res(struct sk_buff *msg, struct iwtcp_qp *qp);
void iwtcp_sk_held_enter(void);
void iwtcp_sk_held_exit(void);
bool iwtcp_tx_in_post(void);
int iwtcp_qp_tx_init(struct iwtcp_qp *qp, const struct iwtcp_fpdu_stream *st,
		     u8 rtr_sent);
void iwtcp_qp_tx_free(struct iwtcp_qp *qp);
int iwtcp_qp_tx_wq_init(void);
void iwtcp_qp_tx_wq_exit(void);

/* qp_rx.c */
void iwtcp_qp_rx_work(struct work_struct *work);
void iwtcp_qp_rx_ready(struct iwtcp_qp *qp, struct sock *sk);
void iwtcp_qp_rx_kick(struct iwtcp_qp *qp);
void iwtcp_qp_rx_drain(struct iwtcp_qp *qp);
int iwtcp_qp_rx_wq_init(void);
void iwtcp_qp_rx_wq_exit(void);
int iwtcp_qp_rx_init(struct iwtcp_qp *qp, const struct iwtcp_fpdu_stream *st,
		     u8 rtr_recv);
bool iwtcp_qp_rx_flush(struct iwtcp_qp *qp);

#endif /* IWTCP_QP_DP_H */
