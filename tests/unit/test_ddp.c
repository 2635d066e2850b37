// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of ddp.c: DDP header encode and decode against RFC 5041
 * Figures 4 and 5, and every TERM cause of the Data Sink checks
 * (RFC 5041 7.1, 7.2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ddp.h"

#define TAGGED_SIZE	((int)sizeof(struct iwtcp_ddp_tagged_hdr))
#define UNTAGGED_SIZE	((int)sizeof(struct iwtcp_ddp_untagged_hdr))

static void assert_cause(const struct iwtcp_term_cause *c, u8 layer,
			 u8 etype, u8 ecode)
{
	assert_int_equal(c->layer, layer);
	assert_int_equal(c->etype, etype);
	assert_int_equal(c->ecode, ecode);
}

/* RFC 5041 4.2 Figure 4: T L Rsvd DV | RsvdULP | STag | TO */
static void test_build_tagged(void **state)
{
	static const u8 want[14] = {
		0xc1, 0x42, 0x12, 0x34, 0x56, 0x78,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	struct iwtcp_ddp_hdr h = {
		.last = true, .ulp_ctrl = 0x42, .stag = 0x12345678,
		.to = 0x0123456789abcdefULL,
		/* untagged fields are ignored */
		.qn = 7, .msn = 7, .mo = 7, .inval_stag = 7,
	};
	u8 buf[16];

	(void)state;
	assert_int_equal(iwtcp_ddp_build_tagged(&h, buf, sizeof(buf)), 14);
	assert_memory_equal(buf, want, 14);
	h.last = false;
	assert_int_equal(iwtcp_ddp_build_tagged(&h, buf, 14), 14);
	assert_int_equal(buf[0], 0x81);
	assert_int_equal(iwtcp_ddp_build_tagged(&h, buf, 13), -ENOSPC);
}

/* RFC 5041 4.3 Figure 5: T L Rsvd DV | RsvdULP (40 bits) | QN | MSN | MO */
static void test_build_untagged(void **state)
{
	static const u8 want[18] = {
		0x41, 0x44, 0xde, 0xad, 0xbe, 0xef,
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x01, 0x00,
	};
	/* the DDP header of RFC 5044 Figure 5: Send, QN 0, MSN 1, MO 0 */
	static const u8 fig5[18] = {
		0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	struct iwtcp_ddp_hdr h = {
		.last = true, .ulp_ctrl = 0x44, .inval_stag = 0xdeadbeef,
		.qn = 2, .msn = 1, .mo = 0x100,
		.stag = 7, .to = 7, .tagged = true,
	};
	u8 buf[18];

	(void)state;
	assert_int_equal(iwtcp_ddp_build_untagged(&h, buf, sizeof(buf)), 18);
	assert_memory_equal(buf, want, 18);
	h = (struct iwtcp_ddp_hdr){ .last = true, .ulp_ctrl = 0x43, .msn = 1 };
	assert_int_equal(iwtcp_ddp_build_untagged(&h, buf, sizeof(buf)), 18);
	assert_memory_equal(buf, fig5, 18);
	assert_int_equal(iwtcp_ddp_build_untagged(&h, buf, 17), -ENOSPC);
}

static void test_parse_round_trip(void **state)
{
	struct iwtcp_ddp_hdr in = {
		.last = true, .ulp_ctrl = 0x42, .stag = 0xfedcba98,
		.to = 0x1122334455667788ULL,
	};
	struct iwtcp_term_cause c;
	struct iwtcp_ddp_hdr out;
	u8 buf[64];

	(void)state;
	iwtcp_ddp_build_tagged(&in, buf, sizeof(buf));
	assert_int_equal(iwtcp_ddp_parse(buf, 40, &out, &c), TAGGED_SIZE);
	assert_true(out.tagged);
	assert_true(out.last);
	assert_int_equal(out.ulp_ctrl, 0x42);
	assert_int_equal(out.stag, in.stag);
	assert_true(out.to == in.to);
	assert_int_equal(out.hdr_len, 14);
	assert_int_equal(out.data_len, 26);

	in = (struct iwtcp_ddp_hdr){
		.ulp_ctrl = 0x46, .inval_stag = 0xcafe, .qn = 2,
		.msn = 0xfffffffe, .mo = 0x12345,
	};
	iwtcp_ddp_build_untagged(&in, buf, sizeof(buf));
	assert_int_equal(iwtcp_ddp_parse(buf, 18, &out, &c), UNTAGGED_SIZE);
	assert_false(out.tagged);
	assert_false(out.last);
	assert_int_equal(out.ulp_ctrl, 0x46);
	assert_int_equal(out.inval_stag, 0xcafe);
	assert_int_equal(out.qn, 2);
	assert_int_equal(out.msn, 0xfffffffe);
	assert_int_equal(out.mo, 0x12345);
	assert_int_equal(out.data_len, 0);
}

/* RFC 5041 4.1: Rsvd not checked; RsvdULP is the ULP's, passed through */
static void test_reserved_ignored(void **state)
{
	struct iwtcp_ddp_hdr h = { .msn = 1 };
	struct iwtcp_term_cause c;
	u8 buf[18];

	(void)state;
	iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
	buf[0] |= 0x3c;
	buf[1] = 0xff;
	assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), 18);
	assert_int_equal(h.ulp_ctrl, 0xff);
	buf[0] |= 0x80;
	assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), 14);
}

