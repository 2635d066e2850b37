#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Wireshark as judge of one selftests/capture.sh case (iwtcp to iwtcp).

  capture_judge.py CAP DUMPCAP_LOG CRC MARKERS COUNTERS PORT...

CAP holds the connections of the case, one per PORT (the server's port,
192.0.2.2 in ns2; the client, ns1, is the MPA initiator). CRC and MARKERS
(1 or 0) are what the connections must have negotiated. COUNTERS is
"A_TX A_RX B_TX B_RX", the deltas of tx_fpdus and rx_fpdus of iwtcp_a
(ns1) and iwtcp_b (ns2) over the case, or "-" to judge a capture alone.

Fails (exit 1) unless: dumpcap dropped nothing; each connection has one
MPA Request and one Reply, both with M=MARKERS and C=CRC, R=0; no frame is
malformed or carries an expert error; with CRC every FPDU's CRC checked
good, without none checked; FPDUs with DDP headers flowed, one DDP
segment per FPDU; with markers, Wireshark found (and removed) markers;
per direction, the DDP segments counted equal the sender's tx_fpdus and
the receiver's rx_fpdus. Diagnostics go to stderr as "# " lines.
"""
import concurrent.futures
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
# pylint: disable=wrong-import-position
from iwarp_tshark import (decode_frame, dumpcap_drops, frame_errors,  # noqa
                          load_crc, load_frames, occurrences, show)

EXTRA = ["iwarp_ddp.control_field", "iwarp_mpa.markers",
         "tcp.analysis.lost_segment", "tcp.analysis.ack_lost_segment"]


def judge_port(port, frames, crc, markers, good, bad):
    """Problems and per-direction DDP segment counts of one connection."""
    problems = []
    reqs = [decode_frame(f) for f in frames if f["iwarp_mpa.key.req"]]
    reps = [decode_frame(f) for f in frames if f["iwarp_mpa.key.rep"]]
    # perftest -R connects twice: one Request and one Reply on each.
    streams = {f["tcp.stream"] for f in frames}
    for s in sorted(streams, key=int):
        fr = [f for f in frames if f["tcp.stream"] == s]
        nq = sum(1 for f in fr if f["iwarp_mpa.key.req"])
        np = sum(1 for f in fr if f["iwarp_mpa.key.rep"])
        if nq != 1 or np != 1:
            problems.append(f"TCP stream {s}: {nq} MPA Requests and {np} "
                            "Replies decoded, expected one each")
    for what, d in [("Request", r) for r in reqs] + \
                   [("Reply", r) for r in reps]:
        if d["M"] != markers or d["C"] != crc or d["R"] != "0":
            problems.append(f"{what} {show(d)}, expected M{markers} C{crc} "
                            "R0")
    problems += frame_errors(frames)
    # Initiator to responder ("up": ns1 to ns2) and back ("down").
    count = {}
    for way, sel in (("up", "tcp.dstport"), ("down", "tcp.srcport")):
        fr = [f for f in frames if f[sel] == port]
        count[way] = {
            "fpdus": sum(occurrences(f["iwarp_mpa.ulpdulength"]) for f in fr),
            "ddp": sum(occurrences(f["iwarp_ddp.control_field"]) for f in fr),
            "markers": sum(occurrences(f["iwarp_mpa.markers"]) for f in fr),
        }
        c = count[way]
        if c["ddp"] != c["fpdus"]:
            problems.append(f"{way}: {c['fpdus']} FPDUs but {c['ddp']} DDP "
                            "headers decoded")
    fpdus = count["up"]["fpdus"] + count["down"]["fpdus"]
    ddp = count["up"]["ddp"] + count["down"]["ddp"]
    nmark = count["up"]["markers"] + count["down"]["markers"]
    if not ddp:
        problems.append(f"no DDP segment decoded ({fpdus} FPDUs)")
    if crc == "1" and (bad[port] or good[port] != fpdus):
        problems.append(f"{fpdus} FPDUs, {good[port]} CRCs checked good, "
                        f"{bad[port]} Bad CRC32")
    if crc == "0" and (good[port] or bad[port]):
        problems.append(f"{good[port] + bad[port]} CRCs checked, none "
                        "expected")
    if markers == "1" and not nmark:
        problems.append("markers negotiated, none found")
    if markers == "0" and nmark:
        problems.append(f"{nmark} FPDUs with markers, none negotiated")
    lost = sum(1 for f in frames if f["tcp.analysis.lost_segment"] or
               f["tcp.analysis.ack_lost_segment"])
    print(f"# port {port}: {len(streams)} connections, {len(frames)} "
          "packets, Request "
          f"{show(reqs[0] if reqs else None)}, Reply "
          f"{show(reps[0] if reps else None)}; up {count['up']['ddp']} DDP "
          f"segments, down {count['down']['ddp']}; {good[port]} good CRCs, "
          f"{nmark} FPDUs with markers, {lost} capture gaps (TCP)",
          file=sys.stderr)
    return problems, count, lost


def main():
    cap, dlog, crc, markers, counters = sys.argv[1:6]
    ports = sys.argv[6:]
    problems = []
    drops = dumpcap_drops(dlog)
    if drops is None:
        problems.append("dumpcap wrote no statistics")
    elif drops:
        problems.append(f"dumpcap dropped {drops} packets")
    # Two tshark runs, each mostly start-up (seconds under TCG): at once.
    with concurrent.futures.ThreadPoolExecutor() as pool:
        frames = pool.submit(load_frames, cap, EXTRA)
        crcs = pool.submit(load_crc, cap)
        frames, (good, bad) = frames.result(), crcs.result()
    total = {"up": 0, "down": 0}
    gaps = 0
    for port in ports:
        p, count, lost = judge_port(port, frames.get(port, []), crc, markers,
                                    good, bad)
        problems += [f"port {port}: {x}" for x in p]
        gaps += lost
        for way in total:
            total[way] += count[way]["ddp"]
    if counters != "-":
        a_tx, a_rx, b_tx, b_rx = (int(x) for x in counters.split())
        print(f"# counters: iwtcp_a tx {a_tx} rx {a_rx}, iwtcp_b tx {b_tx} "
              f"rx {b_rx}; DDP segments up {total['up']} down "
              f"{total['down']}", file=sys.stderr)
        why = ""
        if drops or gaps:
            why = (f" (dumpcap dropped {drops} packets, tshark saw {gaps} "
                   "gaps)")
        for way, tx, rx, src, dst in (("up", a_tx, b_rx, "iwtcp_a", "iwtcp_b"),
                                      ("down", b_tx, a_rx, "iwtcp_b",
                                       "iwtcp_a")):
            if not total[way] == tx == rx:
                problems.append(f"{way}: {total[way]} DDP segments decoded, "
                                f"{src} tx_fpdus +{tx}, {dst} rx_fpdus "
                                f"+{rx}{why}")
    for x in problems:
        print(f"# {x}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
