// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of rdmap.c: the RDMAP control field checks (RFC 5040
 * 4.1), Read Request (4.4) and Terminate (4.8) headers against the RFC
 * figures, and the RTR messages of RFC 6581 9.2 through the FPDU encoder
 * and decoder in all four CRC and marker modes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fpdu.h"
#include "mpa.h"
#include "rdmap.h"

#define RV1		0x40	/* RFC 5040 4.1: RV = 01b in the RDMAP octet */
#define T		true
#define U		false

static void assert_cause(const struct iwtcp_term_cause *c, u8 layer,
			 u8 etype, u8 ecode)
{
	assert_int_equal(c->layer, layer);
	assert_int_equal(c->etype, etype);
	assert_int_equal(c->ecode, ecode);
}

/* one segment: DDP header with @ulp_ctrl, then @data_len octets */
struct seg {
	bool tagged;
	u8 ulp_ctrl;
	u32 qn;
	bool last;
	u32 mo;
	u32 data_len;
};

/* build @s, parse it with DDP and check it with RDMAP, in an exact buffer */
static int check_seg(const struct seg *s, struct iwtcp_term_cause *c)
{
	struct iwtcp_ddp_hdr h = {
		.last = s->last, .ulp_ctrl = s->ulp_ctrl, .qn = s->qn,
		.msn = 1, .mo = s->mo,
	};
	u32 hl = s->tagged ? 14 : 18;
	u8 *b = calloc(1, hl + s->data_len);
	int ret;

	assert_non_null(b);
	if (s->tagged)
		iwtcp_ddp_build_tagged(&h, b, hl);
	else
		iwtcp_ddp_build_untagged(&h, b, hl);
	assert_int_equal(iwtcp_ddp_parse(b, hl + s->data_len, &h, c), hl);
	memset(c, 0xaa, sizeof(*c));
	ret = iwtcp_rdmap_check(&h, c);
	free(b);
	return ret;
}

/* RFC 5040 4.1 Figure 4: every defined opcode in its model and queue */
static void test_check_valid(void **state)
{
	static const struct seg ok[] = {
		{ T, RV1 | IWTCP_RDMAP_WRITE, 0, true, 0, 0 },
		{ T, RV1 | IWTCP_RDMAP_WRITE, 0, false, 0, 1000 },
		{ T, RV1 | IWTCP_RDMAP_READ_RESP, 0, true, 0, 100 },
		{ U, RV1 | IWTCP_RDMAP_READ_REQ, 1, true, 0, 28 },
		{ U, RV1 | IWTCP_RDMAP_SEND, 0, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_SEND, 0, false, 4096, 1000 },
		{ U, RV1 | IWTCP_RDMAP_SEND_INV, 0, true, 0, 1 },
		{ U, RV1 | IWTCP_RDMAP_SEND_SE, 0, true, 0, 1 },
		{ U, RV1 | IWTCP_RDMAP_SEND_SE_INV, 0, true, 0, 1 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 0, 4 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 0, 52 },
		/* RFC 5040 4.1: Rsv is not checked */
		{ U, RV1 | 0x30 | IWTCP_RDMAP_SEND, 0, true, 0, 0 },
	};
	struct iwtcp_term_cause c;
	u32 i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ok); i++)
		assert_int_equal(check_seg(&ok[i], &c), 0);
}

