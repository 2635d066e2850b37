// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iw_cm provider: connection endpoints from listen or connect to close,
 * their sockets, socket callbacks, MPA start-up (RFC 5044 7.1 with the
 * enhanced setup of RFC 6581) and the MPA timer. The protocol decisions
 * are mpa.c's; this file moves bytes and applies them.
 */

/**
 * DOC: Connection endpoint lifetime
 *
 * A connection endpoint (struct iwtcp_cep) is counted by @ref. Holders:
 *
 * * the creation reference, dropped by cep_close() when the endpoint
 *   reaches CLOSED (exactly once, under @lock);
 * * the socket callbacks while @sock carries them (sk_user_data), dropped
 *   after cep_detach_sock() restored the socket's own callbacks under
 *   sk_callback_lock, so no callback can still see the endpoint;
 * * each queued @work and the armed @timer, dropped by the handler or by
 *   the cancel that stopped it;
 * * a child endpoint holds its listener until it is closed;
 * * the iw_cm's provider_data of a connection request, from the
 *   CONNECT_REQUEST event until iw_cm calls accept or reject;
 * * the QP (qp->cep) while the connection runs.
 *
 * Everything that changes an endpoint runs in process context under its
 * mutex @lock: the work handler for socket events and the timer, and the
 * iw_cm ops. Socket callbacks only queue work. Events reach the ULP
 * through cm_id->event_handler, which iw_cm queues; the endpoint holds
 * the cm_id (cm_id->add_ref) from the moment it knows it until the last
 * event, then calls cm_id->rem_ref once. Lock order: a child's lock
 * before its listener's.
 */
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/ipv6.h>

#include "iwtcp.h"
#include "cm.h"
#include "trace.h"
#include "fpdu.h"
#include "mpa.h"
#include "qp.h"
#include "qp_dp.h"
#include "rdmap.h"
#include "settings.h"
#include "stats.h"

static unsigned int mpa_timeout = 10;
module_param(mpa_timeout, uint, 0644);
MODULE_PARM_DESC(mpa_timeout,
		 "seconds to wait for each step of the MPA start-up (default 10)");

static unsigned int accept_timeout = 60;
module_param(accept_timeout, uint, 0644);
MODULE_PARM_DESC(accept_timeout,
		 "seconds a connection request waits for the ULP's accept or reject (default 60)");

/* Largest start-up frame: header and 512 octets of private data. */
#define CM_FRAME_MAX (sizeof(struct iwtcp_mpa_hdr) + IWTCP_MPA_PD_MAX)
/* Largest first FPDU a responder accepts as RTR: a Read Request. */
#define CM_RTR_WIRE_MAX 128

static struct workqueue_struct *iwtcp_cm_wq;
static atomic_t cep_ids = ATOMIC_INIT(0);

/* wildcard listeners of every iwtcp device: see cm_listen_owner() */
static LIST_HEAD(cm_wild_listeners);
static DEFINE_MUTEX(cm_wild_lock);

enum cep_state {
	CEP_LISTENING,
	CEP_CONNECTING,		/* initiator: TCP handshake */
	CEP_AWAIT_REPLY,	/* initiator: Request sent */
	CEP_AWAIT_TERM,		/* initiator: rejected, a TERM may follow */
	CEP_AWAIT_REQUEST,	/* responder: TCP up, Request expected */
	CEP_AWAIT_ACCEPT,	/* responder: ULP decides */
	CEP_AWAIT_RTR,		/* responder: Reply sent, RTR expected */
	CEP_ESTABLISHED,
	CEP_CLOSED,
	CEP_NUM_STATES
};

static const char * const cep_state_name[CEP_NUM_STATES] = {
	[CEP_LISTENING] = "LISTENING",
	[CEP_CONNECTING] = "CONNECTING",
	[CEP_AWAIT_REPLY] = "AWAIT_REPLY",
	[CEP_AWAIT_TERM] = "AWAIT_TERM",
	[CEP_AWAIT_REQUEST] = "AWAIT_REQUEST",
	[CEP_AWAIT_ACCEPT] = "AWAIT_ACCEPT",
	[CEP_AWAIT_RTR] = "AWAIT_RTR",
	[CEP_ESTABLISHED] = "ESTABLISHED",
	[CEP_CLOSED] = "CLOSED",
};

/* The namespace a wildcard listen belongs to: see cm_listen_owner(). */
struct cm_owner {
	u64 net;
	bool known;
};

/**
 * struct iwtcp_cep - connection endpoint (listener or connection)
 * @ref: see "Connection endpoint lifetime"
 * @lock: serialises everything below; process context only
 * @state: where the endpoint is; written under @lock
 * @is_listener: a listening endpoint (fixed at creation)
 * @id: number for log lines (a "created" line has a "destroyed" twin)
 * @dev: the device, held with ib_device_try_get() until the endpoint
 *	closes; not to be used once @state is CLOSED
 * @sock: the TCP socket, owned; NULL once closed
 * @cm_id: the iw_cm endpoint, held with add_ref, or NULL
 * @qp: the QP of the connection, with a reference, or NULL
 * @listener: a child's listener, with a reference, or NULL
 * @work: socket events and ULP close requests
 * @timer: MPA start-up timer
 * @ulp_close: the QP left RTS (disconnect)
 * @ulp_abort: it went to ERROR: the socket closes with a reset, in order
 *	if octets wait for their acknowledgment then (cep_sock_all_acked())
 * @dp: the QP's data path owns the socket's data callbacks (set and
 *	cleared under sk_callback_lock)
 * @tx_st: transmit stream of full operation (RTR, TERM sent here)
 * @rx_st: receive stream of full operation (the RTR received here)
 * @settings: the device's settings, copied when the endpoint started,
 *	with the ULP's IRD and ORD
 * @result: the negotiated outcome
 * @req: the peer's Request (responder), kept for accept
 * @rx: start-up bytes received so far; @rx_len of them
 * @rx_len: see @rx
 * @pd_len: initiator: octets of the ULP's private data, kept at the start
 *	of @rx until a Reply octet arrives (for the unenhanced retry)
 * @rtr: the RTR that went on the wire (sent or received), 0 if none
 * @cred: initiator: the ULP's credentials, for the unenhanced retry's
 *	socket; held until the endpoint is freed
 * @saved_data_ready: the socket's callback before ours
 * @saved_state_change: the socket's callback before ours
 * @saved_write_space: the socket's callback before the data path's
 * @wild_item: a wildcard listener's entry in cm_wild_listeners, under
 *	cm_wild_lock; empty for other endpoints
 * @wild_family: the wildcard listener's address family
 * @wild_port: its port
 * @owner: the network namespace its listen belongs to (cm_listen_owner())
 */
struct iwtcp_cep {
	struct kref ref;
	struct mutex lock;	/* see the DOC above */
	enum cep_state state;
	bool is_listener;
	u32 id;
	struct iwtcp_device *dev;
	struct socket *sock;
	struct iw_cm_id *cm_id;
	struct iwtcp_qp *qp;
	struct iwtcp_cep *listener;
	struct work_struct work;
	struct delayed_work timer;
	bool ulp_close;
	bool ulp_abort;
	bool dp;
	struct iwtcp_fpdu_stream tx_st;
	struct iwtcp_fpdu_stream rx_st;
	struct iwtcp_mpa_settings settings;
	struct iwtcp_mpa_result result;
	struct iwtcp_mpa_frame req;
	u8 rx[CM_FRAME_MAX];
	u32 rx_len;
	u8 pd_len;
	u8 rtr;
	const struct cred *cred;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	struct list_head wild_item;
	sa_family_t wild_family;
	__be16 wild_port;
	struct cm_owner owner;
};

static void cep_release(struct kref *ref)
{
	struct iwtcp_cep *cep = container_of(ref, struct iwtcp_cep, ref);

	WARN_ON_ONCE(cep->sock || cep->cm_id || cep->qp || cep->listener ||
		     !list_empty(&cep->wild_item));
	if (cep->cred)
		put_cred(cep->cred);
	/* The device may be gone: cep_close() dropped its reference. */
	pr_debug("CEP %u destroyed\n", cep->id);
	mutex_destroy(&cep->lock);
	kfree(cep);
}

static void cep_get(struct iwtcp_cep *cep)
{
	kref_get(&cep->ref);
}

/* Context: any context (the last put only frees memory). */
static void cep_put(struct iwtcp_cep *cep)
{
	kref_put(&cep->ref, cep_release);
}

/* The QP bound to @cep's stream, 0 before one is (for tracepoints). */
static u32 cep_qpn(const struct iwtcp_cep *cep)
{
	return cep->qp ? cep->qp->base_qp.qp_num : 0;
}

static void cep_set_state(struct iwtcp_cep *cep, enum cep_state state)
{
	lockdep_assert_held(&cep->lock);
	ibdev_dbg(&cep->dev->base_dev, "CEP %u %s -> %s\n", cep->id,
		  cep_state_name[cep->state], cep_state_name[state]);
	trace_iwtcp_cep_state(&cep->dev->base_dev, cep->id,
			      cep_state_name[cep->state], cep_state_name[state]);
	cep->state = state;
}

/* Queue the work handler with a reference. Context: any context. */
static void cep_queue(struct iwtcp_cep *cep)
{
	cep_get(cep);
	if (!queue_work(iwtcp_cm_wq, &cep->work))
		cep_put(cep);
}

static void cep_timer_arm_for(struct iwtcp_cep *cep, unsigned int seconds)
{
	cep_get(cep);
	if (!mod_delayed_work(iwtcp_cm_wq, &cep->timer, seconds * HZ))
		return;
	/* It was pending already and keeps the reference it had. */
	cep_put(cep);
}

