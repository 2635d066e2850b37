/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * iwtcp: iWARP (RFC 5040, 5041, 5044, 6581) over in-kernel TCP sockets.
 *
 * The driver's objects. Each embeds its RDMA core object as base_*; the
 * to_iwtcp_*() helpers below are the only way from one to the other.
 */
#ifndef IWTCP_H
#define IWTCP_H

#include <linux/completion.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/if_ether.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "compat.h"
#include "mpa.h"
#include "rdmap.h"

/**
 * enum iwtcp_limit - limits advertised by query_device and enforced
 * @IWTCP_MAX_QP: QPs per device
 * @IWTCP_MAX_QP_WR: work requests per send or receive queue
 * @IWTCP_MAX_SGE: scatter/gather elements per work request (siw ABI bound)
 * @IWTCP_MAX_CQ: CQs per device
 * @IWTCP_MAX_CQE: entries per CQ
 * @IWTCP_MAX_PD: PDs per device
 * @IWTCP_MAX_MR: memory regions per device (STag indices)
 * @IWTCP_MAX_SRQ: SRQs per device
 * @IWTCP_MAX_SRQ_WR: work requests per SRQ
 * @IWTCP_MAX_IRD: inbound RDMA Read requests per QP (RFC 6581 IRD)
 * @IWTCP_MAX_ORD: outbound RDMA Read requests per QP (RFC 6581 ORD)
 * @IWTCP_MAX_FRMR_PAGES: pages per fast-registration MR
 * @IWTCP_MAX_INLINE: inline bytes per send work request (siw ABI bound)
 * @IWTCP_MAX_UCONTEXT: user contexts per device
 *
 * A request above one of these fails with -EINVAL; a request for one
 * more object than the count limits allow fails with -ENOSPC. Queue
 * sizes are rounded up to a power of two, never down.
 */
enum iwtcp_limit {
	IWTCP_MAX_QP = 4096,
	IWTCP_MAX_QP_WR = 4096,
	IWTCP_MAX_SGE = SIW_MAX_SGE,
	IWTCP_MAX_CQ = 4096,
	IWTCP_MAX_CQE = 32768,
	IWTCP_MAX_PD = 4096,
	IWTCP_MAX_MR = 65536,
	IWTCP_MAX_SRQ = 1024,
	IWTCP_MAX_SRQ_WR = 4096,
	IWTCP_MAX_IRD = 128,
	IWTCP_MAX_ORD = 128,
	IWTCP_MAX_FRMR_PAGES = 1024,
	IWTCP_MAX_INLINE = SIW_MAX_INLINE,
	IWTCP_MAX_UCONTEXT = 1024,
};

/* Largest memory region: 64 GiB. */
#define IWTCP_MAX_MR_SIZE (64ULL << 30)

/* QP numbers are 24 bits wide in the verbs. */
#define IWTCP_QPN_MAX 0xffffff

/* The one port of an iwtcp device. */
#define IWTCP_PORT 1

/*
 * What query_device reports as vendor: no IEEE OUI, so three ASCII
 * letters as siw does ("bmt"), here "iwt"; one part, and the driver's
 * version (dkms.conf's PACKAGE_VERSION) as firmware version, which
 * libibverbs shows as MAJOR.MINOR.0.
 */
#define IWTCP_VENDOR_ID 0x697774
#define IWTCP_VENDOR_PART_ID 1
#define IWTCP_VERSION_MAJOR 0
#define IWTCP_VERSION_MINOR 1
#define IWTCP_VERSION __stringify(IWTCP_VERSION_MAJOR) "." \
		      __stringify(IWTCP_VERSION_MINOR)

