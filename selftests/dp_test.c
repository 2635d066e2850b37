// SPDX-License-Identifier: GPL-2.0
/*
 * dp_test: data integrity and bad operations on one rdma_cm connection.
 *
 *   dp_test server|client ADDR PORT MODE
 *
 * The client says hello, the server answers with the address, STag and
 * length of its 4 MiB + 8 KiB buffer; then the client drives, the server
 * serves and checks. MODE:
 * integrity (Write, Read, Send of a pattern across page, MSS and marker
 * boundaries, guard octets checked; a chain of Writes of mixed sizes in
 * one post, completed in order), bad_rkey, bad_bounds, bad_access,
 * bad_read_access (a bad Write or Read: the client's last WR must fail,
 * both sides see DISCONNECTED, the server a QP error event), no_recv (a
 * Send without a receive: the connection ends), read_ird (16 Reads back
 * to back above the ORD), last_send (the server destroys its QP and id
 * right after its buffer info completed, without a disconnect: the
 * client must still receive it, then DISCONNECTED), srq (the server
 * receives through a shared receive queue: every Send case of
 * integrity), solicited (the server's receive CQ armed for solicited
 * completions only: a plain Send raises no event, one with IBV_SEND_SOLICITED
 * does, RFC 5040 5.4), send_inv (IBV_WR_LOCAL_INV fails at post time;
 * a Send with Invalidate of the server's MR, which a user MR does not
 * allow (RFC 5040 5.3): the server's QP ends with a TERM), busy_source
 * (BUSY_WRITES Writes of 1 MiB from a buffer a second thread keeps
 * writing into, which verbs leave undefined: whatever octets arrive, the
 * connection must stay up, with no CRC error, and a Send after it must
 * arrive exact). Every wait ends
 * after 30 s (times $IWTCP_SLOW). The last line is "dp_test SIDE MODE: ok" (exit 0) or
 * "dp_test SIDE MODE: FAIL why".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <rdma/rdma_cma.h>

#include "check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TIMEOUT_S 30	/* each wait, times $IWTCP_SLOW (a debug kernel) */
#define PAGE 4096
#define BIG_LEN ((4u << 20) + 8192)	/* the registered data buffer */
#define READ_BASE (2u << 20)		/* server region the Reads use */
#define RECV2_OFF ((3u << 20) + 8197)	/* 2nd SGE of a 2-SGE receive */
#define PIECE_STRIDE ((1u << 20) + 1027) /* pieces of a 3-SGE send */
#define GUARD_SRV 0xa5
#define GUARD_CLI 0x5a
#define NO_BAD INT64_MAX
#define DEPTH 4			/* IRD and ORD of both sides */
#define IRD_SMALL 2		/* read_ird: server IRD, client ORD */
#define NREADS 16
#define BUSY_WRITES 32		/* busy_source: Writes of BUSY_LEN */
#define BUSY_LEN 1048576u

enum mode { M_INTEGRITY, M_BAD_RKEY, M_BAD_BOUNDS, M_BAD_ACCESS,
	    M_BAD_READ_ACCESS, M_NO_RECV, M_READ_IRD, M_LAST_SEND, M_SRQ,
	    M_SOLICITED, M_SEND_INV, M_BUSY_SOURCE, M_COUNT };

static const char * const mode_name[M_COUNT] = {
	"integrity", "bad_rkey", "bad_bounds", "bad_access",
	"bad_read_access", "no_recv", "read_ird", "last_send", "srq",
	"solicited", "send_inv", "busy_source",
};

enum op { OP_HELLO = 1, OP_INFO, OP_CHECK_WRITE, OP_FILL, OP_PREP_SEND, OP_REPLY,
	  OP_DONE };

enum { WR_MSG = 1000, WR_DATA, WR_OP };

/* Every control message; OP_INFO uses addr, rkey and size. */
struct msg {
	__u32 op;
	__u32 seed;
	__u32 off;		/* region offset in the server's buffer */
	__u32 size;		/* region length; OP_REPLY: octets seen */
	__u32 nsge;		/* OP_PREP_SEND: receive SGEs, 1 or 2 */
	__u32 status;		/* OP_REPLY: 0 ok */
	__u32 rkey;
	__u32 pad;
	__u64 addr;
	__s64 bad;		/* OP_REPLY: first bad octet or NO_BAD */
};

static struct {
	int mode;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_srq *srq;	/* srq mode, server: its receives go here */
	__u8 *big;
	struct ibv_mr *big_mr;
	struct ibv_mr *msg_mr;
	struct msg slot[2];	/* [0] receive, [1] send */
	struct msg peer;	/* the server's OP_INFO */
} t;

static int timeout_s = TIMEOUT_S;

static char reason[256];

