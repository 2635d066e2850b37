// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Queue pairs: the only code that changes a QP's state.
 */

/**
 * DOC: QP lifetime
 *
 * A QP is counted by @ref. Holders: the creation reference (dropped by
 * iwtcp_destroy_qp()), the iw_cm while it uses the QP (iw_add_ref and
 * iw_rem_ref), the endpoint of its connection, and a queued transmit or
 * receive work (dropped as the work's last step, so no one waits for a
 * work item). iwtcp_destroy_qp() first unpublishes the QP number, then
 * moves the QP to ERROR (flushing all work into the CQs, which the RDMA
 * core keeps alive until the QP is gone), drops the creation reference
 * and waits for @released, completed by the last put: when it returns no
 * other context can reach the QP, and the core frees it.
 */

/**
 * DOC: QP states
 *
 * The RDMAC verbs' states (enum iwtcp_qp_state). modify_qp maps the IB
 * states: RESET, INIT and RTR are IDLE (rdma_cm walks an iWARP QP through
 * them before connecting), RTS is entered only through a connection, ERR
 * is ERROR from any state. Entering ERROR flushes both queues: every
 * valid work request completes with IB_WC_WR_FLUSH_ERR, and work posted
 * in ERROR completes at once, which is what ib_drain_qp() relies on.
 */
#include <linux/sched/signal.h>
#include <rdma/uverbs_ioctl.h>

#include <net/sock.h>

#include "qp.h"
#include "qp_dp.h"
#include "cm.h"
#include "mem.h"
#include "cq.h"
#include "ring.h"
#include "trace.h"

static const char * const qp_state_name[IWTCP_QP_NUM_STATES] = {
	[IWTCP_QP_IDLE] = "IDLE",
	[IWTCP_QP_RTS] = "RTS",
	[IWTCP_QP_CLOSING] = "CLOSING",
	[IWTCP_QP_TERMINATE] = "TERMINATE",
	[IWTCP_QP_ERROR] = "ERROR",
};

static void qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct iwtcp_qp, ref)->released);
}

static void qp_put(struct iwtcp_qp *qp)
{
	kref_put(&qp->ref, qp_release);
}

static bool qp_is_user(struct iwtcp_qp *qp)
{
	return !rdma_is_kernel_res(&qp->base_qp.res);
}

static int qp_check_init_attr(struct ib_pd *pd, struct ib_qp_init_attr *attr)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	/* An SRQ serves the QPs of its own PD only. */
	if (attr->srq && attr->srq->pd != pd)
		return -EINVAL;
	if (cap->max_send_wr > IWTCP_MAX_QP_WR ||
	    cap->max_recv_wr > IWTCP_MAX_QP_WR ||
	    cap->max_send_sge > IWTCP_MAX_SGE ||
	    cap->max_recv_sge > IWTCP_MAX_SGE ||
	    cap->max_inline_data > IWTCP_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static int qp_create_rings(struct iwtcp_qp *qp, struct ib_qp_init_attr *attr,
			   struct ib_udata *udata,
			   struct siw_uresp_create_qp *uresp)
{
	int rv;

	rv = iwtcp_ring_create(&qp->sq, udata, max(attr->cap.max_send_wr, 1U),
			       sizeof(struct siw_sqe), 0, &uresp->sq_key);
	if (rv || qp->srq)
		return rv;
	rv = iwtcp_ring_create(&qp->rq, udata, max(attr->cap.max_recv_wr, 1U),
			       sizeof(struct siw_rqe), 0, &uresp->rq_key);
	if (rv)
		iwtcp_ring_destroy(&qp->sq);
	return rv;
}

static void qp_set_caps(struct iwtcp_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.size;
	cap->max_recv_wr = qp->srq ? 0 : qp->rq.size;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
}

static void qp_call_event_handler(struct iwtcp_qp *qp,
				  enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->base_qp.device,
		.element.qp = &qp->base_qp,
		.event = type,
	};

	if (qp->base_qp.event_handler)
		qp->base_qp.event_handler(&event, qp->base_qp.qp_context);
}

/* Context: hard interrupt (irq_work), as a NIC's event interrupt. */
static void qp_event_work(struct irq_work *work)
{
	struct iwtcp_qp *qp = container_of(work, struct iwtcp_qp, ev_work);
	unsigned int type;

	for (type = 0; type < BITS_PER_LONG; type++)
		if (test_and_clear_bit(type, &qp->ev_deferred))
			qp_call_event_handler(qp, type);
}

/*
 * Report an asynchronous event to the ULP. Inside a kernel post_send that
 * transmits inline (an error found while building), the handler runs from
 * an irq_work, in hard interrupt context as a NIC's interrupt calls it,
 * not within the ULP's own call, where it may hold the lock it takes.
 */
static void qp_event(struct iwtcp_qp *qp, enum ib_event_type type)
{
	if (!iwtcp_tx_in_post() || WARN_ON_ONCE(type >= BITS_PER_LONG)) {
		qp_call_event_handler(qp, type);
		return;
	}
	set_bit(type, &qp->ev_deferred);
	irq_work_queue(&qp->ev_work);
}