/**
 * enum iwtcp_stat - per-port counters (stats.c)
 * @IWTCP_STAT_TX_FPDUS: FPDUs (DDP segments) written to TCP
 * @IWTCP_STAT_TX_OCTETS: their octets on the wire, markers and CRC included
 * @IWTCP_STAT_TX_INLINE_FPDUS: FPDUs of them written inline by a kernel
 *	post_send, not by the transmit worker
 * @IWTCP_STAT_TX_DOORBELL_FPDUS: FPDUs of the batches a user QP's send
 *	doorbell finished in its inline run (iwtcp_qp_tx_doorbell()); a
 *	batch TCP took only partly is finished, and counted, by the worker
 * @IWTCP_STAT_RX_FPDUS: FPDUs read from TCP that passed the MPA checks
 * @IWTCP_STAT_RX_OCTETS: their octets on the wire
 * @IWTCP_STAT_RX_CRC_ERRORS: FPDUs whose CRC failed (RFC 5044 4.4)
 * @IWTCP_STAT_RX_MARKER_ERRORS: FPDUs whose markers or length were bad
 *	(RFC 5044 4.2)
 * @IWTCP_STAT_TX_TERMS: TERMINATE messages sent (RFC 5040 4.8)
 * @IWTCP_STAT_RX_TERMS: TERMINATE messages received
 * @IWTCP_STAT_TX_TERMS_RDMAP: of @IWTCP_STAT_TX_TERMS, layer RDMAP
 * @IWTCP_STAT_TX_TERMS_DDP: layer DDP
 * @IWTCP_STAT_TX_TERMS_LLP: layer LLP (MPA), start-up TERMs included
 * @IWTCP_STAT_RX_TERMS_RDMAP: of @IWTCP_STAT_RX_TERMS that parsed, RDMAP
 * @IWTCP_STAT_RX_TERMS_DDP: layer DDP
 * @IWTCP_STAT_RX_TERMS_LLP: layer LLP
 * @IWTCP_STAT_CM_CONNECTS: connects the ULP started (iw_connect)
 * @IWTCP_STAT_CM_REQUESTS: MPA Requests a listener passed to its ULP
 * @IWTCP_STAT_CM_ACCEPTS: accepts whose MPA Reply went out
 * @IWTCP_STAT_CM_ESTABLISHED: connections that reached ESTABLISHED
 * @IWTCP_STAT_CM_REJECTS_SENT: MPA Replies with R set sent (the ULP's
 *	reject, or a Request it could not take)
 * @IWTCP_STAT_CM_REJECTS_RCVD: MPA Replies with R set received
 * @IWTCP_STAT_CM_TIMEOUTS: start-up steps that ran out of time
 *	(mpa_timeout, accept_timeout)
 * @IWTCP_STAT_MPA_BAD_FRAMES: MPA Requests or Replies that did not parse
 *	(RFC 5044 7.1)
 * @IWTCP_STAT_MPA_INSUFF_IRD: start-ups ended with TERM 0x06 (RFC 6581 8)
 * @IWTCP_STAT_MPA_NO_RTR: start-ups ended with TERM 0x07, no matching RTR
 * @IWTCP_STAT_MPA_CATASTROPHIC: start-ups ended with TERM 0x05
 * @IWTCP_NR_STATS: the number of counters
 */
enum iwtcp_stat {
	IWTCP_STAT_TX_FPDUS,
	IWTCP_STAT_TX_OCTETS,
	IWTCP_STAT_TX_INLINE_FPDUS,
	IWTCP_STAT_TX_DOORBELL_FPDUS,
	IWTCP_STAT_RX_FPDUS,
	IWTCP_STAT_RX_OCTETS,
	IWTCP_STAT_RX_CRC_ERRORS,
	IWTCP_STAT_RX_MARKER_ERRORS,
	IWTCP_STAT_TX_TERMS,
	IWTCP_STAT_RX_TERMS,
	IWTCP_STAT_TX_TERMS_RDMAP,
	IWTCP_STAT_TX_TERMS_DDP,
	IWTCP_STAT_TX_TERMS_LLP,
	IWTCP_STAT_RX_TERMS_RDMAP,
	IWTCP_STAT_RX_TERMS_DDP,
	IWTCP_STAT_RX_TERMS_LLP,
	IWTCP_STAT_CM_CONNECTS,
	IWTCP_STAT_CM_REQUESTS,
	IWTCP_STAT_CM_ACCEPTS,
	IWTCP_STAT_CM_ESTABLISHED,
	IWTCP_STAT_CM_REJECTS_SENT,
	IWTCP_STAT_CM_REJECTS_RCVD,
	IWTCP_STAT_CM_TIMEOUTS,
	IWTCP_STAT_MPA_BAD_FRAMES,
	IWTCP_STAT_MPA_INSUFF_IRD,
	IWTCP_STAT_MPA_NO_RTR,
	IWTCP_STAT_MPA_CATASTROPHIC,
	IWTCP_NR_STATS
};