/* RFC 5041 4.1, 7.2: DV other than 1, one code per buffer model */
static void test_bad_version(void **state)
{
	struct iwtcp_ddp_hdr h = { .msn = 1 };
	struct iwtcp_term_cause c;
	u8 buf[18];
	int dv;

	(void)state;
	for (dv = 0; dv < 4; dv++) {
		if (dv == IWTCP_DDP_VERSION)
			continue;
		iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
		buf[0] = (buf[0] & ~0x03) | dv;
		assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_UNTAGGED,
			     IWTCP_TERM_DDP_U_VERSION);
		buf[0] |= 0x80;
		assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_TAGGED,
			     IWTCP_TERM_DDP_T_VERSION);
		/* the version is read before the length is needed */
		assert_int_equal(iwtcp_ddp_parse(buf, 2, &h, &c), -EPROTO);
		assert_int_equal(c.ecode, IWTCP_TERM_DDP_T_VERSION);
	}
}

/* A segment shorter than its header: catastrophic, code 0 */
static int parse_exact(const u8 *hdr, u32 n, struct iwtcp_term_cause *c)
{
	struct iwtcp_ddp_hdr h;
	u8 *b = malloc(n ? n : 1);
	int ret;

	assert_non_null(b);
	memcpy(b, hdr, n);
	memset(c, 0xaa, sizeof(*c));
	ret = iwtcp_ddp_parse(b, n, &h, c);
	free(b);
	return ret;
}

static void test_truncated(void **state)
{
	struct iwtcp_ddp_hdr h = { .last = true, .msn = 1 };
	struct iwtcp_term_cause c;
	u8 tagged[14], untagged[18];
	u32 n;

	(void)state;
	iwtcp_ddp_build_tagged(&h, tagged, sizeof(tagged));
	iwtcp_ddp_build_untagged(&h, untagged, sizeof(untagged));
	for (n = 0; n < 18; n++) {
		if (n < 14) {
			assert_int_equal(parse_exact(tagged, n, &c), -EPROTO);
			assert_cause(&c, IWTCP_TERM_LAYER_DDP,
				     IWTCP_TERM_DDP_CATASTROPHIC, 0);
		}
		assert_int_equal(parse_exact(untagged, n, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_DDP,
			     IWTCP_TERM_DDP_CATASTROPHIC, 0);
	}
	assert_int_equal(parse_exact(tagged, 14, &c), 14);
	assert_int_equal(parse_exact(untagged, 18, &c), 18);
}

/* RFC 5041 7.1 untagged (1), RFC 5040 4.1: QN 0, 1, 2 only */
static void test_bad_qn(void **state)
{
	static const u32 qn[] = { 3, 4, 0x100, 0x80000000, 0xffffffff };
	struct iwtcp_ddp_hdr h = { .msn = 1 };
	struct iwtcp_term_cause c;
	u8 buf[18];
	u32 i;

	(void)state;
	for (i = 0; i < IWTCP_DDP_NR_QN; i++) {
		h.qn = i;
		iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
		assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), 18);
	}
	for (i = 0; i < ARRAY_SIZE(qn); i++) {
		h.qn = qn[i];
		iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
		assert_int_equal(iwtcp_ddp_parse(buf, 18, &h, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_UNTAGGED,
			     IWTCP_TERM_DDP_U_INV_QN);
	}
}