static void qp_init(struct iwtcp_qp *qp, struct ib_qp_init_attr *attr)
{
	kref_init(&qp->ref);
	init_completion(&qp->released);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	spin_lock_init(&qp->place_lock);
	spin_lock_init(&qp->orq_lock);
	spin_lock_init(&qp->irq_lock);
	INIT_WORK(&qp->tx_work, iwtcp_qp_tx_work);
	INIT_WORK(&qp->rx_work, iwtcp_qp_rx_work);
	init_irq_work(&qp->ev_work, qp_event_work);
	qp->state = IWTCP_QP_IDLE;
	/* the verbs' Idle: INIT, as siw and the iWARP RNICs report it */
	qp->ib_state = IB_QPS_INIT;
	qp->srq = attr->srq ? to_iwtcp_srq(attr->srq) : NULL;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->max_inline = attr->cap.max_inline_data;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
}

/**
 * iwtcp_create_qp() - ib_device_ops.create_qp
 * @base_qp: QP allocated by the RDMA core
 * @attr: RC QP attributes; queue sizes are rounded up to powers of two
 *	and written back
 * @udata: user data (siw_uresp_create_qp out) for user QPs, else NULL
 *
 * The QP number is reserved first and the QP published under it only
 * when complete, so no lookup sees a half-built QP.
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP for a type other than RC or creation flags;
 * -EINVAL for a size above the device limits, a missing CQ, an SRQ of
 * another PD or a short response buffer; -ENOSPC at %IWTCP_MAX_QP; -ENOMEM.
 */
int iwtcp_create_qp(struct ib_qp *base_qp, struct ib_qp_init_attr *attr,
		    struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_qp->device);
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);
	struct siw_uresp_create_qp uresp = {};
	u32 qpn;
	int rv;

	rv = qp_check_init_attr(base_qp->pd, attr);
	if (rv)
		return rv;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	rv = iwtcp_count_get(&dev->num_qp, IWTCP_MAX_QP);
	if (rv)
		return rv;
	qp_init(qp, attr);
	rv = qp_create_rings(qp, attr, udata, &uresp);
	if (rv)
		goto err_uncount;
	qp->sq_slots = kvcalloc(qp->sq.size, sizeof(*qp->sq_slots),
				GFP_KERNEL);
	if (!qp->sq_slots) {
		rv = -ENOMEM;
		goto err_destroy_rings;
	}
	rv = xa_alloc(&dev->qp_xa, &qpn, NULL, XA_LIMIT(1, IWTCP_QPN_MAX),
		      GFP_KERNEL);
	if (rv)
		goto err_destroy_rings;
	base_qp->qp_num = qpn;
	qp_set_caps(qp, &attr->cap);
	if (udata) {
		uresp.qp_id = qpn;
		uresp.num_sqe = qp->sq.size;
		uresp.num_rqe = qp->srq ? 0 : qp->rq.size;
		rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (rv)
			goto err_free_qpn;
	}
	xa_store(&dev->qp_xa, qpn, qp, GFP_KERNEL);
	ibdev_dbg(base_qp->device, "QP %u created\n", qpn);
	return 0;

err_free_qpn:
	xa_erase(&dev->qp_xa, qpn);
err_destroy_rings:
	kvfree(qp->sq_slots);
	iwtcp_ring_destroy(&qp->rq);
	iwtcp_ring_destroy(&qp->sq);
err_uncount:
	iwtcp_count_put(&dev->num_qp);
	return rv;
}

static u8 qp_flush_opcode(u8 opcode)
{
	/* libsiw indexes tables with it: keep it inside the enum. */
	return opcode < SIW_NUM_OPCODES ? opcode : SIW_OP_SEND;
}

/*
 * Complete every valid element of @ring with a flush status. The loop is
 * bounded by the ring size: user space may keep marking elements valid.
 * Returns true if @cq must be notified.
 */
static bool qp_flush_ring(struct iwtcp_qp *qp, struct iwtcp_ring *ring,
			  size_t elem_size, struct iwtcp_cq *cq, bool recv)
{
	bool notify = false;
	u32 i;

	for (i = 0; i < ring->size; i++) {
		/* siw_sqe and siw_rqe share the id/flags/num_sge/opcode head */
		struct siw_rqe *e = iwtcp_ring_slot(ring, elem_size, ring->get);
		struct iwtcp_wc wc = {
			.qp = qp,
			.status = SIW_WC_WR_FLUSH_ERR,
		};

		/* Pairs with the producer's release of VALID. */
		if (!(smp_load_acquire(&e->flags) & SIW_WQE_VALID))
			break;
		wc.id = READ_ONCE(e->id);
		wc.opcode = recv ? SIW_OP_RECEIVE :
				   qp_flush_opcode(READ_ONCE(e->opcode));
		/*
		 * Hand the element back after its fields were read, and
		 * before its completion shows (iwtcp_sq_retire_head()).
		 */
		iwtcp_ring_hand_back(&e->flags);
		ring->get++;
		if (iwtcp_cq_push(cq, &wc) > 0)
			notify = true;
	}
	return notify;
}

/*
 * Complete the executing SQ elements (from sq.get to sq_tx): those done
 * with their status (in order, as sq_retire() would), the oldest one
 * not done with the status a TERMINATE gave it, the others flushed.
 * Returns true if @cq must be notified.
 */