/* RFC 5040 4.1: RV other than 1 */
static void test_check_bad_version(void **state)
{
	struct seg s = { U, IWTCP_RDMAP_SEND, 0, true, 0, 0 };
	struct iwtcp_term_cause c;
	u8 rv;

	(void)state;
	for (rv = 0; rv < 4; rv++) {
		if (rv == IWTCP_RDMAP_VERSION)
			continue;
		s.ulp_ctrl = rv << 6 | IWTCP_RDMAP_SEND;
		assert_int_equal(check_seg(&s, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_RDMAP,
			     IWTCP_TERM_RDMAP_REMOTE_OP,
			     IWTCP_TERM_RDMAP_VERSION);
	}
}

/* RFC 5040 4.1 Figure 4: 1000b to 1111b are reserved */
static void test_check_undefined_opcode(void **state)
{
	struct seg s = { U, 0, 0, true, 0, 64 };
	struct iwtcp_term_cause c;
	u8 op;

	(void)state;
	for (op = 8; op < 16; op++) {
		s.tagged = false;
		s.ulp_ctrl = RV1 | op;
		assert_int_equal(check_seg(&s, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_RDMAP,
			     IWTCP_TERM_RDMAP_REMOTE_OP,
			     IWTCP_TERM_RDMAP_OPCODE);
		s.tagged = true;
		assert_int_equal(check_seg(&s, &c), -EPROTO);
		assert_int_equal(c.ecode, IWTCP_TERM_RDMAP_OPCODE);
	}
}

/* RFC 5040 4.1 Figure 4: opcode in the wrong buffer model or queue */
static void test_check_model_mismatch(void **state)
{
	static const struct seg bad[] = {
		/* T clear for a tagged opcode */
		{ U, RV1 | IWTCP_RDMAP_WRITE, 0, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_READ_RESP, 0, true, 0, 0 },
		/* T set for an untagged one */
		{ T, RV1 | IWTCP_RDMAP_SEND, 0, true, 0, 0 },
		{ T, RV1 | IWTCP_RDMAP_SEND_SE_INV, 0, true, 0, 0 },
		{ T, RV1 | IWTCP_RDMAP_READ_REQ, 0, true, 0, 28 },
		{ T, RV1 | IWTCP_RDMAP_TERMINATE, 0, true, 0, 4 },
		/* wrong queue */
		{ U, RV1 | IWTCP_RDMAP_SEND, 1, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_SEND_INV, 2, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_READ_REQ, 0, true, 0, 28 },
		{ U, RV1 | IWTCP_RDMAP_READ_REQ, 2, true, 0, 28 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 0, true, 0, 4 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 1, true, 0, 4 },
	};
	struct iwtcp_term_cause c;
	u32 i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(check_seg(&bad[i], &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_RDMAP,
			     IWTCP_TERM_RDMAP_REMOTE_OP,
			     IWTCP_TERM_RDMAP_OPCODE);
	}
}

/* RFC 5040 4.4, 4.8: shorter than the opcode's header */
static void test_check_too_short(void **state)
{
	static const struct seg bad[] = {
		{ U, RV1 | IWTCP_RDMAP_READ_REQ, 1, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_READ_REQ, 1, true, 0, 27 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 0, 0 },
		{ U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 0, 3 },
	};
	struct iwtcp_term_cause c;
	u32 i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(check_seg(&bad[i], &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_RDMAP,
			     IWTCP_TERM_RDMAP_REMOTE_OP,
			     IWTCP_TERM_RDMAP_CATASTROPHIC_STREAM);
	}
}

/* Read Request and Terminate: one segment, no more than the header */
static void test_check_single_segment(void **state)
{
	static const struct {
		struct seg s;
		u8 ecode;
	} bad[] = {
		{ { U, RV1 | IWTCP_RDMAP_READ_REQ, 1, true, 0, 29 },
		  IWTCP_TERM_DDP_U_TOO_LONG },
		{ { U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 0, 53 },
		  IWTCP_TERM_DDP_U_TOO_LONG },
		{ { U, RV1 | IWTCP_RDMAP_READ_REQ, 1, false, 0, 28 },
		  IWTCP_TERM_DDP_U_TOO_LONG },
		{ { U, RV1 | IWTCP_RDMAP_TERMINATE, 2, false, 0, 4 },
		  IWTCP_TERM_DDP_U_TOO_LONG },
		{ { U, RV1 | IWTCP_RDMAP_READ_REQ, 1, true, 28, 28 },
		  IWTCP_TERM_DDP_U_INV_MO },
		{ { U, RV1 | IWTCP_RDMAP_TERMINATE, 2, true, 4, 4 },
		  IWTCP_TERM_DDP_U_INV_MO },
	};
	struct iwtcp_term_cause c;
	u32 i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(check_seg(&bad[i].s, &c), -EPROTO);
		assert_cause(&c, IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_UNTAGGED,
			     bad[i].ecode);
	}
}

/* RFC 5040 4.4 Figure 6, after the untagged DDP header of Figure 5 */
static void test_read_req_bytes(void **state)
{
	static const u8 want[46] = {
		0x41, 0x41, 0x00, 0x00, 0x00, 0x00,	/* L, DV 1 | RV 1, op 1 */
		0x00, 0x00, 0x00, 0x01,			/* QN 1 */
		0x00, 0x00, 0x00, 0x05,			/* MSN 5 */
		0x00, 0x00, 0x00, 0x00,			/* MO 0 */
		0x11, 0x22, 0x33, 0x44,			/* Data Sink STag */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x01, 0x00, 0x00,			/* Read Message Size */
		0x55, 0x66, 0x77, 0x88,			/* Data Source STag */
		0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
	};
	struct iwtcp_rdmap_read rr = {
		.sink_stag = 0x11223344, .sink_to = 0x0102030405060708ULL,
		.size = 0x10000, .src_stag = 0x55667788,
		.src_to = 0x0a0b0c0d0e0f1011ULL,
	}, out;
	struct iwtcp_term_cause c;
	struct iwtcp_ddp_hdr h;
	u8 buf[64];

	(void)state;
	assert_int_equal(IWTCP_RDMAP_READ_REQ_LEN, 46);
	assert_int_equal(iwtcp_rdmap_build_read_req(&rr, 5, buf, sizeof(buf)),
			 46);
	assert_memory_equal(buf, want, 46);
	assert_int_equal(iwtcp_rdmap_build_read_req(&rr, 5, buf, 45), -ENOSPC);
	assert_int_equal(iwtcp_ddp_parse(want, 46, &h, &c), 18);
	assert_int_equal(iwtcp_rdmap_check(&h, &c), 0);
	assert_int_equal(iwtcp_rdmap_parse_read_req(want, 46, &out), 0);
	assert_int_equal(out.sink_stag, rr.sink_stag);
	assert_true(out.sink_to == rr.sink_to);
	assert_int_equal(out.size, rr.size);
	assert_int_equal(out.src_stag, rr.src_stag);
	assert_true(out.src_to == rr.src_to);
	assert_int_equal(iwtcp_rdmap_parse_read_req(want, 45, &out), -EBADMSG);
	assert_int_equal(iwtcp_rdmap_parse_read_req(buf, 47, &out), -EBADMSG);
}

/* the Terminate DDP header: L, QN 2, MSN 1, MO 0, RV 1, opcode 0111b */
static const u8 term_ddp[18] = {
	0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0,
};

static void term_round_trip(const struct iwtcp_rdmap_term *t, const u8 *buf,
			    int len)
{
	struct iwtcp_rdmap_term out;
	struct iwtcp_term_cause c;
	struct iwtcp_ddp_hdr h;
	u8 *b = malloc(len);

	assert_non_null(b);
	memcpy(b, buf, len);
	assert_int_equal(iwtcp_ddp_parse(b, len, &h, &c), 18);
	assert_int_equal(iwtcp_rdmap_check(&h, &c), 0);
	assert_int_equal(iwtcp_rdmap_parse_term(b, len, &out), 0);
	assert_memory_equal(&out.cause, &t->cause, sizeof(t->cause));
	assert_int_equal(out.seg_len_valid, t->seg_len_valid);
	assert_int_equal(out.seg_len, t->seg_len_valid ? t->seg_len : 0);
	assert_int_equal(out.ddp_len, t->ddp_len);
	assert_memory_equal(out.ddp_hdr, t->ddp_hdr, t->ddp_len);
	assert_int_equal(out.rdmap_hdr_valid, t->rdmap_hdr_valid);
	if (t->rdmap_hdr_valid)
		assert_memory_equal(out.rdmap_hdr, t->rdmap_hdr, 28);
	/* one octet less or more does not match M, D and R */
	assert_int_equal(iwtcp_rdmap_parse_term(b, len - 1, &out), -EBADMSG);
	free(b);
	b = calloc(1, len + 1);
	assert_non_null(b);
	memcpy(b, buf, len);
	assert_int_equal(iwtcp_rdmap_parse_term(b, len + 1, &out), -EBADMSG);
	free(b);
}

/* RFC 5040 4.8 Figures 7, 8: control word only (an MPA error) */
static void test_term_bare(void **state)
{
	struct iwtcp_rdmap_term t = {
		.cause = { IWTCP_TERM_LAYER_LLP, IWTCP_TERM_MPA,
			   IWTCP_TERM_MPA_CRC },
	};
	u8 buf[80];

	(void)state;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, sizeof(buf)), 22);
	assert_memory_equal(buf, term_ddp, 18);
	assert_int_equal(buf[18], 0x20);
	assert_int_equal(buf[19], 0x02);
	assert_int_equal(buf[20], 0x00);
	assert_int_equal(buf[21], 0x00);
	term_round_trip(&t, buf, 22);
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 21), -ENOSPC);
}