/* RFC 5041 7.1 tagged (5): TO + length must not wrap; 5.2: not if empty */
static void test_to_wrap(void **state)
{
	struct iwtcp_ddp_hdr h = { .tagged = true, .last = true };
	struct iwtcp_term_cause c;
	u8 buf[14 + 11];

	(void)state;
	memset(buf, 0, sizeof(buf));
	h.to = ~0ULL - 9;	/* 10 octets reach the last TO exactly */
	iwtcp_ddp_build_tagged(&h, buf, sizeof(buf));
	assert_int_equal(iwtcp_ddp_parse(buf, 14 + 10, &h, &c), 14);
	assert_int_equal(iwtcp_ddp_parse(buf, 14 + 11, &h, &c), -EPROTO);
	assert_cause(&c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_TAGGED,
		     IWTCP_TERM_DDP_T_TO_WRAP);
	h.to = ~0ULL;
	iwtcp_ddp_build_tagged(&h, buf, sizeof(buf));
	assert_int_equal(iwtcp_ddp_parse(buf, 14, &h, &c), 14);
	assert_int_equal(iwtcp_ddp_parse(buf, 15, &h, &c), 14);
	assert_int_equal(iwtcp_ddp_parse(buf, 16, &h, &c), -EPROTO);
}

static int check(u32 msn, u32 mo, u32 len, bool last,
		 const struct iwtcp_ddp_queue *q, struct iwtcp_term_cause *c)
{
	struct iwtcp_ddp_hdr h = {
		.last = last, .msn = msn, .mo = mo, .hdr_len = 18,
		.data_len = len,
	};

	memset(c, 0xaa, sizeof(*c));
	return iwtcp_ddp_check_untagged(&h, q, c);
}

static void assert_untagged(const struct iwtcp_term_cause *c, u8 ecode)
{
	assert_cause(c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_UNTAGGED, ecode);
}

