// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of mpa.c: MPA Request/Reply encode and decode
 * (RFC 5044 7.1.1, RFC 6581 6 and 9) and the RFC 6581 negotiation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "mpa.h"

/* the vector table overrides defaults with later designated initializers */
#pragma GCC diagnostic ignored "-Woverride-init"

#define HDR_SIZE	((int)sizeof(struct iwtcp_mpa_hdr))

static const u8 key_req[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

static const u8 key_rep[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

/* RFC 5044 7.1.1: the keys in hex */
static void test_keys(void **state)
{
	(void)state;
	assert_memory_equal(IWTCP_MPA_KEY_REQ, key_req, 16);
	assert_memory_equal(IWTCP_MPA_KEY_REP, key_rep, 16);
	assert_int_equal(strlen(IWTCP_MPA_KEY_REQ), IWTCP_MPA_KEY_SIZE);
	assert_int_equal(strlen(IWTCP_MPA_KEY_REP), IWTCP_MPA_KEY_SIZE);
}

/* Exact octets of an enhanced Reply: every bit lands where the RFCs say */
static void test_encode_bits(void **state)
{
	static const u8 pd[3] = { 0xaa, 0xbb, 0xcc };
	struct iwtcp_mpa_frame f = {
		.rev = 2, .markers = true, .crc = true, .reject = true,
		.enhanced = true, .p2p = true, .rtr = IWTCP_MPA_RTR_ALL,
		.ird = 0x1234, .ord = 0x0abc, .pd = pd, .pd_len = sizeof(pd),
	};
	static const u8 want[] = {
		/* RFC 5044 7.1.1: M C R, RFC 6581 6: S; Rev 2; PD_Length 7 */
		0xf0, 0x02, 0x00, 0x07,
		/* RFC 6581 9: A B IRD=0x1234 | C D ORD=0x0abc */
		0xd2, 0x34, 0xca, 0xbc,
		0xaa, 0xbb, 0xcc,
	};
	u8 buf[64];

	(void)state;
	assert_int_equal(iwtcp_mpa_build(IWTCP_MPA_REPLY, &f, buf, sizeof(buf)),
			 HDR_SIZE + 7);
	assert_memory_equal(buf, key_rep, 16);
	assert_memory_equal(buf + 16, want, sizeof(want));

	/* RFC 5044 7.1.1: R is zero in a Request */
	assert_int_equal(iwtcp_mpa_build(IWTCP_MPA_REQUEST, &f, buf, sizeof(buf)),
			 HDR_SIZE + 7);
	assert_memory_equal(buf, key_req, 16);
	assert_int_equal(buf[16], 0xd0);

	/* RFC 6581 9.2: with A = 0 the B, C and D flags are sent as 0 */
	f.p2p = false;
	iwtcp_mpa_build(IWTCP_MPA_REPLY, &f, buf, sizeof(buf));
	assert_int_equal(buf[20], 0x12);
	assert_int_equal(buf[22], 0x0a);
}

static void check_same(const struct iwtcp_mpa_frame *a,
		       const struct iwtcp_mpa_frame *b,
		       enum iwtcp_mpa_frame_type type)
{
	assert_int_equal(a->rev, b->rev);
	assert_int_equal(a->markers, b->markers);
	assert_int_equal(a->crc, b->crc);
	assert_int_equal(b->reject, type == IWTCP_MPA_REPLY && a->reject);
	assert_int_equal(a->enhanced, b->enhanced);
	assert_int_equal(a->pd_len, b->pd_len);
	if (a->pd_len)
		assert_memory_equal(a->pd, b->pd, a->pd_len);
	if (!a->enhanced)
		return;
	assert_int_equal(a->p2p, b->p2p);
	assert_int_equal(a->p2p ? a->rtr : 0, b->rtr);
	assert_int_equal(a->ird, b->ird);
	assert_int_equal(a->ord, b->ord);
}

/* Encode, decode, compare: both types, both revisions, every flag */
static void test_round_trip(void **state)
{
	static const u16 ird_ord[] = { 0, 1, 0x1234, IWTCP_MPA_IRD_ORD_MAX };
	static const u16 pd_lens[] = { 0, 1, 3, 4, 255, 508, 512 };
	struct iwtcp_mpa_frame f, g;
	u8 pd[IWTCP_MPA_PD_MAX];
	u8 buf[HDR_SIZE + IWTCP_MPA_PD_MAX];
	unsigned int bits, i, n = 0;
	int type, ret;

	(void)state;
	for (i = 0; i < sizeof(pd); i++)
		pd[i] = (u8)(i * 7 + 1);
	for (type = 0; type < 2; type++) {
		for (bits = 0; bits < 256; bits++) {
			memset(&f, 0, sizeof(f));
			f.rev = bits & 1 ? 2 : 1;
			f.markers = bits & 2;
			f.crc = bits & 4;
			f.reject = bits & 8;
			f.enhanced = f.rev == 2 && (bits & 16);
			f.p2p = bits & 32;
			f.rtr = (bits >> 6) | ((bits & 1) << 2);
			f.ird = ird_ord[bits % 4];
			f.ord = ird_ord[(bits / 4) % 4];
			f.pd = pd;
			f.pd_len = pd_lens[bits % 7];
			if (f.enhanced && f.pd_len > 508)
				f.pd_len = 508;
			ret = iwtcp_mpa_build(type, &f, buf, sizeof(buf));
			assert_int_equal(ret, HDR_SIZE + f.pd_len +
					 (f.enhanced ? 4 : 0));
			assert_int_equal(iwtcp_mpa_frame_len(buf, ret), ret);
			assert_int_equal(iwtcp_mpa_parse(buf, ret, type, &g), ret);
			check_same(&f, &g, type);
			/* trailing octets (an FPDU) are left alone */
			assert_int_equal(iwtcp_mpa_parse(buf, sizeof(buf), type,
							 &g), ret);
			n++;
		}
	}
	assert_int_equal(n, 512);
}

static int make_raw(u8 *buf, const u8 *key, u8 b16, u8 rev, u16 pd_len)
{
	memcpy(buf, key, 16);
	buf[16] = b16;
	buf[17] = rev;
	buf[18] = pd_len >> 8;
	buf[19] = pd_len & 0xff;
	memset(buf + 20, 0, pd_len <= 600 ? pd_len : 0);
	return HDR_SIZE + pd_len;
}

/* RFC 5044 7.1.1, 7.1.2 rules 5 and 8: wrong key, or the other side's key */
static void test_bad_key(void **state)
{
	struct iwtcp_mpa_frame f;
	u8 buf[64];
	int i, len;

	(void)state;
	len = make_raw(buf, key_req, 0, 1, 0);
	for (i = 0; i < 16; i++) {
		buf[i] ^= 0x01;
		assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f),
				 -EPROTO);
		buf[i] ^= 0x01;
	}
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	/* initiator/initiator: a Request where a Reply was expected */
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REPLY, &f), -EPROTO);
	len = make_raw(buf, key_rep, 0, 1, 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), -EPROTO);
}

