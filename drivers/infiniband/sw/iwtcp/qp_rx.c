// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Receive: FPDUs from the connection's TCP socket, checked (RFC 5044 6,
 * RFC 5041 7.1, RFC 5040 7.2) and placed (RFC 5041 5, RFC 5040 5).
 */

/**
 * DOC: Receive
 *
 * Receive runs through tcp_read_sock() under the socket lock, which
 * serialises it, in one of two places, chosen by the socket's data-ready
 * callback (iwtcp_qp_rx_ready()):
 * - Little unread (at most RX_INLINE_MAX octets, the socket not owned by
 *   a process): right there, in TCP's softirq under the socket's
 *   spinlock. A message waits for no wake-up: latency-bound traffic
 *   (small Sends, Read Requests, NFS's RPC calls) is served at once.
 * - More (a stream), or a process owns the socket: in a work item of its
 *   own (``rx_work`` on the unbound iwtcp_rx queue), as the owner of the
 *   socket lock (lock_sock()), at most RX_BUDGET octets a run. TCP's
 *   softirq then no longer carries the CRC check and the placement: they
 *   run on whichever CPU is free (on veth, where the receive softirq runs
 *   in the sender's context, beside the sender rather than in it). The
 *   kernel's other TCP ULPs receive so (nvme-tcp's io_work, sunrpc's
 *   receive on xprtiod).
 * Segments that arrive while a process owns the socket wait in its
 * backlog; release_sock() processes them and calls the data-ready
 * callback, which queues the work. The start of the data path queues it
 * for what arrived before. Measured in iwtcp-performance.rst ("receive
 * inline or in the work item"); RX_INLINE_MAX itself was not tuned.
 *
 * An FPDU is processed only when all of it is in the socket's receive
 * queue (its ULPDU_Length gives its size; the read of it brings the DDP
 * and RDMAP headers along): first its CRC is computed over the socket
 * buffers and its markers checked (RFC 5044 4.3, 4.4, 6), then its DDP
 * and RDMAP headers are checked, and only then is its payload copied from
 * the socket buffers straight into the target pages: no octet of a bad
 * FPDU is placed, and placement is the one copy. A target STag is looked
 * up once per tcp_read_sock() call (iwtcp_mem_cached()) and checked for
 * each FPDU. fpdu.c's receive framer (iwtcp_fpdu_rx_begin(), _check(),
 * _hdr(), _visit()), the code the host unit tests run, does all of this
 * over the socket buffers through rx_visit(); placement visits a
 * segment's payload once (once per SGE of a Send's receive) with
 * iwtcp_mem_place(), which copies it on into the target's pages. The
 * CRC pass and the copy
 * read the same FPDU back to back, so the copy finds its octets in the
 * cache; a single pass would place octets before their CRC is known,
 * which RFC 5044 6 forbids ("MUST first verify the FPDU before passing
 * the ULPDU to DDP": a bit error in an STag could otherwise steer a write
 * into another buffer).
 * An FPDU spanning several socket buffers is handled from the first one;
 * its remaining octets are then only consumed.
 *
 * Any error moves the QP to TERMINATE with the TERM cause of RFC 5040
 * 4.8; the transmitter sends the TERMINATE and moves the QP to ERROR.
 * From then on received octets are consumed and dropped, so that the
 * socket closes with a FIN behind the TERMINATE rather than a reset.
 */
#include <linux/bitfield.h>
#include <linux/highmem.h>
#include <linux/sizes.h>
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

/* octets of ULPDU header copied out: untagged DDP and a Terminate */
#define RX_HDR_MAX	(sizeof(struct iwtcp_ddp_untagged_hdr) + IWTCP_TERM_HDR_MAX)

/**
 * struct rx_frag_cursor - where rx_visit_skb() read last
 * @skb: the buffer whose page fragment it read last, or NULL
 * @frag: index of that fragment in @skb
 * @start: octets of @skb's fragments before it
 * @seq: sequence number of the first octet of the piece it read last (a
 *	buffer's linear data or one of its fragments, less any octets an
 *	earlier buffer holds too), which need not be in @skb
 * @len: octets of that piece; 0 if none is mapped for the CPU as a whole,
 *	or an earlier buffer holds all of it
 * @va: where it is mapped
 *
 * Two caches of the last read. A read of @skb's fragments starts at
 * @frag, not at the first: the FPDUs of a buffer come front to back
 * (each is read a few times: ULPDU_Length and header, the CRC pass,
 * placement), and a buffer TCP coalesced holds up to MAX_SKB_FRAGS
 * fragments. A read that falls inside @seq/@len (most do: a fragment
 * holds many FPDUs) goes straight to @va, with no buffer looked up.
 *
 * Valid during one rx_actor() call, which resets it: tcp_read_sock()
 * frees buffers only between calls, and nothing under rx_actor() changes
 * the receive queue (the socket is locked; transmit, close and a ULP's
 * post_send from a completion handler are deferred to work items, so
 * neither the backlog nor TCP's queue collapsing runs meanwhile).
 */
struct rx_frag_cursor {
	const struct sk_buff *skb;
	u32 frag;
	u32 start;
	u32 seq;
	u32 len;
	const u8 *va;
};

/**
 * struct iwtcp_rx - receive state of a connected QP (owner: socket lock)
 * @st: stream offset for markers, markers and CRC in this direction
 * @msn: next expected MSN per untagged queue (RFC 5041 5.1)
 * @skip: octets of an FPDU already processed, still in the socket
 * @dead: an error or the close ended the stream; octets are dropped
 * @rqe_owned: @rqe holds the receive of the Send in progress; changed
 *	only under the QP's receive queue lock, since a flush completes it
 *	(under place_lock too); receive reads it with READ_ONCE(), and
 *	under place_lock while it places
 * @rqe: that receive work request, copied from the RQ or SRQ
 * @rqe_len: octets its SGEs hold
 * @mrc: the MR placement last used, during one tcp_read_sock() call
 * @cur: where rx_visit_skb() read last, during one rx_actor() call
 * @batch_fpdus: FPDUs of the current tcp_read_sock(), verified; counted
 *	(and traced: trace_iwtcp_rx_batch) once it returns, not per FPDU
 * @batch_octets: their wire octets
 * @budget: wire octets after which the current tcp_read_sock() stops
 */
