/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_SETTINGS_H
#define IWTCP_SETTINGS_H

#include "iwtcp.h"
#include "mpa.h"

extern const struct attribute_group iwtcp_settings_group;

int iwtcp_settings_defaults(struct iwtcp_mpa_settings *s);
void iwtcp_settings_get(struct iwtcp_device *dev,
			struct iwtcp_mpa_settings *s);

#endif /* IWTCP_SETTINGS_H */
