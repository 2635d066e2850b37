// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iwtcp_kdata: the kernel verbs data path between two iwtcp devices, as
 * kernel ULPs (NFS/RDMA, NVMe-oF) drive it: a kernel rdma_cm server in one
 * network namespace, a kernel client in the other, softirq CQs with
 * ib_cqe callbacks, DMA-mapped kmalloc buffers under the PD's local DMA
 * lkey, Sends of several sizes and SGEs, RDMA Write and Read against a
 * fast-registration MR of the peer, Send with Invalidate, Local Invalidate
 * and re-registration, post_send with a spinlock held and interrupts off,
 * ib_drain_qp() with work in flight, disconnect and teardown.
 *
 *	insmod iwtcp_kdata.ko ns1_pid=PID1 ns2_pid=PID2
 *	ip netns exec NS2 sh -c 'echo listen >/sys/module/iwtcp_kdata/parameters/ctl'
 *	ip netns exec NS1 sh -c 'echo run >/sys/module/iwtcp_kdata/parameters/ctl'
 *	rmmod iwtcp_kdata
 *
 * PID1 and PID2 are processes in the namespaces of selftests/lib.sh's two
 * hosts (192.0.2.1 on iwtcp_a, 192.0.2.2 on iwtcp_b): the ids are created
 * in their namespaces (get_net_ns_by_pid()). The load checks a listener
 * set up from the initial namespace; each write of ctl runs one step in
 * the writer's context (see kd_ctl_set()). Each check logs
 * "iwtcp_kdata: ok N NAME" or "... not ok N NAME", diagnostics "# ...";
 * a write fails with -EIO if one of its checks failed. Every wait is
 * bounded (KD_TIMEOUT). Should ib_drain_qp() itself never return, the
 * module pins itself (its work item still runs) and says so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static int ns1_pid;
module_param(ns1_pid, int, 0444);
MODULE_PARM_DESC(ns1_pid, "a process in the client's namespace (192.0.2.1)");

static int ns2_pid;
module_param(ns2_pid, int, 0444);
MODULE_PARM_DESC(ns2_pid, "a process in the server's namespace (192.0.2.2)");

static ushort port = 20886;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port of the server");

#define KD_TIMEOUT (10 * HZ)
#define KD_NRECV 8
#define KD_RBUF_LEN (72 * 1024)
/* A receive scatters over [0, KD_SGE0) and [KD_SGE1_OFF, +KD_SGE1) */
#define KD_SGE0 4096
#define KD_SGE1_OFF 8192
#define KD_SGE1 (SZ_64K - KD_SGE0)
#define KD_SBUF_LEN (128 * 1024)
#define KD_MR_PAGES 4
#define KD_MR_LEN (KD_MR_PAGES * PAGE_SIZE)
#define KD_CANARY 0xa5
#define KD_NOPS 96

static int kd_count;
static int kd_failed;
static bool kd_wedged;

static bool kd_check(bool ok, const char *name)
{
	kd_count++;
	if (!ok)
		kd_failed++;
	pr_info("%sok %d %s\n", ok ? "" : "not ", kd_count, name);
	return ok;
}

/* One work request and its completion, tracked through wr_cqe. */
struct kd_op {
	struct ib_cqe cqe;
	struct completion done;
	bool fired;		/* done was completed (waiting consumes it) */
	struct ib_wc wc;
};

struct kd_buf {
	u8 *va;
	u64 dma;
	size_t len;
};

/* One side of a connection (or the listener), with what it owns. */
struct kd_end {
	const char *name;
	struct rdma_cm_id *id;
	struct kd_end *next;	/* listener: where the next request goes */
	unsigned long events;	/* BIT(RDMA_CM_EVENT_*) seen */
	u8 peer_ird;
	u8 peer_ord;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	atomic_t ncomp;
	atomic_t qp_events;
	struct kd_buf rbuf[KD_NRECV];
	struct kd_op *rop[KD_NRECV];
	struct kd_buf sbuf;
	struct kd_buf rdbuf;
	struct ib_mr *mr;
	struct page *pages[KD_MR_PAGES];
	struct scatterlist sg[KD_MR_PAGES];
	bool sg_mapped;
};

static DECLARE_WAIT_QUEUE_HEAD(kd_wq);
static struct kd_end kd_lis = { .name = "listener" };
static struct kd_end kd_cli = { .name = "client" };
static struct kd_end kd_srv = { .name = "server" };

/*
 * Operations live in static memory: a completion that comes after its
 * waiter gave up still finds its struct, until the CQ is freed.
 */
static struct kd_op kd_ops[KD_NOPS];
static int kd_nops;

static void kd_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kd_op *op = container_of(wc->wr_cqe, struct kd_op, cqe);
	struct kd_end *end = cq->cq_context;

	op->wc = *wc;
	/* the wc before the flag: kd_fired() readers see both */
	smp_store_release(&op->fired, true);
	atomic_inc(&end->ncomp);
	complete(&op->done);
}

static struct kd_op *kd_op(void)
{
	struct kd_op *op = &kd_ops[kd_nops % KD_NOPS];

	kd_nops++;
	op->cqe.done = kd_done;
	init_completion(&op->done);
	op->fired = false;
	memset(&op->wc, 0, sizeof(op->wc));
	return op;
}

static bool kd_fired(struct kd_op *op)
{
	/* pairs with kd_done(): the flag, then the wc */
	return smp_load_acquire(&op->fired);
}

static bool kd_wait(struct kd_op *op)
{
	return wait_for_completion_timeout(&op->done, KD_TIMEOUT) > 0;
}

static void kd_diag(const char *what, struct kd_op *op)
{
	if (!kd_fired(op))
		pr_info("# %s: no completion within %d s\n", what,
			KD_TIMEOUT / HZ);
	else
		pr_info("# %s: status %d (%s) opcode %d byte_len %u flags %#x\n",
			what, op->wc.status, ib_wc_status_msg(op->wc.status),
			op->wc.opcode, op->wc.byte_len, op->wc.wc_flags);
}

/* Wait for a successful completion of opcode OPC; log what came if not. */
static bool kd_ok(struct kd_op *op, enum ib_wc_opcode opc, const char *what)
{
	bool ok = kd_wait(op) && op->wc.status == IB_WC_SUCCESS &&
		  op->wc.opcode == opc;

	if (!ok)
		kd_diag(what, op);
	return ok;
}