struct iwtcp_rx {
	struct iwtcp_fpdu_stream st;
	u32 msn[IWTCP_DDP_NR_QN];
	u32 skip;
	bool dead;
	bool rqe_owned;
	struct siw_rqe rqe;
	u32 rqe_len;
	struct iwtcp_mem_cache mrc;
	struct rx_frag_cursor cur;
	u32 batch_fpdus;
	u32 batch_octets;
	u32 budget;
};

/*
 * Wire octets one run of the receive work verifies and places before it
 * queues itself again: bottom halves come back on, and TCP's backlog is
 * processed, at least this often (about 2.5 ms under TCG with CRC on,
 * microseconds on real x86).
 */
#define RX_BUDGET	SZ_256K

/*
 * Unread octets up to which the data-ready callback receives in the
 * softirq itself: a few small messages, never a stream's burst (veth and
 * GRO hand TCP up to 64 KiB at once).
 */
#define RX_INLINE_MAX	SZ_16K

/*
 * One FPDU in the receive queue: the TCP stream from sequence number @seq
 * on, which is in @skb (the buffer tcp_read_sock() handed over). The
 * buffers behind @skb are found by sequence number, never read back to
 * back: TCP queues a segment that is partly old whole (tcp_data_queue(),
 * after a retransmission that cut the stream differently, and
 * tcp_ofo_queue()), so a buffer may begin before the one ahead of it ends,
 * even before it begins; buffer ends only grow along the queue.
 * tcp_read_sock() hands the actor each buffer from the right offset the
 * same way.
 */
struct rx_fpdu {
	struct iwtcp_qp *qp;
	struct sock *sk;
	struct sk_buff *skb;
	u32 seq;
	struct sk_buff *hint;	/* rx_locate(): the buffer found last */
	u32 hint_from;	/* from here on @hint is the first buffer holding an octet */
	struct iwtcp_fpdu_source src;	/* rx_visit() over these buffers */
	struct iwtcp_fpdu_rx r;	/* the FPDU: layout, ULPDU_Length */
	struct iwtcp_ddp_hdr h;
	u8 hdr[RX_HDR_MAX];
	u32 content;	/* placement: next FPDU content octet to copy */
};

static struct sk_buff *rx_next(struct rx_fpdu *f, struct sk_buff *skb)
{
	return skb_peek_next(skb, &f->sk->sk_receive_queue);
}

/*
 * The buffer and offset holding wire octet @pos of the FPDU, or NULL. An
 * octet that two buffers hold (a segment queued partly old) is read from
 * the first, as tcp_read_sock() reads it: so the CRC pass and placement
 * read the same copy, whichever buffer an earlier read ended in. Every
 * buffer before @f->hint ends at or before @f->hint_from; the queue holds
 * the stream without a hole, so a buffer beginning after @seq means
 * @seq is not queued at all.
 */
static struct sk_buff *rx_locate(struct rx_fpdu *f, u32 pos, u32 *off)
{
	u32 seq = f->seq + pos, from = f->hint_from, start;
	struct sk_buff *skb = f->hint;

	if (before(seq, from)) {
		skb = f->skb;
		from = TCP_SKB_CB(skb)->seq;
	}
	for (; skb; skb = rx_next(f, skb)) {
		start = TCP_SKB_CB(skb)->seq;
		if (before(from, start))
			from = start;
		if (before(seq, start))
			return NULL;
		if (seq - start < skb->len) {
			f->hint = skb;
			f->hint_from = from;
			*off = seq - start;
			return skb;
		}
		/* octets up to this buffer's end are read from it or before */
		if (after(start + skb->len, from))
			from = start + skb->len;
	}
	return NULL;
}

/*
 * rx_visit_skb() of a buffer with a frag_list (GRO past MAX_SKB_FRAGS):
 * skb_seq_read() follows it. Out of line, as it is rare: the kernel's
 * stack initialisation zeroes @seq at every call that has it in scope.
 */
static noinline int rx_visit_frag_list(struct sk_buff *skb, u32 off, u32 n,
				       iwtcp_fpdu_visit_t fn, void *ctx)
{
	struct skb_seq_state seq;
	u32 copied, p_len;
	const u8 *p;
	int rv = 0;

	skb_prepare_seq_read(skb, off, off + n, &seq);
	for (copied = 0; copied < n && !rv; copied += p_len) {
		p_len = skb_seq_read(copied, &p, &seq);
		if (!p_len) {
			rv = -EFAULT;
			break;
		}
		p_len = min(p_len, n - copied);
		rv = fn(ctx, p, p_len);
	}
	skb_abort_seq_read(&seq);
	return rv;
}

/*
 * Remember the piece of @len octets from sequence number @seq at @va as
 * the one read last, less the octets before @from (an earlier buffer's).
 */
static void rx_cur_piece(struct rx_frag_cursor *cur, u32 seq, u32 len,
			 const u8 *va, u32 from)
{
	u32 cut = before(seq, from) ? from - seq : 0;

	cur->len = cut < len ? len - cut : 0;
	cur->seq = seq + cut;
	cur->va = va + cut;
}

/*
 * @fn over @n octets of @skb from @off: its linear data, then its page
 * fragments, a piece per run a mapping covers (the walk of
 * skb_copy_bits()); a buffer with a frag_list through
 * rx_visit_frag_list(). The fragments are looked for from @cur's when it
 * is in @skb; @cur is left at the last one read, less the octets before
 * sequence number @from, which an earlier buffer holds too. Returns 0,
 * @fn's error, or -EFAULT if @skb holds fewer octets than its len says or
 * fragments the CPU cannot read (devmem).
 */
static int rx_visit_skb(struct sk_buff *skb, u32 off, u32 n,
			iwtcp_fpdu_visit_t fn, void *ctx,
			struct rx_frag_cursor *cur, u32 from)
{
	u32 head = skb_headlen(skb), fsize, len, p_off, p_len, copied, i;
	u32 start = 0;
	struct page *page;
	const u8 *va;
	int rv = 0;

