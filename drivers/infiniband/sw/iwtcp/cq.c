// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Completion queues in the siw ABI layout: an array of &struct siw_cqe
 * followed by a &struct siw_cq_ctrl arming word. The producer (this
 * driver) fills an element and then sets SIW_WQE_VALID; the consumer
 * (libsiw, or iwtcp_poll_cq() for kernel CQs) copies it and clears the
 * flags. A VALID element at the producer index means overflow.
 */
#include <linux/random.h>
#include <rdma/uverbs_ioctl.h>

#include "cq.h"
#include "qp_dp.h"
#include "ring.h"

/* siw_opcode -> ib_wc_opcode, for kernel consumers. */
static const enum ib_wc_opcode cq_wc_opcode[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

/* siw_wc_status -> ib_wc_status, for kernel consumers. */
static const enum ib_wc_status cq_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

static int cq_respond(struct iwtcp_cq *cq, struct ib_udata *udata, u64 key)
{
	struct siw_uresp_create_cq uresp = {
		.cq_id = cq->id,
		.num_cqe = cq->ring.size,
		.cq_key = key,
	};

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

/* Bits of &iwtcp_cq.deferred */
enum {
	CQ_DEFER_NOTIFY,
	CQ_DEFER_ERR,
};

static void cq_call_handler(struct iwtcp_cq *cq)
{
	if (cq->base_cq.comp_handler)
		cq->base_cq.comp_handler(&cq->base_cq, cq->base_cq.cq_context);
}

static void cq_call_err_handler(struct iwtcp_cq *cq)
{
	struct ib_event event = {
		.device = cq->base_cq.device,
		.element.cq = &cq->base_cq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->base_cq.event_handler)
		cq->base_cq.event_handler(&event, cq->base_cq.cq_context);
}

/* Context: hard interrupt (irq_work), as a NIC's completion interrupt. */
static void cq_defer_work(struct irq_work *work)
{
	struct iwtcp_cq *cq = container_of(work, struct iwtcp_cq, defer_work);

	if (test_and_clear_bit(CQ_DEFER_ERR, &cq->deferred))
		cq_call_err_handler(cq);
	if (test_and_clear_bit(CQ_DEFER_NOTIFY, &cq->deferred))
		cq_call_handler(cq);
}

/* Call the handler @what from the irq_work. */
static void cq_queue(struct iwtcp_cq *cq, int what)
{
	set_bit(what, &cq->deferred);
	irq_work_queue(&cq->defer_work);
}

/*
 * Inside a kernel post_send that transmits inline, handlers run from an
 * irq_work, in hard interrupt context as a NIC's interrupt calls them,
 * not within the ULP's own call, where it may hold the lock its handler
 * takes. Returns true if deferred.
 */
static bool cq_defer(struct iwtcp_cq *cq, int what)
{
	if (!iwtcp_tx_in_post())
		return false;
	cq_queue(cq, what);
	return true;
}

/**
 * iwtcp_create_cq() - ib_device_ops.create_cq
 * @base_cq: CQ allocated by the RDMA core
 * @attr: requested size (1 to %IWTCP_MAX_CQE entries), no flags
 * @attrs: user data (siw_uresp_create_cq out) for user CQs (6.1: the
 *	udata itself, see compat.h)
 *
 * Context: process context, may sleep.
 * Return: 0, -EOPNOTSUPP for creation flags, -EINVAL for a size out of
 * range or a short response buffer, -ENOSPC at %IWTCP_MAX_CQ, -ENOMEM.
 */
int iwtcp_create_cq(struct ib_cq *base_cq, const struct ib_cq_init_attr *attr,
		    struct iwtcp_compat_cq_attrs *attrs)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_cq->device);
	struct ib_udata *udata = iwtcp_compat_cq_udata(attrs);
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);
	u64 key = 0;
	int rv;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > IWTCP_MAX_CQE)
		return -EINVAL;
	rv = iwtcp_count_get(&dev->num_cq, IWTCP_MAX_CQ);
	if (rv)
		return rv;
	spin_lock_init(&cq->lock);
	init_irq_work(&cq->defer_work, cq_defer_work);
	rv = iwtcp_ring_create(&cq->ring, udata, attr->cqe,
			       sizeof(struct siw_cqe),
			       sizeof(struct siw_cq_ctrl), &key);
	if (rv)
		goto err_uncount;
	/* The arming word follows the last element. */
	cq->ctrl = (struct siw_cq_ctrl *)((struct siw_cqe *)cq->ring.queue +
					  cq->ring.size);
	cq->id = get_random_u32();
	base_cq->cqe = cq->ring.size;
	if (udata) {
		rv = cq_respond(cq, udata, key);
		if (rv)
			goto err_free_ring;
	}
	ibdev_dbg(base_cq->device, "CQ %u created, %u entries\n", cq->id,
		  cq->ring.size);
	return 0;