/* M and D with the untagged DDP header of the terminated Send */
static void test_term_ddp_untagged(void **state)
{
	static const u8 send_hdr[18] = {
		0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0,
	};
	static const u8 want[24] = {
		0x12, 0x03, 0xc0, 0x00,	/* DDP, untagged, MSN range; M D */
		0x00, 0x76,		/* DDP Segment Length 118 */
		0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0,
	};
	struct iwtcp_rdmap_term t = {
		.cause = { IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_UNTAGGED,
			   IWTCP_TERM_DDP_U_INV_MSN_RANGE },
		.seg_len_valid = true, .seg_len = 118, .ddp_len = 18,
	};
	u8 buf[80];

	(void)state;
	memcpy(t.ddp_hdr, send_hdr, 18);
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, sizeof(buf)), 42);
	assert_memory_equal(buf, term_ddp, 18);
	assert_memory_equal(buf + 18, want, 24);
	term_round_trip(&t, buf, 42);
	/* D without M: the length field is sent as 0 */
	t.seg_len_valid = false;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, sizeof(buf)), 42);
	assert_int_equal(buf[20], 0x40);
	assert_int_equal(buf[22], 0);
	assert_int_equal(buf[23], 0);
	term_round_trip(&t, buf, 42);
}

/* D with a tagged header: its T bit gives 14 octets */
static void test_term_ddp_tagged(void **state)
{
	struct iwtcp_rdmap_term t = {
		.cause = { IWTCP_TERM_LAYER_DDP, IWTCP_TERM_DDP_TAGGED,
			   IWTCP_TERM_DDP_T_INV_STAG },
		.seg_len_valid = true, .seg_len = 14 + 512, .ddp_len = 14,
		.ddp_hdr = { 0xc1, 0x40, 0xde, 0xad, 0xbe, 0xef,
			     1, 2, 3, 4, 5, 6, 7, 8 },
	};
	u8 buf[80];

	(void)state;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, sizeof(buf)), 38);
	assert_int_equal(buf[18], 0x11);
	assert_int_equal(buf[19], 0x00);
	assert_int_equal(buf[20], 0xc0);
	assert_int_equal(buf[22], 0x02);
	assert_int_equal(buf[23], 0x0e);
	assert_memory_equal(buf + 24, t.ddp_hdr, 14);
	term_round_trip(&t, buf, 38);
}

