// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of fpdu.c's framers, the code the data path runs
 * (qp_tx.c, qp_rx.c), on the buffer shapes it hands them: a ULPDU in
 * pieces (header copied, payload by reference from pages), received FPDUs
 * split over socket buffers anywhere. Checked against an encoder written
 * here octet by octet from RFC 5044 4.1-4.4, with one CRC32c over the
 * whole wire image.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fpdu.h"

#define MAXU	65535			/* largest ULPDU (RFC 5044 4.1) */
#define MAXW	(MAXU + 1024)		/* its wire image, markers included */

static u32 rnd_state = 0x5eed;
#include "rnd.h"

/*
 * The reference: content (ULPDU_Length, ULPDU, zero PAD) one octet at a
 * time, a marker wherever the stream offset is a multiple of 512 (FPDUPTR
 * 0 before ULPDU_Length, else the octets back to it), a marker due right
 * before the CRC, then the CRC over all of it (or 0 when off). Returns the
 * wire octets, or 0 if a marker would lie beyond FPDUPTR's 16 bits.
 */
static u32 ref_encode(u32 off, bool markers, bool crc, const u8 *ulpdu,
		      u32 ulen, u8 *wire)
{
	u32 pad = (4 - (2 + ulen) % 4) % 4, clen = 2 + ulen + pad;
	u32 w = 0, hdr_w = 0, i, c, ptr;

	for (i = 0; i <= clen; i++) {
		if (markers && (u32)(off + w) % 512 == 0) {
			ptr = i ? w - hdr_w : 0;
			if (ptr > 0xffff)
				return 0;
			wire[w++] = 0;
			wire[w++] = 0;
			wire[w++] = ptr >> 8;
			wire[w++] = ptr;
		}
		if (i == clen)
			break;
		if (!i)
			hdr_w = w;
		wire[w++] = i == 0 ? ulen >> 8 : i == 1 ? ulen :
			    i < 2 + ulen ? ulpdu[i - 2] : 0;
	}
	c = crc ? ~crc32c(~0U, wire, w) : 0;
	for (i = 0; i < 4; i++)
		wire[w++] = c >> (8 * i);	/* RFC 3720 B.4: LSB first */
	return w;
}

/*
 * A sink recording what the transmit framer writes: it hands out room in
 * random runs (pages and page fragments give any split), and can change
 * the caller's source between runs, as an application writing into a
 * buffer it is sending would.
 */
struct rec_sink {
	u8 out[MAXW];
	u32 len;
	u32 calls;
	int fail_at;		/* the call that fails with -ENOBUFS, or -1 */
	u8 *scribble;		/* if set: changed at every call */
	u32 scribble_len;
	u32 max_run;		/* if set: no run is longer */
	bool whole;		/* if set: every run as long as asked */
};

static int rec_reserve(void *arg, u32 len, void **dst)
{
	struct rec_sink *r = arg;
	u32 n, i;

	assert_true(len > 0);
	if ((int)r->calls++ == r->fail_at)
		return -ENOBUFS;
	for (i = 0; r->scribble && i < r->scribble_len; i++)
		r->scribble[i] = rnd();
	n = r->whole || rnd() % 4 ? len : 1 + rnd() % len;
	if (r->max_run && n > r->max_run)
		n = r->max_run;
	assert_true(r->len + n <= sizeof(r->out));
	*dst = r->out + r->len;
	r->len += n;
	return n;
}

/*
 * Frame @ulen octets as qp_tx.c does: a header of @hdr octets, then the
 * payload in random pieces (pages of registered memory, SGEs). Returns
 * the framer's result.
 */
static int frame_pieces(struct rec_sink *r, struct iwtcp_fpdu_stream *st,
			const u8 *ulpdu, u32 ulen, u32 hdr)
{
	const struct iwtcp_fpdu_sink s = {
		.reserve = rec_reserve, .arg = r,
	};
	struct iwtcp_fpdu_tx t;
	u32 done, n;
	int ret;

	r->len = 0;
	r->calls = 0;
	ret = iwtcp_fpdu_tx_begin(&t, st, ulen, &s);
	if (!ret)
		ret = iwtcp_fpdu_tx_add(&t, ulpdu, hdr, &s);
	for (done = hdr; !ret && done < ulen; done += n) {
		/* pieces as pages give them: up to 4096, often short */
		n = rnd() % 3 ? 1 + rnd() % 700 : 1 + rnd() % 4096;
		n = min(n, ulen - done);	/* n: min() reads twice */
		ret = iwtcp_fpdu_tx_add(&t, ulpdu + done, n, &s);
	}
	return ret ?: iwtcp_fpdu_tx_end(&t, st, &s);
}