/* --- connection manager --------------------------------------------- */

#define KD_CM_FAILED (BIT(RDMA_CM_EVENT_ADDR_ERROR) |			\
		      BIT(RDMA_CM_EVENT_ROUTE_ERROR) |			\
		      BIT(RDMA_CM_EVENT_CONNECT_ERROR) |		\
		      BIT(RDMA_CM_EVENT_UNREACHABLE) |			\
		      BIT(RDMA_CM_EVENT_REJECTED) |			\
		      BIT(RDMA_CM_EVENT_DISCONNECTED) |			\
		      BIT(RDMA_CM_EVENT_DEVICE_REMOVAL))

static int kd_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kd_end *end = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* A new id with the listener's context: hand it over. */
		struct kd_end *srv = READ_ONCE(end->next);

		if (!srv || srv->id)
			return -ECONNREFUSED;	/* the core destroys it */
		srv->peer_ird = ev->param.conn.initiator_depth;
		srv->peer_ord = ev->param.conn.responder_resources;
		id->context = srv;
		WRITE_ONCE(srv->id, id);
		end = srv;
	}
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED &&
	    ev->event != RDMA_CM_EVENT_ADDR_RESOLVED &&
	    ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		pr_info("# %s: %s (status %d)\n", end->name,
			rdma_event_msg(ev->event), ev->status);
	/* srv->id and the peer's IRD/ORD before the bit the waiter tests */
	smp_mb__before_atomic();
	set_bit(ev->event, &end->events);
	wake_up(&kd_wq);
	return 0;
}

/* Wait for a CM event; false after a failure event or the timeout. */
static bool kd_wait_cm(struct kd_end *end, enum rdma_cm_event_type event)
{
	unsigned long want = BIT(event);

	wait_event_timeout(kd_wq, READ_ONCE(end->events) &
			   (want | KD_CM_FAILED), KD_TIMEOUT);
	if (!(READ_ONCE(end->events) & want)) {
		pr_info("# %s: no %s within %d s\n", end->name,
			rdma_event_msg(event), KD_TIMEOUT / HZ);
		return false;
	}
	return true;
}

/* The task inside ib_post_send() for kd_bad_lkey(), else NULL. */
static struct task_struct *kd_poster;
static atomic_t kd_sync_events;

static void kd_qp_event(struct ib_event *ev, void *ctx)
{
	struct kd_end *end = ctx;

	/* a NIC reports from its interrupt, never inside the caller's post */
	if (in_task() && current == READ_ONCE(kd_poster))
		atomic_inc(&kd_sync_events);
	atomic_inc(&end->qp_events);
	pr_info("# %s: QP event %s\n", end->name, ib_event_msg(ev->event));
	wake_up(&kd_wq);
}

/* --- buffers and MRs ------------------------------------------------- */

static int kd_buf_alloc(struct ib_device *dev, struct kd_buf *b, size_t len)
{
	b->va = kmalloc(len, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	b->len = len;
	b->dma = ib_dma_map_single(dev, b->va, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, b->dma)) {
		kfree(b->va);
		b->va = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void kd_buf_free(struct ib_device *dev, struct kd_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(dev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	b->va = NULL;
}

static struct ib_sge kd_sge(struct kd_end *end, struct kd_buf *b, u32 off,
			    u32 len)
{
	return (struct ib_sge){
		.addr = b->dma + off,
		.length = len,
		.lkey = end->pd->local_dma_lkey,
	};
}

/* The test pattern: byte K of a message with seed SEED. */
static u8 kd_pat(u32 seed, u32 k)
{
	return (u8)(k * 7 + (k >> 9) + seed * 29 + 1);
}

static void kd_fill(u8 *p, u32 len, u32 seed, u32 k0)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = kd_pat(seed, k0 + i);
}

static bool kd_same(const u8 *p, u32 len, u32 seed, u32 k0)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != kd_pat(seed, k0 + i)) {
			pr_info("# byte %u: %#x, expected %#x\n", k0 + i, p[i],
				kd_pat(seed, k0 + i));
			return false;
		}
	return true;
}

static bool kd_canary(const u8 *p, u32 len)
{
	return !len || (p[0] == KD_CANARY && !memcmp(p, p + 1, len - 1));
}

/* The MR's pages as one stream: fill or check [off, off + len). */
static void kd_mr_fill(struct kd_end *end, u32 off, u32 len, u32 seed)
{
	while (len) {
		u32 in = off % PAGE_SIZE, n = min_t(u32, len, PAGE_SIZE - in);

		kd_fill((u8 *)page_address(end->pages[off / PAGE_SIZE]) + in, n,
			seed, off);
		off += n;
		len -= n;
	}
}

static bool kd_mr_same(struct kd_end *end, u32 off, u32 len, u32 seed)
{
	while (len) {
		u32 in = off % PAGE_SIZE, n = min_t(u32, len, PAGE_SIZE - in);

		if (!kd_same((u8 *)page_address(end->pages[off / PAGE_SIZE]) +
			     in, n, seed, off))
			return false;
		off += n;
		len -= n;
	}
	return true;
}

/* A fast-registration MR over KD_MR_PAGES pages, mapped, not registered. */
static int kd_mr_alloc(struct kd_end *end)
{
	struct ib_device *dev = end->id->device;
	int i, n;

	sg_init_table(end->sg, KD_MR_PAGES);
	for (i = 0; i < KD_MR_PAGES; i++) {
		end->pages[i] = alloc_page(GFP_KERNEL);
		if (!end->pages[i])
			return -ENOMEM;
		sg_set_page(&end->sg[i], end->pages[i], PAGE_SIZE, 0);
	}
	n = ib_dma_map_sg(dev, end->sg, KD_MR_PAGES, DMA_BIDIRECTIONAL);
	if (n != KD_MR_PAGES)
		return -ENOMEM;
	end->sg_mapped = true;
	end->mr = ib_alloc_mr(end->pd, IB_MR_TYPE_MEM_REG, KD_MR_PAGES);
	if (IS_ERR(end->mr)) {
		n = PTR_ERR(end->mr);
		end->mr = NULL;
		return n;
	}
	n = ib_map_mr_sg(end->mr, end->sg, KD_MR_PAGES, NULL, PAGE_SIZE);
	return n == KD_MR_PAGES ? 0 : -EINVAL;
}

