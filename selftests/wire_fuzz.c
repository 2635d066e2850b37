// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * wire_fuzz: a raw iWARP peer that completes a valid MPA start-up with
 * iwtcp (selftests/victim.c) and then sends mostly valid RDMA Writes into
 * the victim's MR (1 to 32 FPDUs at a time), with mutated frames among
 * them: DDP/RDMAP header fields, opcodes, STags, offsets, queue numbers,
 * MSNs, Read Requests, TERMs, ULPDU_Length, CRC, markers, truncations and
 * garbage, every send split over TCP segments at random points; and, on
 * some connections, a mutated MPA Request (or Reply). Two roles: the
 * initiator, connecting to an iwtcp responder (victim.c listening), and
 * with "listen" the responder, taking connections of an iwtcp initiator
 * (victim.c connect) on HOST PORT. It frames with the driver's
 * own pure code (mpa.c, fpdu.c, ddp.c, rdmap.c, built with the unit
 * tests' shim), so a valid frame is what iwtcp itself would send.
 *
 *   wire_fuzz HOST PORT SEED FRAMES [crc] [markers] [valid=V] [conn=N]
 *             [listen]
 *
 * Runs connections until FRAMES frames (FPDUs and start-up frames) are
 * sent; up to V (default 2000) valid Writes precede each connection's
 * mutated frame. Connection i draws from its own generator, seeded from SEED and
 * i, so "conn=N" replays connection N alone, byte for byte (the STag the
 * victim hands out may differ). A connection ends after its mutated
 * frame: the victim closes it (TERM, then FIN or RST), or wire_fuzz does
 * after 3 s. A connection whose clean start-up fails is tried again,
 * twice (the victim may still be starting). Each connection's line to
 * stdout says what it sent:
 * "conn N seed 0x... valid=V frames F mutation NAME end END"; the last
 * line is
 * "RESULT frames F connections C mutated M". Exit status 0 unless the
 * start-up of a connection without mutated start-up failed three times,
 * which means the victim stopped serving, or the victim closed a
 * connection before its mutated frame, which means it refused a valid
 * one. Every socket call times out after 10 s.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mpa.h"
#include "fpdu.h"
#include "ddp.h"
#include "rdmap.h"
#include "victim.h"

#define BUF 9000
#define MAX_WRITE 512

static u64 rng;

/* splitmix64: small, fast, and the same on every machine */
static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 below(u32 n)
{
	return n ? rnd() % n : 0;
}

struct conn {
	int fd;
	struct iwtcp_fpdu_stream tx;
	struct iwtcp_fpdu_stream rx;
	struct info info;
	u32 send_msn;
	u32 rr_msn;
	unsigned long frames;
	size_t have;		/* octets received, not parsed, in rxb */
	size_t out_len;		/* valid FPDUs gathered in outb */
	u32 out_frames;		/* how many */
	u32 out_target;		/* how many go in one send_split() */
};

static u8 rxb[1 << 16];
/* valid FPDUs waiting to go out together (BATCH_MAX with room for one) */
#define BATCH_MAX 65536
static u8 outb[BATCH_MAX + BUF];
/* the listening socket of the responder role, else -1 */
static int listen_fd = -1;

static int want_crc, want_markers;
/* valid Writes before a connection's mutated frame: 0 to this, at random */
static u32 valid_per_conn = 2000;

/* Send @len octets in 1 to 4 pieces cut at random, each its own segment. */
static int send_split(struct conn *c, const u8 *p, size_t len)
{
	int pieces = 1 + below(4);

	while (len) {
		size_t n = pieces > 1 ? 1 + below(len) : len;
		ssize_t rv = send(c->fd, p, n, MSG_NOSIGNAL);

		if (rv <= 0)
			return -1;
		p += rv;
		len -= rv;
		pieces--;
	}
	return 0;
}

static int recv_exact(int fd, void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t rv = recv(fd, p, len, 0);

		if (rv <= 0)
			return -1;
		p += rv;
		len -= rv;
	}
	return 0;
}

/* One FPDU around @ulpdu, split over segments; the frame is counted. */
static int send_fpdu(struct conn *c, const u8 *ulpdu, u32 len)
{
	u8 wire[BUF];
	int n = iwtcp_fpdu_build(&c->tx, ulpdu, len, wire, sizeof(wire));

	if (n < 0)
		return -1;
	c->frames++;
	return send_split(c, wire, n);
}

