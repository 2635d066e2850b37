// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DDP segment headers (RFC 5041 4): build them, and check a received one
 * as the Data Sink must before it places anything (RFC 5041 7.1).
 *
 * Pure code: bytes and the receiver's queue state in, a header or a TERM
 * cause (RFC 5041 7.2) out. The QP code looks up queues and buffers and
 * sends the TERMINATE; STag, access and base/bounds checks of tagged
 * segments belong to the memory code, which knows the STags.
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "ddp.h"

/* RFC 5041 4.1: RsvdULP[0:7], the low octet of the control word */
#define DDP_ULP_CTRL	GENMASK(7, 0)

/* RFC 5041 4.1: T, L, Rsvd = 0, DV = 1, RsvdULP[0:7] */
static __be16 ddp_ctrl(bool tagged, bool last, u8 ulp_ctrl)
{
	u16 ctrl = FIELD_PREP(IWTCP_DDP_DV, IWTCP_DDP_VERSION) |
		   FIELD_PREP(DDP_ULP_CTRL, ulp_ctrl);

	if (tagged)
		ctrl |= IWTCP_DDP_T;
	if (last)
		ctrl |= IWTCP_DDP_L;
	return cpu_to_be16(ctrl);
}

/**
 * iwtcp_ddp_build_tagged() - write a tagged buffer model header
 *	(RFC 5041 4.2, Figure 4)
 * @h: h->last, h->ulp_ctrl, h->stag and h->to are sent; the rest is ignored
 * @buf: output
 * @size: octets available at @buf
 *
 * T is set, Rsvd is zero and DV is 1 (RFC 5041 4.1).
 *
 * Context: Any context.
 * Return:
 * * 14, the octets written
 * * -ENOSPC - @size is below 14
 */
int iwtcp_ddp_build_tagged(const struct iwtcp_ddp_hdr *h, void *buf,
			   size_t size)
{
	struct iwtcp_ddp_tagged_hdr th;

	if (size < sizeof(th))
		return -ENOSPC;
	th.ctrl = ddp_ctrl(true, h->last, h->ulp_ctrl);
	th.stag = cpu_to_be32(h->stag);
	th.to = cpu_to_be64(h->to);
	memcpy(buf, &th, sizeof(th));
	return sizeof(th);
}

/**
 * iwtcp_ddp_build_untagged() - write an untagged buffer model header
 *	(RFC 5041 4.3, Figure 5)
 * @h: h->last, h->ulp_ctrl, h->inval_stag, h->qn, h->msn and h->mo are
 *	sent; the rest is ignored
 * @buf: output
 * @size: octets available at @buf
 *
 * T is clear, Rsvd is zero and DV is 1 (RFC 5041 4.1).
 *
 * Context: Any context.
 * Return:
 * * 18, the octets written
 * * -ENOSPC - @size is below 18
 */
int iwtcp_ddp_build_untagged(const struct iwtcp_ddp_hdr *h, void *buf,
			     size_t size)
{
	struct iwtcp_ddp_untagged_hdr uh;

	if (size < sizeof(uh))
		return -ENOSPC;
	uh.ctrl = ddp_ctrl(false, h->last, h->ulp_ctrl);
	uh.inval_stag = cpu_to_be32(h->inval_stag);
	uh.qn = cpu_to_be32(h->qn);
	uh.msn = cpu_to_be32(h->msn);
	uh.mo = cpu_to_be32(h->mo);
	memcpy(buf, &uh, sizeof(uh));
	return sizeof(uh);
}

/*
 * A segment too short for its own header cannot be placed or even
 * attributed to a buffer; RFC 5041 7.2 has no code for it, so report a
 * catastrophic DDP error (type 0, code 0), which ends the stream.
 */
static int ddp_truncated(struct iwtcp_term_cause *cause)
{
	return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
			      IWTCP_TERM_DDP_CATASTROPHIC, 0);
}

static int parse_tagged(const void *seg, u32 len, struct iwtcp_ddp_hdr *h,
			struct iwtcp_term_cause *cause)
{
	struct iwtcp_ddp_tagged_hdr th;

	if (len < sizeof(th))
		return ddp_truncated(cause);
	memcpy(&th, seg, sizeof(th));
	h->stag = be32_to_cpu(th.stag);
	h->to = be64_to_cpu(th.to);
	h->hdr_len = sizeof(th);
	h->data_len = len - sizeof(th);
	/*
	 * RFC 5041 7.1, tagged (5): payload length and TO must not wrap.
	 * RFC 5041 5.2: STag and TO of a zero-length segment are not checked.
	 */
	if (h->data_len && h->to + (h->data_len - 1) < h->to)
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_TAGGED,
				      IWTCP_TERM_DDP_T_TO_WRAP);
	return sizeof(th);
}

static int parse_untagged(const void *seg, u32 len, struct iwtcp_ddp_hdr *h,
			  struct iwtcp_term_cause *cause)
{
	struct iwtcp_ddp_untagged_hdr uh;

	if (len < sizeof(uh))
		return ddp_truncated(cause);
	memcpy(&uh, seg, sizeof(uh));
	h->inval_stag = be32_to_cpu(uh.inval_stag);
	h->qn = be32_to_cpu(uh.qn);
	h->msn = be32_to_cpu(uh.msn);
	h->mo = be32_to_cpu(uh.mo);
	h->hdr_len = sizeof(uh);
	h->data_len = len - sizeof(uh);
	/* RFC 5041 7.1, untagged (1); RFC 5040 4.1: RDMAP has queues 0-2 */
	if (h->qn >= IWTCP_DDP_NR_QN)
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_UNTAGGED,
				      IWTCP_TERM_DDP_U_INV_QN);
	return sizeof(uh);
}

