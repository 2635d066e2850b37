/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef IWTCP_LOCKING_H
#define IWTCP_LOCKING_H

/**
 * DOC: Locking
 *
 * Every lock iwtcp takes, and the kernel's locks it is called under,
 * outermost first: iwtcp takes a lock only while holding locks above it
 * in this list, never one below it. Each entry says what the lock
 * protects, in which contexts it is taken and how, and what is taken
 * under it ("leaf": nothing).
 *
 * 1. Locks of the kernel, the RDMA core and rdma_cm around calls into
 *    iwtcp, outside all of iwtcp's own:
 *
 *    * ``link_ops_rwsem`` (read) around ``newlink`` (nldev_newlink());
 *      rdma_link_unregister() at module exit waits for it.
 *    * ``rtnl_lock`` around the netdev notifier (iwtcp_netdev_event()).
 *    * ``kernel_param_lock`` around the module parameters' ops.
 *    * the kernfs active reference around the settings' sysfs files;
 *      unregistration waits for it.
 *    * rdma_cm's ``handler_mutex`` around ``iw_accept``, ``iw_reject`` and
 *      ``iw_connect`` when a ULP calls them from its event handler.
 *    * ``rdma_hw_stats.lock`` around ``get_hw_stats`` for sysfs and
 *      netlink reads (not around the first call, setup_hw_port_stats() at
 *      registration); iwtcp takes nothing there.
 *    * ``rdma_counter.lock`` (mutex) around ``counter_bind_qp``,
 *      ``counter_unbind_qp`` and ``counter_update_stats`` (asserted);
 *      bind takes the counters' xa_lock (18) there.
 *    * whatever a kernel ULP holds around post_send, post_recv,
 *      post_srq_recv, poll_cq and req_notify_cq, up to a spinlock with
 *      interrupts disabled, or a hard interrupt. The ULP's completion
 *      and event handlers are called under locks further down (9, 10, 5)
 *      and, as with a NIC's interrupt, take only locks a hard interrupt
 *      may take: a ULP holding one has interrupts off, and its post_send
 *      then never runs the transmitter inline under a socket spinlock
 *      (tx_may_inline()), which closes any cycle through 9.
 *
 * 2. ``iwtcp_newlink_lock`` (mutex, main.c; process context, newlink):
 *    the lookup of an existing device on the netdev and the registration
 *    of a new one are one step. Held across ib_register_device() (3 and
 *    all that ``iw_create_listen`` takes), iwtcp_settings_defaults() (7)
 *    and iwtcp_devices_add() and _del() (8).
 *
 * 3. The RDMA core's registration locks and rdma_cm's: ``devices_rwsem``,
 *    ``clients_rwsem`` and ``client_data_rwsem`` (read) while
 *    ib_register_device() adds its clients, rdma_cm's among them, which
 *    extends its wildcard listeners (cma_add_one(): ``iw_create_listen``);
 *    rdma_cm's global ``lock`` mutex around every ``iw_create_listen``;
 *    ``ib_device.unregistration_lock`` around the removal of the clients
 *    (``iw_destroy_listen``, connections closing) and ``dealloc_driver``
 *    when a device is unregistered, and around the failure path of
 *    ib_register_device() under 2. (newlink's own error path calls
 *    ib_dealloc_device(), hence ``dealloc_driver``, under 2 only.)
 *
 * 4. ``cm_wild_lock`` (mutex, cm.c; process context: ``iw_create_listen``,
 *    ``iw_destroy_listen``): cm_wild_listeners, each wildcard listener's
 *    ``wild_item``, and what cm_listen_owner() reads there. Held across a
 *    whole wildcard listen: socket creation, bind and listen (the socket
 *    lock, 9), the port's netdev (18), then the new listener's
 *    ``iwtcp_cep.lock`` (5). ``iw_destroy_listen`` takes it alone, before
 *    the endpoint's lock.
 *
 * 5. ``iwtcp_cep.lock`` (mutex, cm.c; process context: the endpoint's work
 *    and timer handlers on the iwtcp_cm workqueue, and the iw_cm ops):
 *    everything in the endpoint (state, socket, cm_id, QP, listener,
 *    streams, start-up buffers). Two endpoints' locks nest, one class: a
 *    child's, then its listener's (responder_got_request()); and a
 *    listener's, then that of a child just allocated, which nothing else
 *    can reach yet (listener_accept_one()). Under it: settings_lock (6,
 *    cep_settings()); the socket lock (9: kernel_sendmsg(),
 *    kernel_recvmsg(), kernel_accept(), kernel_getsockname(), setsockopt,
 *    shutdown, sock_release(), the last receive of iwtcp_qp_rx_drain()
 *    with what receive takes, see 9); sk_callback_lock
 *    (10, write: cep_attach_sock(), cep_detach_sock(),
 *    cep_start_data_path()); iw_cm's lock (11: ``event_handler``,
 *    ``add_ref``, ``rem_ref``); the QP's state_lock (12) and, through the
 *    flush of a disconnect, 13-17 and the ULP's handlers; the port's
 *    netdev (18). No work item is waited for under it: cep_timer_stop()
 *    cancels without waiting, since cep_timeout() takes the lock, and
 *    iwtcp_destroy_listen() waits for the work after unlocking.
 *    restrack's queries take it last (iwtcp_fill_res_qp_entry(), process
 *    context, called by nldev under its rdma_nl_types rwsem or the
 *    netlink dump's cb_mutex, with a restrack reference on the QP): with
 *    a reference on the endpoint taken under 12 and nothing else held;
 *    12, 14, 15 and the Read queues' locks were each taken and dropped
 *    before.
 *
 * 6. ``iwtcp_device.settings_lock`` (mutex; process context: the sysfs
 *    files, cep_settings() under 5): ``settings``. Leaf.
 *
 * 7. ``iwtcp_defaults_lock`` (mutex, settings.c; process context: the
 *    module parameters, under kernel_param_lock; newlink, under 2): the
 *    settings of new devices. Leaf.
 *
 * 8. ``iwtcp_devices_lock`` (mutex, main.c; process context: newlink
 *    under 2, ``dealloc_driver`` under 3 or 2, module exit):
 *    iwtcp_devices, ``iwtcp_device.list`` and ``.dead``. Held across no
 *    call into the RDMA core: module exit drops it before
 *    ib_unregister_device(), newlink before putting dead devices' last
 *    references. Leaf.
 *
 * 9. The socket lock of a connection's TCP socket, taken as its owner
 *    (lock_sock(): holders of 5; the transmitter in tx_push(), in the
 *    transmit work or in a user doorbell's system call
 *    (iwtcp_qp_tx_doorbell()); receive, in the receive work,
 *    iwtcp_qp_rx_work(), and once under 5 at the close,
 *    iwtcp_qp_rx_drain()) or
 *    as its spinlock (bh_lock_sock(): TCP's softirq receive and timers,
 *    and iwtcp's receive of a little data in that softirq receive,
 *    iwtcp_qp_rx_ready();
 *    the inline transmitter of a kernel post_send in iwtcp_qp_tx_post(),
 *    with bottom halves disabled). TCP calls the socket callbacks under
 *    it; so under it: sk_callback_lock (10, read), receive (with bottom
 *    halves disabled, so that the ULP's handlers it calls keep the atomic
 *    context they had in softirq and never sleep on 5 or 9) and the
 *    inline transmitter, with all they take: 12-17, MR lookups (RCU),
 *    queue_work() of the QP's transmit and receive work and the
 *    endpoint's work, and the ULP's handlers (receive calls them
 *    directly; the inline transmitter defers them, see tx_in_post). The
 *    receive work and the transmitter (work or doorbell) wait for each
 *    other only here, in lock_sock(), and neither waits for a work item.
 *    It owns the receive state (&struct iwtcp_rx) and the socket's queues
 *    (tcp_read_sock(), tcp_sendmsg_locked()). iwtcp never nests two sockets' locks (see
 *    tx_sk_held). A listening socket's ``sk_data_ready`` runs without its
 *    socket lock (TCP handles listeners locklessly; tcp_child_process()
 *    holds only the child's): cm_listen_event() only queues work.
 *
 * 10. ``sock.sk_callback_lock`` (rwlock): ``sk_user_data``, the callback
 *     pointers, ``iwtcp_cep.dp``. Readers: the socket callbacks, with
 *     read_lock_bh(), in softirq or in process context, inside 9 (but a
 *     listener's ``sk_data_ready``). Writer: write_lock_bh() under 5,
 *     never inside 9. Once the writer restored the socket's callbacks, no
 *     callback sees the endpoint any more: then their reference is
 *     dropped. Under the read side: queue_work() (the QP's receive and
 *     transmit work, the endpoint's work), and receive when the
 *     data-ready callback takes a little data inline
 *     (iwtcp_qp_rx_ready()), with what it takes (as under 9).
 *
 * 11. iw_cm's ``cm_id_priv->lock`` (spinlock, irqsave): taken by iw_cm in
 *     what iwtcp calls under 5 (``event_handler``, which only queues,
 *     ``add_ref``, ``rem_ref``). iw_cm calls ``iw_get_qp`` and
 *     ``iw_add_ref`` in one section under it, the RCU read-side section
 *     iwtcp_destroy_qp() waits out with synchronize_rcu(); iwtcp takes no
 *     lock there.
 *
 * 12. ``iwtcp_qp.state_lock`` (spinlock, irqsave; process context,
 *     softirq, workqueue): ``state`` and ``ib_state`` (written under it,
 *     read with READ_ONCE), ``cep``, ``term``, ``term_status``. Held for a
 *     check and a set only; what a transition entails (flush,
 *     iwtcp_cm_qp_closing(), the transmit kick) follows after unlocking.
 *     Leaf.
 *
 * 13. ``iwtcp_qp.place_lock`` (spinlock, _bh; receive, and the flushes
 *     of qp_flush_sq() and qp_flush_rq()): receive holds it while it
 *     places a Send into the receive it owns (rx_send()) or a Read
 *     Response into the Read's sink (rx_read_resp()), interrupts on, for
 *     one FPDU's copy
 *     (up to 64 KiB with large FPDUs), with the MR lookup (RCU; the last
 *     iwtcp_mem_put() wakes dereg_mr with complete(), whose wait-queue
 *     lock is a leaf). The flush completes that receive or Read under
 *     it: no octet lands in a buffer after the ULP may have seen its
 *     flush completion. Hence the flushes, and iwtcp_qp_to_error() and
 *     iwtcp_qp_terminated() that call them, never run in hard interrupts
 *     or with interrupts disabled. Under it: 14 and 15 with what they
 *     take (the flushes; they notify the CQ after unlocking, so that no
 *     ULP handler runs under it); receive takes nothing under it.
 *
 * 14. ``iwtcp_qp.sq_lock`` (spinlock, irqsave; any context, hard
 *     interrupts included: kernel post_send): the SQ ring's indexes and
 *     kernel elements, ``sq_tx``, ``sq_slots``. Under it: the send CQ's
 *     lock (17; iwtcp_sq_retire_head(), qp_flush_ring()).
 *
 * 15. ``iwtcp_qp.rq_lock`` (spinlock, irqsave; any context: kernel
 *     post_recv, receive, flush): the RQ ring's indexes and kernel
 *     elements, ``iwtcp_rx.rqe_owned`` (written under it and, by the
 *     flush, also under 13; receive reads it under 13) and
 *     ``iwtcp_rx.rqe``. Under it: the SRQ's lock (16, with spin_lock(),
 *     interrupts being off; rx_take_rqe()) and the receive CQ's lock
 *     (17).
 *
 * 16. ``iwtcp_srq.lock`` (spinlock, irqsave; any context): the SRQ ring's
 *     indexes and kernel elements, ``limit``. Under 15 in receive, alone
 *     elsewhere; the SRQ limit event is raised after unlocking. Leaf.
 *     ``iwtcp_qp.orq_lock`` and ``iwtcp_qp.irq_lock`` (spinlocks, irqsave;
 *     transmit, receive, flush): the ORQ and the IRQ, entries and
 *     indexes. Leaves.
 *
 * 17. ``iwtcp_cq.lock`` (spinlock, irqsave; any context, hard interrupts
 *     included: kernel poll_cq, every producer): the CQ ring's indexes
 *     and kernel elements, ``overflowed``. Innermost. Leaf.
 *
 * 18. Leaves outside the chains above: ``iwtcp_device.mac_lock``
 *     (spinlock, _bh; the netdev notifier under rtnl_lock, query_gid in
 *     any context but hard interrupts): ``mac``. The xa_lock of
 *     ``iwtcp_device.qp_xa`` and ``mem_xa``, taken inside xa_alloc(),
 *     xa_store() and xa_erase() in process context only (lookups use
 *     RCU); the same for ``iwtcp_device.counters`` (xa_alloc() in
 *     ``counter_bind_qp``, xa_erase() in ``counter_dealloc``; lookups
 *     under RCU). The port's
 *     netdev: ib_device_get_netdev(), on 6.1
 *     ``ib_port_data.netdev_lock`` (iwtcp_compat_get_netdev()).
 *
 * No lock is taken in softirq or hard interrupt context that is taken
 * elsewhere without bottom halves or interrupts disabled: every QP, SRQ
 * and CQ lock is irqsave but place_lock, which is never taken in hard
 * interrupts; place_lock, mac_lock and sk_callback_lock are _bh on every
 * side, the xa_locks are process context only, and mutexes are taken in
 * process context only.
 *
 * Exclusion that lockdep does not see:
 *
 * * ``IWTCP_TX_BUSY`` in ``iwtcp_qp.tx_flags``: one transmitter per QP at
 *   a time, and the owner of &struct iwtcp_tx. A lock cannot do it: the
 *   transmitter runs in the worker (which sleeps in lock_sock()) and
 *   inline in a kernel post_send from any context that must not wait.
 *   So tx_trylock() only tries (test_and_set_bit_lock(), acquire) and a
 *   context that fails leaves ``IWTCP_TX_AGAIN``; the owner
 *   clears BUSY (clear_bit_unlock(), release) and then looks at AGAIN and
 *   queues the work. The full barriers between setting AGAIN and testing
 *   BUSY, and between clearing BUSY and testing AGAIN, guarantee that one
 *   of the two sees the other: no request is lost, nobody waits, and no
 *   lock can be taken in the opposite order through it. The owner takes
 *   the socket lock (9) after BUSY, never before.
 * * ``tx_sk_held`` (per CPU, qp_tx.c): iwtcp holds a socket's lock on
 *   this CPU (receive as its owner or under its spinlock, an inline run
 *   under its spinlock), bottom halves off. A kernel post_send from a
 *   handler called meanwhile defers to the worker. That avoids a second
 *   socket spinlock of the same class inside the first (a self-deadlock
 *   on one socket, an ABBA between two CPUs on two); a receive that owns
 *   its socket, where an inline run would find it owned and defer anyway,
 *   stays out of other sockets' spinlocks by the same rule. Changed only with
 *   bottom halves disabled, so the count belongs to the CPU.
 * * ``tx_in_post`` (per CPU): an inline run is inside a ULP's post_send
 *   here, where the ULP may hold the lock its handlers take. Completion
 *   and event handlers due then are deferred to an irq_work, as a NIC's
 *   interrupt would call them (``iwtcp_cq.deferred`` with CQ_DEFER_NOTIFY
 *   and CQ_DEFER_ERR, ``iwtcp_qp.ev_deferred``; the CQ error event of
 *   an overflow always goes there, its producer holding 14 or 15):
 *   set_bit() before irq_work_queue(), test_and_clear_bit() in the
 *   handler, so each due call happens at least once. An inline run
 *   never starts with interrupts disabled or in a hard interrupt
 *   (tx_may_inline()), and takes iwtcp's spinlocks irqsave (place_lock,
 *   _bh, is not taken in hard interrupts), so the irq_work never
 *   interrupts a holder of one it takes; it may interrupt the
 *   inline run under its socket spinlock, where a handler's post_send,
 *   in a hard interrupt, defers.
 *   irq_work_sync() in pre_destroy_cq, destroy_cq and destroy_qp waits
 *   for what is pending.
 * * ``SIW_WQE_VALID`` in each ring element hands the element between
 *   producer and consumer (smp_store_release() after filling,
 *   smp_load_acquire() before reading); with user space on one side no
 *   lock can. The locks above serialise the kernel's side only.
 * * ``iwtcp_qp.tx`` is published once with smp_store_release() before RTS
 *   and read with smp_load_acquire(); ``iwtcp_qp.tx_hold``,
 *   ``iwtcp_cep.ulp_close`` and ``ulp_abort`` are single flags
 *   (READ_ONCE/WRITE_ONCE) whose writer then queues the work that reads
 *   them.
 * * ``iwtcp_device.registrar`` (WRITE_ONCE around ib_register_device(),
 *   under iwtcp_newlink_lock): only compared with ``current``.
 * * ``iwtcp_qp.counter`` (RCU): the bound counter's slots, published by
 *   rcu_assign_pointer() under the counter's mutex, read by the data path
 *   under rcu_read_lock(); ``counter_dealloc`` waits (synchronize_rcu())
 *   before it frees the slots.
 * * ``iwtcp_qp.sk``: set once with WRITE_ONCE() just before the QP's
 *   state becomes RTS; iwtcp_qp_tx_post() reads it with READ_ONCE() to
 *   see whether there is a socket yet. qp_write_state() stores the state
 *   with smp_store_release() and the transmitter (tx_run()) and post_send
 *   load it with smp_load_acquire(), so a reader that sees RTS or ERROR
 *   sees what was written before (``sk``, ``term_status``). The QP's
 *   reference (sock_hold()) keeps the sock until iwtcp_destroy_qp().
 * * ORQ indexes: ``orq_put`` and ``orq_get`` change under ``orq_lock``
 *   (WRITE_ONCE()), except the Read RTR's entry, queued before the QP
 *   reaches RTS and the transmitter can run; the transmitter reads both
 *   with READ_ONCE() under ``sq_lock`` only, to decide whether a Read or
 *   a fenced element may go. A stale ``orq_get`` only holds an element
 *   back, and the receive that retires a Read kicks the transmitter.
 * * ``iwtcp_qp.term_status``: written under ``state_lock`` only while
 *   the QP is in RTS or CLOSING, before it moves on to TERMINATE or
 *   ERROR; the flush reads it under ``sq_lock`` only once the QP is in
 *   ERROR (seen under ``state_lock`` or by the acquire above), when no
 *   writer is left.
 * * The CQ's arm word (``ctrl->flags``, shared with user space): armed
 *   by req_notify_cq with smp_store_mb() before it looks for missed
 *   completions; the producer, under ``iwtcp_cq.lock``, publishes the
 *   element, then smp_mb(), then reads and disarms it (cq_armed_for()):
 *   a full barrier on both sides, so either the arming sees the element
 *   or the producer sees the arm. User space can arm it at any time, so
 *   no lock of the kernel's could cover it.
 * * ``iwtcp_mr.valid`` (fast-registration STags): set by a Fast Register
 *   WR (a transmitter) with smp_store_release() after the new mapping,
 *   key and access; cleared with WRITE_ONCE() by a Local Invalidate (a
 *   transmitter) or a Send with Invalidate (a receive). iwtcp_mem_check()
 *   loads it with smp_load_acquire() and then compares the key again,
 *   since the lookup's key check came before. An invalidation does not
 *   stop a placement that passed its check; one QP places in stream
 *   order, so its Send with Invalidate follows its Writes to the STag.
 *   The verbs leave the order of registrations and invalidations of one
 *   STag to the ULP.
 * * ``iwtcp_qp.rx_seen`` (Sends received, written under ``rq_lock``) and
 *   ``tx_db_seen`` (written by the doorbell that owns the transmitter)
 *   are read by the user doorbell without a lock (READ_ONCE()): a stale
 *   value only sends it to the worker, or inline, once more or less.
 * * Object counts (``num_*``, ``iwtcp_foreign_siw``) are atomics; the
 *   counters are per CPU (this_cpu_add(), any context).
 * * Restrack snapshots (iwtcp_qp_tx_fill_res(), iwtcp_fill_res_cq_entry())
 *   read without the owner's lock: ``tx_flags``, the batch's ``wire_len``
 *   and ``wire_sent`` (their writer, the transmitter, uses WRITE_ONCE()),
 *   the CQ's ``ring.put`` and ``overflowed`` and its elements' flags.
 *   The RDMA core drains the restrack entry (rdma_restrack_begin_del(),
 *   in both 6.1 and 6.12) before it calls destroy_qp or destroy_cq, so
 *   the memory read stays.
 * * Waits for references: iwtcp_destroy_qp() and iwtcp_dereg_mr() sleep
 *   until the last put completes ``released``. No holder waits for
 *   anything the destroyer holds, and the destroyers hold no iwtcp lock.
 *
 * Lifetimes (who holds a reference; who frees, in which context):
 *
 * * &struct iwtcp_device: the RDMA core's refcount and kobject (newlink's
 *   and the notifier's lookups, each endpoint until it closes), and a
 *   kobject reference of iwtcp_devices from just before registration
 *   until newlink finds it dead or module exit unregisters it;
 *   ``dealloc_driver`` frees iwtcp's parts, the last kobject put the
 *   struct, process context.
 * * user context, PD, CQ, SRQ: memory of the RDMA core, created and
 *   destroyed by their verbs in process context; the core destroys a CQ
 *   or SRQ only when no QP uses it.
 * * &struct iwtcp_qp: ``ref`` (creation, iw_cm, the endpoint, a queued
 *   transmit or receive work: the work drops it as its last step, so
 *   nothing waits for a work item; a user doorbell's inline run holds
 *   none: uverbs holds the QP's handle and its SRCU for the call, so
 *   destroy_qp cannot run meanwhile); iwtcp_destroy_qp() waits for the last
 *   put, frees the
 *   data path (``tx``, ``rx``, ORQ, IRQ, slots, the socket reference),
 *   and the core frees the struct; process context.
 * * &struct iwtcp_mr: ``ref`` (creation, each data path use); dereg_mr
 *   waits for the last put and frees in process context, the struct after
 *   an RCU grace period (lookups run under RCU).
 * * &struct iwtcp_cep: ``ref`` (creation until CLOSED, the socket
 *   callbacks, a queued work or armed timer, a child's listener, iw_cm's
 *   ``provider_data``, the QP); the last put frees it in any context.
 * * the endpoint's &struct socket: owned by the endpoint, released by
 *   cep_close() in process context; the QP holds its sock (sock_hold())
 *   from RTS until iwtcp_destroy_qp().
 * * a ring: its mmap entry's reference count (the driver object and each
 *   mapping); iwtcp_mmap_free() frees it, process context in practice.
 * * the transmitter's page fragments (qp_tx.c ``pfrag``): the fragment
 *   holds its page, each piece of a batch one more reference until TCP
 *   took the batch (tx_fpdu_release()), TCP its own until its buffers are
 *   freed; iwtcp_qp_tx_free() drops the fragment's, process context.
 *
 * Asserted: lockdep_assert_held() for iwtcp_cep.lock (cep_set_state(),
 * cep_close(), cm_accept_locked()), iwtcp_newlink_lock
 * (iwtcp_newlink_locked()), cm_wild_lock (cm_listen_owner()), state_lock
 * (qp_write_state()), sq_lock (iwtcp_sq_retire_head(), sq_retire()),
 * place_lock and rq_lock (iwtcp_qp_rx_flush()), the queue's lock
 * (iwtcp_ring_post_recv()), rdma_counter.lock (iwtcp_counter_bind_qp(),
 * _unbind_qp(), _update_stats()); lockdep_sock_is_held()
 * (cm_sk_data_ready(), qp_rx(), tx_end_segment()); an RCU reader
 * (iwtcp_get_qp()).
 */

#endif /* IWTCP_LOCKING_H */