/* M, D and R: a Read Request that failed its STag check, 70 octets */
static void test_term_read_req(void **state)
{
	struct iwtcp_rdmap_read rr = { .sink_stag = 9, .size = 4096,
				       .src_stag = 0xbad };
	struct iwtcp_rdmap_term t = {
		.cause = { IWTCP_TERM_LAYER_RDMAP,
			   IWTCP_TERM_RDMAP_REMOTE_PROT,
			   IWTCP_TERM_RDMAP_INV_STAG },
		.seg_len_valid = true, .seg_len = 46, .ddp_len = 18,
		.rdmap_hdr_valid = true,
	};
	u8 req[46], buf[80];

	(void)state;
	iwtcp_rdmap_build_read_req(&rr, 3, req, sizeof(req));
	memcpy(t.ddp_hdr, req, 18);
	memcpy(t.rdmap_hdr, req + 18, 28);
	assert_int_equal(iwtcp_rdmap_build_term(&t, 4, buf, sizeof(buf)), 70);
	assert_int_equal(buf[13], 4);			/* MSN 4 */
	assert_int_equal(buf[18], 0x01);
	assert_int_equal(buf[19], 0x00);
	assert_int_equal(buf[20], 0xe0);
	assert_memory_equal(buf + 24, req, 46);
	term_round_trip(&t, buf, 70);
	/* R alone */
	t.ddp_len = 0;
	t.seg_len_valid = false;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 4, buf, sizeof(buf)), 50);
	assert_int_equal(buf[20], 0x20);
	term_round_trip(&t, buf, 50);
}

