// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RDMAP (RFC 5040 4): the receiver's checks of the RDMAP control field
 * against the DDP header, the Read Request and Terminate headers, and the
 * zero-length RTR messages of RFC 6581 9.2 as complete ULPDUs, ready for
 * iwtcp_fpdu_build().
 *
 * Pure code: a received segment is checked in this order, each step
 * returning 0 or a TERM cause: iwtcp_ddp_parse() (DDP header),
 * iwtcp_rdmap_check() (opcode against T, QN and length), then, for
 * untagged segments, iwtcp_ddp_check_untagged() against the queue of the
 * QN. The QP code acts on the result.
 */
#include <linux/array_size.h>
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "mpa.h"
#include "rdmap.h"

/*
 * RFC 6581 9.2 asks the initiator for one zero-length message of the
 * negotiated type and does not give the STag and TO of a zero-length RDMA
 * Write or Read Request. RFC 5041 5.2: the STag and TO of a zero-length
 * tagged segment must not be checked, which covers the RTR Write and the
 * Read Response that answers a zero-length Read. RFC 5040 4.4 has no such
 * exemption for the Data Source STag of a Read Request, and some RNICs
 * fail a zero-length Read whose STag is 0 (the reserved STag of many
 * RNICs). So iwtcp sends IWTCP_RDMAP_RTR_STAG with TO 0 in both, as siw
 * does, and accepts any STag and TO in a received RTR.
 */

/**
 * iwtcp_rdmap_ctrl() - RDMAP control field to send (RFC 5040 4.1)
 * @opcode: enum iwtcp_rdmap_opcode
 *
 * Context: Any context.
 * Return: RV = 1, Rsv = 0 and @opcode, for struct iwtcp_ddp_hdr.ulp_ctrl.
 */
u8 iwtcp_rdmap_ctrl(u8 opcode)
{
	return FIELD_PREP(IWTCP_RDMAP_RV, IWTCP_RDMAP_VERSION) |
	       FIELD_PREP(IWTCP_RDMAP_OPCODE, opcode);
}

/**
 * struct rdmap_op - what RFC 5040 4.1 Figure 4 says of one opcode
 * @defined: the opcode is defined
 * @tagged: carried in the tagged buffer model
 * @qn: untagged: the only queue the opcode may use
 * @single: one DDP segment, L set and MO 0: the message is a header
 * @min: octets of RDMAP header after the DDP header
 * @max: most octets after the DDP header, 0 for no limit
 */
struct rdmap_op {
	bool defined;
	bool tagged;
	u8 qn;
	bool single;
	u8 min;
	u8 max;
};

static const struct rdmap_op rdmap_ops[] = {
	[IWTCP_RDMAP_WRITE] = { .defined = true, .tagged = true },
	[IWTCP_RDMAP_READ_REQ] = {
		.defined = true, .qn = IWTCP_DDP_QN_READ_REQ, .single = true,
		.min = sizeof(struct iwtcp_rdmap_read_req),
		.max = sizeof(struct iwtcp_rdmap_read_req),
	},
	[IWTCP_RDMAP_READ_RESP] = { .defined = true, .tagged = true },
	[IWTCP_RDMAP_SEND] = { .defined = true, .qn = IWTCP_DDP_QN_SEND },
	[IWTCP_RDMAP_SEND_INV] = { .defined = true, .qn = IWTCP_DDP_QN_SEND },
	[IWTCP_RDMAP_SEND_SE] = { .defined = true, .qn = IWTCP_DDP_QN_SEND },
	[IWTCP_RDMAP_SEND_SE_INV] = { .defined = true, .qn = IWTCP_DDP_QN_SEND },
	[IWTCP_RDMAP_TERMINATE] = {
		.defined = true, .qn = IWTCP_DDP_QN_TERMINATE, .single = true,
		.min = sizeof(struct iwtcp_rdmap_term_hdr),
		.max = IWTCP_TERM_HDR_MAX,
	},
};

static int remote_op(struct iwtcp_term_cause *cause, u8 ecode)
{
	return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
			      IWTCP_TERM_RDMAP_REMOTE_OP, ecode);
}

static int untagged(struct iwtcp_term_cause *cause, u8 ecode)
{
	return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
			      IWTCP_TERM_DDP_UNTAGGED, ecode);
}

