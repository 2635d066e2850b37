/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * iWARP wire formats: MPA (RFC 5044, RFC 6581), DDP (RFC 5041) and
 * RDMAP (RFC 5040) headers, masks and constants.
 *
 * Every multi-octet field is big-endian (__be16/__be32/__be64) except the
 * MPA CRC (__le32, see struct iwtcp_mpa_trailer).  Masks apply to the
 * host-order value of the named word and are meant for FIELD_GET() and
 * FIELD_PREP(); there are no bitfields.  Bit numbers in the masks count from
 * the least significant bit of that word, so RFC bit 0 (the first on the
 * wire) of a 32-bit word is BIT(31) here.
 *
 * This header builds in the kernel and, through tests/unit/shim, in user
 * space.
 */
#ifndef _IWTCP_WIRE_H
#define _IWTCP_WIRE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* ---- MPA Request/Reply frames: RFC 5044 7.1.1, RFC 6581 6 ---- */

/* RFC 5044 7.1.1: Key field of the Request and of the Reply, 16 octets */
#define IWTCP_MPA_KEY_REQ	"MPA ID Req Frame"
#define IWTCP_MPA_KEY_REP	"MPA ID Rep Frame"

/**
 * enum iwtcp_mpa_const - MPA startup frame constants
 * @IWTCP_MPA_KEY_SIZE: octets of the Key field (RFC 5044 7.1.1)
 * @IWTCP_MPA_PD_MAX: largest PD_Length, in octets (RFC 5044 7.1.1)
 * @IWTCP_MPA_REV_1: Rev of RFC 5044 (RFC 5044 7.1.1)
 * @IWTCP_MPA_REV_2: Rev needed for enhanced establishment (RFC 6581 6)
 * @IWTCP_MPA_V2_SIZE: octets of the enhanced IRD/ORD word (RFC 6581 9)
 * @IWTCP_MPA_IRD_ORD_MAX: all-ones IRD/ORD: the ULP negotiates, not MPA
 *	(RFC 6581 9.1); also the largest 14-bit value
 */
enum iwtcp_mpa_const {
	IWTCP_MPA_KEY_SIZE = 16,
	IWTCP_MPA_PD_MAX = 512,
	IWTCP_MPA_REV_1 = 1,
	IWTCP_MPA_REV_2 = 2,
	IWTCP_MPA_V2_SIZE = 4,
	IWTCP_MPA_IRD_ORD_MAX = 0x3fff,
};

/*
 * RFC 5044 7.1.1 and RFC 6581 6: octets 16-19 of the frame as one
 * big-endian word: |M|C|R|S| Res |  Rev  |   PD_Length   |
 */
#define IWTCP_MPA_HDR_M		BIT(31)		/* RFC 5044 7.1.1: markers required */
#define IWTCP_MPA_HDR_C		BIT(30)		/* RFC 5044 7.1.1: CRC preferred */
#define IWTCP_MPA_HDR_R		BIT(29)		/* RFC 5044 7.1.1: rejected (Reply) */
#define IWTCP_MPA_HDR_S		BIT(28)		/* RFC 6581 6: enhanced data present */
#define IWTCP_MPA_HDR_RES	GENMASK(27, 24)	/* RFC 6581 6: reserved, not checked */
/*
 * One reserved bit as the kernel's siw uses it (MPA_RR_FLAG_GSO_EXP):
 * the sender of the frame takes FPDUs larger than the MSS. RFC 6581 10
 * leaves the reserved bits to such extensions; peers that do not know it
 * ignore it (RFC 5044 7.1.1).
 */
#define IWTCP_MPA_HDR_G		BIT(27)
/* An FPDU to a peer that set G: up to this many octets on the wire */
#define IWTCP_MPA_LARGE_FPDU	32768
#define IWTCP_MPA_HDR_REV	GENMASK(23, 16)	/* RFC 5044 7.1.1: revision */
#define IWTCP_MPA_HDR_PD_LEN	GENMASK(15, 0)	/* RFC 5044 7.1.1: private data octets */

/**
 * struct iwtcp_mpa_hdr - MPA Request/Reply frame header (RFC 5044 7.1.1)
 * @key: IWTCP_MPA_KEY_REQ or IWTCP_MPA_KEY_REP, no NUL
 * @ctrl: M, C, R, S, Res, Rev, PD_Length: IWTCP_MPA_HDR_* masks
 *
 * Private data of PD_Length octets follows.
 */
