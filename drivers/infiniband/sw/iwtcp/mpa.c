// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * MPA Request/Reply frames (RFC 5044 7.1) and the RFC 6581 negotiation of
 * CRC, markers, IRD/ORD, peer-to-peer model and RTR type.
 *
 * Pure code: bytes and settings in, results or -errno out. The connection
 * manager reads the socket, calls these and applies the result.
 */
#include <linux/array_size.h>
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "mpa.h"

static const char *mpa_key(enum iwtcp_mpa_frame_type type)
{
	return type == IWTCP_MPA_REQUEST ? IWTCP_MPA_KEY_REQ : IWTCP_MPA_KEY_REP;
}

/**
 * iwtcp_mpa_frame_len() - length of the startup frame at the head of @buf
 * @buf: received octets, starting with an MPA Request or Reply
 * @len: octets in @buf
 *
 * Lets the reader know how many octets to wait for before parsing.
 *
 * Context: Any context.
 * Return:
 * * the frame length in octets, header and private data (RFC 5044 7.1.1)
 * * -EAGAIN - @len is shorter than the 20-octet header
 * * -EMSGSIZE - PD_Length is over 512 (RFC 5044 7.1.1): close the connection
 */
int iwtcp_mpa_frame_len(const void *buf, size_t len)
{
	struct iwtcp_mpa_hdr hdr;
	u32 pd_len;

	if (len < sizeof(hdr))
		return -EAGAIN;
	memcpy(&hdr, buf, sizeof(hdr));
	pd_len = FIELD_GET(IWTCP_MPA_HDR_PD_LEN, be32_to_cpu(hdr.ctrl));
	if (pd_len > IWTCP_MPA_PD_MAX)
		return -EMSGSIZE;
	return sizeof(hdr) + pd_len;
}

static u8 rtr_of_word(u32 w)
{
	u8 rtr = 0;

	if (w & IWTCP_MPA_V2_B)
		rtr |= IWTCP_MPA_RTR_SEND;
	if (w & IWTCP_MPA_V2_C)
		rtr |= IWTCP_MPA_RTR_WRITE;
	if (w & IWTCP_MPA_V2_D)
		rtr |= IWTCP_MPA_RTR_READ;
	return rtr;
}

static u32 word_of_rtr(u8 rtr)
{
	u32 w = 0;

	if (rtr & IWTCP_MPA_RTR_SEND)
		w |= IWTCP_MPA_V2_B;
	if (rtr & IWTCP_MPA_RTR_WRITE)
		w |= IWTCP_MPA_V2_C;
	if (rtr & IWTCP_MPA_RTR_READ)
		w |= IWTCP_MPA_V2_D;
	return w;
}

/* RFC 6581 9: take the IRD/ORD word off the front of the private data */
static int parse_v2(struct iwtcp_mpa_frame *f)
{
	struct iwtcp_mpa_v2 v2;
	u32 w;

	/* RFC 6581 6: with S set, PD_Length counts the word */
	if (f->pd_len < sizeof(v2))
		return -EPROTO;
	memcpy(&v2, f->pd, sizeof(v2));
	w = be32_to_cpu(v2.ird_ord);
	f->p2p = !!(w & IWTCP_MPA_V2_A);
	/* RFC 6581 9.2: B, C and D are ignored when A is 0 */
	f->rtr = f->p2p ? rtr_of_word(w) : 0;
	f->ird = FIELD_GET(IWTCP_MPA_V2_IRD, w);
	f->ord = FIELD_GET(IWTCP_MPA_V2_ORD, w);
	f->pd += sizeof(v2);
	f->pd_len -= sizeof(v2);
	return 0;
}

