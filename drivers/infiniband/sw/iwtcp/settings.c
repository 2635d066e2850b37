// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-device protocol settings: sysfs files under
 * /sys/class/infiniband/<dev>/, with module parameters as the defaults of
 * new devices.
 */

/**
 * DOC: Settings
 *
 * Each device carries the MPA start-up choices of RFC 5044 and RFC 6581
 * that its connections use. They are read and written at run time under
 * ``/sys/class/infiniband/<dev>/``; a connection copies them when it
 * starts, so a change applies to connections set up afterwards. The
 * module parameters of the same names are the values a new device starts
 * with (changing one later does not touch existing devices).
 *
 * ============== ============================= =============================
 * file           values                        default
 * ============== ============================= =============================
 * mpa_revision   1 (RFC 5044) or 2 (RFC 6581)  2
 * mpa_enhanced   0 or 1: RFC 6581 IRD/ORD word 1
 * mpa_crc        off, on, required             on
 * mpa_markers    off, on, required             on (honoured, not requested)
 * mpa_p2p        0 or 1: peer-to-peer model    1
 * mpa_rtr        any of send, write, read      send write read
 * mpa_ird        0 to 128: inbound Reads       128
 * mpa_ord        0 to 128: outbound Reads      128
 * mpa_large_fpdu 0 or 1: FPDUs beyond the MSS  0
 * ============== ============================= =============================
 *
 * CRC "on" sends C=1; "off" sends C=0 and follows the peer; "required"
 * is "on" (C=1 in either frame makes CRCs mandatory both ways, RFC 5044
 * 7.1.1). Markers "on" sends M=0 and inserts markers when the peer asks
 * (RFC 5044 4.3); "required" also asks the peer (M=1); "off" refuses a
 * peer that asks, which RFC 5044 does not allow: it exists for peers
 * that break on markers. mpa_rtr lists the RTR types (RFC 6581 9.2) the
 * device accepts as responder; as initiator it offers one of them, the
 * first of read, write and send (read by default: the one type iw_cxgb4,
 * irdma, siw and iwtcp all take; mpa.c, init_offer()). mpa_large_fpdu
 * sets the G bit the kernel's siw uses (MPA_RR_FLAG_GSO_EXP, a reserved
 * bit of RFC 5044 7.1.1): this side takes FPDUs larger than the MSS, and
 * sends FPDUs of up to 32 KiB when the peer's frame has G too, letting
 * TCP segment them (RFC 5044 4.5 asks senders to align FPDUs with TCP
 * segments; peers that set G waive it).
 *
 * A write that would leave an inconsistent set fails with EINVAL: the
 * enhanced word needs revision 2 and at least one RTR type, peer-to-peer
 * needs the enhanced word. Change them in dependency order (to go to
 * revision 1: mpa_p2p 0, mpa_enhanced 0, then mpa_revision 1).
 *
 * Upstream, new device parameters belong in RDMA netlink; sysfs is used
 * here because the out-of-tree driver cannot extend the netlink ABI.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "settings.h"

static const char * const pref_name[] = {
	[IWTCP_MPA_OFF] = "off",
	[IWTCP_MPA_ON] = "on",
	[IWTCP_MPA_REQUIRED] = "required",
};

static const struct {
	u8 bit;
	const char *name;
} rtr_name[] = {
	{ IWTCP_MPA_RTR_SEND, "send" },
	{ IWTCP_MPA_RTR_WRITE, "write" },
	{ IWTCP_MPA_RTR_READ, "read" },
};

/* The field of struct iwtcp_mpa_settings a setting lives in. */
enum setting {
	SET_REVISION,
	SET_ENHANCED,
	SET_CRC,
	SET_MARKERS,
	SET_P2P,
	SET_RTR,
	SET_IRD,
	SET_ORD,
	SET_LARGE_FPDU,
};

static int parse_rtr(const char *buf, u8 *rtr)
{
	char *copy, *cur, *tok;
	int rv = 0;
	size_t i;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	*rtr = 0;
	cur = strim(copy);
	while (!rv && (tok = strsep(&cur, " ,")) != NULL) {
		if (!*tok)
			continue;
		for (i = 0; i < ARRAY_SIZE(rtr_name); i++)
			if (!strcmp(tok, rtr_name[i].name))
				break;
		if (i == ARRAY_SIZE(rtr_name))
			rv = -EINVAL;
		else
			*rtr |= rtr_name[i].bit;
	}
	kfree(copy);
	return rv;
}

