/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MPA Request/Reply frames (RFC 5044 7.1) and the enhanced connection
 * setup negotiation of RFC 6581: pure functions over bytes and settings.
 */
#ifndef _IWTCP_MPA_H
#define _IWTCP_MPA_H

#include <linux/types.h>
#include <iwtcp/wire.h>

/**
 * enum iwtcp_mpa_frame_type - which startup frame (RFC 5044 7.1.1 Key)
 * @IWTCP_MPA_REQUEST: "MPA ID Req Frame", sent by the initiator
 * @IWTCP_MPA_REPLY: "MPA ID Rep Frame", sent by the responder
 */
enum iwtcp_mpa_frame_type {
	IWTCP_MPA_REQUEST,
	IWTCP_MPA_REPLY,
};

/**
 * enum iwtcp_mpa_pref - local CRC or marker policy
 * @IWTCP_MPA_OFF: CRC: send C=0, follow the peer (RFC 5044 4.4 (2));
 *	markers: send M=0 and refuse a peer's M=1 (not RFC 5044 4.3
 *	compliant: for peers and admins that must not see markers)
 * @IWTCP_MPA_ON: CRC: send C=1; markers: send M=0, insert markers when
 *	the peer's M=1 asks for them (RFC 5044 4.3)
 * @IWTCP_MPA_REQUIRED: CRC: same as ON (C=1 already forces CRCs both
 *	ways, RFC 5044 7.1.1); markers: send M=1 and honour the peer's M
 */
enum iwtcp_mpa_pref {
	IWTCP_MPA_OFF,
	IWTCP_MPA_ON,
	IWTCP_MPA_REQUIRED,
};

/**
 * enum iwtcp_mpa_rtr - RTR indication types as a bit mask (RFC 6581 9.2)
 * @IWTCP_MPA_RTR_SEND: zero-length Send (flag B)
 * @IWTCP_MPA_RTR_WRITE: zero-length RDMA Write (flag C)
 * @IWTCP_MPA_RTR_READ: zero-length RDMA Read (flag D)
 * @IWTCP_MPA_RTR_ALL: all three
 */
enum iwtcp_mpa_rtr {
	IWTCP_MPA_RTR_SEND = BIT(0),
	IWTCP_MPA_RTR_WRITE = BIT(1),
	IWTCP_MPA_RTR_READ = BIT(2),
	IWTCP_MPA_RTR_ALL = BIT(0) | BIT(1) | BIT(2),
};

/**
 * struct iwtcp_mpa_settings - local choices for one connection
 * @revision: MPA revision to send: 1 (RFC 5044) or 2 (RFC 6581)
 * @enhanced: send (initiator) or accept (responder) the RFC 6581 IRD/ORD
 *	word; needs @revision 2
 * @crc: CRC policy, see enum iwtcp_mpa_pref
 * @markers: marker policy, see enum iwtcp_mpa_pref
 * @p2p: initiator: ask for the peer-to-peer model (RFC 6581 9.2 flag A);
 *	needs @enhanced. A responder ignores it: it must mirror A.
 * @relaxed: lower the local ORD to the peer's IRD instead of failing with
 *	"insufficient IRD" (RFC 6581 9.1)
 * @rtr_types: initiator: RTR types it can send; responder: RTR types it
 *	accepts (enum iwtcp_mpa_rtr); non-zero when @enhanced
 * @ird: local IRD: inbound RDMA Reads the endpoint can hold, at most
 *	IWTCP_MPA_IRD_ORD_MAX; IWTCP_MPA_IRD_ORD_MAX means "the ULP decides"
 * @ord: local ORD: outbound RDMA Reads the ULP wants, same range
 * @large_fpdu: set G (IWTCP_MPA_HDR_G) in our frame, and send FPDUs of up
 *	to IWTCP_MPA_LARGE_FPDU octets when the peer's frame has G
 */
struct iwtcp_mpa_settings {
	u8 revision;
	bool enhanced;
	enum iwtcp_mpa_pref crc;
	enum iwtcp_mpa_pref markers;
	bool p2p;
	bool relaxed;
	u8 rtr_types;
	u16 ird;
	u16 ord;
	bool large_fpdu;
};

