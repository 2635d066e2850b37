// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit tests of fpdu.c: FPDU sizing (RFC 5044 4.1), markers (4.3),
 * CRC32c (4.4, RFC 3720 B.4), MULPDU (4.5), and the linear encoder and
 * decoder against RFC 5044 Figures 5 and 6.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/bitfield.h>
#include "fpdu.h"

static void test_pad_len(void **state)
{
	static const u32 pad[8] = { 2, 1, 0, 3, 2, 1, 0, 3 };
	u32 n;

	(void)state;
	for (n = 0; n < 8; n++) {
		assert_int_equal(iwtcp_fpdu_pad(n), pad[n]);
		assert_int_equal(iwtcp_fpdu_len(n), 2 + n + pad[n] + 4);
	}
	/* RFC 5044 Figure 4: 16-octet ULPDU, 2 octets of PAD */
	assert_int_equal(iwtcp_fpdu_pad(16), 2);
	assert_int_equal(iwtcp_fpdu_len(IWTCP_MPA_ULPDU_MAX), 65544);
	for (n = 0; n < 5000; n++)
		assert_int_equal(iwtcp_fpdu_len(n) % 4, 0);
}

/* RFC 3720 B.4 test vectors, as CRC value and as octets on the wire */
static void test_crc32c_vectors(void **state)
{
	static const u8 wire_zero[4] = { 0xaa, 0x36, 0x91, 0x8a };
	u8 buf[32];
	__le32 crc;
	u32 i, c;

	(void)state;
	memset(buf, 0, sizeof(buf));
	crc = iwtcp_fpdu_crc(buf, 32);
	assert_int_equal(le32_to_cpu(crc), 0x8a9136aa);
	assert_memory_equal(&crc, wire_zero, 4);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(le32_to_cpu(iwtcp_fpdu_crc(buf, 32)), 0x62a8ab43);
	for (i = 0; i < 32; i++)
		buf[i] = i;
	assert_int_equal(le32_to_cpu(iwtcp_fpdu_crc(buf, 32)), 0x46dd794e);
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	assert_int_equal(le32_to_cpu(iwtcp_fpdu_crc(buf, 32)), 0x113fdb5c);
	/* piecewise equals one shot */
	for (i = 0; i <= 32; i++) {
		c = iwtcp_fpdu_crc_update(IWTCP_FPDU_CRC_SEED, buf, i);
		c = iwtcp_fpdu_crc_update(c, buf + i, 32 - i);
		assert_int_equal(iwtcp_fpdu_crc_final(c), iwtcp_fpdu_crc(buf, 32));
	}
}

/* the DDP segment of RFC 5044 Figures 5 and 6: untagged Send, QN 0 */
static void fig_ulpdu(u8 *ulpdu, u32 msn)
{
	struct iwtcp_ddp_untagged_hdr h = {
		.ctrl = cpu_to_be16(IWTCP_DDP_L |
				    FIELD_PREP(IWTCP_DDP_DV, IWTCP_DDP_VERSION) |
				    FIELD_PREP(IWTCP_RDMAP_RV, IWTCP_RDMAP_VERSION) |
				    FIELD_PREP(IWTCP_RDMAP_OPCODE, IWTCP_RDMAP_SEND)),
		.qn = cpu_to_be32(IWTCP_DDP_QN_SEND),
		.msn = cpu_to_be32(msn),
	};

	memset(ulpdu, 0, 42);
	memcpy(ulpdu, &h, sizeof(h));
}

/* RFC 5044 4.4 Figure 5: first FPDU of the stream, leading marker */
static void test_rfc_figure5(void **state)
{
	static const u8 want[52] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		[48] = 0x52, 0x23, 0x99, 0x83,
	};
	struct iwtcp_fpdu_stream st = { .off = 0, .markers = true, .crc = true };
	u8 ulpdu[42], out[42], buf[64];
	u32 ulen;

	(void)state;
	fig_ulpdu(ulpdu, 1);
	assert_int_equal(iwtcp_fpdu_build(&st, ulpdu, 42, buf, sizeof(buf)), 52);
	assert_memory_equal(buf, want, 52);
	assert_int_equal(st.off, 52);
	st.off = 0;
	assert_int_equal(iwtcp_fpdu_parse(&st, want, 52, out, 42, &ulen), 52);
	assert_int_equal(ulen, 42);
	assert_memory_equal(out, ulpdu, 42);
}