/* every stream phase, ULPDU lengths around every marker and PAD case */
static void test_tx_pieces_vs_reference(void **state)
{
	static const u32 lens[] = {
		0, 1, 2, 3, 4, 5, 18, 28, 100, 501, 502, 503, 504, 505, 506,
		507, 508, 509, 510, 1010, 1016, 1022, 1456, 1460, 4000, 9000,
		32764, 65024, 65280, 65535,
	};
	static struct rec_sink r = { .fail_at = -1 };
	static u8 ulpdu[MAXU], want[MAXW];
	struct iwtcp_fpdu_stream st;
	u32 phase, i, mode, w, hdr;
	int ret;

	(void)state;
	for (i = 0; i < MAXU; i++)
		ulpdu[i] = rnd();
	for (phase = 0; phase < 512; phase += 4) {
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			for (mode = 0; mode < 4; mode++) {
				st = (struct iwtcp_fpdu_stream){
					.off = 0x1000 + phase,
					.markers = mode & 1, .crc = mode & 2,
				};
				hdr = rnd() % 29;	/* min() reads twice */
				hdr = min(hdr, lens[i]);
				ret = frame_pieces(&r, &st, ulpdu, lens[i],
						   hdr);
				w = ref_encode(0x1000 + phase, mode & 1,
					       mode & 2, ulpdu, lens[i], want);
				if (!w) {	/* FPDUPTR overflow (RFC 5044 4.2) */
					assert_int_equal(ret, -EMSGSIZE);
					assert_int_equal(st.off, 0x1000 + phase);
					continue;
				}
				assert_int_equal(ret, w);
				assert_int_equal(r.len, w);
				assert_memory_equal(r.out, want, w);
				assert_int_equal(st.off, 0x1000 + phase + w);
			}
		}
	}
}

/*
 * The framer refuses more or fewer octets than announced, and passes on
 * the sink's error without advancing the stream.
 */
static void test_tx_errors(void **state)
{
	static struct rec_sink r = { .fail_at = -1 };
	const struct iwtcp_fpdu_sink s = {
		.reserve = rec_reserve, .arg = &r,
	};
	struct iwtcp_fpdu_stream st = { .off = 500, .markers = true, .crc = true };
	static u8 ulpdu[600];
	struct iwtcp_fpdu_tx t;
	int ret, calls, i;

	(void)state;
	r.len = 0;
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 100, &s), 0);
	assert_int_equal(iwtcp_fpdu_tx_add(&t, ulpdu, 101, &s), -EMSGSIZE);
	assert_int_equal(iwtcp_fpdu_tx_add(&t, ulpdu, 99, &s), 0);
	assert_int_equal(iwtcp_fpdu_tx_end(&t, &st, &s), -EINVAL);
	assert_int_equal(st.off, 500);
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 65536, &s), -EMSGSIZE);
	/* FPDUPTR would pass 16 bits */
	st.off = 4;
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 65535, &s), -EMSGSIZE);
	st.off = 2;
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 4, &s), -EINVAL);

	/* a sink failing at each of its calls in turn (same pieces each time) */
	st.off = 500;
	r.fail_at = -1;
	r.max_run = 100;
	rnd_state = 77;
	ret = frame_pieces(&r, &st, ulpdu, sizeof(ulpdu), 20);
	assert_true(ret > 0);
	calls = r.calls;
	/* runs split by the sink's room */
	assert_true(calls > 4);
	for (i = 0; i < calls; i++) {
		st.off = 500;
		r.fail_at = i;
		rnd_state = 77;
		assert_int_equal(frame_pieces(&r, &st, ulpdu, sizeof(ulpdu), 20),
				 -ENOBUFS);
		assert_int_equal(st.off, 500);
	}
	r.fail_at = -1;
	r.max_run = 0;
}

