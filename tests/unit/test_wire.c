// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of include/iwtcp/wire.h: field offsets and mask
 * positions against the RFC figures (sizes are static_asserts in wire.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/bitfield.h>
#include <iwtcp/wire.h>

static void test_offsets(void **state)
{
	(void)state;
	/* RFC 5044 7.1.1 Figure 8 */
	assert_int_equal(offsetof(struct iwtcp_mpa_hdr, ctrl), 16);
	/* RFC 5041 4.2 Figure 4, 4.3 Figure 5 (without the MPA header) */
	assert_int_equal(offsetof(struct iwtcp_ddp_tagged_hdr, stag), 2);
	assert_int_equal(offsetof(struct iwtcp_ddp_tagged_hdr, to), 6);
	assert_int_equal(offsetof(struct iwtcp_ddp_untagged_hdr, inval_stag), 2);
	assert_int_equal(offsetof(struct iwtcp_ddp_untagged_hdr, qn), 6);
	assert_int_equal(offsetof(struct iwtcp_ddp_untagged_hdr, msn), 10);
	assert_int_equal(offsetof(struct iwtcp_ddp_untagged_hdr, mo), 14);
	/* RFC 5040 4.4 Figure 6 */
	assert_int_equal(offsetof(struct iwtcp_rdmap_read_req, sink_to), 4);
	assert_int_equal(offsetof(struct iwtcp_rdmap_read_req, read_size), 12);
	assert_int_equal(offsetof(struct iwtcp_rdmap_read_req, src_stag), 16);
	assert_int_equal(offsetof(struct iwtcp_rdmap_read_req, src_to), 20);
	/* RFC 5044 4.2 Figure 3 */
	assert_int_equal(offsetof(struct iwtcp_mpa_marker, fpdu_ptr), 2);
}

/* The RFC's bit 0 is the most significant bit of the first octet */
static void test_masks(void **state)
{
	struct iwtcp_rdmap_term_hdr t;
	u8 *b = (u8 *)&t;
	u16 ctrl;

	(void)state;
	/* RFC 5040 4.8 Figure 8, RFC 6581 8: LLP / MPA / insufficient IRD */
	t.ctrl = cpu_to_be32(FIELD_PREP(IWTCP_TERM_LAYER, IWTCP_TERM_LAYER_LLP) |
			     FIELD_PREP(IWTCP_TERM_ETYPE, IWTCP_TERM_MPA) |
			     FIELD_PREP(IWTCP_TERM_ECODE,
					IWTCP_TERM_MPA_INSUFF_IRD));
	assert_int_equal(b[0], 0x20);
	assert_int_equal(b[1], 0x06);
	/* M D R are bits 16 17 18 */
	t.ctrl = cpu_to_be32(IWTCP_TERM_M | IWTCP_TERM_D | IWTCP_TERM_R);
	assert_int_equal(b[2], 0xe0);
	assert_int_equal(b[3], 0);
	/* RFC 5041 4.1, RFC 5040 4.1: T L Rsvd DV | RV Rsv Opcode */
	ctrl = IWTCP_DDP_T | IWTCP_DDP_L | FIELD_PREP(IWTCP_DDP_DV, 1) |
	       FIELD_PREP(IWTCP_RDMAP_RV, 1) |
	       FIELD_PREP(IWTCP_RDMAP_OPCODE, IWTCP_RDMAP_READ_RESP);
	assert_int_equal(ctrl, 0xc142);
	assert_int_equal(FIELD_GET(IWTCP_RDMAP_OPCODE, 0x4143), IWTCP_RDMAP_SEND);
	assert_int_equal(FIELD_GET(IWTCP_DDP_DV, 0x4143), 1);
	/* RFC 6581 9: IRD and ORD are 14 bits, 0x3FFF the all-ones value */
	assert_int_equal(IWTCP_MPA_V2_IRD >> 16, IWTCP_MPA_IRD_ORD_MAX);
	assert_int_equal(IWTCP_MPA_V2_ORD, IWTCP_MPA_IRD_ORD_MAX);
	assert_int_equal(IWTCP_MPA_HDR_M | IWTCP_MPA_HDR_C | IWTCP_MPA_HDR_R |
			 IWTCP_MPA_HDR_S | IWTCP_MPA_HDR_RES, 0xff000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_masks),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