	if (skb_has_frag_list(skb))
		return rx_visit_frag_list(skb, off, n, fn, ctx);
	if (off < head && n) {
		rx_cur_piece(cur, TCP_SKB_CB(skb)->seq, head, skb->data, from);
		len = min(n, head - off);
		rv = fn(ctx, skb->data + off, len);
		n -= len;
		off = head;
	}
	if (rv || !n)
		return rv;
	if (!iwtcp_compat_skb_frags_readable(skb))
		return -EFAULT;
	off -= head;
	i = 0;
	if (cur->skb == skb) {
		i = cur->frag;
		start = cur->start;
		/* an earlier octet of the FPDU (placement after the CRC pass) */
		while (i && off < start)
			start -= skb_frag_size(&skb_shinfo(skb)->frags[--i]);
	}
	off -= start;
	for (; n && !rv && i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];

		fsize = skb_frag_size(frag);
		if (off >= fsize) {
			off -= fsize;
			start += fsize;
			continue;
		}
		cur->skb = skb;
		cur->frag = i;
		cur->start = start;
		/* in the direct map whole, unless highmem or kmap is forced */
		if (skb_frag_must_loop(skb_frag_page(frag)))
			cur->len = 0;
		else
			rx_cur_piece(cur, TCP_SKB_CB(skb)->seq + head + start,
				     fsize, skb_frag_address(frag), from);
		len = min(n, fsize - off);
		skb_frag_foreach_page(frag, skb_frag_off(frag) + off, len, page,
				      p_off, p_len, copied) {
			va = kmap_local_page(page);
			rv = fn(ctx, va + p_off, p_len);
			kunmap_local(va);
			if (rv)
				break;
		}
		n -= len;
		off = 0;
		start += fsize;
	}
	if (!rv && n)
		rv = -EFAULT;	/* @skb is shorter than its len says */
	return rv;
}

/*
 * rx_visit() outside the piece read last: buffer by buffer. Out of line,
 * so that the call inside that piece saves no registers for this walk.
 */
static noinline int rx_visit_bufs(struct rx_fpdu *f, u32 pos, u32 len,
				  iwtcp_fpdu_visit_t fn, void *ctx)
{
	struct sk_buff *skb;
	u32 off, n;
	int rv;

	while (len) {
		skb = rx_locate(f, pos, &off);
		if (!skb)
			return -EAGAIN;
		n = min(len, skb->len - off);
		rv = rx_visit_skb(skb, off, n, fn, ctx, &f->qp->rx->cur,
				  f->hint_from);
		if (rv)
			return rv;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * iwtcp_fpdu_source.visit: @fn over @len wire octets from @pos of the FPDU,
 * a piece per run of linear socket buffer data or mapped page fragment.
 */
static int rx_visit(void *arg, u32 pos, u32 len, iwtcp_fpdu_visit_t fn,
		    void *ctx)
{
	struct rx_fpdu *f = arg;
	const struct rx_frag_cursor *cur = &f->qp->rx->cur;
	u32 d = f->seq + pos - cur->seq;

	/* inside the piece read last: no buffer or fragment to look up */
	if (len && d < cur->len && len <= cur->len - d)
		return fn(ctx, cur->va + d, len);
	return rx_visit_bufs(f, pos, len, fn, ctx);
}

/* ------------------------------------------------------------------ */
/* Placement                                                           */

/*
 * Copy @len payload octets, from FPDU content octet f->content on, to
 * @addr of @mr (range checked): one visit of the socket buffers.
 */
static int rx_place(struct rx_fpdu *f, struct iwtcp_mr *mr, u64 addr, u32 len)
{
	struct iwtcp_mem_cursor c = { .mr = mr, .addr = addr, .left = len };
	int rv = iwtcp_fpdu_rx_visit(&f->r, &f->src, f->content, len,
				     iwtcp_mem_place, &c);

	f->content += len;
	return rv;
}

/*
 * RFC 5044 8: the MPA error of a framer verdict. -EMSGSIZE from
 * iwtcp_fpdu_rx_begin(): a marker could not point back to ULPDU_Length,
 * so the length is bad (4.2). Anything else (a socket buffer that could
 * not be read, a stream offset not a multiple of 4) is iwtcp's own fault.
 */
static u8 rx_mpa_error(int rv)
{
	switch (rv) {
	case -EBADMSG:
		return IWTCP_TERM_MPA_CRC;
	case -EPROTO:
	case -EMSGSIZE:
		return IWTCP_TERM_MPA_MARKER;
	default:
		WARN_ON_ONCE(rv == -EINVAL);
		return IWTCP_TERM_MPA_CATASTROPHIC;
	}
}

/* The segment's payload starts after ULPDU_Length and the DDP header. */
static void rx_payload_start(struct rx_fpdu *f)
{
	f->content = sizeof(struct iwtcp_mpa_fpdu_hdr) + f->h.hdr_len;
}

/*
 * The TERM cause of a failed STag check (mem.c's errno): RFC 5041 7.2
 * tagged buffer errors for tagged segments (Write, Read Response: RFC
 * 5040 7.2 has DDP validate them; missing rights are an invalid STag
 * there), RFC 5040 4.8 remote protection errors for a Read Request's
 * Data Source.
 */
static int rx_prot_error(struct iwtcp_term_cause *cause, int rv, bool rdmap)
{
	u8 ecode;

	if (!rdmap) {
		/* RFC 5041 7.2, tagged buffer errors */
		ecode = rv == -ERANGE ? IWTCP_TERM_DDP_T_BOUNDS :
			rv == -EPERM ? IWTCP_TERM_DDP_T_STAG_STREAM :
			IWTCP_TERM_DDP_T_INV_STAG;
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_TAGGED, ecode);
	}
	ecode = rv == -ERANGE ? IWTCP_TERM_RDMAP_BOUNDS :
		rv == -EACCES ? IWTCP_TERM_RDMAP_ACCESS :
		rv == -EPERM ? IWTCP_TERM_RDMAP_STAG_STREAM :
		IWTCP_TERM_RDMAP_INV_STAG;
	return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
			      IWTCP_TERM_RDMAP_REMOTE_PROT, ecode);
}