/* Sinks that break the contract: no room, or more room than asked. */
static u8 bad_room[8192];

static int zero_reserve(void *arg, u32 len, void **dst)
{
	(void)arg;
	(void)len;
	*dst = bad_room;
	return 0;
}

static int over_reserve(void *arg, u32 len, void **dst)
{
	(void)arg;
	*dst = bad_room;
	return len + 1;
}

/* The framer refuses such room (-EPROTO) rather than write past it. */
static void test_tx_bad_sink(void **state)
{
	const struct iwtcp_fpdu_sink zero = { .reserve = zero_reserve };
	const struct iwtcp_fpdu_sink over = { .reserve = over_reserve };
	struct iwtcp_fpdu_stream st = { .off = 0, .crc = true };
	static const u8 ulpdu[100];
	struct iwtcp_fpdu_tx t;

	(void)state;
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 100, &zero), -EPROTO);
	assert_int_equal(iwtcp_fpdu_tx_begin(&t, &st, 100, &over), -EPROTO);
	assert_int_equal(st.off, 0);
	/* the stream is unharmed: a good sink frames the next FPDU */
	assert_int_equal(iwtcp_fpdu_build(&st, ulpdu, sizeof(ulpdu), bad_room,
					  sizeof(bad_room)), 108);
	assert_int_equal(st.off, 108);
}

/*
 * A sink that gives all the room asked for is asked once per FPDU, with
 * markers, PAD and pieces of payload: the data path's page fragment is
 * called per FPDU, not per piece (iwtcp-performance.rst, "One reserve per
 * FPDU").
 */
static void test_tx_one_reserve(void **state)
{
	static struct rec_sink r = { .fail_at = -1, .whole = true };
	static u8 ulpdu[4000], want[MAXW];
	struct iwtcp_fpdu_stream st;
	u32 phase, mode, ulen, w, hdr;

	(void)state;
	for (ulen = 0; ulen < sizeof(ulpdu); ulen++)
		ulpdu[ulen] = rnd();
	for (phase = 0; phase < 512; phase += 36) {
		for (mode = 0; mode < 4; mode++) {
			ulen = 1 + rnd() % sizeof(ulpdu);
			st = (struct iwtcp_fpdu_stream){
				.off = phase, .markers = mode & 1,
				.crc = mode & 2,
			};
			hdr = rnd() % 29;	/* min() reads twice */
			hdr = min(hdr, ulen);
			w = ref_encode(phase, mode & 1, mode & 2, ulpdu, ulen,
				       want);
			assert_int_equal(frame_pieces(&r, &st, ulpdu, ulen, hdr),
					 w);
			assert_int_equal(r.len, w);
			assert_memory_equal(r.out, want, w);
			assert_int_equal(r.calls, 1);
		}
	}
}

/*
 * RFC 5044 4.4 on the octets that go out: an FPDU framed while its source
 * changes under it (an application writing into a buffer it sends, which
 * verbs leave undefined) still carries a CRC that matches it, as a NIC's
 * would. The source changes whenever the sink hands out room, so a framer
 * that read a run for the CRC before its copy fails this; one that read it
 * again right after the copy would not (the guest's busy_source case, and
 * the CRC over the copy in tx_put(), cover that).
 */
static void test_tx_crc_of_the_copy(void **state)
{
	static struct rec_sink r = { .fail_at = -1 };
	static u8 ulpdu[9000], got[9000];
	struct iwtcp_fpdu_stream tx, rx;
	u32 phase, mode, ulen;
	int ret;

	(void)state;
	r.scribble = ulpdu;
	r.scribble_len = sizeof(ulpdu);
	r.max_run = 300;	/* several runs, and changes, per FPDU */
	for (phase = 0; phase < 512; phase += 28) {
		for (mode = 0; mode < 2; mode++) {
			tx = (struct iwtcp_fpdu_stream){
				.off = phase, .markers = mode, .crc = true,
			};
			rx = tx;
			ulen = 18 + rnd() % (sizeof(ulpdu) - 18);
			ret = frame_pieces(&r, &tx, ulpdu, ulen, 18);
			assert_true(ret > 0);
			assert_int_equal(iwtcp_fpdu_parse(&rx, r.out, r.len,
							  got, sizeof(got),
							  &ulen),
					 ret);
			assert_int_equal(rx.off, tx.off);
		}
	}
	r.scribble = NULL;
}