static bool qp_flush_executing(struct iwtcp_qp *qp)
{
	bool notify = false;
	u8 first = qp->term_status;
	u8 status;

	lockdep_assert_held(&qp->place_lock);
	while (qp->sq.get != qp->sq_tx) {
		struct iwtcp_sq_slot *slot = iwtcp_sq_slot(qp, qp->sq.get);

		status = slot->done ? slot->status : SIW_WC_WR_FLUSH_ERR;
		if (!slot->done && first != SIW_WC_SUCCESS) {
			status = first;
			first = SIW_WC_SUCCESS;
		}
		notify |= iwtcp_sq_retire_head(qp, status);
	}
	return notify;
}

static void qp_flush_sq(struct iwtcp_qp *qp)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(qp->base_qp.send_cq);
	unsigned long flags;
	bool notify;

	/* after a placement into a Read's sink in progress (qp_rx.c) */
	spin_lock_bh(&qp->place_lock);
	spin_lock_irqsave(&qp->sq_lock, flags);
	notify = qp_flush_executing(qp);
	notify |= qp_flush_ring(qp, &qp->sq, sizeof(struct siw_sqe), cq, false);
	qp->sq_tx = qp->sq.get;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_unlock_bh(&qp->place_lock);
	/* the ULP's handler may post or modify: no QP lock held */
	if (notify)
		iwtcp_cq_notify(cq);
}

/* Inbound Reads not yet answered are dropped. */
static void qp_flush_irq(struct iwtcp_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->irq_lock, flags);
	qp->irq_get = qp->irq_put;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
}

static void qp_flush_rq(struct iwtcp_qp *qp)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(qp->base_qp.recv_cq);
	unsigned long flags;
	bool notify;

	/* after a placement into the owned receive in progress (qp_rx.c) */
	spin_lock_bh(&qp->place_lock);
	spin_lock_irqsave(&qp->rq_lock, flags);
	notify = iwtcp_qp_rx_flush(qp);
	if (!qp->srq)
		notify |= qp_flush_ring(qp, &qp->rq, sizeof(struct siw_rqe),
					cq, true);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	spin_unlock_bh(&qp->place_lock);
	if (notify)
		iwtcp_cq_notify(cq);
}

static enum ib_qp_state qp_ib_state(struct iwtcp_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case IWTCP_QP_RTS:
		return IB_QPS_RTS;
	case IWTCP_QP_CLOSING:
		return IB_QPS_SQD;
	case IWTCP_QP_TERMINATE:
		return IB_QPS_SQE;
	case IWTCP_QP_ERROR:
		return IB_QPS_ERR;
	default:
		return qp->ib_state;
	}
}

/*
 * IB_QP_CUR_STATE as the caller believes it: the reported state, or in
 * Idle before RTR either of RESET and INIT (Idle is both; a new QP reports
 * INIT, as siw does, and callers used to IB pass RESET).
 */
static bool qp_cur_ok(struct iwtcp_qp *qp, enum ib_qp_state cur)
{
	if (qp->state == IWTCP_QP_IDLE && qp->ib_state != IB_QPS_RTR)
		return cur == IB_QPS_RESET || cur == IB_QPS_INIT;
	return cur == qp_ib_state(qp);
}

/* IB state requested through modify_qp -> the iWARP state it leads to. */
static int qp_next_state(struct iwtcp_qp *qp, enum ib_qp_state target,
			 enum iwtcp_qp_state *next)
{
	enum iwtcp_qp_state cur = qp->state;

	*next = cur;
	switch (target) {
	case IB_QPS_RESET:
		if (cur != IWTCP_QP_IDLE && cur != IWTCP_QP_ERROR)
			return -EINVAL;
		*next = IWTCP_QP_IDLE;
		return 0;
	case IB_QPS_INIT:
		return cur == IWTCP_QP_IDLE ? 0 : -EINVAL;
	case IB_QPS_RTR:
		return cur == IWTCP_QP_IDLE && qp->ib_state != IB_QPS_RESET ?
		       0 : -EINVAL;
	case IB_QPS_RTS:
		/* RTS comes with a connection (iw_cm), not from the ULP. */
		return cur == IWTCP_QP_RTS ? 0 : -EINVAL;
	case IB_QPS_SQD:
		/*
		 * iw_cm_disconnect(): orderly close of a connection. A QP whose
		 * connection already ended (the peer closed first) stays where
		 * it is: the disconnect has nothing left to do.
		 */
		if (cur == IWTCP_QP_ERROR || cur == IWTCP_QP_TERMINATE)
			return 0;
		if (cur != IWTCP_QP_RTS && cur != IWTCP_QP_CLOSING)
			return -EINVAL;
		*next = IWTCP_QP_CLOSING;
		return 0;
	case IB_QPS_ERR:
		*next = IWTCP_QP_ERROR;
		return 0;
	default:
		/* SQE has no iWARP meaning */
		return -EINVAL;
	}
}

/*
 * The one writer of @qp->state and @qp->ib_state (the QP state machine):
 * qp_set_state(), iwtcp_qp_connected() and iwtcp_qp_terminate() move the
 * QP through it. Caller holds state_lock.
 */
