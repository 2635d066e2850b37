// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Module init and exit, the "iwtcp" rdma link type, device creation and
 * the netdev notifier.
 *
 * DOC: Devices
 *
 * ``rdma link add NAME type iwtcp netdev DEV`` creates one RDMA device
 * bound to one netdev; ``rdma link delete NAME`` (or the netdev going
 * away) unregisters it, and the RDMA core frees it through
 * ib_dealloc_device() once the last user is gone.
 *
 * iwtcp is driven by the stock libsiw provider and so carries the siw
 * driver id. It therefore refuses to create a device while a device of
 * the kernel's siw driver exists (the two would claim each other's
 * devices), and every lookup by driver id checks the ops table to find
 * iwtcp's own devices only.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "iwtcp.h"
#include "cm.h"
#include "cq.h"
#include "crc.h"
#include "mem.h"
#include "qp.h"
#include "qp_dp.h"
#include "ring.h"
#include "settings.h"
#include "srq.h"
#include "stats.h"
#include "verbs.h"

/* Devices of the kernel's siw driver seen by iwtcp_client. */
static atomic_t iwtcp_foreign_siw = ATOMIC_INIT(0);

/*
 * Serialises link creation: the lookup of an existing device on the
 * netdev and the registration of a new one must not interleave.
 */
static DEFINE_MUTEX(iwtcp_newlink_lock);

/*
 * Every iwtcp device from just before its registration on, for module
 * exit to unregister iwtcp's own and nobody else's (ib_unregister_driver()
 * goes by driver id, and the kernel's siw carries the same one). The
 * list holds a reference to each device's struct device, so an entry
 * stays valid after the core unregistered and released the device;
 * dealloc_driver only marks it @dead, and newlink drops the dead ones.
 * Module exit takes each entry off and calls ib_unregister_device():
 * every dealloc_driver of a listed device runs under the device's
 * unregistration lock, which that call waits for, so no iwtcp code runs
 * for the device afterwards. The unregistration lock comes before
 * iwtcp_devices_lock, which is never held across a call into the core.
 */
static LIST_HEAD(iwtcp_devices);
static DEFINE_MUTEX(iwtcp_devices_lock);

static void iwtcp_dealloc_driver(struct ib_device *base_dev)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_dev);

	mutex_lock(&iwtcp_devices_lock);
	dev->dead = true;
	mutex_unlock(&iwtcp_devices_lock);
	WARN_ON_ONCE(!xa_empty(&dev->qp_xa) || !xa_empty(&dev->mem_xa) ||
		     !xa_empty(&dev->counters));
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->mem_xa);
	xa_destroy(&dev->counters);
	mutex_destroy(&dev->settings_lock);
	iwtcp_stats_free(dev);
	ibdev_dbg(base_dev, "device freed\n");
}