/**
 * iwtcp_mpa_parse() - validate and decode an MPA Request or Reply
 * @buf: received octets, starting with the frame; may hold more after it
 * @len: octets in @buf
 * @type: the frame expected, which selects the Key to check
 * @f: decoded frame; f->pd points into @buf. Written only on success.
 *
 * Checks the Key (RFC 5044 7.1.1; the other side's Key is how rule 8 of
 * 7.1.2 detects an initiator/initiator start), Rev 1 or 2, PD_Length at
 * most 512, and, when Rev is 2 and S is set, that PD_Length covers the
 * RFC 6581 9 word. Res is not checked (RFC 6581 6); in Rev 1 frames S is
 * one of the reserved bits and is ignored too (RFC 5044 7.1.1). R is
 * ignored in a Request (RFC 5044 7.1.1).
 *
 * Context: Any context.
 * Return:
 * * octets the frame occupies in @buf (20 + PD_Length)
 * * -EAGAIN - @buf ends before the frame does
 * * -EPROTO - wrong Key, or S set without room for the word: close the
 *   connection (RFC 5044 7.1.2 rules 2, 3 and 5)
 * * -EPROTONOSUPPORT - Rev is neither 1 nor 2 (RFC 5044 7.1.1): close
 * * -EMSGSIZE - PD_Length over 512 (RFC 5044 7.1.1): close
 */
int iwtcp_mpa_parse(const void *buf, size_t len,
		    enum iwtcp_mpa_frame_type type, struct iwtcp_mpa_frame *f)
{
	struct iwtcp_mpa_frame tmp = {};
	struct iwtcp_mpa_hdr hdr;
	u32 ctrl;
	int ret;

	if (len < sizeof(hdr))
		return -EAGAIN;
	memcpy(&hdr, buf, sizeof(hdr));
	if (memcmp(hdr.key, mpa_key(type), IWTCP_MPA_KEY_SIZE))
		return -EPROTO;
	ctrl = be32_to_cpu(hdr.ctrl);
	tmp.rev = FIELD_GET(IWTCP_MPA_HDR_REV, ctrl);
	if (tmp.rev != IWTCP_MPA_REV_1 && tmp.rev != IWTCP_MPA_REV_2)
		return -EPROTONOSUPPORT;
	tmp.pd_len = FIELD_GET(IWTCP_MPA_HDR_PD_LEN, ctrl);
	if (tmp.pd_len > IWTCP_MPA_PD_MAX)
		return -EMSGSIZE;
	if (len < sizeof(hdr) + tmp.pd_len)
		return -EAGAIN;

	tmp.pd = (const u8 *)buf + sizeof(hdr);
	tmp.markers = !!(ctrl & IWTCP_MPA_HDR_M);
	tmp.crc = !!(ctrl & IWTCP_MPA_HDR_C);
	tmp.reject = type == IWTCP_MPA_REPLY && (ctrl & IWTCP_MPA_HDR_R);
	tmp.enhanced = tmp.rev >= IWTCP_MPA_REV_2 && (ctrl & IWTCP_MPA_HDR_S);
	tmp.large = !!(ctrl & IWTCP_MPA_HDR_G);
	if (tmp.enhanced) {
		ret = parse_v2(&tmp);
		if (ret)
			return ret;
	}
	*f = tmp;
	return sizeof(hdr) + tmp.pd_len + (tmp.enhanced ? IWTCP_MPA_V2_SIZE : 0);
}

static u32 ctrl_word(enum iwtcp_mpa_frame_type type,
		     const struct iwtcp_mpa_frame *f, size_t pd_len)
{
	u32 ctrl = FIELD_PREP(IWTCP_MPA_HDR_REV, f->rev) |
		   FIELD_PREP(IWTCP_MPA_HDR_PD_LEN, pd_len);

	if (f->markers)
		ctrl |= IWTCP_MPA_HDR_M;
	if (f->crc)
		ctrl |= IWTCP_MPA_HDR_C;
	/* RFC 5044 7.1.1: R is zero in a Request */
	if (f->reject && type == IWTCP_MPA_REPLY)
		ctrl |= IWTCP_MPA_HDR_R;
	if (f->enhanced)
		ctrl |= IWTCP_MPA_HDR_S;
	if (f->large)
		ctrl |= IWTCP_MPA_HDR_G;
	return ctrl;
}