static void qp_write_state(struct iwtcp_qp *qp, enum iwtcp_qp_state next,
			   enum ib_qp_state ib_state)
{
	lockdep_assert_held(&qp->state_lock);
	if (next != qp->state || ib_state != qp->ib_state)
		trace_iwtcp_qp_state(qp->base_qp.device, qp->base_qp.qp_num,
				     qp_state_name[qp->state],
				     qp_state_name[next], ib_state);
	/* release: what was written before (sk, term_status) comes with it */
	smp_store_release(&qp->state, next);
	qp->ib_state = ib_state;
}

/*
 * A transition the ULP or an error asks for (IDLE to RTS and RTS to
 * TERMINATE have their own callers): check and set under @state_lock, so
 * concurrent modify_qp calls (uverbs holds the QP only shared) see one
 * order. Entering ERROR flushes both queues after the state is visible,
 * so that a concurrent post either lands before the flush (and is
 * flushed) or sees ERROR (and flushes its own work). @cur, when not
 * NULL, is the IB state the caller believes current (IB_QP_CUR_STATE).
 * Returns 0 or -EINVAL.
 */
static int qp_set_state(struct iwtcp_qp *qp, enum ib_qp_state target,
			const enum ib_qp_state *cur)
{
	struct iwtcp_cep *closing = NULL;
	enum iwtcp_qp_state old, next;
	unsigned long flags;
	bool abort;
	int rv;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	rv = cur && !qp_cur_ok(qp, *cur) ? -EINVAL :
	     qp_next_state(qp, target, &next);
	if (!rv) {
		qp_write_state(qp, next, target);
		/*
		 * Leaving RTS ends the connection (iw_cm_disconnect()); after a
		 * TERMINATE, entering ERROR does (the TERMINATE went out).
		 */
		if (((old == IWTCP_QP_RTS && next != IWTCP_QP_TERMINATE) ||
		     (old == IWTCP_QP_TERMINATE && next == IWTCP_QP_ERROR)) &&
		    next != old && qp->cep) {
			closing = qp->cep;
			iwtcp_cm_get(closing);
		}
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (rv) {
		ibdev_dbg(qp->base_qp.device, "QP %u: no transition %s -> IB %d\n",
			  qp->base_qp.qp_num, qp_state_name[old], target);
		return rv;
	}
	if (old != next)
		ibdev_dbg(qp->base_qp.device, "QP %u %s -> %s\n",
			  qp->base_qp.qp_num, qp_state_name[old],
			  qp_state_name[next]);
	if (next == IWTCP_QP_ERROR) {
		qp_flush_sq(qp);
		qp_flush_rq(qp);
		qp_flush_irq(qp);
	}
	/*
	 * After the flush: every Send or Write that completed successfully
	 * did so before it, so the close sees all it wrote (cep_close()).
	 */
	if (closing) {
		/* RTS straight to ERROR is an abortive close (RFC 5040 6.2) */
		abort = old == IWTCP_QP_RTS && next == IWTCP_QP_ERROR;
		iwtcp_cm_qp_closing(closing, abort);
		iwtcp_cm_put(closing);
	}
	/* The transmitter sends a TERMINATE, or lets go of its buffers. */
	if (next != old && qp->tx)
		iwtcp_qp_tx_kick(qp);
	return 0;
}

static int qp_modify_attrs(struct iwtcp_qp *qp, struct ib_qp_attr *attr,
			   int attr_mask)
{
	if ((attr_mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > IWTCP_MAX_ORD)
		return -EINVAL;
	if ((attr_mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > IWTCP_MAX_IRD)
		return -EINVAL;
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	if (attr_mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags &
			     (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			      IB_ACCESS_REMOTE_READ);
	return 0;
}

/**
 * iwtcp_modify_qp() - ib_device_ops.modify_qp
 * @base_qp: the QP
 * @attr: new attributes
 * @attr_mask: which of @attr apply; IB path attributes (address vector,
 *	MTU, timeouts, PSNs) have no iWARP meaning and are ignored
 * @udata: unused
 *
 * Context: process context; concurrent calls are allowed (uverbs holds
 * the QP shared): the state changes under the QP's state lock.
 * Return: 0; -EOPNOTSUPP for attributes outside the standard set;
 * -EINVAL for an ORD/IRD above the device limits, an IB_QP_CUR_STATE
 * that is not the current state, or a state transition the iWARP verbs
 * do not allow (RTS without a connection, for one).
 */
int iwtcp_modify_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata)
{
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);
	int rv;

	if (attr_mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	rv = qp_modify_attrs(qp, attr, attr_mask);
	if (rv || !(attr_mask & IB_QP_STATE))
		return rv;
	return qp_set_state(qp, attr->qp_state,
			    attr_mask & IB_QP_CUR_STATE ? &attr->cur_qp_state :
							  NULL);
}

/**
 * iwtcp_query_qp() - ib_device_ops.query_qp
 * @base_qp: the QP
 * @attr: current attributes out
 * @attr_mask: ignored; all attributes are reported
 * @init_attr: creation attributes out (queue sizes as granted)
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_query_qp(struct ib_qp *base_qp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	attr->qp_state = qp_ib_state(qp);
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->port_num = IWTCP_PORT;
	qp_set_caps(qp, &attr->cap);
	init_attr->qp_type = IB_QPT_RC;
	init_attr->send_cq = base_qp->send_cq;
	init_attr->recv_cq = base_qp->recv_cq;
	init_attr->srq = base_qp->srq;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init_attr->cap = attr->cap;
	return 0;
}

/**
 * iwtcp_fill_res_qp_entry() - ib_device_ops.fill_res_qp_entry
 * @msg: the netlink message of ``rdma resource show qp`` (``-dd``)
 * @base_qp: the QP, held by restrack
 *
 * Adds the driver attributes (RDMA_NLDEV_ATTR_DRIVER) iw_state (the
 * iWARP verbs state: IDLE, RTS, CLOSING, TERMINATE, ERROR), sq_size,
 * rq_size (0 on an SRQ),
 * sq_executing (SQ work requests taken for execution and not yet
 * completed), ord_used and ird_used (RDMA Reads in flight out and in,
 * against ORD and IRD; RFC 6581), the negotiated ird and ord, the
 * transmitter's (iwtcp_qp_tx_fill_res()), and while a connection exists
 * its endpoint's (iwtcp_cm_fill_res()).
 *
 * Context: process context; takes state_lock, sq_lock, orq_lock and
 * irq_lock one at a time, then the endpoint's mutex.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int iwtcp_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *base_qp)
{
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);
	u32 sq_exec, ord_used, ird_used, ird, ord;
	enum iwtcp_qp_state state;
	struct iwtcp_cep *cep;
	struct nlattr *table;
	unsigned long flags;
	int rv = 0;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	ird = qp->ird;
	ord = qp->ord;
	cep = qp->cep;
	if (cep)
		iwtcp_cm_get(cep);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	spin_lock_irqsave(&qp->sq_lock, flags);
	sq_exec = qp->sq_tx - qp->sq.get;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->orq_lock, flags);
	ord_used = qp->orq_put - qp->orq_get;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	spin_lock_irqsave(&qp->irq_lock, flags);
	ird_used = qp->irq_put - qp->irq_get;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	if (rdma_nl_put_driver_string(msg, "iw_state", qp_state_name[state]) ||
	    rdma_nl_put_driver_u32(msg, "sq_size", qp->sq.size) ||
	    rdma_nl_put_driver_u32(msg, "rq_size", qp->srq ? 0 : qp->rq.size) ||
	    rdma_nl_put_driver_u32(msg, "sq_executing", sq_exec) ||
	    rdma_nl_put_driver_u32(msg, "ord_used", ord_used) ||
	    rdma_nl_put_driver_u32(msg, "ird_used", ird_used) ||
	    rdma_nl_put_driver_u32(msg, "ird", ird) ||
	    rdma_nl_put_driver_u32(msg, "ord", ord) ||
	    iwtcp_qp_tx_fill_res(msg, qp))
		rv = -EMSGSIZE;
	if (!rv && cep)
		rv = iwtcp_cm_fill_res(msg, cep);
	if (cep)
		iwtcp_cm_put(cep);
	if (rv)
		nla_nest_cancel(msg, table);
	else
		nla_nest_end(msg, table);
	return rv;
}

/* Free what a connection added. No other context reaches the QP now. */
static void qp_free_data_path(struct iwtcp_qp *qp)
{
	iwtcp_qp_tx_free(qp);
	kfree(qp->rx);
	qp->rx = NULL;
	kfree(qp->irq);
	kfree(qp->orq);
	kvfree(qp->sq_slots);
	if (qp->sk)
		sock_put(qp->sk);
}

/**
 * iwtcp_destroy_qp() - ib_device_ops.destroy_qp
 * @base_qp: the QP
 * @udata: unused
 *
 * Unpublishes the QP, flushes its work requests (see "QP lifetime") and
 * waits for the last reference, so for its queued work items too.
 *
 * Context: process context, sleeps.
 * Return: 0.
 */
int iwtcp_destroy_qp(struct ib_qp *base_qp, struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_qp->device);
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);

	xa_erase(&dev->qp_xa, base_qp->qp_num);
	/*
	 * iw_cm calls iw_get_qp() and then iw_add_ref() inside one spinlock
	 * section, an RCU read-side critical section: after this grace
	 * period no one holds a pointer found before the erase without also
	 * holding a reference, which the wait below then waits for.
	 */
	synchronize_rcu();
	qp_set_state(qp, IB_QPS_ERR, NULL);
	qp_put(qp);
	wait_for_completion(&qp->released);
	irq_work_sync(&qp->ev_work);
	qp_free_data_path(qp);
	iwtcp_ring_destroy(&qp->rq);
	iwtcp_ring_destroy(&qp->sq);
	iwtcp_count_put(&dev->num_qp);
	ibdev_dbg(base_qp->device, "QP %u destroyed\n", base_qp->qp_num);
	return 0;
}

/* Complete one work request posted to a QP in ERROR (ib_drain_qp). */
static void qp_flush_wr(struct iwtcp_qp *qp, struct ib_cq *base_cq, u64 id,
			u8 opcode)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);
	struct iwtcp_wc wc = {
		.id = id,
		.qp = qp,
		.opcode = opcode,
		.status = SIW_WC_WR_FLUSH_ERR,
	};

	if (iwtcp_cq_push(cq, &wc) > 0)
		iwtcp_cq_notify(cq);
}