/* RFC 5044 7.1.1 Rev; RFC 6581 6: 1 and 2 only */
static void test_bad_rev(void **state)
{
	static const u8 revs[] = { 0, 3, 4, 0x80, 0xff };
	struct iwtcp_mpa_frame f;
	u8 buf[64];
	unsigned int i;
	int len;

	(void)state;
	for (i = 0; i < sizeof(revs); i++) {
		len = make_raw(buf, key_rep, 0, revs[i], 0);
		assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REPLY, &f),
				 -EPROTONOSUPPORT);
	}
}

/* RFC 5044 7.1.1: PD_Length at most 512, checked before waiting for it */
static void test_pd_too_long(void **state)
{
	static const u16 lens[] = { 513, 1024, 0xffff };
	struct iwtcp_mpa_frame f;
	u8 buf[HDR_SIZE + 600];
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		make_raw(buf, key_req, 0, 2, lens[i]);
		assert_int_equal(iwtcp_mpa_parse(buf, sizeof(buf),
						 IWTCP_MPA_REQUEST, &f),
				 -EMSGSIZE);
		assert_int_equal(iwtcp_mpa_parse(buf, HDR_SIZE,
						 IWTCP_MPA_REQUEST, &f),
				 -EMSGSIZE);
		assert_int_equal(iwtcp_mpa_frame_len(buf, HDR_SIZE), -EMSGSIZE);
	}
	make_raw(buf, key_req, 0, 2, 512);
	assert_int_equal(iwtcp_mpa_parse(buf, sizeof(buf), IWTCP_MPA_REQUEST,
					 &f), HDR_SIZE + 512);
}

/* Every truncation of a valid frame asks for more octets */
static void test_short(void **state)
{
	struct iwtcp_mpa_frame f;
	u8 buf[HDR_SIZE + 40];
	int i, len;

	(void)state;
	len = make_raw(buf, key_req, 0x10, 2, 40);
	for (i = 0; i < len; i++) {
		assert_int_equal(iwtcp_mpa_parse(buf, i, IWTCP_MPA_REQUEST, &f),
				 -EAGAIN);
		assert_int_equal(iwtcp_mpa_frame_len(buf, i),
				 i < HDR_SIZE ? -EAGAIN : len);
	}
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
}