/* RFC 5041 7.1 untagged (2), (5): MSN in [msn, msn + nr_msn) */
static void test_msn(void **state)
{
	struct iwtcp_ddp_queue q = { .msn = 5, .nr_msn = 3, .buf_size = 100 };
	struct iwtcp_term_cause c;

	(void)state;
	assert_int_equal(check(5, 0, 10, true, &q, &c), 0);
	assert_int_equal(check(6, 0, 10, true, &q, &c), 0);
	assert_int_equal(check(7, 0, 10, true, &q, &c), 0);
	/* one past the buffers posted: no buffer */
	assert_int_equal(check(8, 0, 10, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	assert_int_equal(check(5 + 0x7fffffffU, 0, 10, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	/* behind: a message already complete */
	assert_int_equal(check(4, 0, 10, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_RANGE);
	assert_int_equal(check(5 + 0x80000000U, 0, 10, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_RANGE);
	assert_int_equal(check(0, 0, 10, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_RANGE);
	/* no buffer at all, even zero-length */
	q.nr_msn = 0;
	assert_int_equal(check(5, 0, 0, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	/* modulo 2^32 (RFC 5041 4.3: MSN wraps) */
	q = (struct iwtcp_ddp_queue){ .msn = 0xffffffff, .nr_msn = 3,
				      .buf_size = 100 };
	assert_int_equal(check(0xffffffff, 0, 1, true, &q, &c), 0);
	assert_int_equal(check(0, 0, 1, true, &q, &c), 0);
	assert_int_equal(check(1, 0, 1, true, &q, &c), 0);
	assert_int_equal(check(2, 0, 1, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	assert_int_equal(check(0xfffffffe, 0, 1, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_RANGE);
}

/* RFC 5041 7.1 untagged (3), (4) and the L flag */
static void test_mo(void **state)
{
	struct iwtcp_ddp_queue q = { .msn = 1, .nr_msn = 1, .buf_size = 100 };
	struct iwtcp_term_cause c;

	(void)state;
	assert_int_equal(check(1, 0, 100, true, &q, &c), 0);
	assert_int_equal(check(1, 90, 10, true, &q, &c), 0);
	assert_int_equal(check(1, 99, 1, true, &q, &c), 0);
	assert_int_equal(check(1, 0, 50, false, &q, &c), 0);
	assert_int_equal(check(1, 0, 0, false, &q, &c), 0);
	/* a zero-length segment may end the message at the buffer's end */
	assert_int_equal(check(1, 100, 0, true, &q, &c), 0);
	/* MO outside the buffer */
	assert_int_equal(check(1, 101, 0, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MO);
	assert_int_equal(check(1, 100, 1, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MO);
	assert_int_equal(check(1, 0xffffffff, 1, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MO);
	/* MO + length past the end */
	assert_int_equal(check(1, 90, 11, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_TOO_LONG);
	assert_int_equal(check(1, 1, 0xffffffff, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_TOO_LONG);
	/* not last, and the buffer is already full */
	assert_int_equal(check(1, 90, 10, false, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_TOO_LONG);
	/* a zero-size buffer takes only a zero-length message */
	q.buf_size = 0;
	assert_int_equal(check(1, 0, 0, true, &q, &c), 0);
	assert_int_equal(check(1, 0, 1, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MO);
	assert_int_equal(check(1, 0, 0, false, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_TOO_LONG);
}

/* MSN is checked before MO; tagged headers are refused */
static void test_check_order(void **state)
{
	struct iwtcp_ddp_queue q = { .msn = 1, .nr_msn = 1, .buf_size = 10 };
	struct iwtcp_ddp_hdr h = { .tagged = true };
	struct iwtcp_term_cause c;

	(void)state;
	assert_int_equal(check(2, 50, 50, true, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	assert_int_equal(iwtcp_ddp_check_untagged(&h, &q, &c), -EINVAL);
}

/* parse then check: the path the receiver takes */
static void test_parse_then_check(void **state)
{
	struct iwtcp_ddp_queue q = { .msn = 1, .nr_msn = 1, .buf_size = 64 };
	struct iwtcp_ddp_hdr h = {
		.last = true, .ulp_ctrl = 0x43, .qn = 0, .msn = 1, .mo = 32,
	};
	struct iwtcp_term_cause c;
	u8 buf[18 + 33];

	(void)state;
	memset(buf, 0x5a, sizeof(buf));
	iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
	assert_int_equal(iwtcp_ddp_parse(buf, 18 + 32, &h, &c), 18);
	assert_int_equal(iwtcp_ddp_check_untagged(&h, &q, &c), 0);
	/* the message is MO + data octets long */
	assert_int_equal(h.mo + h.data_len, 64);
	assert_int_equal(iwtcp_ddp_parse(buf, 18 + 33, &h, &c), 18);
	assert_int_equal(iwtcp_ddp_check_untagged(&h, &q, &c), -EPROTO);
	assert_untagged(&c, IWTCP_TERM_DDP_U_TOO_LONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_tagged),
		cmocka_unit_test(test_build_untagged),
		cmocka_unit_test(test_parse_round_trip),
		cmocka_unit_test(test_reserved_ignored),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_qn),
		cmocka_unit_test(test_to_wrap),
		cmocka_unit_test(test_msn),
		cmocka_unit_test(test_mo),
		cmocka_unit_test(test_check_order),
		cmocka_unit_test(test_parse_then_check),
	};

	return cmocka_run_group_tests_name("ddp", tests, NULL, NULL);
}