static void cep_timer_arm(struct iwtcp_cep *cep)
{
	cep_timer_arm_for(cep, mpa_timeout);
}

static void cep_timer_stop(struct iwtcp_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		cep_put(cep);
}

/*
 * Socket callbacks: look the endpoint up under sk_callback_lock and
 * queue its work. Context: softirq or process context; the socket is
 * locked, except a listener's (cm_listen_event()), so no assertion.
 */
static void cm_sk_event(struct sock *sk)
{
	struct iwtcp_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		cep_queue(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Data arrived: the QP's receive takes it once the connection runs (here
 * or in its work, iwtcp_qp_rx_ready()), else the endpoint's work handler
 * (start-up frames).
 * Context: softirq or process context, socket locked.
 */
static void cm_sk_data_ready(struct sock *sk)
{
	struct iwtcp_cep *cep;

	lockdep_assert(lockdep_sock_is_held(sk));
	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep && cep->dp)
		iwtcp_qp_rx_ready(cep->qp, sk);
	else if (cep)
		cep_queue(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * TCP freed send buffer space after a write found none (SOCK_NOSPACE):
 * once there is room for a good part of it, as sk_stream_write_space()
 * decides for a process's write, the QP's transmitter goes on. Clearing
 * SOCK_NOSPACE stops the calls for each later ACK until a write runs
 * short again; a kick per ACK woke the worker once per ACK, mostly to
 * find the transmitter busy.
 */
static void cm_sk_write_space(struct sock *sk)
{
	struct iwtcp_cep *cep;

	/* sock_orphan() clears sk_socket under the write lock */
	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep && cep->dp && sk->sk_socket &&
	    __sk_stream_is_writeable(sk, 1)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		iwtcp_qp_tx_kick(cep->qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * The listening socket's callback. Children of the listener inherit it
 * and sk_user_data with it, also children that TCP orphans when the
 * listener closes and that live on after the endpoint is freed: so the
 * socket state is checked first, and only a listening socket's
 * sk_user_data is ever read.
 */
static void cm_listen_event(struct sock *sk)
{
	if (sk->sk_state == TCP_LISTEN)
		cm_sk_event(sk);
}

static void cep_attach_sock(struct iwtcp_cep *cep, struct socket *sock,
			    struct iwtcp_cep *from)
{
	struct sock *sk = sock->sk;

	cep->sock = sock;
	cep_get(cep);	/* the callbacks' reference */
	/*
	 * A kernel post_send may write to the socket from softirq (qp_tx.c):
	 * page fragments must be the socket's own, not the interrupted
	 * task's, as for any socket written from atomic context.
	 */
	sk->sk_use_task_frag = false;
	write_lock_bh(&sk->sk_callback_lock);
	/* A child's callbacks are its listener's; restore the originals. */
	cep->saved_data_ready = from ? from->saved_data_ready :
				       sk->sk_data_ready;
	cep->saved_state_change = from ? from->saved_state_change :
					 sk->sk_state_change;
	cep->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = cep;
	sk->sk_data_ready = cep->is_listener ? cm_listen_event :
					       cm_sk_data_ready;
	sk->sk_state_change = cep->is_listener ? cm_listen_event :
						 cm_sk_event;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Restore the socket's callbacks, then drop the callbacks' reference. */
static void cep_detach_sock(struct iwtcp_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	sk->sk_write_space = cep->saved_write_space;
	cep->dp = false;
	write_unlock_bh(&sk->sk_callback_lock);
	cep_put(cep);
}

/*
 * Hand iw_cm an event. It fails (-ENOMEM) only when iw_cm is out of work
 * items or cannot copy the private data of a CONNECT_REQUEST or
 * CONNECT_REPLY; the event is lost then.
 */
static int cep_event(struct iwtcp_cep *cep, enum iw_cm_event_type type,
		     int status, const void *pd, u8 pd_len)
{
	struct iw_cm_event event = {
		.event = type,
		.status = status,
		.private_data = (void *)pd,
		.private_data_len = pd_len,
	};
	struct iw_cm_id *cm_id = cep->cm_id;

	if (!cm_id)
		return 0;
	/* RFC 6581 9.1: the ULP learns the peer's IRD and ORD. */
	event.ird = min_t(u32, cep->result.enhanced ? cep->result.peer_ird :
			  cep->result.ird, U8_MAX);
	event.ord = min_t(u32, cep->result.enhanced ? cep->result.peer_ord :
			  cep->result.ord, U8_MAX);
	event.local_addr = cm_id->m_local_addr;
	event.remote_addr = cm_id->m_remote_addr;
	return cm_id->event_handler(cm_id, &event);
}

static void cep_drop_cm_id(struct iwtcp_cep *cep)
{
	if (!cep->cm_id)
		return;
	cep->cm_id->provider_data = NULL;
	cep->cm_id->rem_ref(cep->cm_id);
	cep->cm_id = NULL;
}

/* The QP is done with this connection; it drops its reference. */
static void cep_release_qp(struct iwtcp_cep *cep)
{
	struct iwtcp_qp *qp = cep->qp;

	if (!qp)
		return;
	cep->qp = NULL;
	iwtcp_qp_disconnected(qp, cep);
	iwtcp_qp_rem_ref(&qp->base_qp);
}

/*
 * Has the peer acknowledged every octet written to the socket? A Send or
 * Write completes once its last octet is in the socket (DOC: Transmit in
 * qp_tx.c), so a reset while octets wait for their acknowledgment would
 * discard data the ULP saw complete: a peer waiting for the last Send of
 * a ULP that destroyed its QP at once (a lost segment, the reset instead
 * of its retransmission) would see a flush instead of that Send. Those
 * octets go out first: the abort closes in order. Every successful
 * completion came before the flush that preceded this close
 * (qp_set_state()). Read without the socket lock, as SIOCOUTQ does;
 * snd_una first: write_seq, read after it, is never behind it.
 */
static bool cep_sock_all_acked(struct iwtcp_cep *cep)
{
	const struct tcp_sock *tp = tcp_sk(cep->sock->sk);
	u32 una = READ_ONCE(tp->snd_una);

	return READ_ONCE(tp->write_seq) == una;
}

/*
 * Discard what the socket received and nobody read (a partial FPDU,
 * segments after the callbacks moved): TCP resets a connection closed
 * with unread data, which would discard what we still send. At most
 * 1 MiB: a peer that keeps sending gets its reset.
 */
static void cep_sock_discard_rx(struct socket *sock)
{
	struct msghdr msg = {};
	struct kvec iov = {};
	int i;

	for (i = 0; i < 16; i++)
		if (kernel_recvmsg(sock, &msg, &iov, 0, SZ_64K,
				   MSG_DONTWAIT | MSG_TRUNC) <= 0)
			break;
}

/*
 * The one way out: release the socket, stop the timer, leave the QP and
 * the cm_id (if not left before: see initiator_await_term()), drop the
 * creation reference. @event, unless 0, is the last event the ULP sees
 * (CONNECT_REPLY with @status, or CLOSE).
 */
static void cep_close(struct iwtcp_cep *cep, enum iw_cm_event_type event,
		      int status)
{
	lockdep_assert_held(&cep->lock);
	if (cep->state == CEP_CLOSED)
		return;
	cep_set_state(cep, CEP_CLOSED);
	if (cep->sock) {
		bool dp = cep->dp;

		cep_detach_sock(cep);
		/* what the receive work has not read yet is the QP's */
		if (dp)
			iwtcp_qp_rx_drain(cep->qp);
		/*
		 * An abort resets the connection (linger 0) if TCP holds
		 * nothing unacknowledged now, else closes in order; the QP's
		 * transmitter may still hold the sock, and finds it closed.
		 */
		if (READ_ONCE(cep->ulp_abort) && cep_sock_all_acked(cep)) {
			sock_no_linger(cep->sock->sk);
		} else {
			cep_sock_discard_rx(cep->sock);
			kernel_sock_shutdown(cep->sock, SHUT_RDWR);
		}
		sock_release(cep->sock);
		cep->sock = NULL;
	}
	cep_timer_stop(cep);
	cep_release_qp(cep);
	if (event)
		cep_event(cep, event, status, NULL, 0);
	cep_drop_cm_id(cep);
	if (cep->listener) {
		cep_put(cep->listener);
		cep->listener = NULL;
	}
	/*
	 * A closed endpoint no longer pins the device, also when a lost
	 * iw_cm event keeps the struct alive (see responder_got_request()).
	 */
	ib_device_put(&cep->dev->base_dev);
	cep_put(cep);	/* the creation reference */
}

/*
 * A responder's connection failed after the ULP accepted it and before
 * it was established (bad or missing RTR). iw_cm knows only one way out
 * of that state, through ESTABLISHED: so the ULP sees ESTABLISHED with
 * @status, then DISCONNECT and CLOSE, and no FPDU of its ever left.
 */
static void cep_close_accepted(struct iwtcp_cep *cep, int status)
{
	cep_event(cep, IW_CM_EVENT_ESTABLISHED, status, NULL, 0);
	cep_event(cep, IW_CM_EVENT_DISCONNECT, status, NULL, 0);
	cep_close(cep, IW_CM_EVENT_CLOSE, status);
}

static struct iwtcp_cep *cep_alloc(struct iwtcp_device *dev,
				   enum cep_state state);
static void cep_established_work(struct iwtcp_cep *cep);

/*
 * Enter ESTABLISHED and report it. The socket may have changed while the
 * start-up consumed its wakeups (the peer may even have closed): look at
 * it once more now.
 */
static void cep_established(struct iwtcp_cep *cep, enum iw_cm_event_type ev,
			    const void *pd, u8 pd_len)
{
	int rv;

	cep_timer_stop(cep);
	cep_set_state(cep, CEP_ESTABLISHED);
	iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_ESTABLISHED, 1);
	rv = cep_event(cep, ev, 0, pd, pd_len);
	if (rv && ev == IW_CM_EVENT_CONNECT_REPLY) {
		/*
		 * The reply is lost with its private data: rather than leave
		 * the ULP waiting, end the connection and tell it so, in a
		 * reply without private data (nothing for iw_cm to copy).
		 */
		ibdev_warn_ratelimited(&cep->dev->base_dev,
				       "CEP %u: iw_cm refused the CONNECT_REPLY (%d): connection closed\n",
				       cep->id, rv);
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY, rv);
		return;
	}
	cep_established_work(cep);
}

/*
 * Send a start-up frame (Request, Reply, RTR, TERM) whole. MSG_EOR: the
 * first FPDU of full operation starts a TCP segment (RFC 5044 5.1) even
 * when the frame before it is still queued.
 */
static int cep_send(struct iwtcp_cep *cep, const void *buf, size_t len)
{
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR,
	};
	int rv;

	rv = kernel_sendmsg(cep->sock, &msg, &vec, 1, len);
	if (rv < 0)
		return rv;
	/* A fresh connection's send buffer always takes a start-up frame. */
	return rv == len ? 0 : -EAGAIN;
}

/*
 * Receive into @cep->rx up to @want octets in all. Returns 0 when they
 * are there, -EAGAIN when more must come, -ECONNRESET on end of stream,
 * or the socket's error.
 */
static int cep_recv(struct iwtcp_cep *cep, u32 want)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec vec;
	int rv;

	while (cep->rx_len < want) {
		vec.iov_base = cep->rx + cep->rx_len;
		vec.iov_len = want - cep->rx_len;
		rv = kernel_recvmsg(cep->sock, &msg, &vec, 1, vec.iov_len,
				    MSG_DONTWAIT);
		if (rv == 0)
			return -ECONNRESET;
		if (rv < 0)
			return rv;
		cep->rx_len += rv;
	}
	return 0;
}

/* Receive one start-up frame: 0 when complete in @cep->rx, or -errno. */
static int cep_recv_frame(struct iwtcp_cep *cep)
{
	int len, rv;

	rv = cep_recv(cep, sizeof(struct iwtcp_mpa_hdr));
	if (rv)
		return rv;
	len = iwtcp_mpa_frame_len(cep->rx, cep->rx_len);
	if (len < 0)
		return len;
	return cep_recv(cep, len);
}

static int cep_send_frame(struct iwtcp_cep *cep, enum iwtcp_mpa_frame_type t,
			  const struct iwtcp_mpa_frame *f)
{
	u8 buf[CM_FRAME_MAX];
	int len;

	len = iwtcp_mpa_build(t, f, buf, sizeof(buf));
	if (len < 0)
		return len;
	return cep_send(cep, buf, len);
}

/* The first FPDU, framed as negotiated (RFC 5044 4): an RTR or a TERM. */
static int cep_send_fpdu(struct iwtcp_cep *cep, const void *ulpdu, u32 len)
{
	u8 buf[2 * CM_RTR_WIRE_MAX];
	int wire;

	int rv;

	wire = iwtcp_fpdu_build(&cep->tx_st, ulpdu, len, buf, sizeof(buf));
	if (wire < 0)
		return wire;
	rv = cep_send(cep, buf, wire);
	if (!rv) {
		iwtcp_stat_add(cep->dev, IWTCP_STAT_TX_FPDUS, 1);
		iwtcp_stat_add(cep->dev, IWTCP_STAT_TX_OCTETS, wire);
	}
	return rv;
}

/*
 * RFC 6581 8/9: tell the peer why in a TERMINATE (layer LLP, type MPA)
 * before the connection goes. Best effort: the socket may be gone.
 */
static void cep_send_term(struct iwtcp_cep *cep, u8 ecode)
{
	struct iwtcp_rdmap_term term = {
		.cause = {
			.layer = IWTCP_TERM_LAYER_LLP,
			.etype = IWTCP_TERM_MPA,
			.ecode = ecode,
		},
	};
	u8 ulpdu[CM_RTR_WIRE_MAX];
	int len;

	/* The first message on the Terminate queue: MSN 1 (RFC 5041 5.1) */
	len = iwtcp_rdmap_build_term(&term, IWTCP_DDP_MSN_INIT, ulpdu,
				     sizeof(ulpdu));
	if (len > 0 && cep->sock && !cep_send_fpdu(cep, ulpdu, len)) {
		iwtcp_stat_term(cep->dev, NULL, true, &term);
		trace_iwtcp_term_tx(&cep->dev->base_dev, cep_qpn(cep), cep->id,
				    &term);
	}
	/* RFC 6581 8: why the start-up failed, counted by cause */
	if (ecode == IWTCP_TERM_MPA_INSUFF_IRD)
		iwtcp_stat_add(cep->dev, IWTCP_STAT_MPA_INSUFF_IRD, 1);
	else if (ecode == IWTCP_TERM_MPA_NO_RTR)
		iwtcp_stat_add(cep->dev, IWTCP_STAT_MPA_NO_RTR, 1);
	else if (ecode == IWTCP_TERM_MPA_CATASTROPHIC)
		iwtcp_stat_add(cep->dev, IWTCP_STAT_MPA_CATASTROPHIC, 1);
	ibdev_dbg(&cep->dev->base_dev, "CEP %u: TERM LLP/MPA/%#x\n", cep->id,
		  ecode);
}

/* RFC 5044 4.3: full operation starts, markers count from here. */
static void cep_streams_init(struct iwtcp_cep *cep)
{
	cep->tx_st = (struct iwtcp_fpdu_stream){
		.markers = cep->result.markers_tx,
		.crc = cep->result.crc,
		.large = cep->result.large_tx,
	};
	cep->rx_st = (struct iwtcp_fpdu_stream){
		.markers = cep->result.markers_rx,
		.crc = cep->result.crc,
	};
}

/*
 * Hand the connection to the QP: it enters RTS, and its data path takes
 * the socket's data and write-space callbacks, then looks at what
 * arrived already.
 */
static int cep_start_data_path(struct iwtcp_cep *cep, u8 rtr_sent,
			       u8 rtr_recv, bool hold_tx)
{
	struct sock *sk = cep->sock->sk;
	struct iwtcp_qp_conn conn = {
		.sk = sk,
		.ird = cep->result.ird,
		.ord = cep->result.ord,
		.tx_st = cep->tx_st,
		.rx_st = cep->rx_st,
		.rtr_sent = rtr_sent,
		.rtr_recv = rtr_recv,
		.hold_tx = hold_tx,
	};
	int rv = iwtcp_qp_connected(cep->qp, cep, &conn);

	if (rv)
		return rv;
	write_lock_bh(&sk->sk_callback_lock);
	cep->dp = true;
	sk->sk_write_space = cm_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	/* what arrived before the callback moved */
	iwtcp_qp_rx_kick(cep->qp);
	iwtcp_qp_tx_kick(cep->qp);
	return 0;
}

static int cep_settings(struct iwtcp_cep *cep, u32 ird, u32 ord)
{
	iwtcp_settings_get(cep->dev, &cep->settings);
	/* The ULP asks for IRD/ORD within the device's limits. */
	if (ird > cep->settings.ird || ord > cep->settings.ord)
		return -EINVAL;
	cep->settings.ird = ird;
	cep->settings.ord = ord;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listener                                                            */

static bool cm_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

static __be16 *cm_port(struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return &((struct sockaddr_in *)a)->sin_port;
	return &((struct sockaddr_in6 *)a)->sin6_port;
}

/* Is @l an extension of a wildcard listen on @family and @port? */
static bool cm_wild_match(struct iwtcp_cep *l, sa_family_t family,
			  __be16 port)
{
	return l->wild_family == family && l->wild_port == port;
}

/*
 * The @k-th extension (from 0, in list order) of a wildcard listen on
 * @family and @port to @dev, or NULL.
 */
static struct iwtcp_cep *cm_wild_nth(struct iwtcp_device *dev,
				     sa_family_t family, __be16 port, u32 k)
{
	struct iwtcp_cep *l;

	list_for_each_entry(l, &cm_wild_listeners, wild_item)
		if (l->dev == dev && cm_wild_match(l, family, port) && !k--)
			return l;
	return NULL;
}

/*
 * The network namespace (its cookie) a wildcard listen on @dev belongs
 * to. rdma_cm calls iw_create_listen() from the listener's own context,
 * except when it extends its wildcard listeners to a device being
 * registered: then the caller is the task adding the device, and
 * iw_cm_id carries no namespace. rdma_cm extends them in the order they
 * listened (cma_add_one(), listen_any_list), the order in which they
 * also reached every other device (cm_wild_listeners is kept in that
 * order). So the k-th extension of a port to @dev in this registration
 * is the same listener as the k-th of that port on another iwtcp device,
 * whose owner is known there. With no other device that knows, the
 * adding task's namespace is taken, as a guess (@owner->known false)
 * that later registrations do not build on.
 *
 * Context: process context, cm_wild_lock held.
 */
static void cm_listen_owner(struct iwtcp_device *dev, struct iw_cm_id *cm_id,
			    struct cm_owner *owner)
{
	sa_family_t family = cm_id->local_addr.ss_family;
	__be16 port = *cm_port(&cm_id->local_addr);
	struct iwtcp_cep *l, *sib;
	u32 k = 0;

	lockdep_assert_held(&cm_wild_lock);
	owner->net = current->nsproxy->net_ns->net_cookie;
	owner->known = true;
	if (READ_ONCE(dev->registrar) != current)
		return;
	list_for_each_entry(l, &cm_wild_listeners, wild_item)
		k += l->dev == dev && cm_wild_match(l, family, port);
	list_for_each_entry(l, &cm_wild_listeners, wild_item) {
		if (l->dev == dev || !cm_wild_match(l, family, port))
			continue;
		sib = cm_wild_nth(l->dev, family, port, k);
		if (sib && sib->owner.known) {
			owner->net = sib->owner.net;
			return;
		}
	}
	owner->known = false;
}

/*
 * A TCP socket for @cm_id, in the network namespace of the device's
 * netdev: the addresses of the device live there, whichever process or
 * kworker (a kernel ULP's) makes the call. A wildcard listen (@owner not
 * NULL) that belongs to another namespace (cm_listen_owner(), stored in
 * @owner) gets -ENETUNREACH: nothing for that namespace can arrive on
 * this device. The socket is a user socket (it holds its namespace, and
 * binding a port below 1024 needs the caller's CAP_NET_BIND_SERVICE, as
 * for any socket).
 */
static int cm_sock_create(struct iwtcp_device *dev, struct iw_cm_id *cm_id,
			  struct cm_owner *owner, struct socket **sockp)
{
	int family = cm_id->local_addr.ss_family;
	struct net_device *netdev;
	struct socket *sock;
	struct net *net;
	int rv;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	netdev = iwtcp_compat_get_netdev(&dev->base_dev, IWTCP_PORT);
	if (!netdev)
		return -ENODEV;
	net = dev_net(netdev);
	if (owner)
		cm_listen_owner(dev, cm_id, owner);
	if (owner && owner->net != net->net_cookie)
		rv = -ENETUNREACH;
	else
		rv = __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP,
				   &sock, 0);
	dev_put(netdev);
	if (rv)
		return rv;
	sock_set_reuseaddr(sock->sk);
	tcp_sock_set_nodelay(sock->sk);
	if (family == AF_INET6 && cm_id->afonly)
		ip6_sock_set_v6only(sock->sk);
	*sockp = sock;
	return 0;
}

/*
 * Bind @sock to the cm_id's local address. A wildcard address is limited
 * to the device's netdev, so that one wildcard listener per device can
 * share a port.
 */
static int cm_bind(struct iwtcp_device *dev, struct socket *sock,
		   struct sockaddr_storage *addr)
{
	struct net_device *netdev;

	if (cm_addr_any(addr)) {
		netdev = iwtcp_compat_get_netdev(&dev->base_dev, IWTCP_PORT);
		if (!netdev)
			return -ENODEV;
		sock->sk->sk_bound_dev_if = netdev->ifindex;
		dev_put(netdev);
	}
	return kernel_bind(sock, (struct sockaddr *)addr,
			   addr->ss_family == AF_INET ?
			   sizeof(struct sockaddr_in) :
			   sizeof(struct sockaddr_in6));
}

/*
 * RFC 5044 4.5, 5.1: an FPDU is a multiple of 4 octets long, so it fills
 * a TCP segment only when the EMSS is one too. TCP options are multiples
 * of 4 octets, so the EMSS is when the MSS is: where the netdev's MTU
 * gives an MSS that is not (MTU 1450 of a VXLAN, 9001 of some clouds),
 * a connecting socket offers and takes one 1 to 3 octets smaller
 * (TCP_MAXSEG). Without it, a full FPDU with markers ends its own
 * segment, one socket buffer per FPDU, and without markers the FPDUs
 * straddle segments. Each end takes the smaller of the two MSS offered,
 * so with the same MTU on both ends, both directions are aligned. A
 * listening socket is left alone: it would keep the MTU of its listen
 * call for every later connection.
 */
static void cm_sock_set_mss(struct iwtcp_device *dev, struct socket *sock,
			    const struct sockaddr_storage *raddr)
{
	const struct sockaddr_in6 *sin6 = (const void *)raddr;
	u32 hdrs = sizeof(struct tcphdr) + sizeof(struct iphdr);
	struct net_device *netdev;
	int mss, rv;
	u32 mtu;

	if (raddr->ss_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sin6->sin6_addr))
		hdrs = sizeof(struct tcphdr) + sizeof(struct ipv6hdr);
	netdev = iwtcp_compat_get_netdev(&dev->base_dev, IWTCP_PORT);
	if (!netdev)
		return;
	mtu = READ_ONCE(netdev->mtu);
	dev_put(netdev);
	if (mtu < hdrs + TCP_MIN_MSS + 4 || !((mtu - hdrs) % 4))
		return;
	mss = round_down(min_t(u32, mtu - hdrs, MAX_TCP_WINDOW), 4);
	/* no tcp_sock_set_*() helper for it in 6.12 */
	rv = sock->ops->setsockopt(sock, SOL_TCP, TCP_MAXSEG,
				   KERNEL_SOCKPTR(&mss), sizeof(mss));
	if (rv)
		ibdev_dbg(&dev->base_dev, "TCP_MAXSEG %d: %d\n", mss, rv);
}