/* Count a failure, keep the first reason, say where; returns -1. */
static int fail_at(const char *fn, int line, const char *fmt, ...)
{
	char buf[sizeof(reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	failures++;
	if (!reason[0])
		memcpy(reason, buf, sizeof(reason));
	fprintf(stderr, "FAIL %s:%d: %s\n", fn, line, buf);
	return -1;
}

/* printf() in the dead branch: the compiler checks the format */
#define fail(...) (0 ? printf(__VA_ARGS__) : \
		   fail_at(__func__, __LINE__, __VA_ARGS__))

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* >0: @fd readable, 0: @deadline passed, <0: error. */
static int wait_fd(int fd, __u64 deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	__u64 now;
	int n;

	do {
		now = now_ms();
		if (now >= deadline)
			return 0;
		n = poll(&p, 1, deadline - now);
	} while (n < 0 && errno == EINTR);
	return n;
}

/* The pattern octet @i of @seed: xorshift32 of a mix of both. */
static __u8 pat(__u32 seed, __u32 i)
{
	__u32 x = seed ^ (i * 2654435761u);

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x >> 24;
}

static void fill_pat(size_t pos, __u32 seed, __u32 base, __u32 n)
{
	__u32 i;

	for (i = 0; i < n; i++)
		t.big[pos + i] = pat(seed, base + i);
}

/*
 * Check t.big[pos..pos+n) against the pattern from octet @base on and
 * the octets before (if any) and after against @guard. Returns NO_BAD or
 * the first bad octet relative to @pos: -1 before, @n after the region.
 */
static __s64 verify(size_t pos, __u32 seed, __u32 base, __u32 n,
		    __u8 guard)
{
	const __u8 *p = t.big + pos;
	__u32 i;

	if (pos > 0 && p[-1] != guard)
		return -1;
	for (i = 0; i < n; i++)
		if (p[i] != pat(seed, base + i))
			return i;
	return p[n] != guard ? (__s64)n : NO_BAD;
}

static struct ibv_sge big_sge(size_t pos, __u32 len)
{
	return (struct ibv_sge){ .addr = (uintptr_t)(t.big + pos),
				 .length = len, .lkey = t.big_mr->lkey };
}

static int get_addr(const char *host, const char *port,
		    struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;

	if (getaddrinfo(host, port, &hints, &res))
		return fail("bad address %s port %s", host, port);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/* Wait up to timeout_s for the next CM event, @want; its id or NULL. */
static struct rdma_cm_id *cm_event(enum rdma_cm_event_type want)
{
	__u64 deadline = now_ms() + timeout_s * 1000;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	while (rdma_get_cm_event(t.ech, &ev)) {
		if (errno != EAGAIN || wait_fd(t.ech->fd, deadline) <= 0) {
			fail("no %s: %s", rdma_event_str(want),
			     errno == EAGAIN ? "timed out" : strerror(errno));
			return NULL;
		}
	}
	printf("# event %s status %d", rdma_event_str(ev->event), ev->status);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED)
		printf(" initiator_depth %u responder_resources %u",
		       ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
	putchar('\n');
	id = ev->event == want ? ev->id : NULL;
	if (!id)
		fail("want %s, got %s status %d", rdma_event_str(want),
		     rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	return id;
}

/* PD, CQs (one comp channel), buffers, MRs and the QP of @id. */
static int setup_res(struct rdma_cm_id *id, int access, __u8 guard)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
	};
	struct ibv_context *ctx = id->verbs;

	t.pd = ibv_alloc_pd(ctx);
	t.cch = t.pd ? ibv_create_comp_channel(ctx) : NULL;
	t.scq = t.cch ? ibv_create_cq(ctx, 128, NULL, t.cch, 0) : NULL;
	t.rcq = t.scq ? ibv_create_cq(ctx, 128, NULL, t.cch, 0) : NULL;
	if (!t.rcq)
		return fail("PD/CQ: %s", strerror(errno));
	if (posix_memalign((void **)&t.big, PAGE, BIG_LEN))
		return fail("no memory");
	memset(t.big, guard, BIG_LEN);
	t.big_mr = ibv_reg_mr(t.pd, t.big, BIG_LEN, access);
	t.msg_mr = t.big_mr ? ibv_reg_mr(t.pd, t.slot, sizeof(t.slot),
					 IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!t.msg_mr)
		return fail("ibv_reg_mr: %s", strerror(errno));
	qa.send_cq = t.scq;
	qa.recv_cq = t.rcq;
	if (t.mode == M_SRQ && guard == GUARD_SRV) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 64, .max_sge = 4 },
		};

		t.srq = ibv_create_srq(t.pd, &sa);
		if (!t.srq)
			return fail("ibv_create_srq: %s", strerror(errno));
		qa.srq = t.srq;
		qa.cap.max_recv_wr = 0;
		qa.cap.max_recv_sge = 0;
	}
	if (rdma_create_qp(id, t.pd, &qa))
		return fail("rdma_create_qp: %s", strerror(errno));
	if (set_nonblock(t.cch->fd) || set_nonblock(ctx->async_fd))
		return fail("O_NONBLOCK: %s", strerror(errno));
	return 0;
}

static void undo(int rc, const char *what)
{
	CHECK(!rc, "%s: %s", what, strerror(rc));
}

/* Everything the setup made, in reverse order; NULL members skipped. */
static void teardown(void)
{
	if (t.id && t.id->qp)
		rdma_destroy_qp(t.id);
	undo(t.srq ? ibv_destroy_srq(t.srq) : 0, "destroy SRQ");
	undo(t.msg_mr ? ibv_dereg_mr(t.msg_mr) : 0, "dereg msg MR");
	undo(t.big_mr ? ibv_dereg_mr(t.big_mr) : 0, "dereg big MR");
	undo(t.rcq ? ibv_destroy_cq(t.rcq) : 0, "destroy recv CQ");
	undo(t.scq ? ibv_destroy_cq(t.scq) : 0, "destroy send CQ");
	undo(t.cch ? ibv_destroy_comp_channel(t.cch) : 0, "destroy channel");
	undo(t.pd ? ibv_dealloc_pd(t.pd) : 0, "dealloc PD");
	free(t.big);
	if (t.id)
		rdma_destroy_id(t.id);
	if (t.listen)
		rdma_destroy_id(t.listen);
	if (t.ech)
		rdma_destroy_event_channel(t.ech);
}