/* Place the payload at a tagged buffer, after the checks of RFC 5040 7.2 */
static int rx_place_tagged(struct rx_fpdu *f, u32 stag, u64 to, int access,
			   struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_mr *mr;
	int rv;

	/* RFC 5041 5.2: a zero-length segment's STag and TO are not checked */
	if (!f->h.data_len)
		return 0;
	mr = iwtcp_mem_cached(&qp->rx->mrc, to_iwtcp_dev(qp->base_qp.device),
			      stag);
	if (!mr)
		return rx_prot_error(cause, -ENOENT, false);
	rv = iwtcp_mem_check(mr, stag, qp->base_qp.pd, access, to,
			     f->h.data_len);
	if (rv)
		return rx_prot_error(cause, rv, false);
	rx_payload_start(f);
	if (rx_place(f, mr, to, f->h.data_len))
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
				      IWTCP_TERM_RDMAP_CATASTROPHIC, 0);
	return 0;
}

/*
 * RFC 5040 4.3, 5041 5.2: RDMA Write. Remote access is the STag's to
 * grant (RFC 5040 7.2), not the QP's: rdma_cm leaves the access flags of
 * an active side's QP at 0 on iWARP, as the RNICs ignore them.
 */
static int rx_write(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	return rx_place_tagged(f, f->h.stag, f->h.to, IB_ACCESS_REMOTE_WRITE,
			       cause);
}

/* RFC 5040 4.5: a Read Response segment for the oldest outstanding Read */
static int rx_read_resp(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_orq_entry e;
	unsigned long flags;
	bool done;
	int rv;

	spin_lock_irqsave(&qp->orq_lock, flags);
	if (qp->orq_get == qp->orq_put) {
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
				      IWTCP_TERM_RDMAP_REMOTE_OP,
				      IWTCP_TERM_RDMAP_OPCODE);
	}
	e = qp->orq[qp->orq_get % qp->orq_size];
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	/* RFC 5040 7.2: the response must stay inside what was asked */
	if (f->h.data_len &&
	    (f->h.stag != e.sink_stag || f->h.to != e.sink_to + e.got ||
	     f->h.data_len > e.len - e.got))
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_TAGGED,
				      IWTCP_TERM_DDP_T_BOUNDS);
	/*
	 * The flush of ERROR completes the Read under place_lock, after the
	 * state left RTS: placed under it with the state checked, no octet
	 * lands in the sink after the ULP may have seen that completion.
	 */
	spin_lock_bh(&qp->place_lock);
	if (READ_ONCE(qp->state) != IWTCP_QP_RTS)
		rv = -ECONNRESET;
	else
		rv = rx_place_tagged(f, e.sink_stag, f->h.to,
				     IB_ACCESS_LOCAL_WRITE, cause);
	spin_unlock_bh(&qp->place_lock);
	if (rv)
		return rv;
	e.got += f->h.data_len;
	done = f->h.last;
	if (done && e.got != e.len)
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_TAGGED,
				      IWTCP_TERM_DDP_T_BOUNDS);
	spin_lock_irqsave(&qp->orq_lock, flags);
	if (done)	/* read outside orq_lock by the transmitter */
		WRITE_ONCE(qp->orq_get, qp->orq_get + 1);
	else
		qp->orq[qp->orq_get % qp->orq_size].got = e.got;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	if (!done)
		return 0;
	if (e.inval)
		iwtcp_mem_invalidate(to_iwtcp_dev(qp->base_qp.device),
				     qp->base_qp.pd, e.sink_stag);
	if (e.sq_idx != IWTCP_ORQ_RTR)
		iwtcp_sq_done(qp, e.sq_idx, SIW_WC_SUCCESS);
	/* a Read slot is free, a fence may have lifted */
	iwtcp_qp_tx_kick(qp);
	return 0;
}

/* RFC 5040 4.4: an inbound Read Request, checked, onto the IRQ */
static int rx_read_req(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_irq_entry e = {};
	struct iwtcp_rdmap_read rr;
	struct iwtcp_mr *mr;
	unsigned long flags;
	int rv;

	if (f->h.msn != qp->rx->msn[IWTCP_DDP_QN_READ_REQ])
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_UNTAGGED,
				      IWTCP_TERM_DDP_U_INV_MSN_RANGE);
	if (iwtcp_rdmap_parse_read_req(f->hdr, f->r.ulpdu_len, &rr))
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
				      IWTCP_TERM_RDMAP_REMOTE_OP,
				      IWTCP_TERM_RDMAP_CATASTROPHIC_STREAM);
	/* RFC 5040 7.2: the Data Source checks come before any response */
	if (rr.size) {
		mr = iwtcp_mem_get(to_iwtcp_dev(qp->base_qp.device),
				   rr.src_stag);
		if (!mr)
			return rx_prot_error(cause, -ENOENT, true);
		rv = iwtcp_mem_check(mr, rr.src_stag, qp->base_qp.pd,
				     IB_ACCESS_REMOTE_READ, rr.src_to, rr.size);
		iwtcp_mem_put(mr);
		if (rv)
			return rx_prot_error(cause, rv, true);
	}
	e.src_stag = rr.src_stag;
	e.src_to = rr.src_to;
	e.sink_stag = rr.sink_stag;
	e.sink_to = rr.sink_to;
	e.len = rr.size;
	spin_lock_irqsave(&qp->irq_lock, flags);
	/* RFC 5040 6.1: never more than IRD inbound Reads */
	if (qp->irq_put - qp->irq_get >= qp->ird ||
	    READ_ONCE(qp->state) != IWTCP_QP_RTS) {
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_DDP,
				      IWTCP_TERM_DDP_UNTAGGED,
				      IWTCP_TERM_DDP_U_INV_MSN_NOBUF);
	}
	qp->irq[qp->irq_put++ % qp->irq_size] = e;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	qp->rx->msn[IWTCP_DDP_QN_READ_REQ]++;
	iwtcp_qp_tx_kick(qp);
	return 0;
}

