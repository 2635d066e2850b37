// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iwtcp_kverbs: checks of the kernel verbs an iwtcp device offers to
 * kernel ULPs (NFS/RDMA, NVMe-oF): DMA MR through the PD, kernel CQ
 * polling and arming, receive posting, flush on ERR, ib_drain_qp(),
 * fast-registration MRs with map_mr_sg, kernel SRQs.
 *
 *	insmod iwtcp_kverbs.ko dev=iwtcp_a
 *
 * Each check logs "iwtcp_kverbs: ok N NAME" or "... not ok N NAME"; the
 * load fails with -EIO if any check failed, so the exit status of insmod
 * is the verdict. The module does nothing once loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *dev = "iwtcp_a";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "name of the iwtcp device to test");

static int kv_count;
static int kv_failed;

static void kv_check(bool ok, const char *name)
{
	kv_count++;
	if (!ok)
		kv_failed++;
	pr_info("%sok %d %s\n", ok ? "" : "not ", kv_count, name);
}

static atomic_t kv_events = ATOMIC_INIT(0);

static void kv_comp_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(&kv_events);
}

struct kv_objs {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
};

static struct ib_qp *kv_create_qp(struct ib_pd *pd, struct ib_cq *cq,
				  struct ib_srq *srq)
{
	struct ib_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = srq ? 0 : 8,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(pd, &attr);
}

static int kv_post_recvs(struct ib_qp *qp, struct ib_pd *pd, int n)
{
	const struct ib_recv_wr *bad;
	struct ib_sge sge = {
		.addr = 0x1000,
		.length = 64,
		.lkey = pd->local_dma_lkey,
	};
	int i, rv = 0;

	for (i = 0; i < n && !rv; i++) {
		struct ib_recv_wr wr = {
			.wr_id = 10 + i,
			.sg_list = &sge,
			.num_sge = 1,
		};

		rv = ib_post_recv(qp, &wr, &bad);
	}
	return rv;
}

static int kv_set_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* Receives posted before a connection flush on ERR, in order. */
static void kv_flush(struct kv_objs *o)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr swr = { .wr_id = 99, .opcode = IB_WR_SEND };
	struct ib_wc wc[8];
	bool ok = true;
	int i, n;

	kv_check(!kv_set_state(o->qp, IB_QPS_INIT), "QP to INIT");
	kv_check(ib_post_send(o->qp, &swr, &bad) == -ENOTCONN && bad == &swr,
		 "post_send before a connection: -ENOTCONN");
	kv_check(!kv_post_recvs(o->qp, o->pd, 4), "post_recv in INIT");
	kv_check(!ib_poll_cq(o->cq, 8, wc), "no completion before ERR");
	kv_check(ib_req_notify_cq(o->cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) == 0,
		 "arm an empty CQ: no missed events");
	kv_check(!kv_set_state(o->qp, IB_QPS_ERR), "QP to ERR");
	kv_check(atomic_read(&kv_events) == 1,
		 "armed CQ: one completion event for the flush");
	kv_check(ib_req_notify_cq(o->cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0,
		 "arm a CQ with completions: missed events reported");
	n = ib_poll_cq(o->cq, 8, wc);
	for (i = 0; i < n; i++)
		ok &= wc[i].wr_id == 10 + i &&
		      wc[i].status == IB_WC_WR_FLUSH_ERR &&
		      wc[i].opcode == IB_WC_RECV && wc[i].qp == o->qp;
	kv_check(n == 4 && ok, "4 receives flushed in order on ERR");
	kv_check(ib_post_send(o->qp, &swr, &bad) == 0 &&
		 ib_poll_cq(o->cq, 8, wc) == 1 && wc[0].wr_id == 99 &&
		 wc[0].status == IB_WC_WR_FLUSH_ERR,
		 "post_send in ERR completes at once with a flush");
}

static atomic_t kv_drained = ATOMIC_INIT(0);

static void kv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&kv_drained);
}

static struct ib_cqe kv_recv_cqe = { .done = kv_recv_done };

/*
 * ib_drain_qp() moves the QP to ERR, posts a marker work request on each
 * queue and waits for its completion (softirq CQ); the receives posted
 * before complete first, flushed.
 */
