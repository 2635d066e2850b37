// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Transmit: SQ work requests, Read Responses and TERMINATE into FPDUs
 * (RFC 5044 4) on the connection's TCP socket; SQ completions in order.
 */

/**
 * DOC: Transmit
 *
 * One transmitter runs per QP at a time: the context that sets
 * IWTCP_TX_BUSY in @tx_flags. A context that finds it set leaves
 * IWTCP_TX_AGAIN behind, and the owner queues @tx_work when it lets go.
 * - The libsiw doorbell (post_send of a user QP) queues @tx_work and
 *   returns: the poster goes back to posting and polling while the
 *   worker drains what was posted meanwhile, in larger batches. Run in
 *   the poster's write() (as siw does, for up to 100 segments), the
 *   transmitter made the poster carry each message through TCP and, over
 *   a local path, the peer's receive, one message per system call:
 *   half the bandwidth at 4 KiB or less (iwtcp-performance.rst, "The
 *   user doorbell"). The price is a worker's wake-up per idle doorbell,
 *   which a request/response exchange pays on every round trip: so when
 *   a Send arrived since the doorbell last ran it, and it is idle, the
 *   doorbell runs the transmitter for one batch itself
 *   (iwtcp_qp_tx_doorbell()).
 * - A kernel post_send runs it inline when the SQ was idle: under the
 *   socket's spinlock, with tcp_sendmsg_locked() and atomic allocations,
 *   for one batch, as net/xfrm/espintcp.c writes to TCP from softirq.
 *   It defers to @tx_work in hard interrupts, with interrupts disabled,
 *   while the socket is owned by a process, and inside iwtcp's own
 *   receive (which holds a socket's lock). Completion and event
 *   handlers due during an inline run are called from an irq_work, in
 *   hard interrupt context as a NIC's interrupt calls them, not within
 *   the ULP's own call.
 * - Everything else (the socket's write-space callback, Read Requests and
 *   Read Responses arriving, a state change, what the inline run left)
 *   queues @tx_work. The write-space callback kicks only after a write
 *   ran short (TCP set SOCK_NOSPACE) and once TCP has room for a good
 *   part of the send buffer again (cm_sk_write_space()), not per ACK.
 *
 * The transmitter picks one message at a time: a TERMINATE when the QP
 * entered TERMINATE, else the oldest inbound Read Request (its Read
 * Response, RFC 5040 5.2), else the next SQ element. Each message is cut
 * into FPDUs of at most MULPDU octets (RFC 5044 4.5, from the socket's
 * current MSS; with markers, counting those that fall in each FPDU, so
 * that every full FPDU fills one segment). Consecutive FPDUs, up to 64
 * KiB of wire, form one bio_vec array written with one sendmsg call: a
 * batch, of one message or, without markers, of several (up to
 * TX_DONE_MAX whole ones before the last), whose Sends and Writes
 * complete once it is in the socket. Full FPDUs start TCP segments (RFC
 * 5044 5.1): with markers, a batch ends after an FPDU that does not fill
 * its segment, with MSG_EOR; without them, the FPDUs of a batch of
 * several messages fill its segments counted from its first octet, and
 * small messages share a segment as long as they fit in it whole
 * (tx_build_batch(), tx_join_next()). The FPDUs are framed by
 * fpdu.c's transmit framer (iwtcp_fpdu_tx_begin(), _add(), _end()), the
 * code the host unit tests run, straight into the QP's page fragments
 * (@pfrag, as TCP's own copy fills the socket's): each octet of the
 * registered memory is read once, into its place in the FPDU, and the
 * CRC runs over that copy while it is in the cache. TCP then takes the
 * pages by reference (MSG_SPLICE_PAGES; 6.1: tcp_sendpage_locked()),
 * without a copy of its own on a route with scatter-gather. So the CRC
 * always matches the octets sent, even when the application writes into
 * a buffer it is sending, and a deregistration never waits for the peer.
 * The payload's STag is looked up once per batch (iwtcp_mem_cached())
 * and checked for each FPDU. A batch that TCP takes only partly stays
 * pending until the write-space callback reports room.
 *
 * SQ elements stay VALID in the ring until they complete (they go back
 * to the producer just before their completion shows). Completions
 * leave in posting order (@sq_slots): a Send or Write completes once its
 * last octet is in the socket, a Read when its last Read Response octet
 * is placed, local operations when executed. libsiw rings the doorbell
 * only when the element before the ones it posts is no longer VALID: it
 * counts on the kernel to go on draining the SQ while one is. So whatever
 * completes an element after the transmitter went idle (receive, for a
 * Read) kicks the transmitter.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <net/tcp.h>

#include "qp.h"
#include "qp_dp.h"
#include "cq.h"
#include "ddp.h"
#include "fpdu.h"
#include "mem.h"
#include "rdmap.h"
#include "ring.h"
#include "stats.h"
#include "trace.h"

/* bio_vec pieces of a batch: runs of page fragments (order-0 at worst) */
#define TX_BV_MAX	48
/* wire octets of a batch: one sendmsg call takes up to this many */
#define TX_BATCH	65536
/* messages of a batch that complete once it is in the socket */
#define TX_DONE_MAX	64
/* largest ULPDU header: untagged DDP header and a Terminate header */
#define TX_HDR_MAX	(sizeof(struct iwtcp_ddp_untagged_hdr) + IWTCP_TERM_HDR_MAX)
/* FPDU octets between markers */
#define MARKERS_EVERY	(IWTCP_MPA_MARKER_PERIOD - IWTCP_MPA_MARKER_SIZE)

enum tx_kind {
	TX_NONE,
	TX_SQ,
	TX_READ_RESP,
};

/* A local buffer being sent: its STag is looked up for each FPDU. */
struct tx_src {
	u32 stag;
	u64 addr;
	u32 len;
};

/**
 * struct iwtcp_tx - transmit state of a connected QP (owner: IWTCP_TX_BUSY)
 * @st: stream offset for markers, markers and CRC in this direction
 * @msn: next MSN per untagged queue (RFC 5041 5.1)
 * @kind: the message in progress
 * @sqe: copy of its SQ element (TX_SQ)
 * @sq_idx: its SQ index (TX_SQ)
 * @rresp: the Read Request being answered (TX_READ_RESP)
 * @src: payload sources, @nsrc of them; inline data is in @sqe
 * @nsrc: see @src
 * @len: payload octets of the message
 * @off: payload octets already in FPDUs
 * @started: the message's first FPDU is built
 * @rresp_built: the Read Response is built whole, its IRQ slot released
 * @term_sent: the TERMINATE is in the socket
 * @bv: the batch being written, @nbv pieces of @pfrag pages, each
 *	holding a page reference until TCP took the batch
 * @nbv: see @bv
 * @wire_len: see @bv
 * @wire_sent: octets of it TCP took
 * @nfpdu: whole FPDUs in the batch, for the counters
 * @seg_full: wire octets of an FPDU that fills a segment (the MSS); 0
 *	with the peer's G bit (large FPDUs are not aligned)
 * @eor: with markers, the batch ends with an FPDU short of @seg_full: TCP
 *	is to start a new segment after it (MSG_EOR)
 * @first_len: wire octets of the batch's first FPDU
 * @seg_start: later messages joined the batch, their FPDUs placed in
 *	segments counted from its first octet: it starts a segment
 * @done: SQ indices of the Sends and Writes built whole in the batch
 *	before the message in progress, @ndone of them: they complete once
 *	the batch is in the socket
 * @ndone: see @done
 * @mrc: the MR payload was last taken from, during tx_build_batch()
 * @fpdu: the framer of the FPDU being built
 * @sink: where the framer writes its octets: @pfrag, then @bv
 * @pfrag: the page fragment FPDUs are written into (skb_page_frag_refill())
 * @atomic: this run is inline in a kernel post_send, under the socket's
 *	spinlock: one batch, page fragments without sleeping, no TERMINATE
 * @one_batch: this run is inline in a user doorbell: one batch
 */