struct iwtcp_mpa_hdr {
	u8 key[IWTCP_MPA_KEY_SIZE];
	__be32 ctrl;
};

static_assert(sizeof(struct iwtcp_mpa_hdr) == 20);

/*
 * RFC 6581 9: enhanced connection establishment data, the first word of the
 * private data when S is set: |A|B|   IRD   |C|D|   ORD   |
 * The RTR flags are split: B (Send) is in the IRD half-word, C (Write) and
 * D (Read) are in the ORD half-word. With A = 0 all three are sent as 0
 * and ignored on receipt (RFC 6581 9.2).
 */
#define IWTCP_MPA_V2_A		BIT(31)		/* RFC 6581 9.2: peer-to-peer model */
#define IWTCP_MPA_V2_B		BIT(30)		/* RFC 6581 9.2: zero-length Send RTR */
#define IWTCP_MPA_V2_IRD	GENMASK(29, 16)	/* RFC 6581 9.1: IRD, 14 bits */
#define IWTCP_MPA_V2_C		BIT(15)		/* RFC 6581 9.2: zero-length Write RTR */
#define IWTCP_MPA_V2_D		BIT(14)		/* RFC 6581 9.2: zero-length Read RTR */
#define IWTCP_MPA_V2_ORD	GENMASK(13, 0)	/* RFC 6581 9.1: ORD, 14 bits */

/**
 * struct iwtcp_mpa_v2 - enhanced RDMA connection establishment data
 *	(RFC 6581 9)
 * @ird_ord: A, B, IRD, C, D, ORD: IWTCP_MPA_V2_* masks
 */
struct iwtcp_mpa_v2 {
	__be32 ird_ord;
};

static_assert(sizeof(struct iwtcp_mpa_v2) == IWTCP_MPA_V2_SIZE);

/* ---- MPA FPDU: RFC 5044 4.1 - 4.4 ---- */

/**
 * enum iwtcp_mpa_fpdu_const - FPDU and marker constants
 * @IWTCP_MPA_FPDU_HDR_SIZE: octets of ULPDU_Length (RFC 5044 4.1)
 * @IWTCP_MPA_CRC_SIZE: octets of the CRC field (RFC 5044 4.1)
 * @IWTCP_MPA_FPDU_ALIGN: FPDUs are a multiple of this (RFC 5044 4.1)
 * @IWTCP_MPA_ULPDU_MAX: largest ULPDU_Length (RFC 5044 4.1, 16 bits)
 * @IWTCP_MPA_MARKER_SIZE: octets of a marker (RFC 5044 4.2)
 * @IWTCP_MPA_MARKER_PERIOD: stream octets between markers (RFC 5044 4.3)
 * @IWTCP_MPA_MULPDU_MIN: MULPDU never below this (RFC 5044 4.5)
 * @IWTCP_MPA_MULPDU_MAX: MULPDU never above this: a sender MUST NOT post a
 *	larger ULPDU, so that an FPDU with markers fits an IP datagram
 *	(RFC 5044 3); a receiver takes up to IWTCP_MPA_ULPDU_MAX
 */
enum iwtcp_mpa_fpdu_const {
	IWTCP_MPA_FPDU_HDR_SIZE = 2,
	IWTCP_MPA_CRC_SIZE = 4,
	IWTCP_MPA_FPDU_ALIGN = 4,
	IWTCP_MPA_ULPDU_MAX = 0xffff,
	IWTCP_MPA_MARKER_SIZE = 4,
	IWTCP_MPA_MARKER_PERIOD = 512,
	IWTCP_MPA_MULPDU_MIN = 128,
	IWTCP_MPA_MULPDU_MAX = 64768,
};

/**
 * struct iwtcp_mpa_fpdu_hdr - FPDU header (RFC 5044 4.1)
 * @ulpdu_len: ULPDU_Length: ULPDU octets, without header, pad, CRC, markers
 */
struct iwtcp_mpa_fpdu_hdr {
	__be16 ulpdu_len;
};

static_assert(sizeof(struct iwtcp_mpa_fpdu_hdr) == IWTCP_MPA_FPDU_HDR_SIZE);

/* RFC 5044 4.2: the two low bits of FPDUPTR are zero, receivers ignore them */
#define IWTCP_MPA_MARKER_PTR	GENMASK(15, 2)