/*
 * The CRC runs once per room the sink gives (each call has a fixed cost
 * in the kernel), not once per piece: with the FPDU in one room, one call
 * however many pieces, markers and PAD it has; in several, at most one a
 * room; none with the CRC off.
 */
static void test_tx_crc_once_per_room(void **state)
{
	static struct rec_sink r = { .fail_at = -1 };
	static u8 ulpdu[9000];
	struct iwtcp_fpdu_stream st;
	u32 phase, mode, ulen, calls;
	int ret;

	(void)state;
	for (phase = 0; phase < 512; phase += 12) {
		for (mode = 0; mode < 8; mode++) {
			st = (struct iwtcp_fpdu_stream){
				.off = phase, .markers = mode & 1,
				.crc = !(mode & 2),
			};
			r.whole = mode & 4;
			ulen = 18 + rnd() % (sizeof(ulpdu) - 18);
			calls = shim_crc_calls;
			ret = frame_pieces(&r, &st, ulpdu, ulen, 18);
			assert_true(ret > 0);
			calls = shim_crc_calls - calls;
			if (!st.crc)
				assert_int_equal(calls, 0);
			else if (r.whole)
				assert_int_equal(calls, 1);
			else
				assert_in_range(calls, 1, r.calls);
		}
	}
	r.whole = false;
}

/* Received octets split over socket-buffer-like segments. */
struct seg_src {
	const u8 *wire;
	u32 base;		/* the FPDU's first octet in @wire */
	u32 avail;		/* octets of @wire that arrived */
	u32 nseg;
	u32 end[64];		/* segment i ends before @wire + end[i] */
	u32 pieces;
};

static int seg_visit(void *arg, u32 pos, u32 len, iwtcp_fpdu_visit_t fn,
		     void *ctx)
{
	struct seg_src *s = arg;
	u32 at = s->base + pos, start = 0, n, i;
	int ret;

	if (at > s->avail || len > s->avail - at)
		return -EAGAIN;
	for (i = 0; i < s->nseg && len; start = s->end[i++]) {
		if (at >= s->end[i])
			continue;
		n = min(len, s->end[i] - at);
		assert_true(at >= start);
		s->pieces++;
		ret = fn(ctx, s->wire + at, n);	/* never across a segment */
		if (ret)
			return ret;
		at += n;
		len -= n;
	}
	assert_int_equal(len, 0);
	return 0;
}

/* @w octets of @wire, all arrived, in two buffers split at @cut */
static void seg_two(struct seg_src *s, const u8 *wire, u32 cut, u32 w)
{
	memset(s, 0, sizeof(*s));
	s->wire = wire;
	s->nseg = 2;
	s->end[0] = cut;
	s->end[1] = w;
	s->avail = w;
}

/* A visitor as placement's: copies each piece on, counts the octets. */
struct place_ctx {
	u8 *dst;
	u32 octets;
};

static int place_visit(void *ctx, const void *p, u32 len)
{
	struct place_ctx *pc = ctx;

	assert_true(len > 0);
	memcpy(pc->dst, p, len);
	pc->dst += len;
	pc->octets += len;
	return 0;
}

/*
 * Decode as qp_rx.c does: begin, check, then the ULPDU visited whole
 * (iwtcp_fpdu_rx_visit(), as placement does) and copied out in pieces.
 */
