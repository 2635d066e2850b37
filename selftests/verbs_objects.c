// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * verbs_objects: drive an iwtcp device through the stock libsiw provider
 * and check what the driver does with verbs objects.
 *
 *   verbs_objects DEVICE CASE [ITERATIONS]
 *
 * CASE is one of: devinfo, objects, rings, cqarm, limits, overflow, loop,
 * hold.
 * Exit status 0 when every check of the case passed, 1 otherwise; each
 * failed check prints one line saying what was expected and what came.
 * "hold" creates one of each object, prints "holding ..." and waits for
 * stdin to close; "hold fatal" then also requires that the device went
 * away meanwhile (the async event IBV_EVENT_DEVICE_FATAL arrived).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"

/* The limits iwtcp advertises (drivers/infiniband/sw/iwtcp/iwtcp.h). */
#define MAX_QP_WR 4096
#define MAX_SGE 6
#define MAX_CQE 32768
#define MAX_SRQ_WR 4096
#define MAX_INLINE 80
#define MAX_ORD 128
#define MAX_FRMR_PAGES 1024
#define MAX_PD 4096

struct objs {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_qp *srq_qp;
	struct ibv_mr *mr;
	void *buf;
};

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		fprintf(stderr, "cannot open device %s: %s\n", name,
			strerror(errno));
	return ctx;
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      struct ibv_srq *srq, unsigned int wr,
			      unsigned int sge, unsigned int inl)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = srq ? 0 : wr,
			.max_send_sge = sge,
			.max_recv_sge = sge,
			.max_inline_data = inl,
		},
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static int modify_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = {
		.qp_state = state,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int mask = IBV_QP_STATE;

	if (state == IBV_QPS_INIT)
		mask |= IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &attr, mask);
}

static enum ibv_qp_state query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return attr.qp_state;
}

static int create_objs(struct ibv_context *ctx, struct objs *o)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 100, .max_sge = 2 },
	};

	memset(o, 0, sizeof(*o));
	o->pd = ibv_alloc_pd(ctx);
	o->cq = o->pd ? ibv_create_cq(ctx, 100, NULL, NULL, 0) : NULL;
	o->srq = o->cq ? ibv_create_srq(o->pd, &sattr) : NULL;
	o->qp = o->srq ? make_qp(o->pd, o->cq, NULL, 64, 2, 64) : NULL;
	o->srq_qp = o->qp ? make_qp(o->pd, o->cq, o->srq, 16, 1, 0) : NULL;
	o->buf = o->srq_qp ? calloc(1, 1 << 20) : NULL;
	o->mr = o->buf ? ibv_reg_mr(o->pd, o->buf, 1 << 20,
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ) : NULL;
	return o->mr ? 0 : -1;
}

static int destroy_objs(struct objs *o)
{
	int rv = 0;

	if (o->mr)
		rv |= ibv_dereg_mr(o->mr);
	free(o->buf);
	if (o->srq_qp)
		rv |= ibv_destroy_qp(o->srq_qp);
	if (o->qp)
		rv |= ibv_destroy_qp(o->qp);
	if (o->srq)
		rv |= ibv_destroy_srq(o->srq);
	if (o->cq)
		rv |= ibv_destroy_cq(o->cq);
	if (o->pd)
		rv |= ibv_dealloc_pd(o->pd);
	memset(o, 0, sizeof(*o));
	return rv;
}

static void test_devinfo(struct ibv_context *ctx)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	CHECK(ctx->device->node_type == IBV_NODE_RNIC, "node type %d",
	      ctx->device->node_type);
	CHECK(ctx->device->transport_type == IBV_TRANSPORT_IWARP,
	      "transport %d", ctx->device->transport_type);
	CHECK(!ibv_query_device(ctx, &da), "query_device: %s",
	      strerror(errno));
	CHECK(da.max_qp_wr == MAX_QP_WR, "max_qp_wr %d", da.max_qp_wr);
	CHECK(da.max_sge == MAX_SGE, "max_sge %d", da.max_sge);
	CHECK(da.max_cqe == MAX_CQE, "max_cqe %d", da.max_cqe);
	CHECK(da.max_srq_wr == MAX_SRQ_WR, "max_srq_wr %d", da.max_srq_wr);
	CHECK(da.max_qp_rd_atom == MAX_ORD, "max_qp_rd_atom %d",
	      da.max_qp_rd_atom);
	CHECK(da.node_guid != 0, "node GUID is zero");
	/* "iwt" (no IEEE OUI; siw's is "bmt"), part 1, the driver's version */
	CHECK(da.vendor_id == 0x697774, "vendor_id %#x", da.vendor_id);
	CHECK(da.vendor_part_id == 1, "vendor_part_id %u", da.vendor_part_id);
	CHECK(!strcmp(da.fw_ver, IWTCP_VERSION ".0"), "fw_ver '%s'", da.fw_ver);
	CHECK(!ibv_query_port(ctx, 1, &pa), "query_port: %s",
	      strerror(errno));
	CHECK(pa.state == IBV_PORT_ACTIVE, "port state %d", pa.state);
	CHECK(pa.gid_tbl_len == 1, "gid_tbl_len %d", pa.gid_tbl_len);
}