/*
 * Bind and connect @sock without waiting: 0 or -errno. Without a port,
 * the connect picks one unique for the four-tuple (IP_BIND_ADDRESS_NO_PORT).
 */
static int cm_bind_connect(struct iwtcp_device *dev, struct socket *sock,
			   struct sockaddr_storage *laddr,
			   struct sockaddr_storage *raddr)
{
	int rv;

	if (!*cm_port(laddr))
		iwtcp_compat_bind_address_no_port(sock->sk);
	cm_sock_set_mss(dev, sock, raddr);
	rv = cm_bind(dev, sock, laddr);

	if (!rv)
		rv = kernel_connect(sock, (struct sockaddr *)raddr,
				    raddr->ss_family == AF_INET ?
				    sizeof(struct sockaddr_in) :
				    sizeof(struct sockaddr_in6), O_NONBLOCK);
	return rv == -EINPROGRESS ? 0 : rv;
}

/*
 * Bind and connect a new socket for @cep, without waiting; the caller
 * then queues the endpoint's work, which looks at the socket's state. The
 * source port is the one rdma_cm chose in its own port space if TCP can
 * use it and @new_port is false: any TCP socket of the namespace may hold
 * it (bind fails), or an old connection of the same four-tuple (connect
 * fails). Else TCP picks one, as an iWARP port mapper would, and the ULP
 * keeps seeing its rdma_cm port. A privileged port is used as bound or
 * not at all.
 */