/* Copy the receive at the head of @ring out, if there is one. */
static void rx_pop_rqe(struct iwtcp_qp *qp, struct iwtcp_ring *ring)
{
	struct siw_rqe *rqe = iwtcp_ring_slot(ring, sizeof(*rqe), ring->get);
	struct iwtcp_rx *rx = qp->rx;

	if (READ_ONCE(qp->state) != IWTCP_QP_RTS ||
	    /* pairs with the producer's release of VALID */
	    !(smp_load_acquire(&rqe->flags) & SIW_WQE_VALID))
		return;
	memcpy(&rx->rqe, rqe, sizeof(rx->rqe));
	/* hand the element back only after it was copied */
	smp_store_release(&rqe->flags, 0);
	ring->get++;
	WRITE_ONCE(rx->rqe_owned, true);
}

/*
 * Take the next receive work request from the RQ or the SRQ. @rq_lock
 * (outer) makes taking and owning one step for a concurrent flush.
 */
static bool rx_take_rqe(struct iwtcp_qp *qp)
{
	struct iwtcp_rx *rx = qp->rx;
	unsigned long flags;
	u64 len = 0;
	u32 i;

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->srq) {
		spin_lock(&qp->srq->lock);
		rx_pop_rqe(qp, &qp->srq->ring);
		spin_unlock(&qp->srq->lock);
	} else {
		rx_pop_rqe(qp, &qp->rq);
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (!READ_ONCE(rx->rqe_owned))
		return false;
	if (qp->srq)
		iwtcp_srq_check_limit(qp->srq);
	rx->rqe.num_sge = min_t(u8, rx->rqe.num_sge, SIW_MAX_SGE);
	for (i = 0; i < rx->rqe.num_sge; i++)
		len += rx->rqe.sge[i].length;
	rx->rqe_len = min_t(u64, len, U32_MAX);
	return true;
}

/* Complete the receive of the Send in progress (RFC 5040 5.3). */
static void rx_complete_rqe(struct iwtcp_qp *qp, u8 status, u32 bytes,
			    u32 inval_stag, bool solicited)
{
	struct iwtcp_cq *cq = to_iwtcp_cq(qp->base_qp.recv_cq);
	struct iwtcp_rx *rx = qp->rx;
	struct iwtcp_wc wc = {
		.id = rx->rqe.id,
		.qp = qp,
		.bytes = bytes,
		.inval_stag = inval_stag,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.solicited = solicited,
	};
	unsigned long flags;
	int notify = 0;

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (rx->rqe_owned) {
		WRITE_ONCE(rx->rqe_owned, false);
		/* a Send received: the user doorbell may answer it inline */
		WRITE_ONCE(qp->rx_seen, qp->rx_seen + 1);
		notify = iwtcp_cq_push(cq, &wc);
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (notify > 0)
		iwtcp_cq_notify(cq);
}

/* Place a Send segment into the receive's SGEs from offset MO on. */
static int rx_place_send(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_rx *rx = qp->rx;
	u32 skip = f->h.mo, len = f->h.data_len, n, i;
	struct iwtcp_mr *mr;
	int rv = 0;

	rx_payload_start(f);
	for (i = 0; i < rx->rqe.num_sge && len && !rv; i++) {
		struct siw_sge *sge = &rx->rqe.sge[i];

		if (skip >= sge->length) {
			skip -= sge->length;
			continue;
		}
		n = min(len, sge->length - skip);
		mr = iwtcp_mem_cached(&rx->mrc,
				      to_iwtcp_dev(qp->base_qp.device),
				      sge->lkey);
		if (!mr)
			return -EFAULT;
		rv = iwtcp_mem_check(mr, sge->lkey, qp->base_qp.pd,
				     IB_ACCESS_LOCAL_WRITE, sge->laddr + skip, n);
		if (!rv)
			rv = rx_place(f, mr, sge->laddr + skip, n);
		len -= n;
		skip = 0;
	}
	return rv ? -EFAULT : 0;
}

/* RFC 5040 5.3: the Send's invalidation, before its completion */
static int rx_send_inval(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;

	if (iwtcp_mem_invalidate(to_iwtcp_dev(qp->base_qp.device),
				 qp->base_qp.pd, f->h.inval_stag))
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
				      IWTCP_TERM_RDMAP_REMOTE_PROT,
				      IWTCP_TERM_RDMAP_CANT_INVALIDATE);
	return 0;
}

/* RFC 5040 4.3, 5041 5.3: a Send segment on queue 0 */
static int rx_send(struct rx_fpdu *f, u8 opcode, struct iwtcp_term_cause *cause)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_rx *rx = qp->rx;
	struct iwtcp_ddp_queue q = {
		.msn = rx->msn[IWTCP_DDP_QN_SEND],
		.nr_msn = 1,
	};
	bool inval = opcode == IWTCP_RDMAP_SEND_INV ||
		     opcode == IWTCP_RDMAP_SEND_SE_INV;
	int rv;

	/* RFC 5041 7.1, untagged (2): the MSN first, then a buffer for it */
	if (f->h.msn != q.msn)
		return iwtcp_ddp_check_untagged(&f->h, &q, cause);
	if (!READ_ONCE(rx->rqe_owned) && !rx_take_rqe(qp)) {
		q.nr_msn = 0;
		return iwtcp_ddp_check_untagged(&f->h, &q, cause);
	}
	q.buf_size = rx->rqe_len;
	rv = iwtcp_ddp_check_untagged(&f->h, &q, cause);
	if (rv) {
		rx_complete_rqe(qp, SIW_WC_LOC_LEN_ERR, 0, 0, false);
		return rv;
	}
	/*
	 * The flush of ERROR completes the receive under place_lock: placed
	 * under it, no octet lands in a buffer after the ULP may have seen
	 * that completion; once flushed, the stream is over.
	 */
	spin_lock_bh(&qp->place_lock);
	rv = READ_ONCE(rx->rqe_owned) ? rx_place_send(f, cause) : -ECONNRESET;
	spin_unlock_bh(&qp->place_lock);
	if (rv == -ECONNRESET)
		return rv;
	if (rv) {
		rx_complete_rqe(qp, SIW_WC_LOC_PROT_ERR, 0, 0, false);
		return iwtcp_term_set(cause, IWTCP_TERM_LAYER_RDMAP,
				      IWTCP_TERM_RDMAP_CATASTROPHIC, 0);
	}
	if (!f->h.last)
		return 0;
	rx->msn[IWTCP_DDP_QN_SEND]++;
	if (inval) {
		rv = rx_send_inval(f, cause);
		if (rv) {
			rx_complete_rqe(qp, SIW_WC_REM_INV_REQ_ERR, 0, 0, false);
			return rv;
		}
	}
	rx_complete_rqe(qp, SIW_WC_SUCCESS, f->h.mo + f->h.data_len,
			inval ? f->h.inval_stag : 0,
			opcode == IWTCP_RDMAP_SEND_SE ||
			opcode == IWTCP_RDMAP_SEND_SE_INV);
	return 0;
}

