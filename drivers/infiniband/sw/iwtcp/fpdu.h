/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MPA FPDU sizing, marker placement and CRC32c (RFC 5044 4): pure functions.
 */
#ifndef _IWTCP_FPDU_H
#define _IWTCP_FPDU_H

#include <linux/types.h>
#include <iwtcp/wire.h>

/* Initial CRC32c register for iwtcp_fpdu_crc_update() (RFC 3720 B.4) */
#define IWTCP_FPDU_CRC_SEED	(~0U)

/**
 * struct iwtcp_fpdu_layout - where markers fall in one FPDU on the wire
 * @wire_len: octets the FPDU takes in the stream, markers included
 * @hdr_off: offset of ULPDU_Length from the FPDU's first octet: 4 when a
 *	marker precedes it (RFC 5044 4.3: FPDUPTR 0), else 0
 * @first: offset of the first marker from the FPDU's first octet; marker i
 *	is at @first + 512 * i (RFC 5044 4.3); valid if @nr
 * @nr: markers that belong to this FPDU
 */
struct iwtcp_fpdu_layout {
	u32 wire_len;
	u32 hdr_off;
	u32 first;
	u32 nr;
};

/**
 * struct iwtcp_fpdu_stream - one direction of an MPA stream in full operation
 * @off: octets sent or received since MPA full operation started, modulo
 *	2^32 (RFC 5044 4.3: markers sit where @off % 512 == 0)
 * @markers: markers are inserted in this direction
 * @crc: CRCs are generated and checked (RFC 5044 4.4)
 * @large: transmit only: the peer takes FPDUs beyond the MSS (G bit,
 *	IWTCP_MPA_HDR_G); FPDUs are sized to IWTCP_MPA_LARGE_FPDU
 */
struct iwtcp_fpdu_stream {
	u32 off;
	bool markers;
	bool crc;
	bool large;
};

u32 iwtcp_fpdu_pad(u32 ulpdu_len);
u32 iwtcp_fpdu_len(u32 ulpdu_len);
u32 iwtcp_fpdu_mulpdu(u32 emss, bool markers);
u32 iwtcp_fpdu_mulpdu_at(u32 stream_off, u32 emss, bool markers);
int iwtcp_fpdu_markers(u32 stream_off, u32 fpdu_len,
		       struct iwtcp_fpdu_layout *l);
u16 iwtcp_fpdu_marker_ptr(const struct iwtcp_fpdu_layout *l, u32 i);
u32 iwtcp_fpdu_wire_off(const struct iwtcp_fpdu_layout *l, u32 c, u32 *run);
u32 iwtcp_fpdu_crc_update(u32 crc, const void *p, unsigned int len);
__le32 iwtcp_fpdu_crc_final(u32 crc);
__le32 iwtcp_fpdu_crc(const void *p, unsigned int len);
int iwtcp_fpdu_build(struct iwtcp_fpdu_stream *st, const void *ulpdu,
		     u32 ulpdu_len, void *buf, size_t size);
int iwtcp_fpdu_parse(struct iwtcp_fpdu_stream *st, const void *buf,
		     size_t len, void *ulpdu, size_t ulpdu_size, u32 *ulpdu_len);

#endif /* _IWTCP_FPDU_H */
