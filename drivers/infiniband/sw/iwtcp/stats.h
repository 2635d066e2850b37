/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_STATS_H
#define IWTCP_STATS_H

#include "iwtcp.h"

int iwtcp_stats_init(struct iwtcp_device *dev);
void iwtcp_stats_free(struct iwtcp_device *dev);
void iwtcp_stat_mpa_error(struct iwtcp_device *dev, struct iwtcp_qp *qp,
			  u8 ecode);
void iwtcp_stat_term(struct iwtcp_device *dev, struct iwtcp_qp *qp, bool tx,
		     const struct iwtcp_rdmap_term *term);
struct rdma_hw_stats *iwtcp_alloc_hw_port_stats(struct ib_device *base_dev,
						u32 port);
int iwtcp_get_hw_stats(struct ib_device *base_dev, struct rdma_hw_stats *stats,
		       u32 port, int index);
struct rdma_hw_stats *iwtcp_counter_alloc_stats(struct rdma_counter *counter);
int iwtcp_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *base_qp);
int iwtcp_counter_unbind_qp(struct ib_qp *base_qp);
int iwtcp_counter_update_stats(struct rdma_counter *counter);
int iwtcp_counter_dealloc(struct rdma_counter *counter);

#endif