/* RFC 5040 4.8: the peer terminates; report it, no TERMINATE back. */
static void rx_terminate(struct rx_fpdu *f)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_rdmap_term t;
	u8 status = SIW_WC_GENERAL_ERR;

	if (iwtcp_rdmap_parse_term(f->hdr, f->r.ulpdu_len, &t)) {
		iwtcp_stat_term(to_iwtcp_dev(qp->base_qp.device), qp, false, NULL);
	} else {
		iwtcp_stat_term(to_iwtcp_dev(qp->base_qp.device), qp, false, &t);
		trace_iwtcp_term_rx(qp->base_qp.device, qp->base_qp.qp_num, 0,
				    &t);
		ibdev_info_ratelimited(qp->base_qp.device,
				       "QP %u: peer sent TERMINATE layer %u type %u code %#x\n",
				       qp->base_qp.qp_num, t.cause.layer,
				       t.cause.etype, t.cause.ecode);
		if (t.cause.layer == IWTCP_TERM_LAYER_RDMAP &&
		    t.cause.etype == IWTCP_TERM_RDMAP_REMOTE_PROT)
			status = SIW_WC_REM_ACCESS_ERR;
		else if (t.cause.layer == IWTCP_TERM_LAYER_DDP &&
			 t.cause.etype == IWTCP_TERM_DDP_TAGGED)
			status = SIW_WC_REM_ACCESS_ERR;
		else if (t.cause.layer == IWTCP_TERM_LAYER_RDMAP)
			status = SIW_WC_REM_INV_REQ_ERR;
	}
	iwtcp_qp_terminated(qp, status);
}

/* Dispatch a checked segment by opcode (RFC 5040 4.1, Figure 4). */
static int rx_segment(struct rx_fpdu *f, struct iwtcp_term_cause *cause)
{
	u8 opcode = FIELD_GET(IWTCP_RDMAP_OPCODE, f->h.ulp_ctrl);

	switch (opcode) {
	case IWTCP_RDMAP_WRITE:
		return rx_write(f, cause);
	case IWTCP_RDMAP_READ_RESP:
		return rx_read_resp(f, cause);
	case IWTCP_RDMAP_READ_REQ:
		return rx_read_req(f, cause);
	case IWTCP_RDMAP_TERMINATE:
		rx_terminate(f);
		return -ECONNRESET;
	default:
		return rx_send(f, opcode, cause);
	}
}

/* Move the QP to TERMINATE with @cause, quoting the bad segment. */
static void rx_error(struct rx_fpdu *f, const struct iwtcp_term_cause *cause,
		     bool have_hdr)
{
	struct iwtcp_qp *qp = f->qp;
	struct iwtcp_rdmap_term term = { .cause = *cause };
	u8 opcode = FIELD_GET(IWTCP_RDMAP_OPCODE, f->h.ulp_ctrl);

	/* RFC 5040 4.8: the DDP header, and the RDMAP one of a Read Request */
	if (have_hdr && cause->layer != IWTCP_TERM_LAYER_LLP && f->h.hdr_len &&
	    f->r.ulpdu_len >= f->h.hdr_len && f->r.ulpdu_len <= U16_MAX) {
		term.ddp_len = f->h.hdr_len;
		memcpy(term.ddp_hdr, f->hdr, f->h.hdr_len);
		term.seg_len_valid = true;
		term.seg_len = f->r.ulpdu_len;
		if (!f->h.tagged && opcode == IWTCP_RDMAP_READ_REQ &&
		    f->r.ulpdu_len == IWTCP_RDMAP_READ_REQ_LEN) {
			term.rdmap_hdr_valid = true;
			memcpy(term.rdmap_hdr, f->hdr + f->h.hdr_len,
			       sizeof(term.rdmap_hdr));
		}
	}
	ibdev_dbg(qp->base_qp.device, "QP %u: TERM layer %u type %u code %#x\n",
		  qp->base_qp.qp_num, cause->layer, cause->etype, cause->ecode);
	trace_iwtcp_fpdu_rx_error(qp->base_qp.device, qp->base_qp.qp_num,
				  f->seq, f->r.ulpdu_len, cause);
	iwtcp_qp_terminate(qp, &term, SIW_WC_GENERAL_ERR);
}

/*
 * Handle the FPDU starting at @skb/@off. Returns its wire length, 0 if
 * it is not complete in the queue yet, or -errno when the stream ended.
 */