static void check_qp_attrs(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	CHECK(!ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init),
	      "query_qp: %s", strerror(errno));
	/* the iWARP verbs' Idle, reported as INIT as siw and RNICs do */
	CHECK(attr.qp_state == IBV_QPS_INIT, "state %d", attr.qp_state);
	CHECK(init.cap.max_send_wr == 64, "max_send_wr %u",
	      init.cap.max_send_wr);
	CHECK(init.cap.max_recv_wr == 64, "max_recv_wr %u",
	      init.cap.max_recv_wr);
	CHECK(init.cap.max_send_sge == 2, "max_send_sge %u",
	      init.cap.max_send_sge);
	CHECK(init.cap.max_inline_data == 64, "max_inline %u",
	      init.cap.max_inline_data);
	CHECK(init.qp_type == IBV_QPT_RC, "type %d", init.qp_type);
}

static void check_transitions(struct ibv_qp *qp)
{
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
					 .cur_qp_state = IBV_QPS_RTS };

		CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE) ==
		      EINVAL, "wrong IBV_QP_CUR_STATE accepted");
		/* Idle is RESET and INIT both: an IB habit must still work */
		a.cur_qp_state = IBV_QPS_RESET;
		CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE),
		      "RESET -> INIT with IBV_QP_CUR_STATE: %s",
		      strerror(errno));
	}
	CHECK(!modify_state(qp, IBV_QPS_INIT), "to INIT: %s",
	      strerror(errno));
	CHECK(query_state(qp) == IBV_QPS_INIT, "state %d", query_state(qp));
	CHECK(!modify_state(qp, IBV_QPS_RTR), "to RTR: %s", strerror(errno));
	CHECK(query_state(qp) == IBV_QPS_RTR, "state %d", query_state(qp));
	/* RTS needs a connection: iw_cm, not the ULP, gets it there. */
	errno = 0;
	CHECK(modify_state(qp, IBV_QPS_RTS) == EINVAL,
	      "RTS without connection not refused");
	CHECK(query_state(qp) == IBV_QPS_RTR, "state %d", query_state(qp));
	CHECK(!modify_state(qp, IBV_QPS_ERR), "to ERR: %s", strerror(errno));
	CHECK(query_state(qp) == IBV_QPS_ERR, "state %d", query_state(qp));
	CHECK(modify_state(qp, IBV_QPS_INIT) == EINVAL, "ERR -> INIT allowed");
	CHECK(!modify_state(qp, IBV_QPS_RESET), "to RESET: %s",
	      strerror(errno));
	CHECK(query_state(qp) == IBV_QPS_RESET, "state %d", query_state(qp));
}

static void test_objects(struct ibv_context *ctx)
{
	struct ibv_srq_attr sa;
	struct objs o;

	if (create_objs(ctx, &o)) {
		CHECK(0, "creating objects: %s", strerror(errno));
		destroy_objs(&o);
		return;
	}
	CHECK(o.cq->cqe == 128, "CQ of 100 got %d entries, want 128",
	      o.cq->cqe);
	/* libsiw has no query_srq: the SRQ is checked through modify_srq. */
	sa.srq_limit = 10;
	CHECK(!ibv_modify_srq(o.srq, &sa, IBV_SRQ_LIMIT), "SRQ limit: %s",
	      strerror(errno));
	sa.srq_limit = 129;
	CHECK(ibv_modify_srq(o.srq, &sa, IBV_SRQ_LIMIT) == EINVAL,
	      "SRQ limit above its 128 entries accepted");
	sa.max_wr = 256;
	CHECK(ibv_modify_srq(o.srq, &sa, IBV_SRQ_MAX_WR) == EOPNOTSUPP,
	      "SRQ resize not refused with EOPNOTSUPP");
	CHECK(o.mr->lkey == o.mr->rkey, "lkey %#x rkey %#x", o.mr->lkey,
	      o.mr->rkey);
	CHECK(o.qp->qp_num != o.srq_qp->qp_num, "QP numbers equal");
	check_qp_attrs(o.qp);
	check_transitions(o.qp);
	CHECK(!destroy_objs(&o), "destroy: %s", strerror(errno));
}