/**
 * iwtcp_rdmap_check() - check the RDMAP control field of a received
 *	segment against its DDP header (RFC 5040 4.1, 4.4, 4.8)
 * @h: header from a successful iwtcp_ddp_parse()
 * @cause: set on failure
 *
 * In this order: RV is 1 (RFC 5040 4.1; Rsv is not checked); the opcode is
 * defined (RFC 5040 4.1 Figure 4: 1000b and up are reserved); it uses the
 * buffer model and queue Figure 4 gives it: RDMA Write and Read Response
 * tagged, Send* untagged on QN 0, Read Request on QN 1, Terminate on QN 2;
 * a Read Request or Terminate, being one header with no payload, is a
 * single segment: MO 0 and L set; the segment holds the opcode's RDMAP
 * header (RFC 5040 4.4: 28 octets after the 18-octet DDP header, so 46 in
 * all; RFC 5040 4.8: at least the 4-octet Terminate Control) and no more
 * than that header can be (28 octets; 52 for a Terminate).
 *
 * Context: Any context.
 * Return:
 * * 0 - the segment is a well-formed RDMAP message (segment)
 * * -EPROTO - @cause says why not:
 *   RDMAP remote operation error, invalid RDMAP version: RV is not 1;
 *   RDMAP remote operation error, unexpected opcode: opcode reserved, or
 *   in the wrong buffer model or queue;
 *   DDP untagged error, invalid MO: Read Request or Terminate with MO > 0;
 *   DDP untagged error, message too long: Read Request or Terminate
 *   without L, or longer than its header;
 *   RDMAP remote operation error, catastrophic for the stream: segment
 *   shorter than the opcode's header
 */
int iwtcp_rdmap_check(const struct iwtcp_ddp_hdr *h,
		      struct iwtcp_term_cause *cause)
{
	u8 opcode = FIELD_GET(IWTCP_RDMAP_OPCODE, h->ulp_ctrl);
	const struct rdmap_op *op;

	if (FIELD_GET(IWTCP_RDMAP_RV, h->ulp_ctrl) != IWTCP_RDMAP_VERSION)
		return remote_op(cause, IWTCP_TERM_RDMAP_VERSION);
	if (opcode >= ARRAY_SIZE(rdmap_ops) || !rdmap_ops[opcode].defined)
		return remote_op(cause, IWTCP_TERM_RDMAP_OPCODE);
	op = &rdmap_ops[opcode];
	if (op->tagged != h->tagged || (!h->tagged && op->qn != h->qn))
		return remote_op(cause, IWTCP_TERM_RDMAP_OPCODE);
	if (op->single && h->mo)
		return untagged(cause, IWTCP_TERM_DDP_U_INV_MO);
	if (op->single && !h->last)
		return untagged(cause, IWTCP_TERM_DDP_U_TOO_LONG);
	if (h->data_len < op->min)
		return remote_op(cause, IWTCP_TERM_RDMAP_CATASTROPHIC_STREAM);
	if (op->max && h->data_len > op->max)
		return untagged(cause, IWTCP_TERM_DDP_U_TOO_LONG);
	return 0;
}

/* RFC 5040 4.4, 4.8: Read Request and Terminate: one segment, MO 0 */
static int build_single(u8 opcode, u32 qn, u32 msn, void *buf, size_t size)
{
	struct iwtcp_ddp_hdr h = {
		.last = true,
		.ulp_ctrl = iwtcp_rdmap_ctrl(opcode),
		.qn = qn,
		.msn = msn,
	};

	return iwtcp_ddp_build_untagged(&h, buf, size);
}

/**
 * iwtcp_rdmap_build_read_req() - write an RDMA Read Request as a complete
 *	ULPDU (RFC 5040 4.4, Figure 6)
 * @rr: the Read Request
 * @msn: MSN of this Read Request on queue 1 (RFC 5041 4.3: the first is 1)
 * @buf: output
 * @size: octets available at @buf
 *
 * Writes an untagged DDP header (L set, QN 1, MO 0, Invalidate STag 0;
 * RV 1, opcode 0001b) and the 28-octet Read Request header.
 *
 * Context: Any context.
 * Return:
 * * 46, the octets written (IWTCP_RDMAP_READ_REQ_LEN)
 * * -ENOSPC - @size is below 46
 */