static u32 v2_word(const struct iwtcp_mpa_frame *f)
{
	u32 w = FIELD_PREP(IWTCP_MPA_V2_IRD, f->ird) |
		FIELD_PREP(IWTCP_MPA_V2_ORD, f->ord);

	/* RFC 6581 9.2: with A = 0, B, C and D are 0 too */
	if (f->p2p)
		w |= IWTCP_MPA_V2_A | word_of_rtr(f->rtr);
	return w;
}

static int check_frame(const struct iwtcp_mpa_frame *f)
{
	if (f->rev != IWTCP_MPA_REV_1 && f->rev != IWTCP_MPA_REV_2)
		return -EINVAL;
	/* RFC 6581 6: enhanced data needs Rev 2 */
	if (f->enhanced && f->rev < IWTCP_MPA_REV_2)
		return -EINVAL;
	if (f->enhanced && (f->ird > IWTCP_MPA_IRD_ORD_MAX ||
			    f->ord > IWTCP_MPA_IRD_ORD_MAX ||
			    (f->rtr & ~IWTCP_MPA_RTR_ALL)))
		return -EINVAL;
	if (f->pd_len && !f->pd)
		return -EINVAL;
	return 0;
}

/**
 * iwtcp_mpa_build() - encode an MPA Request or Reply
 * @type: Request or Reply: selects the Key; R is sent only in a Reply
 * @f: fields to send; with f->enhanced the IRD/ORD word goes first in the
 *	private data (RFC 6581 9) and f->pd (f->pd_len octets) follows it
 * @buf: output buffer
 * @size: octets available at @buf
 *
 * Context: Any context.
 * Return:
 * * octets written: 20 + PD_Length
 * * -EINVAL - Rev not 1 or 2, S with Rev 1 (RFC 6581 6), IRD/ORD over 14
 *   bits, unknown RTR bits, or pd_len without pd
 * * -EMSGSIZE - private data with the word over 512 octets (RFC 5044
 *   7.1.1, RFC 6581 7)
 * * -ENOSPC - @size too small
 */
int iwtcp_mpa_build(enum iwtcp_mpa_frame_type type,
		    const struct iwtcp_mpa_frame *f, void *buf, size_t size)
{
	size_t v2_len = f->enhanced ? IWTCP_MPA_V2_SIZE : 0;
	size_t pd_len = v2_len + f->pd_len;
	struct iwtcp_mpa_hdr hdr;
	struct iwtcp_mpa_v2 v2;
	u8 *p = buf;
	int ret;

	ret = check_frame(f);
	if (ret)
		return ret;
	if (pd_len > IWTCP_MPA_PD_MAX)
		return -EMSGSIZE;
	if (size < sizeof(hdr) + pd_len)
		return -ENOSPC;

	memcpy(hdr.key, mpa_key(type), IWTCP_MPA_KEY_SIZE);
	hdr.ctrl = cpu_to_be32(ctrl_word(type, f, pd_len));
	memcpy(p, &hdr, sizeof(hdr));
	if (f->enhanced) {
		v2.ird_ord = cpu_to_be32(v2_word(f));
		memcpy(p + sizeof(hdr), &v2, sizeof(v2));
	}
	if (f->pd_len)
		memcpy(p + sizeof(hdr) + v2_len, f->pd, f->pd_len);
	return sizeof(hdr) + pd_len;
}

/**
 * iwtcp_mpa_settings_check() - validate local MPA settings
 * @s: settings
 *
 * Context: Any context.
 * Return:
 * * 0 - usable
 * * -EINVAL - revision not 1 or 2; enhanced without revision 2 (RFC 6581
 *   6) or without an RTR type (RFC 6581 9.2: a responder supports at
 *   least one); p2p without enhanced; IRD/ORD over 14 bits; unknown policy
 *   or RTR bits
 */
int iwtcp_mpa_settings_check(const struct iwtcp_mpa_settings *s)
{
	if (s->revision != IWTCP_MPA_REV_1 && s->revision != IWTCP_MPA_REV_2)
		return -EINVAL;
	if (s->crc > IWTCP_MPA_REQUIRED || s->markers > IWTCP_MPA_REQUIRED)
		return -EINVAL;
	if (s->ird > IWTCP_MPA_IRD_ORD_MAX || s->ord > IWTCP_MPA_IRD_ORD_MAX)
		return -EINVAL;
	if (s->rtr_types & ~IWTCP_MPA_RTR_ALL)
		return -EINVAL;
	if (s->enhanced &&
	    (s->revision < IWTCP_MPA_REV_2 || !s->rtr_types))
		return -EINVAL;
	if (s->p2p && !s->enhanced)
		return -EINVAL;
	return 0;
}