static u8 qp_wr_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IB_WR_RDMA_READ:
		return SIW_OP_READ;
	case IB_WR_RDMA_READ_WITH_INV:
		return SIW_OP_READ_LOCAL_INV;
	case IB_WR_SEND_WITH_INV:
		return SIW_OP_SEND_REMOTE_INV;
	case IB_WR_LOCAL_INV:
		return SIW_OP_INVAL_STAG;
	case IB_WR_REG_MR:
		return SIW_OP_REG_MR;
	default:
		return SIW_OP_SEND;
	}
}

/* A kernel work request as an SQ element (the siw layout). */
static int qp_wr_to_sqe(struct iwtcp_qp *qp, const struct ib_send_wr *wr,
			struct siw_sqe *sqe)
{
	u16 flags = SIW_WQE_VALID;
	u32 i, bytes = 0;
	u8 *inline_data;

	if (wr->num_sge > qp->max_send_sge && !(wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	sqe->id = wr->wr_id;
	sqe->opcode = qp_wr_opcode(wr->opcode);
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		if (wr->opcode != IB_WR_RDMA_WRITE && wr->num_sge > 1)
			return -EINVAL;
		break;
	case IB_WR_SEND:
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (wr->send_flags & IB_SEND_SIGNALED)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	if (wr->opcode != IB_WR_REG_MR && (wr->send_flags & IB_SEND_INLINE) &&
	    (wr->opcode == IB_WR_SEND || wr->opcode == IB_WR_RDMA_WRITE)) {
		/* siw ABI: the octet count in sge[0], the data from sge[1] */
		inline_data = (u8 *)&sqe->sge[1];
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->max_inline - bytes)
				return -EINVAL;
			memcpy(inline_data + bytes,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			bytes += wr->sg_list[i].length;
		}
		sqe->sge[0].length = bytes;
		sqe->num_sge = 1;
		flags |= SIW_WQE_INLINE;
	} else if (wr->opcode != IB_WR_REG_MR) {
		sqe->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sqe->sge[i].laddr = wr->sg_list[i].addr;
			sqe->sge[i].length = wr->sg_list[i].length;
			sqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	/* Publish the element to the transmitter only once it is complete. */
	smp_store_release(&sqe->flags, flags);
	return 0;
}

/* Queue kernel work requests on the SQ ring. */
static int qp_post_kernel(struct iwtcp_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	unsigned long flags;
	int rv = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_sqe *sqe = iwtcp_ring_slot(&qp->sq, sizeof(*sqe),
						      qp->sq.put);

		if (READ_ONCE(qp->state) != IWTCP_QP_RTS) {
			rv = -ENOTCONN;
			break;
		}
		if (READ_ONCE(sqe->flags) & SIW_WQE_VALID) {
			rv = -ENOMEM;
			break;
		}
		rv = qp_wr_to_sqe(qp, wr, sqe);
		if (rv)
			break;
		qp->sq.put++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (rv)
		*bad_wr = wr;
	iwtcp_qp_tx_post(qp);
	return rv;
}

/**
 * iwtcp_post_send() - ib_device_ops.post_send
 * @base_qp: the QP
 * @wr: kernel work requests, or NULL: the libsiw doorbell of a user QP
 * @bad_wr: first work request not taken
 *
 * In RTS kernel work requests go on the SQ ring and the transmitter runs
 * inline when idle, else is queued (qp_tx.c, DOC: Transmit); the
 * doorbell of a user QP queues the transmitter, or runs it for one batch
 * when it answers a received Send (iwtcp_qp_tx_doorbell()).
 * In ERROR every work request completes at once with a flush status (and
 * the doorbell flushes the user SQ). Other states answer -ENOTCONN.
 *
 * Context: any context for kernel QPs, including hard interrupts; never
 * sleeps then. The doorbell comes in process context and may sleep
 * (lock_sock(), GFP_KERNEL page fragments).
 * Return: 0; -EINVAL for a work request list on a user QP or too many
 * SGEs or inline octets; -EOPNOTSUPP for an opcode the device lacks
 * (atomics, immediate data, memory windows); -ENOMEM when the SQ is full;
 * -ENOTCONN.
 */
int iwtcp_post_send(struct ib_qp *base_qp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);
	/* acquire: pairs with qp_write_state(); the flush reads term_status */
	enum iwtcp_qp_state state = smp_load_acquire(&qp->state);

	if (qp_is_user(qp)) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		if (state == IWTCP_QP_ERROR) {
			qp_flush_sq(qp);
			return 0;
		}
		if (state != IWTCP_QP_RTS)
			return -ENOTCONN;
		iwtcp_qp_tx_doorbell(qp);
		return 0;
	}
	if (state == IWTCP_QP_RTS)
		return qp_post_kernel(qp, wr, bad_wr);
	if (state != IWTCP_QP_ERROR) {
		*bad_wr = wr;
		return -ENOTCONN;
	}
	for (; wr; wr = wr->next)
		qp_flush_wr(qp, base_qp->send_cq, wr->wr_id,
			    qp_wr_opcode(wr->opcode));
	return 0;
}

