// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cm_qpn: rdma_connect() names a QP by number; check what iwtcp's iw_cm
 * provider does with that number. PEER_IPV4 has no listener on the port
 * used, so every connection that starts ends refused.
 *
 *   cm_qpn PEER_IPV4 SECONDS
 *
 * 1. The QP of another process: iw_get_qp refuses it (EINVAL).
 * 2. The caller's own QP: the connect starts and ends refused.
 * 3. For SECONDS: a thread creates and destroys QPs while the main thread
 *    connects with their numbers (the lookup races the destroy, and a
 *    destroy races a connection being set up). Every attempt must end in
 *    EINVAL or in a refused connection; the kernel log must stay clean
 *    (the guest run fails otherwise).
 * Exit status 0 when all held.
 */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>

static atomic_int stop;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static struct ibv_qp *make_qp(void)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &qa);
}

static int wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type t)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(ch, &ev))
		return -1;
	ok = ev->event == t;
	if (!ok)
		fprintf(stderr, "event %s, want %s\n", rdma_event_str(ev->event),
			rdma_event_str(t));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static struct rdma_cm_id *resolved_id(struct rdma_event_channel *ch,
				      const char *peer)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(7471) };
	struct rdma_cm_id *id;

	inet_pton(AF_INET, peer, &dst.sin_addr);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(id, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

/*
 * Connect a fresh id with QP number @qpn: the errno of rdma_connect(), or
 * 0 when it started and then ended without a connection, or -1 when it
 * ended any other way.
 */
static int connect_errno(struct rdma_event_channel *ch, const char *peer,
			 unsigned int qpn)
{
	struct rdma_conn_param cp = {
		.qp_num = qpn,
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int rv;

	id = resolved_id(ch, peer);
	if (!id)
		return -1;
	if (rdma_connect(id, &cp)) {
		rv = errno;
	} else if (rdma_get_cm_event(ch, &ev)) {
		rv = -1;
	} else {
		rv = ev->event == RDMA_CM_EVENT_REJECTED ||
		     ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		     ev->event == RDMA_CM_EVENT_CONNECT_ERROR ? 0 : -1;
		if (rv)
			fprintf(stderr, "connect: %s\n",
				rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	return rv;
}

/* A child process that owns one QP; its number comes back on a pipe. */
static pid_t foreign_qp(struct ibv_context *verbs, unsigned int *qpn)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (!pid) {
		struct ibv_qp *qp;

		/* Its own context: a forked child may not use the parent's. */
		verbs = ibv_open_device(verbs->device);
		pd = verbs ? ibv_alloc_pd(verbs) : NULL;
		cq = pd ? ibv_create_cq(verbs, 4, NULL, NULL, 0) : NULL;
		qp = cq ? make_qp() : NULL;
		*qpn = qp ? qp->qp_num : 0;
		if (write(fd[1], qpn, sizeof(*qpn)) != sizeof(*qpn))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], qpn, sizeof(*qpn)) != sizeof(*qpn))
		*qpn = 0;
	close(fd[0]);
	return pid;
}

static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct ibv_qp *qp = make_qp();

		if (qp)
			ibv_destroy_qp(qp);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	long tries = 0, einval = 0, refused = 0, other = 0;
	struct rdma_cm_id *id;
	unsigned int foreign;
	struct ibv_qp *own;
	pthread_t thread;
	int fails = 0, e;
	time_t end;
	pid_t child;

	if (argc < 3 || !ch)
		return 2;
	id = resolved_id(ch, argv[1]);
	if (!id) {
		perror("resolve");
		return 1;
	}
	pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	own = cq ? make_qp() : NULL;
	child = foreign_qp(id->verbs, &foreign);
	if (!own || child < 0 || !foreign) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	e = connect_errno(ch, argv[1], foreign);
	printf("# QP %u of another process: %s\n", foreign, strerror(e));
	fails += e != EINVAL;
	e = connect_errno(ch, argv[1], own->qp_num);
	printf("# own QP %u: %s\n", own->qp_num,
	       e ? strerror(e) : "connection started, refused");
	fails += e != 0;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	pthread_create(&thread, NULL, churn, NULL);
	for (end = time(NULL) + atoi(argv[2]); time(NULL) < end; tries++) {
		e = connect_errno(ch, argv[1], own->qp_num + 1 + tries % 4);
		if (e == EINVAL)
			einval++;
		else if (!e)
			refused++;
		else
			other++;
	}
	atomic_store(&stop, 1);
	pthread_join(thread, NULL);
	printf("# race: %ld connects, %ld EINVAL, %ld refused, %ld other\n",
	       tries, einval, refused, other);
	fails += other != 0 || refused == 0;
	ibv_destroy_qp(own);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return fails ? 1 : 0;
}
