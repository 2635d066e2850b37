// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-port counters: ``rdma statistic show link DEV/1`` and
 * /sys/class/infiniband/DEV/ports/1/hw_counters/; per-QP counters
 * through the RDMA core's counter interface (``rdma statistic qp``).
 *
 * DOC: Counters
 *
 * Each device counts in per-CPU slots (this_cpu_add(), safe in any
 * context); a read sums the slots. The counters are what the device
 * wrote to and read from TCP, so a capture of the connection can be
 * checked against them: one FPDU carries one DDP segment (RFC 5044 4,
 * RFC 5041 5), start-up RTRs and TERMs included, MPA Request and Reply
 * frames not.
 *
 * A QP bound to an RDMA core counter (``rdma statistic qp set link DEV/1
 * auto type on``, or ``rdma statistic qp bind``) counts its data path,
 * the FPDUs and TERMs of full operation, in that counter's slots instead
 * of the device's; the start-up (cm.c) always counts in the device's. The
 * port counters the core shows add the bound counters and those of
 * counters already released, so they still count everything once.
 *
 * The data path counts per batch, not per FPDU: transmit once TCP took a
 * batch, receive when a tcp_read_sock() call ends (qp_rx.c). So a
 * completion may show before the FPDUs that made it are counted, and a
 * batch counts in the counter bound when it ends.
 */
#include <linux/percpu.h>
#include <linux/slab.h>
#include <rdma/rdma_counter.h>

#include "iwtcp.h"
#include "stats.h"