/* Register END's MR with IB_WR_REG_MR under its current key; wait. */
static bool kd_reg_mr(struct kd_end *end, int access)
{
	struct kd_op *op = kd_op();
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = &op->cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = end->mr,
		.key = end->mr->rkey,
		.access = access,
	};
	const struct ib_send_wr *bad;

	if (ib_post_send(end->qp, &wr.wr, &bad))
		return false;
	return kd_ok(op, IB_WC_REG_MR, "REG_MR");
}

/* --- ends ------------------------------------------------------------ */

static int kd_end_setup(struct kd_end *end)
{
	struct ib_device *dev = end->id->device;
	struct ib_qp_init_attr attr = {
		.event_handler = kd_qp_event,
		.qp_context = end,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = KD_NRECV,
			.max_send_sge = 3,
			.max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int i, rv;

	end->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(end->pd)) {
		rv = PTR_ERR(end->pd);
		end->pd = NULL;
		return rv;
	}
	end->cq = ib_alloc_cq(dev, end, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(end->cq)) {
		rv = PTR_ERR(end->cq);
		end->cq = NULL;
		return rv;
	}
	attr.send_cq = end->cq;
	attr.recv_cq = end->cq;
	rv = rdma_create_qp(end->id, end->pd, &attr);
	if (rv)
		return rv;
	end->qp = end->id->qp;
	for (i = 0; i < KD_NRECV; i++) {
		rv = kd_buf_alloc(dev, &end->rbuf[i], KD_RBUF_LEN);
		if (rv)
			return rv;
	}
	rv = kd_buf_alloc(dev, &end->sbuf, KD_SBUF_LEN);
	if (!rv)
		rv = kd_buf_alloc(dev, &end->rdbuf, KD_MR_LEN);
	if (!rv)
		rv = kd_mr_alloc(end);
	return rv;
}

/* Post receive I: two SGEs with a canary gap, the buffer all canary. */
static int kd_post_recv(struct kd_end *end, int i)
{
	struct kd_op *op = kd_op();
	struct ib_sge sge[2] = {
		kd_sge(end, &end->rbuf[i], 0, KD_SGE0),
		kd_sge(end, &end->rbuf[i], KD_SGE1_OFF, KD_SGE1),
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &op->cqe,
		.sg_list = sge,
		.num_sge = 2,
	};
	const struct ib_recv_wr *bad;

	memset(end->rbuf[i].va, KD_CANARY, KD_RBUF_LEN);
	ib_dma_sync_single_for_device(end->id->device, end->rbuf[i].dma,
				      KD_RBUF_LEN, DMA_BIDIRECTIONAL);
	end->rop[i] = op;
	return ib_post_recv(end->qp, &wr, &bad);
}

/* Receive I holds LEN bytes of SEED, scattered over its two SGEs. */
static bool kd_recv_same(struct kd_end *end, int i, u32 len, u32 seed)
{
	u8 *p = end->rbuf[i].va;
	u32 n0 = min_t(u32, len, KD_SGE0), n1 = len - n0;

	ib_dma_sync_single_for_cpu(end->id->device, end->rbuf[i].dma,
				   KD_RBUF_LEN, DMA_BIDIRECTIONAL);
	return kd_same(p, n0, seed, 0) &&
	       kd_same(p + KD_SGE1_OFF, n1, seed, n0) &&
	       kd_canary(p + n0, KD_SGE1_OFF - n0) &&
	       kd_canary(p + KD_SGE1_OFF + n1, KD_RBUF_LEN - KD_SGE1_OFF - n1);
}

/* Run ib_drain_qp() on a work item, so that a hang is seen, not suffered. */
static struct {
	struct work_struct work;
	struct ib_qp *qp;
	struct completion done;
} kd_drainer;

static void kd_drain_work(struct work_struct *work)
{
	ib_drain_qp(kd_drainer.qp);
	complete(&kd_drainer.done);
}

static bool kd_drain(struct kd_end *end)
{
	if (kd_wedged || !end->qp)
		return false;
	INIT_WORK(&kd_drainer.work, kd_drain_work);
	init_completion(&kd_drainer.done);
	kd_drainer.qp = end->qp;
	queue_work(system_unbound_wq, &kd_drainer.work);
	if (!wait_for_completion_timeout(&kd_drainer.done, KD_TIMEOUT)) {
		pr_info("# %s: ib_drain_qp did not return within %d s\n",
			end->name, KD_TIMEOUT / HZ);
		kd_wedged = true;
		return false;
	}
	flush_work(&kd_drainer.work);
	return true;
}

static void kd_end_free(struct kd_end *end)
{
	struct ib_device *dev = end->id ? end->id->device : NULL;
	const char *name = end->name;
	int i;

	if (end->qp)
		rdma_destroy_qp(end->id);
	if (end->cq)
		ib_free_cq(end->cq);
	if (end->mr)
		ib_dereg_mr(end->mr);
	if (end->sg_mapped)
		ib_dma_unmap_sg(dev, end->sg, KD_MR_PAGES, DMA_BIDIRECTIONAL);
	for (i = 0; i < KD_MR_PAGES; i++)
		if (end->pages[i])
			__free_page(end->pages[i]);
	for (i = 0; i < KD_NRECV; i++)
		kd_buf_free(dev, &end->rbuf[i]);
	kd_buf_free(dev, &end->sbuf);
	kd_buf_free(dev, &end->rdbuf);
	if (end->pd)
		ib_dealloc_pd(end->pd);
	if (end->id)
		rdma_destroy_id(end->id);
	/* everything but the name, ready for the next connection */
	memset(end, 0, sizeof(*end));
	end->name = name;
}

/* --- connections ----------------------------------------------------- */

static struct rdma_conn_param kd_param = {
	.responder_resources = 4,
	.initiator_depth = 4,
};

static int kd_listen(struct net *net, u16 lport)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(lport),
		.sin_addr.s_addr = in_aton("192.0.2.2"),
	};
	int rv;

	kd_lis.id = rdma_create_id(net, kd_cm_handler, &kd_lis, RDMA_PS_TCP,
				   IB_QPT_RC);
	if (IS_ERR(kd_lis.id)) {
		rv = PTR_ERR(kd_lis.id);
		kd_lis.id = NULL;
		return rv;
	}
	rv = rdma_bind_addr(kd_lis.id, (struct sockaddr *)&sin);
	if (rv) {
		pr_info("# rdma_bind_addr: %d\n", rv);
		return rv;
	}
	rv = rdma_listen(kd_lis.id, 4);
	if (rv)
		pr_info("# rdma_listen: %d\n", rv);
	return rv;
}