static int deframe(struct seg_src *s, struct iwtcp_fpdu_stream *st, u8 *out,
		   u32 *ulen)
{
	const struct iwtcp_fpdu_source src = {
		.visit = seg_visit, .arg = s,
		.avail = s->avail > s->base ? s->avail - s->base : 0,
	};
	struct iwtcp_fpdu_rx r;
	/* qp_rx.c's RX_HDR_MAX: untagged DDP header and a Terminate's */
	u8 hdr[sizeof(struct iwtcp_ddp_untagged_hdr) + IWTCP_TERM_HDR_MAX];
	u32 c, n, hlen, hdr_off, want;
	struct place_ctx pc;
	int ret;

	memset(hdr, 0xa5, sizeof(hdr));
	ret = iwtcp_fpdu_rx_begin(&r, st, &src, hdr, sizeof(hdr));
	if (ret)
		return ret;
	/* the read of ULPDU_Length brought the header up to a marker */
	hdr_off = st->markers && st->off % 512 == 0 ? 4 : 0;
	want = min_t(u32, sizeof(hdr), src.avail - hdr_off - 2);
	if (st->markers)
		want = min_t(u32, want, 512 - (st->off + hdr_off) % 512 - 2);
	assert_int_equal(r.hdr_got, min_t(u32, want, r.ulpdu_len));
	ret = iwtcp_fpdu_rx_check(&r, st, &src);
	if (ret)
		return ret;
	/* the header the ULPDU read brought along, completed past a marker */
	hlen = min_t(u32, r.ulpdu_len, sizeof(hdr));
	ret = iwtcp_fpdu_rx_hdr(&r, &src, hdr, hlen);
	if (ret)
		return ret;
	if (r.ulpdu_len < sizeof(hdr))	/* within @hdr: fails cleanly */
		assert_int_equal(iwtcp_fpdu_rx_hdr(&r, &src, hdr,
						   r.ulpdu_len + 1), -EINVAL);
	/*
	 * Placement's one visit of the whole ULPDU, or pieces copied out
	 * (a Send's receive SGEs, a header past a marker).
	 */
	if (rnd() % 2) {
		pc = (struct place_ctx){ .dst = out };
		ret = iwtcp_fpdu_rx_visit(&r, &src, 2, r.ulpdu_len,
					  place_visit, &pc);
		if (ret)
			return ret;
		assert_int_equal(pc.octets, r.ulpdu_len);
	}
	for (c = 0; c < r.ulpdu_len; c += n) {
		n = 1 + rnd() % 1500;
		n = min(n, r.ulpdu_len - c);
		ret = iwtcp_fpdu_rx_copy(&r, &src, 2 + c, out + c, n);
		if (ret)
			return ret;
	}
	assert_int_equal(iwtcp_fpdu_rx_copy(&r, &src, 2 + r.ulpdu_len, out, 1),
			 -EINVAL);
	pc = (struct place_ctx){ .dst = out };
	assert_int_equal(iwtcp_fpdu_rx_visit(&r, &src, 1, r.ulpdu_len + 2,
					     place_visit, &pc), -EINVAL);
	assert_int_equal(pc.octets, 0);
	assert_memory_equal(hdr, out, hlen);
	*ulen = r.ulpdu_len;
	st->off += r.l.wire_len;
	return r.l.wire_len;
}

/*
 * With markers: @bit of the wire falls in a marker's FPDUPTR, in a bit the
 * receiver reads (RFC 5044 4.2: not RESERVED, not the low two).
 */
static bool in_fpduptr(u32 start, u32 bit)
{
	u32 octet = bit / 8;

	if ((u32)(start + (octet & ~3U)) % 512)
		return false;
	return octet % 4 == 2 || (octet % 4 == 3 && bit % 8 >= 2);
}

/*
 * Every split of one FPDU over two buffers, every truncation (every 97th
 * for the large ones), flipped bits caught by the CRC or, without it, by a
 * marker's check. With the CRC, a flipped length bit may also leave the
 * FPDU unfinished (-EAGAIN) or unmarkable (-EMSGSIZE).
 */