static int cm_connect_sock(struct iwtcp_cep *cep, struct iw_cm_id *cm_id,
			   bool new_port)
{
	struct sockaddr_storage laddr = cm_id->local_addr;
	__be16 *port = cm_port(&laddr);
	bool privileged = ntohs(*port) < PROT_SOCK;
	struct socket *sock;
	int rv;

	if (new_port && !privileged)
		*port = 0;
	rv = cm_sock_create(cep->dev, cm_id, NULL, &sock);
	if (rv)
		return rv;
	rv = cm_bind_connect(cep->dev, sock, &laddr, &cm_id->remote_addr);
	if ((rv == -EADDRINUSE || rv == -EADDRNOTAVAIL) && !privileged &&
	    *port) {
		sock_release(sock);
		*port = 0;
		rv = cm_sock_create(cep->dev, cm_id, NULL, &sock);
		if (rv)
			return rv;
		rv = cm_bind_connect(cep->dev, sock, &laddr,
				     &cm_id->remote_addr);
	}
	if (rv) {
		sock_release(sock);
		return rv;
	}
	cep_attach_sock(cep, sock, NULL);
	return 0;
}

/**
 * iwtcp_create_listen() - ib_device_ops.iw_create_listen
 * @cm_id: the listening iw_cm endpoint, with its local address
 * @backlog: pending connections the socket queues
 *
 * Context: process context of the ULP's listen call, may sleep.
 * Return: 0, -EAFNOSUPPORT, -ENOMEM, or the socket's bind/listen error
 * (-EADDRINUSE, -EACCES, ...).
 */
int iwtcp_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwtcp_device *dev = to_iwtcp_dev(cm_id->device);
	bool wild = cm_addr_any(&cm_id->local_addr);
	struct cm_owner owner = {};
	struct socket *sock = NULL;
	struct iwtcp_cep *cep;
	int rv;

	if (wild)
		mutex_lock(&cm_wild_lock);
	/*
	 * rdma_cm listens on every device for a wildcard address, also on
	 * those whose netdev is in another namespace: such a listener has
	 * no socket and never reports a request.
	 */
	rv = cm_sock_create(dev, cm_id, wild ? &owner : NULL, &sock);
	if (rv == -ENETUNREACH)
		sock = NULL;
	else if (rv)
		goto out_unlock;
	if (sock) {
		rv = cm_bind(dev, sock, &cm_id->local_addr);
		if (!rv)
			rv = kernel_listen(sock, backlog);
		if (rv)
			goto err_release_sock;
	}
	cep = cep_alloc(dev, CEP_LISTENING);
	if (!cep) {
		rv = -ENOMEM;
		goto err_release_sock;
	}
	mutex_lock(&cep->lock);
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	cm_id->provider_data = cep;
	if (sock)
		cep_attach_sock(cep, sock, NULL);
	mutex_unlock(&cep->lock);
	if (wild) {
		cep->wild_family = cm_id->local_addr.ss_family;
		cep->wild_port = *cm_port(&cm_id->local_addr);
		cep->owner = owner;
		list_add_tail(&cep->wild_item, &cm_wild_listeners);
	}
	rv = 0;
	goto out_unlock;

err_release_sock:
	if (sock)
		sock_release(sock);
out_unlock:
	if (wild)
		mutex_unlock(&cm_wild_lock);
	return rv;
}