/* RFC 6581 6: with S (Rev 2), PD_Length must hold the IRD/ORD word */
static void test_enhanced_word_missing(void **state)
{
	struct iwtcp_mpa_frame f;
	u8 buf[64];
	int len;
	u16 pd;

	(void)state;
	for (pd = 0; pd < 4; pd++) {
		len = make_raw(buf, key_req, 0x10, 2, pd);
		assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f),
				 -EPROTO);
	}
	len = make_raw(buf, key_req, 0x10, 2, 4);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	assert_true(f.enhanced);
	assert_int_equal(f.pd_len, 0);
	/* RFC 5044 7.1.1: in Rev 1, S is a reserved bit: not checked */
	len = make_raw(buf, key_req, 0x10, 1, 2);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	assert_false(f.enhanced);
	assert_int_equal(f.pd_len, 2);
}

/* RFC 5044 7.1.1, RFC 6581 6 and 9.2: what a receiver ignores */
static void test_ignored_bits(void **state)
{
	struct iwtcp_mpa_frame f;
	u8 buf[64];
	int len;

	(void)state;
	/* Res bits set, R in a Request */
	len = make_raw(buf, key_req, 0x2f, 1, 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	assert_false(f.reject);
	assert_false(f.markers);
	assert_false(f.crc);
	/* ... one of which, siw's G, is read; it goes out as 0x08 */
	assert_true(f.large);
	len = make_raw(buf, key_req, 0x10, 1, 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	assert_false(f.large);
	f.large = true;
	assert_int_equal(iwtcp_mpa_build(IWTCP_MPA_REQUEST, &f, buf,
					 sizeof(buf)), HDR_SIZE);
	assert_int_equal(buf[16], 0x08);
	len = make_raw(buf, key_rep, 0x2f, 1, 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REPLY, &f), len);
	assert_true(f.reject);
	/* A = 0: B, C, D ignored */
	len = make_raw(buf, key_req, 0x10, 2, 4);
	buf[20] = 0x40;
	buf[22] = 0xc0;
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &f), len);
	assert_false(f.p2p);
	assert_int_equal(f.rtr, 0);
	assert_int_equal(f.ird, 0);
	assert_int_equal(f.ord, 0);
}

static void test_build_errors(void **state)
{
	u8 pd[IWTCP_MPA_PD_MAX + 1] = { 0 };
	struct iwtcp_mpa_frame f = { .rev = 2, .enhanced = true, .pd = pd };
	u8 buf[HDR_SIZE + IWTCP_MPA_PD_MAX + 8];

	(void)state;
	f.pd_len = 508;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), HDR_SIZE + 512);
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, HDR_SIZE + 511), -ENOSPC);
	f.pd_len = 509;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EMSGSIZE);
	f.enhanced = false;
	f.pd_len = 513;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EMSGSIZE);
	f.pd_len = 1;
	f.pd = NULL;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.pd = pd;
	f.rev = 3;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.rev = 0;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.rev = 1;
	f.enhanced = true;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.rev = 2;
	f.ird = 0x4000;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.ird = 0;
	f.ord = 0x4000;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
	f.ord = 0;
	f.rtr = 0x08;
	assert_int_equal(iwtcp_mpa_build(0, &f, buf, sizeof(buf)), -EINVAL);
}

#define S_DEFAULT { .revision = 2, .enhanced = true, .crc = IWTCP_MPA_ON, \
		    .markers = IWTCP_MPA_ON, .relaxed = true, \
		    .rtr_types = IWTCP_MPA_RTR_ALL, .ird = 16, .ord = 16 }

static void test_settings_check(void **state)
{
	static const struct iwtcp_mpa_settings good = S_DEFAULT;
	struct iwtcp_mpa_settings s;

	(void)state;
	assert_int_equal(iwtcp_mpa_settings_check(&good), 0);
#define BAD(field, val) do { \
		s = good; s.field = val; \
		assert_int_equal(iwtcp_mpa_settings_check(&s), -EINVAL); \
	} while (0)
	BAD(revision, 0);
	BAD(revision, 3);
	BAD(crc, 3);
	BAD(markers, 3);
	BAD(ird, 0x4000);
	BAD(ord, 0x4000);
	BAD(rtr_types, 0x08);
	BAD(rtr_types, 0);
	BAD(revision, 1);	/* enhanced needs revision 2 */
	s = good;
	s.enhanced = false;
	s.p2p = true;
	assert_int_equal(iwtcp_mpa_settings_check(&s), -EINVAL);
	s.revision = 1;
	s.p2p = false;
	s.rtr_types = 0;
	assert_int_equal(iwtcp_mpa_settings_check(&s), 0);