err_free_ring:
	iwtcp_ring_destroy(&cq->ring);
err_uncount:
	iwtcp_count_put(&dev->num_cq);
	return rv;
}

/**
 * iwtcp_pre_destroy_cq() - ib_device_ops.pre_destroy_cq
 * @base_cq: a kernel CQ that ib_free_cq() is about to free
 *
 * A handler still due from an irq_work runs now, before the RDMA core
 * stops the CQ's polling context, which the handler may schedule.
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_pre_destroy_cq(struct ib_cq *base_cq)
{
	irq_work_sync(&to_iwtcp_cq(base_cq)->defer_work);
	return 0;
}

/**
 * iwtcp_destroy_cq() - ib_device_ops.destroy_cq
 * @base_cq: CQ; the RDMA core guarantees no QP uses it any more
 * @udata: unused
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_destroy_cq(struct ib_cq *base_cq, struct ib_udata *udata)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);

	irq_work_sync(&cq->defer_work);
	iwtcp_ring_destroy(&cq->ring);
	iwtcp_count_put(&to_iwtcp_dev(base_cq->device)->num_cq);
	ibdev_dbg(base_cq->device, "CQ %u destroyed\n", cq->id);
	return 0;
}

static void cq_fill(struct iwtcp_cq *cq, struct siw_cqe *cqe,
		    const struct iwtcp_wc *wc)
{
	u8 flags = SIW_WQE_VALID;

	cqe->id = wc->id;
	cqe->opcode = wc->opcode;
	cqe->status = wc->status;
	cqe->bytes = wc->bytes;
	cqe->inval_stag = wc->inval_stag;
	if (wc->inval_stag)
		flags |= SIW_WQE_REM_INVAL;
	if (cq->ring.entry)
		cqe->qp_id = wc->qp->base_qp.qp_num;
	else
		cqe->base_qp = &wc->qp->base_qp;
	/* Publish the element: pairs with the consumer's load of flags. */
	smp_store_release(&cqe->flags, flags);
}

static bool cq_armed_for(struct iwtcp_cq *cq, bool solicited)
{
	u32 arm;

	/*
	 * The element's VALID store before the load of the arm word: pairs
	 * with iwtcp_req_notify_cq()'s smp_store_mb(), so that either it sees
	 * the element or this sees it armed (a release orders no later load).
	 */
	smp_mb();
	arm = READ_ONCE(cq->ctrl->flags);

	if (!(arm & SIW_NOTIFY_NEXT_COMPLETION) &&
	    !(solicited && (arm & SIW_NOTIFY_SOLICITED)))
		return false;
	WRITE_ONCE(cq->ctrl->flags, SIW_NOTIFY_NOT);
	return true;
}

/**
 * iwtcp_cq_push() - add one completion to a CQ
 * @cq: the CQ
 * @wc: the completion; @wc->opcode and @wc->status must be inside the
 *	siw enums, since libsiw uses them as array indexes
 *
 * Does not call the completion handler: the caller does that with
 * iwtcp_cq_notify() once it holds no QP lock, when this returns 1.
 *
 * Context: any context; takes @cq->lock with interrupts disabled.
 * Return: 1 if the CQ was armed for this completion and must be notified,
 * 0 if not, -ENOMEM if the CQ is full and the completion is lost. The
 * first loss logs a line and raises %IB_EVENT_CQ_ERR from the CQ's
 * irq_work (the caller may hold a QP lock that the handler's post would
 * take); later losses stay quiet.
 */