/**
 * iwtcp_destroy_listen() - ib_device_ops.iw_destroy_listen
 * @cm_id: the listening iw_cm endpoint
 *
 * Children that did not yet deliver their connection request notice the
 * closed listener and close themselves.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int iwtcp_destroy_listen(struct iw_cm_id *cm_id)
{
	struct iwtcp_cep *cep = cm_id->provider_data;

	if (!cep)
		return 0;
	cep_get(cep);
	mutex_lock(&cm_wild_lock);
	list_del_init(&cep->wild_item);
	mutex_unlock(&cm_wild_lock);
	mutex_lock(&cep->lock);
	cep_close(cep, 0, 0);
	mutex_unlock(&cep->lock);
	if (cancel_work_sync(&cep->work))
		cep_put(cep);	/* the queued work's reference */
	cep_put(cep);
	return 0;
}

static void listener_accept_one(struct iwtcp_cep *listener,
				struct socket *sock)
{
	struct iwtcp_cep *child = cep_alloc(listener->dev, CEP_AWAIT_REQUEST);

	if (!child) {
		sock_release(sock);
		return;
	}
	tcp_sock_set_nodelay(sock->sk);
	/*
	 * Under the listener's lock, against the order below: the child is
	 * reachable by nobody yet, so this cannot invert; lockdep is told.
	 */
	mutex_lock_nested(&child->lock, SINGLE_DEPTH_NESTING);
	cep_get(listener);
	child->listener = listener;
	cep_attach_sock(child, sock, listener);
	cep_timer_arm(child);
	mutex_unlock(&child->lock);
	/* Bytes may have arrived before our callbacks were in place. */
	cep_queue(child);
}

static void listener_work(struct iwtcp_cep *cep)
{
	struct socket *sock;

	while (cep->sock && kernel_accept(cep->sock, &sock, O_NONBLOCK) == 0)
		listener_accept_one(cep, sock);
}

/* ------------------------------------------------------------------ */
/* Responder                                                           */

/*
 * An IPv4 peer of a dual-stack listener on :: (not AF_ONLY, RFC 4291
 * 2.5.5.2) arrives as ::ffff:a.b.c.d; rdma_cm looks the new connection's
 * device up by address, and finds an IPv4 one only by its IPv4 address,
 * as the peer sees it: the request is reported in AF_INET.
 */
static void cm_addr_unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 sin6 = *(struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	if (ss->ss_family != AF_INET6 || !ipv6_addr_v4mapped(&sin6.sin6_addr))
		return;
	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = sin6.sin6_port;
	sin->sin_addr.s_addr = sin6.sin6_addr.s6_addr32[3];
}

/*
 * RFC 5044 7.1.2 rule 2: refuse the Request in @cep->req with a Reply with
 * R set (its revision, at most 2; enhanced as it was), @pdata in it.
 */
static void cep_send_reject(struct iwtcp_cep *cep, const void *pdata,
			    u8 pdata_len)
{
	struct iwtcp_mpa_frame rep = {};

	rep.rev = min_t(u8, cep->req.rev, IWTCP_MPA_REV_2);
	rep.reject = true;
	rep.enhanced = cep->req.enhanced;
	rep.pd = pdata;
	rep.pd_len = pdata_len;
	if (!cep_send_frame(cep, IWTCP_MPA_REPLY, &rep))
		iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_REJECTS_SENT, 1);
}

static void responder_got_request(struct iwtcp_cep *cep)
{
	struct iwtcp_cep *listener = cep->listener;
	struct iw_cm_event event = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.provider_data = cep,
	};
	struct iwtcp_mpa_frame *req = &cep->req;
	struct iwtcp_mpa_frame rep = {};
	int rv;

	rv = iwtcp_mpa_parse(cep->rx, cep->rx_len, IWTCP_MPA_REQUEST, req);
	if (rv < 0) {
		iwtcp_stat_add(cep->dev, IWTCP_STAT_MPA_BAD_FRAMES, 1);
		ibdev_dbg(&cep->dev->base_dev, "CEP %u: bad Request %d\n", cep->id,
			  rv);
		cep_close(cep, 0, 0);
		return;
	}
	/* iw_cm hands the ULP at most 255 octets: refuse, never truncate. */
	if (req->pd_len > U8_MAX) {
		ibdev_warn_ratelimited(&cep->dev->base_dev,
				       "MPA Request with %u octets of private data, more than the ULP can take: rejected\n",
				       req->pd_len);
		rep.rev = req->rev;
		rep.reject = true;
		if (!cep_send_frame(cep, IWTCP_MPA_REPLY, &rep))
			iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_REJECTS_SENT, 1);
		cep_close(cep, 0, 0);
		return;
	}
	event.private_data = (void *)req->pd;
	event.private_data_len = req->pd_len;
	/* RFC 6581 9.1: the peer's IRD and ORD; without them, our limits */
	event.ird = min_t(u32, req->enhanced ? req->ird : IWTCP_MAX_IRD,
			  U8_MAX);
	event.ord = min_t(u32, req->enhanced ? req->ord : IWTCP_MAX_ORD,
			  U8_MAX);
	kernel_getsockname(cep->sock, (struct sockaddr *)&event.local_addr);
	kernel_getpeername(cep->sock, (struct sockaddr *)&event.remote_addr);
	cm_addr_unmap_v4(&event.local_addr);
	cm_addr_unmap_v4(&event.remote_addr);
	/* A child's lock before its listener's: one class, so annotated. */
	mutex_lock_nested(&listener->lock, SINGLE_DEPTH_NESTING);
	if (listener->state != CEP_LISTENING) {
		mutex_unlock(&listener->lock);
		cep_close(cep, 0, 0);
		return;
	}
	cep_set_state(cep, CEP_AWAIT_ACCEPT);
	/*
	 * The ULP's decision is bounded too (accept_timeout); iw_cm may also
	 * drop the event (no work entry left, listener being destroyed).
	 */
	cep_timer_arm_for(cep, accept_timeout);
	cep_get(cep);	/* iw_cm's provider_data, until accept or reject */
	rv = listener->cm_id->event_handler(listener->cm_id, &event);
	if (rv)
		cep_put(cep);	/* the event and its reference are lost */
	else
		iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_REQUESTS, 1);
	mutex_unlock(&listener->lock);
	if (!rv)
		return;
	/*
	 * iw_cm had no room for it (-ENOMEM: as many requests wait as the
	 * listen backlog allows). A Reply with R set, not a bare close: an
	 * initiator takes a close before any Reply for a responder of RFC
	 * 5044 alone and retries unenhanced (RFC 6581 10).
	 */
	ibdev_warn_ratelimited(&cep->dev->base_dev,
			       "CEP %u: connection request not taken by iw_cm (%d, listen backlog full?): rejected\n",
			       cep->id, rv);
	cep_send_reject(cep, NULL, 0);
	cep_close(cep, 0, 0);
}

/*
 * Receive exactly one start-up FPDU (an RTR or a TERM) into @cep->rx: its
 * length field first, then the rest, so that FPDUs sent right after it
 * stay in the socket for the QP. Returns 0 when complete, -EAGAIN when
 * more must come, -EMSGSIZE for an FPDU longer than any RTR or TERM, or
 * the error of cep_recv().
 */
static int cep_recv_fpdu(struct iwtcp_cep *cep)
{
	u32 hdr = (cep->rx_st.markers ? IWTCP_MPA_MARKER_SIZE : 0) +
		  sizeof(struct iwtcp_mpa_fpdu_hdr);
	struct iwtcp_fpdu_layout l = { .wire_len = 0 };
	__be16 ulpdu_len;
	int rv;

	rv = cep_recv(cep, hdr);
	if (rv)
		return rv;
	memcpy(&ulpdu_len, cep->rx + hdr - sizeof(ulpdu_len),
	       sizeof(ulpdu_len));
	l.wire_len = iwtcp_fpdu_len(be16_to_cpu(ulpdu_len));
	if (cep->rx_st.markers && iwtcp_fpdu_markers(0, l.wire_len, &l))
		return -EMSGSIZE;
	if (l.wire_len > CM_RTR_WIRE_MAX)
		return -EMSGSIZE;
	return cep_recv(cep, l.wire_len);
}

/*
 * The MPA error for a first FPDU that is no RTR (RFC 5044 8 and RFC 6581
 * 8): a CRC or marker fault is named as such, anything else is 0x07.
 */
static u8 cep_fpdu_term(int parse_rv)
{
	if (parse_rv == -EBADMSG)
		return IWTCP_TERM_MPA_CRC;
	if (parse_rv == -EPROTO)
		return IWTCP_TERM_MPA_MARKER;
	return IWTCP_TERM_MPA_NO_RTR;
}

/*
 * Decode the start-up FPDU in @cep->rx (iwtcp_fpdu_parse()), counting it
 * or its MPA error like the data path does.
 */
static int cep_parse_fpdu(struct iwtcp_cep *cep, void *ulpdu, u32 size,
			  u32 *ulpdu_len)
{
	struct iwtcp_term_cause cause = {
		.layer = IWTCP_TERM_LAYER_LLP,
		.etype = IWTCP_TERM_MPA,
	};
	u32 hdr = cep->rx_st.markers ? IWTCP_MPA_MARKER_SIZE : 0;
	int rv = iwtcp_fpdu_parse(&cep->rx_st, cep->rx, cep->rx_len, ulpdu,
				  size, ulpdu_len);

	if (rv > 0) {
		iwtcp_stat_add(cep->dev, IWTCP_STAT_RX_FPDUS, 1);
		iwtcp_stat_add(cep->dev, IWTCP_STAT_RX_OCTETS, rv);
	} else if (rv < 0) {
		cause.ecode = cep_fpdu_term(rv);
		iwtcp_stat_mpa_error(cep->dev, NULL, cause.ecode);
		/* its length field follows the stream's first marker */
		trace_iwtcp_fpdu_rx_error(&cep->dev->base_dev, cep_qpn(cep), 0,
					  cep->rx_len >= hdr + 2 ?
					  cep->rx[hdr] << 8 | cep->rx[hdr + 1] :
					  0, &cause);
	}
	return rv;
}

