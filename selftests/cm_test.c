// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cm_test: one rdma_cm connection over iwtcp, checked step by step.
 *
 *   cm_test server ADDR PORT [accept|reject|refuse] [IRD ORD [COUNT]]
 *   cm_test client ADDR PORT EXPECT [IRD ORD [COUNT]]
 *
 * The server listens on ADDR:PORT, takes one connection request, checks
 * the client's private data and either accepts (with private data
 * "welcome", its IRD and ORD) and waits for the disconnect, or rejects
 * (private data "go away"); "refuse" expects its accept to fail (the
 * MPA negotiation refuses the peer). The client connects with private data
 * "hello" and its IRD/ORD, expects EXPECT (established, rejected or
 * unreachable), checks the peer's private data, and disconnects.
 * Both print what they saw as "# ..." lines, including the peer's IRD
 * and ORD, and exit 0 when everything matched. With COUNT, the server
 * takes COUNT connections one after the other and the client makes as
 * many (a connect/disconnect cycle each); only the first prints events.
 * CM_TEST_HOLD=SECONDS: the client prints "# holding" once established
 * and waits that long before it disconnects. CM_TEST_AFONLY=1: the
 * server's listener takes its own address family alone (AF_ONLY).
 * CM_TEST_ACCEPT_DELAY=SECONDS: the server waits that long between the
 * request and its accept (a peer that leaves has then left).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "check.h"

/* After the first connection of a series, print only failures. */
static int quiet;

static struct rdma_event_channel *ch;

/* Next event; the caller acks it. NULL on error. */
static struct rdma_cm_event *next_event(void)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return NULL;
	}
	if (!quiet)
		printf("# event %s status %d\n", rdma_event_str(ev->event),
		       ev->status);
	return ev;
}

static int expect_event(enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = next_event();
	int ok = ev && ev->event == type;

	CHECK(ok, "want %s, got %s status %d", rdma_event_str(type),
	      ev ? rdma_event_str(ev->event) : "none", ev ? ev->status : 0);
	if (ev)
		rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static struct ibv_qp *make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	qa.send_cq = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	qa.recv_cq = qa.send_cq;
	if (!qa.send_cq || rdma_create_qp(id, NULL, &qa))
		return NULL;
	return id->qp;
}

static void free_qp(struct rdma_cm_id *id)
{
	struct ibv_cq *cq = id->qp ? id->qp->send_cq : NULL;

	if (id->qp)
		rdma_destroy_qp(id);
	if (cq)
		ibv_destroy_cq(cq);
}

static int get_addr(const char *host, const char *port,
		    struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;

	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static void check_pdata(const void *pd, int len, const char *want)
{
	int n = strlen(want) + 1;

	CHECK(len >= n && pd && !memcmp(pd, want, n),
	      "private data: want \"%s\" (%d octets), got %d octets", want,
	      n, len);
}

/* Answer one connection request: accept, reject or expect a refusal. */
static void on_request(struct rdma_cm_event *ev, int reject, int refuse,
		       int ird, int ord)
{
	struct rdma_conn_param cp = {
		.private_data = reject ? "go away" : "welcome",
		.private_data_len = 8,
		.responder_resources = ird,
		.initiator_depth = ord,
	};
	const char *delay = getenv("CM_TEST_ACCEPT_DELAY");
	struct rdma_cm_id *id = ev->id;

	/* rdma_cm: initiator_depth = the peer's IRD, responder_resources =
	 * the peer's ORD (ready to use as our own limits).
	 */
	if (!quiet)
		printf("# peer IRD %u ORD %u\n", ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
	check_pdata(ev->param.conn.private_data,
		    ev->param.conn.private_data_len, "hello");
	if (reject) {
		CHECK(!rdma_reject(id, cp.private_data, cp.private_data_len),
		      "reject: %s", strerror(errno));
		return;
	}
	CHECK(make_qp(id), "QP: %s", strerror(errno));
	if (delay) {
		printf("# accepting in %s s\n", delay);
		fflush(stdout);
		sleep(atoi(delay));
	}
	if (rdma_accept(id, &cp)) {
		/* A negotiation failure (RFC 6581 9) fails the accept. */
		printf("# accept: %s\n", strerror(errno));
		CHECK(refuse, "accept: %s", strerror(errno));
	} else {
		CHECK(!refuse, "accept succeeded");
	}
}

/*
 * Serve @count connections. Events of different connections interleave
 * (a client may connect again before our DISCONNECTED of the last one
 * arrives), so this is an event loop; a connection is done when it was
 * rejected, refused, or established and then disconnected.
 */
static void serve(int reject, int refuse, int ird, int ord, int count)
{
	int done = 0;

	while (done < count && !failures) {
		struct rdma_cm_event *ev = next_event();
		struct rdma_cm_id *id;
		int type;

		if (!ev)
			break;
		id = ev->id;
		type = ev->event;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
			on_request(ev, reject, refuse, ird, ord);
		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!reject && !refuse)
				break;
			free_qp(id);
			rdma_destroy_id(id);
			done++;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			free_qp(id);
			rdma_destroy_id(id);
			done++;
			quiet = 1;
			break;
		default:
			CHECK(0, "unexpected %s", rdma_event_str(type));
		}
	}
	quiet = 0;
	printf("# served %d\n", done);
}