struct iwtcp_tx {
	struct iwtcp_fpdu_stream st;
	u32 msn[IWTCP_DDP_NR_QN];
	enum tx_kind kind;
	struct siw_sqe sqe;
	u32 sq_idx;
	struct iwtcp_irq_entry rresp;
	struct tx_src src[SIW_MAX_SGE];
	u32 nsrc;
	u32 len;
	u32 off;
	bool started;
	bool rresp_built;
	bool term_sent;
	struct bio_vec bv[TX_BV_MAX];
	u32 nbv;
	u32 wire_len;
	u32 wire_sent;
	u32 nfpdu;
	u32 seg_full;
	bool eor;
	u32 first_len;
	bool seg_start;
	u32 done[TX_DONE_MAX];
	u32 ndone;
	struct iwtcp_mem_cache mrc;
	struct iwtcp_fpdu_tx fpdu;
	struct iwtcp_fpdu_sink sink;
	struct page_frag pfrag;
	bool atomic;
	bool one_batch;
};

static struct workqueue_struct *iwtcp_tx_wq;

static struct iwtcp_device *qp_dev(struct iwtcp_qp *qp)
{
	return to_iwtcp_dev(qp->base_qp.device);
}

/* ------------------------------------------------------------------ */
/* Completions in posting order                                        */

/**
 * iwtcp_sq_retire_head() - complete the SQ element at the head
 * @qp: the QP
 * @status: its completion status (&enum siw_wc_status)
 *
 * The element goes back to its producer; then, if it was signalled or
 * ended in error, its completion reaches the send CQ.
 *
 * Context: any context; the caller holds @sq_lock and checked that an
 * element executes (sq.get != sq_tx).
 * Return: true if the send CQ must be notified.
 */
bool iwtcp_sq_retire_head(struct iwtcp_qp *qp, u8 status)
{
	struct iwtcp_sq_slot *slot = iwtcp_sq_slot(qp, qp->sq.get);
	struct siw_sqe *sqe = iwtcp_ring_slot(&qp->sq, sizeof(*sqe),
					      qp->sq.get);
	struct iwtcp_wc wc = {
		.id = slot->id,
		.qp = qp,
		/* set without @sq_lock once the sources are checked */
		.bytes = READ_ONCE(slot->bytes),
		.opcode = slot->opcode,
		.status = status,
	};
	bool notify = false;

	lockdep_assert_held(&qp->sq_lock);
	/*
	 * Hand the element back before its completion shows: an application
	 * that sees the completion may post into this very element at once
	 * (libsiw refuses an element still VALID). The fields were read
	 * when it started; @slot keeps what the completion needs.
	 */
	iwtcp_ring_hand_back(&sqe->flags);
	qp->sq.get++;
	if ((slot->signalled || status != SIW_WC_SUCCESS) &&
	    iwtcp_cq_push(to_iwtcp_cq(qp->base_qp.send_cq), &wc) > 0)
		notify = true;
	return notify;
}

/* Retire done SQ elements from the head. Caller holds @sq_lock. */
static bool sq_retire(struct iwtcp_qp *qp)
{
	struct iwtcp_sq_slot *slot;
	bool notify = false;

	lockdep_assert_held(&qp->sq_lock);
	while (qp->sq.get != qp->sq_tx) {
		slot = iwtcp_sq_slot(qp, qp->sq.get);
		if (!slot->done)
			break;
		notify |= iwtcp_sq_retire_head(qp, slot->status);
	}
	return notify;
}

/**
 * iwtcp_sq_done() - an SQ element finished executing
 * @qp: the QP
 * @idx: its SQ index, from the transmitter
 * @status: &enum siw_wc_status
 *
 * Completions leave in posting order: this one, and any done behind it,
 * reach the CQ once all elements before them are done. An element the
 * QP flushed meanwhile is left alone.
 *
 * Context: any context.
 */
void iwtcp_sq_done(struct iwtcp_qp *qp, u32 idx, u8 status)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(qp->base_qp.send_cq);
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (idx - qp->sq.get < qp->sq_tx - qp->sq.get) {
		struct iwtcp_sq_slot *slot = iwtcp_sq_slot(qp, idx);

		slot->done = true;
		slot->status = status;
		notify = sq_retire(qp);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (notify)
		iwtcp_cq_notify(cq);
}

/* ------------------------------------------------------------------ */
/* Building one FPDU                                                   */

/*
 * iwtcp_fpdu_sink.reserve: room in @pfrag, whose page the batch takes a
 * reference on (one per piece; a run that continues the last piece
 * extends it). The framer fills it with the rest of the FPDU before it
 * asks again; an FPDU that fails midway is cut off (tx_build_batch()). A
 * page that neither the batch nor TCP holds any more is filled again from
 * its start (skb_page_frag_refill()).
 */
static int tx_reserve(void *arg, u32 len, void **dst)
{
	struct iwtcp_tx *tx = arg;
	struct page_frag *pf = &tx->pfrag;
	struct bio_vec *last = tx->nbv ? &tx->bv[tx->nbv - 1] : NULL;
	/* inline, the worker is the fallback: no reserves */
	gfp_t gfp = tx->atomic ? GFP_NOWAIT | __GFP_NOWARN : GFP_KERNEL;
	u32 n;

	if (!skb_page_frag_refill(1, pf, gfp))
		return -ENOMEM;
	n = min(len, pf->size - pf->offset);
	if (last && last->bv_page == pf->page &&
	    last->bv_offset + last->bv_len == pf->offset) {
		last->bv_len += n;
	} else {
		/* tx_batch_room() keeps a batch within TX_BV_MAX */
		if (WARN_ON_ONCE(tx->nbv == TX_BV_MAX))
			return -EMSGSIZE;
		get_page(pf->page);
		bvec_set_page(&tx->bv[tx->nbv++], pf->page, n, pf->offset);
	}
	*dst = page_address(pf->page) + pf->offset;
	pf->offset += n;
	WRITE_ONCE(tx->wire_len, tx->wire_len + n);
	return n;
}

/* Add ULPDU octets from one page (iwtcp_mem_walk() callback). */
static int tx_add_page(void *arg, struct page *page, u32 off, u32 len)
{
	struct iwtcp_tx *tx = arg;
	const u8 *va = kmap_local_page(page);
	int rv;

	rv = iwtcp_fpdu_tx_add(&tx->fpdu, va + off, len, &tx->sink);
	kunmap_local(va);
	return rv;
}

/*
 * Cut the batch back to @nbv pieces, the last @last_len octets long,
 * letting go of the pages cut off.
 */
static void tx_batch_cut(struct iwtcp_tx *tx, u32 nbv, u32 wire_len,
			 u32 last_len)
{
	u32 i;

	for (i = nbv; i < tx->nbv; i++)
		put_page(tx->bv[i].bv_page);
	tx->nbv = nbv;
	if (nbv)
		tx->bv[nbv - 1].bv_len = last_len;
	WRITE_ONCE(tx->wire_len, wire_len);
}

/* Let go of the pages of the batch TCP took (or that was abandoned). */
static void tx_fpdu_release(struct iwtcp_tx *tx)
{
	tx_batch_cut(tx, 0, 0, 0);
	WRITE_ONCE(tx->wire_sent, 0);
	tx->nfpdu = 0;
	tx->eor = false;
	tx->first_len = 0;
	tx->seg_start = false;
}

/*
 * Room in the batch for one more FPDU of at most @mss octets, counting
 * its markers again to be safe: the pieces it takes if @pfrag falls back
 * to single pages, and the batch not yet at TX_BATCH octets.
 */