int iwtcp_rdmap_build_read_req(const struct iwtcp_rdmap_read *rr, u32 msn,
			       void *buf, size_t size)
{
	struct iwtcp_rdmap_read_req hdr;
	int n;

	if (size < IWTCP_RDMAP_READ_REQ_LEN)
		return -ENOSPC;
	n = build_single(IWTCP_RDMAP_READ_REQ, IWTCP_DDP_QN_READ_REQ, msn,
			 buf, size);
	hdr.sink_stag = cpu_to_be32(rr->sink_stag);
	hdr.sink_to = cpu_to_be64(rr->sink_to);
	hdr.read_size = cpu_to_be32(rr->size);
	hdr.src_stag = cpu_to_be32(rr->src_stag);
	hdr.src_to = cpu_to_be64(rr->src_to);
	memcpy((u8 *)buf + n, &hdr, sizeof(hdr));
	return n + sizeof(hdr);
}

/**
 * iwtcp_rdmap_parse_read_req() - decode the Read Request header of a
 *	received ULPDU (RFC 5040 4.4)
 * @ulpdu: the ULPDU, starting with its untagged DDP header
 * @len: octets at @ulpdu
 * @rr: decoded header
 *
 * Reads the header fields only; run iwtcp_ddp_parse() and
 * iwtcp_rdmap_check() first, which check the DDP and RDMAP control fields.
 *
 * Context: Any context.
 * Return:
 * * 0 - @rr is filled
 * * -EBADMSG - @len is not 46
 */
int iwtcp_rdmap_parse_read_req(const void *ulpdu, u32 len,
			       struct iwtcp_rdmap_read *rr)
{
	struct iwtcp_rdmap_read_req hdr;

	if (len != IWTCP_RDMAP_READ_REQ_LEN)
		return -EBADMSG;
	memcpy(&hdr, (const u8 *)ulpdu + sizeof(struct iwtcp_ddp_untagged_hdr),
	       sizeof(hdr));
	rr->sink_stag = be32_to_cpu(hdr.sink_stag);
	rr->sink_to = be64_to_cpu(hdr.sink_to);
	rr->size = be32_to_cpu(hdr.read_size);
	rr->src_stag = be32_to_cpu(hdr.src_stag);
	rr->src_to = be64_to_cpu(hdr.src_to);
	return 0;
}

/* RFC 5041 4.2, 4.3: DDP header length that the first octet's T bit says */
static u8 ddp_hdr_len(u8 first)
{
	if (first & (IWTCP_DDP_T >> 8))
		return sizeof(struct iwtcp_ddp_tagged_hdr);
	return sizeof(struct iwtcp_ddp_untagged_hdr);
}

/* octets of the Terminate header @t describes, or 0 if inconsistent */
static u32 term_hdr_len(const struct iwtcp_rdmap_term *t)
{
	u32 len = sizeof(struct iwtcp_rdmap_term_hdr);

	if (t->cause.layer > FIELD_MAX(IWTCP_TERM_LAYER) ||
	    t->cause.etype > FIELD_MAX(IWTCP_TERM_ETYPE))
		return 0;
	if (t->ddp_len) {
		if (t->ddp_len != ddp_hdr_len(t->ddp_hdr[0]))
			return 0;
		len += sizeof(__be16) + t->ddp_len;
	} else if (t->seg_len_valid) {
		return 0;
	}
	if (t->rdmap_hdr_valid)
		len += sizeof(t->rdmap_hdr);
	return len;
}

/**
 * iwtcp_rdmap_build_term() - write a TERMINATE message as a complete ULPDU
 *	(RFC 5040 4.8, 5.4)
 * @t: Terminate header to send
 * @msn: MSN of this Terminate on queue 2 (RFC 5041 4.3: the first is 1)
 * @buf: output
 * @size: octets available at @buf
 *
 * Writes an untagged DDP header (L set, QN 2, MO 0; RV 1, opcode 0111b),
 * the Terminate Control word (Layer, EType, Error Code, M, D, R, Reserved
 * 0), then with D (t->ddp_len) the DDP Segment Length and the terminated
 * DDP header, then with R the terminated Read Request header. D and R are
 * set exactly when those headers are sent.
 *
 * Context: Any context.
 * Return:
 * * octets written, 22 to 70
 * * -EINVAL - layer or type over 15, t->ddp_len neither 0 nor the length
 *   the T bit of t->ddp_hdr gives, or M without D (RFC 5040 4.8: the
 *   length is sent only with the DDP header)
 * * -ENOSPC - @size too small
 */
