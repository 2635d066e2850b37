/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_QP_H
#define IWTCP_QP_H

#include "iwtcp.h"
#include "fpdu.h"

int iwtcp_create_qp(struct ib_qp *base_qp, struct ib_qp_init_attr *attr,
		    struct ib_udata *udata);
int iwtcp_modify_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata);
int iwtcp_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *base_qp);
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
struct sock;

/**
 * struct iwtcp_qp_conn - what a connection's data path starts from
 * @sk: the TCP socket
 * @ird: negotiated inbound RDMA Read limit (RFC 6581 9.1)
 * @ord: negotiated outbound RDMA Read limit (RFC 6581 9.1)
 * @tx_st: transmit direction: markers, CRC, octets sent in full operation
 * @rx_st: receive direction: markers, CRC, octets received
 * @rtr_sent: RTR type this side sent (IWTCP_MPA_RTR_*), or 0
 * @rtr_recv: RTR type this side received, or 0
 * @hold_tx: a responder without RTR: it sends no FPDU before it received
 *	one (RFC 5044 7.1.2 rule 4)
 */
struct iwtcp_qp_conn {
	struct sock *sk;
	u32 ird;
	u32 ord;
	struct iwtcp_fpdu_stream tx_st;
	struct iwtcp_fpdu_stream rx_st;
	u8 rtr_sent;
	u8 rtr_recv;
	bool hold_tx;
};

int iwtcp_qp_connected(struct iwtcp_qp *qp, struct iwtcp_cep *cep,
		       const struct iwtcp_qp_conn *conn);

void iwtcp_qp_disconnected(struct iwtcp_qp *qp, struct iwtcp_cep *cep);

#endif /* IWTCP_QP_H */