/**
 * struct iwtcp_mpa_marker - MPA marker (RFC 5044 4.2)
 * @rsvd: RESERVED, zero on transmit, ignored on receive
 * @fpdu_ptr: FPDUPTR: octets back from the marker to ULPDU_Length, or 0
 *	when the marker falls between two FPDUs (RFC 5044 4.3)
 */
struct iwtcp_mpa_marker {
	__be16 rsvd;
	__be16 fpdu_ptr;
};

static_assert(sizeof(struct iwtcp_mpa_marker) == IWTCP_MPA_MARKER_SIZE);

/**
 * struct iwtcp_mpa_trailer - FPDU CRC field (RFC 5044 4.1, 4.4)
 * @crc: CRC32c as iSCSI sends its digests (RFC 3720 12.1, B.4): the
 *	one's complement of the reflected CRC register, least significant
 *	octet first. RFC 5044 Figures 5 and 6 confirm the octet order: their
 *	CRC fields are this value stored little-endian.
 */
struct iwtcp_mpa_trailer {
	__le32 crc;
};

static_assert(sizeof(struct iwtcp_mpa_trailer) == IWTCP_MPA_CRC_SIZE);

/* ---- DDP: RFC 5041 4 ---- */

/*
 * RFC 5041 4.1 and RFC 5040 4.1: the DDP Control Field and the first
 * RsvdULP octet (the RDMAP Control Field) as one big-endian 16-bit word:
 * |T|L| Rsvd |DV| RV|Rsv| Opcode|
 */
#define IWTCP_DDP_T		BIT(15)		/* RFC 5041 4.1: tagged buffer model */
#define IWTCP_DDP_L		BIT(14)		/* RFC 5041 4.1: last segment */
#define IWTCP_DDP_RSVD		GENMASK(13, 10)	/* RFC 5041 4.1: reserved, not checked */
#define IWTCP_DDP_DV		GENMASK(9, 8)	/* RFC 5041 4.1: DDP version */
#define IWTCP_RDMAP_RV		GENMASK(7, 6)	/* RFC 5040 4.1: RDMAP version */
#define IWTCP_RDMAP_RSVD	GENMASK(5, 4)	/* RFC 5040 4.1: reserved, ignored */
#define IWTCP_RDMAP_OPCODE	GENMASK(3, 0)	/* RFC 5040 4.1: opcode */

/**
 * enum iwtcp_ddp_const - DDP constants
 * @IWTCP_DDP_VERSION: DV of RFC 5041 (RFC 5041 4.1)
 * @IWTCP_DDP_QN_SEND: queue of Send messages (RFC 5040 4.1, Figure 4)
 * @IWTCP_DDP_QN_READ_REQ: queue of Read Requests (RFC 5040 4.1)
 * @IWTCP_DDP_QN_TERMINATE: queue of Terminate (RFC 5040 4.1)
 * @IWTCP_DDP_MSN_INIT: first MSN on each queue (RFC 5041 4.3)
 */
enum iwtcp_ddp_const {
	IWTCP_DDP_VERSION = 1,
	IWTCP_DDP_QN_SEND = 0,
	IWTCP_DDP_QN_READ_REQ = 1,
	IWTCP_DDP_QN_TERMINATE = 2,
	IWTCP_DDP_MSN_INIT = 1,
};

/**
 * struct iwtcp_ddp_tagged_hdr - DDP tagged buffer model header
 *	(RFC 5041 4.2, Figure 4)
 * @ctrl: DDP and RDMAP control: IWTCP_DDP_* and IWTCP_RDMAP_* masks
 * @stag: STag of the data sink's tagged buffer
 * @to: Tagged Offset, octets
 */
struct iwtcp_ddp_tagged_hdr {
	__be16 ctrl;
	__be32 stag;
	__be64 to;
} __packed;

static_assert(sizeof(struct iwtcp_ddp_tagged_hdr) == 14);	/* 112 bits */

/**
 * struct iwtcp_ddp_untagged_hdr - DDP untagged buffer model header
 *	(RFC 5041 4.3, Figure 5)
 * @ctrl: DDP and RDMAP control: IWTCP_DDP_* and IWTCP_RDMAP_* masks
 * @inval_stag: RsvdULP[8:39]: the Invalidate STag of RDMAP (RFC 5040 4.1)
 * @qn: Queue Number
 * @msn: Message Sequence Number
 * @mo: Message Offset, octets
 */
