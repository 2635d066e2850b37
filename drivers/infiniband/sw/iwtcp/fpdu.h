/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MPA FPDU sizing, marker placement and CRC32c (RFC 5044 4): pure functions.
 */
#ifndef _IWTCP_FPDU_H
#define _IWTCP_FPDU_H

#include <linux/stddef.h>
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

/**
 * struct iwtcp_fpdu_sink - where the transmit framer writes an FPDU
 * @reserve: room for up to @len more wire octets: store where they go in
 *	*@dst and return how many fit there (1 to @len, contiguous), or a
 *	negative errno, which the framer passes back. @len is what is left
 *	of the FPDU being framed: the framer fills that room in wire order
 *	before it asks again, all of it unless framing fails (its caller
 *	then drops the FPDU).
 * @arg: first argument of @reserve
 */
struct iwtcp_fpdu_sink {
	int (*reserve)(void *arg, u32 len, void **dst);
	void *arg;
};

/**
 * struct iwtcp_fpdu_tx - one FPDU being framed for transmit (RFC 5044 4)
 * @l: its marker layout
 * @ulpdu_len: ULPDU octets announced by iwtcp_fpdu_tx_begin()
 * @content: FPDU content octets framed so far (ULPDU_Length counts)
 * @wpos: wire octets written to the sink so far, markers included
 * @mk: markers written to the sink so far
 * @crc: CRC register over the wire octets before @crc_from
 * @crc_on: the CRC is computed (RFC 5044 4.4), else the field is 0
 * @dst: where the next wire octet goes, in room the sink gave
 * @crc_from: the first octet of that room not yet in @crc
 * @room: octets of that room not yet written
 */
struct iwtcp_fpdu_tx {
	struct iwtcp_fpdu_layout l;
	u32 ulpdu_len;
	u32 content;
	u32 wpos;
	u32 mk;
	u32 crc;
	bool crc_on;
	u8 *dst;
	u8 *crc_from;
	u32 room;
};

/*
 * Visitor of received octets: 0 to go on, or a negative errno to stop. It
 * may run with page faults disabled (mapped socket buffer fragments).
 */
typedef int (*iwtcp_fpdu_visit_t)(void *ctx, const void *p, u32 len);

/**
 * struct iwtcp_fpdu_source - received stream octets the receive framer reads
 * @visit: call @fn on the @len octets from @pos (counted from the FPDU's
 *	first octet, its leading marker if any), in order, in as many pieces
 *	as the buffers holding them take; return 0, @fn's error, or -EAGAIN
 *	if some of the octets have not arrived (@fn may have seen the ones
 *	before them)
 * @arg: first argument of @visit
 * @avail: octets the source holds from the FPDU's first octet on
 *
 * The source holds the stream in order and without holes from the FPDU's
 * first octet on, as TCP's receive queue does (@avail: where the queue's
 * last buffer ends, less the FPDU's sequence number), so whether an FPDU
 * has arrived whole is known without reading its last octet.
 */
struct iwtcp_fpdu_source {
	int (*visit)(void *arg, u32 pos, u32 len, iwtcp_fpdu_visit_t fn,
		     void *ctx);
	void *arg;
	u32 avail;
};

/**
 * struct iwtcp_fpdu_rx - one received FPDU being decoded (RFC 5044 6)
 * @l: its marker layout; @l.wire_len is its length in the stream
 * @ulpdu_len: its ULPDU_Length field
 * @hdr_got: leading ULPDU octets iwtcp_fpdu_rx_begin() copied to its @hdr
 */
struct iwtcp_fpdu_rx {
	struct iwtcp_fpdu_layout l;
	u32 ulpdu_len;
	u32 hdr_got;
};

u32 iwtcp_fpdu_pad(u32 ulpdu_len);
u32 iwtcp_fpdu_len(u32 ulpdu_len);
u32 iwtcp_fpdu_mulpdu(u32 emss, bool markers);
u32 iwtcp_fpdu_mulpdu_at(u32 stream_off, u32 emss, bool markers);
u32 iwtcp_fpdu_ulpdu_fit(u32 room);
int iwtcp_fpdu_markers(u32 stream_off, u32 fpdu_len,
		       struct iwtcp_fpdu_layout *l);
u16 iwtcp_fpdu_marker_ptr(const struct iwtcp_fpdu_layout *l, u32 i);
u32 iwtcp_fpdu_wire_off(const struct iwtcp_fpdu_layout *l, u32 c, u32 *run);
u32 iwtcp_fpdu_crc_update(u32 crc, const void *p, unsigned int len);
__le32 iwtcp_fpdu_crc_final(u32 crc);
__le32 iwtcp_fpdu_crc(const void *p, unsigned int len);
int iwtcp_fpdu_tx_begin(struct iwtcp_fpdu_tx *t,
			const struct iwtcp_fpdu_stream *st, u32 ulpdu_len,
			const struct iwtcp_fpdu_sink *s);
int iwtcp_fpdu_tx_add(struct iwtcp_fpdu_tx *t, const void *p, u32 len,
		      const struct iwtcp_fpdu_sink *s);
int iwtcp_fpdu_tx_end(struct iwtcp_fpdu_tx *t, struct iwtcp_fpdu_stream *st,
		      const struct iwtcp_fpdu_sink *s);
int iwtcp_fpdu_rx_begin(struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_stream *st,
			const struct iwtcp_fpdu_source *src, void *hdr,
			u32 hdr_size);
int iwtcp_fpdu_rx_hdr(const struct iwtcp_fpdu_rx *r,
		      const struct iwtcp_fpdu_source *src, void *hdr, u32 len);
int iwtcp_fpdu_rx_check(const struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_stream *st,
			const struct iwtcp_fpdu_source *src);
int iwtcp_fpdu_rx_visit(const struct iwtcp_fpdu_rx *r,
			const struct iwtcp_fpdu_source *src, u32 c, u32 len,
			iwtcp_fpdu_visit_t fn, void *ctx);
int iwtcp_fpdu_rx_copy(const struct iwtcp_fpdu_rx *r,
		       const struct iwtcp_fpdu_source *src, u32 c, void *dst,
		       u32 len);
int iwtcp_fpdu_build(struct iwtcp_fpdu_stream *st, const void *ulpdu,
		     u32 ulpdu_len, void *buf, size_t size);
int iwtcp_fpdu_parse(struct iwtcp_fpdu_stream *st, const void *buf,
		     size_t len, void *ulpdu, size_t ulpdu_size, u32 *ulpdu_len);

#endif /* _IWTCP_FPDU_H */
