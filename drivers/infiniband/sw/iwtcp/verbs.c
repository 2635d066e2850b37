// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Device, port, user context and PD verbs. Queue and memory verbs live
 * with their objects (cq.c, qp.c, srq.c, mem.c).
 */
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/**
 * iwtcp_query_device() - ib_device_ops.query_device
 * @base_dev: the device
 * @attr: the limits of &enum iwtcp_limit and the vendor and part ids
 *	(%IWTCP_VENDOR_ID, %IWTCP_VENDOR_PART_ID), out
 * @udata: must carry no driver data
 *
 * Context: process context.
 * Return: 0, or -EINVAL if @udata carries driver data.
 */
int iwtcp_query_device(struct ib_device *base_dev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = IWTCP_VENDOR_ID;
	attr->vendor_part_id = IWTCP_VENDOR_PART_ID;
	/* libibverbs prints it as major (63:32), minor (31:16), sub (15:0) */
	attr->fw_ver = (u64)IWTCP_VERSION_MAJOR << 32 |
		       IWTCP_VERSION_MINOR << 16;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_mr_size = IWTCP_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = IWTCP_MAX_QP;
	attr->max_qp_wr = IWTCP_MAX_QP_WR;
	attr->max_send_sge = IWTCP_MAX_SGE;
	attr->max_recv_sge = IWTCP_MAX_SGE;
	attr->max_sge_rd = 1;	/* one sink STag per Read Request (RFC 5040 4.4) */
	attr->max_cq = IWTCP_MAX_CQ;
	attr->max_cqe = IWTCP_MAX_CQE;
	attr->max_mr = IWTCP_MAX_MR;
	attr->max_pd = IWTCP_MAX_PD;
	attr->max_qp_rd_atom = IWTCP_MAX_ORD;
	attr->max_qp_init_rd_atom = IWTCP_MAX_ORD;
	attr->max_res_rd_atom = IWTCP_MAX_QP * IWTCP_MAX_IRD;
	attr->max_srq = IWTCP_MAX_SRQ;
	attr->max_srq_wr = IWTCP_MAX_SRQ_WR;
	attr->max_srq_sge = IWTCP_MAX_SGE;
	attr->max_fast_reg_page_list_len = IWTCP_MAX_FRMR_PAGES;
	attr->sys_image_guid = base_dev->node_guid;
	return 0;
}

/**
 * iwtcp_get_dev_fw_str() - ib_device_ops.get_dev_fw_str
 * @base_dev: the device
 * @str: out, %IB_FW_VERSION_NAME_MAX octets: "MAJOR.MINOR.0", as
 *	libibverbs prints query_device's fw_ver
 *
 * Context: process context.
 */
void iwtcp_get_dev_fw_str(struct ib_device *base_dev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.0", IWTCP_VERSION_MAJOR,
		 IWTCP_VERSION_MINOR);
}

/**
 * iwtcp_query_port() - ib_device_ops.query_port: state of the netdev
 * @base_dev: the device
 * @port: %IWTCP_PORT
 * @attr: port attributes out: ACTIVE while the netdev is up with carrier,
 *	MTU from the netdev
 *
 * Context: process context.
 * Return: 0 (port DOWN once the netdev is gone), or ib_get_eth_speed()'s
 * error.
 */
int iwtcp_query_port(struct ib_device *base_dev, u32 port,
		     struct ib_port_attr *attr)
{
	struct net_device *netdev;
	bool up;
	int rv;

	memset(attr, 0, sizeof(*attr));
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = U32_MAX;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	netdev = iwtcp_compat_get_netdev(base_dev, port);
	if (!netdev) {
		/* The netdev is gone and the device is being unregistered. */
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		return 0;
	}
	rv = ib_get_eth_speed(base_dev, port, &attr->active_speed,
			      &attr->active_width);
	up = netif_running(netdev) && netif_carrier_ok(netdev);
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(netdev->max_mtu);
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	dev_put(netdev);
	return rv;
}