/* Log the TERM that ended the start-up; false if @ulpdu is no TERM. */
static bool cep_log_term(struct iwtcp_cep *cep, const void *ulpdu, u32 len)
{
	struct iwtcp_rdmap_term term;

	if (iwtcp_rdmap_parse_term(ulpdu, len, &term))
		return false;
	iwtcp_stat_term(cep->dev, NULL, false, &term);
	trace_iwtcp_term_rx(&cep->dev->base_dev, cep_qpn(cep), cep->id, &term);
	ibdev_info_ratelimited(&cep->dev->base_dev,
			       "peer ended the MPA start-up with TERM layer %u type %u code %#x\n",
			       term.cause.layer, term.cause.etype,
			       term.cause.ecode);
	return true;
}

/*
 * RFC 6581 9.2: a Read RTR is answered like any Read, with a zero-length
 * Read Response: the responder's first FPDU.
 */
static int responder_answer_read_rtr(struct iwtcp_cep *cep, const void *ulpdu,
				     u32 len)
{
	struct iwtcp_ddp_hdr h = {
		.last = true,
		.ulp_ctrl = iwtcp_rdmap_ctrl(IWTCP_RDMAP_READ_RESP),
	};
	u8 buf[sizeof(struct iwtcp_ddp_tagged_hdr)];
	struct iwtcp_rdmap_read rr;
	int n;

	if (iwtcp_rdmap_parse_read_req(ulpdu, len, &rr))
		return -EPROTO;
	h.stag = rr.sink_stag;
	h.to = rr.sink_to;
	n = iwtcp_ddp_build_tagged(&h, buf, sizeof(buf));
	if (n < 0)
		return n;
	return cep_send_fpdu(cep, buf, n);
}

/* RFC 6581 9.2-9.3: the initiator's first FPDU must be a negotiated RTR. */
static void responder_got_rtr(struct iwtcp_cep *cep)
{
	u8 ulpdu[CM_RTR_WIRE_MAX];
	u32 ulpdu_len;
	u8 rtr;
	int rv;

	rv = cep_parse_fpdu(cep, ulpdu, sizeof(ulpdu), &ulpdu_len);
	rtr = rv < 0 ? 0 : iwtcp_rdmap_rtr_type(ulpdu, ulpdu_len);
	/* The initiator gave up on the negotiation and says why. */
	if (!rtr && rv > 0 && cep_log_term(cep, ulpdu, ulpdu_len)) {
		cep_close_accepted(cep, -ECONNRESET);
		return;
	}
	if (!(rtr & cep->result.rtr) || rv != cep->rx_len) {
		ibdev_dbg(&cep->dev->base_dev, "CEP %u: first FPDU not an RTR of %#x (%d)\n",
			  cep->id, cep->result.rtr, rv);
		cep_send_term(cep, cep_fpdu_term(rv));
		cep_close_accepted(cep, -ECONNRESET);
		return;
	}
	trace_iwtcp_rtr(&cep->dev->base_dev, cep->id, false, rtr);
	cep->rtr = rtr;
	rv = rtr == IWTCP_MPA_RTR_READ ?
	     responder_answer_read_rtr(cep, ulpdu, ulpdu_len) : 0;
	if (!rv)
		rv = cep_start_data_path(cep, 0, rtr, false);
	if (rv) {
		cep_send_term(cep, IWTCP_TERM_MPA_CATASTROPHIC);
		cep_close_accepted(cep, rv);
		return;
	}
	cep_established(cep, IW_CM_EVENT_ESTABLISHED, NULL, 0);
}

static void responder_recv_rtr(struct iwtcp_cep *cep)
{
	int rv = cep_recv_fpdu(cep);

	if (rv == -EAGAIN)
		return;
	if (rv == -EMSGSIZE)
		cep_send_term(cep, IWTCP_TERM_MPA_NO_RTR);
	if (rv) {
		cep_close_accepted(cep, -ECONNRESET);
		return;
	}
	responder_got_rtr(cep);
}

/* ------------------------------------------------------------------ */
/* Initiator                                                           */

static void initiator_send_request(struct iwtcp_cep *cep, const void *pd,
				   u8 pd_len)
{
	struct iwtcp_mpa_frame req;
	int rv;

	rv = iwtcp_mpa_init_request(&cep->settings, &req);
	if (!rv) {
		req.pd = pd;
		req.pd_len = pd_len;
		rv = cep_send_frame(cep, IWTCP_MPA_REQUEST, &req);
	}
	if (rv) {
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY, rv);
		return;
	}
	cep->rx_len = 0;	/* the private data is sent; the Reply comes */
	cep_set_state(cep, CEP_AWAIT_REPLY);
	cep_timer_arm(cep);
}

/* RFC 6581 9.2: the one RTR, first FPDU of the stream. */
static int initiator_send_rtr(struct iwtcp_cep *cep)
{
	u8 ulpdu[CM_RTR_WIRE_MAX];
	int len, rv;

	len = iwtcp_rdmap_build_rtr(cep->result.rtr, IWTCP_DDP_MSN_INIT, ulpdu,
				    sizeof(ulpdu));
	if (len < 0)
		return len;
	rv = cep_send_fpdu(cep, ulpdu, len);
	if (rv)
		return rv;
	cep->rtr = iwtcp_rdmap_rtr_type(ulpdu, len);
	trace_iwtcp_rtr(&cep->dev->base_dev, cep->id, true, cep->rtr);
	return 0;
}

/*
 * RFC 6581 10: a responder that knows no enhanced start-up closes the
 * connection on an enhanced Request; the initiator MAY try again with
 * the unenhanced protocol of RFC 5044 (revision 1, no IRD/ORD word, no
 * peer-to-peer model) and leave IRD, ORD and the first FPDU to the ULP.
 * iwtcp tries once, on a new connection from a new source port (the old
 * four-tuple may still be closing), within a fresh MPA timeout.
 */
static void initiator_retry_unenhanced(struct iwtcp_cep *cep)
{
	int rv = -ECONNRESET;
	const struct cred *saved;

	ibdev_info_ratelimited(&cep->dev->base_dev,
			       "CEP %u: responder closed on the enhanced MPA Request, retrying unenhanced (RFC 6581 10)\n",
			       cep->id);
	cep_detach_sock(cep);
	/* The peer closed: a reset frees the four-tuple at once. */
	sock_no_linger(cep->sock->sk);
	sock_release(cep->sock);
	cep->sock = NULL;
	cep->settings.revision = IWTCP_MPA_REV_1;
	cep->settings.enhanced = false;
	cep->settings.p2p = false;
	cep->rx_len = cep->pd_len;
	if (cep->cm_id && cep->cred) {
		/* The new socket is the ULP's, as the first one was. */
		saved = override_creds(cep->cred);
		rv = cm_connect_sock(cep, cep->cm_id, true);
		revert_creds(saved);
	}
	if (rv) {
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY, rv);
		return;
	}
	cep_set_state(cep, CEP_CONNECTING);
	cep_timer_arm(cep);
	/* The handshake may have finished before the callbacks were set. */
	cep_queue(cep);
}

/*
 * RFC 6581 9.1-9.3: a responder that rejects for a negotiation failure
 * sends a TERM after the Reject. The ULP is done with the endpoint once
 * it has the Reject; the socket stays open until that TERM arrives (its
 * reason is logged), the responder closes, or the MPA timeout.
 */
static void initiator_await_term(struct iwtcp_cep *cep)
{
	cep_release_qp(cep);
	cep_drop_cm_id(cep);
	cep_streams_init(cep);
	cep->rx_len = 0;
	cep_set_state(cep, CEP_AWAIT_TERM);
	cep_timer_arm(cep);
	/* The TERM may be in the socket already, its wakeup consumed. */
	cep_queue(cep);
}

static void initiator_recv_term(struct iwtcp_cep *cep)
{
	u8 ulpdu[CM_RTR_WIRE_MAX];
	u32 ulpdu_len;
	int rv = cep_recv_fpdu(cep);

	if (rv == -EAGAIN)
		return;
	if (!rv && cep_parse_fpdu(cep, ulpdu, sizeof(ulpdu), &ulpdu_len) > 0)
		cep_log_term(cep, ulpdu, ulpdu_len);
	cep_close(cep, 0, 0);
}

static void initiator_got_reply(struct iwtcp_cep *cep)
{
	struct iwtcp_mpa_frame rep;
	int rv;

	rv = iwtcp_mpa_parse(cep->rx, cep->rx_len, IWTCP_MPA_REPLY, &rep);
	if (rv >= 0) {
		rv = iwtcp_mpa_negotiate_reply(&cep->settings, &rep,
					       &cep->result);
		trace_iwtcp_mpa_result(&cep->dev->base_dev, cep->id,
				       cep_qpn(cep), true, rv, &cep->result);
	} else {
		iwtcp_stat_add(cep->dev, IWTCP_STAT_MPA_BAD_FRAMES, 1);
	}
	if (rv == -ECONNREFUSED) {
		iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_REJECTS_RCVD, 1);
		cep_event(cep, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			  rep.pd, min_t(u16, rep.pd_len, U8_MAX));
		initiator_await_term(cep);
		return;
	}
	if (!rv && rep.pd_len > U8_MAX)
		rv = -EMSGSIZE;
	cep_streams_init(cep);
	/* RFC 6581 9.2: the RTR is the first FPDU; the QP's follow it */
	if (!rv && cep->result.p2p)
		rv = initiator_send_rtr(cep);
	if (!rv)
		rv = cep_start_data_path(cep, cep->result.p2p ?
					 cep->result.rtr : 0, 0, false);
	if (rv) {
		/* RFC 6581 9.3: a local error without its own code is 0x05 */
		cep_send_term(cep, cep->result.term ?:
			      IWTCP_TERM_MPA_CATASTROPHIC);
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY, rv);
		return;
	}
	cep_established(cep, IW_CM_EVENT_CONNECT_REPLY, rep.pd, rep.pd_len);
}