static void test_term_invalid(void **state)
{
	struct iwtcp_rdmap_term t = {
		.cause = { IWTCP_TERM_LAYER_DDP, 0, 0 },
		.seg_len_valid = true,
	};
	u8 buf[80];

	(void)state;
	/* M without D */
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), -EINVAL);
	/* length that disagrees with the copied header's T bit */
	t.ddp_len = 14;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), -EINVAL);
	t.ddp_hdr[0] = 0x81;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), 38);
	t.ddp_len = 18;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), -EINVAL);
	t.ddp_len = 0;
	t.seg_len_valid = false;
	/* 4-bit layer and type */
	t.cause.layer = 16;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), -EINVAL);
	t.cause.layer = 15;
	t.cause.etype = 16;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), -EINVAL);
	t.cause.etype = 15;
	t.cause.ecode = 0xff;
	assert_int_equal(iwtcp_rdmap_build_term(&t, 1, buf, 80), 22);
	assert_int_equal(buf[18], 0xff);
	assert_int_equal(buf[19], 0xff);
	/* too short for the control word */
	assert_int_equal(iwtcp_rdmap_parse_term(buf, 21, &t), -EBADMSG);
	/* D set, but nothing after the control word */
	buf[20] = 0x40;
	assert_int_equal(iwtcp_rdmap_parse_term(buf, 22, &t), -EBADMSG);
}

/* RFC 6581 9.2: the three RTR messages, octet by octet */
static void test_rtr_bytes(void **state)
{
	static const u8 send[18] = {
		0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	static const u8 write[14] = {
		0xc1, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const u8 read[46] = {
		0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,	/* sink STag 1, TO 0 */
		0, 0, 0, 0,				/* size 0 */
		0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,	/* source STag 1, TO 0 */
	};
	u8 buf[64];

	(void)state;
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_SEND, 1, buf, 64),
			 18);
	assert_memory_equal(buf, send, 18);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_WRITE, 1, buf, 64),
			 14);
	assert_memory_equal(buf, write, 14);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_READ, 1, buf, 64),
			 46);
	assert_memory_equal(buf, read, 46);
	assert_int_equal(iwtcp_rdmap_build_rtr(0, 1, buf, 64), -EINVAL);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_ALL, 1, buf, 64),
			 -EINVAL);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_SEND |
					       IWTCP_MPA_RTR_WRITE, 1, buf, 64),
			 -EINVAL);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_SEND, 1, buf, 17),
			 -ENOSPC);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_WRITE, 1, buf, 13),
			 -ENOSPC);
	assert_int_equal(iwtcp_rdmap_build_rtr(IWTCP_MPA_RTR_READ, 1, buf, 45),
			 -ENOSPC);
}

static u8 rtr_exact(const u8 *ulpdu, u32 len)
{
	u8 *b = malloc(len ? len : 1);
	u8 type;

	assert_non_null(b);
	memcpy(b, ulpdu, len);
	type = iwtcp_rdmap_rtr_type(b, len);
	free(b);
	return type;
}

/* build -> iwtcp_fpdu_build -> iwtcp_fpdu_parse -> recogniser */
static void test_rtr_fpdu_round_trip(void **state)
{
	static const u8 types[] = {
		IWTCP_MPA_RTR_SEND, IWTCP_MPA_RTR_WRITE, IWTCP_MPA_RTR_READ,
	};
	/* stream offsets: marker before, none, and one inside the FPDU */
	static const u32 offs[] = { 0, 4, 496, 1020 };
	struct iwtcp_fpdu_stream tx, rx;
	u8 ulpdu[64], wire[128], out[64];
	u32 t, mode, o, ulen;
	int n, len;

	(void)state;
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		n = iwtcp_rdmap_build_rtr(types[t], IWTCP_DDP_MSN_INIT, ulpdu,
					  sizeof(ulpdu));
		assert_true(n > 0);
		for (mode = 0; mode < 4; mode++) {
			for (o = 0; o < ARRAY_SIZE(offs); o++) {
				tx = (struct iwtcp_fpdu_stream){
					.off = offs[o], .crc = mode & 1,
					.markers = mode & 2,
				};
				rx = tx;
				len = iwtcp_fpdu_build(&tx, ulpdu, n, wire,
						       sizeof(wire));
				assert_true(len >= n + 6);
				assert_int_equal(iwtcp_fpdu_parse(&rx, wire, len,
								  out,
								  sizeof(out),
								  &ulen),
						 len);
				assert_int_equal(ulen, n);
				assert_int_equal(rx.off, tx.off);
				assert_int_equal(rtr_exact(out, ulen),
						 types[t]);
			}
		}
	}
}