/* Poll until @n completions arrived or a second passed. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, tries;

	for (tries = 0; got < n && tries < 1000; tries++) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep(1000);
	}
	return got;
}

static int post_recvs(struct ibv_qp *qp, struct ibv_mr *mr, int n,
		      uint64_t first_id)
{
	struct ibv_recv_wr *bad;
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mr->addr + i * 64,
			.length = 64,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = first_id + i,
			.sg_list = &sge,
			.num_sge = 1,
		};

		if (ibv_post_recv(qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static int post_send(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = 64,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static void check_flushed(struct ibv_wc *wc, int n, struct ibv_qp *qp,
			  enum ibv_wc_opcode op, uint64_t first_id)
{
	int i;

	for (i = 0; i < n; i++) {
		CHECK(wc[i].wr_id == first_id + i, "wr_id %llu want %llu",
		      (unsigned long long)wc[i].wr_id,
		      (unsigned long long)(first_id + i));
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR, "status %s",
		      ibv_wc_status_str(wc[i].status));
		CHECK(wc[i].opcode == op, "opcode %d want %d", wc[i].opcode, op);
		CHECK(wc[i].qp_num == qp->qp_num, "qp_num %u want %u",
		      wc[i].qp_num, qp->qp_num);
	}
}

/*
 * Work posted to the shared SQ and RQ rings before the connection exists
 * stays there; moving the QP to ERR flushes all of it, SQ first, each
 * work request once; work posted in ERR is flushed at the doorbell.
 */
static void test_rings(struct ibv_context *ctx)
{
	struct ibv_wc wc[16];
	struct objs o;

	if (create_objs(ctx, &o)) {
		CHECK(0, "creating objects: %s", strerror(errno));
		destroy_objs(&o);
		return;
	}
	CHECK(!modify_state(o.qp, IBV_QPS_INIT), "INIT: %s", strerror(errno));
	CHECK(!post_recvs(o.qp, o.mr, 4, 1), "post_recv: %s", strerror(errno));
	/* The doorbell of an idle SQ reports that the QP is not connected;
	 * libsiw rings it only for the first of these two sends.
	 */
	CHECK(post_send(o.qp, o.mr, 100) && errno == ENOTCONN,
	      "send before RTS: %s",
	      strerror(errno));
	post_send(o.qp, o.mr, 101);
	CHECK(ibv_poll_cq(o.cq, 16, wc) == 0, "completions before ERR");
	CHECK(!modify_state(o.qp, IBV_QPS_ERR), "ERR: %s", strerror(errno));
	CHECK(poll_n(o.cq, wc, 6) == 6, "want 6 flush completions");
	check_flushed(wc, 2, o.qp, IBV_WC_SEND, 100);
	check_flushed(wc + 2, 4, o.qp, IBV_WC_RECV, 1);
	CHECK(ibv_poll_cq(o.cq, 16, wc) == 0, "extra completions");
	CHECK(!post_send(o.qp, o.mr, 200), "send in ERR: %s", strerror(errno));
	CHECK(poll_n(o.cq, wc, 1) == 1, "send in ERR not flushed");
	check_flushed(wc, 1, o.qp, IBV_WC_SEND, 200);
	CHECK(!destroy_objs(&o), "destroy: %s", strerror(errno));
}