struct iwtcp_ddp_untagged_hdr {
	__be16 ctrl;
	__be32 inval_stag;
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

static_assert(sizeof(struct iwtcp_ddp_untagged_hdr) == 18);	/* 144 bits */

/* ---- RDMAP: RFC 5040 4 ---- */

/**
 * enum iwtcp_rdmap_const - RDMAP constants
 * @IWTCP_RDMAP_VERSION: RV of RFC 5040 (RFC 5040 4.1; 0 is the RDMA
 *	Consortium version)
 */
enum iwtcp_rdmap_const {
	IWTCP_RDMAP_VERSION = 1,
};

/**
 * enum iwtcp_rdmap_opcode - RDMA Message OpCode (RFC 5040 4.1, Figure 4)
 * @IWTCP_RDMAP_WRITE: RDMA Write, tagged
 * @IWTCP_RDMAP_READ_REQ: RDMA Read Request, untagged, QN 1
 * @IWTCP_RDMAP_READ_RESP: RDMA Read Response, tagged
 * @IWTCP_RDMAP_SEND: Send, untagged, QN 0
 * @IWTCP_RDMAP_SEND_INV: Send with Invalidate
 * @IWTCP_RDMAP_SEND_SE: Send with Solicited Event
 * @IWTCP_RDMAP_SEND_SE_INV: Send with Solicited Event and Invalidate
 * @IWTCP_RDMAP_TERMINATE: Terminate, untagged, QN 2
 *
 * 1000b to 1111b are reserved (RFC 5040; RFC 7306 assigns some of them).
 */
enum iwtcp_rdmap_opcode {
	IWTCP_RDMAP_WRITE = 0x0,
	IWTCP_RDMAP_READ_REQ = 0x1,
	IWTCP_RDMAP_READ_RESP = 0x2,
	IWTCP_RDMAP_SEND = 0x3,
	IWTCP_RDMAP_SEND_INV = 0x4,
	IWTCP_RDMAP_SEND_SE = 0x5,
	IWTCP_RDMAP_SEND_SE_INV = 0x6,
	IWTCP_RDMAP_TERMINATE = 0x7,
};

/**
 * struct iwtcp_rdmap_read_req - RDMA Read Request header
 *	(RFC 5040 4.4, Figure 6); follows the untagged DDP header
 * @sink_stag: Data Sink STag
 * @sink_to: Data Sink Tagged Offset, octets
 * @read_size: RDMA Read Message Size, octets
 * @src_stag: Data Source STag
 * @src_to: Data Source Tagged Offset, octets
 */
struct iwtcp_rdmap_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 read_size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

static_assert(sizeof(struct iwtcp_rdmap_read_req) == 28);	/* 224 bits */

/*
 * RFC 5040 4.8, Figures 7 and 8: first word of the Terminate header:
 * | Layer | EType | Error Code |M|D|R| Reserved |
 */
#define IWTCP_TERM_LAYER	GENMASK(31, 28)	/* RFC 5040 4.8: layer */
#define IWTCP_TERM_ETYPE	GENMASK(27, 24)	/* RFC 5040 4.8: error type */
#define IWTCP_TERM_ECODE	GENMASK(23, 16)	/* RFC 5040 4.8: error code */
#define IWTCP_TERM_M		BIT(15)		/* RFC 5040 4.8: segment length valid */
#define IWTCP_TERM_D		BIT(14)		/* RFC 5040 4.8: DDP header included */
#define IWTCP_TERM_R		BIT(13)		/* RFC 5040 4.8: RDMAP header included */
#define IWTCP_TERM_RSVD		GENMASK(12, 0)	/* RFC 5040 4.8: reserved */

/**
 * struct iwtcp_rdmap_term_hdr - Terminate header, fixed part
 *	(RFC 5040 4.8, Figure 7); follows the untagged DDP header
 * @ctrl: Terminate Control and Reserved: IWTCP_TERM_* masks
 *
 * Then, when D is set: DDP Segment Length (__be16) and the terminated DDP
 * header (struct iwtcp_ddp_tagged_hdr or struct iwtcp_ddp_untagged_hdr);
 * when R is set: the terminated struct iwtcp_rdmap_read_req.
 */
struct iwtcp_rdmap_term_hdr {
	__be32 ctrl;
};

static_assert(sizeof(struct iwtcp_rdmap_term_hdr) == 4);

/* RFC 5040 4.8: largest Terminate header: control, length, DDP, RDMAP */
#define IWTCP_TERM_HDR_MAX	(sizeof(struct iwtcp_rdmap_term_hdr) + \
				 sizeof(__be16) + \
				 sizeof(struct iwtcp_ddp_untagged_hdr) + \
				 sizeof(struct iwtcp_rdmap_read_req))