int iwtcp_cq_push(struct iwtcp_cq *cq, const struct iwtcp_wc *wc)
{
	struct siw_cqe *cqe;
	unsigned long flags;
	int rv = 0;

	if (WARN_ON_ONCE(wc->opcode >= SIW_NUM_OPCODES ||
			 wc->status >= SIW_NUM_WC_STATUS))
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	cqe = iwtcp_ring_slot(&cq->ring, sizeof(*cqe), cq->ring.put);
	/* Pairs with the consumer's release when it frees the element. */
	if (smp_load_acquire(&cqe->flags) & SIW_WQE_VALID) {
		/* The first loss puts the CQ in error: one event, not one each. */
		rv = cq->overflowed ? -ENOSPC : -ENOMEM;
		cq->overflowed = true;
	} else {
		cq_fill(cq, cqe, wc);
		cq->ring.put++;
		rv = cq_armed_for(cq, wc->solicited);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (rv == -ENOSPC)
		return -ENOMEM;
	if (rv == -ENOMEM) {
		ibdev_err_ratelimited(cq->base_cq.device,
				      "CQ %u overflow, completion lost\n",
				      cq->id);
		/* callers hold QP locks (sq_lock, rq_lock): always deferred */
		cq_queue(cq, CQ_DEFER_ERR);
	}
	return rv;
}

/**
 * iwtcp_cq_notify() - call the CQ's completion handler
 * @cq: a CQ for which iwtcp_cq_push() returned 1
 *
 * Inside a kernel post_send that transmits inline the handler runs a
 * moment later from an irq_work (cq_defer()). Elsewhere it runs here.
 *
 * Context: any context; the caller must hold no QP or CQ lock, since the
 * handler may post work or poll.
 */
void iwtcp_cq_notify(struct iwtcp_cq *cq)
{
	if (!cq_defer(cq, CQ_DEFER_NOTIFY))
		cq_call_handler(cq);
}

static void cq_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->status = cq_wc_status[cqe->status];
	wc->opcode = cq_wc_opcode[cqe->opcode];
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
}

/**
 * iwtcp_poll_cq() - ib_device_ops.poll_cq, for kernel CQs
 * @base_cq: the CQ
 * @num_entries: room in @wc
 * @wc: completions out
 *
 * Context: any context; takes the CQ lock with interrupts disabled.
 * Return: number of completions written to @wc.
 */
int iwtcp_poll_cq(struct ib_cq *base_cq, int num_entries, struct ib_wc *wc)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		struct siw_cqe *cqe = iwtcp_ring_slot(&cq->ring, sizeof(*cqe),
						      cq->ring.get);

		/* Pairs with the release in cq_fill(). */
		if (!(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID))
			break;
		cq_to_wc(cqe, &wc[n]);
		WRITE_ONCE(cqe->flags, 0);
		cq->ring.get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * iwtcp_req_notify_cq() - ib_device_ops.req_notify_cq, for kernel CQs
 * @base_cq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Context: any context.
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was given and completions are
 * waiting, else 0.
 */
int iwtcp_req_notify_cq(struct ib_cq *base_cq, enum ib_cq_notify_flags flags)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);
	struct siw_cqe *cqe;
	u32 arm = SIW_NOTIFY_SOLICITED;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= SIW_NOTIFY_NEXT_COMPLETION;
	/* Arm before looking for missed completions: pairs with push. */
	smp_store_mb(cq->ctrl->flags, arm);
	if (!(flags & IB_CQ_REPORT_MISSED_EVENTS))
		return 0;
	cqe = iwtcp_ring_slot(&cq->ring, sizeof(*cqe), READ_ONCE(cq->ring.get));
	return !!(READ_ONCE(cqe->flags) & SIW_WQE_VALID);
}

/**
 * iwtcp_fill_res_cq_entry() - ib_device_ops.fill_res_cq_entry
 * @msg: the netlink message of ``rdma resource show cq`` (``-dd``)
 * @base_cq: the CQ, held by restrack: the core drains the entry before
 *	destroy_cq, so its ring stays
 *
 * Adds the driver attributes (RDMA_NLDEV_ATTR_DRIVER) armed (no,
 * solicited or next: what the next completion finds, siw ABI "Shared
 * rings"), cqes_ready (completions written and not yet taken by the
 * consumer, counted back from the producer's index) and overflowed (a
 * completion was lost). A snapshot, taken without the CQ's lock. Each
 * notification disarms the CQ, so completions ready on an unarmed CQ are
 * the normal state until the consumer polls; a consumer that waits for
 * an event while two reads show them has missed one.
 *
 * Context: process context.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int iwtcp_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *base_cq)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(base_cq);
	u32 arm = READ_ONCE(cq->ctrl->flags);
	u32 put = READ_ONCE(cq->ring.put);
	struct nlattr *table;
	const char *armed;
	u32 ready;

	for (ready = 0; ready < cq->ring.size; ready++) {
		struct siw_cqe *cqe = iwtcp_ring_slot(&cq->ring, sizeof(*cqe),
						      put - 1 - ready);

		if (!(READ_ONCE(cqe->flags) & SIW_WQE_VALID))
			break;
	}
	if (arm & SIW_NOTIFY_NEXT_COMPLETION)
		armed = "next";
	else if (arm & SIW_NOTIFY_SOLICITED)
		armed = "solicited";
	else
		armed = "no";
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "armed", armed) ||
	    rdma_nl_put_driver_u32(msg, "cqes_ready", ready) ||
	    rdma_nl_put_driver_u32(msg, "overflowed",
				   READ_ONCE(cq->overflowed))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