static const struct rdma_stat_desc iwtcp_stat_descs[IWTCP_NR_STATS] = {
	[IWTCP_STAT_TX_FPDUS].name = "tx_fpdus",
	[IWTCP_STAT_TX_OCTETS].name = "tx_fpdu_octets",
	[IWTCP_STAT_TX_INLINE_FPDUS].name = "tx_inline_fpdus",
	[IWTCP_STAT_TX_DOORBELL_FPDUS].name = "tx_doorbell_fpdus",
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

/* In @qp's counter if it has one (iwtcp_qp_stat_add()), else @dev's. */
static void stat_add(struct iwtcp_device *dev, struct iwtcp_qp *qp,
		     enum iwtcp_stat i, u64 n)
{
	if (qp)
		iwtcp_qp_stat_add(qp, i, n);
	else
		iwtcp_stat_add(dev, i, n);
}

/**
 * iwtcp_stat_mpa_error() - count an FPDU that failed MPA's checks
 * @dev: the device that read it
 * @qp: the QP whose data path read it (its counter, if bound), or NULL
 * @ecode: the MPA TERMINATE code it gets (RFC 5044 8): %IWTCP_TERM_MPA_CRC
 *	counts a CRC error, %IWTCP_TERM_MPA_MARKER a marker error, other
 *	codes nothing
 *
 * The MPA start-up (cm.c) and the data path (qp_rx.c) count through here.
 *
 * Context: any context.
 */
void iwtcp_stat_mpa_error(struct iwtcp_device *dev, struct iwtcp_qp *qp,
			  u8 ecode)
{
	if (ecode == IWTCP_TERM_MPA_CRC)
		stat_add(dev, qp, IWTCP_STAT_RX_CRC_ERRORS, 1);
	else if (ecode == IWTCP_TERM_MPA_MARKER)
		stat_add(dev, qp, IWTCP_STAT_RX_MARKER_ERRORS, 1);
}

/**
 * iwtcp_stat_term() - count a TERMINATE sent or received
 * @dev: the device
 * @qp: the QP whose data path sent or read it, or NULL (the start-up)
 * @tx: sent (true) or received
 * @term: the TERMINATE, NULL for a received one that did not parse
 *
 * Counts it in tx_terms or rx_terms, and by its layer (RFC 5040 4.8) in
 * the matching tx_terms_LAYER or rx_terms_LAYER.
 *
 * Context: any context.
 */
void iwtcp_stat_term(struct iwtcp_device *dev, struct iwtcp_qp *qp, bool tx,
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

	stat_add(dev, qp, tx ? IWTCP_STAT_TX_TERMS : IWTCP_STAT_RX_TERMS, 1);
	if (!term || term->cause.layer >= ARRAY_SIZE(layer_tx))
		return;
	stat_add(dev, qp, tx ? layer_tx[term->cause.layer] :
			       layer_rx[term->cause.layer], 1);
}

/* @out's values: the sum of the per-CPU @slots */
static void sum_slots(struct iwtcp_stats __percpu *slots,
		      struct rdma_hw_stats *out)
{
	int cpu, i;

	for (i = 0; i < IWTCP_NR_STATS; i++)
		out->value[i] = 0;
	for_each_possible_cpu(cpu) {
		const struct iwtcp_stats *s = per_cpu_ptr(slots, cpu);

		for (i = 0; i < IWTCP_NR_STATS; i++)
			out->value[i] += READ_ONCE(s->v[i]);
	}
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
 * Context: process context; under ``rdma_hw_stats.lock``, except the RDMA
 * core's first call at registration (setup_hw_port_stats()).
 * Return: the number of counters filled.
 */
int iwtcp_get_hw_stats(struct ib_device *base_dev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	sum_slots(to_iwtcp_dev(base_dev)->stats, stats);
	return IWTCP_NR_STATS;
}

/**
 * iwtcp_counter_alloc_stats() - ib_device_ops.counter_alloc_stats
 * @counter: a new RDMA core counter
 *
 * The table has the port's counters, in the port's order: the core adds
 * a counter's values to the port's by index.
 *
 * Context: process context.
 * Return: the table, or NULL when out of memory.
 */
struct rdma_hw_stats *iwtcp_counter_alloc_stats(struct rdma_counter *counter)
{
	return rdma_alloc_hw_stats_struct(iwtcp_stat_descs, IWTCP_NR_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * iwtcp_counter_bind_qp() - ib_device_ops.counter_bind_qp
 * @counter: the RDMA core counter
 * @base_qp: a QP of its device and port, bound to no counter
 *
 * The first bind allocates the counter's slots and gives @counter its id
 * (the RDMA core leaves that to the driver); from here on @base_qp's data
 * path counts in those slots.
 *
 * Context: process context, under the counter's mutex.
 * Return: 0, -ENOMEM, or -EBUSY when no id is left.
 */
int iwtcp_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *base_qp)
{
	struct iwtcp_device *dev = to_iwtcp_dev(counter->device);
	struct iwtcp_counter *c;
	u32 id;
	int rv;

	lockdep_assert_held(&counter->lock);
	if (counter->id) {
		c = xa_load(&dev->counters, counter->id);
		if (WARN_ON_ONCE(!c))
			return -EINVAL;
	} else {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		c->stats = alloc_percpu(struct iwtcp_stats);
		rv = c->stats ? xa_alloc(&dev->counters, &id, c, xa_limit_32b,
					 GFP_KERNEL) : -ENOMEM;
		if (rv) {
			free_percpu(c->stats);
			kfree(c);
			return rv;
		}
		counter->id = id;
	}
	rcu_assign_pointer(to_iwtcp_qp(base_qp)->counter, c);
	base_qp->counter = counter;
	return 0;
}

/**
 * iwtcp_counter_unbind_qp() - ib_device_ops.counter_unbind_qp
 * @base_qp: a bound QP; it counts in its device's slots again
 *
 * Context: process context, under the counter's mutex.
 * Return: 0.
 */
int iwtcp_counter_unbind_qp(struct ib_qp *base_qp)
{
	lockdep_assert_held(&base_qp->counter->lock);
	RCU_INIT_POINTER(to_iwtcp_qp(base_qp)->counter, NULL);
	base_qp->counter = NULL;
	return 0;
}

/**
 * iwtcp_counter_update_stats() - ib_device_ops.counter_update_stats
 * @counter: the RDMA core counter; its table is filled
 *
 * Context: process context, under the counter's mutex.
 * Return: 0.
 */
int iwtcp_counter_update_stats(struct rdma_counter *counter)
{
	struct iwtcp_device *dev = to_iwtcp_dev(counter->device);
	struct iwtcp_counter *c;

	lockdep_assert_held(&counter->lock);
	/* counter_dealloc() does not take the counter's mutex: it waits for RCU */
	rcu_read_lock();
	c = xa_load(&dev->counters, counter->id);
	if (c)
		sum_slots(c->stats, counter->stats);
	rcu_read_unlock();
	return 0;
}

/**
 * iwtcp_counter_dealloc() - ib_device_ops.counter_dealloc
 * @counter: an RDMA core counter with no QP bound any more
 *
 * Frees its slots once no data path can still be counting in them.
 *
 * Context: process context; sleeps (synchronize_rcu()).
 * Return: 0.
 */
int iwtcp_counter_dealloc(struct rdma_counter *counter)
{
	struct iwtcp_device *dev = to_iwtcp_dev(counter->device);
	struct iwtcp_counter *c;

	if (!counter->id)
		return 0;
	c = xa_erase(&dev->counters, counter->id);
	if (!c)
		return 0;
	synchronize_rcu();
	free_percpu(c->stats);
	kfree(c);
	return 0;
}