/* RFC 5044 4.4 Figure 6: second FPDU at stream offset 492, marker inside */
static void test_rfc_figure6(void **state)
{
	static const u8 want[52] = {
		0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
		[48] = 0x84, 0x92, 0x58, 0x98,
	};
	struct iwtcp_fpdu_stream st = { .off = 492, .markers = true, .crc = true };
	struct iwtcp_fpdu_layout l;
	u8 ulpdu[42], out[42], buf[64];
	u32 ulen;

	(void)state;
	assert_int_equal(iwtcp_fpdu_markers(492, iwtcp_fpdu_len(42), &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.first, 20);
	assert_int_equal(l.hdr_off, 0);
	assert_int_equal(iwtcp_fpdu_marker_ptr(&l, 0), 0x14);
	fig_ulpdu(ulpdu, 2);
	assert_int_equal(iwtcp_fpdu_build(&st, ulpdu, 42, buf, sizeof(buf)), 52);
	assert_memory_equal(buf, want, 52);
	st.off = 492;
	assert_int_equal(iwtcp_fpdu_parse(&st, want, 52, out, 42, &ulen), 52);
	assert_memory_equal(out, ulpdu, 42);
	assert_int_equal(st.off, 544);
}

/*
 * Reference marker placement, one octet at a time, straight from
 * RFC 5044 4.3: a marker at every stream offset that is a multiple of 512,
 * unless the FPDU already ended there (then it leads the next FPDU).
 */
struct ref_layout {
	u32 wire_len;
	u32 hdr_off;
	u32 nr;
	u32 pos[160];
	u32 ptr[160];
};

static void ref_markers(u32 off, u32 fpdu_len, struct ref_layout *r)
{
	u32 w = 0, left = fpdu_len, i;
	bool hdr_seen = false;

	memset(r, 0, sizeof(*r));
	while (left) {
		if ((u32)(off + w) % 512 == 0) {
			r->pos[r->nr++] = w;
			w += 4;
			continue;
		}
		if (!hdr_seen) {
			r->hdr_off = w;
			hdr_seen = true;
		}
		w++;
		left--;
	}
	r->wire_len = w;
	for (i = 0; i < r->nr; i++)
		r->ptr[i] = r->pos[i] < r->hdr_off ? 0 : r->pos[i] - r->hdr_off;
}

static void check_layout(u32 off, u32 ulpdu_len)
{
	u32 fpdu_len = iwtcp_fpdu_len(ulpdu_len);
	struct iwtcp_fpdu_layout l;
	struct ref_layout r;
	bool overflow = false;
	u32 i;
	int ret;

	ref_markers(off, fpdu_len, &r);
	for (i = 0; i < r.nr; i++)
		overflow |= r.ptr[i] > 0xffff;
	ret = iwtcp_fpdu_markers(off, fpdu_len, &l);
	if (overflow) {
		assert_int_equal(ret, -EMSGSIZE);
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(l.wire_len, r.wire_len);
	assert_int_equal(l.hdr_off, r.hdr_off);
	assert_int_equal(l.nr, r.nr);
	for (i = 0; i < r.nr; i++) {
		assert_int_equal(l.first + 512 * i, r.pos[i]);
		assert_int_equal(iwtcp_fpdu_marker_ptr(&l, i), r.ptr[i]);
	}
}

/* every 4-aligned start within 24 octets of several 512 boundaries */
static void test_markers_vs_reference(void **state)
{
	static const u32 bases[] = {
		0, 512, 1024, 1536, 4096, 0x10000, 0xfffffe00, 0xfffffc00,
	};
	static const u32 big[] = {
		1000, 1019, 1020, 1021, 4000, 8192, 65000, 65023, 65024,
		65025, 65535,
	};
	unsigned int b, i;
	u32 off, n;
	int d;

	(void)state;
	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		for (d = -24; d <= 24; d += 4) {
			off = bases[b] + (u32)d;
			for (n = 0; n < 1100; n++)
				check_layout(off, n);
			for (i = 0; i < ARRAY_SIZE(big); i++)
				check_layout(off, big[i]);
		}
	}
}

/* every phase modulo 512, a spread of lengths across 3 markers */
static void test_markers_all_phases(void **state)
{
	u32 off, n;

	(void)state;
	for (off = 4096; off < 4096 + 512; off += 4)
		for (n = 0; n < 1600; n += 5)
			check_layout(off, n);
}

/* FPDUs ending exactly on a boundary: the next marker is not theirs */
static void test_markers_edges(void **state)
{
	struct iwtcp_fpdu_layout l;

	(void)state;
	/* 500 + 12 = 512: no marker inside, the one at 512 leads the next */
	assert_int_equal(iwtcp_fpdu_markers(500, 12, &l), 0);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.wire_len, 12);
	/* one octet more of room needed: marker between PAD and CRC */
	assert_int_equal(iwtcp_fpdu_markers(500, 16, &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.first, 12);
	assert_int_equal(iwtcp_fpdu_marker_ptr(&l, 0), 12);
	/* at a boundary: leading marker, FPDUPTR 0, then 508 octets */
	assert_int_equal(iwtcp_fpdu_markers(1024, 508, &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.hdr_off, 4);
	assert_int_equal(l.wire_len, 512);
	assert_int_equal(iwtcp_fpdu_markers(1024, 512, &l), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(iwtcp_fpdu_marker_ptr(&l, 1), 508);
	/* wrap of the 32-bit stream offset */
	assert_int_equal(iwtcp_fpdu_markers(0xfffffffc, 8, &l), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.first, 4);
	assert_int_equal(iwtcp_fpdu_marker_ptr(&l, 0), 4);
	/* misaligned input */
	assert_int_equal(iwtcp_fpdu_markers(2, 8, &l), -EINVAL);
	assert_int_equal(iwtcp_fpdu_markers(0, 10, &l), -EINVAL);
	assert_int_equal(iwtcp_fpdu_markers(0, 4, &l), -EINVAL);
}

/* RFC 5044 4.5 */
static void test_mulpdu(void **state)
{
	struct iwtcp_fpdu_layout l;
	u32 emss, off, m;

	(void)state;
	assert_int_equal(iwtcp_fpdu_mulpdu(1460, false), 1454);
	assert_int_equal(iwtcp_fpdu_mulpdu(1460, true), 1460 - (6 + 12));
	assert_int_equal(iwtcp_fpdu_mulpdu(1461, false), 1454);
	assert_int_equal(iwtcp_fpdu_mulpdu(100, false), 128);
	assert_int_equal(iwtcp_fpdu_mulpdu(0, true), 128);
	/* RFC 5044 3: never above 64768, whatever the MSS (lo: 65483) */
	assert_int_equal(iwtcp_fpdu_mulpdu(100000, false), 64768);
	assert_int_equal(iwtcp_fpdu_mulpdu(65483, false), 64768);
	assert_int_equal(iwtcp_fpdu_mulpdu(65483, true), 64768);
	assert_int_equal(iwtcp_fpdu_mulpdu(64780, false), 64768);
	assert_int_equal(iwtcp_fpdu_mulpdu(64772, false), 64766);
	/* an FPDU of MULPDU fits the segment wherever it starts */
	for (emss = 140; emss < 9200; emss += 7) {
		m = iwtcp_fpdu_mulpdu(emss, false);
		assert_true(iwtcp_fpdu_len(m) <= emss);
		m = iwtcp_fpdu_mulpdu(emss, true);
		for (off = 0; off < 512; off += 4) {
			assert_int_equal(iwtcp_fpdu_markers(off, iwtcp_fpdu_len(m),
							    &l), 0);
			assert_true(l.wire_len <= emss);
		}
	}
}

/*
 * RFC 5044 5.1: an FPDU packed after others fills the rest of the
 * segment exactly (to 4 octets), one more ULPDU octet would not fit.
 */
static void test_ulpdu_fit(void **state)
{
	u32 room, m;

	(void)state;
	assert_int_equal(iwtcp_fpdu_ulpdu_fit(0), 0);
	assert_int_equal(iwtcp_fpdu_ulpdu_fit(7), 0);
	assert_int_equal(iwtcp_fpdu_ulpdu_fit(100), 94);
	assert_int_equal(iwtcp_fpdu_ulpdu_fit(1448),
			 iwtcp_fpdu_mulpdu(1448, false));
	assert_int_equal(iwtcp_fpdu_ulpdu_fit(100000), 64768);
	for (room = 8; room < 70000; room++) {
		m = iwtcp_fpdu_ulpdu_fit(room);
		assert_true(iwtcp_fpdu_len(m) <= room);
		if (m < 64768)
			assert_true(iwtcp_fpdu_len(m + 1) > room);
		if (room % 4 == 0 && m < 64768)
			assert_int_equal(iwtcp_fpdu_len(m), room);
	}
}

/*
 * RFC 5044 4.5 dynamic MULPDU: the FPDU fits the segment, no larger
 * ULPDU would, and back to back from any offset every FPDU fills the
 * segment to EMSS less EMSS mod 4 (alignment kept, RFC 5044 5.1).
 */
static void test_mulpdu_at(void **state)
{
	struct iwtcp_fpdu_layout l;
	u32 emss, off, m, full;

	(void)state;
	/* 1448: 1430 by the worst-case formula, 1434 with two markers */
	assert_int_equal(iwtcp_fpdu_mulpdu_at(0, 1448, true), 1430);
	assert_int_equal(iwtcp_fpdu_mulpdu_at(8, 1448, true), 1434);
	assert_int_equal(iwtcp_fpdu_mulpdu_at(8, 1448, false),
			 iwtcp_fpdu_mulpdu(1448, false));
	assert_int_equal(iwtcp_fpdu_mulpdu_at(0, 100, true), 128);
	assert_int_equal(iwtcp_fpdu_mulpdu_at(0, 100000, true), 64768);
	assert_int_equal(iwtcp_fpdu_mulpdu_at(8, 65483, true), 64768);
	for (emss = 140; emss < 9200; emss += 7) {
		full = emss - emss % 4;
		for (off = 0; off < 512; off += 4) {
			m = iwtcp_fpdu_mulpdu_at(off, emss, true);
			assert_true(m >= iwtcp_fpdu_mulpdu(emss, true));
			assert_int_equal(iwtcp_fpdu_markers(off, iwtcp_fpdu_len(m),
							    &l), 0);
			assert_true(l.wire_len <= emss);
			assert_int_equal(iwtcp_fpdu_markers(off,
					 iwtcp_fpdu_len(m + 4), &l), 0);
			assert_true(l.wire_len > emss);
		}
		/*
		 * A run of FPDUs from every offset: each one fills a segment,
		 * but where one more ULPDU octet would bring in a marker that
		 * now leads the next FPDU (4 octets short).
		 */
		for (off = 0; off < 4 * 512; off += 4) {
			m = iwtcp_fpdu_mulpdu_at(off, emss, true);
			assert_int_equal(iwtcp_fpdu_markers(off, iwtcp_fpdu_len(m),
							    &l), 0);
			if (m == iwtcp_fpdu_mulpdu(emss, true) &&
			    l.wire_len < full - 4)
				continue;	/* the 128-octet floor */
			if (l.wire_len != full) {
				assert_int_equal(l.wire_len, full - 4);
				assert_int_equal((off + l.wire_len) % 512, 0);
			}
		}
	}
}

static u32 rnd_state = 12345;
#include "rnd.h"

/* a stream of FPDUs: built back to back, parsed back, markers in place */
static void stream_round_trip(u32 start, bool markers, bool crc)
{
	enum { N = 60, MAXU = 3000 };
	struct iwtcp_fpdu_stream tx = {
		.off = start, .markers = markers, .crc = crc,
	};
	struct iwtcp_fpdu_stream rx = tx;
	static u8 ulpdu[N][MAXU], out[MAXU];
	static u8 wire[N * (MAXU + 64)];
	u32 lens[N], pos = 0, ulen, i, j, p;
	int ret;

	for (i = 0; i < N; i++) {
		lens[i] = i % 3 ? rnd() % MAXU : rnd() % 40;
		for (j = 0; j < lens[i]; j++)
			ulpdu[i][j] = rnd();
		ret = iwtcp_fpdu_build(&tx, ulpdu[i], lens[i], wire + pos,
				       sizeof(wire) - pos);
		assert_true(ret > 0);
		pos += ret;
	}
	assert_int_equal(tx.off, start + pos);
	/* RFC 5044 4.3: a marker at every multiple of 512, RESERVED 0 */
	for (p = 0; markers && p < pos; p++)
		if ((u32)(start + p) % 512 == 0)
			assert_int_equal(wire[p] | wire[p + 1], 0);
	for (i = 0, p = 0; i < N; i++) {
		ret = iwtcp_fpdu_parse(&rx, wire + p, pos - p, out, MAXU, &ulen);
		assert_true(ret > 0);
		assert_int_equal(ulen, lens[i]);
		if (lens[i])
			assert_memory_equal(out, ulpdu[i], lens[i]);
		p += ret;
	}
	assert_int_equal(p, pos);
	assert_int_equal(rx.off, tx.off);
}

static void test_stream_round_trip(void **state)
{
	static const u32 starts[] = { 0, 4, 500, 508, 0xfffff000, 0xfffffffc };
	unsigned int i;
	int mode;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(starts); i++)
		for (mode = 0; mode < 4; mode++)
			stream_round_trip(starts[i], mode & 1, mode & 2);
}

/* RFC 5044 8: CRC error (2) before marker error (3); short input */
static void test_parse_errors(void **state)
{
	struct iwtcp_fpdu_stream st = { .off = 480, .markers = true, .crc = true };
	u8 ulpdu[100], out[100], buf[128];
	u32 ulen;
	int len, i;

	(void)state;
	for (i = 0; i < 100; i++)
		ulpdu[i] = i;
	len = iwtcp_fpdu_build(&st, ulpdu, 100, buf, sizeof(buf));
	assert_int_equal(len, 2 + 100 + 2 + 4 + 4);
	/* marker at 512 - 480 = 32 */
	assert_int_equal(buf[35], 32);

	for (i = 0; i < len; i++) {
		st.off = 480;
		assert_int_equal(iwtcp_fpdu_parse(&st, buf, i, out, 100, &ulen),
				 -EAGAIN);
		assert_int_equal(st.off, 480);
	}
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 99, &ulen),
			 -EMSGSIZE);
	buf[10] ^= 0x04;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen),
			 -EBADMSG);
	st.crc = false;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen), len);
	buf[10] ^= 0x04;
	/* marker pointer wrong: a CRC error first, a marker error without CRC */
	st.off = 480;
	st.crc = true;
	buf[35] = 36;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen),
			 -EBADMSG);
	st.crc = false;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen),
			 -EPROTO);
	/* RFC 5044 4.2: low two bits and RESERVED are ignored */
	buf[35] = 32 | 3;
	buf[32] = 0xff;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen), len);
	assert_memory_equal(out, ulpdu, 100);
	/* CRC off: the field may hold anything */
	st.off = 480;
	buf[len - 1] ^= 0xff;
	assert_int_equal(iwtcp_fpdu_parse(&st, buf, len, out, 100, &ulen), len);
}

