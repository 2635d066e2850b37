/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * iwtcp's tracepoints (system "iwtcp"): connection set-up, QP state,
 * TERMINATE and FPDU errors, transmit and receive batches.
 *
 * Disabled, each costs a static branch; every field is filled in only
 * when the event is enabled. Documentation/infiniband/iwtcp.rst
 * ("Debugging a connection") has a worked example.
 *
 * Device and state names are copied into fixed arrays, not __string():
 * the same source builds on 6.1 and 6.12, whose __assign_str() differ.
 * The device name comes from ib_device.name, not dev_name(), which a
 * rename frees under a softirq's feet (a rename may tear the copy).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM iwtcp

#if !defined(IWTCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IWTCP_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "mpa.h"
#include "rdmap.h"

#define IWTCP_TRACE_NAME_MAX 16

/* for user-space decoders (trace-cmd, perf): __print_symbolic's values */
TRACE_DEFINE_ENUM(IWTCP_MPA_RTR_SEND);
TRACE_DEFINE_ENUM(IWTCP_MPA_RTR_WRITE);
TRACE_DEFINE_ENUM(IWTCP_MPA_RTR_READ);
#define IWTCP_TRACE_DDP_HDR sizeof_field(struct iwtcp_rdmap_term, ddp_hdr)
#define IWTCP_TRACE_RDMAP_HDR sizeof_field(struct iwtcp_rdmap_term, rdmap_hdr)

/* An endpoint (CEP) moves from @old to @new (cm.c, cep_set_state()). */
TRACE_EVENT(iwtcp_cep_state,
	TP_PROTO(const struct ib_device *ibdev, u32 cep, const char *old,
		 const char *new),
	TP_ARGS(ibdev, cep, old, new),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, cep)
		__array(char, old, IWTCP_TRACE_NAME_MAX)
		__array(char, new, IWTCP_TRACE_NAME_MAX)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->cep = cep;
		strscpy(__entry->old, old, IWTCP_TRACE_NAME_MAX);
		strscpy(__entry->new, new, IWTCP_TRACE_NAME_MAX);
	),
	TP_printk("dev=%s cep=%u %s -> %s", __entry->dev, __entry->cep,
		  __entry->old, __entry->new)
);

/*
 * The MPA negotiation's outcome (RFC 5044 7.1, RFC 6581 7): 0 or the
 * -errno that refused it, the QP that takes the stream, revision,
 * enhanced start-up, CRC, markers each way, peer-to-peer, the RTR types
 * agreed (bits: 1 Send, 2 Write, 4 Read), local and peer IRD/ORD.
 */
TRACE_EVENT(iwtcp_mpa_result,
	TP_PROTO(const struct ib_device *ibdev, u32 cep, u32 qpn,
		 bool initiator, int rv, const struct iwtcp_mpa_result *res),
	TP_ARGS(ibdev, cep, qpn, initiator, rv, res),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, cep)
		__field(u32, qpn)
		__field(bool, initiator)
		__field(int, rv)
		__field(u8, rev)
		__field(bool, enhanced)
		__field(bool, crc)
		__field(bool, markers_tx)
		__field(bool, markers_rx)
		__field(bool, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, peer_ird)
		__field(u16, peer_ord)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->cep = cep;
		__entry->qpn = qpn;
		__entry->initiator = initiator;
		__entry->rv = rv;
		__entry->rev = res->rev;
		__entry->enhanced = res->enhanced;
		__entry->crc = res->crc;
		__entry->markers_tx = res->markers_tx;
		__entry->markers_rx = res->markers_rx;
		__entry->p2p = res->p2p;
		__entry->rtr = res->rtr;
		__entry->ird = res->ird;
		__entry->ord = res->ord;
		__entry->peer_ird = res->peer_ird;
		__entry->peer_ord = res->peer_ord;
	),
	TP_printk("dev=%s cep=%u qpn=%u %s rv=%d rev=%u enhanced=%u crc=%u markers_tx=%u markers_rx=%u p2p=%u rtr=%#x ird=%u ord=%u peer_ird=%u peer_ord=%u",
		  __entry->dev, __entry->cep, __entry->qpn,
		  __entry->initiator ? "initiator" : "responder", __entry->rv,
		  __entry->rev, __entry->enhanced, __entry->crc,
		  __entry->markers_tx, __entry->markers_rx, __entry->p2p,
		  __entry->rtr, __entry->ird, __entry->ord, __entry->peer_ird,
		  __entry->peer_ord)
);

/* RFC 6581 8: the RTR, sent by the initiator or received by the responder */
TRACE_EVENT(iwtcp_rtr,
	TP_PROTO(const struct ib_device *ibdev, u32 cep, bool tx, u8 rtr),
	TP_ARGS(ibdev, cep, tx, rtr),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, cep)
		__field(bool, tx)
		__field(u8, rtr)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->cep = cep;
		__entry->tx = tx;
		__entry->rtr = rtr;
	),
	TP_printk("dev=%s cep=%u %s %s", __entry->dev, __entry->cep,
		  __entry->tx ? "sent" : "received",
		  __print_symbolic(__entry->rtr,
				   { IWTCP_MPA_RTR_SEND, "send" },
				   { IWTCP_MPA_RTR_WRITE, "write" },
				   { IWTCP_MPA_RTR_READ, "read" }))
);