/* anything but a valid zero-length first message is no RTR */
static void test_rtr_reject(void **state)
{
	struct iwtcp_rdmap_read rr = { .src_stag = 1 };
	struct iwtcp_ddp_hdr h = { .last = true, .msn = 1 };
	u8 buf[64];
	int n, i;

	(void)state;
	/* every truncation of every RTR */
	for (i = 1; i <= 4; i <<= 1) {
		n = iwtcp_rdmap_build_rtr(i, 1, buf, sizeof(buf));
		assert_int_equal(rtr_exact(buf, n), i);
		while (n--)
			assert_int_equal(rtr_exact(buf, n), 0);
	}
	/* Send: payload, MSN 2, not last, MO 4, SE, bad DV, bad RV */
	h.ulp_ctrl = RV1 | IWTCP_RDMAP_SEND;
	iwtcp_ddp_build_untagged(&h, buf, sizeof(buf));
	assert_int_equal(rtr_exact(buf, 18), IWTCP_MPA_RTR_SEND);
	assert_int_equal(rtr_exact(buf, 19), 0);
	buf[13] = 2;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[13] = 1;
	buf[0] &= ~0x40;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[0] |= 0x40;
	buf[17] = 4;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[17] = 0;
	buf[1] = RV1 | IWTCP_RDMAP_SEND_SE;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[1] = RV1 | IWTCP_RDMAP_SEND_INV;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[1] = RV1 | IWTCP_RDMAP_SEND;
	buf[0] ^= 0x03;
	assert_int_equal(rtr_exact(buf, 18), 0);
	buf[0] ^= 0x03;
	buf[1] = 0x80 | IWTCP_RDMAP_SEND;
	assert_int_equal(rtr_exact(buf, 18), 0);
	/* Send: the Invalidate STag field is not looked at */
	buf[1] = RV1 | IWTCP_RDMAP_SEND;
	buf[2] = 0xff;
	assert_int_equal(rtr_exact(buf, 18), IWTCP_MPA_RTR_SEND);

	/* Write: any STag and TO, but no payload and L set */
	h = (struct iwtcp_ddp_hdr){ .last = true, .ulp_ctrl = RV1,
				    .stag = 0, .to = ~0ULL };
	iwtcp_ddp_build_tagged(&h, buf, sizeof(buf));
	assert_int_equal(rtr_exact(buf, 14), IWTCP_MPA_RTR_WRITE);
	memset(buf + 14, 0, 4);
	assert_int_equal(rtr_exact(buf, 15), 0);
	buf[0] &= ~0x40;
	assert_int_equal(rtr_exact(buf, 14), 0);
	/* a zero-length Read Response is no RTR */
	h.ulp_ctrl = RV1 | IWTCP_RDMAP_READ_RESP;
	iwtcp_ddp_build_tagged(&h, buf, sizeof(buf));
	assert_int_equal(rtr_exact(buf, 14), 0);

	/* Read: size 0 and MSN 1 only; STags and TOs free */
	assert_int_equal(iwtcp_rdmap_build_read_req(&rr, 1, buf, 64), 46);
	assert_int_equal(rtr_exact(buf, 46), IWTCP_MPA_RTR_READ);
	rr.size = 1;
	iwtcp_rdmap_build_read_req(&rr, 1, buf, 64);
	assert_int_equal(rtr_exact(buf, 46), 0);
	rr.size = 0;
	iwtcp_rdmap_build_read_req(&rr, 2, buf, 64);
	assert_int_equal(rtr_exact(buf, 46), 0);

	/* a Terminate is no RTR */
	n = iwtcp_rdmap_build_term(&(struct iwtcp_rdmap_term){}, 1, buf, 64);
	assert_int_equal(rtr_exact(buf, n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_valid),
		cmocka_unit_test(test_check_bad_version),
		cmocka_unit_test(test_check_undefined_opcode),
		cmocka_unit_test(test_check_model_mismatch),
		cmocka_unit_test(test_check_too_short),
		cmocka_unit_test(test_check_single_segment),
		cmocka_unit_test(test_read_req_bytes),
		cmocka_unit_test(test_term_bare),
		cmocka_unit_test(test_term_ddp_untagged),
		cmocka_unit_test(test_term_ddp_tagged),
		cmocka_unit_test(test_term_read_req),
		cmocka_unit_test(test_term_invalid),
		cmocka_unit_test(test_rtr_bytes),
		cmocka_unit_test(test_rtr_fpdu_round_trip),
		cmocka_unit_test(test_rtr_reject),
	};

	return cmocka_run_group_tests_name("rdmap", tests, NULL, NULL);
}
