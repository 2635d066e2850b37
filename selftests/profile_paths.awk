# SPDX-License-Identifier: GPL-2.0
#
# make profile (selftests/profile_guest.sh): the busy samples of
# `perf script -F ip,sym` (blocks of "address symbol" lines, leaf first)
# by leaf symbol into the file TOP, and by path on stdout: each sample
# counts to the innermost of iwtcp receive (qp_rx), TCP receive
# (net_rx_action, tcp_v4_rcv, tcp_v6_rcv), TCP's copy to a reader
# (tcp_recvmsg), TCP transmit (tcp_sendmsg, tcp_sendmsg_locked) and iwtcp
# transmit (tx_run) on its stack, or to "other", with each path's leading
# symbols. Left out as idle: the idle loop (symbols matching IDLE), and a
# sample that an idle CPU takes, overdue, where the interrupt that woke it
# turns interrupts back on (handle_softirqs above do_idle: under icount
# the clock jumps over the halt).
#
#	awk -v idle=REGEX -v top=FILE -f profile_paths.awk
function sample(   i, cls, leaf, in_idle) {
	if (!n)
		return
	leaf = f[1]
	in_idle = 0
	for (i = 1; i <= n; i++)
		if (f[i] == "do_idle")
			in_idle = 1
	# the idle loop; and an idle CPU's overdue sample, taken where its
	# waking interrupt turns interrupts back on
	if (leaf ~ idle || (in_idle && leaf == "handle_softirqs")) {
		idle_n++
		n = 0
		return
	}
	cls = "other"
	for (i = n; i >= 1; i--) {
		if (f[i] == "tx_run")
			cls = "iwtcp transmit"
		else if (f[i] ~ /^tcp_sendmsg(_locked)?$/)
			cls = "TCP transmit"
		else if (f[i] ~ /^(net_rx_action|tcp_v[46]_rcv)$/)
			cls = "TCP receive"
		else if (f[i] ~ /^tcp_recvmsg/)
			cls = "TCP receive, copy to the reader"
		else if (f[i] ~ /^(qp_rx|iwtcp_qp_rx_work|iwtcp_qp_rx_drain)$/)
			cls = "iwtcp receive"
	}
	busy++
	c[cls]++
	s[cls SUBSEP leaf]++
	t[leaf]++
	n = 0
}
/^$/ { sample(); next }
{ f[++n] = $2 }
# keys[1..] := the keys of cnt[] (key -> count), largest count first;
# returns how many
function order(cnt, keys,   key, best, bk, m, done) {
	split("", done)
	for (m = 0; ; m++) {
		best = 0
		for (key in cnt)
			if (!(key in done) && cnt[key] > best) {
				best = cnt[key]
				bk = key
			}
		if (!best)
			return m
		done[bk] = 1
		keys[m + 1] = bk
	}
}
END {
	sample()
	if (!busy)
		exit
	cmd = "sort -rn | head -n 60 > \"" top "\""
	for (k in t)
		printf "%6.2f%%  %s\n", 100 * t[k] / busy, k | cmd
	printf "busy samples %d, idle %d\n", busy, idle_n
	nc = order(c, cls)
	for (i = 1; i <= nc; i++) {
		printf "%6.2f%%  %s\n", 100 * c[cls[i]] / busy, cls[i]
		split("", sub_c)
		for (k in s) {
			split(k, kk, SUBSEP)
			if (kk[1] == cls[i])
				sub_c[kk[2]] = s[k]
		}
		ns = order(sub_c, lead)
		for (j = 1; j <= ns && j <= 8; j++)
			printf "        %6.2f%%  %s\n", 100 * sub_c[lead[j]] / busy, lead[j]
	}
}
