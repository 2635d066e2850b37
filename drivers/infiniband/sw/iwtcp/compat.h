/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * iwtcp: the one place that knows kernel versions.
 *
 * iwtcp builds from one source against Debian 12's default kernel (6.1)
 * and Debian's 6.12 LTS. Every interface that differs between the two is
 * reached through an iwtcp_compat_*() helper or macro here, named after
 * the 6.12 interface it stands for, so the rest of the driver reads as
 * 6.12 code and no other file tests LINUX_VERSION_CODE. On a merge
 * upstream this file goes, and each helper becomes the call it wraps.
 *
 * The thresholds are the upstream releases that brought each change,
 * except where a comment says Debian's 6.12 has it as a backport.
 */
#ifndef IWTCP_COMPAT_H
#define IWTCP_COMPAT_H

#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/version.h>
#include <net/inet_sock.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* True when building against release a.b.c or later. */
#define IWTCP_COMPAT_SINCE(a, b, c) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

/*
 * ib_device_get_netdev(): Debian's 6.12 exports it, 6.1 keeps it inside
 * ib_core. The 6.1 body below is 6.1 ib_core's own for a driver that set
 * its netdev with ib_device_set_netdev() and has no get_netdev op. (6.12's
 * also checks port_data and hands out an unregistering netdev; iwtcp's
 * callers take either.)
 */
#if IWTCP_COMPAT_SINCE(6, 12, 0)
static inline struct net_device *
iwtcp_compat_get_netdev(struct ib_device *ibdev, u32 port)
{
	return ib_device_get_netdev(ibdev, port);
}
#else
static inline struct net_device *
iwtcp_compat_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct ib_port_data *pdata;
	struct net_device *res;

	if (!rdma_is_port_valid(ibdev, port))
		return NULL;
	pdata = &ibdev->port_data[port];
	spin_lock(&pdata->netdev_lock);
	res = rcu_dereference_protected(pdata->netdev,
					lockdep_is_held(&pdata->netdev_lock));
	dev_hold(res);
	spin_unlock(&pdata->netdev_lock);
	/* An unregistering netdev is not handed out (as ib_core does). */
	if (res && res->reg_state != NETREG_REGISTERED) {
		dev_put(res);
		return NULL;
	}
	return res;
}
#endif

/*
 * 6.6 made the inet socket flags atomic bits (inet_set_bit()); 6.1's is a
 * plain bitfield, safe to write here: the socket is not connected yet and
 * nobody else holds it.
 */
static inline void iwtcp_compat_bind_address_no_port(struct sock *sk)
{
#if IWTCP_COMPAT_SINCE(6, 6, 0)
	inet_set_bit(BIND_ADDRESS_NO_PORT, sk);
#else
	inet_sk(sk)->bind_address_no_port = 1;
#endif
}

/*
 * 6.11 hands ib_device_ops.create_cq the whole uverbs attribute bundle;
 * 6.1 hands it the driver's udata. struct iwtcp_compat_cq_attrs names
 * the argument's type, iwtcp_compat_cq_udata() gets the udata from it.
 */
#if IWTCP_COMPAT_SINCE(6, 11, 0)
#define iwtcp_compat_cq_attrs uverbs_attr_bundle
static inline struct ib_udata *
iwtcp_compat_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define iwtcp_compat_cq_attrs ib_udata
static inline struct ib_udata *iwtcp_compat_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * A device named by `rdma link add` says so (Debian's 6.12 has it as a
 * backport); 6.1 has no such mark and needs none.
 */
static inline void iwtcp_compat_mark_name_assigned_by_user(struct ib_device *ibdev)
{
#if IWTCP_COMPAT_SINCE(6, 12, 0)
	ib_mark_name_assigned_by_user(ibdev);
#endif
}

/* 6.3 made vma->vm_flags read-only outside the vm_flags_*() helpers. */
static inline void iwtcp_compat_vm_flags_clear(struct vm_area_struct *vma,
					       vm_flags_t flags)
{
#if IWTCP_COMPAT_SINCE(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * 6.12's devmem TCP may queue buffers whose page fragments the CPU cannot
 * read (net_iov); 6.1 has none.
 */
static inline bool iwtcp_compat_skb_frags_readable(const struct sk_buff *skb)
{
#if IWTCP_COMPAT_SINCE(6, 12, 0)
	return skb_frags_readable(skb);
#else
	return true;
#endif
}

/*
 * Write @msg, an ITER_BVEC over pages the caller owns, to the locked TCP
 * socket @sk, which takes the pages by reference (6.5's MSG_SPLICE_PAGES).
 * 6.1 takes them one bio_vec at a time with tcp_sendpage_locked(), which
 * knows no MSG_EOR: the tail buffer is marked here instead, as
 * tcp_sendmsg_locked() marks it. Without scatter-gather on the route TCP
 * copies instead, on both. Returns the octets TCP took (the iterator
 * advanced by as many), or, if it took none, a negative errno (or 0).
 */
static inline int iwtcp_compat_tcp_splice_locked(struct sock *sk,
						 struct msghdr *msg,
						 size_t size)
{
#if IWTCP_COMPAT_SINCE(6, 5, 0)
	msg->msg_flags |= MSG_SPLICE_PAGES;
	return tcp_sendmsg_locked(sk, msg, size);
#else
	struct iov_iter *it = &msg->msg_iter;
	int flags = msg->msg_flags & ~MSG_EOR;
	const struct bio_vec *bv;
	size_t done = 0, len;
	int rv = 0;

	while (done < size && iov_iter_count(it)) {
		bv = it->bvec;
		len = min_t(size_t, bv->bv_len - it->iov_offset, size - done);
		rv = tcp_sendpage_locked(sk, bv->bv_page,
					 bv->bv_offset + it->iov_offset, len,
					 done + len < size ?
					 flags | MSG_SENDPAGE_NOTLAST | MSG_MORE :
					 flags);
		if (rv <= 0)
			break;
		iov_iter_advance(it, rv);
		done += rv;
		if ((size_t)rv < len)
			break;
	}
	if (done == size && (msg->msg_flags & MSG_EOR) &&
	    tcp_write_queue_tail(sk))
		TCP_SKB_CB(tcp_write_queue_tail(sk))->eor = 1;
	return done ? done : rv;
#endif
}

#endif /* IWTCP_COMPAT_H */