int iwtcp_rdmap_build_term(const struct iwtcp_rdmap_term *t, u32 msn,
			   void *buf, size_t size)
{
	u32 len = term_hdr_len(t);
	struct iwtcp_rdmap_term_hdr th;
	u8 *p = buf;
	__be16 seg_len;
	u32 ctrl;

	if (!len)
		return -EINVAL;
	if (size < sizeof(struct iwtcp_ddp_untagged_hdr) + len)
		return -ENOSPC;
	p += build_single(IWTCP_RDMAP_TERMINATE, IWTCP_DDP_QN_TERMINATE, msn,
			  buf, size);
	ctrl = FIELD_PREP(IWTCP_TERM_LAYER, t->cause.layer) |
	       FIELD_PREP(IWTCP_TERM_ETYPE, t->cause.etype) |
	       FIELD_PREP(IWTCP_TERM_ECODE, t->cause.ecode);
	if (t->seg_len_valid)
		ctrl |= IWTCP_TERM_M;
	if (t->ddp_len)
		ctrl |= IWTCP_TERM_D;
	if (t->rdmap_hdr_valid)
		ctrl |= IWTCP_TERM_R;
	th.ctrl = cpu_to_be32(ctrl);
	memcpy(p, &th, sizeof(th));
	p += sizeof(th);
	if (t->ddp_len) {
		seg_len = cpu_to_be16(t->seg_len_valid ? t->seg_len : 0);
		memcpy(p, &seg_len, sizeof(seg_len));
		memcpy(p + sizeof(seg_len), t->ddp_hdr, t->ddp_len);
		p += sizeof(seg_len) + t->ddp_len;
	}
	if (t->rdmap_hdr_valid)
		memcpy(p, t->rdmap_hdr, sizeof(t->rdmap_hdr));
	return sizeof(struct iwtcp_ddp_untagged_hdr) + len;
}

/**
 * iwtcp_rdmap_parse_term() - decode the Terminate header of a received
 *	ULPDU (RFC 5040 4.8)
 * @ulpdu: the ULPDU, starting with its untagged DDP header
 * @len: octets at @ulpdu
 * @t: decoded header; the copied headers are zero beyond what was sent
 *
 * Reads the Terminate header only; run iwtcp_ddp_parse() and
 * iwtcp_rdmap_check() first. The terminated DDP header's length follows
 * its own T bit; Reserved is not checked. M without D is accepted, though
 * the length it vouches for is absent (iwtcp_rdmap_build_term() never
 * sends it).
 *
 * Context: Any context.
 * Return:
 * * 0 - @t is filled
 * * -EBADMSG - @len does not match what M, D and R announce
 */
int iwtcp_rdmap_parse_term(const void *ulpdu, u32 len,
			   struct iwtcp_rdmap_term *t)
{
	const u8 *p = (const u8 *)ulpdu + sizeof(struct iwtcp_ddp_untagged_hdr);
	const u8 *end = (const u8 *)ulpdu + len;
	struct iwtcp_rdmap_term_hdr th;
	__be16 seg_len;
	u32 ctrl;

	memset(t, 0, sizeof(*t));
	if (len < sizeof(struct iwtcp_ddp_untagged_hdr) + sizeof(th))
		return -EBADMSG;
	memcpy(&th, p, sizeof(th));
	p += sizeof(th);
	ctrl = be32_to_cpu(th.ctrl);
	t->cause.layer = FIELD_GET(IWTCP_TERM_LAYER, ctrl);
	t->cause.etype = FIELD_GET(IWTCP_TERM_ETYPE, ctrl);
	t->cause.ecode = FIELD_GET(IWTCP_TERM_ECODE, ctrl);
	t->seg_len_valid = !!(ctrl & IWTCP_TERM_M);
	t->rdmap_hdr_valid = !!(ctrl & IWTCP_TERM_R);
	if (ctrl & IWTCP_TERM_D) {
		if (end - p < (long)sizeof(seg_len) + 1)
			return -EBADMSG;
		memcpy(&seg_len, p, sizeof(seg_len));
		t->seg_len = be16_to_cpu(seg_len);
		p += sizeof(seg_len);
		t->ddp_len = ddp_hdr_len(*p);
		if (end - p < t->ddp_len)
			return -EBADMSG;
		memcpy(t->ddp_hdr, p, t->ddp_len);
		p += t->ddp_len;
	}
	if (t->rdmap_hdr_valid) {
		if (end - p < (long)sizeof(t->rdmap_hdr))
			return -EBADMSG;
		memcpy(t->rdmap_hdr, p, sizeof(t->rdmap_hdr));
		p += sizeof(t->rdmap_hdr);
	}
	return p == end ? 0 : -EBADMSG;
}