static bool tx_batch_room(struct iwtcp_tx *tx, u32 mss)
{
	u32 markers = mss / MARKERS_EVERY + 2;
	u32 bv = (mss + IWTCP_MPA_MARKER_SIZE * markers) / PAGE_SIZE + 2;

	return !tx->nbv || (tx->wire_len < TX_BATCH &&
			    tx->nbv + bv <= TX_BV_MAX);
}

/* Start an FPDU whose ULPDU (header @hdr and payload) is @ulpdu_len. */
static int tx_fpdu_begin(struct iwtcp_tx *tx, const void *hdr, u32 hdr_len,
			 u32 ulpdu_len)
{
	return iwtcp_fpdu_tx_begin(&tx->fpdu, &tx->st, ulpdu_len, &tx->sink) ?:
	       iwtcp_fpdu_tx_add(&tx->fpdu, hdr, hdr_len, &tx->sink);
}

/* RFC 5044 4.1, 4.4: PAD, a marker due before the CRC, then the CRC. */
static int tx_fpdu_end(struct iwtcp_tx *tx)
{
	int wire = iwtcp_fpdu_tx_end(&tx->fpdu, &tx->st, &tx->sink);

	if (wire < 0) {
		/* the ULPDU came short, or the framer lost count: a bug */
		WARN_ON_ONCE(wire == -EINVAL || wire == -EPROTO);
		return wire;
	}
	if (!tx->nfpdu)
		tx->first_len = wire;
	tx->nfpdu++;
	tx->eor = tx->st.markers && tx->seg_full && wire != tx->seg_full;
	return 0;
}

/* One whole FPDU without payload: Read Request, TERMINATE, zero length. */
static int tx_fpdu_hdr_only(struct iwtcp_tx *tx, const void *ulpdu, u32 len)
{
	return tx_fpdu_begin(tx, ulpdu, len, len) ?: tx_fpdu_end(tx);
}

/* ------------------------------------------------------------------ */
/* Writing it to the socket                                            */

/*
 * RFC 5044 5.1: "Multiple FPDUs MAY be packed into a single TCP segment
 * as determined by the EMSS calculation as long as they are entirely
 * contained in the TCP segment." TCP's last unsent socket buffer is cut
 * into segments of the MSS from its first octet; a short FPDU at its end
 * (the last of a message) leaves the last segment open. If the next FPDU,
 * of @len wire octets, does not fit in what is left of it, the buffer
 * takes nothing more, as tcp_sendmsg_locked() marks it for MSG_EOR (and
 * tcp_write_collapse_fence() for kTLS): the FPDU starts a buffer, and a
 * segment, of its own. With nothing unsent, the next write starts a
 * buffer anyway. Asked before every batch, this also regains alignment
 * that TCP lost (a segment cut at the peer's window edge).
 * Context: the socket is locked (lock_sock(), or its spinlock inline).
 */
static void tx_end_segment(struct sock *sk, u32 len)
{
	struct sk_buff *skb = tcp_write_queue_tail(sk);
	u32 mss = READ_ONCE(tcp_sk(sk)->mss_cache);

	lockdep_assert(lockdep_sock_is_held(sk));
	if (skb && mss && skb->len % mss + len > mss)
		TCP_SKB_CB(skb)->eor = 1;
}

/*
 * Write the rest of the pending batch. Returns 0 when it is all in the
 * socket (and counted), -EAGAIN when TCP is full (the write-space callback
 * kicks the transmitter again; after an inline run, the worker tries
 * too), or the socket's error.
 */
static int tx_push(struct iwtcp_qp *qp, bool more)
{
	struct iwtcp_tx *tx = qp->tx;
	struct msghdr msg = {
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL |
			     (tx->eor ? MSG_EOR : more ? MSG_MORE : 0),
	};
	u32 left = tx->wire_len - tx->wire_sent;
	int rv;

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, tx->bv, tx->nbv,
		      tx->wire_len);
	iov_iter_advance(&msg.msg_iter, tx->wire_sent);
	/* inline, iwtcp_qp_tx_post() holds the socket's spinlock */
	if (!tx->atomic)
		lock_sock(qp->sk);
	/* a batch of several messages was laid out from a segment start */
	if (!tx->wire_sent && tx->seg_full)
		tx_end_segment(qp->sk, tx->seg_start ? tx->seg_full :
				       tx->first_len);
	/* the pages are iwtcp's own copy: TCP takes them by reference */
	rv = iwtcp_compat_tcp_splice_locked(qp->sk, &msg, left);
	if (!tx->atomic)
		release_sock(qp->sk);
	if (rv >= 0)
		WRITE_ONCE(tx->wire_sent, tx->wire_sent + rv);
	if (rv >= 0 && rv != left)
		rv = -EAGAIN;
	/* atomic allocations may fail where the worker's would not */
	if (rv == -EAGAIN && tx->atomic)
		set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
	if (rv < 0)
		return rv;
	iwtcp_qp_stat_add(qp, IWTCP_STAT_TX_FPDUS, tx->nfpdu);
	iwtcp_qp_stat_add(qp, IWTCP_STAT_TX_OCTETS, tx->wire_len);
	trace_iwtcp_tx_batch(qp->base_qp.device, qp->base_qp.qp_num, tx->nfpdu,
			     tx->wire_len);
	if (tx->atomic)
		iwtcp_qp_stat_add(qp, IWTCP_STAT_TX_INLINE_FPDUS, tx->nfpdu);
	else if (tx->one_batch)
		iwtcp_qp_stat_add(qp, IWTCP_STAT_TX_DOORBELL_FPDUS, tx->nfpdu);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */

/*
 * RFC 5040 6.1: an inbound Read counts against IRD until answered. Its
 * slot is released once the last Read Response FPDU is built, before it
 * is written: the peer may post its next Read the moment the last octet
 * arrives, and that Read must find the slot free.
 */
static void tx_rresp_release(struct iwtcp_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->irq_lock, flags);
	if (qp->irq_get != qp->irq_put)
		qp->irq_get++;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	qp->tx->rresp_built = true;
}

static void tx_end_message(struct iwtcp_qp *qp, u8 status)
{
	struct iwtcp_tx *tx = qp->tx;
	enum tx_kind kind = tx->kind;

	tx->nsrc = 0;
	tx->kind = TX_NONE;
	if (kind == TX_READ_RESP && !tx->rresp_built)
		tx_rresp_release(qp);
	tx->started = false;
	/* A Read completes when its response is placed (qp_rx.c). */
	if (kind == TX_SQ && (status != SIW_WC_SUCCESS ||
			      (tx->sqe.opcode != SIW_OP_READ &&
			       tx->sqe.opcode != SIW_OP_READ_LOCAL_INV)))
		iwtcp_sq_done(qp, tx->sq_idx, status);
}

/*
 * The batch is in the socket (SIW_WC_SUCCESS) or dropped: complete the
 * messages built whole in it before the message in progress, in order.
 */
static void tx_batch_done(struct iwtcp_qp *qp, u8 status)
{
	struct iwtcp_tx *tx = qp->tx;
	u32 i;

	for (i = 0; i < tx->ndone; i++)
		iwtcp_sq_done(qp, tx->done[i], status);
	tx->ndone = 0;
}

