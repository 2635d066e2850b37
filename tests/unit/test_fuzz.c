// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fuzz smoke test without libFuzzer: 100k random and mutated buffers per
 * parser or check, fixed seed. Each input sits in a heap block of exactly its
 * length, so AddressSanitizer reports any read past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/bitfield.h>
#include "ddp.h"
#include "fpdu.h"
#include "mpa.h"
#include "rdmap.h"

#define ROUNDS	100000

static u32 rnd_state = 0x9e3779b9;
#include "rnd.h"

static u8 *rnd_buf(size_t len)
{
	u8 *b = malloc(len ? len : 1);
	size_t i;

	assert_non_null(b);
	for (i = 0; i < len; i++)
		b[i] = rnd();
	return b;
}

/* mostly plausible startup frames, so parsing gets past the key */
static void shape_mpa(u8 *b, size_t len, int type)
{
	u8 hdr[20];
	u16 pd;

	if (len < 20 || rnd() % 4 == 0)
		return;
	memcpy(hdr, type ? IWTCP_MPA_KEY_REP : IWTCP_MPA_KEY_REQ, 16);
	hdr[16] = rnd();
	hdr[17] = rnd() % 8 ? 1 + rnd() % 2 : rnd();
	pd = rnd() % 8 ? len - 20 + (rnd() % 9) - 4 : rnd();
	hdr[18] = pd >> 8;
	hdr[19] = pd;
	memcpy(b, hdr, 20);
}

static void rnd_settings(struct iwtcp_mpa_settings *s)
{
	static const u16 v[] = { 0, 1, 2, 16, 0x3ffe, 0x3fff };

	memset(s, 0, sizeof(*s));
	s->revision = 1 + rnd() % 2;
	s->enhanced = s->revision == 2 && rnd() % 2;
	s->crc = rnd() % 3;
	s->markers = rnd() % 3;
	s->p2p = s->enhanced && rnd() % 2;
	s->relaxed = rnd() % 2;
	s->rtr_types = 1 + rnd() % 7;
	s->ird = v[rnd() % 6];
	s->ord = v[rnd() % 6];
	s->large_fpdu = rnd() % 2;
}

static int check_mpa(const u8 *b, size_t len, int type)
{
	struct iwtcp_mpa_frame f, g;
	struct iwtcp_mpa_settings s;
	struct iwtcp_mpa_result res;
	u8 out[20 + IWTCP_MPA_PD_MAX];
	int ret, n;

	ret = iwtcp_mpa_frame_len(b, len);
	assert_true(ret < 0 || (ret >= 20 && ret <= 20 + IWTCP_MPA_PD_MAX));
	ret = iwtcp_mpa_parse(b, len, type, &f);
	if (ret < 0)
		return 0;
	assert_true((size_t)ret <= len);
	assert_true(f.pd >= b && f.pd + f.pd_len <= b + ret);
	n = iwtcp_mpa_build(type, &f, out, sizeof(out));
	assert_int_equal(n, ret);
	assert_int_equal(iwtcp_mpa_parse(out, n, type, &g), n);
	assert_int_equal(g.pd_len, f.pd_len);
	assert_int_equal(g.ird, f.ird);
	assert_int_equal(g.ord, f.ord);
	assert_int_equal(g.rtr, f.rtr);
	rnd_settings(&s);
	assert_int_equal(iwtcp_mpa_settings_check(&s), 0);
	if (type == IWTCP_MPA_REQUEST)
		iwtcp_mpa_negotiate_request(&s, &f, &g, &res);
	else
		iwtcp_mpa_negotiate_reply(&s, &f, &res);
	return 1;
}

static void test_fuzz_mpa(void **state)
{
	int i, type, ok = 0;
	size_t len;
	u8 *b;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		len = rnd() % 600;
		type = rnd() % 2;
		b = rnd_buf(len);
		shape_mpa(b, len, type);
		ok += check_mpa(b, len, type);
		free(b);
	}
	print_message("  %d MPA frames, %d parsed\n", ROUNDS, ok);
	assert_true(ok > ROUNDS / 10);
}