/* Parse @buf into field @which of @s; does not check the whole set. */
static int setting_parse(struct iwtcp_mpa_settings *s, enum setting which,
			 const char *buf)
{
	unsigned int v;
	bool b;
	int i;

	switch (which) {
	case SET_CRC:
	case SET_MARKERS:
		i = sysfs_match_string(pref_name, buf);
		if (i < 0)
			return -EINVAL;
		if (which == SET_CRC)
			s->crc = i;
		else
			s->markers = i;
		return 0;
	case SET_RTR:
		return parse_rtr(buf, &s->rtr_types);
	case SET_ENHANCED:
	case SET_P2P:
	case SET_LARGE_FPDU:
		if (kstrtobool(buf, &b))
			return -EINVAL;
		if (which == SET_ENHANCED)
			s->enhanced = b;
		else if (which == SET_P2P)
			s->p2p = b;
		else
			s->large_fpdu = b;
		return 0;
	default:
		break;
	}
	if (kstrtouint(buf, 0, &v))
		return -EINVAL;
	if (which == SET_REVISION) {
		s->revision = v;
		return v == 1 || v == 2 ? 0 : -EINVAL;
	}
	if (v > (which == SET_IRD ? IWTCP_MAX_IRD : IWTCP_MAX_ORD))
		return -EINVAL;
	if (which == SET_IRD)
		s->ird = v;
	else
		s->ord = v;
	return 0;
}

static int setting_show(const struct iwtcp_mpa_settings *s,
			enum setting which, char *buf)
{
	int len = 0;
	size_t i;

	switch (which) {
	case SET_REVISION:
		return sysfs_emit(buf, "%u\n", s->revision);
	case SET_ENHANCED:
		return sysfs_emit(buf, "%d\n", s->enhanced);
	case SET_CRC:
		return sysfs_emit(buf, "%s\n", pref_name[s->crc]);
	case SET_MARKERS:
		return sysfs_emit(buf, "%s\n", pref_name[s->markers]);
	case SET_P2P:
		return sysfs_emit(buf, "%d\n", s->p2p);
	case SET_IRD:
		return sysfs_emit(buf, "%u\n", s->ird);
	case SET_ORD:
		return sysfs_emit(buf, "%u\n", s->ord);
	case SET_LARGE_FPDU:
		return sysfs_emit(buf, "%d\n", s->large_fpdu);
	case SET_RTR:
		for (i = 0; i < ARRAY_SIZE(rtr_name); i++)
			if (s->rtr_types & rtr_name[i].bit)
				len += sysfs_emit_at(buf, len, "%s%s",
						     len ? " " : "",
						     rtr_name[i].name);
		return len + sysfs_emit_at(buf, len, "\n");
	}
	return -EINVAL;
}

/* Module parameters: the settings of devices created from now on. */
static struct iwtcp_mpa_settings iwtcp_defaults = {
	.revision = IWTCP_MPA_REV_2,
	.enhanced = true,
	.crc = IWTCP_MPA_ON,
	.markers = IWTCP_MPA_ON,
	.p2p = true,
	.rtr_types = IWTCP_MPA_RTR_ALL,
	.ird = IWTCP_MAX_IRD,
	.ord = IWTCP_MAX_ORD,
};

static DEFINE_MUTEX(iwtcp_defaults_lock);

static int param_set(const char *val, const struct kernel_param *kp)
{
	struct iwtcp_mpa_settings s;
	int rv;

	mutex_lock(&iwtcp_defaults_lock);
	s = iwtcp_defaults;
	rv = setting_parse(&s, (enum setting)(uintptr_t)kp->arg, val);
	if (!rv)
		iwtcp_defaults = s;
	mutex_unlock(&iwtcp_defaults_lock);
	return rv;
}

static int param_get(char *buf, const struct kernel_param *kp)
{
	int rv;

	mutex_lock(&iwtcp_defaults_lock);
	rv = setting_show(&iwtcp_defaults, (enum setting)(uintptr_t)kp->arg,
			  buf);
	mutex_unlock(&iwtcp_defaults_lock);
	return rv;
}

static const struct kernel_param_ops setting_param_ops = {
	.set = param_set,
	.get = param_get,
};

module_param_cb(mpa_revision, &setting_param_ops, (void *)SET_REVISION, 0644);
MODULE_PARM_DESC(mpa_revision, "MPA revision of new devices: 1 or 2 (default 2)");
module_param_cb(mpa_enhanced, &setting_param_ops, (void *)SET_ENHANCED, 0644);
MODULE_PARM_DESC(mpa_enhanced, "RFC 6581 IRD/ORD negotiation on new devices (default 1)");
module_param_cb(mpa_crc, &setting_param_ops, (void *)SET_CRC, 0644);
MODULE_PARM_DESC(mpa_crc, "MPA CRC of new devices: off, on, required (default on)");
module_param_cb(mpa_markers, &setting_param_ops, (void *)SET_MARKERS, 0644);
MODULE_PARM_DESC(mpa_markers, "MPA markers of new devices: off, on, required (default on)");
module_param_cb(mpa_p2p, &setting_param_ops, (void *)SET_P2P, 0644);
MODULE_PARM_DESC(mpa_p2p, "peer-to-peer model on new devices (default 1)");
module_param_cb(mpa_rtr, &setting_param_ops, (void *)SET_RTR, 0644);
MODULE_PARM_DESC(mpa_rtr, "RTR types of new devices: send, write, read (default all)");
module_param_cb(mpa_ird, &setting_param_ops, (void *)SET_IRD, 0644);
MODULE_PARM_DESC(mpa_ird, "IRD limit of new devices, 0-128 (default 128)");
module_param_cb(mpa_ord, &setting_param_ops, (void *)SET_ORD, 0644);
MODULE_PARM_DESC(mpa_ord, "ORD limit of new devices, 0-128 (default 128)");
module_param_cb(mpa_large_fpdu, &setting_param_ops, (void *)SET_LARGE_FPDU,
		0644);