/* Connect kd_cli (in NET) to the listener; kd_srv gets the new id. */
static bool kd_connect(struct net *net, const char *what)
{
	struct sockaddr_in src = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = in_aton("192.0.2.1"),
	};
	struct sockaddr_in dst = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = in_aton("192.0.2.2"),
	};
	struct rdma_cm_id *id;
	bool ok;
	int rv;

	WRITE_ONCE(kd_lis.next, &kd_srv);
	id = rdma_create_id(net, kd_cm_handler, &kd_cli, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return kd_check(false, "client rdma_cm id");
	kd_cli.id = id;
	ok = !rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&dst, 2000) &&
	     kd_wait_cm(&kd_cli, RDMA_CM_EVENT_ADDR_RESOLVED) &&
	     !rdma_resolve_route(id, 2000) &&
	     kd_wait_cm(&kd_cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!kd_check(ok && !strcmp(dev_name(&id->device->dev), "iwtcp_a"),
		      "client: address and route of 192.0.2.2 on iwtcp_a"))
		return false;
	rv = kd_end_setup(&kd_cli);
	if (!kd_check(!rv, "client: PD, softirq CQ, RC QP, buffers, MR")) {
		pr_info("# client setup: %d\n", rv);
		return false;
	}
	rv = rdma_connect(id, &kd_param);
	ok = !rv && kd_wait_cm(&kd_srv, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!kd_check(ok && !strcmp(dev_name(&kd_srv.id->device->dev),
				    "iwtcp_b") &&
		      kd_srv.peer_ird == 4 && kd_srv.peer_ord == 4,
		      "server: connect request on iwtcp_b, peer IRD/ORD 4")) {
		pr_info("# rdma_connect %d, peer IRD %u ORD %u\n", rv,
			kd_srv.peer_ird, kd_srv.peer_ord);
		return false;
	}
	rv = kd_end_setup(&kd_srv);
	if (!kd_check(!rv, "server: PD, softirq CQ, RC QP, buffers, MR")) {
		pr_info("# server setup: %d\n", rv);
		return false;
	}
	rdma_lock_handler(kd_srv.id);
	rv = rdma_accept(kd_srv.id, &kd_param);
	rdma_unlock_handler(kd_srv.id);
	ok = !rv && kd_wait_cm(&kd_srv, RDMA_CM_EVENT_ESTABLISHED) &&
	     kd_wait_cm(&kd_cli, RDMA_CM_EVENT_ESTABLISHED);
	if (!ok)
		pr_info("# rdma_accept %d\n", rv);
	return kd_check(ok, what);
}

/* Disconnect, drain both QPs, free both ends. */
static void kd_teardown(const char *what)
{
	bool ok = true;

	if (kd_cli.id && kd_srv.id && !(kd_cli.events & KD_CM_FAILED)) {
		ok = !rdma_disconnect(kd_cli.id) &&
		     kd_wait_cm(&kd_srv, RDMA_CM_EVENT_DISCONNECTED) &&
		     kd_wait_cm(&kd_cli, RDMA_CM_EVENT_DISCONNECTED);
		kd_check(ok, what);
	}
	if (kd_srv.id)
		rdma_disconnect(kd_srv.id);
	if (kd_cli.qp && kd_srv.qp) {
		ok = kd_drain(&kd_cli);
		ok &= kd_drain(&kd_srv);
		kd_check(ok, "ib_drain_qp of both QPs after the disconnect returns");
	}
	if (kd_wedged)
		return;
	/* The listener hands out no more ids while the server is freed. */
	WRITE_ONCE(kd_lis.next, NULL);
	kd_end_free(&kd_cli);
	kd_end_free(&kd_srv);
}

/* --- data transfer --------------------------------------------------- */

static int kd_post(struct kd_end *end, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;
	int rv = ib_post_send(end->qp, wr, &bad);

	if (rv)
		pr_info("# %s: post_send %d\n", end->name, rv);
	return rv;
}

/* Sends of 0, 1, 4097 octets and 64 KiB from three SGEs, in one chain. */
static void kd_sends(void)
{
	static const u32 len[] = { 0, 1, 4097, SZ_64K };
	/* the 64 KiB message: three pieces of sbuf, out of place */
	static const u32 piece_off[] = { 0, 40000, 80000 };
	static const u32 piece_len[] = { 1000, 32000, SZ_64K - 33000 };
	struct ib_sge sge[ARRAY_SIZE(len)][3];
	struct ib_send_wr wr[ARRAY_SIZE(len)];
	struct kd_op *op[ARRAY_SIZE(len)];
	bool ok = true, data = true;
	u32 i, j, k;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		op[i] = kd_op();
		wr[i].wr_cqe = &op[i]->cqe;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_SIGNALED;
		wr[i].sg_list = sge[i];
		wr[i].next = i + 1 < ARRAY_SIZE(len) ? &wr[i + 1] : NULL;
	}
	/* 4097 bytes at the start of sbuf, the 1-byte one after them */
	kd_fill(kd_cli.sbuf.va, 4097, 3, 0);
	sge[2][0] = kd_sge(&kd_cli, &kd_cli.sbuf, 0, 4097);
	wr[2].num_sge = 1;
	kd_fill(kd_cli.sbuf.va + 5000, 1, 2, 0);
	sge[1][0] = kd_sge(&kd_cli, &kd_cli.sbuf, 5000, 1);
	wr[1].num_sge = 1;
	wr[0].num_sge = 0;
	for (j = 0, k = 0; j < 3; k += piece_len[j], j++) {
		/* the big message is placed after the small ones */
		u32 off = 6000 + piece_off[j];

		kd_fill(kd_cli.sbuf.va + off, piece_len[j], 4, k);
		sge[3][j] = kd_sge(&kd_cli, &kd_cli.sbuf, off, piece_len[j]);
	}
	wr[3].num_sge = 3;
	ib_dma_sync_single_for_device(kd_cli.id->device, kd_cli.sbuf.dma,
				      KD_SBUF_LEN, DMA_BIDIRECTIONAL);
	ok = !kd_post(&kd_cli, wr);
	for (i = 0; i < ARRAY_SIZE(len) && ok; i++)
		ok = kd_ok(op[i], IB_WC_SEND, "SEND");
	kd_check(ok, "client: chain of 4 SENDs (0 B, 1 B, 4097 B, 64 KiB from 3 SGEs) completes");
	ok = true;
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		struct kd_op *r = kd_srv.rop[i];

		if (!kd_ok(r, IB_WC_RECV, "RECV") || r->wc.byte_len != len[i] ||
		    r->wc.wc_flags & IB_WC_WITH_INVALIDATE ||
		    r->wc.qp != kd_srv.qp) {
			ok = false;
			continue;
		}
		data &= kd_recv_same(&kd_srv, i, len[i], i + 1);
	}
	kd_check(ok, "server: 4 receives complete in order with the right lengths");
	kd_check(ok && data, "server: bytes match, scattered over 2 receive SGEs");
}

