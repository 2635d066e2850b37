/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_VERBS_H
#define IWTCP_VERBS_H

#include "iwtcp.h"

void iwtcp_get_dev_fw_str(struct ib_device *base_dev, char *str);
int iwtcp_query_device(struct ib_device *base_dev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int iwtcp_query_port(struct ib_device *base_dev, u32 port,
		     struct ib_port_attr *attr);
int iwtcp_get_port_immutable(struct ib_device *base_dev, u32 port,
			     struct ib_port_immutable *immutable);
int iwtcp_query_gid(struct ib_device *base_dev, u32 port, int index,
		    union ib_gid *gid);
int iwtcp_alloc_ucontext(struct ib_ucontext *base_ucontext,
			 struct ib_udata *udata);
void iwtcp_dealloc_ucontext(struct ib_ucontext *base_ucontext);
void iwtcp_disassociate_ucontext(struct ib_ucontext *base_ucontext);
int iwtcp_alloc_pd(struct ib_pd *base_pd, struct ib_udata *udata);
int iwtcp_dealloc_pd(struct ib_pd *base_pd, struct ib_udata *udata);

#endif /* IWTCP_VERBS_H */