/**
 * iwtcp_get_port_immutable() - ib_device_ops.get_port_immutable
 * @base_dev: the device
 * @port: %IWTCP_PORT
 * @immutable: iWARP core capability, one GID, out
 *
 * Context: process context (device registration).
 * Return: 0.
 */
int iwtcp_get_port_immutable(struct ib_device *base_dev, u32 port,
			     struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/**
 * iwtcp_query_gid() - ib_device_ops.query_gid: the GID holds the MAC
 * @base_dev: the device
 * @port: %IWTCP_PORT
 * @index: 0
 * @gid: out; the netdev's MAC in the first six bytes
 *
 * Context: any context but hard interrupts; takes the MAC lock.
 * Return: 0, or -EINVAL for an index other than 0.
 */
int iwtcp_query_gid(struct ib_device *base_dev, u32 port, int index,
		    union ib_gid *gid)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_dev);

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	spin_lock_bh(&dev->mac_lock);
	memcpy(gid->raw, dev->mac, ETH_ALEN);
	spin_unlock_bh(&dev->mac_lock);
	return 0;
}

/**
 * iwtcp_alloc_ucontext() - ib_device_ops.alloc_ucontext
 * @base_ucontext: context allocated by the RDMA core
 * @udata: siw_uresp_alloc_ctx out
 *
 * Context: process context.
 * Return: 0, -EINVAL for a short response buffer, -ENOSPC at
 * %IWTCP_MAX_UCONTEXT, or the copy's -EFAULT.
 */
int iwtcp_alloc_ucontext(struct ib_ucontext *base_ucontext,
			 struct ib_udata *udata)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_ucontext->device);
	struct siw_uresp_alloc_ctx uresp = {};
	int rv;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;
	rv = iwtcp_count_get(&dev->num_ctx, IWTCP_MAX_UCONTEXT);
	if (rv)
		return rv;
	rv = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (rv)
		iwtcp_count_put(&dev->num_ctx);
	return rv;
}

/**
 * iwtcp_dealloc_ucontext() - ib_device_ops.dealloc_ucontext
 * @base_ucontext: the context; the core has destroyed its objects
 *
 * Context: process context.
 */
void iwtcp_dealloc_ucontext(struct ib_ucontext *base_ucontext)
{
	iwtcp_count_put(&to_iwtcp_dev(base_ucontext->device)->num_ctx);
}

/**
 * iwtcp_disassociate_ucontext() - ib_device_ops.disassociate_ucontext
 * @base_ucontext: context of a process that still holds the device
 *
 * Offering this op lets the device be unregistered (rdma link delete, the
 * netdev going away) while processes hold objects: the RDMA core destroys
 * their objects through the ordinary destroy verbs and their commands
 * fail with EIO from then on. Their ring mappings stay valid memory (see
 * "Queues shared with user space" in ring.c), so iwtcp has nothing more
 * to do here.
 *
 * Context: process context (device removal).
 */
void iwtcp_disassociate_ucontext(struct ib_ucontext *base_ucontext)
{
}

/**
 * iwtcp_alloc_pd() - ib_device_ops.alloc_pd
 * @base_pd: PD allocated by the RDMA core
 * @udata: unused
 *
 * Context: process context.
 * Return: 0, or -ENOSPC at %IWTCP_MAX_PD.
 */
int iwtcp_alloc_pd(struct ib_pd *base_pd, struct ib_udata *udata)
{
	return iwtcp_count_get(&to_iwtcp_dev(base_pd->device)->num_pd,
			       IWTCP_MAX_PD);
}

/**
 * iwtcp_dealloc_pd() - ib_device_ops.dealloc_pd
 * @base_pd: the PD; the core guarantees no object uses it
 * @udata: unused
 *
 * Context: process context.
 * Return: 0.
 */
int iwtcp_dealloc_pd(struct ib_pd *base_pd, struct ib_udata *udata)
{
	iwtcp_count_put(&to_iwtcp_dev(base_pd->device)->num_pd);
	return 0;
}