static int server(const char *host, const char *port, int reject,
		  int refuse, int ird, int ord, int count)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;

	if (get_addr(host, port, &ss) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("listener set-up");
		return 1;
	}
	if (getenv("CM_TEST_AFONLY")) {
		int one = 1;

		/* a listener on :: for IPv6 peers alone (rdma_cm's AF_ONLY) */
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				    &one, sizeof(one))) {
			perror("AF_ONLY");
			return 1;
		}
	}
	if (rdma_bind_addr(id, (struct sockaddr *)&ss) || rdma_listen(id, 64)) {
		perror("listen");
		return 1;
	}
	printf("# listening\n");
	fflush(stdout);
	serve(reject, refuse, ird, ord, count);
	rdma_destroy_id(id);
	return failures ? 1 : 0;
}

static int client_result(struct rdma_cm_id *id, const char *expect)
{
	struct rdma_cm_event *ev = next_event();
	int established;

	if (!ev)
		return -1;
	established = ev->event == RDMA_CM_EVENT_ESTABLISHED;
	if (!strcmp(expect, "established")) {
		CHECK(established, "want ESTABLISHED, got %s status %d",
		      rdma_event_str(ev->event), ev->status);
		printf("# peer IRD %u ORD %u\n",
		       ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
		check_pdata(ev->param.conn.private_data,
			    ev->param.conn.private_data_len, "welcome");
	} else if (!strcmp(expect, "rejected")) {
		CHECK(ev->event == RDMA_CM_EVENT_REJECTED, "want REJECTED");
		check_pdata(ev->param.conn.private_data,
			    ev->param.conn.private_data_len, "go away");
	} else {
		CHECK(ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		      ev->event == RDMA_CM_EVENT_CONNECT_ERROR ||
		      ev->event == RDMA_CM_EVENT_REJECTED,
		      "want no connection");
	}
	rdma_ack_cm_event(ev);
	if (established && getenv("CM_TEST_HOLD")) {
		/* the connection stays up for a look at it (restrack.sh) */
		printf("# holding\n");
		fflush(stdout);
		sleep(atoi(getenv("CM_TEST_HOLD")));
	}
	if (established) {
		CHECK(!rdma_disconnect(id), "disconnect: %s", strerror(errno));
		expect_event(RDMA_CM_EVENT_DISCONNECTED);
	}
	return 0;
}

static int client_once(const char *host, const char *port,
		       const char *expect, int ird, int ord)
{
	struct rdma_conn_param cp = {
		.private_data = "hello",
		.private_data_len = 6,
		.responder_resources = ird,
		.initiator_depth = ord,
		.retry_count = 1,
	};
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;

	if (get_addr(host, port, &ss) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("client set-up");
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 2000) ||
	    expect_event(RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(id, 2000) ||
	    expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		CHECK(0, "resolve: %s", strerror(errno));
		return 1;
	}
	CHECK(make_qp(id), "QP: %s", strerror(errno));
	CHECK(!rdma_connect(id, &cp), "connect: %s", strerror(errno));
	if (!failures)
		client_result(id, expect);
	free_qp(id);
	rdma_destroy_id(id);
	return failures ? 1 : 0;
}

static int client(const char *host, const char *port, const char *expect,
		  int ird, int ord, int count)
{
	int i;

	for (i = 0; i < count && !failures; i++, quiet = 1)
		client_once(host, port, expect, ird, ord);
	quiet = 0;
	printf("# cycles %d\n", i);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rv;

	if (argc < 4)
		return 2;
	ch = rdma_create_event_channel();
	if (!ch)
		return 1;
	if (!strcmp(argv[1], "server"))
		rv = server(argv[2], argv[3],
			    argc > 4 && !strcmp(argv[4], "reject"),
			    argc > 4 && !strcmp(argv[4], "refuse"),
			    argc > 6 ? atoi(argv[5]) : 8,
			    argc > 6 ? atoi(argv[6]) : 8,
			    argc > 7 ? atoi(argv[7]) : 1);
	else
		rv = client(argv[2], argv[3], argc > 4 ? argv[4] : "established",
			    argc > 6 ? atoi(argv[5]) : 8,
			    argc > 6 ? atoi(argv[6]) : 8,
			    argc > 7 ? atoi(argv[7]) : 1);
	rdma_destroy_event_channel(ch);
	printf("cm_test %s: %s (%d checks)\n", argv[1], rv ? "FAILED" : "ok",
	       checks);
	return rv;
}