static int ulpdu_write(struct conn *c, u8 *buf, u32 len, u64 to)
{
	struct iwtcp_ddp_hdr h = {
		.tagged = true,
		.last = true,
		.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_WRITE),
		.stag = c->info.rkey,
		.to = to,
	};
	int n = iwtcp_ddp_build_tagged(&h, buf, BUF);
	u32 i;

	if (n < 0)
		return n;
	for (i = 0; i < len; i++)
		buf[n + i] = rnd();
	return n + len;
}

static int ulpdu_send(struct conn *c, u8 *buf, const void *data, u32 len)
{
	struct iwtcp_ddp_hdr h = {
		.last = true,
		.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_SEND),
		.qn = IWTCP_DDP_QN_SEND,
		.msn = c->send_msn++,
	};
	int n = iwtcp_ddp_build_untagged(&h, buf, BUF);

	if (n < 0)
		return n;
	memcpy(buf + n, data, len);
	return n + len;
}

/*
 * Send the valid FPDUs gathered so far in 1 to 4 pieces cut at random
 * (FPDUs split over segments), and pick how many the next batch takes.
 */
static int flush_valid(struct conn *c)
{
	int rv = c->out_len ? send_split(c, outb, c->out_len) : 0;

	c->out_len = 0;
	c->out_frames = 0;
	c->out_target = 1 + below(32);
	return rv;
}

/*
 * A valid RDMA Write of 1 to MAX_WRITE octets somewhere in the MR, sent
 * with up to 31 others: one segment per FPDU made a debug kernel's run
 * of 10^6 frames take hours.
 */
static int valid_write(struct conn *c)
{
	u8 buf[BUF];
	u32 len = 1 + below(MAX_WRITE);
	u64 off = below(c->info.len - len);
	int n = ulpdu_write(c, buf, len, c->info.addr + off);

	if (n >= 0)
		n = iwtcp_fpdu_build(&c->tx, buf, n, outb + c->out_len,
				     sizeof(outb) - c->out_len);
	if (n < 0)
		return -1;
	c->out_len += n;
	c->frames++;
	if (++c->out_frames >= c->out_target || c->out_len > BATCH_MAX)
		return flush_valid(c);
	return 0;
}

/* Drain what the victim sent (Read Responses, TERM) without parsing. */
static void drain(int fd)
{
	u8 junk[4096];

	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
}

static const char *const mutations[] = {
	"hdr_flip", "ctrl_random", "untagged_random", "read_req_random",
	"term_random", "stag_random", "to_out_of_mr", "wire_flip",
	"ulpdu_len_random", "truncate", "garbage", "len_ffff",
};

/* One mutated frame of kind @m. */
static int mutated(struct conn *c, int m)
{
	u8 buf[BUF], wire[BUF];
	u32 len = 1 + below(64), i;
	int n;

	n = ulpdu_write(c, buf, len, c->info.addr);
	if (n < 0)
		return -1;
	switch (m) {
	case 0:	/* 1 to 3 octets of the DDP/RDMAP header flipped */
		for (i = 1 + below(3); i; i--)
			buf[below(18)] ^= 1 << below(8);
		break;
	case 1:	/* DDP control and RDMAP control at random */
		buf[0] = rnd();
		buf[1] = rnd();
		break;
	case 2: {	/* untagged, every field at random */
		struct iwtcp_ddp_hdr h = {
			.last = below(2),
			.ulp_ctrl = rnd(),
			.qn = below(8) < 6 ? below(4) : rnd(),
			.msn = below(2) ? c->send_msn + below(4) : rnd(),
			.mo = below(2) ? below(8192) : rnd(),
			.inval_stag = rnd(),
		};
		n = iwtcp_ddp_build_untagged(&h, buf, BUF);
		if (n < 0)
			return -1;
		for (i = 0; i < len; i++)
			buf[n + i] = rnd();
		n += len;
		break;
	}
	case 3: {	/* a Read Request with random STags, offsets, size */
		struct iwtcp_rdmap_read rr = {
			.sink_stag = rnd(),
			.sink_to = rnd(),
			.size = below(2) ? below(1 << 20) : rnd(),
			.src_stag = below(2) ? c->info.rkey : rnd(),
			.src_to = below(2) ? c->info.addr + below(4096) : rnd(),
		};
		n = iwtcp_rdmap_build_read_req(&rr, c->rr_msn++, buf, BUF);
		if (n < 0)
			return -1;
		if (below(2))
			buf[below(n)] ^= 1 << below(8);
		break;
	}
	case 4: {	/* a TERM from the peer, fields at random */
		struct iwtcp_rdmap_term t = {
			.cause = { .layer = below(16), .etype = below(16),
				   .ecode = rnd() },
		};
		n = iwtcp_rdmap_build_term(&t, 1 + below(4), buf, BUF);
		if (n < 0)
			return -1;
		for (i = 1 + below(4); i; i--)
			buf[below(n)] ^= 1 << below(8);
		break;
	}
	case 5:	/* an STag not the victim's */
		buf[2] ^= 1 + below(255);
		break;
	case 6: {	/* past the end of the MR, or before it */
		u64 to = below(2) ? c->info.addr + c->info.len - below(len) :
			 c->info.addr - 1 - below(4096);

		n = ulpdu_write(c, buf, len, to);
		break;
	}
	default:
		break;
	}
	if (m <= 6)
		return send_fpdu(c, buf, n);
	n = iwtcp_fpdu_build(&c->tx, buf, n, wire, sizeof(wire));
	if (n < 0)
		return -1;
	c->frames++;
	switch (m) {
	case 7:	/* any octet of the FPDU: length, marker, pad, CRC */
		wire[below(n)] ^= 1 << below(8);
		break;
	case 8: {	/* ULPDU_Length at random (after a leading marker) */
		u32 at = c->tx.markers && !((c->tx.off - n) % 512) ? 4 : 0;

		wire[at] = rnd();
		wire[at + 1] = rnd();
		break;
	}
	case 9:	/* a prefix, then the connection closes */
		n = below(n);
		break;
	case 10:	/* garbage in place of the FPDU */
		n = 1 + below(sizeof(wire));
		for (i = 0; i < (u32)n; i++)
			wire[i] = rnd();
		break;
	case 11:	/* a ULPDU_Length of 65535 the stream never fills */
		wire[0] = 0xff;
		wire[1] = 0xff;
		n = 2 + below(n - 2);
		break;
	}
	return send_split(c, wire, n);
}