MODULE_PARM_DESC(mpa_large_fpdu, "FPDUs beyond the MSS with peers that take them, on new devices (default 0)");

/**
 * iwtcp_settings_defaults() - the settings a new device starts with
 * @s: filled from the module parameters
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL when the module parameters form an inconsistent
 * set (see iwtcp_mpa_settings_check(); RFC 6581 6 and 9.2).
 */
int iwtcp_settings_defaults(struct iwtcp_mpa_settings *s)
{
	mutex_lock(&iwtcp_defaults_lock);
	*s = iwtcp_defaults;
	mutex_unlock(&iwtcp_defaults_lock);
	return iwtcp_mpa_settings_check(s);
}

/**
 * iwtcp_settings_get() - copy a device's settings for a new connection
 * @dev: the device
 * @s: the copy
 *
 * Context: process context, may sleep (takes the device's settings lock).
 */
void iwtcp_settings_get(struct iwtcp_device *dev, struct iwtcp_mpa_settings *s)
{
	mutex_lock(&dev->settings_lock);
	*s = dev->settings;
	mutex_unlock(&dev->settings_lock);
}

static ssize_t attr_show(struct device *device, enum setting which, char *buf)
{
	struct iwtcp_device *dev = rdma_device_to_drv_device(device,
							     struct iwtcp_device,
							     base_dev);
	struct iwtcp_mpa_settings s;

	iwtcp_settings_get(dev, &s);
	return setting_show(&s, which, buf);
}

static ssize_t attr_store(struct device *device, enum setting which,
			  const char *buf, size_t count)
{
	struct iwtcp_device *dev = rdma_device_to_drv_device(device,
							     struct iwtcp_device,
							     base_dev);
	struct iwtcp_mpa_settings s;
	int rv;

	mutex_lock(&dev->settings_lock);
	s = dev->settings;
	rv = setting_parse(&s, which, buf);
	if (!rv)
		rv = iwtcp_mpa_settings_check(&s);
	if (!rv)
		dev->settings = s;
	mutex_unlock(&dev->settings_lock);
	return rv ? rv : count;
}

/* A sysfs file and the setting it shows. */
struct setting_attr {
	struct device_attribute attr;
	enum setting which;
};

static ssize_t setting_attr_show(struct device *device,
				 struct device_attribute *attr, char *buf)
{
	return attr_show(device, container_of(attr, struct setting_attr,
					      attr)->which, buf);
}

static ssize_t setting_attr_store(struct device *device,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	return attr_store(device, container_of(attr, struct setting_attr,
					       attr)->which, buf, count);
}

#define IWTCP_SETTING_ATTR(_name, _which)				\
	static struct setting_attr setting_##_name = {			\
		.attr = __ATTR(_name, 0644, setting_attr_show,		\
			       setting_attr_store),			\
		.which = _which,					\
	}

IWTCP_SETTING_ATTR(mpa_revision, SET_REVISION);
IWTCP_SETTING_ATTR(mpa_enhanced, SET_ENHANCED);
IWTCP_SETTING_ATTR(mpa_crc, SET_CRC);
IWTCP_SETTING_ATTR(mpa_markers, SET_MARKERS);
IWTCP_SETTING_ATTR(mpa_p2p, SET_P2P);
IWTCP_SETTING_ATTR(mpa_rtr, SET_RTR);
IWTCP_SETTING_ATTR(mpa_ird, SET_IRD);
IWTCP_SETTING_ATTR(mpa_ord, SET_ORD);
IWTCP_SETTING_ATTR(mpa_large_fpdu, SET_LARGE_FPDU);

static struct attribute *iwtcp_settings_attrs[] = {
	&setting_mpa_revision.attr.attr,
	&setting_mpa_enhanced.attr.attr,
	&setting_mpa_crc.attr.attr,
	&setting_mpa_markers.attr.attr,
	&setting_mpa_p2p.attr.attr,
	&setting_mpa_rtr.attr.attr,
	&setting_mpa_ird.attr.attr,
	&setting_mpa_ord.attr.attr,
	&setting_mpa_large_fpdu.attr.attr,
	NULL
};

const struct attribute_group iwtcp_settings_group = {
	.attrs = iwtcp_settings_attrs,
};
