// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * late_listen.so: an LD_PRELOAD library that makes every rdma_listen() of
 * a process after its first wait LATE_LISTEN_MS milliseconds (default
 * 2500) before it listens.
 *
 * perftest's -R server listens twice on its port: once for the exchange
 * of parameters, closed when that connection is up, and once more for
 * the data QP, after the two sides shook hands. Its client connects the
 * data QP right after the handshake, so a server late to its second
 * listen makes the client's first SYN find no listener: the race that
 * no_refusals() of selftests/lib.sh takes out of the suites, made certain
 * here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <rdma/rdma_cma.h>

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	static int (*real_listen)(struct rdma_cm_id *id, int backlog);
	static int calls;
	const char *ms = getenv("LATE_LISTEN_MS");
	long wait_ms = ms ? atol(ms) : 2500;
	struct timespec ts = {
		.tv_sec = wait_ms / 1000,
		.tv_nsec = wait_ms % 1000 * 1000000,
	};

	if (!real_listen)
		real_listen = dlsym(RTLD_NEXT, "rdma_listen");
	if (!real_listen)
		return -1;
	if (calls++)
		nanosleep(&ts, NULL);
	return real_listen(id, backlog);
}