/*
 * RFC 6581 9.2 lets an initiator offer several RTR types; iwtcp offers one,
 * Read unless the settings leave it out. iw_cxgb4's responder expects
 * Write whenever the Request offers it, yet its Reply names its own type
 * (Read by default): an initiator that follows the Reply sends an RTR the
 * Chelsio firmware was not told to expect. iw_cxgb4 and irdma take Read,
 * and so do siw and iwtcp. Documentation/infiniband/iwtcp-interop.rst.
 */
static u8 init_offer(u8 rtr_types)
{
	if (rtr_types & IWTCP_MPA_RTR_READ)
		return IWTCP_MPA_RTR_READ;
	if (rtr_types & IWTCP_MPA_RTR_WRITE)
		return IWTCP_MPA_RTR_WRITE;
	return rtr_types & IWTCP_MPA_RTR_SEND;
}

/**
 * iwtcp_mpa_init_request() - fill the MPA Request an initiator sends
 * @s: local settings
 * @req: frame to fill; the caller adds its private data (pd, pd_len)
 *
 * M is set only for IWTCP_MPA_REQUIRED markers, C unless CRC is
 * IWTCP_MPA_OFF (RFC 5044 7.1.1). With @s->enhanced the word carries the
 * local IRD and ORD, and with @s->p2p flag A and one RTR type: the first
 * of Read, Write and Send in @s->rtr_types (RFC 6581 9.2; init_offer()
 * says why one). With the Read RTR an ORD of 0 goes out as 1, the Read
 * the RTR itself is (RFC 6581 9.1); the local ORD stays @s->ord.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for invalid settings (iwtcp_mpa_settings_check()).
 */
int iwtcp_mpa_init_request(const struct iwtcp_mpa_settings *s,
			   struct iwtcp_mpa_frame *req)
{
	int ret = iwtcp_mpa_settings_check(s);

	if (ret)
		return ret;
	memset(req, 0, sizeof(*req));
	req->rev = s->revision;
	req->markers = s->markers == IWTCP_MPA_REQUIRED;
	req->crc = s->crc != IWTCP_MPA_OFF;
	req->enhanced = s->enhanced;
	req->large = s->large_fpdu;
	if (s->enhanced) {
		req->p2p = s->p2p;
		req->rtr = s->p2p ? init_offer(s->rtr_types) : 0;
		req->ird = s->ird;
		req->ord = s->ord;
		/* iw_cxgb4 and irdma do the same; siw then raises its IRD */
		if ((req->rtr & IWTCP_MPA_RTR_READ) && !req->ord)
			req->ord = 1;
	}
	return 0;
}

/*
 * RFC 6581 9.2: offer the initiator's types we accept; if there are none,
 * offer all of ours (the responder MUST set at least one).
 */
static u8 resp_rtr(const struct iwtcp_mpa_settings *s,
		   const struct iwtcp_mpa_frame *req)
{
	u8 common = s->rtr_types & req->rtr;

	return common ? common : s->rtr_types;
}

/* RFC 6581 9.1: responder IRD, at least the initiator ORD if we can */
static void resp_ird(const struct iwtcp_mpa_settings *s,
		     const struct iwtcp_mpa_frame *req,
		     struct iwtcp_mpa_frame *rep, struct iwtcp_mpa_result *res)
{
	u16 need = req->ord;