/* The DDP/RDMAP header of the next FPDU of the message in progress. */
static u32 tx_msg_hdr(struct iwtcp_qp *qp, u32 paylen, bool last, u8 *hdr)
{
	struct iwtcp_tx *tx = qp->tx;
	struct iwtcp_ddp_hdr h = { .last = last };
	u8 opcode;

	if (tx->kind == TX_READ_RESP) {
		h.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_READ_RESP);
		h.stag = tx->rresp.sink_stag;
		h.to = tx->rresp.sink_to + tx->off;
		return iwtcp_ddp_build_tagged(&h, hdr, TX_HDR_MAX);
	}
	if (tx->sqe.opcode == SIW_OP_WRITE) {
		h.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_WRITE);
		h.stag = tx->sqe.rkey;
		h.to = tx->sqe.raddr + tx->off;
		return iwtcp_ddp_build_tagged(&h, hdr, TX_HDR_MAX);
	}
	/* RFC 5040 4.3: Send, with Solicited Event and/or Invalidate */
	if (tx->sqe.opcode == SIW_OP_SEND_REMOTE_INV) {
		opcode = tx->sqe.flags & SIW_WQE_SOLICITED ?
			 IWTCP_RDMAP_SEND_SE_INV : IWTCP_RDMAP_SEND_INV;
		h.inval_stag = tx->sqe.rkey;
	} else {
		opcode = tx->sqe.flags & SIW_WQE_SOLICITED ?
			 IWTCP_RDMAP_SEND_SE : IWTCP_RDMAP_SEND;
	}
	h.ulp_ctrl = iwtcp_rdmap_ctrl(opcode);
	h.qn = IWTCP_DDP_QN_SEND;
	h.msn = tx->msn[IWTCP_DDP_QN_SEND];
	h.mo = tx->off;
	return iwtcp_ddp_build_untagged(&h, hdr, TX_HDR_MAX);
}

/*
 * Add @len octets at @addr of the buffer with STag @stag, checked again
 * for each FPDU (the MR may have been deregistered or invalidated since
 * the message started): -EACCES if it is no longer usable so. The STag
 * is looked up once per batch (@mrc).
 */
static int tx_add_stag(struct iwtcp_qp *qp, u32 stag, int access, u64 addr,
		       u32 len)
{
	struct iwtcp_tx *tx = qp->tx;
	struct iwtcp_mr *mr = iwtcp_mem_cached(&tx->mrc, qp_dev(qp), stag);

	if (!mr ||
	    iwtcp_mem_check(mr, stag, qp->base_qp.pd, access, addr, len))
		return -EACCES;
	return iwtcp_mem_walk(mr, addr, len, tx_add_page, tx);
}

/* Payload of the FPDU: @len octets from message offset @tx->off. */
static int tx_add_payload(struct iwtcp_qp *qp, u32 len)
{
	struct iwtcp_tx *tx = qp->tx;
	u32 skip = tx->off, i, n;
	int rv;

	if (!len)
		return 0;
	if (tx->kind == TX_READ_RESP)
		return tx_add_stag(qp, tx->rresp.src_stag, IB_ACCESS_REMOTE_READ,
				   tx->rresp.src_to + skip, len);
	if (tx->sqe.flags & SIW_WQE_INLINE)
		return iwtcp_fpdu_tx_add(&tx->fpdu,
					 (u8 *)&tx->sqe.sge[1] + skip, len,
					 &tx->sink);
	for (i = 0; i < tx->nsrc && len; i++) {
		struct tx_src *s = &tx->src[i];

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		n = min(len, s->len - skip);
		rv = tx_add_stag(qp, s->stag, 0, s->addr + skip, n);
		if (rv)
			return rv;
		len -= n;
		skip = 0;
	}
	return 0;
}

/*
 * Wire octets of one FPDU: RFC 5044 4.5, the current MSS; a peer that
 * set G takes larger FPDUs, which TCP then segments.
 */
static u32 tx_emss(struct iwtcp_qp *qp)
{
	if (qp->tx->st.large)
		return IWTCP_MPA_LARGE_FPDU;
	return READ_ONCE(tcp_sk(qp->sk)->mss_cache);
}

/* DDP header octets of the FPDUs of a Send, Write or Read Response */
static u32 tx_data_hdr_len(struct iwtcp_tx *tx)
{
	if (tx->kind == TX_SQ && tx->sqe.opcode != SIW_OP_WRITE)
		return sizeof(struct iwtcp_ddp_untagged_hdr);
	return sizeof(struct iwtcp_ddp_tagged_hdr);
}

/*
 * ULPDU octets of an FPDU that fills the rest of the batch's segment (no
 * markers; @seg_full a multiple of 4, and so every FPDU's end).
 */
static u32 tx_seg_ulpdu(struct iwtcp_tx *tx)
{
	return iwtcp_fpdu_ulpdu_fit(tx->seg_full -
				    tx->wire_len % tx->seg_full);
}

/*
 * Build the next FPDU of a Send, Write or Read Response: as much payload
 * as fills one segment from the FPDU's place in the stream (RFC 5044 4.5,
 * 5.1), in a batch of several messages the rest of its segment.
 */
static int tx_build_data(struct iwtcp_qp *qp, u32 mss)
{
	struct iwtcp_tx *tx = qp->tx;
	bool send = tx->kind == TX_SQ && tx->sqe.opcode != SIW_OP_WRITE;
	u8 hdr[TX_HDR_MAX];
	u32 hdr_len, room, paylen;
	bool last;
	int rv;

	room = iwtcp_fpdu_mulpdu_at(tx->st.off, mss, tx->st.markers);
	if (tx->seg_start)
		room = min(room, tx_seg_ulpdu(tx));
	/* tx_join_next() left room for the header: else a bug */
	if (WARN_ON_ONCE(room <= tx_data_hdr_len(tx)))
		return -EINVAL;
	room -= tx_data_hdr_len(tx);
	paylen = min(tx->len - tx->off, room);
	last = tx->off + paylen == tx->len;
	hdr_len = tx_msg_hdr(qp, paylen, last, hdr);
	rv = tx_fpdu_begin(tx, hdr, hdr_len, hdr_len + paylen);
	if (!rv)
		rv = tx_add_payload(qp, paylen);
	if (!rv)
		rv = tx_fpdu_end(tx);
	if (rv)
		return rv;
	/* RFC 5041 5.1: the MSN counts whole messages, once it is built */
	if (send && last)
		tx->msn[IWTCP_DDP_QN_SEND]++;
	tx->off += paylen;
	tx->started = true;
	if (tx->kind == TX_READ_RESP && tx->off == tx->len)
		tx_rresp_release(qp);
	return 0;
}

/* RFC 5040 4.4: a Read Request; the Read goes on the ORQ. */
static int tx_build_read_req(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	struct iwtcp_rdmap_read rr = {
		.sink_stag = tx->sqe.sge[0].lkey,
		.sink_to = tx->sqe.sge[0].laddr,
		.size = tx->len,
		.src_stag = tx->sqe.rkey,
		.src_to = tx->sqe.raddr,
	};
	struct iwtcp_orq_entry *e;
	u8 ulpdu[IWTCP_RDMAP_READ_REQ_LEN];
	unsigned long flags;
	int len, rv;

	len = iwtcp_rdmap_build_read_req(&rr, tx->msn[IWTCP_DDP_QN_READ_REQ],
					 ulpdu, sizeof(ulpdu));
	if (len < 0)
		return len;
	rv = tx_fpdu_hdr_only(tx, ulpdu, len);
	if (rv)
		return rv;
	tx->msn[IWTCP_DDP_QN_READ_REQ]++;
	spin_lock_irqsave(&qp->orq_lock, flags);
	e = &qp->orq[qp->orq_put % qp->orq_size];
	e->sq_idx = tx->sq_idx;
	e->sink_stag = rr.sink_stag;
	e->sink_to = rr.sink_to;
	e->len = rr.size;
	e->got = 0;
	e->inval = tx->sqe.opcode == SIW_OP_READ_LOCAL_INV;
	WRITE_ONCE(qp->orq_put, qp->orq_put + 1);
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	tx->off = tx->len;
	tx->started = true;
	return 0;
}

/* The next FPDU of the message in progress. */
static int tx_build(struct iwtcp_qp *qp, u32 mss)
{
	struct iwtcp_tx *tx = qp->tx;

	if (tx->kind == TX_SQ && (tx->sqe.opcode == SIW_OP_READ ||
				  tx->sqe.opcode == SIW_OP_READ_LOCAL_INV))
		return tx_build_read_req(qp);
	return tx_build_data(qp, mss);
}

