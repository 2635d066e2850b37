// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Shared receive queues: a ring of &struct siw_rqe, filled by libsiw in
 * user space or by iwtcp_post_srq_recv() for kernel SRQs, consumed by the
 * receive path of every QP attached to it.
 */
#include <rdma/uverbs_ioctl.h>

#include "srq.h"
#include "ring.h"

static int srq_respond(struct iwtcp_srq *srq, struct ib_udata *udata, u64 key)
{
	struct siw_uresp_create_srq uresp = {
		.num_rqe = srq->ring.size,
		.srq_key = key,
	};

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/**
 * iwtcp_create_srq() - ib_device_ops.create_srq
 * @base_srq: SRQ allocated by the RDMA core
 * @attr: basic SRQ of 1 to %IWTCP_MAX_SRQ_WR work requests with at most
 *	%IWTCP_MAX_SGE SGEs; the granted size is written back
 * @udata: user data (siw_uresp_create_srq out) or NULL
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP for other SRQ types; -EINVAL for sizes out of
 * range or a short response buffer; -ENOSPC at %IWTCP_MAX_SRQ; -ENOMEM.
 */
int iwtcp_create_srq(struct ib_srq *base_srq, struct ib_srq_init_attr *attr,
		     struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_srq->device);
	struct iwtcp_srq *srq = to_iwtcp_srq(base_srq);
	struct ib_srq_attr *a = &attr->attr;
	u64 key = 0;
	int rv;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > IWTCP_MAX_SRQ_WR ||
	    a->max_sge > IWTCP_MAX_SGE || a->srq_limit > a->max_wr)
		return -EINVAL;
	rv = iwtcp_count_get(&dev->num_srq, IWTCP_MAX_SRQ);
	if (rv)
		return rv;
	spin_lock_init(&srq->lock);
	srq->max_sge = a->max_sge;
	srq->limit = a->srq_limit;
	rv = iwtcp_ring_create(&srq->ring, udata, a->max_wr,
			       sizeof(struct siw_rqe), 0, &key);
	if (rv)
		goto err_uncount;
	a->max_wr = srq->ring.size;
	if (udata) {
		rv = srq_respond(srq, udata, key);
		if (rv)
			goto err_destroy_ring;
	}
	return 0;

err_destroy_ring:
	iwtcp_ring_destroy(&srq->ring);
err_uncount:
	iwtcp_count_put(&dev->num_srq);
	return rv;
}

/**
 * iwtcp_modify_srq() - ib_device_ops.modify_srq
 * @base_srq: the SRQ
 * @attr: new limit
 * @attr_mask: IB_SRQ_LIMIT only; resizing (IB_SRQ_MAX_WR) is not offered
 * @udata: unused
 *
 * Context: process context.
 * Return: 0, -EOPNOTSUPP for a resize, -EINVAL for a limit above the size.
 */
int iwtcp_modify_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct iwtcp_srq *srq = to_iwtcp_srq(base_srq);
	unsigned long flags;

	if (attr_mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(attr_mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->ring.size)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/**
 * iwtcp_query_srq() - ib_device_ops.query_srq
 * @base_srq: the SRQ
 * @attr: size, SGEs and limit out
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_query_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr)
{
	struct iwtcp_srq *srq = to_iwtcp_srq(base_srq);

	attr->max_wr = srq->ring.size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * iwtcp_destroy_srq() - ib_device_ops.destroy_srq
 * @base_srq: the SRQ; the RDMA core guarantees no QP uses it any more
 * @udata: unused
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_destroy_srq(struct ib_srq *base_srq, struct ib_udata *udata)
{
	struct iwtcp_srq *srq = to_iwtcp_srq(base_srq);

	iwtcp_ring_destroy(&srq->ring);
	iwtcp_count_put(&to_iwtcp_dev(base_srq->device)->num_srq);
	return 0;
}

/**
 * iwtcp_post_srq_recv() - ib_device_ops.post_srq_recv, for kernel SRQs
 * @base_srq: the SRQ
 * @wr: receive work requests
 * @bad_wr: first work request not taken
 *
 * Context: any context; never sleeps.
 * Return: 0; -EINVAL for a user SRQ or too many SGEs; -ENOMEM when full.
 */
int iwtcp_post_srq_recv(struct ib_srq *base_srq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct iwtcp_srq *srq = to_iwtcp_srq(base_srq);
	unsigned long flags;
	int rv = 0;

	if (srq->ring.entry) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		rv = iwtcp_ring_post_recv(&srq->ring, &srq->lock, wr,
					  srq->max_sge);
		if (rv)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (rv)
		*bad_wr = wr;
	return rv;
}

/**
 * iwtcp_srq_check_limit() - raise IB_EVENT_SRQ_LIMIT_REACHED once
 * @srq: an SRQ a receive was just taken from
 *
 * When fewer than the armed limit of work requests are left, the event
 * fires and the limit disarms (IB spec 11.2.7.2; modify_srq re-arms).
 *
 * Context: any context; takes the SRQ's lock.
 */
void iwtcp_srq_check_limit(struct iwtcp_srq *srq)
{
	struct ib_event event = {
		.device = srq->base_srq.device,
		.element.srq = &srq->base_srq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	unsigned long flags;
	bool fire = false;
	u32 i;

	spin_lock_irqsave(&srq->lock, flags);
	if (srq->limit) {
		for (i = 0; i < srq->limit; i++) {
			struct siw_rqe *rqe = iwtcp_ring_slot(&srq->ring,
							      sizeof(*rqe),
							      srq->ring.get + i);

			if (!(READ_ONCE(rqe->flags) & SIW_WQE_VALID))
				break;
		}
		fire = i < srq->limit;
		if (fire)
			srq->limit = 0;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (fire && srq->base_srq.event_handler)
		srq->base_srq.event_handler(&event, srq->base_srq.srq_context);
}