static void test_build_errors(void **state)
{
	struct iwtcp_fpdu_stream st = { .off = 0, .markers = true, .crc = true };
	static u8 big[65536], out[65536 + 1024];

	(void)state;
	assert_int_equal(iwtcp_fpdu_build(&st, big, 10, out, 19), -ENOSPC);
	assert_int_equal(iwtcp_fpdu_build(&st, big, 10, out, 20), 20);
	assert_int_equal(iwtcp_fpdu_build(&st, big, 65536, out, sizeof(out)),
			 -EMSGSIZE);
	/* FPDUPTR would pass 16 bits */
	st.off = 4;
	assert_int_equal(iwtcp_fpdu_build(&st, big, 65535, out, sizeof(out)),
			 -EMSGSIZE);
	st.markers = false;
	assert_int_equal(iwtcp_fpdu_build(&st, big, 65535, out, sizeof(out)),
			 65544);
	st.markers = true;
	st.off = 2;
	assert_int_equal(iwtcp_fpdu_build(&st, big, 4, out, sizeof(out)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pad_len),
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_rfc_figure5),
		cmocka_unit_test(test_rfc_figure6),
		cmocka_unit_test(test_markers_vs_reference),
		cmocka_unit_test(test_markers_all_phases),
		cmocka_unit_test(test_markers_edges),
		cmocka_unit_test(test_mulpdu),
		cmocka_unit_test(test_mulpdu_at),
		cmocka_unit_test(test_ulpdu_fit),
		cmocka_unit_test(test_stream_round_trip),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_build_errors),
	};

	return cmocka_run_group_tests_name("fpdu", tests, NULL, NULL);
}