static_assert(IWTCP_TERM_HDR_MAX == 52);

/**
 * enum iwtcp_term_layer - Terminate Layer (RFC 5040 4.8, Figure 9)
 * @IWTCP_TERM_LAYER_RDMAP: RDMAP
 * @IWTCP_TERM_LAYER_DDP: DDP (RFC 5041 7.2)
 * @IWTCP_TERM_LAYER_LLP: LLP, here MPA (RFC 5044 8, RFC 6581 8)
 */
enum iwtcp_term_layer {
	IWTCP_TERM_LAYER_RDMAP = 0x0,
	IWTCP_TERM_LAYER_DDP = 0x1,
	IWTCP_TERM_LAYER_LLP = 0x2,
};

/**
 * enum iwtcp_term_rdmap_etype - RDMAP error types (RFC 5040 4.8, Figure 9)
 * @IWTCP_TERM_RDMAP_CATASTROPHIC: local catastrophic, any error code
 * @IWTCP_TERM_RDMAP_REMOTE_PROT: remote protection error
 * @IWTCP_TERM_RDMAP_REMOTE_OP: remote operation error
 */
enum iwtcp_term_rdmap_etype {
	IWTCP_TERM_RDMAP_CATASTROPHIC = 0x0,
	IWTCP_TERM_RDMAP_REMOTE_PROT = 0x1,
	IWTCP_TERM_RDMAP_REMOTE_OP = 0x2,
};

/**
 * enum iwtcp_term_rdmap_ecode - RDMAP error codes (RFC 5040 4.8, Figure 9;
 *	RFC 6580 3.1)
 * @IWTCP_TERM_RDMAP_INV_STAG: remote protection: invalid STag
 * @IWTCP_TERM_RDMAP_BOUNDS: remote protection: base or bounds violation
 * @IWTCP_TERM_RDMAP_ACCESS: remote protection: access rights violation
 * @IWTCP_TERM_RDMAP_STAG_STREAM: remote protection: STag not associated
 *	with RDMAP stream
 * @IWTCP_TERM_RDMAP_TO_WRAP: remote protection: TO wrap
 * @IWTCP_TERM_RDMAP_VERSION: remote operation: invalid RDMAP version
 * @IWTCP_TERM_RDMAP_OPCODE: remote operation: unexpected opcode
 * @IWTCP_TERM_RDMAP_CATASTROPHIC_STREAM: remote operation: catastrophic,
 *	localized to RDMAP stream
 * @IWTCP_TERM_RDMAP_CATASTROPHIC_GLOBAL: remote operation: catastrophic,
 *	global
 * @IWTCP_TERM_RDMAP_CANT_INVALIDATE: either type: STag cannot be invalidated
 * @IWTCP_TERM_RDMAP_UNSPECIFIED: either type: unspecified error
 */
enum iwtcp_term_rdmap_ecode {
	IWTCP_TERM_RDMAP_INV_STAG = 0x00,
	IWTCP_TERM_RDMAP_BOUNDS = 0x01,
	IWTCP_TERM_RDMAP_ACCESS = 0x02,
	IWTCP_TERM_RDMAP_STAG_STREAM = 0x03,
	IWTCP_TERM_RDMAP_TO_WRAP = 0x04,
	IWTCP_TERM_RDMAP_VERSION = 0x05,
	IWTCP_TERM_RDMAP_OPCODE = 0x06,
	IWTCP_TERM_RDMAP_CATASTROPHIC_STREAM = 0x07,
	IWTCP_TERM_RDMAP_CATASTROPHIC_GLOBAL = 0x08,
	IWTCP_TERM_RDMAP_CANT_INVALIDATE = 0x09,
	IWTCP_TERM_RDMAP_UNSPECIFIED = 0xff,
};

/**
 * enum iwtcp_term_ddp_etype - DDP error types (RFC 5041 7.2)
 * @IWTCP_TERM_DDP_CATASTROPHIC: local catastrophic, code 0
 * @IWTCP_TERM_DDP_TAGGED: tagged buffer error
 * @IWTCP_TERM_DDP_UNTAGGED: untagged buffer error
 * @IWTCP_TERM_DDP_LLP: reserved for the LLP
 */