static int check_fpdu(const u8 *b, size_t len, struct iwtcp_fpdu_stream st,
		      size_t size)
{
	u32 off = st.off, ulen = 0;
	u8 *out = malloc(size ? size : 1);
	int ret;

	assert_non_null(out);
	ret = iwtcp_fpdu_parse(&st, b, len, out, size, &ulen);
	if (ret >= 0) {
		assert_true((size_t)ret <= len);
		assert_true(ulen <= size);
		assert_int_equal(st.off, off + ret);
	} else {
		assert_int_equal(st.off, off);
	}
	free(out);
	return ret >= 0;
}

static void test_fuzz_fpdu_random(void **state)
{
	struct iwtcp_fpdu_stream st;
	int i, ok = 0;
	size_t len;
	u8 *b;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		len = rnd() % 1500;
		b = rnd_buf(len);
		/* keep ULPDU_Length small often enough to reach the end */
		if (len > 8 && rnd() % 2) {
			b[0] = b[4] = 0;
			b[1] &= 0x07;
			b[5] &= 0x07;
		}
		st.off = rnd() & ~3U;
		if (rnd() % 2)
			st.off &= ~511U;
		st.markers = rnd() % 2;
		st.crc = rnd() % 2;
		ok += check_fpdu(b, len, st, rnd() % 2100);
		free(b);
	}
	print_message("  %d FPDU buffers, %d parsed\n", ROUNDS, ok);
	assert_true(ok > ROUNDS / 100);
}

/* valid FPDUs with one bit flipped: with CRC on, always caught */
static void test_fuzz_fpdu_bitflip(void **state)
{
	struct iwtcp_fpdu_stream st, rx;
	u8 ulpdu[700], wire[800], out[700];
	u32 n, ulen, bit, hdr;
	int i, len, ret;
	u8 *b;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		n = rnd() % sizeof(ulpdu);
		st.off = rnd() & ~3U;
		st.markers = rnd() % 2;
		st.crc = true;
		rx = st;
		for (ulen = 0; ulen < n; ulen++)
			ulpdu[ulen] = rnd();
		len = iwtcp_fpdu_build(&st, ulpdu, n, wire, sizeof(wire));
		assert_true(len > 0);
		bit = rnd() % (len * 8);
		wire[bit / 8] ^= 1 << (bit % 8);
		b = malloc(len);
		assert_non_null(b);
		memcpy(b, wire, len);
		ret = iwtcp_fpdu_parse(&rx, b, len, out, sizeof(out), &ulen);
		hdr = st.markers && !(rx.off % 512) ? 4 : 0;
		/* a flip in ULPDU_Length changes the frame; anything else: CRC */
		if (bit / 8 < hdr || bit / 8 >= hdr + 2)
			assert_int_equal(ret, -EBADMSG);
		else
			assert_true(ret < 0);
		free(b);
	}
}

/* mostly plausible DDP segments, so the checks get past DV and QN */
static void shape_ddp(u8 *b, size_t len)
{
	if (len < 18 || rnd() % 4 == 0)
		return;
	b[0] = (b[0] & 0xc0) | IWTCP_DDP_VERSION;
	if (rnd() % 4)
		b[1] = 0x40 | (b[1] & 0x0f) % 8;
	if (b[0] & 0x80)
		return;
	memset(b + 6, 0, 3);
	b[9] %= 4;
	if (rnd() % 2)
		memset(b + 10, 0, 8);
	b[13] = rnd() % 3;
}

static void assert_cause_sane(const struct iwtcp_term_cause *c)
{
	assert_true(c->layer == IWTCP_TERM_LAYER_RDMAP ||
		    c->layer == IWTCP_TERM_LAYER_DDP);
	assert_true(c->etype <= IWTCP_TERM_DDP_UNTAGGED);
}