/* Resolve and check the local buffers of an SQ element. */
static u8 tx_sources(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	struct siw_sqe *sqe = &tx->sqe;
	u64 len = 0;
	u32 i;
	int rv;

	/* siw ABI: libsiw inlines up to SIW_MAX_INLINE whatever was asked */
	if (sqe->flags & SIW_WQE_INLINE) {
		if (sqe->sge[0].length > IWTCP_MAX_INLINE)
			return SIW_WC_LOC_LEN_ERR;
		tx->len = sqe->sge[0].length;
		return SIW_WC_SUCCESS;
	}
	if (sqe->num_sge > qp->max_send_sge)
		return SIW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < sqe->num_sge; i++) {
		struct siw_sge *sge = &sqe->sge[i];
		struct iwtcp_mr *mr;

		if (!sge->length)
			continue;
		mr = iwtcp_mem_get(qp_dev(qp), sge->lkey);
		if (!mr)
			return SIW_WC_LOC_PROT_ERR;
		rv = iwtcp_mem_check(mr, sge->lkey, qp->base_qp.pd, 0,
				     sge->laddr, sge->length);
		iwtcp_mem_put(mr);
		if (rv)
			return SIW_WC_LOC_PROT_ERR;
		tx->src[tx->nsrc].stag = sge->lkey;
		tx->src[tx->nsrc].addr = sge->laddr;
		tx->src[tx->nsrc++].len = sge->length;
		len += sge->length;
	}
	if (len > U32_MAX)
		return SIW_WC_LOC_LEN_ERR;
	tx->len = len;
	return SIW_WC_SUCCESS;
}

/* RFC 5040 4.4: the local sink of a Read: one SGE, writable. */
static u8 tx_read_sink(struct iwtcp_qp *qp)
{
	struct siw_sqe *sqe = &qp->tx->sqe;
	struct iwtcp_mr *mr;
	u8 status = SIW_WC_SUCCESS;

	if (sqe->num_sge != 1)
		return SIW_WC_LOC_QP_OP_ERR;
	qp->tx->len = sqe->sge[0].length;
	if (!sqe->sge[0].length)
		return SIW_WC_SUCCESS;
	mr = iwtcp_mem_get(qp_dev(qp), sqe->sge[0].lkey);
	if (!mr)
		return SIW_WC_LOC_PROT_ERR;
	if (iwtcp_mem_check(mr, sqe->sge[0].lkey, qp->base_qp.pd,
			    IB_ACCESS_LOCAL_WRITE, sqe->sge[0].laddr,
			    sqe->sge[0].length))
		status = SIW_WC_LOC_PROT_ERR;
	iwtcp_mem_put(mr);
	return status;
}

/* Execute a local operation; returns its completion status. */
static u8 tx_local_op(struct iwtcp_qp *qp)
{
	struct siw_sqe *sqe = &qp->tx->sqe;
	int rv;

	if (sqe->opcode == SIW_OP_INVAL_STAG)
		rv = iwtcp_mem_invalidate(qp_dev(qp), qp->base_qp.pd,
					  sqe->rkey);
	else
		rv = iwtcp_mem_fast_reg(qp->base_qp.pd,
					(struct ib_mr *)(uintptr_t)sqe->base_mr,
					sqe->rkey, sqe->access);
	return rv ? SIW_WC_LOC_PROT_ERR : SIW_WC_SUCCESS;
}

/* Check an SQ element just taken; returns its status so far. */
static u8 tx_prepare_sqe(struct iwtcp_qp *qp, bool user)
{
	struct iwtcp_tx *tx = qp->tx;

	switch (tx->sqe.opcode) {
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_WRITE:
		return tx_sources(qp);
	case SIW_OP_READ:
		return tx_read_sink(qp);
	case SIW_OP_READ_LOCAL_INV:
	case SIW_OP_INVAL_STAG:
	case SIW_OP_REG_MR:
		/* kernel work requests only: a user SQE holds no MR pointer */
		if (user)
			return SIW_WC_LOC_QP_OP_ERR;
		return tx->sqe.opcode == SIW_OP_READ_LOCAL_INV ?
		       tx_read_sink(qp) : SIW_WC_SUCCESS;
	default:
		return SIW_WC_LOC_QP_OP_ERR;
	}
}

static bool tx_is_read(u8 opcode)
{
	return opcode == SIW_OP_READ || opcode == SIW_OP_READ_LOCAL_INV;
}

/*
 * Take the next SQ element, unless the ORQ is full for a Read or a Read
 * fence waits for the Reads before it (RFC 5040 5.1). Returns true when
 * @tx holds a new message.
 */
static bool tx_take_sqe(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	struct iwtcp_sq_slot *slot;
	struct siw_sqe *sqe;
	unsigned long flags;
	u32 reads;
	bool taken = false;

	spin_lock_irqsave(&qp->sq_lock, flags);
	sqe = iwtcp_ring_slot(&qp->sq, sizeof(*sqe), qp->sq_tx);
	if (qp->sq_tx - qp->sq.get >= qp->sq.size ||
	    /* pairs with the producer's release of VALID */
	    !(smp_load_acquire(&sqe->flags) & SIW_WQE_VALID))
		goto out;
	memcpy(&tx->sqe, sqe, sizeof(tx->sqe));
	reads = READ_ONCE(qp->orq_put) - READ_ONCE(qp->orq_get);
	if ((tx->sqe.flags & SIW_WQE_READ_FENCE) && reads)
		goto out;
	if (tx_is_read(tx->sqe.opcode) && reads >= qp->orq_size)
		goto out;
	tx->sq_idx = qp->sq_tx++;
	slot = iwtcp_sq_slot(qp, tx->sq_idx);
	slot->id = tx->sqe.id;
	slot->opcode = tx->sqe.opcode < SIW_NUM_OPCODES ? tx->sqe.opcode :
						       SIW_OP_SEND;
	slot->signalled = qp->sig_all ||
			  (tx->sqe.flags & SIW_WQE_SIGNALLED);
	slot->done = false;
	slot->bytes = 0;
	taken = true;
out:
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return taken;
}

/* A local error ends the connection (RFC 5040 7.1: TERM, local catastrophic). */
static void tx_local_error(struct iwtcp_qp *qp)
{
	struct iwtcp_rdmap_term term = {
		.cause = {
			.layer = IWTCP_TERM_LAYER_RDMAP,
			.etype = IWTCP_TERM_RDMAP_CATASTROPHIC,
		},
	};

	iwtcp_qp_terminate(qp, &term, SIW_WC_GENERAL_ERR);
}

/* A Read's source became invalid: RDMAP remote protection, invalid STag */
static void tx_remote_error(struct iwtcp_qp *qp)
{
	struct iwtcp_rdmap_term term = {
		.cause = {
			.layer = IWTCP_TERM_LAYER_RDMAP,
			.etype = IWTCP_TERM_RDMAP_REMOTE_PROT,
			.ecode = IWTCP_TERM_RDMAP_INV_STAG,
		},
	};

	iwtcp_qp_terminate(qp, &term, SIW_WC_SUCCESS);
}