enum iwtcp_term_ddp_etype {
	IWTCP_TERM_DDP_CATASTROPHIC = 0x0,
	IWTCP_TERM_DDP_TAGGED = 0x1,
	IWTCP_TERM_DDP_UNTAGGED = 0x2,
	IWTCP_TERM_DDP_LLP = 0x3,
};

/**
 * enum iwtcp_term_ddp_ecode - DDP error codes (RFC 5041 7.2, RFC 6580 3.2)
 * @IWTCP_TERM_DDP_T_INV_STAG: tagged: invalid STag
 * @IWTCP_TERM_DDP_T_BOUNDS: tagged: base or bounds violation
 * @IWTCP_TERM_DDP_T_STAG_STREAM: tagged: STag not associated with stream
 * @IWTCP_TERM_DDP_T_TO_WRAP: tagged: TO wrap
 * @IWTCP_TERM_DDP_T_VERSION: tagged: invalid DDP version
 * @IWTCP_TERM_DDP_U_INV_QN: untagged: invalid QN
 * @IWTCP_TERM_DDP_U_INV_MSN_NOBUF: untagged: invalid MSN, no buffer
 * @IWTCP_TERM_DDP_U_INV_MSN_RANGE: untagged: invalid MSN, range not valid
 * @IWTCP_TERM_DDP_U_INV_MO: untagged: invalid MO
 * @IWTCP_TERM_DDP_U_TOO_LONG: untagged: message too long for buffer
 * @IWTCP_TERM_DDP_U_VERSION: untagged: invalid DDP version
 */
enum iwtcp_term_ddp_ecode {
	IWTCP_TERM_DDP_T_INV_STAG = 0x00,
	IWTCP_TERM_DDP_T_BOUNDS = 0x01,
	IWTCP_TERM_DDP_T_STAG_STREAM = 0x02,
	IWTCP_TERM_DDP_T_TO_WRAP = 0x03,
	IWTCP_TERM_DDP_T_VERSION = 0x04,
	IWTCP_TERM_DDP_U_INV_QN = 0x01,
	IWTCP_TERM_DDP_U_INV_MSN_NOBUF = 0x02,
	IWTCP_TERM_DDP_U_INV_MSN_RANGE = 0x03,
	IWTCP_TERM_DDP_U_INV_MO = 0x04,
	IWTCP_TERM_DDP_U_TOO_LONG = 0x05,
	IWTCP_TERM_DDP_U_VERSION = 0x06,
};

/**
 * enum iwtcp_term_mpa_etype - MPA error type (RFC 6581 8, RFC 6580 3.3)
 * @IWTCP_TERM_MPA: the only MPA error type
 */
enum iwtcp_term_mpa_etype {
	IWTCP_TERM_MPA = 0x0,
};

/**
 * enum iwtcp_term_mpa_ecode - MPA error codes (RFC 5044 8, RFC 6581 8)
 * @IWTCP_TERM_MPA_CLOSED: TCP connection closed, terminated or lost
 * @IWTCP_TERM_MPA_CRC: CRC mismatch
 * @IWTCP_TERM_MPA_MARKER: marker and ULPDU_Length disagree
 * @IWTCP_TERM_MPA_REQ_REP: invalid MPA Request or Reply frame
 * @IWTCP_TERM_MPA_CATASTROPHIC: local catastrophic (RFC 6581 8, 9.3)
 * @IWTCP_TERM_MPA_INSUFF_IRD: insufficient IRD resources (RFC 6581 9.1)
 * @IWTCP_TERM_MPA_NO_RTR: no matching RTR option (RFC 6581 9.2)
 */
enum iwtcp_term_mpa_ecode {
	IWTCP_TERM_MPA_CLOSED = 0x01,
	IWTCP_TERM_MPA_CRC = 0x02,
	IWTCP_TERM_MPA_MARKER = 0x03,
	IWTCP_TERM_MPA_REQ_REP = 0x04,
	IWTCP_TERM_MPA_CATASTROPHIC = 0x05,
	IWTCP_TERM_MPA_INSUFF_IRD = 0x06,
	IWTCP_TERM_MPA_NO_RTR = 0x07,
};

#endif /* _IWTCP_WIRE_H */