/* Next completion of @cq, sleeping on the comp channel up to timeout_s. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	__u64 deadline = now_ms() + timeout_s * 1000;
	struct ibv_cq *ecq;
	int armed = 0, n;
	void *ectx;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n > 0)
			return 0;
		if (n < 0)
			return fail("ibv_poll_cq: %d", n);
		if (!armed) {
			/* arm, then poll again: no completion slips by */
			if (ibv_req_notify_cq(cq, 0))
				return fail("ibv_req_notify_cq");
			armed = 1;
			continue;
		}
		if (wait_fd(t.cch->fd, deadline) <= 0)
			return fail("no completion within %d s", timeout_s);
		/* events of either CQ: ack them all, re-arm ours */
		while (!ibv_get_cq_event(t.cch, &ecq, &ectx))
			ibv_ack_cq_events(ecq, 1);
		armed = 0;
	}
}

/* Next completion of @cq must be a successful @wr_id. */
static int complete(struct ibv_cq *cq, __u64 wr_id, struct ibv_wc *wc)
{
	if (wait_wc(cq, wc))
		return -1;
	if (wc->status != IBV_WC_SUCCESS)
		return fail("WR %llu: %s", (unsigned long long)wc->wr_id,
			    ibv_wc_status_str(wc->status));
	if (wc->wr_id != wr_id)
		return fail("completion of WR %llu, want %llu",
			    (unsigned long long)wc->wr_id,
			    (unsigned long long)wr_id);
	return 0;
}

/* Post a chain of send WRs, each signalled. */
static int post(struct ibv_send_wr *wr)
{
	struct ibv_send_wr *w, *bad;
	int rc;

	for (w = wr; w; w = w->next)
		w->send_flags |= IBV_SEND_SIGNALED;
	rc = ibv_post_send(t.id->qp, wr, &bad);
	if (rc)
		return fail("ibv_post_send: %s", strerror(rc < 0 ? -rc : rc));
	return 0;
}

static void rdma_wr(struct ibv_send_wr *wr, enum ibv_wr_opcode op,
		    struct ibv_sge *sg, __u64 raddr, __u32 rkey,
		    __u64 wr_id)
{
	*wr = (struct ibv_send_wr){ .wr_id = wr_id, .sg_list = sg,
				    .num_sge = 1, .opcode = op };
	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = rkey;
}

static int post_rdma(enum ibv_wr_opcode op, struct ibv_sge *sg,
		     __u64 raddr, __u32 rkey, __u64 wr_id)
{
	struct ibv_send_wr wr;

	rdma_wr(&wr, op, sg, raddr, rkey, wr_id);
	return post(&wr);
}

static int post_send(struct ibv_sge *sg, int n, unsigned int flags,
		     __u64 wr_id)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = sg,
				  .num_sge = n, .opcode = IBV_WR_SEND,
				  .send_flags = flags };

	return post(&wr);
}

static int post_recv(struct ibv_sge *sg, int n, __u64 wr_id)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sg,
				  .num_sge = n };
	struct ibv_recv_wr *bad;
	int rc = t.srq ? ibv_post_srq_recv(t.srq, &wr, &bad) :
			 ibv_post_recv(t.id->qp, &wr, &bad);

	if (rc)
		return fail("ibv_post_recv: %s", strerror(rc < 0 ? -rc : rc));
	return 0;
}

static struct ibv_sge msg_sge(int i)
{
	return (struct ibv_sge){ .addr = (uintptr_t)&t.slot[i],
				 .length = sizeof(struct msg),
				 .lkey = t.msg_mr->lkey };
}

static int post_recv_msg(void)
{
	struct ibv_sge sg = msg_sge(0);

	return post_recv(&sg, 1, WR_MSG);
}

/* Send @m and wait for the send completion. */
static int send_msg(const struct msg *m)
{
	struct ibv_sge sg = msg_sge(1);
	struct ibv_wc wc;

	t.slot[1] = *m;
	if (post_send(&sg, 1, 0, WR_MSG))
		return -1;
	return complete(t.scq, WR_MSG, &wc);
}

/* Wait for the next control message (a receive must be posted). */
static int wait_msg(struct msg *m)
{
	struct ibv_wc wc;

	if (complete(t.rcq, WR_MSG, &wc))
		return -1;
	if (wc.byte_len != sizeof(*m))
		return fail("message of %u octets", wc.byte_len);
	*m = t.slot[0];
	return 0;
}

/* Server: octets of an OP_PREP_SEND receive in its first SGE. */
static __u32 recv_head(const struct msg *m)
{
	return m->op == OP_PREP_SEND && m->nsge == 2 ? m->size / 2 : m->size;
}

static int request_ok(const struct msg *m)
{
	__u32 head = recv_head(m);

	if (m->op < OP_CHECK_WRITE || m->op > OP_PREP_SEND || !head)
		return 0;
	if ((__u64)m->off + head + 1 > BIG_LEN)
		return 0;
	return (__u64)RECV2_OFF + m->size - head + 1 <= BIG_LEN;
}

static int post_data_recv(const struct msg *m)
{
	__u32 head = recv_head(m);
	struct ibv_sge sg[2] = { big_sge(m->off, head),
				 big_sge(RECV2_OFF, m->size - head) };

	return post_recv(sg, head < m->size ? 2 : 1, WR_DATA);
}

