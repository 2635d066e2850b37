// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iw_cm provider. Connection establishment (MPA start-up, RFC 5044
 * section 7.1 with RFC 6581) is not in this version of the driver: every
 * entry point answers -EOPNOTSUPP and says so once per burst in the log,
 * so a ULP gets a clear error instead of a hang.
 */
#include "iwtcp.h"
#include "cm.h"

static int cm_unavailable(struct iw_cm_id *cm_id, const char *what)
{
	ibdev_warn_ratelimited(cm_id->device,
			       "%s: connection establishment not available yet\n",
			       what);
	return -EOPNOTSUPP;
}

/**
 * iwtcp_connect() - ib_device_ops.iw_connect
 * @cm_id: the iw_cm endpoint
 * @param: connection parameters
 *
 * Context: process context.
 * Return: -EOPNOTSUPP.
 */
int iwtcp_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	return cm_unavailable(cm_id, "connect");
}

/**
 * iwtcp_accept() - ib_device_ops.iw_accept
 * @cm_id: the iw_cm endpoint
 * @param: connection parameters
 *
 * Context: process context.
 * Return: -EOPNOTSUPP.
 */
int iwtcp_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	return cm_unavailable(cm_id, "accept");
}

/**
 * iwtcp_reject() - ib_device_ops.iw_reject
 * @cm_id: the iw_cm endpoint
 * @pdata: private data for the peer
 * @pdata_len: bytes in @pdata
 *
 * Context: process context.
 * Return: -EOPNOTSUPP.
 */
int iwtcp_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	return cm_unavailable(cm_id, "reject");
}

/**
 * iwtcp_create_listen() - ib_device_ops.iw_create_listen
 * @cm_id: the iw_cm endpoint
 * @backlog: listen backlog
 *
 * Context: process context.
 * Return: -EOPNOTSUPP.
 */
int iwtcp_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	return cm_unavailable(cm_id, "listen");
}

/**
 * iwtcp_destroy_listen() - ib_device_ops.iw_destroy_listen
 * @cm_id: the iw_cm endpoint
 *
 * Context: process context.
 * Return: 0; no listener can exist.
 */
int iwtcp_destroy_listen(struct iw_cm_id *cm_id)
{
	return 0;
}
