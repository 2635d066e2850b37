// SPDX-License-Identifier: GPL-2.0
/*
 * victim: the rdma_cm end of the raw-peer attacks of wire.sh
 * (selftests/mpa_evil.py plays the peer) and fuzz.sh (wire_fuzz.c).
 *
 *   victim ADDR PORT SECONDS [connect]
 *
 * Accepts one connection on ADDR PORT, or with "connect" makes one to
 * it (IRD and ORD 4; an initiator's failed connect ends it like a
 * DISCONNECTED). Creates PD, CQ and QP, and only
 * then, as rping does, the MRs: a 4 MiB data buffer filled with 0xa5 with
 * remote read and write, 16 receive buffers of 4 KiB and the INFO buffer.
 * After the first receive completes it sends INFO (magic 0x1badc0de, pad,
 * addr u64, rkey u32, len u32, little endian), then prints every
 * completion ("# wc ..."; "# recv TEXT" for a received message), async
 * event ("# async event NAME") and CM event ("# cm event NAME status N")
 * until DISCONNECTED or SECONDS pass, cleans up and prints "victim: done".
 *
 * VICTIM_DEREG=N deregisters the data MR N seconds after INFO, with the
 * connection up, and prints "# dereg_mr returned RC after S.S s".
 * VICTIM_IRD and VICTIM_ORD set its responder_resources and
 * initiator_depth (4 each by default; an NFS client asks ORD 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <rdma/rdma_cma.h>

#include "victim.h"

#define BIG_LEN (4u << 20)
#define NRECV 16
#define RECV_LEN 4096
#define WR_INFO 1000
#define DEPTH 4

static struct {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_mr *big_mr;
	struct ibv_mr *recv_mr;
	struct ibv_mr *info_mr;
	unsigned char *big;
	char *recv_buf;
	struct info info;
} v;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	printf("victim: FAIL %s: %s\n", what, strerror(errno));
	exit(1);
}

static void nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
}

static void post_recv(int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(v.recv_buf + i * RECV_LEN),
		.length = RECV_LEN,
		.lkey = v.recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(v.id->qp, &wr, &bad))
		die("post_recv");
}

static void send_info(void)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&v.info,
		.length = sizeof(v.info),
		.lkey = v.info_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_INFO,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	v.info.magic = INFO_MAGIC;
	v.info.addr = (uintptr_t)v.big;
	v.info.rkey = v.big_mr->rkey;
	v.info.len = BIG_LEN;
	if (ibv_post_send(v.id->qp, &wr, &bad))
		die("post_send");
	printf("# info sent addr %#llx rkey %#x len %u\n",
	       (unsigned long long)v.info.addr, v.info.rkey, v.info.len);
}

/* The next CM event, which must be @want; dies otherwise. */
static struct rdma_cm_id *expect_event(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_get_cm_event(v.ech, &ev))
		die("get_cm_event");
	printf("# cm event %s status %d\n", rdma_event_str(ev->event),
	       ev->status);
	if (ev->event != want) {
		errno = ev->status < 0 ? -ev->status : ev->status;
		die(rdma_event_str(want));
	}
	id = ev->id;
	rdma_ack_cm_event(ev);
	return id;
}

/* PD, CQ, QP, then the MRs, as rping does; the receives posted. */
static void setup(void)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
	};
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ;
	int i;

	v.pd = ibv_alloc_pd(v.id->verbs);
	v.cch = v.pd ? ibv_create_comp_channel(v.id->verbs) : NULL;
	v.cq = v.cch ? ibv_create_cq(v.id->verbs, 256, NULL, v.cch, 0) : NULL;
	if (!v.cq)
		die("pd/cq");
	qa.send_cq = v.cq;
	qa.recv_cq = v.cq;
	if (rdma_create_qp(v.id, v.pd, &qa))
		die("create_qp");
	/* MRs after the QP, as rping does: uverbs cleanup frees them first */
	v.big = aligned_alloc(4096, BIG_LEN);
	v.recv_buf = aligned_alloc(4096, NRECV * RECV_LEN);
	if (!v.big || !v.recv_buf)
		die("malloc");
	memset(v.big, 0xa5, BIG_LEN);
	v.big_mr = ibv_reg_mr(v.pd, v.big, BIG_LEN, rw);
	v.recv_mr = ibv_reg_mr(v.pd, v.recv_buf, NRECV * RECV_LEN,
			       IBV_ACCESS_LOCAL_WRITE);
	v.info_mr = ibv_reg_mr(v.pd, &v.info, sizeof(v.info), 0);
	if (!v.big_mr || !v.recv_mr || !v.info_mr)
		die("reg_mr");
	for (i = 0; i < NRECV; i++)
		post_recv(i);
}

static struct rdma_conn_param conn_param = {
	.responder_resources = DEPTH,
	.initiator_depth = DEPTH,
};

/* The address to listen on or connect to; the event channel made. */
static struct addrinfo *channel(const char *addr, const char *port)
{
	struct addrinfo *ai;

	if (getaddrinfo(addr, port, NULL, &ai))
		die("getaddrinfo");
	v.ech = rdma_create_event_channel();
	if (!v.ech)
		die("rdma_create_event_channel");
	return ai;
}