/* The QP state machine (qp.c, qp_write_state()); IB state alongside. */
TRACE_EVENT(iwtcp_qp_state,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, const char *old,
		 const char *new, enum ib_qp_state ib_state),
	TP_ARGS(ibdev, qpn, old, new, ib_state),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__array(char, old, IWTCP_TRACE_NAME_MAX)
		__array(char, new, IWTCP_TRACE_NAME_MAX)
		__field(int, ib_state)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		strscpy(__entry->old, old, IWTCP_TRACE_NAME_MAX);
		strscpy(__entry->new, new, IWTCP_TRACE_NAME_MAX);
		__entry->ib_state = ib_state;
	),
	TP_printk("dev=%s qpn=%u %s -> %s ib_state=%d", __entry->dev,
		  __entry->qpn, __entry->old, __entry->new, __entry->ib_state)
);

/*
 * A TERMINATE (RFC 5040 4.8): its cause (layer, type, code) and the
 * headers it quotes, DDP and a Read Request's RDMAP (empty when none).
 * @cep is nonzero for one of the MPA start-up (cm.c), 0 for one of the
 * data path; @qpn is the QP bound to the stream, 0 before one is.
 */
DECLARE_EVENT_CLASS(iwtcp_term_class,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 cep,
		 const struct iwtcp_rdmap_term *term),
	TP_ARGS(ibdev, qpn, cep, term),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__field(u32, cep)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
		__field(u8, ddp_len)
		__field(u8, rdmap_len)
		__array(u8, ddp_hdr, IWTCP_TRACE_DDP_HDR)
		__array(u8, rdmap_hdr, IWTCP_TRACE_RDMAP_HDR)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		__entry->cep = cep;
		__entry->layer = term->cause.layer;
		__entry->etype = term->cause.etype;
		__entry->ecode = term->cause.ecode;
		__entry->ddp_len = min_t(size_t, term->ddp_len,
					 IWTCP_TRACE_DDP_HDR);
		__entry->rdmap_len = term->rdmap_hdr_valid ?
				     IWTCP_TRACE_RDMAP_HDR : 0;
		memcpy(__entry->ddp_hdr, term->ddp_hdr, IWTCP_TRACE_DDP_HDR);
		memcpy(__entry->rdmap_hdr, term->rdmap_hdr,
		       IWTCP_TRACE_RDMAP_HDR);
	),
	TP_printk("dev=%s qpn=%u cep=%u layer=%u type=%u code=%#x ddp_hdr=[%s] rdmap_hdr=[%s]",
		  __entry->dev, __entry->qpn, __entry->cep, __entry->layer,
		  __entry->etype, __entry->ecode,
		  __print_hex_str(__entry->ddp_hdr, __entry->ddp_len),
		  __print_hex_str(__entry->rdmap_hdr, __entry->rdmap_len))
);

DEFINE_EVENT(iwtcp_term_class, iwtcp_term_tx,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 cep,
		 const struct iwtcp_rdmap_term *term),
	TP_ARGS(ibdev, qpn, cep, term)
);

DEFINE_EVENT(iwtcp_term_class, iwtcp_term_rx,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 cep,
		 const struct iwtcp_rdmap_term *term),
	TP_ARGS(ibdev, qpn, cep, term)
);

/*
 * An FPDU that failed MPA's or DDP/RDMAP's checks (RFC 5044 8, RFC 5041
 * 7, RFC 5040 4.8): the cause it gets, the TCP sequence number it began
 * at and its ULPDU length field. In the MPA start-up @qpn is the QP bound
 * (0 before one is) and @seq 0, not kept there.
 */
TRACE_EVENT(iwtcp_fpdu_rx_error,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 seq,
		 u32 ulpdu_len, const struct iwtcp_term_cause *cause),
	TP_ARGS(ibdev, qpn, seq, ulpdu_len, cause),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__field(u32, seq)
		__field(u32, ulpdu_len)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		__entry->seq = seq;
		__entry->ulpdu_len = ulpdu_len;
		__entry->layer = cause->layer;
		__entry->etype = cause->etype;
		__entry->ecode = cause->ecode;
	),
	TP_printk("dev=%s qpn=%u seq=%u ulpdu_len=%u layer=%u type=%u code=%#x",
		  __entry->dev, __entry->qpn, __entry->seq, __entry->ulpdu_len,
		  __entry->layer, __entry->etype, __entry->ecode)
);

/*
 * One transmit batch (the FPDUs of one tcp_sendmsg_locked()) or one
 * receive batch (the FPDUs of one tcp_read_sock()): FPDUs and wire octets.
 */
DECLARE_EVENT_CLASS(iwtcp_batch_class,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 fpdus, u32 octets),
	TP_ARGS(ibdev, qpn, fpdus, octets),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__field(u32, fpdus)
		__field(u32, octets)
	),
	TP_fast_assign(
		strscpy(__entry->dev, ibdev->name, IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		__entry->fpdus = fpdus;
		__entry->octets = octets;
	),
	TP_printk("dev=%s qpn=%u fpdus=%u octets=%u", __entry->dev,
		  __entry->qpn, __entry->fpdus, __entry->octets)
);

DEFINE_EVENT(iwtcp_batch_class, iwtcp_tx_batch,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 fpdus, u32 octets),
	TP_ARGS(ibdev, qpn, fpdus, octets)
);

DEFINE_EVENT(iwtcp_batch_class, iwtcp_rx_batch,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u32 fpdus, u32 octets),
	TP_ARGS(ibdev, qpn, fpdus, octets)
);

#endif /* IWTCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
