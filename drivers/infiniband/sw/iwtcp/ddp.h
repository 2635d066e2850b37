/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * DDP segment headers (RFC 5041 4) and the checks a Data Sink makes before
 * placing a segment (RFC 5041 7.1): pure functions over bytes.
 */
#ifndef _IWTCP_DDP_H
#define _IWTCP_DDP_H

#include <linux/errno.h>
#include <linux/types.h>
#include <iwtcp/wire.h>

/* RFC 5040 4.1: RDMAP uses queues 0 (Send), 1 (Read Request), 2 (Terminate) */
#define IWTCP_DDP_NR_QN		3

/**
 * struct iwtcp_term_cause - why a stream is terminated (RFC 5040 4.8)
 * @layer: enum iwtcp_term_layer
 * @etype: error type of that layer: enum iwtcp_term_rdmap_etype,
 *	enum iwtcp_term_ddp_etype or enum iwtcp_term_mpa_etype
 * @ecode: error code of that type: enum iwtcp_term_rdmap_ecode,
 *	enum iwtcp_term_ddp_ecode or enum iwtcp_term_mpa_ecode
 */
struct iwtcp_term_cause {
	u8 layer;
	u8 etype;
	u8 ecode;
};

/**
 * struct iwtcp_ddp_hdr - host view of one DDP segment header
 * @tagged: T flag: tagged buffer model (RFC 5041 4.1)
 * @last: L flag: last segment of its message (RFC 5041 4.1)
 * @ulp_ctrl: RsvdULP[0:7], which RDMAP uses as its control field:
 *	IWTCP_RDMAP_RV, IWTCP_RDMAP_RSVD and IWTCP_RDMAP_OPCODE bits
 *	(RFC 5040 4.1)
 * @stag: tagged: STag of the data sink buffer (RFC 5041 4.2)
 * @to: tagged: Tagged Offset, octets (RFC 5041 4.2)
 * @inval_stag: untagged: RsvdULP[8:39], the Invalidate STag of RDMAP
 *	(RFC 5040 4.1); not checked here
 * @qn: untagged: Queue Number (RFC 5041 4.3)
 * @msn: untagged: Message Sequence Number (RFC 5041 4.3)
 * @mo: untagged: Message Offset, octets (RFC 5041 4.3)
 * @hdr_len: octets of the DDP header: 14 tagged, 18 untagged
 * @data_len: octets of the segment after the DDP header (the RDMAP header,
 *	if any, and the payload)
 *
 * iwtcp_ddp_parse() fills all fields that apply to the model and zeroes
 * the others; the builders read only the fields of their model.
 */
struct iwtcp_ddp_hdr {
	bool tagged;
	bool last;
	u8 ulp_ctrl;
	u32 stag;
	u64 to;
	u32 inval_stag;
	u32 qn;
	u32 msn;
	u32 mo;
	u32 hdr_len;
	u32 data_len;
};

/**
 * struct iwtcp_ddp_queue - what the Data Sink can accept on one untagged
 *	queue, for iwtcp_ddp_check_untagged() (RFC 5041 7.1)
 * @msn: lowest acceptable MSN: that of the oldest message on this queue
 *	not yet complete (IWTCP_DDP_MSN_INIT on a new stream)
 * @nr_msn: MSNs acceptable from @msn on: buffers available on the queue.
 *	Over TCP, where segments arrive in order, 1 accepts only @msn.
 * @buf_size: octets of the buffer that receives the segment's message
 */
struct iwtcp_ddp_queue {
	u32 msn;
	u32 nr_msn;
	u32 buf_size;
};

/**
 * iwtcp_term_set() - fill a TERM cause
 * @c: the cause to fill
 * @layer: enum iwtcp_term_layer
 * @etype: error type of @layer
 * @ecode: error code of @etype
 *
 * Context: Any context.
 * Return: -EPROTO, for the checks to return directly.
 */
static inline int iwtcp_term_set(struct iwtcp_term_cause *c, u8 layer,
				 u8 etype, u8 ecode)
{
	c->layer = layer;
	c->etype = etype;
	c->ecode = ecode;
	return -EPROTO;
}

int iwtcp_ddp_build_tagged(const struct iwtcp_ddp_hdr *h, void *buf,
			   size_t size);
int iwtcp_ddp_build_untagged(const struct iwtcp_ddp_hdr *h, void *buf,
			     size_t size);
int iwtcp_ddp_parse(const void *seg, u32 len, struct iwtcp_ddp_hdr *h,
		    struct iwtcp_term_cause *cause);
int iwtcp_ddp_check_untagged(const struct iwtcp_ddp_hdr *h,
			     const struct iwtcp_ddp_queue *q,
			     struct iwtcp_term_cause *cause);

#endif /* _IWTCP_DDP_H */