/**
 * iwtcp_rdmap_build_rtr() - write an RTR message as a complete ULPDU
 *	(RFC 6581 9.2)
 * @type: one of IWTCP_MPA_RTR_SEND, _WRITE, _READ (enum iwtcp_mpa_rtr)
 * @msn: MSN on the message's queue (QN 0 for Send, QN 1 for Read); the
 *	first message of a stream, so IWTCP_DDP_MSN_INIT. Unused for Write.
 * @buf: output
 * @size: octets available at @buf
 *
 * Send: untagged, L set, QN 0, MO 0, no payload (18 octets). Write:
 * tagged, L set, STag IWTCP_RDMAP_RTR_STAG, TO 0, no payload (14 octets).
 * Read: a Read Request of size 0, both STags IWTCP_RDMAP_RTR_STAG, both
 * TOs 0 (46 octets). The top of rdmap.c says why these STags and TOs.
 *
 * Context: Any context.
 * Return:
 * * octets written
 * * -EINVAL - @type is not exactly one RTR type
 * * -ENOSPC - @size too small
 */
int iwtcp_rdmap_build_rtr(u8 type, u32 msn, void *buf, size_t size)
{
	struct iwtcp_rdmap_read rr = {
		.sink_stag = IWTCP_RDMAP_RTR_STAG,
		.src_stag = IWTCP_RDMAP_RTR_STAG,
	};
	struct iwtcp_ddp_hdr h = {
		.last = true,
		.stag = IWTCP_RDMAP_RTR_STAG,
		.qn = IWTCP_DDP_QN_SEND,
		.msn = msn,
	};

	switch (type) {
	case IWTCP_MPA_RTR_SEND:
		h.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_SEND);
		return iwtcp_ddp_build_untagged(&h, buf, size);
	case IWTCP_MPA_RTR_WRITE:
		h.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_WRITE);
		return iwtcp_ddp_build_tagged(&h, buf, size);
	case IWTCP_MPA_RTR_READ:
		return iwtcp_rdmap_build_read_req(&rr, msn, buf, size);
	default:
		return -EINVAL;
	}
}

/**
 * iwtcp_rdmap_rtr_type() - which RTR message a received first ULPDU is
 *	(RFC 6581 9.2)
 * @ulpdu: the first ULPDU received from the initiator
 * @len: octets at @ulpdu
 *
 * Recognises a valid (iwtcp_ddp_parse() and iwtcp_rdmap_check() pass),
 * single-segment (L set), zero-length message that is the first on its
 * queue: a Send (opcode 0011b only) on QN 0 with MSN 1 and MO 0, an RDMA
 * Write with no payload, or a Read Request on QN 1 with MSN 1 and an RDMA
 * Read Message Size of 0. STags, TOs and the Invalidate STag are not
 * looked at (see the top of rdmap.c).
 *
 * Context: Any context.
 * Return: IWTCP_MPA_RTR_SEND, _WRITE or _READ, or 0 if @ulpdu is none of
 * them. The responder compares it with the type it negotiated.
 */
u8 iwtcp_rdmap_rtr_type(const void *ulpdu, u32 len)
{
	struct iwtcp_term_cause cause;
	struct iwtcp_rdmap_read rr;
	struct iwtcp_ddp_hdr h;

	if (iwtcp_ddp_parse(ulpdu, len, &h, &cause) < 0 ||
	    iwtcp_rdmap_check(&h, &cause) || !h.last)
		return 0;
	switch (FIELD_GET(IWTCP_RDMAP_OPCODE, h.ulp_ctrl)) {
	case IWTCP_RDMAP_WRITE:
		return h.data_len ? 0 : IWTCP_MPA_RTR_WRITE;
	case IWTCP_RDMAP_SEND:
		if (h.data_len || h.mo || h.msn != IWTCP_DDP_MSN_INIT)
			return 0;
		return IWTCP_MPA_RTR_SEND;
	case IWTCP_RDMAP_READ_REQ:
		if (iwtcp_rdmap_parse_read_req(ulpdu, len, &rr) || rr.size ||
		    h.msn != IWTCP_DDP_MSN_INIT)
			return 0;
		return IWTCP_MPA_RTR_READ;
	default:
		return 0;
	}
}