/**
 * iwtcp_post_recv() - ib_device_ops.post_recv, for kernel QPs
 * @base_qp: the QP, without SRQ
 * @wr: receive work requests
 * @bad_wr: first work request not taken
 *
 * Receives may be posted before the connection exists. In ERROR they
 * complete at once with a flush status.
 *
 * Context: any context; never sleeps.
 * Return: 0; -EINVAL for a user QP, a QP with SRQ or too many SGEs;
 * -ENOMEM when the receive queue is full.
 */
int iwtcp_post_recv(struct ib_qp *base_qp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct iwtcp_qp *qp = to_iwtcp_qp(base_qp);
	unsigned long flags;
	int rv = 0;

	if (qp_is_user(qp) || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		if (READ_ONCE(qp->state) == IWTCP_QP_ERROR)
			break;
		rv = iwtcp_ring_post_recv(&qp->rq, &qp->rq_lock, wr,
					  qp->max_recv_sge);
		if (rv)
			break;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (rv) {
		*bad_wr = wr;
		return rv;
	}
	for (; wr; wr = wr->next)
		qp_flush_wr(qp, base_qp->recv_cq, wr->wr_id, SIW_OP_RECEIVE);
	return 0;
}

/**
 * iwtcp_qp_add_ref() - ib_device_ops.iw_add_ref: the iw_cm takes a hold
 * @base_qp: the QP
 *
 * Context: any context.
 */
void iwtcp_qp_add_ref(struct ib_qp *base_qp)
{
	kref_get(&to_iwtcp_qp(base_qp)->ref);
}

/**
 * iwtcp_qp_rem_ref() - ib_device_ops.iw_rem_ref: the iw_cm drops its hold
 * @base_qp: the QP
 *
 * Context: any context.
 */
void iwtcp_qp_rem_ref(struct ib_qp *base_qp)
{
	qp_put(to_iwtcp_qp(base_qp));
}

/**
 * iwtcp_get_qp() - ib_device_ops.iw_get_qp: QP by number
 * @base_dev: the device
 * @qpn: QP number
 *
 * The caller (iw_cm, on behalf of the ULP that owns the QP) takes its
 * reference with iw_add_ref in the same RCU read-side section (see
 * iwtcp_destroy_qp()).
 *
 * Context: the context of the ULP's connect or accept call, in an RCU
 * read-side critical section.
 * Return: the QP, or NULL if no published QP has this number or it is a
 * user QP of another process.
 */
struct ib_qp *iwtcp_get_qp(struct ib_device *base_dev, int qpn)
{
	struct iwtcp_qp *qp;
	struct task_struct *owner;

	/* the caller's reference must be taken inside the same section */
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "iw_get_qp outside an RCU read-side section");
	qp = xa_load(&to_iwtcp_dev(base_dev)->qp_xa, qpn);
	if (!qp)
		return NULL;
	/*
	 * rdma_cm passes a QP number chosen by user space: a process may
	 * connect its own QPs only, never another process's.
	 */
	owner = qp->base_qp.res.task;
	if (qp_is_user(qp) && (!owner || !same_thread_group(owner, current)))
		return NULL;
	return &qp->base_qp;
}