#undef BAD
}

static void test_rtr_of_opcode(void **state)
{
	u8 op;

	(void)state;
	assert_int_equal(iwtcp_mpa_rtr_of_opcode(IWTCP_RDMAP_WRITE),
			 IWTCP_MPA_RTR_WRITE);
	assert_int_equal(iwtcp_mpa_rtr_of_opcode(IWTCP_RDMAP_READ_REQ),
			 IWTCP_MPA_RTR_READ);
	assert_int_equal(iwtcp_mpa_rtr_of_opcode(IWTCP_RDMAP_SEND),
			 IWTCP_MPA_RTR_SEND);
	for (op = IWTCP_RDMAP_READ_RESP; op < 16; op++)
		if (op != IWTCP_RDMAP_SEND)
			assert_int_equal(iwtcp_mpa_rtr_of_opcode(op), 0);
}

/*
 * RFC 6581 negotiation vectors, run end to end through the wire format:
 * initiator settings -> Request octets -> responder -> Reply octets ->
 * initiator. Expected values: "i" the initiator, "r" the responder.
 */
struct nego_vec {
	const char *name;
	struct iwtcp_mpa_settings ini;
	struct iwtcp_mpa_settings rsp;
	int r_ret;		/* responder return */
	u8 r_term;
	int i_ret;		/* initiator return (if a Reply was sent) */
	u8 i_term;
	u8 rev;			/* Reply Rev */
	bool enhanced;
	bool crc;
	bool m_i2r;		/* initiator inserts markers */
	bool m_r2i;		/* responder inserts markers */
	bool p2p;
	u8 i_rtr;		/* the RTR the initiator sends */
	u8 r_rtr;		/* the RTR types the responder takes */
	u16 rep_ird;		/* IRD and ORD in the Reply word */
	u16 rep_ord;
	u16 i_ird;		/* applied locally */
	u16 i_ord;
	u16 r_ird;
	u16 r_ord;
	bool large;		/* both send large FPDUs (G both ways) */
};

#define INI(...)	.ini = { .revision = 2, .enhanced = true, \
			 .crc = IWTCP_MPA_ON, .markers = IWTCP_MPA_ON, \
			 .relaxed = true, .rtr_types = IWTCP_MPA_RTR_ALL, \
			 .ird = 16, .ord = 16, __VA_ARGS__ }
#define RSP(...)	.rsp = { .revision = 2, .enhanced = true, \
			 .crc = IWTCP_MPA_ON, .markers = IWTCP_MPA_ON, \
			 .relaxed = true, .rtr_types = IWTCP_MPA_RTR_ALL, \
			 .ird = 16, .ord = 16, __VA_ARGS__ }
#define OK16		.rev = 2, .enhanced = true, .crc = true, \
			.rep_ird = 16, .rep_ord = 16, \
			.i_ird = 16, .i_ord = 16, .r_ird = 16, .r_ord = 16
#define V1OK(r)		.rev = r, .crc = true, \
			.i_ird = 16, .i_ord = 16, .r_ird = 16, .r_ord = 16
#define W		IWTCP_MPA_RTR_WRITE
#define R		IWTCP_MPA_RTR_READ
#define S		IWTCP_MPA_RTR_SEND
#define X		IWTCP_MPA_IRD_ORD_MAX
#define OFF		IWTCP_MPA_OFF
#define ON		IWTCP_MPA_ON
#define REQ		IWTCP_MPA_REQUIRED

/*
 * Field shorthands are designated initializers; later ones override the
 * OK16 defaults (-Woverride-init is off for this file).
 */