static struct ib_rdma_wr kd_rdma_wr(struct kd_op *op, enum ib_wr_opcode opc,
				    struct ib_sge *sge, int nsge, u64 raddr,
				    u32 rkey)
{
	return (struct ib_rdma_wr){
		.wr = {
			.wr_cqe = &op->cqe,
			.opcode = opc,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = sge,
			.num_sge = nsge,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
}

/* A 16-byte SEND from END's sbuf at 120000 and wait for its completion. */
static bool kd_notify(struct kd_end *end, struct kd_op *op)
{
	struct ib_sge sge = kd_sge(end, &end->sbuf, 120000, 16);
	struct ib_send_wr wr = {
		.wr_cqe = &op->cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return !kd_post(end, &wr) && kd_ok(op, IB_WC_SEND, "notify SEND");
}

#define KD_RW_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		      IB_ACCESS_REMOTE_READ)

static DEFINE_SPINLOCK(kd_lock);

/* Read and Write against the server's fast-reg MR. */
static bool kd_rdma(void)
{
	struct ib_mr *smr = kd_srv.mr;
	struct ib_sge sge[2];
	struct ib_rdma_wr w;
	struct ib_send_wr s = {};
	unsigned long flags;
	struct kd_op *op, *op2;
	bool ok, irqs_off;
	int rv;

	kd_mr_fill(&kd_srv, 0, KD_MR_LEN, 10);
	ib_update_fast_reg_key(smr, 0x42);
	if (!kd_check(kd_reg_mr(&kd_srv, KD_RW_ACCESS) && smr->rkey == smr->lkey &&
		      (smr->rkey & 0xff) == 0x42 && smr->length == KD_MR_LEN,
		      "server: IB_WR_REG_MR of a 4-page fast-reg MR, new key"))
		return false;

	/* RDMA READ of the whole MR into a local-DMA-lkey buffer */
	op = kd_op();
	memset(kd_cli.rdbuf.va, 0, KD_MR_LEN);
	sge[0] = kd_sge(&kd_cli, &kd_cli.rdbuf, 0, KD_MR_LEN);
	w = kd_rdma_wr(op, IB_WR_RDMA_READ, sge, 1, smr->iova, smr->rkey);
	ok = !kd_post(&kd_cli, &w.wr) &&
	     kd_ok(op, IB_WC_RDMA_READ, "RDMA READ");
	kd_check(ok, "client: RDMA READ of 4 pages of the peer's MR completes");
	kd_check(ok && kd_same(kd_cli.rdbuf.va, KD_MR_LEN, 10, 0),
		 "client: RDMA READ bytes match");

	/* RDMA WRITE of two SGEs to [100, 3 pages - 100), then a Send */
	op = kd_op();
	kd_fill(kd_cli.sbuf.va, 5000, 11, 100);
	kd_fill(kd_cli.sbuf.va + 10000, 3 * PAGE_SIZE - 5200, 11, 5100);
	sge[0] = kd_sge(&kd_cli, &kd_cli.sbuf, 0, 5000);
	sge[1] = kd_sge(&kd_cli, &kd_cli.sbuf, 10000, 3 * PAGE_SIZE - 5200);
	w = kd_rdma_wr(op, IB_WR_RDMA_WRITE, sge, 2, smr->iova + 100,
		       smr->rkey);
	ok = !kd_post(&kd_cli, &w.wr) &&
	     kd_ok(op, IB_WC_RDMA_WRITE, "RDMA WRITE");
	kd_check(ok, "client: RDMA WRITE of 2 SGEs across 3 pages completes");
	ok = ok && kd_notify(&kd_cli, kd_op()) &&
	     kd_ok(kd_srv.rop[4], IB_WC_RECV, "RECV after WRITE");
	kd_check(ok && kd_mr_same(&kd_srv, 0, 100, 10) &&
		 kd_mr_same(&kd_srv, 100, 3 * PAGE_SIZE - 200, 11) &&
		 kd_mr_same(&kd_srv, 3 * PAGE_SIZE - 100, PAGE_SIZE + 100, 10),
		 "server: WRITE bytes placed, nothing around them touched");

	/* An unsignaled WRITE and a Send posted under a spinlock, irqs off */
	op = kd_op();
	op2 = kd_op();
	kd_fill(kd_cli.sbuf.va + 60000, PAGE_SIZE, 12, 3 * PAGE_SIZE);
	sge[0] = kd_sge(&kd_cli, &kd_cli.sbuf, 60000, PAGE_SIZE);
	w = kd_rdma_wr(op, IB_WR_RDMA_WRITE, sge, 1, smr->iova + 3 * PAGE_SIZE,
		       smr->rkey);
	w.wr.send_flags = 0;
	sge[1] = kd_sge(&kd_cli, &kd_cli.sbuf, 120000, 16);
	s.wr_cqe = &op2->cqe;
	s.opcode = IB_WR_SEND;
	s.send_flags = IB_SEND_SIGNALED;
	s.sg_list = &sge[1];
	s.num_sge = 1;
	w.wr.next = &s;
	spin_lock_irqsave(&kd_lock, flags);
	irqs_off = irqs_disabled();
	rv = kd_post(&kd_cli, &w.wr);
	spin_unlock_irqrestore(&kd_lock, flags);
	ok = irqs_off && !rv && kd_ok(op2, IB_WC_SEND, "SEND after WRITE") &&
	     !kd_fired(op) &&
	     kd_ok(kd_srv.rop[5], IB_WC_RECV, "RECV after locked post");
	kd_check(ok && kd_mr_same(&kd_srv, 3 * PAGE_SIZE, PAGE_SIZE, 12),
		 "post_send under a spinlock, irqs off: unsignaled WRITE + SEND");
	return true;
}

/* Local Invalidate of the client's MR, re-registration with a new key. */
static void kd_local_inv(void)
{
	struct ib_mr *cmr = kd_cli.mr;
	struct kd_op *op = kd_op();
	struct ib_send_wr inv = {
		.wr_cqe = &op->cqe,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_sge sge;
	struct ib_rdma_wr w;
	u32 old;
	bool ok;

	ok = kd_post_recv(&kd_cli, 0) == 0;
	ok = ok && kd_reg_mr(&kd_cli, KD_RW_ACCESS);
	old = cmr->rkey;
	inv.ex.invalidate_rkey = old;
	ok = ok && !kd_post(&kd_cli, &inv) &&
	     kd_ok(op, IB_WC_LOCAL_INV, "LOCAL_INV");
	kd_check(ok, "client: IB_WR_LOCAL_INV of its registered fast-reg MR");
	ib_update_fast_reg_key(cmr, (u8)(old + 1));
	ok = ok && ib_map_mr_sg(cmr, kd_cli.sg, KD_MR_PAGES, NULL,
				PAGE_SIZE) == KD_MR_PAGES &&
	     kd_reg_mr(&kd_cli, KD_RW_ACCESS) && cmr->rkey != old;
	kd_check(ok, "client: same MR registered again with a new key");

	/* The server writes into it under the new key, then tells. */
	op = kd_op();
	kd_mr_fill(&kd_cli, 0, KD_MR_LEN, 0);
	kd_fill(kd_srv.sbuf.va, KD_MR_LEN - 2000, 13, 1000);
	sge = kd_sge(&kd_srv, &kd_srv.sbuf, 0, KD_MR_LEN - 2000);
	w = kd_rdma_wr(op, IB_WR_RDMA_WRITE, &sge, 1, cmr->iova + 1000,
		       cmr->rkey);
	ok = ok && !kd_post(&kd_srv, &w.wr) &&
	     kd_ok(op, IB_WC_RDMA_WRITE, "server WRITE") &&
	     kd_notify(&kd_srv, kd_op()) &&
	     kd_ok(kd_cli.rop[0], IB_WC_RECV, "client RECV");
	kd_check(ok && kd_mr_same(&kd_cli, 1000, KD_MR_LEN - 2000, 13),
		 "server: RDMA WRITE to the new key lands");
}

/*
 * Send with Solicited Event and Invalidate (RFC 5040 4.3, opcode 0110b) of
 * the server's STag, then a Write to it fails.
 */
static void kd_send_inv(void)
{
	struct ib_mr *smr = kd_srv.mr;
	struct kd_op *op = kd_op(), *r = kd_srv.rop[6];
	struct ib_sge sge = kd_sge(&kd_cli, &kd_cli.sbuf, 0, 32);
	struct ib_send_wr s = {
		.wr_cqe = &op->cqe,
		.opcode = IB_WR_SEND_WITH_INV,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED,
		.sg_list = &sge,
		.num_sge = 1,
		.ex.invalidate_rkey = smr->rkey,
	};
	struct ib_rdma_wr w;
	struct kd_op *op2;
	bool ok;

	kd_fill(kd_cli.sbuf.va, 32, 7, 0);
	ok = !kd_post(&kd_cli, &s) && kd_ok(op, IB_WC_SEND, "SEND_WITH_INV");
	kd_check(ok, "client: IB_WR_SEND_WITH_INV completes");
	ok = ok && kd_ok(r, IB_WC_RECV, "RECV with invalidate");
	if (ok && !(r->wc.wc_flags & IB_WC_WITH_INVALIDATE &&
		    r->wc.ex.invalidate_rkey == smr->rkey))
		pr_info("# wc_flags %#x invalidate_rkey %#x, rkey %#x\n",
			r->wc.wc_flags, r->wc.ex.invalidate_rkey, smr->rkey);
	kd_check(ok && r->wc.wc_flags & IB_WC_WITH_INVALIDATE &&
		 r->wc.ex.invalidate_rkey == smr->rkey &&
		 r->wc.byte_len == 32 && kd_recv_same(&kd_srv, 6, 32, 7),
		 "server: receive carries IB_WC_WITH_INVALIDATE and the rkey");

	/* A Write to the invalidated STag, then a Send behind it */
	op = kd_op();
	op2 = kd_op();
	kd_mr_fill(&kd_srv, 0, KD_MR_LEN, 14);
	sge = kd_sge(&kd_cli, &kd_cli.sbuf, 0, 512);
	w = kd_rdma_wr(op, IB_WR_RDMA_WRITE, &sge, 1, smr->iova, smr->rkey);
	s.wr_cqe = &op2->cqe;
	s.opcode = IB_WR_SEND;
	w.wr.next = &s;
	ok = !kd_post(&kd_cli, &w.wr);
	kd_wait(op);
	kd_wait(op2);
	if ((!kd_fired(op) || op->wc.status == IB_WC_SUCCESS) &&
	    (!kd_fired(op2) || op2->wc.status == IB_WC_SUCCESS))
		kd_wait_cm(&kd_cli, RDMA_CM_EVENT_DISCONNECTED);
	kd_wait(kd_srv.rop[7]);
	kd_diag("WRITE to invalid STag", op);
	kd_diag("SEND behind it", op2);
	kd_diag("server RECV for it", kd_srv.rop[7]);
	ok = ok && ((kd_fired(op) &&
		     op->wc.status != IB_WC_SUCCESS) ||
		    (kd_fired(op2) &&
		     op2->wc.status != IB_WC_SUCCESS) ||
		    kd_cli.events & BIT(RDMA_CM_EVENT_DISCONNECTED));
	kd_check(ok,
		 "client: WRITE to the invalidated STag fails (error or disconnect)");
	kd_check(!(kd_fired(kd_srv.rop[7]) &&
		   kd_srv.rop[7]->wc.status == IB_WC_SUCCESS),
		 "server: the SEND behind the bad WRITE is not received");
	kd_check(kd_mr_same(&kd_srv, 0, KD_MR_LEN, 14),
		 "server: invalidated MR untouched");
}

/* Connection 1: Sends, Read/Write, invalidation. */
static void kd_conn1(struct net *net1)
{
	int i;
	bool ok = true;

	if (!kd_connect(net1, "connection established"))
		goto out;
	for (i = 0; i < KD_NRECV && ok; i++)
		ok = !kd_post_recv(&kd_srv, i);
	if (!kd_check(ok, "server: 8 receives of 64 KiB in 2 SGEs posted"))
		goto out;
	kd_sends();
	if (!kd_rdma())
		goto out;
	kd_local_inv();
	kd_send_inv();
out:
	kd_teardown("disconnect after the terminated connection");
}

/*
 * Connections 2 and 3: 4 receives and 8 Sends of 64 KiB in flight on the
 * client, then ib_drain_qp() at once (2), or rdma_disconnect() and then
 * ib_drain_qp(), as NVMe-oF and NFS/RDMA tear a queue down (3). Each work
 * request completes exactly once; the server's receives are accounted.
 */
static void kd_inflight(struct net *net1, bool disc)
{
	const char *how = disc ? "disconnect+drain" : "drain";
	struct ib_send_wr wr[KD_NRECV] = {};
	struct kd_op *op[KD_NRECV];
	bool ok = true, flushed = true;
	int i, n, nsent = 0, nrecv = 0;
	struct ib_sge sge;
	char name[96];

	if (!kd_connect(net1, disc ? "third connection on the same listener" :
			"second connection on the same listener"))
		goto out;
	for (i = 0; i < KD_NRECV && ok; i++)
		ok = !kd_post_recv(&kd_srv, i);
	for (i = 0; i < 4 && ok; i++)
		ok = !kd_post_recv(&kd_cli, i);
	kd_fill(kd_cli.sbuf.va, SZ_64K, 20, 0);
	sge = kd_sge(&kd_cli, &kd_cli.sbuf, 0, SZ_64K);
	for (i = 0; i < KD_NRECV; i++) {
		op[i] = kd_op();
		wr[i].wr_cqe = &op[i]->cqe;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_SIGNALED;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < KD_NRECV ? &wr[i + 1] : NULL;
	}
	ok = ok && !kd_post(&kd_cli, wr);
	snprintf(name, sizeof(name), "%s: 4 receives and 8 SENDs of 64 KiB posted", how);
	if (!kd_check(ok, name))
		goto out;
	if (disc)
		kd_check(!rdma_disconnect(kd_cli.id),
			 "rdma_disconnect with work in flight");
	ok = kd_drain(&kd_cli);
	snprintf(name, sizeof(name), "%s: ib_drain_qp with work in flight returns", how);
	kd_check(ok, name);
	if (!ok)
		goto out;
	for (i = 0; i < KD_NRECV; i++) {
		ok &= kd_fired(op[i]) &&
		      (op[i]->wc.status == IB_WC_SUCCESS ||
		       op[i]->wc.status == IB_WC_WR_FLUSH_ERR);
		nsent += op[i]->wc.status == IB_WC_SUCCESS;
		if (!ok)
			kd_diag("drained SEND", op[i]);
	}
	for (i = 0; i < 4; i++) {
		struct kd_op *r = kd_cli.rop[i];

		flushed &= kd_fired(r) && r->wc.status == IB_WC_WR_FLUSH_ERR;
	}
	pr_info("# %s: %d of 8 SENDs completed with success\n", how, nsent);
	snprintf(name, sizeof(name), "%s: every SEND completed, with success or flush", how);
	kd_check(ok, name);
	snprintf(name, sizeof(name), "%s: every receive completed with a flush", how);
	kd_check(flushed, name);
	n = atomic_read(&kd_cli.ncomp);
	msleep(200);
	snprintf(name, sizeof(name), "%s: 12 completions, none after ib_drain_qp", how);
	kd_check(n == 12 && atomic_read(&kd_cli.ncomp) == n, name);
	if (n != 12)
		pr_info("# %d completions\n", n);
	if (disc) {
		ok = kd_wait_cm(&kd_cli, RDMA_CM_EVENT_DISCONNECTED) &&
		     kd_wait_cm(&kd_srv, RDMA_CM_EVENT_DISCONNECTED);
		kd_check(ok, "rdma_disconnect: both sides see DISCONNECTED");
	}
	/* The server: each receive once, a success only with the bytes. */
	ok = kd_drain(&kd_srv);
	for (i = 0; i < KD_NRECV && ok; i++) {
		struct kd_op *r = kd_srv.rop[i];

		if (kd_fired(r) && r->wc.status == IB_WC_SUCCESS) {
			ok = r->wc.byte_len == SZ_64K &&
			     kd_recv_same(&kd_srv, i, SZ_64K, 20);
			nrecv++;
		} else {
			ok = kd_fired(r) && r->wc.status == IB_WC_WR_FLUSH_ERR;
		}
		if (!ok)
			kd_diag("server RECV", r);
	}
	/*
	 * No count is compared with nsent: a SEND whose octets were all in
	 * the socket when the drain moved the QP to ERROR may complete with
	 * a flush and still arrive (a flushed work request may have been
	 * executed), and one completed with success may die in TCP.
	 */
	pr_info("# %s: server received %d SENDs\n", how, nrecv);
	snprintf(name, sizeof(name), "%s: server's receives complete once, data intact", how);
	kd_check(ok, name);
out:
	kd_teardown("rdma_disconnect: both sides see DISCONNECTED");
}

/*
 * Connection 4: ping-pong of 8-octet Sends. The client posts from process
 * context and waits for each answer; the server answers from its softirq
 * completion handler, as kernel ULPs repost, so both kinds of post_send
 * caller are exercised. The round-trip time goes to the log.
 */
#define KD_PP_ROUNDS 1000

static struct {
	struct ib_cqe srv_recv;
	struct ib_cqe cli_recv;
	struct ib_cqe send;
	struct completion pong;
	atomic_t errors;
} kd_pp;

static int kd_pp_recv(struct kd_end *end, struct ib_cqe *cqe)
{
	struct ib_sge sge = kd_sge(end, &end->rbuf[0], 0, 64);
	struct ib_recv_wr wr = { .wr_cqe = cqe, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(end->qp, &wr, &bad);
}

/* An 8-octet SEND from END, under LKEY (0: the PD's). */
static int kd_pp_send(struct kd_end *end, u32 lkey)
{
	struct ib_sge sge = kd_sge(end, &end->sbuf, 0, 8);
	struct ib_send_wr wr = {
		.wr_cqe = &kd_pp.send,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	const struct ib_send_wr *bad;

	if (lkey)
		sge.lkey = lkey;
	return ib_post_send(end->qp, &wr, &bad);
}

/* The server's handler, in softirq: repost the receive, then answer. */
static void kd_pp_srv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		return;	/* the flush at teardown */
	if (kd_pp_recv(&kd_srv, &kd_pp.srv_recv) || kd_pp_send(&kd_srv, 0))
		atomic_inc(&kd_pp.errors);
}

static void kd_pp_cli_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		return;
	complete(&kd_pp.pong);
}

static void kd_pp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		atomic_inc(&kd_pp.errors);
}

/*
 * A SEND with an unknown lkey on the idle client QP: the transmitter runs
 * inside ib_post_send(), finds the error and raises a QP event, which
 * must reach the handler from an interrupt, not from within the post.
 */
static void kd_bad_lkey(void)
{
	int events = atomic_read(&kd_cli.qp_events);
	bool ok;

	atomic_set(&kd_sync_events, 0);
	WRITE_ONCE(kd_poster, current);
	ok = !kd_pp_send(&kd_cli, 0xfffffe00);
	WRITE_ONCE(kd_poster, NULL);
	ok = ok && wait_event_timeout(kd_wq,
				      atomic_read(&kd_cli.qp_events) > events,
				      KD_TIMEOUT);
	kd_check(ok, "client: a SEND with an unknown lkey raises a QP event");
	kd_check(!atomic_read(&kd_sync_events),
		 "client: that event is not reported from inside ib_post_send()");
}

static void kd_pingpong(struct net *net1)
{
	bool ok;
	ktime_t t0;
	s64 us;
	int i;

	if (!kd_connect(net1, "fourth connection on the same listener"))
		goto out;
	kd_pp.srv_recv.done = kd_pp_srv_recv_done;
	kd_pp.cli_recv.done = kd_pp_cli_recv_done;
	kd_pp.send.done = kd_pp_send_done;
	init_completion(&kd_pp.pong);
	atomic_set(&kd_pp.errors, 0);
	ok = !kd_pp_recv(&kd_srv, &kd_pp.srv_recv);
	t0 = ktime_get();
	for (i = 0; i < KD_PP_ROUNDS && ok; i++) {
		reinit_completion(&kd_pp.pong);
		ok = !kd_pp_recv(&kd_cli, &kd_pp.cli_recv) &&
		     !kd_pp_send(&kd_cli, 0) &&
		     wait_for_completion_timeout(&kd_pp.pong, KD_TIMEOUT) &&
		     !atomic_read(&kd_pp.errors);
	}
	us = ktime_us_delta(ktime_get(), t0);
	pr_info("# pingpong: %d round trips, %lld us each\n", i,
		i ? us / i : 0);
	kd_check(ok, "1000 ping-pong SENDs, the server answering from its softirq handler");
	kd_bad_lkey();
out:
	kd_teardown("rdma_disconnect: both sides see DISCONNECTED");
}

static struct net *kd_net1, *kd_net2;

static void kd_unlisten(void)
{
	if (kd_lis.id)
		rdma_destroy_id(kd_lis.id);
	kd_lis.id = NULL;
}

/*
 * ctl=listen, written by a process in ns2: the listener. ctl=run, written
 * by a process in ns1: both connections. The driver makes its sockets in
 * the network namespace of the process that calls listen or connect, not
 * in the cm_id's, so each step runs where its socket must live.
 */
static int kd_ctl_set(const char *val, const struct kernel_param *kp)
{
	struct net *cur = current->nsproxy->net_ns;
	int failed = kd_failed;

	if (kd_wedged)
		return -EBUSY;
	if (sysfs_streq(val, "listen")) {
		if (!net_eq(cur, kd_net2))
			pr_info("# ctl=listen from outside ns2\n");
		kd_unlisten();
		if (!kd_check(!kd_listen(kd_net2, port),
			      "listener on 192.0.2.2 in ns2, set up from ns2"))
			kd_unlisten();
	} else if (sysfs_streq(val, "run")) {
		if (!net_eq(cur, kd_net1))
			pr_info("# ctl=run from outside ns1\n");
		if (!kd_lis.id)
			return -ENOTCONN;
		kd_conn1(kd_net1);
		if (!kd_wedged)
			kd_inflight(kd_net1, false);
		if (!kd_wedged)
			kd_inflight(kd_net1, true);
		if (!kd_wedged)
			kd_pingpong(kd_net1);
		if (!kd_wedged)
			kd_unlisten();
		pr_info("%d checks, %d failed\n", kd_count, kd_failed);
	} else {
		return -EINVAL;
	}
	if (kd_wedged) {
		/* ib_drain_qp still runs this module's work: stay. */
		pr_info("# ib_drain_qp hangs: module pinned, objects kept\n");
		__module_get(THIS_MODULE);
	}
	/* run answers for every check so far, the load's included */
	if (sysfs_streq(val, "run"))
		failed = 0;
	return kd_failed > failed ? -EIO : 0;
}

static const struct kernel_param_ops kd_ctl_ops = {
	.set = kd_ctl_set,
};

module_param_cb(ctl, &kd_ctl_ops, NULL, 0200);
MODULE_PARM_DESC(ctl, "listen (written in ns2), run (written in ns1)");

static int __init kd_init(void)
{
	kd_net1 = get_net_ns_by_pid(ns1_pid);
	if (IS_ERR(kd_net1)) {
		kd_check(false, "namespaces of ns1_pid and ns2_pid");
		return -EINVAL;
	}
	kd_net2 = get_net_ns_by_pid(ns2_pid);
	if (!kd_check(!IS_ERR(kd_net2) && kd_net2 != kd_net1,
		      "namespaces of ns1_pid and ns2_pid")) {
		if (!IS_ERR(kd_net2))
			put_net(kd_net2);
		put_net(kd_net1);
		return -EINVAL;
	}
	/*
	 * A kernel ULP creates its ids in a namespace of its choice and
	 * listens from whatever context it runs in (here insmod's, in the
	 * initial namespace): the listener must live in the id's namespace.
	 */
	kd_check(!kd_listen(kd_net2, port + 1),
		 "listener in ns2 set up from the initial namespace");
	kd_unlisten();
	return 0;
}

static void __exit kd_exit(void)
{
	kd_unlisten();
	put_net(kd_net2);
	put_net(kd_net1);
}
module_init(kd_init);
module_exit(kd_exit);

MODULE_DESCRIPTION("iwtcp kernel verbs data path self-test");
MODULE_LICENSE("Dual BSD/GPL");