/**
 * iwtcp_qp_bind_cep() - tie an idle QP to a connection being set up
 * @qp: the QP named by the ULP's connect or accept
 * @cep: the endpoint; the QP takes a reference
 *
 * Context: process context.
 * Return: 0, or -EINVAL if the QP is not idle or has a connection.
 */
int iwtcp_qp_bind_cep(struct iwtcp_qp *qp, struct iwtcp_cep *cep)
{
	unsigned long flags;
	int rv = -EINVAL;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IWTCP_QP_IDLE && !qp->cep) {
		iwtcp_cm_get(cep);
		qp->cep = cep;
		rv = 0;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return rv;
}

/* The ORQ and IRQ of a connection: ORD and IRD entries, at least one. */
static int qp_alloc_read_queues(struct iwtcp_qp *qp, u32 ird, u32 ord)
{
	qp->orq_size = max(ord, 1U);
	qp->irq_size = max(ird, 1U);
	qp->orq = kcalloc(qp->orq_size, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq = kcalloc(qp->irq_size, sizeof(*qp->irq), GFP_KERNEL);
	return qp->orq && qp->irq ? 0 : -ENOMEM;
}

/*
 * RFC 6581 9.2: the initiator of a Read RTR waits for its zero-length
 * Read Response like for any Read (the responder's endpoint sends it
 * before the QP's first FPDU).
 */
static void qp_queue_read_rtr(struct iwtcp_qp *qp,
			      const struct iwtcp_qp_conn *conn)
{
	if (conn->rtr_sent == IWTCP_MPA_RTR_READ)
		qp->orq[qp->orq_put++] = (struct iwtcp_orq_entry){
			.sq_idx = IWTCP_ORQ_RTR,
			.sink_stag = IWTCP_RDMAP_RTR_STAG,
		};
}

/**
 * iwtcp_qp_connected() - the connection is up: the QP enters RTS
 * @qp: the QP, connected for the first time
 * @cep: the endpoint bound with iwtcp_qp_bind_cep()
 * @conn: what the MPA start-up negotiated: socket, IRD and ORD (RFC 6581
 *	9.1), the stream in each direction (markers, CRC, octets so far)
 *	and the RTR sent or received (9.2)
 *
 * Sets up the data path; the caller then hands the socket's callbacks
 * to it. The QP holds the socket (sock_hold) until it is destroyed.
 *
 * Context: process context.
 * Return: 0; -EINVAL if the ULP moved the QP out of IDLE meanwhile or the
 * QP was connected before; -ENOMEM.
 */
int iwtcp_qp_connected(struct iwtcp_qp *qp, struct iwtcp_cep *cep,
		       const struct iwtcp_qp_conn *conn)
{
	unsigned long flags;
	int rv;

	if (qp->sk)
		return -EINVAL;
	rv = qp_alloc_read_queues(qp, conn->ird, conn->ord);
	if (!rv)
		rv = iwtcp_qp_rx_init(qp, &conn->rx_st, conn->rtr_recv);
	if (!rv)
		rv = iwtcp_qp_tx_init(qp, &conn->tx_st, conn->rtr_sent);
	if (rv)
		return rv;
	qp_queue_read_rtr(qp, conn);
	qp->tx_hold = conn->hold_tx;
	sock_hold(conn->sk);
	/* read locklessly by the transmitter (READ_ONCE in qp_tx.c) */
	WRITE_ONCE(qp->sk, conn->sk);
	rv = -EINVAL;
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IWTCP_QP_IDLE && qp->cep == cep) {
		qp->ird = conn->ird;
		qp->ord = conn->ord;
		qp_write_state(qp, IWTCP_QP_RTS, IB_QPS_RTS);
		rv = 0;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!rv)
		ibdev_dbg(qp->base_qp.device, "QP %u IDLE -> RTS\n",
			  qp->base_qp.qp_num);
	return rv;
}