/*
 * Receive FPDUs until the victim's INFO Send came, or with @rtr until the
 * first FPDU (the initiator's RTR, RFC 6581 9.2).
 */
static int recv_fpdus(struct conn *c, bool rtr)
{
	for (;;) {
		u8 ulpdu[BUF];
		struct iwtcp_term_cause cause;
		struct iwtcp_ddp_hdr h;
		u32 ulen;
		int n = iwtcp_fpdu_parse(&c->rx, rxb, c->have, ulpdu,
					 sizeof(ulpdu), &ulen);
		ssize_t rv;

		if (n == -EAGAIN) {
			rv = recv(c->fd, rxb + c->have, sizeof(rxb) - c->have,
				  0);
			if (rv <= 0)
				return -1;
			c->have += rv;
			continue;
		}
		if (n < 0)
			return -1;
		memmove(rxb, rxb + n, c->have - n);
		c->have -= n;
		if (rtr)
			return 0;
		if (iwtcp_ddp_parse(ulpdu, ulen, &h, &cause) < 0 || h.tagged ||
		    h.data_len != sizeof(c->info))
			continue;
		memcpy(&c->info, ulpdu + h.hdr_len, sizeof(c->info));
		return c->info.magic == INFO_MAGIC &&
		       c->info.len > 2 * MAX_WRITE ? 0 : -1;
	}
}

/* A mutated MPA frame: one of its octets, its length, or truncated. */
static void mutate_frame(u8 *f, int *len)
{
	switch (below(4)) {
	case 0:
		f[below(*len)] ^= 1 << below(8);
		break;
	case 1:	/* Key, flags or revision */
		f[below(20)] = rnd();
		break;
	case 2:	/* PD_Length */
		f[18] = rnd();
		f[19] = rnd();
		break;
	case 3:
		*len = below(*len);
		break;
	}
}