static const struct ib_device_ops iwtcp_device_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = SIW_ABI_VERSION,
	.driver_id = RDMA_DRIVER_SIW,
	.device_group = &iwtcp_settings_group,

	.alloc_hw_port_stats = iwtcp_alloc_hw_port_stats,
	.alloc_mr = iwtcp_alloc_mr,
	.alloc_pd = iwtcp_alloc_pd,
	.alloc_ucontext = iwtcp_alloc_ucontext,
	.counter_alloc_stats = iwtcp_counter_alloc_stats,
	.counter_bind_qp = iwtcp_counter_bind_qp,
	.counter_dealloc = iwtcp_counter_dealloc,
	.counter_unbind_qp = iwtcp_counter_unbind_qp,
	.counter_update_stats = iwtcp_counter_update_stats,
	.create_cq = iwtcp_create_cq,
	.create_qp = iwtcp_create_qp,
	.create_srq = iwtcp_create_srq,
	.dealloc_driver = iwtcp_dealloc_driver,
	.dealloc_pd = iwtcp_dealloc_pd,
	.dealloc_ucontext = iwtcp_dealloc_ucontext,
	.dereg_mr = iwtcp_dereg_mr,
	.destroy_cq = iwtcp_destroy_cq,
	.destroy_qp = iwtcp_destroy_qp,
	.destroy_srq = iwtcp_destroy_srq,
	.disassociate_ucontext = iwtcp_disassociate_ucontext,
	.fill_res_cq_entry = iwtcp_fill_res_cq_entry,
	.fill_res_mr_entry = iwtcp_fill_res_mr_entry,
	.fill_res_qp_entry = iwtcp_fill_res_qp_entry,
	.get_dev_fw_str = iwtcp_get_dev_fw_str,
	.get_dma_mr = iwtcp_get_dma_mr,
	.get_hw_stats = iwtcp_get_hw_stats,
	.get_port_immutable = iwtcp_get_port_immutable,
	.iw_accept = iwtcp_accept,
	.iw_add_ref = iwtcp_qp_add_ref,
	.iw_connect = iwtcp_connect,
	.iw_create_listen = iwtcp_create_listen,
	.iw_destroy_listen = iwtcp_destroy_listen,
	.iw_get_qp = iwtcp_get_qp,
	.iw_reject = iwtcp_reject,
	.iw_rem_ref = iwtcp_qp_rem_ref,
	.map_mr_sg = iwtcp_map_mr_sg,
	.mmap = iwtcp_mmap,
	.mmap_free = iwtcp_mmap_free,
	.modify_qp = iwtcp_modify_qp,
	.modify_srq = iwtcp_modify_srq,
	.poll_cq = iwtcp_poll_cq,
	.post_recv = iwtcp_post_recv,
	.post_send = iwtcp_post_send,
	.post_srq_recv = iwtcp_post_srq_recv,
	.pre_destroy_cq = iwtcp_pre_destroy_cq,
	.query_device = iwtcp_query_device,
	.query_gid = iwtcp_query_gid,
	.query_port = iwtcp_query_port,
	.query_qp = iwtcp_query_qp,
	.query_srq = iwtcp_query_srq,
	.reg_user_mr = iwtcp_reg_user_mr,
	.req_notify_cq = iwtcp_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, iwtcp_cq, base_cq),
	INIT_RDMA_OBJ_SIZE(ib_pd, iwtcp_pd, base_pd),
	INIT_RDMA_OBJ_SIZE(ib_qp, iwtcp_qp, base_qp),
	INIT_RDMA_OBJ_SIZE(ib_srq, iwtcp_srq, base_srq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, iwtcp_ucontext, base_ucontext),
};

static bool iwtcp_is_ours(struct ib_device *base_dev)
{
	return base_dev->ops.dealloc_driver == iwtcp_dealloc_driver;
}

/* iwtcp device bound to @netdev, with a reference, or NULL. */
static struct iwtcp_device *iwtcp_device_get(struct net_device *netdev)
{
	struct ib_device *base_dev;

	base_dev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (!base_dev)
		return NULL;
	if (!iwtcp_is_ours(base_dev)) {
		ib_device_put(base_dev);
		return NULL;
	}
	return to_iwtcp_dev(base_dev);
}

/*
 * A netdev can carry iWARP if it carries TCP: an Ethernet-like or raw IP
 * link type with an IPv4 or IPv6 layer attached (both are detached when
 * the MTU is too small for them).
 */