static const struct nego_vec vecs[] = {
	/* revisions and enhanced data, RFC 6581 6 and 10 */
	{ "v2 enhanced both", INI(), RSP(), OK16 },
	{ "v1 initiator, v2 responder", INI(.revision = 1, .enhanced = false),
	  RSP(), V1OK(1) },
	{ "v2 unenhanced request gets unenhanced reply",
	  INI(.enhanced = false), RSP(), V1OK(2) },
	{ "v2 unenhanced to v1 responder: reply Rev 1",
	  INI(.enhanced = false), RSP(.revision = 1, .enhanced = false),
	  V1OK(1) },
	{ "v1 both", INI(.revision = 1, .enhanced = false),
	  RSP(.revision = 1, .enhanced = false), V1OK(1) },
	{ "enhanced request, enhanced off at responder",
	  INI(), RSP(.enhanced = false), .r_ret = -EPROTO },
	{ "enhanced request, v1 responder",
	  INI(), RSP(.revision = 1, .enhanced = false), .r_ret = -EPROTO },
	/* CRC, RFC 5044 4.4 and 7.1.1 */
	{ "crc off/off", INI(.crc = OFF), RSP(.crc = OFF), OK16, .crc = false },
	{ "crc off/on", INI(.crc = OFF), RSP(.crc = ON), OK16 },
	{ "crc on/off", INI(.crc = ON), RSP(.crc = OFF), OK16 },
	{ "crc required/off", INI(.crc = REQ), RSP(.crc = OFF), OK16 },
	{ "crc off/required", INI(.crc = OFF), RSP(.crc = REQ), OK16 },
	/* markers, RFC 5044 4.3 and 7.1.1 */
	{ "markers on/on", INI(), RSP(), OK16 },
	{ "markers required/on", INI(.markers = REQ), RSP(), OK16,
	  .m_r2i = true },
	{ "markers on/required", INI(), RSP(.markers = REQ), OK16,
	  .m_i2r = true },
	{ "markers required/required", INI(.markers = REQ),
	  RSP(.markers = REQ), OK16, .m_i2r = true, .m_r2i = true },
	{ "markers off/on", INI(.markers = OFF), RSP(), OK16 },
	{ "markers required, responder off: reject",
	  INI(.markers = REQ), RSP(.markers = OFF), OK16, .r_ret = -EOPNOTSUPP,
	  .i_ret = -ECONNREFUSED },
	{ "markers off, responder requires: initiator TERM 5",
	  INI(.markers = OFF), RSP(.markers = REQ), OK16, .m_i2r = true,
	  .i_ret = -EOPNOTSUPP, .i_term = IWTCP_TERM_MPA_CATASTROPHIC },
	{ "markers required, v1 both", INI(.revision = 1, .enhanced = false,
	  .markers = REQ), RSP(.revision = 1, .enhanced = false), V1OK(1),
	  .m_r2i = true },
	/* peer-to-peer and RTR, RFC 6581 9.2 */
	{ "p2p all/all: Read offered alone", INI(.p2p = true), RSP(), OK16,
	  .p2p = true, .i_rtr = R, .r_rtr = R },
	{ "p2p write only (iw_cxgb4 p2p_type 0)", INI(.p2p = true,
	  .rtr_types = W), RSP(.rtr_types = W), OK16, .p2p = true,
	  .i_rtr = W, .r_rtr = W },
	{ "p2p read only, ORD 0: responder IRD 1",
	  INI(.p2p = true, .rtr_types = R, .ord = 0), RSP(), OK16,
	  .p2p = true, .i_rtr = R, .r_rtr = R, .rep_ird = 1, .r_ird = 1,
	  .i_ord = 0 },
	{ "p2p read only, responder IRD 0: IRD 1 for the RTR",
	  INI(.p2p = true, .rtr_types = R, .ord = 0),
	  RSP(.rtr_types = R, .ird = 0), OK16, .rep_ird = 1, .r_ird = 1,
	  .p2p = true, .i_rtr = R, .r_rtr = R, .i_ord = 0 },
	{ "p2p all, responder IRD 0: IRD 1 for the Read RTR",
	  INI(.p2p = true, .ord = 0), RSP(.ird = 0), OK16, .rep_ird = 1,
	  .r_ird = 1, .p2p = true, .i_rtr = R, .r_rtr = R, .i_ord = 0 },
	{ "p2p read only, responder offers send: TERM 7",
	  INI(.p2p = true, .rtr_types = R, .ord = 0),
	  RSP(.rtr_types = S, .ird = 0), OK16, .rep_ird = 0, .r_ird = 0,
	  .p2p = true, .r_rtr = S, .i_ret = -ENOPROTOOPT,
	  .i_term = IWTCP_TERM_MPA_NO_RTR },
	{ "p2p send+write offers Write; send+read responder: TERM 7",
	  INI(.p2p = true, .rtr_types = S | W), RSP(.rtr_types = S | R),
	  OK16, .p2p = true, .r_rtr = S | R, .i_ret = -ENOPROTOOPT,
	  .i_term = IWTCP_TERM_MPA_NO_RTR },
	{ "p2p send vs send+read: Send",
	  INI(.p2p = true, .rtr_types = S), RSP(.rtr_types = S | R),
	  OK16, .p2p = true, .i_rtr = S, .r_rtr = S },
	{ "p2p no common RTR: responder offers its own, TERM 7",
	  INI(.p2p = true, .rtr_types = S), RSP(.rtr_types = W | R), OK16,
	  .p2p = true, .r_rtr = W | R, .i_ret = -ENOPROTOOPT,
	  .i_term = IWTCP_TERM_MPA_NO_RTR },
	{ "p2p read+write vs read: Read",
	  INI(.p2p = true, .rtr_types = R | W), RSP(.rtr_types = R), OK16,
	  .p2p = true, .i_rtr = R, .r_rtr = R },
	{ "client-server: no RTR flags", INI(.rtr_types = S),
	  RSP(.rtr_types = W), OK16 },
	/* siw's G bit (IWTCP_MPA_HDR_G): large FPDUs only if both set it */
	{ "large FPDUs both", INI(.large_fpdu = true),
	  RSP(.large_fpdu = true), OK16, .large = true },
	{ "large FPDUs initiator only", INI(.large_fpdu = true), RSP(), OK16 },
	{ "large FPDUs responder only", INI(), RSP(.large_fpdu = true), OK16 },
	{ "large FPDUs both, v1", INI(.revision = 1, .enhanced = false,
	  .large_fpdu = true), RSP(.revision = 1, .enhanced = false,
	  .large_fpdu = true), V1OK(1), .large = true },
	/* IRD/ORD, RFC 6581 9.1 */
	{ "ird/ord fit", INI(.ird = 4, .ord = 8), RSP(.ird = 16, .ord = 2),
	  OK16, .rep_ird = 8, .rep_ord = 2, .i_ird = 4, .i_ord = 8,
	  .r_ird = 8, .r_ord = 2 },
	{ "exact fit, strict both", INI(.ird = 8, .ord = 8, .relaxed = false),
	  RSP(.ird = 8, .ord = 8, .relaxed = false), OK16, .rep_ird = 8,
	  .rep_ord = 8, .i_ird = 8, .i_ord = 8, .r_ird = 8, .r_ord = 8 },
	{ "responder IRD < initiator ORD, relaxed: ORD lowered",
	  INI(.ird = 4, .ord = 8), RSP(.ird = 4, .ord = 2), OK16,
	  .rep_ird = 4, .rep_ord = 2, .i_ird = 4, .i_ord = 4, .r_ird = 4,
	  .r_ord = 2 },
	{ "responder IRD < initiator ORD, strict: initiator TERM 6",
	  INI(.ird = 4, .ord = 8, .relaxed = false), RSP(.ird = 4, .ord = 2),
	  OK16, .rep_ird = 4, .rep_ord = 2, .r_ird = 4, .r_ord = 2,
	  .i_ret = -ENOBUFS, .i_term = IWTCP_TERM_MPA_INSUFF_IRD },
	{ "initiator IRD < responder ORD, relaxed: ORD lowered",
	  INI(.ird = 2), RSP(.ord = 8), OK16, .rep_ord = 2, .i_ird = 2,
	  .r_ord = 2 },
	{ "initiator IRD < responder ORD, strict: reject, TERM 6",
	  INI(.ird = 2), RSP(.ord = 8, .relaxed = false), .r_ret = -ENOBUFS,
	  .r_term = IWTCP_TERM_MPA_INSUFF_IRD, .i_ret = -ECONNREFUSED,
	  .rep_ird = 16, .rep_ord = 8 },
	{ "initiator ORD 0x3FFF", INI(.ord = X), RSP(.ird = 5), OK16,
	  .rep_ird = X, .i_ord = X, .r_ird = 5 },
	{ "initiator IRD 0x3FFF", INI(.ird = X), RSP(.ord = 100), OK16,
	  .rep_ord = X, .i_ird = X, .r_ord = 100 },
	{ "initiator IRD 0x3FFF, strict responder ORD",
	  INI(.ird = X), RSP(.ord = 100, .relaxed = false), OK16,
	  .rep_ord = X, .i_ird = X, .r_ord = 100 },
	{ "responder IRD 0x3FFF", INI(.ord = 9, .relaxed = false),
	  RSP(.ird = X), OK16, .rep_ird = X, .i_ord = 9, .r_ird = X },
	{ "responder ORD 0x3FFF", INI(.ird = 3), RSP(.ord = X), OK16,
	  .rep_ord = X, .i_ird = 3, .r_ord = X },
	{ "all 0x3FFF", INI(.ird = X, .ord = X), RSP(.ird = X, .ord = X),
	  OK16, .rep_ird = X, .rep_ord = X, .i_ird = X, .i_ord = X,
	  .r_ird = X, .r_ord = X },
	{ "unenhanced: IRD/ORD left to the ULP",
	  INI(.enhanced = false, .ird = 1, .ord = 50),
	  RSP(.ird = 2, .ord = 60, .relaxed = false), V1OK(2), .i_ird = 1,
	  .i_ord = 50, .r_ird = 2, .r_ord = 60 },
};