/* Start the next message; returns false when there is none to start. */
static bool tx_next_message(struct iwtcp_qp *qp, bool user)
{
	struct iwtcp_tx *tx = qp->tx;
	unsigned long flags;
	u8 status;

	spin_lock_irqsave(&qp->irq_lock, flags);
	if (qp->irq_get != qp->irq_put) {
		/* the entry stays counted until answered (tx_end_message()) */
		tx->rresp = qp->irq[qp->irq_get % qp->irq_size];
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		tx->kind = TX_READ_RESP;
		tx->len = tx->rresp.len;
		tx->off = 0;
		tx->rresp_built = false;
		return true;
	}
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	if (!tx_take_sqe(qp))
		return false;
	tx->kind = TX_SQ;
	tx->off = 0;
	tx->len = 0;
	status = tx_prepare_sqe(qp, user);
	WRITE_ONCE(iwtcp_sq_slot(qp, tx->sq_idx)->bytes, tx->len);
	if (status == SIW_WC_SUCCESS && (tx->sqe.opcode == SIW_OP_INVAL_STAG ||
					 tx->sqe.opcode == SIW_OP_REG_MR))
		status = tx_local_op(qp);
	if (status != SIW_WC_SUCCESS || tx->sqe.opcode == SIW_OP_INVAL_STAG ||
	    tx->sqe.opcode == SIW_OP_REG_MR) {
		tx_end_message(qp, status);
		if (status != SIW_WC_SUCCESS)
			tx_local_error(qp);
	}
	return true;
}

/* RFC 5040 4.8: the TERMINATE, on queue 2. */
static int tx_build_term(struct iwtcp_qp *qp)
{
	struct iwtcp_rdmap_term term;
	u8 ulpdu[TX_HDR_MAX];
	unsigned long flags;
	int len, rv;

	spin_lock_irqsave(&qp->state_lock, flags);
	term = qp->term;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	len = iwtcp_rdmap_build_term(&term, qp->tx->msn[IWTCP_DDP_QN_TERMINATE]++,
				     ulpdu, sizeof(ulpdu));
	if (len < 0)
		return len;
	rv = tx_fpdu_hdr_only(qp->tx, ulpdu, len);
	if (rv)
		return rv;
	iwtcp_stat_term(qp_dev(qp), qp, true, &term);
	trace_iwtcp_term_tx(qp->base_qp.device, qp->base_qp.qp_num, 0, &term);
	return 0;
}

/* The QP left RTS: no new message; a TERMINATE goes out, then ERROR. */
static void tx_stopped(struct iwtcp_qp *qp, enum iwtcp_qp_state state)
{
	struct iwtcp_tx *tx = qp->tx;
	int rv;

	if (tx->kind != TX_NONE)
		tx_end_message(qp, SIW_WC_WR_FLUSH_ERR);
	if (state != IWTCP_QP_TERMINATE)
		return;
	if (!tx->term_sent) {
		/* an inline run may find no page without sleeping: the worker */
		if (tx->atomic) {
			set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
			return;
		}
		tx->term_sent = true;
		rv = tx_build_term(qp);
		if (!rv && tx_push(qp, false) == -EAGAIN)
			return;	/* the write-space callback comes back */
		if (rv)
			ibdev_warn_ratelimited(qp->base_qp.device,
					       "QP %u: TERMINATE not built: %d\n",
					       qp->base_qp.qp_num, rv);
	}
	iwtcp_qp_to_error(qp);
}

static bool tx_is_user(struct iwtcp_qp *qp)
{
	return !rdma_is_kernel_res(&qp->base_qp.res);
}

/*
 * The message in progress is built whole: put it on @done and take the
 * next one, as tx_run() would after the push. It joins the batch if its
 * first FPDU, in the rest of the segment left open (RFC 5044 5.1),
 * carries a quarter segment of payload or all of it; else it waits,
 * taken but not started, for a batch of its own. Only where full FPDUs
 * fill segments (no markers, an EMSS that is a multiple of 4 and takes
 * no more than a largest FPDU), in RTS, and not while receive holds the
 * transmitter (RFC 5044 7.1.2 rule 4). Returns true to build it.
 */
static bool tx_join_next(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	u32 need;

	if (tx->st.markers || tx->ndone == TX_DONE_MAX ||
	    tx->seg_full % IWTCP_MPA_FPDU_ALIGN ||
	    tx->seg_full > iwtcp_fpdu_len(IWTCP_MPA_MULPDU_MAX) ||
	    /* acquire: as in tx_run() */
	    smp_load_acquire(&qp->state) != IWTCP_QP_RTS ||
	    READ_ONCE(qp->tx_hold))
		return false;
	if (tx->kind == TX_SQ && !tx_is_read(tx->sqe.opcode))
		tx->done[tx->ndone++] = tx->sq_idx;
	tx->nsrc = 0;
	tx->kind = TX_NONE;
	tx->started = false;
	/* a local operation is executed (and done) as it is taken */
	if (!tx_next_message(qp, tx_is_user(qp)) || tx->kind == TX_NONE)
		return false;
	if (!tx->seg_full)
		return true;	/* large FPDUs: not aligned to segments */
	if (tx->kind == TX_SQ && tx_is_read(tx->sqe.opcode))
		need = IWTCP_RDMAP_READ_REQ_LEN;
	else
		need = tx_data_hdr_len(tx) +
		       min(tx->len, tx->seg_full / 4);
	if (tx_seg_ulpdu(tx) < need)
		return false;
	tx->seg_start = true;
	return true;
}

/*
 * FPDUs of the message in progress, and of the messages after it (see
 * tx_join_next()), as many as the batch takes. An FPDU that fails to
 * build is cut off again; the FPDUs before it go out, and the failure
 * comes back when that FPDU is built next.
 */
static int tx_build_batch(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	u32 mss = tx_emss(qp);
	u32 nbv, wire_len, last_len;
	int rv;

	/*
	 * RFC 5044 5.1: FPDUs start TCP segments. Full (MULPDU-sized) FPDUs
	 * fill segments (iwtcp_fpdu_mulpdu_at()). With markers, after a
	 * shorter one (the last of a message, one the markers kept 4 octets
	 * short, or any when the MSS is not a multiple of 4) the batch ends,
	 * and TCP starts a new segment for what follows (MSG_EOR keeps later
	 * data out of that socket buffer). Without markers, the last FPDU of
	 * a message leaves its segment open: the next message of the batch
	 * fills the rest of it (tx_join_next()); the next batch joins it if
	 * its first FPDU fits whole, else closes it first (tx_end_segment();
	 * a batch of several messages always starts a segment), so small
	 * messages share segments. An MSS that is not a multiple of 4
	 * leaves every full FPDU 1 to 3 octets short of its segment; without
	 * markers the FPDUs of a batch then straddle segments: aligning them
	 * takes a socket buffer per FPDU, and at EMSS 1449 ib_write_bw and
	 * ib_send_bw at 64 KiB ran at 21.0 and 23.0 MB/s that way, against
	 * 55.4 and 54.4 packed (veth, medians). A connecting iwtcp rounds
	 * the MSS its netdev's MTU gives (cm_sock_set_mss()); a route's
	 * MTU or a peer can still give such an MSS.
	 * The MSS (mss_cache) is read once per batch: TCP changes it with
	 * the path MTU. While SACK blocks ride on segments, TCP cuts them
	 * shorter than that, and full FPDUs straddle (RFC 5044 5.1 lists
	 * such option changes among what loses alignment).
	 */
	tx->seg_full = tx->st.large ? 0 : mss;
	do {
		nbv = tx->nbv;
		wire_len = tx->wire_len;
		last_len = nbv ? tx->bv[nbv - 1].bv_len : 0;
		rv = tx_build(qp, mss);
		if (rv && nbv) {
			tx_batch_cut(tx, nbv, wire_len, last_len);
			rv = 0;
			break;
		}
	} while (!rv && !tx->eor && tx_batch_room(tx, mss) &&
		 (tx->off < tx->len || tx_join_next(qp)));
	/* the batch holds a copy of the payload, not the MR */
	iwtcp_mem_cache_drop(&tx->mrc);
	return rv;
}