static int iwtcp_netdev_usable(struct net_device *netdev)
{
	bool ip;

	switch (netdev->type) {
	case ARPHRD_ETHER:
	case ARPHRD_IEEE802:
	case ARPHRD_NONE:
	case ARPHRD_LOOPBACK:
		break;
	default:
		pr_err("%s: link type %u cannot carry TCP\n", netdev->name,
		       netdev->type);
		return -EPROTONOSUPPORT;
	}
	rcu_read_lock();
	ip = rcu_access_pointer(netdev->ip_ptr) ||
	     rcu_access_pointer(netdev->ip6_ptr);
	rcu_read_unlock();
	if (!ip) {
		pr_err("%s: no IPv4 or IPv6 on this netdev (MTU %u)\n",
		       netdev->name, netdev->mtu);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

static struct iwtcp_device *iwtcp_device_alloc(struct net_device *netdev)
{
	struct iwtcp_device *dev;
	struct ib_device *base_dev;

	dev = ib_alloc_device(iwtcp_device, base_dev);
	if (!dev)
		return NULL;
	base_dev = &dev->base_dev;
	if (netdev->addr_len >= ETH_ALEN)
		memcpy(dev->mac, netdev->dev_addr, ETH_ALEN);
	else
		eth_random_addr(dev->mac);
	addrconf_addr_eui48((u8 *)&base_dev->node_guid, dev->mac);
	base_dev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	base_dev->node_type = RDMA_NODE_RNIC;
	strscpy(base_dev->node_desc, "iwtcp software iWARP",
		sizeof(base_dev->node_desc));
	base_dev->phys_port_cnt = 1;
	base_dev->num_comp_vectors = 1;
	base_dev->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(base_dev->iw_ifname, netdev->name, sizeof(base_dev->iw_ifname));
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->mem_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
	spin_lock_init(&dev->mac_lock);
	mutex_init(&dev->settings_lock);
	ib_set_device_ops(base_dev, &iwtcp_device_ops);
	/* ib_dealloc_device() calls dealloc_driver: it frees what is set */
	if (iwtcp_stats_init(dev)) {
		ib_dealloc_device(base_dev);
		return NULL;
	}
	return dev;
}

/* Take @dev off iwtcp_devices and drop the list's reference. */
static void iwtcp_devices_del(struct iwtcp_device *dev)
{
	mutex_lock(&iwtcp_devices_lock);
	list_del(&dev->list);
	mutex_unlock(&iwtcp_devices_lock);
	put_device(&dev->base_dev.dev);
}

/*
 * List @dev, and drop the devices that dealloc_driver marked dead since
 * (their references are put outside the lock: the last one frees).
 */
static void iwtcp_devices_add(struct iwtcp_device *dev)
{
	struct iwtcp_device *pos, *tmp;
	LIST_HEAD(dead);

	get_device(&dev->base_dev.dev);
	mutex_lock(&iwtcp_devices_lock);
	list_for_each_entry_safe(pos, tmp, &iwtcp_devices, list)
		if (pos->dead)
			list_move(&pos->list, &dead);
	list_add_tail(&dev->list, &iwtcp_devices);
	mutex_unlock(&iwtcp_devices_lock);
	list_for_each_entry_safe(pos, tmp, &dead, list)
		put_device(&pos->base_dev.dev);
}

static int iwtcp_newlink_locked(const char *name, struct net_device *netdev)
{
	struct iwtcp_device *dev;
	int rv;

	lockdep_assert_held(&iwtcp_newlink_lock);
	if (atomic_read(&iwtcp_foreign_siw)) {
		pr_err("%s: a device of the kernel's siw driver exists; iwtcp and siw share the siw user ABI id and cannot run together\n",
		       name);
		return -EBUSY;
	}
	rv = iwtcp_netdev_usable(netdev);
	if (rv)
		return rv;
	dev = iwtcp_device_get(netdev);
	if (dev) {
		ib_device_put(&dev->base_dev);
		return -EEXIST;
	}
	dev = iwtcp_device_alloc(netdev);
	if (!dev)
		return -ENOMEM;
	rv = iwtcp_settings_defaults(&dev->settings);
	if (rv) {
		pr_err("%s: module parameters mpa_* form an inconsistent set\n",
		       name);
		goto err_dealloc_device;
	}
	rv = ib_device_set_netdev(&dev->base_dev, netdev, IWTCP_PORT);
	if (rv)
		goto err_dealloc_device;
	iwtcp_compat_mark_name_assigned_by_user(&dev->base_dev);
	/* Listed before it is live: a netdev event may unregister it at once. */
	iwtcp_devices_add(dev);
	/* rdma_cm extends its wildcard listeners from here: see cm.c */
	WRITE_ONCE(dev->registrar, current);
	rv = ib_register_device(&dev->base_dev, name, NULL);
	WRITE_ONCE(dev->registrar, NULL);
	if (rv) {
		iwtcp_devices_del(dev);
		goto err_dealloc_device;
	}
	ibdev_info(&dev->base_dev, "created on %s\n", netdev->name);
	return 0;

err_dealloc_device:
	ib_dealloc_device(&dev->base_dev);
	return rv;
}

static int iwtcp_newlink(const char *name, struct net_device *netdev)
{
	int rv;

	mutex_lock(&iwtcp_newlink_lock);
	rv = iwtcp_newlink_locked(name, netdev);
	mutex_unlock(&iwtcp_newlink_lock);
	return rv;
}

static struct rdma_link_ops iwtcp_link_ops = {
	.type = "iwtcp",
	.newlink = iwtcp_newlink,
};

static void iwtcp_port_event(struct iwtcp_device *dev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &dev->base_dev,
		.element.port_num = IWTCP_PORT,
		.event = type,
	};

	ib_dispatch_event(&event);
}

static int iwtcp_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct iwtcp_device *dev = iwtcp_device_get(netdev);

	if (!dev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		iwtcp_port_event(dev, netif_running(netdev) &&
				 netif_carrier_ok(netdev) ?
				 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEADDR:
		if (netdev->addr_len >= ETH_ALEN) {
			spin_lock_bh(&dev->mac_lock);
			memcpy(dev->mac, netdev->dev_addr, ETH_ALEN);
			spin_unlock_bh(&dev->mac_lock);
		}
		iwtcp_port_event(dev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&dev->base_dev);
		break;
	default:
		break;
	}
	ib_device_put(&dev->base_dev);
	return NOTIFY_DONE;
}

static struct notifier_block iwtcp_netdev_nb = {
	.notifier_call = iwtcp_netdev_event,
};

static int iwtcp_client_add(struct ib_device *base_dev)
{
	if (base_dev->ops.driver_id != RDMA_DRIVER_SIW || iwtcp_is_ours(base_dev))
		return -EOPNOTSUPP;
	atomic_inc(&iwtcp_foreign_siw);
	pr_warn("%s: siw device present; unload siw before using iwtcp\n",
		dev_name(&base_dev->dev));
	return 0;
}

static void iwtcp_client_remove(struct ib_device *base_dev, void *data)
{
	atomic_dec(&iwtcp_foreign_siw);
}

/* Watches for devices of the kernel's siw driver (same driver id). */
static struct ib_client iwtcp_client = {
	.name = "iwtcp",
	.add = iwtcp_client_add,
	.remove = iwtcp_client_remove,
};

static int __init iwtcp_init(void)
{
	int rv;

	rv = iwtcp_crc_init();
	if (rv)
		return rv;
	rv = iwtcp_qp_tx_wq_init();
	if (rv)
		goto err_crc_exit;
	rv = iwtcp_qp_rx_wq_init();
	if (rv)
		goto err_tx_exit;
	rv = iwtcp_cm_init();
	if (rv)
		goto err_rx_exit;
	rv = ib_register_client(&iwtcp_client);
	if (rv)
		goto err_cm_exit;
	rv = register_netdevice_notifier(&iwtcp_netdev_nb);
	if (rv)
		goto err_unregister_client;
	rdma_link_register(&iwtcp_link_ops);
	pr_info("loaded, CRC32c by %s\n", iwtcp_crc_driver());
	return 0;

err_unregister_client:
	ib_unregister_client(&iwtcp_client);
err_cm_exit:
	iwtcp_cm_exit();
err_rx_exit:
	iwtcp_qp_rx_wq_exit();
err_tx_exit:
	iwtcp_qp_tx_wq_exit();
err_crc_exit:
	iwtcp_crc_exit();
	return rv;
}

/*
 * Unregister every listed device, also one whose unregistration the
 * netdev notifier queued or a link delete runs: ib_unregister_device()
 * waits on the unregistration lock for it, dealloc_driver included, and
 * returns at once for a device already gone. The list's reference kept
 * the memory until here.
 */
static void iwtcp_unregister_devices(void)
{
	struct iwtcp_device *dev;

	for (;;) {
		mutex_lock(&iwtcp_devices_lock);
		dev = list_first_entry_or_null(&iwtcp_devices,
					       struct iwtcp_device, list);
		if (dev)
			list_del(&dev->list);
		mutex_unlock(&iwtcp_devices_lock);
		if (!dev)
			return;
		ib_unregister_device(&dev->base_dev);
		put_device(&dev->base_dev.dev);
	}
}

static void __exit iwtcp_exit(void)
{
	/* No new device after this: it waits for a newlink under way. */
	rdma_link_unregister(&iwtcp_link_ops);
	unregister_netdevice_notifier(&iwtcp_netdev_nb);
	iwtcp_unregister_devices();
	ib_unregister_client(&iwtcp_client);
	iwtcp_cm_exit();
	iwtcp_qp_rx_wq_exit();
	iwtcp_qp_tx_wq_exit();
	iwtcp_crc_exit();
	pr_info("unloaded\n");
}

module_init(iwtcp_init);
module_exit(iwtcp_exit);

MODULE_AUTHOR("iwtcp developers");
MODULE_DESCRIPTION("iWARP (MPA, DDP, RDMAP) over in-kernel TCP sockets");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(IWTCP_VERSION);
MODULE_ALIAS_RDMA_LINK("iwtcp");