static void test_rx_every_split(void **state)
{
	static const u32 lens[] = { 0, 3, 28, 505, 506, 1020, 1456, 65535 };
	static u8 ulpdu[MAXU], wire[MAXW], out[MAXU];
	struct iwtcp_fpdu_stream st, st0;
	struct seg_src s;
	u32 i, w, cut, ulen, phase, bit, mode, start;
	int ret;

	(void)state;
	for (i = 0; i < MAXU; i++)
		ulpdu[i] = rnd();
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (mode = 0; mode < 4; mode++) {
			phase = 4 * (rnd() % 128);
			start = 0xfffff000 + phase;	/* wraps 2^32 */
			w = ref_encode(start, mode & 1, mode & 2, ulpdu,
				       lens[i], wire);
			if (!w)
				continue;	/* no FPDU at this phase */
			st0 = (struct iwtcp_fpdu_stream){
				.off = start, .markers = mode & 1,
				.crc = mode & 2,
			};
			for (cut = 0; cut <= w; cut += w > 9000 ? 97 : 1) {
				/* whole, then arrived up to the cut only */
				seg_two(&s, wire, cut, w);
				st = st0;
				ret = deframe(&s, &st, out, &ulen);
				assert_int_equal(ret, w);
				assert_int_equal(ulen, lens[i]);
				assert_memory_equal(out, ulpdu, lens[i]);
				assert_int_equal(st.off, start + w);
				s.avail = cut;
				st.off = start;
				if (cut < w)
					assert_int_equal(deframe(&s, &st, out,
								 &ulen),
							 -EAGAIN);
			}
			/* a flipped bit: MPA error 2 with the CRC, else a
			 * marker's error 3 where it lands in a marker */
			for (bit = 0; bit < 8 * w;
			     bit += 1 + rnd() % (w > 9000 ? 400 : 5)) {
				wire[bit / 8] ^= 1 << (bit % 8);
				seg_two(&s, wire, w, w);
				st = st0;
				ret = deframe(&s, &st, out, &ulen);
				if (mode & 2)
					assert_true(ret == -EBADMSG ||
						    ret == -EAGAIN ||
						    ret == -EMSGSIZE);
				else if ((mode & 1) && in_fpduptr(start, bit))
					assert_int_equal(ret, -EPROTO);
				wire[bit / 8] ^= 1 << (bit % 8);
			}
		}
	}
}

/* A visitor that fails on its @fail_at-th call; counts the calls. */
struct fail_ctx {
	u32 calls;
	u32 fail_at;
};

static int fail_visit(void *ctx, const void *p, u32 len)
{
	struct fail_ctx *fc = ctx;

	(void)p;
	(void)len;
	return ++fc->calls == fc->fail_at ? -ENOTBLK : 0;
}

/*
 * The visitor's error stops iwtcp_fpdu_rx_visit() and comes back from it
 * (placement's -EFAULT): with markers, a payload the markers and the
 * buffers cut into many pieces, failed at each piece in turn.
 */
static void test_rx_visit_error(void **state)
{
	static u8 ulpdu[4000], wire[4200];
	struct iwtcp_fpdu_stream st = { .markers = true };
	struct fail_ctx fc = { 0 };
	struct iwtcp_fpdu_rx r;
	struct seg_src s;
	const struct iwtcp_fpdu_source src = {
		.visit = seg_visit, .arg = &s,
	};
	struct iwtcp_fpdu_source avail;
	u32 w, i, pieces;

	(void)state;
	for (i = 0; i < sizeof(ulpdu); i++)
		ulpdu[i] = rnd();
	w = ref_encode(0, true, false, ulpdu, sizeof(ulpdu), wire);
	assert_true(w > 0 && w <= sizeof(wire));
	seg_two(&s, wire, 1001, w);
	avail = src;
	avail.avail = w;
	assert_int_equal(iwtcp_fpdu_rx_begin(&r, &st, &avail, NULL, 0), 0);
	/* how many pieces a whole visit takes */
	assert_int_equal(iwtcp_fpdu_rx_visit(&r, &avail, 2, sizeof(ulpdu),
					     fail_visit, &fc), 0);
	pieces = fc.calls;
	assert_true(pieces >= 8);	/* 7 markers and a buffer edge */
	for (i = 1; i <= pieces; i++) {
		fc = (struct fail_ctx){ .fail_at = i };
		assert_int_equal(iwtcp_fpdu_rx_visit(&r, &avail, 2,
						     sizeof(ulpdu), fail_visit,
						     &fc), -ENOTBLK);
		assert_int_equal(fc.calls, i);	/* no call after the error */
	}
}