/* The transmitter. Caller owns it (IWTCP_TX_BUSY). */
static void tx_run(struct iwtcp_qp *qp)
{
	struct iwtcp_tx *tx = qp->tx;
	enum iwtcp_qp_state state;
	bool user = tx_is_user(qp);
	bool built = false;
	int rv;

	WARN_ON_ONCE(!test_bit(IWTCP_TX_BUSY, &qp->tx_flags));
	for (;;) {
		/* acquire: pairs with qp_write_state() (sk, term_status) */
		state = smp_load_acquire(&qp->state);
		/* In ERROR the connection is gone: drop what was not sent. */
		if (tx->wire_sent < tx->wire_len && state != IWTCP_QP_ERROR) {
			/* a message taken but not started gets its own batch */
			rv = tx_push(qp, tx->kind != TX_NONE && tx->started &&
				     tx->off < tx->len);
			if (rv == -EAGAIN)
				return;
			if (rv)
				iwtcp_qp_to_error(qp);
			tx_fpdu_release(tx);
			tx_batch_done(qp, rv ? SIW_WC_WR_FLUSH_ERR :
					       SIW_WC_SUCCESS);
			/*
			 * Its last octet is in the socket: the message is done,
			 * whatever state receive moved the QP to meanwhile.
			 */
			if (!rv && tx->kind != TX_NONE && tx->started &&
			    tx->off == tx->len)
				tx_end_message(qp, SIW_WC_SUCCESS);
			continue;
		}
		tx_fpdu_release(tx);
		tx_batch_done(qp, SIW_WC_WR_FLUSH_ERR);
		if (state != IWTCP_QP_RTS) {
			tx_stopped(qp, state);
			return;
		}
		/* RFC 5044 7.1.2 rule 4: receive kicks us once it may go */
		if (READ_ONCE(qp->tx_hold))
			return;
		if (tx->kind != TX_NONE && tx->started && tx->off == tx->len) {
			tx_end_message(qp, SIW_WC_SUCCESS);
			continue;
		}
		if (tx->kind == TX_NONE && !tx_next_message(qp, user))
			return;
		if (tx->kind == TX_NONE)
			continue;
		/* an inline run sends one batch; the worker does the rest */
		if ((tx->atomic || tx->one_batch) && built) {
			set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
			return;
		}
		built = true;
		rv = tx_build_batch(qp);
		if (rv == -ENOMEM && (tx->atomic || tx->one_batch)) {
			/* no page fragment here (atomic, or a dying poster) */
			tx_fpdu_release(tx);
			set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
			return;
		} else if (rv == -EACCES && tx->kind == TX_READ_RESP) {
			/* RFC 5040 7.2: the source STag went away meanwhile */
			tx_fpdu_release(tx);
			tx_end_message(qp, SIW_WC_SUCCESS);
			tx_remote_error(qp);
		} else if (rv) {
			ibdev_warn_ratelimited(qp->base_qp.device,
					       "QP %u: FPDU not built: %d\n",
					       qp->base_qp.qp_num, rv);
			tx_fpdu_release(tx);
			tx_end_message(qp, rv == -EACCES ? SIW_WC_LOC_PROT_ERR :
					   SIW_WC_GENERAL_ERR);
			tx_local_error(qp);
		}
	}
}

/*
 * Become the transmitter, or leave IWTCP_TX_AGAIN for the one running:
 * it queues @tx_work when it lets go (tx_unlock()). The fully ordered
 * test_and_clear_bit() makes the new owner see what was posted before
 * the flag was set.
 */
static bool tx_trylock(struct iwtcp_qp *qp)
{
	set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
	/* AGAIN before BUSY is tested; pairs with tx_unlock() */
	smp_mb__after_atomic();
	if (test_and_set_bit_lock(IWTCP_TX_BUSY, &qp->tx_flags))
		return false;
	test_and_clear_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
	return true;
}

static void tx_unlock(struct iwtcp_qp *qp)
{
	clear_bit_unlock(IWTCP_TX_BUSY, &qp->tx_flags);
	/* BUSY clear before AGAIN is tested; pairs with tx_trylock() */
	smp_mb__after_atomic();
	if (test_bit(IWTCP_TX_AGAIN, &qp->tx_flags))
		iwtcp_qp_tx_kick(qp);
}

/**
 * iwtcp_qp_tx_work() - the QP's transmit work item (@tx_work)
 * @work: the work item; its queuing took a QP reference, dropped here
 *
 * Context: workqueue (process context).
 */
void iwtcp_qp_tx_work(struct work_struct *work)
{
	struct iwtcp_qp *qp = container_of(work, struct iwtcp_qp, tx_work);

	if (tx_trylock(qp)) {
		/* pairs with iwtcp_qp_tx_init() */
		if (smp_load_acquire(&qp->tx))
			tx_run(qp);
		tx_unlock(qp);
	}
	iwtcp_qp_rem_ref(&qp->base_qp);
}

/**
 * iwtcp_qp_tx_kick() - have the transmitter look at the QP again
 * @qp: the QP
 *
 * Context: any context.
 */
void iwtcp_qp_tx_kick(struct iwtcp_qp *qp)
{
	iwtcp_qp_add_ref(&qp->base_qp);
	if (!queue_work(iwtcp_tx_wq, &qp->tx_work))
		iwtcp_qp_rem_ref(&qp->base_qp);
}

/* Per CPU: iwtcp holds a socket's lock here (receive, an inline run). */
static DEFINE_PER_CPU(unsigned int, tx_sk_held);
/* Per CPU: an inline run is inside a ULP's post_send here. */
static DEFINE_PER_CPU(unsigned int, tx_in_post);

/**
 * iwtcp_sk_held_enter() - iwtcp holds a socket's lock on this CPU
 *
 * Until iwtcp_sk_held_exit(), a kernel post_send on this CPU (from a
 * completion handler called meanwhile) defers to the worker: running
 * inline would take a socket spinlock inside the lock of another socket
 * (receive owns its socket, an inline run holds its spinlock), or find
 * its own socket owned and defer anyway.
 *
 * Context: bottom halves disabled.
 */
void iwtcp_sk_held_enter(void)
{
	__this_cpu_inc(tx_sk_held);
}

/**
 * iwtcp_sk_held_exit() - the end of iwtcp_sk_held_enter()
 *
 * Context: bottom halves disabled, on the CPU of the enter.
 */
void iwtcp_sk_held_exit(void)
{
	__this_cpu_dec(tx_sk_held);
}

/**
 * iwtcp_tx_in_post() - is an inline run inside a ULP's post_send here?
 *
 * Then completion and event handlers are deferred to an irq_work (cq.c,
 * qp.c): the ULP may hold the lock its handler takes.
 *
 * Context: any context.
 * Return: true inside an inline run on this CPU.
 */
bool iwtcp_tx_in_post(void)
{
	return this_cpu_read(tx_in_post);
}

/*
 * May a kernel post_send run the transmitter inline here? Not in hard
 * interrupts or with interrupts off (bottom halves cannot be enabled
 * again there), and not inside iwtcp's own hold of a socket spinlock.
 * (A memory cgroup charge for the socket is atomic with bottom halves
 * off: gfp_memcg_charge().)
 */
static bool tx_may_inline(void)
{
	if (in_hardirq() || in_nmi() || irqs_disabled())
		return false;
	return !this_cpu_read(tx_sk_held);
}

/**
 * iwtcp_qp_tx_post() - transmit what a kernel post_send queued
 * @qp: the kernel QP
 *
 * Runs the transmitter inline for one batch when it is idle and the
 * context allows (see DOC: Transmit), else queues @tx_work. Inline, the
 * socket's spinlock is held and sk_allocation is GFP_ATOMIC for the
 * run: TCP's softirq paths take the same lock, and a process owning the
 * socket makes this defer, so nobody else allocates for the socket
 * meanwhile.
 *
 * Context: any context, including hard interrupts; never sleeps.
 */