/* One CPU's slots of a device's counters. */
struct iwtcp_stats {
	u64 v[IWTCP_NR_STATS];
};

/**
 * struct iwtcp_counter - the slots of one RDMA core counter (stats.c)
 * @stats: per-CPU slots; the QPs bound to the counter count here, not
 *	in their device's
 *
 * Allocated at the counter's first bind, freed by counter_dealloc after
 * an RCU grace period: the data path reads a QP's @counter under RCU.
 */
struct iwtcp_counter {
	struct iwtcp_stats __percpu *stats;
};

/**
 * struct iwtcp_device - one RDMA device bound to one netdev
 * @base_dev: RDMA core device; ib_dealloc_device() frees this struct
 * @mac_lock: serialises @mac
 * @mac: netdev hardware address, source of the GID; the node GUID is
 *	derived from it once, at creation, and stays
 * @qp_xa: QP number -> &struct iwtcp_qp, for iw_get_qp and the data path
 * @mem_xa: STag index -> &struct iwtcp_mr
 * @num_ctx: user contexts, against %IWTCP_MAX_UCONTEXT
 * @num_pd: PDs, against %IWTCP_MAX_PD
 * @num_cq: CQs, against %IWTCP_MAX_CQ
 * @num_qp: QPs, against %IWTCP_MAX_QP
 * @num_srq: SRQs, against %IWTCP_MAX_SRQ
 * @num_mr: MRs, against %IWTCP_MAX_MR
 * @settings_lock: serialises @settings
 * @settings: MPA start-up choices of new connections (settings.c)
 * @stats: the counters, per CPU, from iwtcp_stats_init() until
 *	dealloc_driver (stats.c)
 * @counters: RDMA core counter id -> &struct iwtcp_counter (stats.c)
 * @registrar: the task in ib_register_device() for this device, else
 *	NULL; rdma_cm extends its wildcard listeners from it (cm.c)
 * @list: on main.c's iwtcp_devices, which holds a device reference,
 *	from just before registration until newlink or module exit drops
 *	it; under iwtcp_devices_lock
 * @dead: dealloc_driver ran: the next newlink drops the entry; under
 *	iwtcp_devices_lock
 *
 * The netdev is never cached here: the RDMA core holds it for the port
 * (ib_device_set_netdev()) and code that needs it takes its own reference
 * with ib_device_get_netdev() (iwtcp_compat_get_netdev()), so an
 * unregistered netdev is never used.
 */
struct iwtcp_device {
	struct ib_device base_dev;
	/* serialises mac */
	spinlock_t mac_lock;
	u8 mac[ETH_ALEN];
	struct xarray qp_xa;
	struct xarray mem_xa;
	atomic_t num_ctx;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;
	/* serialises settings */
	struct mutex settings_lock;
	struct iwtcp_mpa_settings settings;
	struct iwtcp_stats __percpu *stats;
	struct xarray counters;
	struct task_struct *registrar;
	struct list_head list;
	bool dead;
};

struct iwtcp_ucontext {
	struct ib_ucontext base_ucontext;
};