	/* RFC 6581 9.1: initiator ORD 0x3FFF: keep our IRD, answer 0x3FFF */
	if (req->ord == IWTCP_MPA_IRD_ORD_MAX ||
	    s->ird == IWTCP_MPA_IRD_ORD_MAX) {
		rep->ird = IWTCP_MPA_IRD_ORD_MAX;
		res->ird = s->ird;
		return;
	}
	/* Below the initiator ORD: the initiator lowers its ORD or fails */
	rep->ird = min_t(u16, need, s->ird);
	/*
	 * RFC 6581 9.1: IRD may grow to 1 for a zero-length Read RTR, past
	 * the ULP's IRD too: the endpoint answers the RTR itself, and the
	 * read queue always has room for one Read.
	 */
	if (rep->rtr & IWTCP_MPA_RTR_READ)
		rep->ird = max_t(u16, rep->ird, 1);
	res->ird = rep->ird;
}

/* RFC 6581 9.1: responder ORD, at most the initiator IRD */
static int resp_ord(const struct iwtcp_mpa_settings *s,
		    const struct iwtcp_mpa_frame *req,
		    struct iwtcp_mpa_frame *rep, struct iwtcp_mpa_result *res)
{
	/* RFC 6581 9.1: initiator IRD 0x3FFF: keep our ORD, answer 0x3FFF */
	if (req->ird == IWTCP_MPA_IRD_ORD_MAX ||
	    s->ord == IWTCP_MPA_IRD_ORD_MAX) {
		rep->ord = IWTCP_MPA_IRD_ORD_MAX;
		res->ord = s->ord;
		return 0;
	}
	if (s->ord <= req->ird || s->relaxed) {
		rep->ord = min(s->ord, req->ird);
		res->ord = rep->ord;
		return 0;
	}
	/* RFC 6581 9.1: reject, name the ORD we need, TERM 2/0/6 */
	rep->ord = s->ord;
	res->term = IWTCP_TERM_MPA_INSUFF_IRD;
	return -ENOBUFS;
}

static int resp_enhanced(const struct iwtcp_mpa_settings *s,
			 const struct iwtcp_mpa_frame *req,
			 struct iwtcp_mpa_frame *rep,
			 struct iwtcp_mpa_result *res)
{
	res->peer_ird = req->ird;
	res->peer_ord = req->ord;
	/* RFC 6581 9.2: the responder mirrors A; with A = 0 no RTR flags */
	if (req->p2p) {
		rep->p2p = true;
		rep->rtr = resp_rtr(s, req);
		res->p2p = true;
		res->rtr = rep->rtr;
	}
	resp_ird(s, req, rep, res);
	return resp_ord(s, req, rep, res);
}

/**
 * iwtcp_mpa_negotiate_request() - responder: decide the Reply to a Request
 * @s: local settings
 * @req: the parsed MPA Request
 * @rep: the Reply to send, filled unless the return is -EPROTO or -EINVAL;
 *	the caller adds its private data (pd, pd_len)
 * @res: the outcome for the local endpoint; zeroed first, so res->term is
 *	0 unless a failure below sets it
 *
 * CRC: on both ways if either side sets C (RFC 5044 7.1.1). Markers: we
 * insert them if the Request has M; we ask for them with
 * IWTCP_MPA_REQUIRED. Rev: the lower of the Request's and ours. An
 * enhanced Request gets an enhanced Reply, an unenhanced one an unenhanced
 * Reply (RFC 6581 10). IRD/ORD per RFC 6581 9.1, A and RTR flags per 9.2:
 * the Reply offers the RTR types both sides support, else all of ours.
 * G (IWTCP_MPA_HDR_G) with @s->large_fpdu; large FPDUs go out when the
 * Request had G too.
 *
 * Context: Any context.
 * Return:
 * * 0 - accept: send @rep, then wait for the first FPDU (the RTR if
 *   res->p2p, RFC 6581 9.3)
 * * -EPROTO - enhanced Request but enhanced setup disabled locally (or S
 *   with Rev 1 in a hand-made @req): close the connection (RFC 6581 10)
 * * -EOPNOTSUPP - the Request asks for markers and markers are
 *   IWTCP_MPA_OFF: send @rep, which has R set
 * * -ENOBUFS - the initiator IRD is below our ORD and @s->relaxed is off:
 *   send @rep (R set, our ORD in it), res->term is 0x06 (RFC 6581 9.1)
 * * -EINVAL - invalid settings
 */