static void kv_drain(struct ib_pd *pd)
{
	struct ib_sge sge = {
		.addr = 0x1000,
		.length = 64,
		.lkey = pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &kv_recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	const struct ib_recv_wr *bad;
	struct ib_cq *cq;
	struct ib_qp *qp;

	cq = ib_alloc_cq(pd->device, NULL, 16, 0, IB_POLL_SOFTIRQ);
	kv_check(!IS_ERR(cq), "softirq CQ");
	if (IS_ERR(cq))
		return;
	qp = kv_create_qp(pd, cq, NULL);
	kv_check(!IS_ERR(qp), "QP on softirq CQ");
	if (!IS_ERR(qp)) {
		kv_check(!ib_post_recv(qp, &wr, &bad) &&
			 !ib_post_recv(qp, &wr, &bad), "post_recv x2");
		ib_drain_qp(qp);
		kv_check(atomic_read(&kv_drained) == 2,
			 "ib_drain_qp returns after both receives flushed");
		ib_destroy_qp(qp);
	}
	ib_free_cq(cq);
}

/* Fast registration: map_mr_sg fills the page list, within its bound. */
static void kv_frmr(struct ib_pd *pd)
{
	struct scatterlist sg[3];
	struct page *pages[3] = {};
	struct ib_mr *mr;
	int i, n;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 4);
	kv_check(IS_ERR(mr) && PTR_ERR(mr) == -EOPNOTSUPP,
		 "SG_GAPS MR: -EOPNOTSUPP");
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 1025);
	kv_check(IS_ERR(mr) && PTR_ERR(mr) == -EINVAL,
		 "MR above max_fast_reg_page_list_len: -EINVAL");
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	kv_check(!IS_ERR(mr) && mr->lkey == mr->rkey, "fast-reg MR");
	if (IS_ERR(mr))
		return;
	sg_init_table(sg, 3);
	for (i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			goto out;
		sg_set_page(&sg[i], pages[i], PAGE_SIZE, 0);
		sg_dma_address(&sg[i]) = (u64)page_address(pages[i]);
		sg_dma_len(&sg[i]) = PAGE_SIZE;
	}
	n = ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE);
	kv_check(n == 2 && mr->length == 2 * PAGE_SIZE &&
		 mr->iova == sg_dma_address(&sg[0]),
		 "map_mr_sg maps 2 pages");
	n = ib_map_mr_sg(mr, sg, 3, NULL, PAGE_SIZE);
	kv_check(n == 2, "map_mr_sg stops at the MR's page count");
out:
	for (i = 0; i < 3; i++)
		if (pages[i])
			__free_page(pages[i]);
	kv_check(!ib_dereg_mr(mr), "dereg fast-reg MR");
}

static void kv_srq(struct ib_pd *pd)
{
	struct ib_srq_init_attr attr = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_srq *srq;
	int i, rv = 0;

	srq = ib_create_srq(pd, &attr);
	kv_check(!IS_ERR(srq), "kernel SRQ");
	if (IS_ERR(srq))
		return;
	for (i = 0; i < 4 && !rv; i++)
		rv = ib_post_srq_recv(srq, &wr, &bad);
	kv_check(!rv, "4 receives on a 4-entry SRQ");
	kv_check(ib_post_srq_recv(srq, &wr, &bad) == -ENOMEM && bad == &wr,
		 "fifth receive: -ENOMEM");
	ib_destroy_srq(srq);
}

static int __init kv_init(void)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_SIW);
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct kv_objs o = {};

	if (!ibdev) {
		pr_err("no device %s\n", dev);
		return -ENODEV;
	}
	o.pd = ib_alloc_pd(ibdev, 0);
	kv_check(!IS_ERR(o.pd), "PD with a local DMA lkey (get_dma_mr)");
	if (IS_ERR(o.pd))
		goto out_put;
	/* The old-style CQ API: our own handler, so arming can be seen. */
	o.cq = ib_create_cq(ibdev, kv_comp_handler, NULL, NULL, &cq_attr);
	kv_check(!IS_ERR(o.cq), "CQ with a completion handler");
	if (IS_ERR(o.cq))
		goto out_pd;
	o.qp = kv_create_qp(o.pd, o.cq, NULL);
	kv_check(!IS_ERR(o.qp), "kernel RC QP");
	if (!IS_ERR(o.qp)) {
		kv_flush(&o);
		kv_check(!ib_destroy_qp(o.qp), "destroy QP");
	}
	kv_drain(o.pd);
	kv_frmr(o.pd);
	kv_srq(o.pd);
	ib_destroy_cq(o.cq);
out_pd:
	ib_dealloc_pd(o.pd);
out_put:
	ib_device_put(ibdev);
	pr_info("%d checks, %d failed\n", kv_count, kv_failed);
	return kv_failed ? -EIO : 0;
}

static void __exit kv_exit(void)
{
}

module_init(kv_init);
module_exit(kv_exit);

MODULE_DESCRIPTION("iwtcp kernel verbs self-test");
MODULE_LICENSE("Dual BSD/GPL");