/**
 * iwtcp_ddp_parse() - decode and check the header of a received DDP
 *	segment (RFC 5041 4, 7.1)
 * @seg: the segment: an MPA ULPDU, markers removed
 * @len: octets at @seg (ULPDU_Length)
 * @h: decoded header; valid only on success
 * @cause: set on failure
 *
 * Checks what the header alone decides, in this order: DV is 1
 * (RFC 5041 4.1; the type follows T), the segment holds the whole header,
 * an untagged QN is 0, 1 or 2 (RFC 5041 7.1 untagged (1), RFC 5040 4.1),
 * and a tagged segment's TO plus its length does not wrap (RFC 5041 7.1
 * tagged (5); not checked for zero length, RFC 5041 5.2). The DDP Rsvd
 * bits and RsvdULP are not checked (RFC 5041 4.1). The caller then looks
 * up the queue of h->qn and calls iwtcp_ddp_check_untagged(), or the STag
 * of h->stag.
 *
 * Context: Any context.
 * Return:
 * * the DDP header length, 14 or 18 octets
 * * -EPROTO - the segment must not be placed; @cause says why (layer DDP)
 */
int iwtcp_ddp_parse(const void *seg, u32 len, struct iwtcp_ddp_hdr *h,
		    struct iwtcp_term_cause *cause)
{
	__be16 ctrl_be;
	u16 ctrl;

	memset(h, 0, sizeof(*h));
	if (len < sizeof(ctrl_be))
		return ddp_truncated(cause);
	memcpy(&ctrl_be, seg, sizeof(ctrl_be));
	ctrl = be16_to_cpu(ctrl_be);
	h->tagged = !!(ctrl & IWTCP_DDP_T);
	h->last = !!(ctrl & IWTCP_DDP_L);
	h->ulp_ctrl = FIELD_GET(DDP_ULP_CTRL, ctrl);
	/* RFC 5041 4.1, 7.2: invalid DDP version, per buffer model */
	if (FIELD_GET(IWTCP_DDP_DV, ctrl) != IWTCP_DDP_VERSION) {
		if (h->tagged)
			return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
					      IWTCP_TERM_DDP_TAGGED,
					      IWTCP_TERM_DDP_T_VERSION);
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_UNTAGGED,
				      IWTCP_TERM_DDP_U_VERSION);
	}
	if (h->tagged)
		return parse_tagged(seg, len, h, cause);
	return parse_untagged(seg, len, h, cause);
}

static int untagged_error(struct iwtcp_term_cause *cause, u8 ecode)
{
	return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
			      IWTCP_TERM_DDP_UNTAGGED, ecode);
}

/**
 * iwtcp_ddp_check_untagged() - check an untagged segment against the
 *	receiving queue before placement (RFC 5041 7.1)
 * @h: header from iwtcp_ddp_parse(), untagged
 * @q: state of the queue h->qn, and the size of the buffer for h->msn
 * @cause: set on failure
 *
 * The MSN must lie in [q->msn, q->msn + q->nr_msn), modulo 2^32
 * (RFC 5041 7.1 untagged (2), (5)). Outside it, an MSN up to 2^31 ahead
 * of q->msn names a message with no buffer posted ("no buffer
 * available"), one behind q->msn names a message already complete ("MSN
 * range not valid"). Then MO must lie in the buffer, and MO plus the
 * segment's data must not pass its end (RFC 5041 7.1 untagged (3), (4));
 * a zero-length segment may sit at the very end. A segment without L is
 * followed by more of its message, and only a zero-length message has a
 * zero-length segment (RFC 5041 5.2), so a segment without L must not fill
 * the buffer either. These checks also run for zero-length segments,
 * which RFC 5041 7.1 exempts: a zero-length Send still uses an MSN and
 * completes into a receive buffer (RFC 5040 5.3).
 *
 * Context: Any context.
 * Return:
 * * 0 - the segment may be placed at h->mo in the buffer; with h->last,
 *   the message is h->mo + h->data_len octets long (RFC 5041 5.4)
 * * -EPROTO - it must not; @cause says why (layer DDP, untagged)
 * * -EINVAL - @h is a tagged header
 */
int iwtcp_ddp_check_untagged(const struct iwtcp_ddp_hdr *h,
			     const struct iwtcp_ddp_queue *q,
			     struct iwtcp_term_cause *cause)
{
	u32 ahead = h->msn - q->msn;
	u32 room;

	if (h->tagged)
		return -EINVAL;
	if (ahead >= q->nr_msn)
		return untagged_error(cause, ahead < BIT(31) ?
				      IWTCP_TERM_DDP_U_INV_MSN_NOBUF :
				      IWTCP_TERM_DDP_U_INV_MSN_RANGE);
	if (h->mo > q->buf_size || (h->data_len && h->mo == q->buf_size))
		return untagged_error(cause, IWTCP_TERM_DDP_U_INV_MO);
	room = q->buf_size - h->mo;
	if (h->data_len > room || (!h->last && h->data_len == room))
		return untagged_error(cause, IWTCP_TERM_DDP_U_TOO_LONG);
	return 0;
}