struct iwtcp_pd {
	struct ib_pd base_pd;
};

/**
 * struct iwtcp_mmap_entry - a ring shared with user space
 * @rdma_entry: RDMA core entry; its reference count decides the lifetime
 * @vaddr: vmalloc_user() memory, freed by iwtcp_mmap_free() when the
 *	driver object and every user mapping have dropped their reference
 */
struct iwtcp_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	void *vaddr;
};

/**
 * struct iwtcp_ring - a queue in the siw ABI layout (SQ, RQ, SRQ or CQ)
 * @queue: the elements, followed by @extra bytes (the CQ control word)
 * @size: number of elements, a power of two
 * @put: producer index (private to its side)
 * @get: consumer index (private to its side)
 * @entry: for user objects the mmap entry owning @queue, else NULL
 */
struct iwtcp_ring {
	void *queue;
	u32 size;
	u32 put;
	u32 get;
	struct iwtcp_mmap_entry *entry;
};

/**
 * struct iwtcp_cq - completion queue
 * @base_cq: RDMA core CQ
 * @lock: serialises producers (flush, data path) and kernel poll_cq
 * @ring: &struct siw_cqe elements, then a &struct siw_cq_ctrl
 * @ctrl: the arming word after the elements; written by user space too
 * @id: random id reported to user space
 * @overflowed: a completion was lost; the CQ is in error (under @lock)
 * @deferred: CQ_DEFER_* bits: what @defer_work is to call
 * @defer_work: calls the completion or event handler that became due
 *	inside a kernel post_send (cq.c)
 */
struct iwtcp_cq {
	struct ib_cq base_cq;
	/* serialises producers and kernel poll_cq */
	spinlock_t lock;
	struct iwtcp_ring ring;
	struct siw_cq_ctrl *ctrl;
	u32 id;
	bool overflowed;
	unsigned long deferred;
	struct irq_work defer_work;
};

/**
 * struct iwtcp_srq - shared receive queue
 * @base_srq: RDMA core SRQ
 * @lock: serialises kernel post_srq_recv and consumers
 * @ring: &struct siw_rqe elements
 * @max_sge: SGEs per receive work request
 * @limit: armed low-water mark (0: not armed)
 */
struct iwtcp_srq {
	struct ib_srq base_srq;
	/* serialises kernel post_srq_recv and consumers */
	spinlock_t lock;
	struct iwtcp_ring ring;
	u32 max_sge;
	u32 limit;
};

struct iwtcp_cep;
struct iwtcp_tx;
struct iwtcp_rx;

/*
 * Bits of &iwtcp_qp.tx_flags (qp_tx.c): IWTCP_TX_BUSY while a context runs
 * the transmitter, IWTCP_TX_AGAIN when another asked for a run meanwhile.
 */
enum {
	IWTCP_TX_BUSY,
	IWTCP_TX_AGAIN,
};

/**
 * enum iwtcp_qp_state - QP states of the RDMAC/iWARP verbs
 * @IWTCP_QP_IDLE: no connection (IB RESET, INIT and RTR map here)
 * @IWTCP_QP_RTS: connected, data moves
 * @IWTCP_QP_CLOSING: orderly close in progress
 * @IWTCP_QP_TERMINATE: TERMINATE sent or received, connection going down
 * @IWTCP_QP_ERROR: all work flushed; only destroy or reset follow
 * @IWTCP_QP_NUM_STATES: number of states
 */
enum iwtcp_qp_state {
	IWTCP_QP_IDLE,
	IWTCP_QP_RTS,
	IWTCP_QP_CLOSING,
	IWTCP_QP_TERMINATE,
	IWTCP_QP_ERROR,
	IWTCP_QP_NUM_STATES
};

/**
 * struct iwtcp_sq_slot - what the driver keeps of one SQ element while
 *	it is being executed, so that completions leave in posting order
 * @id: work request id
 * @bytes: octets of the message
 * @opcode: &enum siw_opcode
 * @status: &enum siw_wc_status once @done
 * @signalled: a successful completion is reported
 * @done: executed (sent, or its Read Response arrived)
 */