/**
 * iwtcp_qp_terminate() - a local or protocol error ends the stream
 * @qp: the QP
 * @term: the TERMINATE to send (RFC 5040 4.8)
 * @status: completion status for the oldest outstanding work request
 *
 * The QP enters TERMINATE; the transmitter sends @term, then moves the QP
 * to ERROR, which flushes its work and closes the connection. The ULP
 * gets IB_EVENT_QP_ACCESS_ERR for a protection error, else
 * IB_EVENT_QP_FATAL. Only the first error counts.
 *
 * Context: any context.
 */
void iwtcp_qp_terminate(struct iwtcp_qp *qp,
			const struct iwtcp_rdmap_term *term, u8 status)
{
	enum ib_event_type type = IB_EVENT_QP_FATAL;
	unsigned long flags;
	bool first = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IWTCP_QP_RTS || qp->state == IWTCP_QP_CLOSING) {
		qp->term = *term;
		qp->term_status = status;
		qp_write_state(qp, IWTCP_QP_TERMINATE, qp->ib_state);
		first = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!first)
		return;
	ibdev_dbg(qp->base_qp.device, "QP %u -> TERMINATE\n",
		  qp->base_qp.qp_num);
	if ((term->cause.layer == IWTCP_TERM_LAYER_RDMAP &&
	     term->cause.etype == IWTCP_TERM_RDMAP_REMOTE_PROT) ||
	    (term->cause.layer == IWTCP_TERM_LAYER_DDP &&
	     term->cause.etype == IWTCP_TERM_DDP_TAGGED))
		type = IB_EVENT_QP_ACCESS_ERR;
	qp_event(qp, type);
	iwtcp_qp_tx_kick(qp);
}

/**
 * iwtcp_qp_terminated() - the peer sent a TERMINATE
 * @qp: the QP
 * @status: completion status for the oldest outstanding work request
 *
 * RFC 5040 6.2: the stream is over; no TERMINATE goes back. The QP
 * enters ERROR and the ULP gets IB_EVENT_QP_FATAL.
 *
 * Context: any context but hard interrupts or interrupts disabled (the
 * flush takes @place_lock with bottom halves disabled).
 */
void iwtcp_qp_terminated(struct iwtcp_qp *qp, u8 status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IWTCP_QP_RTS || qp->state == IWTCP_QP_CLOSING)
		qp->term_status = status;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	qp_event(qp, IB_EVENT_QP_FATAL);
	qp_set_state(qp, IB_QPS_ERR, NULL);
}

/**
 * iwtcp_qp_to_error() - move the QP to ERROR (flushing its work)
 * @qp: the QP
 *
 * Context: any context but hard interrupts or interrupts disabled (the
 * flush takes @place_lock with bottom halves disabled).
 */
void iwtcp_qp_to_error(struct iwtcp_qp *qp)
{
	qp_set_state(qp, IB_QPS_ERR, NULL);
}

/**
 * iwtcp_qp_disconnected() - the connection is gone
 * @qp: the QP
 * @cep: its endpoint; the QP drops its reference
 *
 * A QP that was connected goes to ERROR and flushes its work; one whose
 * connection never came up stays IDLE for the ULP to reuse or destroy.
 *
 * Context: process context.
 */
void iwtcp_qp_disconnected(struct iwtcp_qp *qp, struct iwtcp_cep *cep)
{
	bool was_connected = false;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->cep != cep) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return;
	}
	qp->cep = NULL;
	was_connected = qp->state != IWTCP_QP_IDLE;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (was_connected)
		qp_set_state(qp, IB_QPS_ERR, NULL);
	iwtcp_cm_put(cep);
}