/**
 * struct iwtcp_mpa_frame - host view of an MPA Request or Reply
 * @rev: Rev field (RFC 5044 7.1.1)
 * @markers: M bit (RFC 5044 7.1.1)
 * @crc: C bit (RFC 5044 7.1.1)
 * @reject: R bit; always false in a parsed Request (RFC 5044 7.1.1)
 * @enhanced: S bit: private data starts with the IRD/ORD word
 *	(RFC 6581 6); a parsed revision 1 frame never has it
 * @p2p: A flag (RFC 6581 9.2); valid if @enhanced
 * @rtr: B, C, D flags as enum iwtcp_mpa_rtr; valid if @enhanced; a parsed
 *	frame with A=0 has none (RFC 6581 9.2: then ignored)
 * @ird: IRD (RFC 6581 9.1); valid if @enhanced
 * @ord: ORD (RFC 6581 9.1); valid if @enhanced
 * @large: G bit: the sender takes FPDUs beyond the MSS (siw's
 *	MPA_RR_FLAG_GSO_EXP, a reserved bit of RFC 5044 7.1.1)
 * @pd_len: ULP private data octets, without the IRD/ORD word
 * @pd: ULP private data; a parsed frame points into the parsed buffer
 */
struct iwtcp_mpa_frame {
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	bool large;
	u16 pd_len;
	const u8 *pd;
};

/**
 * struct iwtcp_mpa_result - outcome of the negotiation for one endpoint
 * @rev: MPA revision of the Reply, which the connection runs
 * @enhanced: RFC 6581 data was exchanged
 * @crc: generate and check CRCs, both directions (RFC 5044 7.1.1 C)
 * @markers_tx: insert markers in FPDUs we send (the peer's M)
 * @markers_rx: the peer inserts markers in FPDUs we receive (our M)
 * @p2p: peer-to-peer model: an RTR indication follows (RFC 6581 9.2)
 * @rtr: initiator: the one RTR type to send; responder: the types the
 *	initiator may send (enum iwtcp_mpa_rtr); 0 unless @p2p
 * @ird: local IRD to apply; the local setting when left unchanged
 * @ord: local ORD to apply; the local setting when left unchanged
 * @peer_ird: IRD the peer sent, for the ULP (RFC 6581 9.1)
 * @peer_ord: ORD the peer sent, for the ULP (RFC 6581 9.1)
 * @large_tx: send FPDUs of up to IWTCP_MPA_LARGE_FPDU octets: both
 *	frames had G
 * @term: on failure, the MPA error code to send in a TERMINATE (layer
 *	IWTCP_TERM_LAYER_LLP, type IWTCP_TERM_MPA, RFC 6581 8), else 0
 */
struct iwtcp_mpa_result {
	u8 rev;
	bool enhanced;
	bool crc;
	bool markers_tx;
	bool markers_rx;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	u16 peer_ird;
	u16 peer_ord;
	bool large_tx;
	u8 term;
};

int iwtcp_mpa_frame_len(const void *buf, size_t len);
int iwtcp_mpa_parse(const void *buf, size_t len,
		    enum iwtcp_mpa_frame_type type, struct iwtcp_mpa_frame *f);
int iwtcp_mpa_build(enum iwtcp_mpa_frame_type type,
		    const struct iwtcp_mpa_frame *f, void *buf, size_t size);
int iwtcp_mpa_settings_check(const struct iwtcp_mpa_settings *s);
int iwtcp_mpa_init_request(const struct iwtcp_mpa_settings *s,
			   struct iwtcp_mpa_frame *req);
int iwtcp_mpa_negotiate_request(const struct iwtcp_mpa_settings *s,
				const struct iwtcp_mpa_frame *req,
				struct iwtcp_mpa_frame *rep,
				struct iwtcp_mpa_result *res);
int iwtcp_mpa_negotiate_reply(const struct iwtcp_mpa_settings *s,
			      const struct iwtcp_mpa_frame *rep,
			      struct iwtcp_mpa_result *res);
u8 iwtcp_mpa_rtr_of_opcode(u8 opcode);

#endif /* _IWTCP_MPA_H */