void iwtcp_qp_tx_post(struct iwtcp_qp *qp)
{
	struct sock *sk = READ_ONCE(qp->sk);
	struct iwtcp_tx *tx;
	gfp_t gfp;

	if (!sk || !tx_may_inline()) {
		iwtcp_qp_tx_kick(qp);
		return;
	}
	if (!tx_trylock(qp))
		return;
	/* pairs with iwtcp_qp_tx_init() */
	tx = smp_load_acquire(&qp->tx);
	/* Only an idle transmitter: otherwise the order is the worker's. */
	if (!tx || tx->kind != TX_NONE || tx->wire_sent < tx->wire_len)
		goto defer;
	local_bh_disable();
	bh_lock_sock(sk);
	if (sock_owned_by_user(sk)) {
		bh_unlock_sock(sk);
		local_bh_enable();
		goto defer;
	}
	iwtcp_sk_held_enter();
	__this_cpu_inc(tx_in_post);
	gfp = sk->sk_allocation;
	WRITE_ONCE(sk->sk_allocation, GFP_ATOMIC | __GFP_NOWARN);
	tx->atomic = true;
	tx_run(qp);
	tx->atomic = false;
	WRITE_ONCE(sk->sk_allocation, gfp);
	__this_cpu_dec(tx_in_post);
	iwtcp_sk_held_exit();
	bh_unlock_sock(sk);
	local_bh_enable();
	tx_unlock(qp);
	return;

defer:
	/* tx_unlock() hands the run to the worker */
	set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
	tx_unlock(qp);
}

/**
 * iwtcp_qp_tx_doorbell() - libsiw's send doorbell on a user QP
 * @qp: the user QP, in RTS
 *
 * Runs the transmitter for one batch in the poster's system call when it
 * is idle and a Send arrived since the doorbell last ran it: the poster
 * answers a message (a request/response exchange), and a worker's
 * wake-up would lengthen every round trip. Else queues @tx_work, which
 * drains a stream (of Sends, Writes, or Reads whose responses arrive
 * meanwhile) in larger batches than one write() carries (DOC: Transmit).
 *
 * Context: process context (a write() on the uverbs file); sleeps.
 */
void iwtcp_qp_tx_doorbell(struct iwtcp_qp *qp)
{
	u32 seen = READ_ONCE(qp->rx_seen);
	struct iwtcp_tx *tx;

	if (seen == READ_ONCE(qp->tx_db_seen)) {
		iwtcp_qp_tx_kick(qp);
		return;
	}
	if (!tx_trylock(qp))
		return;
	/* pairs with iwtcp_qp_tx_init() */
	tx = smp_load_acquire(&qp->tx);
	if (!tx || tx->kind != TX_NONE || tx->wire_sent < tx->wire_len) {
		/* tx_unlock() hands the run to the worker */
		set_bit(IWTCP_TX_AGAIN, &qp->tx_flags);
		tx_unlock(qp);
		return;
	}
	WRITE_ONCE(qp->tx_db_seen, seen);
	tx->one_batch = true;
	tx_run(qp);
	tx->one_batch = false;
	tx_unlock(qp);
}

/**
 * iwtcp_qp_tx_fill_res() - the transmitter's part of a QP's restrack entry
 * @msg: the netlink message of ``rdma resource show qp`` (``-dd``)
 * @qp: the QP, held by restrack: the core drains the entry before
 *	destroy_qp, so its transmit state and SQ stay
 *
 * Adds tx_busy and tx_again (the IWTCP_TX_* bits: a context runs the
 * transmitter; another asked for a run meanwhile), sq_waiting (the SQ
 * element after those taken is VALID: posted, not taken yet) and
 * tx_unsent (while the transmitter is idle, octets of built FPDUs TCP
 * has not taken: its send buffer is full; 0 while it runs). A snapshot,
 * read without owning the transmitter. In RTS, with sq_waiting 1 and the
 * transmitter neither busy nor holding octets in two reads, a run was
 * missed (siw ABI contract, "The send doorbell") unless the element
 * waits for Reads: ORD in use (ord_used) or a Read fence.
 *
 * Context: process context.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int iwtcp_qp_tx_fill_res(struct sk_buff *msg, struct iwtcp_qp *qp)
{
	/* pairs with iwtcp_qp_tx_init() */
	struct iwtcp_tx *tx = smp_load_acquire(&qp->tx);
	unsigned long bits = READ_ONCE(qp->tx_flags);
	u32 unsent = 0, len, sent;
	struct siw_sqe *sqe;
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&qp->sq_lock, flags);
	sqe = iwtcp_ring_slot(&qp->sq, sizeof(*sqe), qp->sq_tx);
	waiting = qp->sq_tx - qp->sq.get < qp->sq.size &&
		  (READ_ONCE(sqe->flags) & SIW_WQE_VALID);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* while it runs, the batch grows and shrinks: nothing to tell */
	if (tx && !(bits & BIT(IWTCP_TX_BUSY))) {
		len = READ_ONCE(tx->wire_len);
		sent = READ_ONCE(tx->wire_sent);
		unsent = len > sent ? len - sent : 0;
	}
	if (rdma_nl_put_driver_u32(msg, "tx_busy",
				   !!(bits & BIT(IWTCP_TX_BUSY))) ||
	    rdma_nl_put_driver_u32(msg, "tx_again",
				   !!(bits & BIT(IWTCP_TX_AGAIN))) ||
	    rdma_nl_put_driver_u32(msg, "sq_waiting", waiting) ||
	    rdma_nl_put_driver_u32(msg, "tx_unsent", unsent))
		return -EMSGSIZE;
	return 0;
}

/**
 * iwtcp_qp_tx_init() - transmit state for a new connection
 * @qp: the QP, not yet in RTS
 * @st: the stream after the MPA start-up (markers, CRC, octets sent,
 *	the RTR included)
 * @rtr_sent: the RTR this side sent (IWTCP_MPA_RTR_*), or 0
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int iwtcp_qp_tx_init(struct iwtcp_qp *qp, const struct iwtcp_fpdu_stream *st,
		     u8 rtr_sent)
{
	struct iwtcp_tx *tx = kzalloc(sizeof(*tx), GFP_KERNEL);
	u32 i;

	if (!tx)
		return -ENOMEM;
	tx->st = *st;
	tx->sink.reserve = tx_reserve;
	tx->sink.arg = tx;
	for (i = 0; i < IWTCP_DDP_NR_QN; i++)
		tx->msn[i] = IWTCP_DDP_MSN_INIT;
	/* RFC 6581 9.2: the RTR took the first MSN of its queue */
	if (rtr_sent == IWTCP_MPA_RTR_SEND)
		tx->msn[IWTCP_DDP_QN_SEND]++;
	if (rtr_sent == IWTCP_MPA_RTR_READ)
		tx->msn[IWTCP_DDP_QN_READ_REQ]++;
	/* the transmitter's entries read it with smp_load_acquire() */
	smp_store_release(&qp->tx, tx);
	return 0;
}

/**
 * iwtcp_qp_tx_free() - free the transmit state
 * @qp: the QP, unreachable by any other context
 *
 * Context: process context.
 */
void iwtcp_qp_tx_free(struct iwtcp_qp *qp)
{
	if (!qp->tx)
		return;
	tx_fpdu_release(qp->tx);
	if (qp->tx->pfrag.page)
		put_page(qp->tx->pfrag.page);
	kfree(qp->tx);
	qp->tx = NULL;
}

/**
 * iwtcp_qp_tx_wq_init() - module init of the transmit workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int iwtcp_qp_tx_wq_init(void)
{
	iwtcp_tx_wq = alloc_workqueue("iwtcp_tx", WQ_MEM_RECLAIM | WQ_HIGHPRI,
				      0);
	return iwtcp_tx_wq ? 0 : -ENOMEM;
}

/**
 * iwtcp_qp_tx_wq_exit() - module exit of the transmit workqueue
 *
 * Context: module exit, after every device is gone.
 */
void iwtcp_qp_tx_wq_exit(void)
{
	destroy_workqueue(iwtcp_tx_wq);
}