/* With markers, a stream offset off 4-alignment is refused before a read. */
static void test_rx_misaligned(void **state)
{
	static const u32 offs[] = { 2, 511, 1021 };
	static u8 wire[600];
	struct iwtcp_fpdu_stream st = { .markers = true };
	struct seg_src s;
	u8 hdr[70];
	const struct iwtcp_fpdu_source src = {
		.visit = seg_visit, .arg = &s, .avail = sizeof(wire),
	};
	struct iwtcp_fpdu_rx r;
	u32 i;

	(void)state;
	seg_two(&s, wire, 100, sizeof(wire));
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		st.off = offs[i];
		s.pieces = 0;
		assert_int_equal(iwtcp_fpdu_rx_begin(&r, &st, &src, hdr,
						     sizeof(hdr)), -EINVAL);
		assert_int_equal(s.pieces, 0);	/* nothing was read */
	}
}

/*
 * The property: random ULPDUs framed back to back from a random stream
 * offset, in random pieces, then cut into random segments, parse back to
 * the same ULPDUs, with the CRC the reference computes in one pass.
 */
static void test_property_round_trip(void **state)
{
	enum { N = 40 };
	static u8 ulpdu[N][MAXU], wire[N * MAXW], want[MAXW], out[MAXU];
	static struct rec_sink r = { .fail_at = -1 };
	struct iwtcp_fpdu_stream tx, rx;
	u32 lens[N], pos, p, i, j, round, ulen, start, w;
	struct seg_src s;
	int ret;

	(void)state;
	for (round = 0; round < 60; round++) {
		start = rnd() & ~3U;
		tx = (struct iwtcp_fpdu_stream){
			.off = start, .markers = rnd() & 1, .crc = rnd() & 1,
		};
		rx = tx;
		for (i = 0, pos = 0; i < N; i++) {
			/* mostly MSS-sized, some tiny, some large (G bit) */
			lens[i] = rnd() % 4 ? rnd() % 9000 :
				  rnd() % 2 ? rnd() % 64 : rnd() % (MAXU + 1);
			for (j = 0; j < lens[i]; j++)
				ulpdu[i][j] = rnd();
			w = ref_encode(tx.off, tx.markers, tx.crc, ulpdu[i],
				       lens[i], want);
			ret = frame_pieces(&r, &tx, ulpdu[i], lens[i],
					   min_t(u32, lens[i], 18));
			if (!w) {	/* FPDUPTR overflow: a shorter one */
				assert_int_equal(ret, -EMSGSIZE);
				lens[i] = 0;
				w = ref_encode(tx.off, tx.markers, tx.crc,
					       ulpdu[i], 0, want);
				ret = frame_pieces(&r, &tx, ulpdu[i], 0, 0);
			}
			assert_int_equal(ret, w);
			assert_memory_equal(r.out, want, w);
			memcpy(wire + pos, r.out, w);
			pos += w;
		}
		memset(&s, 0, sizeof(s));
		s.wire = wire;
		s.avail = pos;
		for (p = 0; s.nseg < 63 && p < pos; ) {
			p += 1 + rnd() % (rnd() % 2 ? 64 : 9000);
			s.end[s.nseg++] = min(p, pos);
		}
		if (s.end[s.nseg - 1] != pos)
			s.end[s.nseg++] = pos;
		for (i = 0; i < N; i++) {
			ret = deframe(&s, &rx, out, &ulen);
			assert_true(ret > 0);
			assert_int_equal(ulen, lens[i]);
			if (lens[i])
				assert_memory_equal(out, ulpdu[i], lens[i]);
			s.base += ret;
		}
		assert_int_equal(s.base, pos);
		assert_int_equal(rx.off, tx.off);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_pieces_vs_reference),
		cmocka_unit_test(test_tx_errors),
		cmocka_unit_test(test_tx_one_reserve),
		cmocka_unit_test(test_tx_bad_sink),
		cmocka_unit_test(test_tx_crc_of_the_copy),
		cmocka_unit_test(test_tx_crc_once_per_room),
		cmocka_unit_test(test_rx_every_split),
		cmocka_unit_test(test_rx_visit_error),
		cmocka_unit_test(test_rx_misaligned),
		cmocka_unit_test(test_property_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