static void check_result(const struct nego_vec *v,
			 const struct iwtcp_mpa_result *res, bool initiator)
{
	assert_int_equal(res->rev, v->rev);
	assert_int_equal(res->enhanced, v->enhanced);
	assert_int_equal(res->crc, v->crc);
	assert_int_equal(res->markers_tx, initiator ? v->m_i2r : v->m_r2i);
	assert_int_equal(res->markers_rx, initiator ? v->m_r2i : v->m_i2r);
	assert_int_equal(res->p2p, v->p2p);
	assert_int_equal(res->rtr, initiator ? v->i_rtr : v->r_rtr);
	assert_int_equal(res->ird, initiator ? v->i_ird : v->r_ird);
	assert_int_equal(res->ord, initiator ? v->i_ord : v->r_ord);
	assert_int_equal(res->large_tx, v->large);
	assert_int_equal(res->term, 0);
}

static void run_vec(const struct nego_vec *v)
{
	static const u8 ulp_pd[] = "ulp";
	struct iwtcp_mpa_frame req, rreq, rep, rrep;
	struct iwtcp_mpa_result ires, rres;
	u8 buf[HDR_SIZE + IWTCP_MPA_PD_MAX];
	int len, ret;

	print_message("  vector: %s\n", v->name);
	assert_int_equal(iwtcp_mpa_init_request(&v->ini, &req), 0);
	req.pd = ulp_pd;
	req.pd_len = sizeof(ulp_pd);
	len = iwtcp_mpa_build(IWTCP_MPA_REQUEST, &req, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REQUEST, &rreq), len);
	assert_memory_equal(rreq.pd, ulp_pd, sizeof(ulp_pd));

	ret = iwtcp_mpa_negotiate_request(&v->rsp, &rreq, &rep, &rres);
	assert_int_equal(ret, v->r_ret);
	if (ret == -EPROTO)
		return;
	assert_int_equal(rres.term, v->r_term);
	assert_int_equal(rep.reject, ret != 0);
	if (!ret)
		check_result(v, &rres, false);
	len = iwtcp_mpa_build(IWTCP_MPA_REPLY, &rep, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(iwtcp_mpa_parse(buf, len, IWTCP_MPA_REPLY, &rrep), len);
	if (rrep.enhanced) {
		assert_int_equal(rrep.ird, v->rep_ird);
		assert_int_equal(rrep.ord, v->rep_ord);
	}

	ret = iwtcp_mpa_negotiate_reply(&v->ini, &rrep, &ires);
	assert_int_equal(ret, v->i_ret);
	assert_int_equal(ires.term, v->i_term);
	/* RFC 6581 9.1: the peer's IRD/ORD reach the ULP, even on reject */
	if (rrep.enhanced) {
		assert_int_equal(ires.peer_ird, v->rep_ird);
		assert_int_equal(ires.peer_ord, v->rep_ord);
		assert_int_equal(rres.peer_ird, req.ird);
		assert_int_equal(rres.peer_ord, req.ord);
	}
	if (!ret)
		check_result(v, &ires, true);
	/* A TERM after a Reject is read with the framing it was sent in */
	if (ret == -ECONNREFUSED) {
		assert_int_equal(ires.crc, rres.crc);
		assert_int_equal(ires.markers_rx, rres.markers_tx);
	}
}