struct iwtcp_sq_slot {
	u64 id;
	u32 bytes;
	u8 opcode;
	u8 status;
	bool signalled;
	bool done;
};

/**
 * struct iwtcp_orq_entry - one outbound RDMA Read (RFC 5040 5.1, ORD)
 * @sq_idx: the SQ index it completes; IWTCP_ORQ_RTR for the Read RTR
 * @sink_stag: local STag the Read Response must target
 * @sink_to: its tagged offset, octets
 * @len: octets requested
 * @got: octets of Read Response placed so far
 * @inval: invalidate @sink_stag when complete (Read with local invalidate)
 */
struct iwtcp_orq_entry {
	u32 sq_idx;
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	u32 got;
	bool inval;
};

#define IWTCP_ORQ_RTR U32_MAX

struct iwtcp_mr;

/**
 * struct iwtcp_irq_entry - one inbound RDMA Read Request (RFC 5040 5.1,
 *	IRD), checked, waiting for its Read Response
 * @src_stag: source STag; looked up again for each Read Response FPDU,
 *	so that no MR reference waits on a peer that does not read
 * @src_to: source tagged offset, octets
 * @sink_stag: the peer's STag the response targets
 * @sink_to: its tagged offset, octets
 * @len: octets to send
 */
struct iwtcp_irq_entry {
	u32 src_stag;
	u64 src_to;
	u32 sink_stag;
	u64 sink_to;
	u32 len;
};

/**
 * struct iwtcp_qp - reliable connected queue pair
 * @base_qp: RDMA core QP; the core frees it after destroy_qp returns
 * @ref: references: creation (dropped by destroy_qp), iw_cm (iw_add_ref),
 *	lookups by QP number, and the queued transmit work
 * @released: completed by the last put; destroy_qp waits for it
 * @state_lock: serialises state transitions (taken with irqsave)
 * @state: current state; written under @state_lock, read with READ_ONCE
 * @ib_state: the IB state last set by modify_qp (RESET, INIT, RTR, ...)
 * @sq_lock: serialises the send queue (post_send, flush, completion)
 * @rq_lock: serialises the receive queue (post_recv, flush, receive)
 * @place_lock: serialises placement into a receive's or a Read's buffers
 *	(receive) against the flush that completes them (taken with _bh)
 * @sq: &struct siw_sqe elements
 * @rq: &struct siw_rqe elements; unused when @srq is set
 * @srq: shared receive queue or NULL
 * @max_send_sge: SGEs per send work request
 * @max_recv_sge: SGEs per receive work request
 * @max_inline: inline bytes per send work request
 * @sig_all: every send work request is signalled
 * @ord: outbound RDMA Read limit (RFC 6581 ORD)
 * @ird: inbound RDMA Read limit (RFC 6581 IRD)
 * @access: remote access rights granted by modify_qp (IB_ACCESS_REMOTE_*)
 * @cep: the connection endpoint, with a reference, from connect or accept
 *	until the connection ends (under @state_lock)
 * @sq_slots: one per @sq element (qp_tx.c)
 * @sq_tx: next SQ index to execute; elements from sq.get up to here are
 *	executing or done (under @sq_lock)
 * @sk: the connection's TCP socket, held (sock_hold) from the moment the
 *	QP enters RTS until it is destroyed; the endpoint owns the socket
 * @tx: transmit state, owned by the transmitter (qp_tx.c); set once, with
 *	smp_store_release(), before the QP enters RTS
 * @tx_flags: IWTCP_TX_BUSY while a context runs the transmitter,
 *	IWTCP_TX_AGAIN when another asked for a run meanwhile (qp_tx.c)
 * @tx_work: runs the transmitter; holds a QP reference while queued
 * @ev_deferred: bit N: event N is due from @ev_work
 * @ev_work: reports events that became due inside a kernel post_send
 * @rx_work: runs receive; holds a QP reference while queued
 * @rx: receive state, owned by the holder of the socket lock (qp_rx.c)
 * @orq_lock: serialises @orq between transmit and receive
 * @orq: outstanding outbound Reads, @ord (at least 1) of them
 * @orq_size: entries in @orq
 * @orq_put: producer index (transmit)
 * @orq_get: consumer index (receive)
 * @irq_lock: serialises @irq between receive and transmit
 * @irq: inbound Read Requests, @ird (at least 1) of them
 * @irq_size: entries in @irq
 * @irq_put: producer index (receive)
 * @irq_get: consumer index (transmit)
 * @term: the TERMINATE to send, valid in IWTCP_QP_TERMINATE (set under
 *	@state_lock by whoever moved the QP there)
 * @counter: the slots of the RDMA core counter the QP is bound to, NULL
 *	for its device's; set by stats.c under the counter's mutex, read
 *	under RCU by the data path (iwtcp_qp_stat_add())
 * @term_status: completion status for the oldest outstanding work
 * @tx_hold: nothing may be sent until the first FPDU arrived (RFC 5044
 *	7.1.2 rule 4); cleared by receive (READ_ONCE/WRITE_ONCE)
 * @rx_seen: Sends received (receive WRs completed), counted under
 *	@rq_lock (WRITE_ONCE), read by the user doorbell
 *	(iwtcp_qp_tx_doorbell())
 * @tx_db_seen: @rx_seen at the doorbell's last run of the transmitter
 */