/* Listen, take one connection request, build the QP and MRs, accept. */
static void accept_one(const char *addr, const char *port)
{
	struct addrinfo *ai = channel(addr, port);

	if (rdma_create_id(v.ech, &v.listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(v.listen, ai->ai_addr) || rdma_listen(v.listen, 4))
		die("listen");
	freeaddrinfo(ai);
	printf("# listening pid %d\n", (int)getpid());
	v.id = expect_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	/* One connection only: a later one must not land on a dying victim. */
	rdma_destroy_id(v.listen);
	v.listen = NULL;
	setup();
	if (rdma_accept(v.id, &conn_param))
		die("accept");
}

/* Resolve, build the QP and MRs, connect; ESTABLISHED comes later. */
static void connect_one(const char *addr, const char *port)
{
	struct addrinfo *ai = channel(addr, port);

	if (rdma_create_id(v.ech, &v.id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(v.id, NULL, ai->ai_addr, 2000))
		die("resolve_addr");
	freeaddrinfo(ai);
	expect_event(RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(v.id, 2000))
		die("resolve_route");
	expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED);
	setup();
	if (rdma_connect(v.id, &conn_param))
		die("connect");
}

/* Arm the CQ and make every event source non-blocking. */
static void arm(void)
{
	if (ibv_req_notify_cq(v.cq, 0))
		die("req_notify_cq");
	nonblock(v.ech->fd);
	nonblock(v.cch->fd);
	nonblock(v.id->verbs->async_fd);
}

/* Print pending CM events; true once the connection ended or failed. */
static int cm_events(void)
{
	struct rdma_cm_event *ev;
	int done = 0;

	while (!rdma_get_cm_event(v.ech, &ev)) {
		printf("# cm event %s status %d\n",
		       rdma_event_str(ev->event), ev->status);
		if (ev->event != RDMA_CM_EVENT_ESTABLISHED)
			done = 1;
		rdma_ack_cm_event(ev);
	}
	return done;
}

static void async_events(void)
{
	struct ibv_async_event ae;

	while (!ibv_get_async_event(v.id->verbs, &ae)) {
		printf("# async event %s\n",
		       ibv_event_type_str(ae.event_type));
		ibv_ack_async_event(&ae);
	}
}

/* Print completions; true for each successful receive. */
static int completions(void)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int recvs = 0;
	void *ctx;

	if (!ibv_get_cq_event(v.cch, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(cq, 0);
	}
	while (ibv_poll_cq(v.cq, 1, &wc) == 1) {
		printf("# wc id %llu opcode %d status %s len %u\n",
		       (unsigned long long)wc.wr_id, wc.opcode,
		       ibv_wc_status_str(wc.status), wc.byte_len);
		if (wc.opcode != IBV_WC_RECV || wc.status != IBV_WC_SUCCESS)
			continue;
		printf("# recv %.*s\n", wc.byte_len > 64 ? 64 : (int)wc.byte_len,
		       v.recv_buf + wc.wr_id * RECV_LEN);
		recvs++;
	}
	return recvs;
}

static void dereg_big(void)
{
	double t0 = now();
	int rv;

	printf("# dereg_mr of the data MR\n");
	rv = ibv_dereg_mr(v.big_mr);
	printf("# dereg_mr returned %d after %.1f s\n", rv, now() - t0);
	v.big_mr = NULL;
}

static void cleanup(void)
{
	rdma_disconnect(v.id);
	rdma_destroy_qp(v.id);
	if (v.big_mr)
		ibv_dereg_mr(v.big_mr);
	ibv_dereg_mr(v.recv_mr);
	ibv_dereg_mr(v.info_mr);
	ibv_destroy_cq(v.cq);
	ibv_destroy_comp_channel(v.cch);
	ibv_dealloc_pd(v.pd);
	rdma_destroy_id(v.id);
	rdma_destroy_event_channel(v.ech);
	free(v.big);
	free(v.recv_buf);
}

int main(int argc, char **argv)
{
	const char *dereg = getenv("VICTIM_DEREG");
	double end, dereg_at = 0;
	int sent = 0, done = 0;

	if (argc != 4 && (argc != 5 || strcmp(argv[4], "connect"))) {
		fprintf(stderr, "usage: victim ADDR PORT SECONDS [connect]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("VICTIM_IRD"))
		conn_param.responder_resources = atoi(getenv("VICTIM_IRD"));
	if (getenv("VICTIM_ORD"))
		conn_param.initiator_depth = atoi(getenv("VICTIM_ORD"));
	if (argc == 5)
		connect_one(argv[1], argv[2]);
	else
		accept_one(argv[1], argv[2]);
	arm();
	end = now() + atof(argv[3]);
	while (!done && now() < end) {
		struct pollfd p[3] = {
			{ .fd = v.ech->fd, .events = POLLIN },
			{ .fd = v.cch->fd, .events = POLLIN },
			{ .fd = v.id->verbs->async_fd, .events = POLLIN },
		};

		poll(p, 3, 100);
		done = cm_events();
		async_events();
		if (completions() && !sent) {
			send_info();
			sent = 1;
			if (dereg)
				dereg_at = now() + atof(dereg);
		}
		if (dereg_at && now() > dereg_at) {
			dereg_big();
			dereg_at = 0;
		}
	}
	/* what completed with the disconnect */
	completions();
	async_events();
	if (!done)
		printf("# no DISCONNECTED within %s s\n", argv[3]);
	cleanup();
	printf("victim: done\n");
	return 0;
}