/* Server: the Send announced by @m arrived; check it and reply. */
static int check_send(const struct msg *m)
{
	struct msg r = { .op = OP_REPLY, .bad = NO_BAD };
	__u32 head = recv_head(m);
	struct ibv_wc wc;

	if (complete(t.rcq, WR_DATA, &wc))
		return -1;
	r.size = wc.byte_len;
	r.bad = verify(m->off, m->seed, 0, head, GUARD_SRV);
	if (r.bad == NO_BAD && head < m->size)
		r.bad = verify(RECV2_OFF, m->seed, head, m->size - head,
			       GUARD_SRV);
	r.status = r.bad != NO_BAD || wc.byte_len != m->size;
	memset(t.big, GUARD_SRV, BIG_LEN);
	/* the receive for the next message is already posted */
	if (send_msg(&r))
		return -1;
	if (r.status)
		return fail("send of %u: %u octets, bad octet %lld", m->size,
			    wc.byte_len, (long long)r.bad);
	return 0;
}

/*
 * Server: one request. The buffer is all guard whenever a reply goes out,
 * except for what OP_FILL wrote above READ_BASE (only Reads look there).
 */
static int serve_one(const struct msg *m)
{
	struct msg r = { .op = OP_REPLY, .size = m->size, .bad = NO_BAD };

	if (!request_ok(m))
		return fail("bad request: op %u off %u size %u nsge %u",
			    m->op, m->off, m->size, m->nsge);
	if (m->op == OP_CHECK_WRITE) {
		r.bad = verify(m->off, m->seed, 0, m->size, GUARD_SRV);
		memset(t.big, GUARD_SRV, BIG_LEN);
	} else if (m->op == OP_FILL) {
		fill_pat(m->off, m->seed, 0, m->size);
	} else {
		memset(t.big, GUARD_SRV, BIG_LEN);
		if (post_data_recv(m))
			return -1;
	}
	r.status = r.bad != NO_BAD;
	if (post_recv_msg() || send_msg(&r))
		return -1;
	if (r.status)
		return fail("write of %u at %u: bad octet %lld", m->size,
			    m->off, (long long)r.bad);
	return m->op == OP_PREP_SEND ? check_send(m) : 0;
}

static int serve_loop(void)
{
	struct msg m;
	int n;

	for (n = 0;; n++) {
		if (wait_msg(&m))
			return -1;
		if (m.op == OP_DONE)
			break;
		if (serve_one(&m))
			return -1;
	}
	printf("# served %d requests\n", n);
	return 0;
}

/* Print async events until a QP error one; @need: fail without one. */
static int wait_async(int need)
{
	__u64 deadline = now_ms() + (need ? timeout_s * 1000 : 1000);
	struct ibv_context *ctx = t.id->verbs;
	struct ibv_async_event ev;
	enum ibv_event_type type;

	for (;;) {
		while (!ibv_get_async_event(ctx, &ev)) {
			type = ev.event_type;
			ibv_ack_async_event(&ev);
			printf("# async event %s\n", ibv_event_type_str(type));
			if (type == IBV_EVENT_QP_ACCESS_ERR ||
			    type == IBV_EVENT_QP_FATAL)
				return 0;
		}
		if (wait_fd(ctx->async_fd, deadline) <= 0)
			break;
	}
	return need ? fail("no QP access error or fatal event") : 0;
}

/* Modes in which the server serves requests until OP_DONE. */
static int serves(int mode)
{
	return mode == M_INTEGRITY || mode == M_READ_IRD || mode == M_SRQ ||
	       mode == M_BUSY_SOURCE;
}

/*
 * RFC 5040 5.4 (Solicited Event): the receive CQ armed for solicited
 * completions only. The client's plain Send completes without an event;
 * its solicited Send, 3 s later, raises one. Then the loop of requests.
 */
/* 1: an event of the receive CQ came by @deadline (others are acked). */
static int rcq_event(__u64 deadline)
{
	struct ibv_cq *ecq;
	void *ectx;

	for (;;) {
		while (!ibv_get_cq_event(t.cch, &ecq, &ectx)) {
			ibv_ack_cq_events(ecq, 1);
			if (ecq == t.rcq)
				return 1;
		}
		if (wait_fd(t.cch->fd, deadline) <= 0)
			return 0;
	}
}

static int serve_solicited(void)
{
	__u64 deadline = now_ms() + timeout_s * 1000;
	struct ibv_wc wc;
	int n = 0;

	rcq_event(now_ms());	/* what wait_wc() left: the send CQ's */
	if (post_recv_msg() || ibv_req_notify_cq(t.rcq, 1))
		return fail("arm solicited: %s", strerror(errno));
	while (!n) {
		n = ibv_poll_cq(t.rcq, 1, &wc);
		if (n < 0 || now_ms() >= deadline)
			return fail("no plain Send: %d", n);
		if (!n)
			usleep(1000);
	}
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != 16)
		return fail("plain Send: %s, %u octets",
			    ibv_wc_status_str(wc.status), wc.byte_len);
	if (rcq_event(now_ms()))
		return fail("a CQ event for a Send without Solicited Event");
	if (!rcq_event(now_ms() + timeout_s * 1000))
		return fail("no CQ event for the solicited Send");
	n = ibv_poll_cq(t.rcq, 1, &wc);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.byte_len != 17)
		return fail("solicited Send: %d completions, %u octets", n,
			    n == 1 ? wc.byte_len : 0);
	printf("# plain Send: no event; solicited Send: an event\n");
	return post_recv_msg();
}

