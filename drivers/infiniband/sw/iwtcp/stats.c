// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-port counters: ``rdma statistic show link DEV/1`` and
 * /sys/class/infiniband/DEV/ports/1/hw_counters/.
 *
 * DOC: Counters
 *
 * Each device counts in per-CPU slots (this_cpu_add(), safe in any
 * context); a read sums the slots. The counters are what the device
 * wrote to and read from TCP, so a capture of the connection can be
 * checked against them: one FPDU carries one DDP segment (RFC 5044 4,
 * RFC 5041 5), start-up RTRs and TERMs included, MPA Request and Reply
 * frames not.
 */
#include <linux/percpu.h>

#include "iwtcp.h"
#include "stats.h"

static const struct rdma_stat_desc iwtcp_stat_descs[IWTCP_NR_STATS] = {
	[IWTCP_STAT_TX_FPDUS].name = "tx_fpdus",
	[IWTCP_STAT_TX_OCTETS].name = "tx_fpdu_octets",
	[IWTCP_STAT_TX_INLINE_FPDUS].name = "tx_inline_fpdus",
	[IWTCP_STAT_RX_FPDUS].name = "rx_fpdus",
	[IWTCP_STAT_RX_OCTETS].name = "rx_fpdu_octets",
	[IWTCP_STAT_RX_CRC_ERRORS].name = "rx_crc_errors",
	[IWTCP_STAT_RX_MARKER_ERRORS].name = "rx_marker_errors",
	[IWTCP_STAT_TX_TERMS].name = "tx_terms",
	[IWTCP_STAT_RX_TERMS].name = "rx_terms",
	[IWTCP_STAT_TX_TERMS_RDMAP].name = "tx_terms_rdmap",
	[IWTCP_STAT_TX_TERMS_DDP].name = "tx_terms_ddp",
	[IWTCP_STAT_TX_TERMS_LLP].name = "tx_terms_llp",
	[IWTCP_STAT_RX_TERMS_RDMAP].name = "rx_terms_rdmap",
	[IWTCP_STAT_RX_TERMS_DDP].name = "rx_terms_ddp",
	[IWTCP_STAT_RX_TERMS_LLP].name = "rx_terms_llp",
	[IWTCP_STAT_CM_CONNECTS].name = "cm_connects",
	[IWTCP_STAT_CM_REQUESTS].name = "cm_requests",
	[IWTCP_STAT_CM_ACCEPTS].name = "cm_accepts",
	[IWTCP_STAT_CM_ESTABLISHED].name = "cm_established",
	[IWTCP_STAT_CM_REJECTS_SENT].name = "cm_rejects_sent",
	[IWTCP_STAT_CM_REJECTS_RCVD].name = "cm_rejects_received",
	[IWTCP_STAT_CM_TIMEOUTS].name = "cm_timeouts",
	[IWTCP_STAT_MPA_BAD_FRAMES].name = "mpa_bad_frames",
	[IWTCP_STAT_MPA_INSUFF_IRD].name = "mpa_insufficient_ird",
	[IWTCP_STAT_MPA_NO_RTR].name = "mpa_no_matching_rtr",
	[IWTCP_STAT_MPA_CATASTROPHIC].name = "mpa_catastrophic",
};

/**
 * iwtcp_stats_init() - allocate a device's counters
 * @dev: the device, not registered yet
 *
 * Context: process context.
 * Return: 0 or -ENOMEM. iwtcp_stats_free() releases them.
 */
int iwtcp_stats_init(struct iwtcp_device *dev)
{
	dev->stats = alloc_percpu(struct iwtcp_stats);
	return dev->stats ? 0 : -ENOMEM;
}

/**
 * iwtcp_stats_free() - release a device's counters
 * @dev: the device, being freed (ib_device_ops.dealloc_driver)
 *
 * Context: process context.
 */
void iwtcp_stats_free(struct iwtcp_device *dev)
{
	free_percpu(dev->stats);
	dev->stats = NULL;
}