struct iwtcp_qp {
	struct ib_qp base_qp;
	struct kref ref;
	struct completion released;
	/* serialises state transitions */
	spinlock_t state_lock;
	enum iwtcp_qp_state state;
	enum ib_qp_state ib_state;
	/* serialises the send queue */
	spinlock_t sq_lock;
	/* serialises the receive queue */
	spinlock_t rq_lock;
	/* serialises placement against the flush of ERROR */
	spinlock_t place_lock;
	struct iwtcp_ring sq;
	struct iwtcp_ring rq;
	struct iwtcp_srq *srq;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	bool sig_all;
	u32 ord;
	u32 ird;
	int access;
	struct iwtcp_cep *cep;
	struct iwtcp_sq_slot *sq_slots;
	u32 sq_tx;
	struct sock *sk;
	struct iwtcp_tx *tx;
	unsigned long tx_flags;
	struct work_struct tx_work;
	unsigned long ev_deferred;
	struct irq_work ev_work;
	struct work_struct rx_work;
	struct iwtcp_rx *rx;
	/* serialises the ORQ */
	spinlock_t orq_lock;
	struct iwtcp_orq_entry *orq;
	u32 orq_size;
	u32 orq_put;
	u32 orq_get;
	/* serialises the IRQ */
	spinlock_t irq_lock;
	struct iwtcp_irq_entry *irq;
	u32 irq_size;
	u32 irq_put;
	u32 irq_get;
	struct iwtcp_rdmap_term term;
	struct iwtcp_counter __rcu *counter;
	u8 term_status;
	bool tx_hold;
	u32 rx_seen;
	u32 tx_db_seen;
};

/**
 * enum iwtcp_mr_type - what backs a memory region
 * @IWTCP_MR_DMA: all kernel memory (get_dma_mr)
 * @IWTCP_MR_USER: pinned user memory (reg_user_mr, ib_umem)
 * @IWTCP_MR_FAST: page list filled by map_mr_sg, validated by IB_WR_REG_MR
 */
enum iwtcp_mr_type {
	IWTCP_MR_DMA,
	IWTCP_MR_USER,
	IWTCP_MR_FAST,
};