/* The client's hello, then our buffer; no_recv: no receive after it. */
static int server_run(void)
{
	struct msg info = { .op = OP_INFO, .addr = (uintptr_t)t.big,
			    .rkey = t.big_mr->rkey, .size = BIG_LEN };
	struct msg m;

	if (wait_msg(&m))
		return -1;
	if (m.op != OP_HELLO)
		return fail("want the hello, got op %u", m.op);
	if (t.mode != M_NO_RECV && post_recv_msg())
		return -1;
	if (send_msg(&info))
		return -1;
	/* last_send: teardown() destroys QP and id, an abortive close */
	if (t.mode == M_LAST_SEND)
		return 0;
	if (t.mode == M_SOLICITED && serve_solicited())
		return -1;
	if (serves(t.mode) && serve_loop())
		return -1;
	if (!cm_event(RDMA_CM_EVENT_DISCONNECTED))
		return -1;
	if (serves(t.mode) || t.mode == M_SOLICITED)
		return 0;
	return wait_async(t.mode != M_NO_RECV);
}

static int server_accept(void)
{
	int depth = t.mode == M_READ_IRD ? IRD_SMALL : DEPTH;
	struct rdma_conn_param cp = { .responder_resources = depth,
				      .initiator_depth = depth };
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	if (t.mode == M_BAD_ACCESS)
		access &= ~IBV_ACCESS_REMOTE_WRITE;
	if (t.mode == M_BAD_READ_ACCESS)
		access &= ~IBV_ACCESS_REMOTE_READ;
	/* the hello may come right after the RTR: receive posted first */
	if (setup_res(t.id, access, GUARD_SRV) || post_recv_msg())
		return -1;
	if (rdma_accept(t.id, &cp))
		return fail("rdma_accept: %s", strerror(errno));
	return cm_event(RDMA_CM_EVENT_ESTABLISHED) ? 0 : -1;
}

static int server(const char *host, const char *port)
{
	struct sockaddr_storage ss;

	if (get_addr(host, port, &ss))
		return -1;
	if (rdma_create_id(t.ech, &t.listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(t.listen, (struct sockaddr *)&ss) ||
	    rdma_listen(t.listen, 1))
		return fail("listen: %s", strerror(errno));
	printf("# listening\n");
	t.id = cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!t.id)
		return -1;
	return server_accept() || server_run() ? -1 : 0;
}

/* Client: wait for the server's reply; it must say ok. */
static int wait_reply(void)
{
	struct msg r;

	if (wait_msg(&r))
		return -1;
	if (r.op != OP_REPLY)
		return fail("reply with op %u", r.op);
	if (r.status)
		return fail("server: bad octet %lld, %u octets",
			    (long long)r.bad, r.size);
	return 0;
}

static int request(const struct msg *m)
{
	return post_recv_msg() || send_msg(m) || wait_reply() ? -1 : 0;
}

static __u32 next_seed(void)
{
	static __u32 n;

	return ++n * 0x9e3779b9u;
}

/*
 * The source buffer is the application's again once the work request
 * completed: scribble over it before the peer checks what arrived
 * (zero-copy transmit must not complete while TCP still needs it).
 */
static void scribble(const struct ibv_sge *sg, int n)
{
	int k;

	for (k = 0; k < n; k++)
		memset((void *)(uintptr_t)sg[k].addr, 0xee, sg[k].length);
}

static int write_case(__u32 seed, __u32 off, __u32 size)
{
	struct msg m = { .op = OP_CHECK_WRITE, .seed = seed,
			 .off = off * 7 % PAGE, .size = size };
	struct ibv_sge sg = big_sge(off, size);
	struct ibv_wc wc;

	fill_pat(off, seed, 0, size);
	if (post_rdma(IBV_WR_RDMA_WRITE, &sg, t.peer.addr + m.off,
		      t.peer.rkey, WR_OP) || complete(t.scq, WR_OP, &wc))
		return -1;
	scribble(&sg, 1);
	return request(&m);
}

static int read_case(__u32 seed, __u32 off, __u32 size)
{
	struct msg m = { .op = OP_FILL, .seed = seed,
			 .off = READ_BASE + off * 7 % PAGE, .size = size };
	struct ibv_sge sg = big_sge(off, size);
	struct ibv_wc wc;
	__s64 bad;

	if (request(&m))
		return -1;
	memset(t.big, GUARD_CLI, off + size + 1);
	if (post_rdma(IBV_WR_RDMA_READ, &sg, t.peer.addr + m.off,
		      t.peer.rkey, WR_OP) || complete(t.scq, WR_OP, &wc))
		return -1;
	bad = verify(off, seed, 0, size, GUARD_CLI);
	if (bad != NO_BAD)
		return fail("read of %u: bad octet %lld", size, (long long)bad);
	return 0;
}