/* A flush completion wakes a CQ armed through the shared control word. */
static void test_cqarm(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *ev_cq = NULL;
	struct ibv_wc wc[4];
	void *ev_ctx;
	struct objs o;

	if (!ch || create_objs(ctx, &o)) {
		CHECK(0, "set-up: %s", strerror(errno));
		goto out;
	}
	ibv_destroy_qp(o.qp);
	o.qp = NULL;
	ev_cq = ibv_create_cq(ctx, 8, NULL, ch, 0);
	CHECK(ev_cq, "CQ with channel: %s", strerror(errno));
	if (!ev_cq)
		goto out;
	o.qp = make_qp(o.pd, ev_cq, NULL, 4, 1, 0);
	CHECK(o.qp, "QP: %s", strerror(errno));
	if (!o.qp)
		goto out;
	CHECK(!ibv_req_notify_cq(ev_cq, 0), "arm: %s", strerror(errno));
	CHECK(!modify_state(o.qp, IBV_QPS_INIT), "INIT");
	CHECK(!post_recvs(o.qp, o.mr, 2, 7), "post_recv");
	CHECK(!modify_state(o.qp, IBV_QPS_ERR), "ERR");
	{
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

		CHECK(poll(&pfd, 1, 2000) == 1, "no completion event in 2 s");
	}
	CHECK(!ibv_get_cq_event(ch, &ev_cq, &ev_ctx), "get_cq_event: %s",
	      strerror(errno));
	ibv_ack_cq_events(ev_cq, 1);
	CHECK(poll_n(ev_cq, wc, 2) == 2, "want 2 completions");
	check_flushed(wc, 2, o.qp, IBV_WC_RECV, 7);
out:
	if (o.qp) {
		ibv_destroy_qp(o.qp);
		o.qp = NULL;
	}
	if (ev_cq)
		ibv_destroy_cq(ev_cq);
	destroy_objs(&o);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

/* Async events that arrive within @ms milliseconds, of type @type. */
static int count_async(struct ibv_context *ctx, enum ibv_event_type type,
		       int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int n = 0;

	while (poll(&pfd, 1, ms) == 1) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		n += ev.event_type == type;
		ibv_ack_async_event(&ev);
	}
	return n;
}

/*
 * More flushed work than CQ entries: the CQ overflows, in error, with one
 * IBV_EVENT_CQ_ERR however much more is lost afterwards.
 */
static void test_overflow(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(pd, cq, NULL, 64, 1, 0) : NULL;
	struct ibv_mr *mr = NULL;
	static char buf[4096];
	int i, round;

	CHECK(qp, "set-up: %s", strerror(errno));
	if (!qp)
		goto out;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(!modify_state(qp, IBV_QPS_INIT), "INIT");
	CHECK(!post_recvs(qp, mr, 32, 1), "post_recv");
	CHECK(!modify_state(qp, IBV_QPS_ERR), "ERR");
	for (round = 0; round < 20; round++)
		for (i = 0; i < 32; i++)
			post_send(qp, mr, 1000 + i);
	CHECK(count_async(ctx, IBV_EVENT_CQ_ERR, 500) == 1,
	      "want exactly one IBV_EVENT_CQ_ERR");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

/* One PD more than max_pd fails with ENOSPC; freeing one makes room. */
static void pd_count_limit(struct ibv_context *ctx, int already)
{
	static struct ibv_pd *pds[MAX_PD + 1];
	int n = 0, i;

	while (n <= MAX_PD && (pds[n] = ibv_alloc_pd(ctx)) != NULL)
		n++;
	CHECK(n == MAX_PD - already && errno == ENOSPC,
	      "%d PDs, then errno %d; want %d, then ENOSPC", n, errno,
	      MAX_PD - already);
	if (n) {
		ibv_dealloc_pd(pds[--n]);
		pds[n] = ibv_alloc_pd(ctx);
		CHECK(pds[n], "PD after freeing one: %s", strerror(errno));
		if (pds[n])
			n++;
	}
	for (i = 0; i < n; i++)
		ibv_dealloc_pd(pds[i]);
}

/*
 * Each request above an advertised limit fails with EINVAL; one object
 * more than a count limit fails with ENOSPC.
 */
static void test_limits(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = MAX_SRQ_WR + 1, .max_sge = 1 },
	};
	struct ibv_qp_init_attr ud = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	CHECK(pd && cq, "set-up: %s", strerror(errno));
	if (!pd || !cq)
		return;
	errno = 0;
	CHECK(!ibv_create_cq(ctx, MAX_CQE + 1, NULL, NULL, 0) &&
	      errno == EINVAL, "CQ above max_cqe: errno %d", errno);
	errno = 0;
	CHECK(!make_qp(pd, cq, NULL, MAX_QP_WR + 1, 1, 0) && errno == EINVAL,
	      "QP above max_qp_wr: errno %d", errno);
	errno = 0;
	CHECK(!make_qp(pd, cq, NULL, 4, MAX_SGE + 1, 0) && errno == EINVAL,
	      "QP above max_sge: errno %d", errno);
	errno = 0;
	CHECK(!make_qp(pd, cq, NULL, 4, 1, MAX_INLINE + 1) && errno == EINVAL,
	      "QP above max inline: errno %d", errno);
	errno = 0;
	CHECK(!ibv_create_srq(pd, &sattr) && errno == EINVAL,
	      "SRQ above max_srq_wr: errno %d", errno);
	{
		static char buf[4096];
		struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
		struct ibv_srq_init_attr sa2 = {
			.attr = { .max_wr = 4, .max_sge = 1 },
		};
		struct ibv_srq *srq = pd2 ? ibv_create_srq(pd2, &sa2) : NULL;
		struct ibv_mr *mr;

		errno = 0;
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_ATOMIC);
		CHECK(!mr && errno == EOPNOTSUPP,
		      "MR with remote atomic access: errno %d", errno);
		if (mr)
			ibv_dereg_mr(mr);
		CHECK(srq, "SRQ on a second PD: %s", strerror(errno));
		errno = 0;
		qp = srq ? make_qp(pd, cq, srq, 4, 1, 0) : NULL;
		CHECK(!qp && errno == EINVAL, "QP with another PD's SRQ: errno %d",
		      errno);
		if (qp)
			ibv_destroy_qp(qp);
		if (srq)
			ibv_destroy_srq(srq);
		if (pd2)
			ibv_dealloc_pd(pd2);
	}
	errno = 0;
	qp = ibv_create_qp(pd, &ud);
	CHECK(!qp && errno == EOPNOTSUPP, "UD QP: errno %d", errno);
	if (qp)
		ibv_destroy_qp(qp);
	qp = make_qp(pd, cq, NULL, MAX_QP_WR, MAX_SGE, MAX_INLINE);
	CHECK(qp, "QP at every limit: %s", strerror(errno));
	if (qp) {
		struct ibv_qp_attr a = { .max_rd_atomic = MAX_ORD + 1 };

		CHECK(ibv_modify_qp(qp, &a, IBV_QP_MAX_QP_RD_ATOMIC) == EINVAL,
		      "ORD above limit accepted");
		a.max_rd_atomic = MAX_ORD;
		CHECK(!ibv_modify_qp(qp, &a, IBV_QP_MAX_QP_RD_ATOMIC),
		      "ORD at limit: %s", strerror(errno));
		ibv_destroy_qp(qp);
	}
	ibv_destroy_cq(cq);
	pd_count_limit(ctx, 1);
	ibv_dealloc_pd(pd);
}