static void test_negotiation_vectors(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(vecs); i++)
		run_vec(&vecs[i]);
}

/*
 * RFC 6581 9.2: the Request offers one RTR type, Read first; with Read an
 * ORD of 0 goes out as 1 (9.1), as iw_cxgb4 and irdma send it.
 */
static void test_request_offer(void **state)
{
	static const struct {
		u8 types, ord, rtr, word_ord;
	} v[] = {
		{ IWTCP_MPA_RTR_ALL, 0, IWTCP_MPA_RTR_READ, 1 },
		{ IWTCP_MPA_RTR_ALL, 7, IWTCP_MPA_RTR_READ, 7 },
		{ IWTCP_MPA_RTR_WRITE | IWTCP_MPA_RTR_SEND, 0,
		  IWTCP_MPA_RTR_WRITE, 0 },
		{ IWTCP_MPA_RTR_SEND, 0, IWTCP_MPA_RTR_SEND, 0 },
		{ IWTCP_MPA_RTR_READ | IWTCP_MPA_RTR_SEND, 3,
		  IWTCP_MPA_RTR_READ, 3 },
	};
	struct iwtcp_mpa_settings s = S_DEFAULT;
	struct iwtcp_mpa_frame req;
	unsigned int i;

	(void)state;
	s.p2p = true;
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		s.rtr_types = v[i].types;
		s.ord = v[i].ord;
		assert_int_equal(iwtcp_mpa_init_request(&s, &req), 0);
		assert_int_equal(req.rtr, v[i].rtr);
		assert_int_equal(req.ord, v[i].word_ord);
	}
	/* 0x3FFF: no negotiation, sent as it is */
	s.rtr_types = IWTCP_MPA_RTR_ALL;
	s.ord = IWTCP_MPA_IRD_ORD_MAX;
	assert_int_equal(iwtcp_mpa_init_request(&s, &req), 0);
	assert_int_equal(req.ord, IWTCP_MPA_IRD_ORD_MAX);
	/* client-server: no RTR, the ORD as it is */
	s.p2p = false;
	s.ord = 0;
	assert_int_equal(iwtcp_mpa_init_request(&s, &req), 0);
	assert_int_equal(req.rtr, 0);
	assert_int_equal(req.ord, 0);
}