int iwtcp_mpa_negotiate_request(const struct iwtcp_mpa_settings *s,
				const struct iwtcp_mpa_frame *req,
				struct iwtcp_mpa_frame *rep,
				struct iwtcp_mpa_result *res)
{
	int ret;

	memset(res, 0, sizeof(*res));
	ret = iwtcp_mpa_settings_check(s);
	if (ret)
		return ret;
	/* RFC 6581 10: unenhanced responders take S = 1 as malformed */
	if (req->enhanced && (!s->enhanced || req->rev < IWTCP_MPA_REV_2))
		return -EPROTO;
	memset(rep, 0, sizeof(*rep));
	rep->rev = min(req->rev, s->revision);
	rep->crc = s->crc != IWTCP_MPA_OFF;
	rep->markers = s->markers == IWTCP_MPA_REQUIRED;
	rep->enhanced = req->enhanced;
	res->rev = rep->rev;
	res->enhanced = rep->enhanced;
	res->crc = req->crc || rep->crc;
	res->markers_tx = req->markers;
	res->markers_rx = rep->markers;
	/* siw's G bit: each side says it takes FPDUs beyond the MSS */
	rep->large = s->large_fpdu;
	res->large_tx = s->large_fpdu && req->large;
	res->ird = s->ird;
	res->ord = s->ord;
	if (req->enhanced)
		ret = resp_enhanced(s, req, rep, res);
	/* RFC 5044 7.1.2 rule 2: refuse with R = 1 */
	if (!ret && req->markers && s->markers == IWTCP_MPA_OFF)
		ret = -EOPNOTSUPP;
	rep->reject = ret != 0;
	return ret;
}

/* RFC 6581 9.1: initiator IRD at least responder ORD, ORD at most its IRD */
static int init_ird_ord(const struct iwtcp_mpa_settings *s,
			const struct iwtcp_mpa_frame *rep,
			struct iwtcp_mpa_result *res)
{
	/* responder ORD 0x3FFF: our IRD stays as it is */
	if (rep->ord != IWTCP_MPA_IRD_ORD_MAX &&
	    s->ird != IWTCP_MPA_IRD_ORD_MAX && rep->ord > s->ird) {
		res->term = IWTCP_TERM_MPA_INSUFF_IRD;
		return -ENOBUFS;
	}
	/* responder IRD 0x3FFF: our ORD stays as it is */
	if (rep->ird == IWTCP_MPA_IRD_ORD_MAX ||
	    s->ord == IWTCP_MPA_IRD_ORD_MAX || s->ord <= rep->ird)
		return 0;
	if (!s->relaxed) {
		res->term = IWTCP_TERM_MPA_INSUFF_IRD;
		return -ENOBUFS;
	}
	res->ord = rep->ird;
	return 0;
}

/*
 * RFC 6581 9.2: A must match, and the Reply must name the one RTR type we
 * offered (init_offer()); a Read RTR needs a responder IRD (9.1).
 */
static int init_rtr(const struct iwtcp_mpa_frame *req,
		    const struct iwtcp_mpa_frame *rep,
		    struct iwtcp_mpa_result *res)
{
	u8 common = req->rtr & rep->rtr;

	if (rep->p2p != req->p2p)
		goto no_rtr;
	if (!rep->p2p)
		return 0;
	if (!rep->ird)
		common &= ~IWTCP_MPA_RTR_READ;
	if (common) {
		res->p2p = true;
		res->rtr = common;
		return 0;
	}
no_rtr:
	res->term = IWTCP_TERM_MPA_NO_RTR;
	return -ENOPROTOOPT;
}