/* A victim that stalls must not stall the fuzzer with it. */
static void sock_opts(int fd)
{
	struct timeval tv = { .tv_sec = 10 };
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int listen_on(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int fd, one = 1;

	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 &&
	    (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	     bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* The next connection of the victim (it connects again after each). */
static int accept_victim(void)
{
	struct pollfd p = { .fd = listen_fd, .events = POLLIN };
	int fd;

	if (poll(&p, 1, 30000) <= 0)
		return -1;
	fd = accept(listen_fd, NULL, NULL);
	if (fd >= 0)
		sock_opts(fd);
	return fd;
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo *ai;
	int fd = -1, tries;

	if (getaddrinfo(host, port, NULL, &ai))
		return -1;
	/* The victim restarts between connections: wait for its listen. */
	for (tries = 0; tries < 400; tries++) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
		usleep(50000);
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		sock_opts(fd);
	return fd;
}

/* Our settings: CRC and markers as asked, peer-to-peer with Write RTR. */
static struct iwtcp_mpa_settings fuzz_settings(void)
{
	struct iwtcp_mpa_settings s = {
		.revision = 2, .enhanced = true, .p2p = true,
		.crc = want_crc ? IWTCP_MPA_ON : IWTCP_MPA_OFF,
		.markers = want_markers ? IWTCP_MPA_ON : IWTCP_MPA_OFF,
		.rtr_types = IWTCP_MPA_RTR_WRITE, .ird = 4, .ord = 4,
	};

	return s;
}

static void use_result(struct conn *c, const struct iwtcp_mpa_result *res)
{
	c->tx.crc = res->crc;
	c->rx.crc = res->crc;
	c->tx.markers = res->markers_tx;
	c->rx.markers = res->markers_rx;
}

/* Receive one whole MPA frame (Request or Reply) into @f. */
static int recv_frame(struct conn *c, u8 *f, size_t size)
{
	int n;

	if (recv_exact(c->fd, f, 20))
		return -1;
	n = iwtcp_mpa_frame_len(f, 20);
	if (n < 20 || n > (int)size || recv_exact(c->fd, f + 20, n - 20))
		return -1;
	return n;
}

/* Build an MPA Request or Reply, mutated if asked, and send it. */
static int send_mpa(struct conn *c, enum iwtcp_mpa_frame_type type,
		    const struct iwtcp_mpa_frame *fr, bool mutate)
{
	u8 f[1024];
	int len = iwtcp_mpa_build(type, fr, f, sizeof(f));

	if (len < 0)
		return -1;
	if (mutate)
		mutate_frame(f, &len);
	c->frames++;
	return send_split(c, f, len);
}

/* After the start-up: our hello Send, then the victim's INFO. */
static int hello_info(struct conn *c)
{
	u8 f[BUF];
	int n = ulpdu_send(c, f, "hello", 5);

	if (n < 0 || send_fpdu(c, f, n))
		return -1;
	if (recv_fpdus(c, false)) {
		fprintf(stderr, "# start-up: no INFO from the victim\n");
		return -1;
	}
	return 0;
}

/*
 * The MPA start-up as an RFC 6581 peer-to-peer responder (RFC 5044 7.1.3:
 * the Reply to the initiator's Request), @mutate: a mutated Reply. The
 * initiator's RTR comes before anything of ours (RFC 6581 9.2).
 */
static int startup_responder(struct conn *c, bool mutate)
{
	struct iwtcp_mpa_settings s = fuzz_settings();
	struct iwtcp_mpa_frame req, rep;
	struct iwtcp_mpa_result res;
	u8 f[1024];
	int n;

	n = recv_frame(c, f, sizeof(f));
	if (n < 0 || iwtcp_mpa_parse(f, n, IWTCP_MPA_REQUEST, &req) < 0 ||
	    iwtcp_mpa_negotiate_request(&s, &req, &rep, &res) || !res.p2p) {
		fprintf(stderr, "# start-up: no usable MPA Request\n");
		return -1;
	}
	if (send_mpa(c, IWTCP_MPA_REPLY, &rep, mutate))
		return -1;
	use_result(c, &res);
	if (recv_fpdus(c, true)) {
		fprintf(stderr, "# start-up: no RTR from the victim\n");
		return -1;
	}
	return hello_info(c);
}

/* The MPA start-up as an RFC 6581 peer-to-peer initiator, Write RTR. */
static int startup(struct conn *c, bool mutate)
{
	struct iwtcp_mpa_settings s = fuzz_settings();
	struct iwtcp_mpa_frame req, rep;
	struct iwtcp_mpa_result res;
	u8 f[1024], ulpdu[64];
	int n;

	if (iwtcp_mpa_init_request(&s, &req))
		return -1;
	if (send_mpa(c, IWTCP_MPA_REQUEST, &req, mutate))
		return -1;
	n = recv_frame(c, f, sizeof(f));
	if (n < 0 || iwtcp_mpa_parse(f, n, IWTCP_MPA_REPLY, &rep) < 0 ||
	    iwtcp_mpa_negotiate_reply(&s, &rep, &res) || !res.p2p) {
		fprintf(stderr, "# start-up: no usable MPA Reply\n");
		return -1;
	}
	use_result(c, &res);
	n = iwtcp_rdmap_build_rtr(res.rtr, 1, ulpdu, sizeof(ulpdu));
	if (n < 0 || send_fpdu(c, ulpdu, n))
		return -1;
	return hello_info(c);
}

/* Wait up to @ms for the victim to close the connection. */
static const char *wait_close(int fd, int ms)
{
	u8 junk[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, ms) > 0) {
		ssize_t rv = recv(fd, junk, sizeof(junk), 0);

		if (!rv)
			return "closed";
		if (rv < 0)
			return errno == ECONNRESET ? "reset" : "error";
	}
	return "open";
}

/*
 * Connection @i; returns its frames, -1 when a clean start-up failed, or
 * -2 when the victim refused a valid frame (closed before the mutation).
 */
static long one_conn(const char *host, const char *port, u64 seed, long i)
{
	struct conn c = { .send_msn = 1, .rr_msn = 1 };
	bool bad_start;
	const char *end = "open";
	int k, m = -1;

	rng = seed ^ (0x5bd1e995ULL * (u64)(i + 1));
	rnd();
	bad_start = !below(16);
	c.fd = listen_fd >= 0 ? accept_victim() : connect_to(host, port);
	if (c.fd < 0)
		return -1;
	if ((listen_fd >= 0 ? startup_responder : startup)(&c, bad_start)) {
		end = wait_close(c.fd, 3000);
		printf("conn %ld seed %#llx valid=%u frames %lu mutation %s end %s\n",
		       i, (unsigned long long)seed, valid_per_conn, c.frames,
		       !bad_start ? "none (start-up failed)" :
		       listen_fd >= 0 ? "mpa_reply" : "mpa_request",
		       end);
		close(c.fd);
		return bad_start ? (long)c.frames : -1;
	}
	for (k = below(valid_per_conn); k; k--) {
		if (valid_write(&c)) {
			printf("conn %ld seed %#llx valid=%u frames %lu: a valid Write refused\n",
			       i, (unsigned long long)seed, valid_per_conn,
			       c.frames);
			close(c.fd);
			return -2;
		}
		if (!(k % 64))
			drain(c.fd);
	}
	if (flush_valid(&c)) {
		printf("conn %ld seed %#llx valid=%u frames %lu: a valid Write refused\n",
		       i, (unsigned long long)seed, valid_per_conn, c.frames);
		close(c.fd);
		return -2;
	}
	m = below(ARRAY_SIZE(mutations));
	if (!mutated(&c, m)) {
		/* Data after the fault, half the time: TERM is on its way. */
		for (k = below(2) ? below(64) : 0; k; k--)
			if (valid_write(&c))
				break;
		flush_valid(&c);
		end = wait_close(c.fd, 3000);
	}
	printf("conn %ld seed %#llx valid=%u frames %lu mutation %s end %s\n",
	       i, (unsigned long long)seed, valid_per_conn, c.frames,
	       mutations[m], end);
	close(c.fd);
	return c.frames;
}

int main(int argc, char **argv)
{
	unsigned long frames = 0, target, conns = 0, mutated_n = 0;
	bool listen_role = false;
	long only = -1, i, n;
	u64 seed;
	int a;

	if (argc < 5) {
		fprintf(stderr, "usage: wire_fuzz HOST PORT SEED FRAMES");
		fprintf(stderr, " [crc] [markers] [valid=V] [conn=N] [listen]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	seed = strtoull(argv[3], NULL, 0);
	target = strtoul(argv[4], NULL, 0);
	for (a = 5; a < argc; a++) {
		if (!strcmp(argv[a], "crc"))
			want_crc = 1;
		else if (!strcmp(argv[a], "markers"))
			want_markers = 1;
		else if (!strncmp(argv[a], "valid=", 6))
			valid_per_conn = strtoul(argv[a] + 6, NULL, 0);
		else if (!strncmp(argv[a], "conn=", 5))
			only = strtol(argv[a] + 5, NULL, 0);
		else if (!strcmp(argv[a], "listen"))
			listen_role = true;
	}
	if (listen_role) {
		listen_fd = listen_on(argv[1], argv[2]);
		if (listen_fd < 0) {
			perror("wire_fuzz: listen");
			return 2;
		}
	}
	for (i = only < 0 ? 0 : only; frames < target || only >= 0; i++) {
		/* A victim still starting may refuse a first try or two. */
		for (a = 0; a < 3; a++) {
			n = one_conn(argv[1], argv[2], seed, i);
			if (n != -1)
				break;
			usleep(500000);
		}
		if (n == -2) {
			printf("RESULT frames %lu connections %lu mutated %lu",
			       frames, conns, mutated_n);
			printf(": connection %ld had a valid frame refused\n", i);
			return 1;
		}
		if (n < 0) {
			printf("RESULT frames %lu connections %lu mutated %lu",
			       frames, conns, mutated_n);
			printf(": connection %ld did not start\n", i);
			return 1;
		}
		frames += n;
		conns++;
		mutated_n++;
		if (only >= 0)
			break;
	}
	printf("RESULT frames %lu connections %lu mutated %lu\n", frames,
	       conns, mutated_n);
	return 0;
}