/* Initiator against hand-made Replies from non-compliant responders */
static void test_bad_replies(void **state)
{
	struct iwtcp_mpa_settings s = S_DEFAULT;
	struct iwtcp_mpa_frame req = { 0 }, out;
	struct iwtcp_mpa_result res;
	struct iwtcp_mpa_frame rep = {
		.rev = 2, .enhanced = true, .ird = 16, .ord = 16,
	};

	(void)state;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), 0);
	/* RFC 6581 9.2: A must be mirrored, either way */
	rep.p2p = true;
	rep.rtr = IWTCP_MPA_RTR_ALL;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -ENOPROTOOPT);
	assert_int_equal(res.term, IWTCP_TERM_MPA_NO_RTR);
	s.p2p = true;
	rep.p2p = false;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -ENOPROTOOPT);
	assert_int_equal(res.term, IWTCP_TERM_MPA_NO_RTR);
	rep.p2p = true;
	rep.rtr = 0;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -ENOPROTOOPT);
	/* a type we did not offer (we offer Read alone): TERM 7 */
	rep.rtr = IWTCP_MPA_RTR_SEND | IWTCP_MPA_RTR_WRITE;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -ENOPROTOOPT);
	assert_int_equal(res.term, IWTCP_TERM_MPA_NO_RTR);
	/* a Reply naming several: the one offered */
	rep.rtr = IWTCP_MPA_RTR_ALL;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), 0);
	assert_int_equal(res.rtr, IWTCP_MPA_RTR_READ);
	/* RFC 6581 9.1: responder ORD above our IRD, even relaxed: TERM 6 */
	rep.ord = 17;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -ENOBUFS);
	assert_int_equal(res.term, IWTCP_TERM_MPA_INSUFF_IRD);
	rep.ord = 16;
	/* RFC 6581 10: S must match our Request */
	rep.enhanced = false;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -EPROTO);
	rep.enhanced = true;
	/* RFC 5044 7.1.1: a newer revision than ours */
	s.revision = 1;
	s.enhanced = false;
	s.p2p = false;
	rep.enhanced = false;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -EPROTO);
	rep.rev = 1;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), 0);
	rep.enhanced = true;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -EPROTO);
	/* RFC 6581 6: S with Rev 1 is never enhanced, either side */
	s.revision = 2;
	s.enhanced = true;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -EPROTO);
	req.rev = 1;
	req.enhanced = true;
	assert_int_equal(iwtcp_mpa_negotiate_request(&s, &req, &out, &res),
			 -EPROTO);
	s.revision = 1;
	s.enhanced = false;
	/* RFC 5044 7.1.2 rule 3: R set */
	rep.enhanced = false;
	rep.reject = true;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res),
			 -ECONNREFUSED);
	assert_int_equal(res.term, 0);
	/* invalid settings */
	s.revision = 7;
	assert_int_equal(iwtcp_mpa_negotiate_reply(&s, &rep, &res), -EINVAL);
	res.term = 9;
	assert_int_equal(iwtcp_mpa_negotiate_request(&s, &rep, &out, &res),
			 -EINVAL);
	assert_int_equal(res.term, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_encode_bits),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_key),
		cmocka_unit_test(test_bad_rev),
		cmocka_unit_test(test_pd_too_long),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_enhanced_word_missing),
		cmocka_unit_test(test_ignored_bits),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_settings_check),
		cmocka_unit_test(test_rtr_of_opcode),
		cmocka_unit_test(test_request_offer),
		cmocka_unit_test(test_negotiation_vectors),
		cmocka_unit_test(test_bad_replies),
	};

	return cmocka_run_group_tests_name("mpa", tests, NULL, NULL);
}