static void initiator_recv_reply(struct iwtcp_cep *cep)
{
	int rv = cep_recv_frame(cep);

	if (rv == -EAGAIN)
		return;
	if (!rv)
		initiator_got_reply(cep);
	else if (rv == -ECONNRESET && !cep->rx_len && cep->settings.enhanced)
		initiator_retry_unenhanced(cep);
	else
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY,
			  rv == -EMSGSIZE ? -EPROTO : rv);
}

/* ------------------------------------------------------------------ */
/* Work handler                                                        */

static int cep_sock_error(struct iwtcp_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int err = sock_error(sk);

	if (err)
		return err;
	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_CLOSE_WAIT ||
	    (sk->sk_shutdown & RCV_SHUTDOWN))
		return -ECONNRESET;
	return 0;
}

/* Receive the Request: 0 when complete, else -errno (handled). */
static int responder_recv_request(struct iwtcp_cep *cep)
{
	int rv = cep_recv_frame(cep);

	if (rv && rv != -EAGAIN)
		cep_close(cep, 0, 0);
	return rv;
}

static void cep_established_work(struct iwtcp_cep *cep)
{
	if (cep->ulp_close) {
		cep_close(cep, IW_CM_EVENT_CLOSE, 0);
		return;
	}
	/* The peer closed or reset the connection. */
	if (cep_sock_error(cep)) {
		/*
		 * What it sent before is placed before the ULP hears of it: a
		 * ULP that drains its QP on DISCONNECT would flush it otherwise
		 * (the receive work may still be behind).
		 */
		if (cep->dp)
			iwtcp_qp_rx_drain(cep->qp);
		cep_event(cep, IW_CM_EVENT_DISCONNECT, 0, NULL, 0);
		cep_close(cep, IW_CM_EVENT_CLOSE, 0);
	}
}

static void cep_process(struct iwtcp_cep *cep)
{
	int err;

	switch (cep->state) {
	case CEP_LISTENING:
		listener_work(cep);
		return;
	case CEP_CONNECTING:
		err = cep_sock_error(cep);
		if (err)
			cep_close(cep, IW_CM_EVENT_CONNECT_REPLY,
				  err == -ECONNRESET ? -ECONNREFUSED : err);
		else if (cep->sock->sk->sk_state == TCP_ESTABLISHED)
			initiator_send_request(cep, cep->rx, cep->rx_len);
		return;
	case CEP_AWAIT_REPLY:
		initiator_recv_reply(cep);
		return;
	case CEP_AWAIT_TERM:
		initiator_recv_term(cep);
		return;
	case CEP_AWAIT_REQUEST:
		if (!responder_recv_request(cep))
			responder_got_request(cep);
		return;
	case CEP_AWAIT_ACCEPT:
		/*
		 * The ULP decides. A peer gone meanwhile closes the endpoint;
		 * the struct waits for iw_cm's accept or reject, which fail.
		 */
		if (cep_sock_error(cep))
			cep_close(cep, 0, 0);
		return;
	case CEP_AWAIT_RTR:
		if (READ_ONCE(cep->ulp_close))
			cep_close_accepted(cep, -ECONNRESET);
		else
			responder_recv_rtr(cep);
		return;
	case CEP_ESTABLISHED:
		cep_established_work(cep);
		return;
	default:
		return;
	}
}

static void cep_work(struct work_struct *work)
{
	struct iwtcp_cep *cep = container_of(work, struct iwtcp_cep, work);

	mutex_lock(&cep->lock);
	cep_process(cep);
	mutex_unlock(&cep->lock);
	cep_put(cep);
}

static void cep_timeout(struct work_struct *work)
{
	struct iwtcp_cep *cep = container_of(to_delayed_work(work),
					     struct iwtcp_cep, timer);

	mutex_lock(&cep->lock);
	/* Re-armed while this expiry waited for the lock: it is stale. */
	if (delayed_work_pending(&cep->timer))
		goto out;
	/* a start-up step that timed out; AWAIT_TERM's end is no failure */
	if (cep->state == CEP_AWAIT_ACCEPT || cep->state == CEP_CONNECTING ||
	    cep->state == CEP_AWAIT_REPLY || cep->state == CEP_AWAIT_REQUEST ||
	    cep->state == CEP_AWAIT_RTR)
		iwtcp_stat_add(cep->dev, IWTCP_STAT_CM_TIMEOUTS, 1);
	switch (cep->state) {
	case CEP_AWAIT_ACCEPT:
		ibdev_dbg(&cep->dev->base_dev, "CEP %u: no accept or reject\n",
			  cep->id);
		cep_close(cep, 0, 0);
		break;
	case CEP_CONNECTING:
	case CEP_AWAIT_REPLY:
		ibdev_dbg(&cep->dev->base_dev, "CEP %u: MPA timeout\n", cep->id);
		cep_close(cep, IW_CM_EVENT_CONNECT_REPLY, -ETIMEDOUT);
		break;
	case CEP_AWAIT_REQUEST:
	case CEP_AWAIT_TERM:
		cep_close(cep, 0, 0);
		break;
	case CEP_AWAIT_RTR:
		cep_close_accepted(cep, -ETIMEDOUT);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&cep->lock);
	cep_put(cep);
}

static struct iwtcp_cep *cep_alloc(struct iwtcp_device *dev,
				   enum cep_state state)
{
	struct iwtcp_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	if (!ib_device_try_get(&dev->base_dev)) {
		kfree(cep);
		return NULL;
	}
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	cep->state = state;
	cep->is_listener = state == CEP_LISTENING;
	cep->id = atomic_inc_return(&cep_ids);
	cep->dev = dev;
	INIT_WORK(&cep->work, cep_work);
	INIT_DELAYED_WORK(&cep->timer, cep_timeout);
	INIT_LIST_HEAD(&cep->wild_item);
	ibdev_dbg(&dev->base_dev, "CEP %u created\n", cep->id);
	return cep;
}

/* ------------------------------------------------------------------ */
/* iw_cm ops                                                           */

/* The QP a connect or accept names: the caller's, idle, unconnected. */
static struct iwtcp_qp *cm_get_qp(struct iwtcp_device *dev, u32 qpn)
{
	struct ib_qp *base_qp;

	rcu_read_lock();
	base_qp = iwtcp_get_qp(&dev->base_dev, qpn);
	if (base_qp)
		iwtcp_qp_add_ref(base_qp);
	rcu_read_unlock();
	return base_qp ? to_iwtcp_qp(base_qp) : NULL;
}

/**
 * iwtcp_connect() - ib_device_ops.iw_connect: start an active connection
 * @cm_id: the iw_cm endpoint, with local and remote address
 * @param: QP number, private data (sent in the MPA Request), the ULP's
 *	IRD and ORD (RFC 6581 9.1)
 *
 * The TCP connection is set up without blocking; the MPA Request follows
 * when it is up. The outcome reaches the ULP as one CONNECT_REPLY event.
 *
 * Context: process context of the ULP's connect call, may sleep.
 * Return: 0; -EINVAL for an unknown QP, one that is not idle, or an IRD
 * or ORD above the device's settings; -ENOMEM; the socket's error.
 */
int iwtcp_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct iwtcp_device *dev = to_iwtcp_dev(cm_id->device);
	struct iwtcp_cep *cep;
	struct iwtcp_qp *qp;
	int rv;

	qp = cm_get_qp(dev, param->qpn);
	if (!qp)
		return -EINVAL;
	iwtcp_stat_add(dev, IWTCP_STAT_CM_CONNECTS, 1);
	cep = cep_alloc(dev, CEP_CONNECTING);
	if (!cep) {
		iwtcp_qp_rem_ref(&qp->base_qp);
		return -ENOMEM;
	}
	mutex_lock(&cep->lock);
	cep->qp = qp;
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	cm_id->provider_data = cep;
	rv = cep_settings(cep, param->ird, param->ord);
	/* The private data waits in the receive buffer for the Request. */
	if (!rv && param->private_data_len) {
		memcpy(cep->rx, param->private_data, param->private_data_len);
		cep->rx_len = param->private_data_len;
		cep->pd_len = param->private_data_len;
	}
	cep->cred = get_current_cred();
	if (!rv)
		rv = iwtcp_qp_bind_cep(qp, cep);
	if (!rv)
		rv = cm_connect_sock(cep, cm_id, false);
	if (rv) {
		cep_close(cep, 0, 0);
		mutex_unlock(&cep->lock);
		return rv;
	}
	cep_timer_arm(cep);
	mutex_unlock(&cep->lock);
	/* The handshake may have finished before the callbacks were set. */
	cep_queue(cep);
	return 0;
}

static int cm_accept_locked(struct iwtcp_cep *cep, struct iw_cm_id *cm_id,
			    struct iw_cm_conn_param *param)
{
	struct iwtcp_mpa_frame rep;
	struct iwtcp_qp *qp;
	int rv, neg;