static int rx_fpdu(struct iwtcp_qp *qp, struct sock *sk, struct sk_buff *skb,
		   u32 off)
{
	struct iwtcp_device *dev = to_iwtcp_dev(qp->base_qp.device);
	struct iwtcp_rx *rx = qp->rx;
	struct iwtcp_term_cause cause;
	struct rx_fpdu f = {
		.qp = qp, .sk = sk, .skb = skb,
		.hint = skb, .hint_from = TCP_SKB_CB(skb)->seq,
		.seq = TCP_SKB_CB(skb)->seq + off,
		.src = { .visit = rx_visit, .arg = &f },
	};
	/* @skb is queued, so the queue has a tail: in-order data ends there */
	struct sk_buff *tail = skb_peek_tail(&sk->sk_receive_queue);
	int rv;

	/* what TCP queued in order from this FPDU's first octet on (no FIN) */
	f.src.avail = TCP_SKB_CB(tail)->seq + tail->len - f.seq;

	/* RFC 5044 6: the whole FPDU is there and verified, or nothing */
	rv = iwtcp_fpdu_rx_begin(&f.r, &rx->st, &f.src, f.hdr, sizeof(f.hdr));
	if (rv == -EAGAIN)
		return 0;
	if (!rv)
		rv = iwtcp_fpdu_rx_check(&f.r, &rx->st, &f.src);
	if (rv) {
		iwtcp_term_set(&cause, IWTCP_TERM_LAYER_LLP, IWTCP_TERM_MPA,
			       rx_mpa_error(rv));
		goto err;
	}
	rx->batch_fpdus++;
	rx->batch_octets += f.r.l.wire_len;
	if (iwtcp_fpdu_rx_hdr(&f.r, &f.src, f.hdr,
			      min_t(u32, f.r.ulpdu_len, sizeof(f.hdr)))) {
		iwtcp_term_set(&cause, IWTCP_TERM_LAYER_LLP, IWTCP_TERM_MPA,
			       IWTCP_TERM_MPA_CATASTROPHIC);
		goto err;
	}
	rv = iwtcp_ddp_parse(f.hdr, f.r.ulpdu_len, &f.h, &cause);
	if (rv >= 0)
		rv = iwtcp_rdmap_check(&f.h, &cause);
	if (rv < 0)
		goto err_hdr;
	rv = rx_segment(&f, &cause);
	if (rv == -ECONNRESET)
		return rv;
	if (rv)
		goto err_hdr;
	rx->st.off += f.r.l.wire_len;
	/* RFC 5044 7.1.2 rule 4: a responder sends once it received one */
	if (READ_ONCE(qp->tx_hold)) {
		WRITE_ONCE(qp->tx_hold, false);
		iwtcp_qp_tx_kick(qp);
	}
	return f.r.l.wire_len;

err_hdr:
	rx_error(&f, &cause, true);
	return -EPROTO;
err:
	/* RFC 5044 8: an MPA error */
	iwtcp_stat_mpa_error(dev, qp, cause.ecode);
	rx_error(&f, &cause, false);
	return -EPROTO;
}

/* tcp_read_sock() actor: whole FPDUs, or the rest of one handled earlier */
static int rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
		    unsigned int off, size_t len)
{
	struct iwtcp_qp *qp = desc->arg.data;
	struct iwtcp_rx *rx = qp->rx;
	size_t done = 0;
	int rv;

	/* the buffers read last may be gone (struct rx_frag_cursor) */
	rx->cur.skb = NULL;
	rx->cur.len = 0;
	while (done < len) {
		if (rx->skip) {
			rv = min_t(size_t, rx->skip, len - done);
			rx->skip -= rv;
			done += rv;
			continue;
		}
		if (rx->dead || READ_ONCE(qp->state) != IWTCP_QP_RTS) {
			/* drop: the stream is over (see DOC: Receive) */
			rx->dead = true;
			return len;
		}
		if (rx->batch_octets >= rx->budget) {
			desc->count = 0;	/* tcp_read_sock() stops */
			break;
		}
		rv = rx_fpdu(qp, skb->sk, skb, off + done);
		if (!rv)
			break;
		if (rv < 0) {
			rx->dead = true;
			continue;
		}
		if (rv > len - done) {
			rx->skip = rv - (len - done);
			rv = len - done;
		}
		done += rv;
	}
	return done;
}

/*
 * Receive what the socket holds, up to @budget wire octets; true if the
 * budget stopped it. Context: the socket locked: owned in process
 * context, or its spinlock in softirq (iwtcp_qp_rx_ready()).
 */
static bool qp_rx(struct iwtcp_qp *qp, struct sock *sk, u32 budget)
{
	read_descriptor_t desc = {
		.arg.data = qp,
		.count = 1,
	};

	lockdep_assert(lockdep_sock_is_held(sk));
	if (!qp->rx)
		return false;
	/*
	 * Bottom halves off, as in the softirq this ran in before: the ULP's
	 * handlers called from here keep their context, and a post_send from
	 * one defers to the transmit work instead of waiting for the socket.
	 */
	local_bh_disable();
	iwtcp_sk_held_enter();
	qp->rx->batch_fpdus = 0;
	qp->rx->batch_octets = 0;
	qp->rx->budget = budget;
	tcp_read_sock(sk, &desc, rx_actor);
	iwtcp_mem_cache_drop(&qp->rx->mrc);
	if (qp->rx->batch_fpdus) {
		iwtcp_qp_stat_add(qp, IWTCP_STAT_RX_FPDUS, qp->rx->batch_fpdus);
		iwtcp_qp_stat_add(qp, IWTCP_STAT_RX_OCTETS,
				  qp->rx->batch_octets);
		trace_iwtcp_rx_batch(qp->base_qp.device, qp->base_qp.qp_num,
				     qp->rx->batch_fpdus, qp->rx->batch_octets);
	}
	iwtcp_sk_held_exit();
	local_bh_enable();
	return !desc.count;
}

static struct workqueue_struct *iwtcp_rx_wq;

/**
 * iwtcp_qp_rx_work() - the receive work: receive what the socket holds
 * @work: &iwtcp_qp.rx_work
 *
 * Takes the socket lock as its owner and runs tcp_read_sock() over what
 * the socket holds (RFC 5044 6, RFC 5041 7.1, RFC 5040 7.2 checks; RFC
 * 5041 5 placement), at most RX_BUDGET wire octets of it before it queues
 * itself again, then drops the QP reference iwtcp_qp_rx_kick() took.
 * The QP's sock reference (@sk, held from RTS until iwtcp_destroy_qp())
 * keeps the sock; a work that runs after the endpoint's close (see
 * iwtcp_qp_rx_drain()) drops what it finds.
 *
 * Context: process context (workqueue iwtcp_rx); sleeps in lock_sock().
 */
void iwtcp_qp_rx_work(struct work_struct *work)
{
	struct iwtcp_qp *qp = container_of(work, struct iwtcp_qp, rx_work);
	/* set before the QP reached RTS, before the first kick */
	struct sock *sk = READ_ONCE(qp->sk);
	bool more;

	lock_sock(sk);
	more = qp_rx(qp, sk, RX_BUDGET);
	release_sock(sk);
	if (more)
		iwtcp_qp_rx_kick(qp);
	iwtcp_qp_rem_ref(&qp->base_qp);
}

