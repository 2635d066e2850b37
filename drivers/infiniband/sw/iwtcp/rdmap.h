/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * RDMAP messages (RFC 5040 4): control field checks, Read Request and
 * Terminate headers, and the RTR messages of RFC 6581 9.2: pure functions
 * over bytes.
 */
#ifndef _IWTCP_RDMAP_H
#define _IWTCP_RDMAP_H

#include <linux/types.h>
#include <iwtcp/wire.h>

#include "ddp.h"

/*
 * STag sent in the zero-length RDMA Write and Read RTR messages (RFC 6581
 * 9.2), with Tagged Offsets of 0. Never checked on receipt: see rdmap.c.
 */
#define IWTCP_RDMAP_RTR_STAG	1

/* RFC 5040 4.4: octets of a Read Request ULPDU, DDP header included */
#define IWTCP_RDMAP_READ_REQ_LEN	(sizeof(struct iwtcp_ddp_untagged_hdr) + \
					 sizeof(struct iwtcp_rdmap_read_req))

/**
 * struct iwtcp_rdmap_read - host view of an RDMA Read Request header
 *	(RFC 5040 4.4, Figure 6)
 * @sink_stag: Data Sink STag: where the Read Response goes
 * @sink_to: Data Sink Tagged Offset, octets
 * @size: RDMA Read Message Size, octets
 * @src_stag: Data Source STag: what is read
 * @src_to: Data Source Tagged Offset, octets
 */
struct iwtcp_rdmap_read {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/**
 * struct iwtcp_rdmap_term - host view of a Terminate header
 *	(RFC 5040 4.8, Figures 7 and 8)
 * @cause: Layer, EType and Error Code; layer and type are 4 bits each
 * @seg_len_valid: M: @seg_len holds the terminated segment's length
 * @seg_len: DDP Segment Length: ULPDU_Length of the terminated segment,
 *	its DDP header included; sent only with a DDP header (@ddp_len), and
 *	as 0 without @seg_len_valid
 * @ddp_len: D: octets of @ddp_hdr to send: 0 (D clear), 14 for a tagged
 *	header, 18 for an untagged one; must agree with the T bit in @ddp_hdr
 * @ddp_hdr: the terminated DDP header, as received
 * @rdmap_hdr_valid: R: @rdmap_hdr is sent
 * @rdmap_hdr: the terminated RDMA Read Request header, as received
 */
struct iwtcp_rdmap_term {
	struct iwtcp_term_cause cause;
	bool seg_len_valid;
	u16 seg_len;
	u8 ddp_len;
	u8 ddp_hdr[sizeof(struct iwtcp_ddp_untagged_hdr)];
	bool rdmap_hdr_valid;
	u8 rdmap_hdr[sizeof(struct iwtcp_rdmap_read_req)];
};

u8 iwtcp_rdmap_ctrl(u8 opcode);
int iwtcp_rdmap_check(const struct iwtcp_ddp_hdr *h,
		      struct iwtcp_term_cause *cause);
int iwtcp_rdmap_build_read_req(const struct iwtcp_rdmap_read *rr, u32 msn,
			       void *buf, size_t size);
int iwtcp_rdmap_parse_read_req(const void *ulpdu, u32 len,
			       struct iwtcp_rdmap_read *rr);
int iwtcp_rdmap_build_term(const struct iwtcp_rdmap_term *t, u32 msn,
			   void *buf, size_t size);
int iwtcp_rdmap_parse_term(const void *ulpdu, u32 len,
			   struct iwtcp_rdmap_term *t);
int iwtcp_rdmap_build_rtr(u8 type, u32 msn, void *buf, size_t size);
u8 iwtcp_rdmap_rtr_type(const void *ulpdu, u32 len);

#endif /* _IWTCP_RDMAP_H */