/**
 * struct iwtcp_mr - memory region and its STag (RFC 5040 2.1)
 * @base_mr: RDMA core MR; lkey == rkey == STag
 * @ref: references: creation (dropped by dereg_mr) and data path lookups
 * @released: completed by the last put; dereg_mr waits for it
 * @type: what backs the region
 * @valid: STag valid; fast-registration MRs start invalid (set with
 *	smp_store_release(), checked with smp_load_acquire(): locking.h)
 * @access: IB_ACCESS_* rights granted at registration or fast
 *	registration
 * @umem: pinned user pages (%IWTCP_MR_USER)
 * @upages: the pages of @umem in order, @nupages of them
 * @nupages: see @upages
 * @pages: page addresses (%IWTCP_MR_FAST), @max_pages of them; kernel
 *	virtual addresses, since the device uses virtual DMA
 * @npages: pages currently mapped by map_mr_sg
 * @max_pages: size of @pages
 * @rcu: frees the struct after lookups that may still see it
 */
struct iwtcp_mr {
	struct ib_mr base_mr;
	struct kref ref;
	struct completion released;
	enum iwtcp_mr_type type;
	bool valid;
	int access;
	struct ib_umem *umem;
	struct page **upages;
	unsigned long nupages;
	u64 *pages;
	u32 npages;
	u32 max_pages;
	struct rcu_head rcu;
};

static inline struct iwtcp_device *to_iwtcp_dev(struct ib_device *base_dev)
{
	return container_of(base_dev, struct iwtcp_device, base_dev);
}

/* Count @n for counter @i of @dev; any context (this_cpu_add()). */
static inline void iwtcp_stat_add(struct iwtcp_device *dev,
				  enum iwtcp_stat i, u64 n)
{
	this_cpu_add(dev->stats->v[i], n);
}

/* Count for @qp: in its bound counter, else in its device (any context). */
static inline void iwtcp_qp_stat_add(struct iwtcp_qp *qp, enum iwtcp_stat i,
				     u64 n)
{
	struct iwtcp_stats __percpu *s;
	struct iwtcp_counter *c;

	rcu_read_lock();
	c = rcu_dereference(qp->counter);
	s = c ? c->stats : to_iwtcp_dev(qp->base_qp.device)->stats;
	this_cpu_add(s->v[i], n);
	rcu_read_unlock();
}

static inline struct iwtcp_ucontext *
to_iwtcp_ucontext(struct ib_ucontext *base_ucontext)
{
	return container_of(base_ucontext, struct iwtcp_ucontext,
			    base_ucontext);
}

static inline struct iwtcp_pd *to_iwtcp_pd(struct ib_pd *base_pd)
{
	return container_of(base_pd, struct iwtcp_pd, base_pd);
}

static inline struct iwtcp_cq *to_iwtcp_cq(struct ib_cq *base_cq)
{
	return container_of(base_cq, struct iwtcp_cq, base_cq);
}

static inline struct iwtcp_srq *to_iwtcp_srq(struct ib_srq *base_srq)
{
	return container_of(base_srq, struct iwtcp_srq, base_srq);
}

static inline struct iwtcp_qp *to_iwtcp_qp(struct ib_qp *base_qp)
{
	return container_of(base_qp, struct iwtcp_qp, base_qp);
}

static inline struct iwtcp_mr *to_iwtcp_mr(struct ib_mr *base_mr)
{
	return container_of(base_mr, struct iwtcp_mr, base_mr);
}

static inline struct iwtcp_mmap_entry *
to_iwtcp_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct iwtcp_mmap_entry, rdma_entry);
}

/*
 * Count one more object against a device limit. Returns 0, or -ENOSPC
 * (and leaves the count unchanged) when @limit objects already exist.
 */
static inline int iwtcp_count_get(atomic_t *count, int limit)
{
	return atomic_add_unless(count, 1, limit) ? 0 : -ENOSPC;
}

static inline void iwtcp_count_put(atomic_t *count)
{
	atomic_dec(count);
}

#endif /* IWTCP_H */