static void test_loop(struct ibv_context *ctx, int n)
{
	struct objs o;
	int i;

	for (i = 0; i < n && !failures; i++) {
		CHECK(!create_objs(ctx, &o), "iteration %d: %s", i,
		      strerror(errno));
		if (!failures) {
			CHECK(!modify_state(o.qp, IBV_QPS_INIT), "INIT");
			CHECK(!post_recvs(o.qp, o.mr, 2, 1), "post_recv");
		}
		CHECK(!destroy_objs(&o), "iteration %d destroy", i);
	}
}

/*
 * Hold one object of each kind until stdin closes. With @want_fatal, the
 * device must have gone away meanwhile: libibverbs reports that as the
 * async event IBV_EVENT_DEVICE_FATAL, after any port events before it.
 */
static void test_hold(struct ibv_context *ctx, bool want_fatal)
{
	struct objs o;
	char c;

	CHECK(!create_objs(ctx, &o), "set-up: %s", strerror(errno));
	CHECK(!post_recvs(o.qp, o.mr, 2, 1), "post_recv");
	printf("holding PD, CQ, SRQ, 2 QPs, MR\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	if (want_fatal)
		CHECK(count_async(ctx, IBV_EVENT_DEVICE_FATAL, 1000) == 1,
		      "no IBV_EVENT_DEVICE_FATAL");
	destroy_objs(&o);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	const char *c;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE CASE [N]\n", argv[0]);
		return 2;
	}
	ctx = open_device(argv[1]);
	if (!ctx)
		return 1;
	c = argv[2];
	if (!strcmp(c, "devinfo"))
		test_devinfo(ctx);
	else if (!strcmp(c, "objects"))
		test_objects(ctx);
	else if (!strcmp(c, "rings"))
		test_rings(ctx);
	else if (!strcmp(c, "cqarm"))
		test_cqarm(ctx);
	else if (!strcmp(c, "limits"))
		test_limits(ctx);
	else if (!strcmp(c, "overflow"))
		test_overflow(ctx);
	else if (!strcmp(c, "loop"))
		test_loop(ctx, argc > 3 ? atoi(argv[3]) : 1000);
	else if (!strcmp(c, "hold"))
		test_hold(ctx, argc > 3 && !strcmp(argv[3], "fatal"));
	else
		return 2;
	ibv_close_device(ctx);
	printf("%s %s: %d checks, %d failed\n", argv[1], c, checks, failures);
	return failures ? 1 : 0;
}