/**
 * iwtcp_stat_mpa_error() - count an FPDU that failed MPA's checks
 * @dev: the device that read it
 * @ecode: the MPA TERMINATE code it gets (RFC 5044 8): %IWTCP_TERM_MPA_CRC
 *	counts a CRC error, %IWTCP_TERM_MPA_MARKER a marker error, other
 *	codes nothing
 *
 * The MPA start-up (cm.c) and the data path (qp_rx.c) count through here.
 *
 * Context: any context.
 */
void iwtcp_stat_mpa_error(struct iwtcp_device *dev, u8 ecode)
{
	if (ecode == IWTCP_TERM_MPA_CRC)
		iwtcp_stat_add(dev, IWTCP_STAT_RX_CRC_ERRORS, 1);
	else if (ecode == IWTCP_TERM_MPA_MARKER)
		iwtcp_stat_add(dev, IWTCP_STAT_RX_MARKER_ERRORS, 1);
}

/**
 * iwtcp_stat_term() - count a TERMINATE sent or received
 * @dev: the device
 * @tx: sent (true) or received
 * @term: the TERMINATE, NULL for a received one that did not parse
 *
 * Counts it in tx_terms or rx_terms, and by its layer (RFC 5040 4.8) in
 * the matching tx_terms_LAYER or rx_terms_LAYER.
 *
 * Context: any context.
 */
void iwtcp_stat_term(struct iwtcp_device *dev, bool tx,
		     const struct iwtcp_rdmap_term *term)
{
	static const enum iwtcp_stat layer_tx[] = {
		[IWTCP_TERM_LAYER_RDMAP] = IWTCP_STAT_TX_TERMS_RDMAP,
		[IWTCP_TERM_LAYER_DDP] = IWTCP_STAT_TX_TERMS_DDP,
		[IWTCP_TERM_LAYER_LLP] = IWTCP_STAT_TX_TERMS_LLP,
	};
	static const enum iwtcp_stat layer_rx[] = {
		[IWTCP_TERM_LAYER_RDMAP] = IWTCP_STAT_RX_TERMS_RDMAP,
		[IWTCP_TERM_LAYER_DDP] = IWTCP_STAT_RX_TERMS_DDP,
		[IWTCP_TERM_LAYER_LLP] = IWTCP_STAT_RX_TERMS_LLP,
	};

	iwtcp_stat_add(dev, tx ? IWTCP_STAT_TX_TERMS : IWTCP_STAT_RX_TERMS, 1);
	if (!term || term->cause.layer >= ARRAY_SIZE(layer_tx))
		return;
	iwtcp_stat_add(dev, tx ? layer_tx[term->cause.layer] :
				 layer_rx[term->cause.layer], 1);
}

/**
 * iwtcp_alloc_hw_port_stats() - ib_device_ops.alloc_hw_port_stats
 * @base_dev: the device
 * @port: %IWTCP_PORT
 *
 * Context: process context.
 * Return: the counter table the RDMA core fills through
 * iwtcp_get_hw_stats(), or NULL when out of memory.
 */
struct rdma_hw_stats *iwtcp_alloc_hw_port_stats(struct ib_device *base_dev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(iwtcp_stat_descs, IWTCP_NR_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * iwtcp_get_hw_stats() - ib_device_ops.get_hw_stats: sum the per-CPU slots
 * @base_dev: the device
 * @stats: the table of iwtcp_alloc_hw_port_stats(), filled
 * @port: %IWTCP_PORT
 * @index: the counter asked for; all are filled
 *
 * Context: process context, under the RDMA core's stats mutex.
 * Return: the number of counters filled.
 */
int iwtcp_get_hw_stats(struct ib_device *base_dev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct iwtcp_device *dev = to_iwtcp_dev(base_dev);
	int cpu, i;

	for (i = 0; i < IWTCP_NR_STATS; i++)
		stats->value[i] = 0;
	for_each_possible_cpu(cpu) {
		const struct iwtcp_stats *s = per_cpu_ptr(dev->stats, cpu);

		for (i = 0; i < IWTCP_NR_STATS; i++)
			stats->value[i] += READ_ONCE(s->v[i]);
	}
	return IWTCP_NR_STATS;
}