/* A Send of @size from @nsg pieces into @rsg receive SGEs. */
static int send_case(__u32 seed, __u32 off, __u32 size, int nsg,
		     int rsg, unsigned int flags)
{
	struct msg m = { .op = OP_PREP_SEND, .seed = seed,
			 .off = off * 3 % PAGE, .size = size, .nsge = rsg };
	__u32 done = 0, len;
	struct ibv_sge sg[3];
	struct ibv_wc wc;
	size_t pos;
	int k;

	if (request(&m))
		return -1;
	for (k = 0; k < nsg; k++) {
		len = k < nsg - 1 ? size / nsg : size - done;
		/* the pieces lie in reverse order, far apart */
		pos = off + (size_t)(nsg - 1 - k) * PIECE_STRIDE;
		fill_pat(pos, seed, done, len);
		sg[k] = big_sge(pos, len);
		done += len;
	}
	if (post_recv_msg() || post_send(sg, nsg, flags, WR_OP))
		return -1;
	if (flags & IBV_SEND_INLINE)	/* copied at post time */
		memset(t.big + off, 0, size);
	if (complete(t.scq, WR_OP, &wc))
		return -1;
	scribble(sg, nsg);
	return wait_reply();
}

enum kind { K_WRITE, K_SEND, K_SEND3, K_READ, K_COUNT };

static const char * const kind_name[K_COUNT] = {
	"write", "send", "send 3-SGE", "read",
};

static int one_case(enum kind k, __u32 seed, __u32 off, __u32 size)
{
	if (k == K_WRITE)
		return write_case(seed, off, size);
	if (k == K_READ)
		return read_case(seed, off, size);
	return send_case(seed, off, size, k == K_SEND3 ? 3 : 1, 1, 0);
}

/* Every size at every offset, for one kind of operation. */
static int run_kind(enum kind k)
{
	static const __u32 sizes[] = {
		1, 2, 3, 4, 5, 7, 8, 511, 512, 513, 1447, 1448, 1449, 4095,
		4096, 4097, 8191, 8192, 65535, 65536, 65537, 262144, 1048576,
	};
	static const __u32 offs[] = { 0, 1, 3, 511, 4093 };
	unsigned int s, o, n = 0;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (o = 0; o < ARRAY_SIZE(offs); o++) {
			if (offs[o] + sizes[s] > (4u << 20) ||
			    (k == K_SEND3 && sizes[s] < 3))
				continue;
			if (one_case(k, next_seed(), offs[o], sizes[s])) {
				printf("# %s of %u at offset %u failed\n",
				       kind_name[k], sizes[s], offs[o]);
				return -1;
			}
			n++;
		}
	}
	printf("%s: %u cases ok\n", kind_name[k], n);
	return 0;
}

/*
 * CHAIN Writes of mixed sizes in one post: the transmitter builds several
 * into one batch (qp_tx.c, tx_join_next()), their FPDUs packed into
 * segments. Every octet must land in place, and the completions come in
 * posting order.
 */
#define CHAIN 60
static int write_chain(__u32 seed)
{
	static const __u32 sizes[] = { 1, 9, 64, 300, 1000, 1447, 1448,
				       1449, 2000, 4096, 5000, 100 };
	struct msg m = { .op = OP_CHECK_WRITE, .seed = seed, .off = 5 };
	struct ibv_send_wr wr[CHAIN];
	struct ibv_sge sg[CHAIN];
	struct ibv_wc wc;
	__u32 pos = 0, len, src = 3;
	int k;

	for (k = 0; k < CHAIN; k++) {
		len = sizes[k % ARRAY_SIZE(sizes)];
		sg[k] = big_sge(src + pos, len);
		rdma_wr(&wr[k], IBV_WR_RDMA_WRITE, &sg[k],
			t.peer.addr + m.off + pos, t.peer.rkey, k);
		wr[k].next = k + 1 < CHAIN ? &wr[k + 1] : NULL;
		pos += len;
	}
	fill_pat(src, seed, 0, pos);
	if (post(wr))
		return -1;
	for (k = 0; k < CHAIN; k++)
		if (complete(t.scq, k, &wc))
			return -1;
	memset(t.big + src, 0xee, pos);
	m.size = pos;
	if (request(&m))
		return -1;
	printf("write chain: %d Writes, %u octets ok\n", CHAIN, pos);
	return 0;
}

static int integrity(void)
{
	static const __u32 inl[] = { 1, 2, 16, 63, 64 };
	unsigned int i;
	int k;

	for (k = 0; k < K_COUNT; k++)
		if (run_kind(k))
			return -1;
	if (write_chain(next_seed()))
		return -1;
	if (send_case(next_seed(), 3, 4097, 1, 2, 0) ||
	    send_case(next_seed(), 1, 65537, 3, 2, 0))
		return -1;
	printf("send 2-SGE receive: 2 cases ok\n");
	for (i = 0; i < ARRAY_SIZE(inl); i++)
		if (send_case(next_seed(), i, inl[i], 1, 1, IBV_SEND_INLINE))
			return -1;
	printf("send inline: %zu cases ok\n", ARRAY_SIZE(inl));
	return 0;
}

/* NREADS Reads of a page each, posted back to back, then checked. */
static int read_ird(void)
{
	struct msg m = { .op = OP_FILL, .seed = next_seed(),
			 .off = READ_BASE, .size = NREADS * PAGE };
	struct ibv_sge sg;
	struct ibv_wc wc;
	__s64 bad;
	int k;

	if (request(&m))
		return -1;
	memset(t.big, GUARD_CLI, m.size + 2);
	for (k = 0; k < NREADS; k++) {
		sg = big_sge(1 + k * PAGE, PAGE);
		if (post_rdma(IBV_WR_RDMA_READ, &sg,
			      t.peer.addr + m.off + k * PAGE, t.peer.rkey, k))
			return -1;
	}
	for (k = 0; k < NREADS; k++)
		if (complete(t.scq, k, &wc))
			return -1;
	bad = verify(1, m.seed, 0, m.size, GUARD_CLI);
	if (bad != NO_BAD)
		return fail("reads: bad octet %lld", (long long)bad);
	printf("reads: %d of %d octets back to back ok\n", NREADS, PAGE);
	return 0;
}