/* every check over one segment; returns 1 if it passed them all */
static int check_ulpdu(const u8 *b, u32 len)
{
	struct iwtcp_ddp_queue q = {
		.msn = rnd() % 4, .nr_msn = rnd() % 3, .buf_size = rnd() % 80,
	};
	struct iwtcp_term_cause c;
	struct iwtcp_rdmap_term t;
	struct iwtcp_rdmap_read rr;
	struct iwtcp_ddp_hdr h;
	u8 rtr, out[80];
	int ret;

	rtr = iwtcp_rdmap_rtr_type(b, len);
	assert_true(rtr == 0 || rtr == IWTCP_MPA_RTR_SEND ||
		    rtr == IWTCP_MPA_RTR_WRITE || rtr == IWTCP_MPA_RTR_READ);
	/*
	 * A parsed Terminate builds again to the same length; M without D
	 * is accepted on receipt but never sent.
	 */
	if (iwtcp_rdmap_parse_term(b, len, &t) == 0)
		assert_int_equal(iwtcp_rdmap_build_term(&t, 1, out, sizeof(out)),
				 t.seg_len_valid && !t.ddp_len ? -EINVAL :
				 (int)len);
	iwtcp_rdmap_parse_read_req(b, len, &rr);
	ret = iwtcp_ddp_parse(b, len, &h, &c);
	if (ret < 0) {
		assert_int_equal(ret, -EPROTO);
		assert_cause_sane(&c);
		assert_int_equal(rtr, 0);
		return 0;
	}
	assert_int_equal(ret, h.hdr_len);
	assert_int_equal(h.hdr_len + h.data_len, len);
	if (!h.tagged) {
		assert_true(h.qn < IWTCP_DDP_NR_QN);
		ret = iwtcp_ddp_check_untagged(&h, &q, &c);
		if (ret)
			assert_cause_sane(&c);
		else
			assert_true(h.mo + h.data_len <= q.buf_size);
	}
	ret = iwtcp_rdmap_check(&h, &c);
	if (ret) {
		assert_int_equal(ret, -EPROTO);
		assert_cause_sane(&c);
		assert_int_equal(rtr, 0);
		return 0;
	}
	if (FIELD_GET(IWTCP_RDMAP_OPCODE, h.ulp_ctrl) == IWTCP_RDMAP_READ_REQ)
		assert_int_equal(iwtcp_rdmap_parse_read_req(b, len, &rr), 0);
	return 1;
}

static void test_fuzz_ddp_rdmap(void **state)
{
	int i, ok = 0;
	size_t len;
	u8 *b;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		len = rnd() % 80;
		b = rnd_buf(len);
		shape_ddp(b, len);
		ok += check_ulpdu(b, len);
		free(b);
	}
	print_message("  %d DDP segments, %d passed\n", ROUNDS, ok);
	assert_true(ok > ROUNDS / 20);
}

/* valid RTRs and Terminates, one bit flipped or cut short */
static void test_fuzz_rdmap_mutated(void **state)
{
	struct iwtcp_rdmap_term t = {};
	u8 good[80], *b;
	int i, n, bit;
	u32 len;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		if (rnd() % 4) {
			n = iwtcp_rdmap_build_rtr(1 << rnd() % 3, 1, good,
						  sizeof(good));
		} else {
			t.cause.layer = rnd() % 3;
			t.ddp_len = rnd() % 2 ? 18 : 0;
			t.seg_len_valid = t.ddp_len && rnd() % 2;
			t.rdmap_hdr_valid = rnd() % 2;
			n = iwtcp_rdmap_build_term(&t, 1, good, sizeof(good));
		}
		assert_true(n > 0);
		len = rnd() % 4 ? (u32)n : rnd() % (n + 4);
		b = malloc(len ? len : 1);
		assert_non_null(b);
		memset(b, 0, len);
		memcpy(b, good, min_t(u32, len, n));
		bit = rnd() % (n * 8);
		if (len > (u32)bit / 8)
			b[bit / 8] ^= 1 << (bit % 8);
		check_ulpdu(b, len);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_mpa),
		cmocka_unit_test(test_fuzz_fpdu_random),
		cmocka_unit_test(test_fuzz_fpdu_bitflip),
		cmocka_unit_test(test_fuzz_ddp_rdmap),
		cmocka_unit_test(test_fuzz_rdmap_mutated),
	};

	return cmocka_run_group_tests_name("fuzz", tests, NULL, NULL);
}
