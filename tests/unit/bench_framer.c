// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Instructions per FPDU of the data path's pure code (fpdu.c's framers,
 * ddp.c and rdmap.c's header code), as qp_tx.c and qp_rx.c call it:
 * run under callgrind by bench_framer.sh, which counts each phase alone.
 * One phase per run (argv[1]):
 *   tx	 64 KiB RDMA Write messages framed as qp_tx.c frames them: the DDP
 *	 header, then the payload in pieces cut at 4 KiB pages, copied
 *	 into a sink whose room comes in 32 KiB page fragments (the copy
 *	 TCP used to make is in this count)
 *   rx	 the same FPDUs decoded as qp_rx.c decodes them: begin (with the
 *	 header read), check, header, DDP and RDMAP checks, the payload
 *	 visited once and written into 4 KiB target pages at a cursor (as
 *	 iwtcp_mem_place()), from a source cut at 4 KiB (socket buffer
 *	 fragments mapped a page at a time); the copies are glibc's memcpy
 *	 (about 220 of rx's instructions per FPDU)
 *   rx-nopeek	 as rx, the header read apart from ULPDU_Length (about
 *	 as before iwtcp_fpdu_rx_begin() brought it along)
 * argv[2] "markers" turns markers on, argv[3] "crc" the CRC. The CRC's
 * instructions mean nothing here (the shim's CRC32c is a byte-wise
 * table, not the kernel's): what counts with it on is how often the
 * framers call it per FPDU, each call having a fixed cost in the kernel
 * (crc.c). A user-space build: no
 * retpolines, return thunks or ftrace entries as in the kernel, and the
 * counts hold for one compiler and C library: compare trees on one host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "fpdu.h"
#include "rdmap.h"

#define MSG	65536
#define MSGS	64
#define EMSS	1448
#define PG	4096
#define MAXW	(2 * MSG)

static u8 payload[MSG] __attribute__((aligned(PG)));
static u8 wire[MAXW];
static u8 out[MSG] __attribute__((aligned(PG)));

/* tx sink: the wire image, handed out in 32 KiB fragments (qp_tx.c's) */
#define FRAG	32768

static u32 wpos;
static u32 nfpdu;

static int sink_reserve(void *arg, u32 len, void **dst)
{
	u32 n = FRAG - wpos % FRAG;

	(void)arg;
	n = len < n ? len : n;
	if (wpos + n > MAXW)
		abort();
	*dst = wire + wpos;
	wpos += n;
	return n;
}

/* One message: returns its wire octets (written to @wire for rx) */
static u32 __attribute__((noipa)) tx_msg(struct iwtcp_fpdu_stream *st,
					     u32 stag)
{
	const struct iwtcp_fpdu_sink s = { .reserve = sink_reserve };
	u32 off = 0, room, n, k, i;
	struct iwtcp_ddp_hdr h = {
		.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_WRITE),
		.stag = stag,
	};
	struct iwtcp_fpdu_tx t;
	u8 hdr[32];
	int hlen, ret;

	while (off < MSG) {
		room = iwtcp_fpdu_mulpdu_at(st->off, EMSS, st->markers) -
		       sizeof(struct iwtcp_ddp_tagged_hdr);
		n = min(room, (u32)MSG - off);
		h.to = off;
		h.last = off + n == MSG;
		hlen = iwtcp_ddp_build_tagged(&h, hdr, sizeof(hdr));
		ret = iwtcp_fpdu_tx_begin(&t, st, hlen + n, &s) ?:
		      iwtcp_fpdu_tx_add(&t, hdr, hlen, &s);
		for (i = off; !ret && i < off + n; i += k) {
			k = min(off + n - i, PG - i % PG);
			ret = iwtcp_fpdu_tx_add(&t, payload + i, k, &s);
		}
		ret = ret ?: iwtcp_fpdu_tx_end(&t, st, &s);
		if (ret < 0)
			abort();
		nfpdu++;
		off += n;
	}
	return wpos;
}

/* rx source: the wire image, visited in pieces that end at 4 KiB */
struct bench_src {
	u32 base;
	u32 len;
};

static int src_visit(void *arg, u32 pos, u32 len, iwtcp_fpdu_visit_t fn,
		     void *ctx)
{
	struct bench_src *b = arg;
	u32 at = b->base + pos, k;
	int ret;

	if (pos > b->len - b->base || len > b->len - b->base - pos)
		return -EAGAIN;
	while (len) {
		k = min(len, PG - at % PG);
		ret = fn(ctx, wire + at, k);
		if (ret)
			return ret;
		at += k;
		len -= k;
	}
	return 0;
}

/* Placement's visitor: into @out at @to, split at 4 KiB target pages */
struct place {
	u64 to;
};

static int place_visit(void *ctx, const void *p, u32 len)
{
	struct place *pl = ctx;
	const u8 *src = p;
	u32 k;

	while (len) {
		k = PG - (u32)pl->to % PG;
		k = len < k ? len : k;
		memcpy(out + pl->to, src, k);
		pl->to += k;
		src += k;
		len -= k;
	}
	return 0;
}

static u32 __attribute__((noipa)) rx_msg(struct iwtcp_fpdu_stream *st,
					     u32 wlen, bool peek)
{
	struct bench_src b = { .len = wlen };
	const struct iwtcp_fpdu_source src = {
		.visit = src_visit, .arg = &b,
	};
	struct iwtcp_fpdu_source s;
	struct iwtcp_term_cause cause;
	struct iwtcp_ddp_hdr h;
	struct iwtcp_fpdu_rx r;
	struct place pl;
	u32 got = 0;
	u8 hdr[70];

	while (b.base < wlen) {
		s = src;
		s.avail = wlen - b.base;
		if (iwtcp_fpdu_rx_begin(&r, st, &s, peek ? hdr : NULL,
					peek ? sizeof(hdr) : 0) ||
		    iwtcp_fpdu_rx_check(&r, st, &s) ||
		    iwtcp_fpdu_rx_hdr(&r, &s, hdr,
				      min_t(u32, r.ulpdu_len, sizeof(hdr))) ||
		    iwtcp_ddp_parse(hdr, r.ulpdu_len, &h, &cause) < 0 ||
		    iwtcp_rdmap_check(&h, &cause) < 0)
			abort();
		/* placement: one visit of the payload (qp_rx.c's rx_place()) */
		pl.to = h.to;
		if (iwtcp_fpdu_rx_visit(&r, &s, 2 + h.hdr_len, h.data_len,
					place_visit, &pl))
			abort();
		got += h.data_len;
		st->off += r.l.wire_len;
		b.base += r.l.wire_len;
	}
	return got;
}

int main(int argc, char **argv)
{
	bool markers = argc > 2 && !strcmp(argv[2], "markers");
	bool crc = argc > 3 && !strcmp(argv[3], "crc");
	struct iwtcp_fpdu_stream tx = { .markers = markers, .crc = crc };
	struct iwtcp_fpdu_stream rx = tx;
	const char *phase = argc > 1 ? argv[1] : "";
	u32 i, w, c0, tx_calls = 0, rx_calls = 0;

	for (i = 0; i < MSG; i++)
		payload[i] = i * 7 + 1;
	for (i = 0; i < MSGS; i++) {
		wpos = 0;
		c0 = shim_crc_calls;
		w = tx_msg(&tx, 0x100 + i);
		tx_calls += shim_crc_calls - c0;
		c0 = shim_crc_calls;
		if (!strcmp(phase, "rx") || !strcmp(phase, "rx-nopeek")) {
			if (rx_msg(&rx, w, !strcmp(phase, "rx")) != MSG ||
			    memcmp(out, payload, MSG))
				abort();
		}
		rx_calls += shim_crc_calls - c0;
	}
	printf("fpdus %u messages %u crc_calls %u\n", nfpdu, MSGS,
	       strcmp(phase, "tx") ? rx_calls : tx_calls);
	return 0;
}