/*
 * The bad operation, then (after a Write) a valid Read: a Write may
 * complete before the peer sees it, the Read cannot complete before the
 * peer's error ends the stream, so the last WR must fail.
 */
static int client_bad(void)
{
	struct ibv_sge sg = big_sge(0, 64), probe = big_sge(PAGE, 8);
	enum ibv_wr_opcode op = IBV_WR_RDMA_WRITE;
	__u64 raddr = t.peer.addr;
	__u32 rkey = t.peer.rkey;
	struct ibv_send_wr wr[2];
	struct ibv_wc wc;
	int k, n = 2;

	if (t.mode == M_BAD_RKEY) {
		rkey ^= 0xff;
	} else if (t.mode == M_BAD_BOUNDS) {
		raddr += t.peer.size - 4;
		sg.length = 8;
	} else if (t.mode == M_BAD_READ_ACCESS) {
		op = IBV_WR_RDMA_READ;
		n = 1;
	} else if (t.mode == M_NO_RECV) {
		sg.length = 16;
		n = 1;
	}
	rdma_wr(&wr[0], t.mode == M_NO_RECV ? IBV_WR_SEND : op, &sg, raddr,
		rkey, 0);
	rdma_wr(&wr[1], IBV_WR_RDMA_READ, &probe, t.peer.addr, t.peer.rkey, 1);
	wr[0].next = n == 2 ? &wr[1] : NULL;
	if (post(wr))
		return -1;
	for (k = 0; k < n; k++) {
		if (wait_wc(t.scq, &wc))
			return -1;
		printf("# WR %llu: %s\n", (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	}
	if (t.mode != M_NO_RECV && wc.status == IBV_WC_SUCCESS)
		return fail("the last WR succeeded");
	if (!cm_event(RDMA_CM_EVENT_DISCONNECTED))
		return -1;
	return wait_async(0);
}

/* Every Send case of integrity, into the server's SRQ. */
static int srq_sends(void)
{
	if (run_kind(K_SEND) || run_kind(K_SEND3))
		return -1;
	if (send_case(next_seed(), 3, 4097, 1, 2, 0))
		return -1;
	printf("send 2-SGE receive from the SRQ: 1 case ok\n");
	return 0;
}

/* A plain Send of 16 octets, 3 s, a solicited one of 17 (serve_solicited). */
static int client_solicited(void)
{
	struct ibv_sge sg = big_sge(0, 16);
	struct ibv_wc wc;

	if (post_send(&sg, 1, 0, WR_OP) || complete(t.scq, WR_OP, &wc))
		return -1;
	sleep(3);
	sg.length = 17;
	if (post_send(&sg, 1, IBV_SEND_SOLICITED, WR_OP) ||
	    complete(t.scq, WR_OP, &wc))
		return -1;
	return 0;
}

/*
 * IBV_WR_LOCAL_INV: the siw ABI has no such user operation, libsiw
 * refuses it at post time (EINVAL). Then a Send with Invalidate of the
 * server's MR (libsiw takes the STag from wr.rdma.rkey): a registered
 * user MR may not be invalidated remotely, the server ends the stream
 * with a TERM (RFC 5040 5.3, 7.2); a Read behind it cannot complete.
 */
static int client_send_inv(void)
{
	struct ibv_sge sg = big_sge(0, 16), probe = big_sge(PAGE, 8);
	struct ibv_send_wr inv = { .opcode = IBV_WR_LOCAL_INV };
	struct ibv_send_wr wr[2], *bad;
	struct ibv_wc wc;
	int k, rc;

	inv.invalidate_rkey = t.big_mr->rkey;
	rc = ibv_post_send(t.id->qp, &inv, &bad);
	/* libsiw returns it negated, the verbs man page says positive */
	if (rc != EINVAL && rc != -EINVAL)
		return fail("IBV_WR_LOCAL_INV: %d, want EINVAL", rc);
	printf("# IBV_WR_LOCAL_INV refused at post time: EINVAL\n");
	wr[0] = (struct ibv_send_wr){ .wr_id = 0, .sg_list = &sg,
				      .num_sge = 1,
				      .opcode = IBV_WR_SEND_WITH_INV,
				      .send_flags = IBV_SEND_SOLICITED };
	wr[0].invalidate_rkey = t.peer.rkey;
	wr[0].wr.rdma.rkey = t.peer.rkey;
	rdma_wr(&wr[1], IBV_WR_RDMA_READ, &probe, t.peer.addr, t.peer.rkey, 1);
	wr[0].next = &wr[1];
	if (post(wr))
		return -1;
	for (k = 0; k < 2; k++) {
		if (wait_wc(t.scq, &wc))
			return -1;
		printf("# WR %llu: %s\n", (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	}
	if (wc.status == IBV_WC_SUCCESS)
		return fail("the Read behind the Send with Invalidate succeeded");
	if (!cm_event(RDMA_CM_EVENT_DISCONNECTED))
		return -1;
	return wait_async(0);
}

static atomic_int busy_stop;
static atomic_ulong busy_stores;	/* octets the writer changed */

/* busy_source: write into the source of the Writes until told to stop. */
static void *busy_writer(void *arg)
{
	__u8 *p;
	__u32 i = 0;

	(void)arg;
	while (!atomic_load_explicit(&busy_stop, memory_order_relaxed)) {
		p = t.big + i++ % BUSY_LEN;
		/* a store the compiler may not drop or merge */
		__atomic_store_n(p, (__u8)(*p + 0x3b), __ATOMIC_RELAXED);
	}
	atomic_store(&busy_stores, i);
	return NULL;
}

/*
 * Writes from a buffer that changes while it is sent: the transmitter
 * must compute each FPDU's CRC over the octets it puts on the wire, or
 * the peer sees a CRC error (RFC 5044 4.4) and ends the connection.
 */
static int busy_source(void)
{
	struct ibv_sge sg = big_sge(0, BUSY_LEN);
	pthread_t thread;
	struct ibv_wc wc;
	int k, rc = 0;

	atomic_store(&busy_stop, 0);
	if (pthread_create(&thread, NULL, busy_writer, NULL))
		return fail("pthread_create");
	for (k = 0; k < BUSY_WRITES && !rc; k++)
		rc = post_rdma(IBV_WR_RDMA_WRITE, &sg, t.peer.addr,
			       t.peer.rkey, WR_OP) ||
		     complete(t.scq, WR_OP, &wc);
	atomic_store(&busy_stop, 1);
	pthread_join(thread, NULL);
	if (rc)
		return -1;
	/* the writer ran beside the Writes, or the case proved nothing */
	if (!atomic_load(&busy_stores))
		return fail("the writer thread never ran");
	printf("busy source: %d Writes of %u ok, %lu stores beside them\n",
	       BUSY_WRITES, BUSY_LEN, atomic_load(&busy_stores));
	/* the connection still carries data, exact (the server resets its
	 * buffer for a Send; the Writes left it undefined)
	 */
	if (send_case(next_seed(), 3, 65537, 1, 1, 0))
		return -1;
	printf("send after the busy source: ok\n");
	return 0;
}

static int client_run(void)
{
	struct msg m = { .op = OP_DONE };

	if (wait_msg(&t.peer))
		return -1;
	if (t.peer.op != OP_INFO)
		return fail("want the buffer info, got op %u", t.peer.op);
	printf("# server buffer %#llx rkey %#x length %u\n",
	       (unsigned long long)t.peer.addr, t.peer.rkey, t.peer.size);
	if (t.mode == M_LAST_SEND)
		return cm_event(RDMA_CM_EVENT_DISCONNECTED) ? 0 : -1;
	if (t.mode == M_SEND_INV)
		return client_send_inv();
	if (t.mode == M_SOLICITED && client_solicited())
		return -1;
	if (!serves(t.mode) && t.mode != M_SOLICITED)
		return client_bad();
	if (t.mode == M_INTEGRITY ? integrity() :
	    t.mode == M_READ_IRD ? read_ird() :
	    t.mode == M_SRQ ? srq_sends() :
	    t.mode == M_BUSY_SOURCE ? busy_source() : 0)
		return -1;
	if (send_msg(&m))
		return -1;
	if (rdma_disconnect(t.id))
		return fail("rdma_disconnect: %s", strerror(errno));
	return cm_event(RDMA_CM_EVENT_DISCONNECTED) ? 0 : -1;
}

static int client(const char *host, const char *port)
{
	struct rdma_conn_param cp = {
		.responder_resources = DEPTH,
		.initiator_depth = t.mode == M_READ_IRD ? IRD_SMALL : DEPTH,
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	struct msg hello = { .op = OP_HELLO };
	struct sockaddr_storage ss;

	if (get_addr(host, port, &ss))
		return -1;
	if (rdma_create_id(t.ech, &t.id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(t.id, NULL, (struct sockaddr *)&ss, 2000))
		return fail("resolve address: %s", strerror(errno));
	if (!cm_event(RDMA_CM_EVENT_ADDR_RESOLVED))
		return -1;
	if (rdma_resolve_route(t.id, 2000))
		return fail("resolve route: %s", strerror(errno));
	if (!cm_event(RDMA_CM_EVENT_ROUTE_RESOLVED) ||
	    setup_res(t.id, access, GUARD_CLI) || post_recv_msg())
		return -1;
	if (rdma_connect(t.id, &cp))
		return fail("rdma_connect: %s", strerror(errno));
	/* RFC 5044 without peer-to-peer: the initiator sends first */
	if (!cm_event(RDMA_CM_EVENT_ESTABLISHED) || send_msg(&hello))
		return -1;
	return client_run();
}

int main(int argc, char **argv)
{
	int srv = argc == 5 && !strcmp(argv[1], "server");
	const char *env = getenv("IWTCP_SLOW");
	int slow = env ? atoi(env) : 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (slow > 1)
		timeout_s *= slow;
	for (t.mode = 0; argc == 5 && t.mode < M_COUNT; t.mode++)
		if (!strcmp(argv[4], mode_name[t.mode]))
			break;
	if (argc != 5 || t.mode == M_COUNT ||
	    (!srv && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: dp_test server|client ADDR PORT MODE\n");
		return 2;
	}
	t.ech = rdma_create_event_channel();
	if (!t.ech || set_nonblock(t.ech->fd))
		fail("event channel: %s", strerror(errno));
	else
		(srv ? server : client)(argv[2], argv[3]);
	teardown();
	if (failures)
		printf("dp_test %s %s: FAIL %s\n", argv[1], argv[4],
		       reason[0] ? reason : "teardown");
	else
		printf("dp_test %s %s: ok\n", argv[1], argv[4]);
	return failures ? 1 : 0;
}