	lockdep_assert_held(&cep->lock);
	qp = cm_get_qp(cep->dev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep->qp = qp;
	rv = cep_settings(cep, param->ird, param->ord);
	if (rv)
		return rv;
	neg = iwtcp_mpa_negotiate_request(&cep->settings, &cep->req, &rep,
					  &cep->result);
	trace_iwtcp_mpa_result(&cep->dev->base_dev, cep->id, qp->base_qp.qp_num,
			       false, neg, &cep->result);
	if (neg == -EPROTO || neg == -EINVAL)
		return neg;
	rep.pd = param->private_data;
	rep.pd_len = param->private_data_len;
	cep_streams_init(cep);
	rv = iwtcp_qp_bind_cep(qp, cep);
	if (!rv)
		rv = cep_send_frame(cep, IWTCP_MPA_REPLY, &rep);
	if (!rv)
		iwtcp_stat_add(cep->dev, neg ? IWTCP_STAT_CM_REJECTS_SENT :
				       IWTCP_STAT_CM_ACCEPTS, 1);
	if (!rv && neg) {
		/* RFC 6581 9.1/9.3: the Reject goes out, then the TERM. */
		cep_send_term(cep, cep->result.term ?:
			      IWTCP_TERM_MPA_CATASTROPHIC);
		return neg;
	}
	/*
	 * Without an RTR the initiator may send right after the Reply; we
	 * send once its first FPDU arrived (RFC 5044 7.1.2 rule 4).
	 */
	if (!rv && !cep->result.p2p) {
		rv = cep_start_data_path(cep, 0, 0, true);
		if (rv)
			cep_send_term(cep, IWTCP_TERM_MPA_CATASTROPHIC);
	}
	return rv;
}

/**
 * iwtcp_accept() - ib_device_ops.iw_accept: answer a connection request
 * @cm_id: the new iw_cm endpoint; provider_data is the request's endpoint
 * @param: QP number, private data (sent in the MPA Reply), the ULP's IRD
 *	and ORD
 *
 * Negotiates per RFC 6581 9 and sends the MPA Reply; in the peer-to-peer
 * model ESTABLISHED follows once the initiator's RTR arrived, else at
 * once. If the negotiation fails the Reply rejects (with the TERM code of
 * RFC 6581 9.1 or 9.2 after it) and the call fails.
 *
 * Context: process context of the ULP's accept call, may sleep.
 * Return: 0; -ECONNRESET if the connection went away meanwhile; -EINVAL,
 * -ENOBUFS (insufficient IRD), -ENOPROTOOPT (no common RTR type),
 * -EOPNOTSUPP (markers refused), -EPROTO, or the socket's error.
 */
int iwtcp_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct iwtcp_cep *cep = cm_id->provider_data;
	int rv;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state != CEP_AWAIT_ACCEPT) {
		rv = -ECONNRESET;
		goto out;
	}
	if (cep_sock_error(cep)) {
		cep_close(cep, 0, 0);
		rv = -ECONNRESET;
		goto out;
	}
	cep_timer_stop(cep);
	cm_id->add_ref(cm_id);
	cep->cm_id = cm_id;
	rv = cm_accept_locked(cep, cm_id, param);
	if (rv) {
		cep_close(cep, 0, 0);
		goto out;
	}
	if (cep->result.p2p) {
		cep->rx_len = 0;
		cep_set_state(cep, CEP_AWAIT_RTR);
		cep_timer_arm(cep);
		/* The RTR may be in the socket already. */
		cep_queue(cep);
	} else {
		cep_established(cep, IW_CM_EVENT_ESTABLISHED, NULL, 0);
	}
out:
	mutex_unlock(&cep->lock);
	/* iw_cm's provider_data reference: a failed accept ends the request */
	if (rv)
		cm_id->provider_data = NULL;
	cep_put(cep);
	return rv;
}

/**
 * iwtcp_reject() - ib_device_ops.iw_reject: refuse a connection request
 * @cm_id: the new iw_cm endpoint; provider_data is the request's endpoint
 * @pdata: private data for the MPA Reply (R set)
 * @pdata_len: octets in @pdata
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL for an endpoint without a pending request.
 */
int iwtcp_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct iwtcp_cep *cep = cm_id->provider_data;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state == CEP_AWAIT_ACCEPT)
		cep_send_reject(cep, pdata, pdata_len);
	cep_close(cep, 0, 0);
	mutex_unlock(&cep->lock);
	cm_id->provider_data = NULL;
	cep_put(cep);	/* iw_cm's provider_data reference */
	return 0;
}

/**
 * iwtcp_cm_qp_closing() - the QP left RTS: end its connection
 * @cep: the connection's endpoint, from the QP, with a reference the
 *	caller keeps until this returns
 * @abort: the QP went to ERROR: reset the TCP connection instead of
 *	closing it in order (RFC 5040 6.2, LLP abortive termination), if
 *	the peer has acknowledged all the QP wrote when the socket closes
 *
 * The ULP disconnected (iw_cm_disconnect() moved the QP), or the stream
 * ended with a TERMINATE or an error. The endpoint closes its socket and
 * reports CLOSE from its work handler.
 *
 * Context: any context.
 */
void iwtcp_cm_qp_closing(struct iwtcp_cep *cep, bool abort)
{
	if (abort)
		WRITE_ONCE(cep->ulp_abort, true);
	WRITE_ONCE(cep->ulp_close, true);
	cep_queue(cep);
}

/**
 * iwtcp_cm_put() - drop a reference on an endpoint
 * @cep: the endpoint
 *
 * Context: any context.
 */
void iwtcp_cm_put(struct iwtcp_cep *cep)
{
	cep_put(cep);
}

static const char *cm_rtr_name(u8 rtr)
{
	switch (rtr) {
	case IWTCP_MPA_RTR_SEND:
		return "send";
	case IWTCP_MPA_RTR_WRITE:
		return "write";
	case IWTCP_MPA_RTR_READ:
		return "read";
	default:
		return "none";
	}
}

/* "address:port" of @sa into @buf, or "" when @len says there is none */
/* As the CM events give it: a dual-stack child's v4-mapped peer in AF_INET */
static const char *cm_addr(char *buf, size_t size,
			   struct sockaddr_storage *sa, int len)
{
	if (len <= 0)
		return "";
	cm_addr_unmap_v4(sa);
	snprintf(buf, size, "%pISpc", sa);
	return buf;
}

/**
 * iwtcp_cm_fill_res() - the endpoint's part of a QP's restrack entry
 * @msg: the netlink message of ``rdma resource show qp`` (``-dd``)
 * @cep: the QP's endpoint, referenced by the caller
 *
 * Adds the driver attributes cep_state, local and remote (address:port,
 * empty once the socket is gone), mpa_rev, enhanced, crc, markers_tx,
 * markers_rx, p2p (RFC 5044 7.1, RFC 6581 7), rtr (the RTR that went on
 * the wire: send, write, read or none) and peer_ird, peer_ord.
 *
 * Context: process context (nldev's dump); takes @cep->lock.
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int iwtcp_cm_fill_res(struct sk_buff *msg, struct iwtcp_cep *cep)
{
	struct sockaddr_storage local = {}, remote = {};
	char lbuf[INET6_ADDRSTRLEN + 10], rbuf[INET6_ADDRSTRLEN + 10];
	struct iwtcp_mpa_result res;
	int llen = 0, rlen = 0;
	enum cep_state state;
	u8 rtr;

	mutex_lock(&cep->lock);
	state = cep->state;
	res = cep->result;
	rtr = cep->rtr;
	if (cep->sock) {
		llen = kernel_getsockname(cep->sock, (struct sockaddr *)&local);
		rlen = kernel_getpeername(cep->sock, (struct sockaddr *)&remote);
	}
	mutex_unlock(&cep->lock);
	if (rdma_nl_put_driver_string(msg, "cep_state", cep_state_name[state]) ||
	    rdma_nl_put_driver_string(msg, "local",
				      cm_addr(lbuf, sizeof(lbuf), &local, llen)) ||
	    rdma_nl_put_driver_string(msg, "remote",
				      cm_addr(rbuf, sizeof(rbuf), &remote, rlen)) ||
	    rdma_nl_put_driver_u32(msg, "mpa_rev", res.rev) ||
	    rdma_nl_put_driver_u32(msg, "enhanced", res.enhanced) ||
	    rdma_nl_put_driver_u32(msg, "crc", res.crc) ||
	    rdma_nl_put_driver_u32(msg, "markers_tx", res.markers_tx) ||
	    rdma_nl_put_driver_u32(msg, "markers_rx", res.markers_rx) ||
	    rdma_nl_put_driver_u32(msg, "p2p", res.p2p) ||
	    rdma_nl_put_driver_string(msg, "rtr", cm_rtr_name(rtr)) ||
	    rdma_nl_put_driver_u32(msg, "peer_ird", res.peer_ird) ||
	    rdma_nl_put_driver_u32(msg, "peer_ord", res.peer_ord))
		return -EMSGSIZE;
	return 0;
}

/**
 * iwtcp_cm_get() - take a reference on an endpoint
 * @cep: the endpoint, held by the caller
 *
 * Context: any context.
 */
void iwtcp_cm_get(struct iwtcp_cep *cep)
{
	cep_get(cep);
}

/**
 * iwtcp_cm_init() - module init of the connection manager
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int iwtcp_cm_init(void)
{
	iwtcp_cm_wq = alloc_workqueue("iwtcp_cm", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	return iwtcp_cm_wq ? 0 : -ENOMEM;
}

/**
 * iwtcp_cm_exit() - module exit of the connection manager
 *
 * Every device is gone by now, and with them every endpoint.
 *
 * Context: module exit.
 */
void iwtcp_cm_exit(void)
{
	destroy_workqueue(iwtcp_cm_wq);
}