/**
 * iwtcp_qp_rx_drain() - the last receive of a connection being closed
 * @qp: the QP of an endpoint that closes: the peer closed (called before
 *	the ULP hears of it), or the socket's callbacks were just restored
 *
 * Receives all the socket holds now, as the receive work would (a budget
 * at a time, bottom halves on between them), and ends the stream, which
 * the LLP's close ends (RFC 5040 6.2): a receive work still queued, or a
 * second drain, then drops what it finds. So what the peer sent before
 * it closed is placed before the ULP's DISCONNECT, and not discarded by
 * the close's own read of the socket (cep_sock_discard_rx()), whichever
 * got to the socket first.
 *
 * Context: process context, under the endpoint's mutex; sleeps in
 * lock_sock(). The ULP's handlers are called with bottom halves off.
 */
void iwtcp_qp_rx_drain(struct iwtcp_qp *qp)
{
	struct sock *sk = qp->sk;

	lock_sock(sk);
	/* bottom halves come back on between budgets, as in the work */
	while (qp_rx(qp, sk, RX_BUDGET))
		cond_resched();
	if (qp->rx)
		qp->rx->dead = true;
	release_sock(sk);
}

/**
 * iwtcp_qp_rx_ready() - data arrived: receive it here, or in the work
 * @qp: the QP of the connection, in RTS or later
 * @sk: its socket, locked by the caller
 *
 * Receives in the caller's context when little is unread and no process
 * owns the socket, else queues the receive work (see DOC: Receive).
 *
 * Context: the socket's data-ready callback: softirq under the socket's
 * spinlock, or the owner's release_sock().
 */
void iwtcp_qp_rx_ready(struct iwtcp_qp *qp, struct sock *sk)
{
	lockdep_assert(lockdep_sock_is_held(sk));
	if (!sock_owned_by_user(sk) && tcp_inq(sk) <= RX_INLINE_MAX)
		qp_rx(qp, sk, U32_MAX);
	else
		iwtcp_qp_rx_kick(qp);
}

/**
 * iwtcp_qp_rx_kick() - have the receive work look at the socket
 * @qp: a QP in RTS or later, whose endpoint or running work holds a
 *	reference on it
 *
 * Queues @qp's receive work with a QP reference, unless it is queued
 * already (it then reads what arrived meanwhile too). A work running now
 * is queued again, so no data is left unread.
 *
 * Context: any context; called from the socket's data-ready callback
 * (iwtcp_qp_rx_ready()) and when the data path starts.
 */
void iwtcp_qp_rx_kick(struct iwtcp_qp *qp)
{
	iwtcp_qp_add_ref(&qp->base_qp);
	if (!queue_work(iwtcp_rx_wq, &qp->rx_work))
		iwtcp_qp_rem_ref(&qp->base_qp);
}

/**
 * iwtcp_qp_rx_wq_init() - module init of the receive workqueue
 *
 * Unbound, so that the receive of a connection runs on whichever CPU is
 * free rather than behind the softirq that queued it; WQ_MEM_RECLAIM,
 * since NFS and NVMe-oF write back over it; WQ_HIGHPRI as the transmit
 * workqueue.
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int iwtcp_qp_rx_wq_init(void)
{
	iwtcp_rx_wq = alloc_workqueue("iwtcp_rx", WQ_MEM_RECLAIM | WQ_HIGHPRI |
				      WQ_UNBOUND, 0);
	return iwtcp_rx_wq ? 0 : -ENOMEM;
}

/**
 * iwtcp_qp_rx_wq_exit() - module exit of the receive workqueue
 *
 * Context: module exit, after every device (and so every QP, each of
 * whose destruction waited for its queued work) is gone.
 */
void iwtcp_qp_rx_wq_exit(void)
{
	destroy_workqueue(iwtcp_rx_wq);
}

/**
 * iwtcp_qp_rx_init() - receive state for a new connection
 * @qp: the QP, not yet in RTS
 * @st: the stream after the MPA start-up (markers, CRC, octets received,
 *	the RTR included)
 * @rtr_recv: the RTR this side received (IWTCP_MPA_RTR_*), or 0
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int iwtcp_qp_rx_init(struct iwtcp_qp *qp, const struct iwtcp_fpdu_stream *st,
		     u8 rtr_recv)
{
	struct iwtcp_rx *rx = kzalloc(sizeof(*rx), GFP_KERNEL);
	u32 i;

	if (!rx)
		return -ENOMEM;
	rx->st = *st;
	for (i = 0; i < IWTCP_DDP_NR_QN; i++)
		rx->msn[i] = IWTCP_DDP_MSN_INIT;
	/* RFC 6581 9.2: the RTR took the first MSN of its queue */
	if (rtr_recv == IWTCP_MPA_RTR_SEND)
		rx->msn[IWTCP_DDP_QN_SEND]++;
	if (rtr_recv == IWTCP_MPA_RTR_READ)
		rx->msn[IWTCP_DDP_QN_READ_REQ]++;
	qp->rx = rx;
	return 0;
}

/**
 * iwtcp_qp_rx_flush() - complete the receive of a Send in progress
 * @qp: the QP entering ERROR
 *
 * Context: the flush of ERROR; the caller holds @place_lock (so that no
 * placement into the receive is in progress) and @rq_lock.
 * Return: true if the receive CQ must be notified.
 */
bool iwtcp_qp_rx_flush(struct iwtcp_qp *qp)
{
	struct iwtcp_rx *rx = qp->rx;
	struct iwtcp_wc wc = {
		.qp = qp,
		.opcode = SIW_OP_RECEIVE,
		.status = SIW_WC_WR_FLUSH_ERR,
	};

	lockdep_assert_held(&qp->place_lock);
	lockdep_assert_held(&qp->rq_lock);
	if (!rx || !rx->rqe_owned)
		return false;
	WRITE_ONCE(rx->rqe_owned, false);
	wc.id = rx->rqe.id;
	return iwtcp_cq_push(to_iwtcp_cq(qp->base_qp.recv_cq), &wc) > 0;
}