/**
 * iwtcp_mpa_negotiate_reply() - initiator: judge the Reply to our Request
 * @s: local settings, the same that built the Request
 *	(iwtcp_mpa_init_request())
 * @rep: the parsed MPA Reply
 * @res: the outcome for the local endpoint; peer_ird and peer_ord are set
 *	for an enhanced Reply even when it rejects (RFC 6581 9.1), and crc,
 *	markers_tx and markers_rx are the framing of the TERM a responder
 *	may send after its Reject (the framing it would have used);
 *	large_tx when our Request and the Reply both had G
 *
 * Context: Any context.
 * Return:
 * * 0 - enter full operation; if res->p2p, send the res->rtr indication
 *   before anything else (RFC 6581 5, 9.2)
 * * -EPROTO - Rev above ours, or S not matching our Request (RFC 6581
 *   10): close the connection
 * * -ECONNREFUSED - R set: exit MPA (RFC 5044 7.1.2 rule 3)
 * * -EOPNOTSUPP - the Reply asks for markers and ours are IWTCP_MPA_OFF;
 *   res->term is 0x05 (RFC 6581 9.3)
 * * -ENOBUFS - responder ORD above our IRD, or (not @s->relaxed)
 *   responder IRD below our ORD; res->term is 0x06 (RFC 6581 9.1)
 * * -ENOPROTOOPT - A differs from ours or no common RTR type; res->term is
 *   0x07 (RFC 6581 9.2)
 * * -EINVAL - invalid settings
 */
int iwtcp_mpa_negotiate_reply(const struct iwtcp_mpa_settings *s,
			      const struct iwtcp_mpa_frame *rep,
			      struct iwtcp_mpa_result *res)
{
	struct iwtcp_mpa_frame req;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = iwtcp_mpa_init_request(s, &req);
	if (ret)
		return ret;
	res->ird = s->ird;
	res->ord = s->ord;
	/* RFC 5044 7.1.1: never a newer Rev than ours */
	if (rep->rev > req.rev)
		return -EPROTO;
	/* The framing, also of a TERM that follows a Reject (RFC 6581 9) */
	res->crc = req.crc || rep->crc;
	res->markers_tx = rep->markers;
	res->markers_rx = req.markers;
	/*
	 * RFC 5044 7.1.2 rule 3: R set exits MPA, whatever else the Reply
	 * says (an older peer may reject an enhanced Request in Rev 1).
	 */
	if (rep->reject) {
		if (rep->enhanced && rep->rev >= IWTCP_MPA_REV_2) {
			res->peer_ird = rep->ird;
			res->peer_ord = rep->ord;
		}
		return -ECONNREFUSED;
	}
	/* RFC 6581 6 and 10: S as sent */
	if (rep->enhanced != req.enhanced ||
	    (rep->enhanced && rep->rev < IWTCP_MPA_REV_2))
		return -EPROTO;
	res->rev = rep->rev;
	res->enhanced = rep->enhanced;
	res->large_tx = req.large && rep->large;
	if (rep->enhanced) {
		res->peer_ird = rep->ird;
		res->peer_ord = rep->ord;
	}
	if (rep->markers && s->markers == IWTCP_MPA_OFF) {
		res->term = IWTCP_TERM_MPA_CATASTROPHIC;
		return -EOPNOTSUPP;
	}
	if (!rep->enhanced)
		return 0;
	ret = init_ird_ord(s, rep, res);
	if (ret)
		return ret;
	return init_rtr(&req, rep, res);
}

/**
 * iwtcp_mpa_rtr_of_opcode() - RTR type an RDMAP opcode would carry
 * @opcode: RDMAP opcode of the first message from the initiator
 *	(enum iwtcp_rdmap_opcode)
 *
 * A responder in the peer-to-peer model checks the first message against
 * res->rtr (RFC 6581 9.2); the caller also checks that it is zero-length.
 *
 * Context: Any context.
 * Return: IWTCP_MPA_RTR_WRITE, _READ or _SEND, or 0 if @opcode is none of
 * RDMA Write, RDMA Read Request and Send.
 */
u8 iwtcp_mpa_rtr_of_opcode(u8 opcode)
{
	switch (opcode) {
	case IWTCP_RDMAP_WRITE:
		return IWTCP_MPA_RTR_WRITE;
	case IWTCP_RDMAP_READ_REQ:
		return IWTCP_MPA_RTR_READ;
	case IWTCP_RDMAP_SEND:
		return IWTCP_MPA_RTR_SEND;
	default:
		return 0;
	}
}
