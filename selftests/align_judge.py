#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""FPDU alignment with TCP segments, from a capture (RFC 5044 5.1).

  align_judge.py CAP MARKERS COUNTERS PORT...

CAP holds selftests/capture.sh connections, one server PORT each
(192.0.2.2; the client sends the MPA Request), with markers negotiated if
MARKERS is 1, without if 0. COUNTERS is "A_TX A_RX B_TX B_RX" as for
capture_judge.py. For every connection the client's stream is walked on
its own, independent of Wireshark: the MPA Request (RFC 5044 7.1.2:
16-octet key, flags, revision, private data length, private data), then
FPDUs back to back (RFC 5044 4: ULPDU_Length, ULPDU, PAD, CRC), with
markers: one wherever the stream offset counted from the first octet after
the Request is a multiple of 512 (RFC 5044 4.3: a marker between two FPDUs
leads the second).

Fails (exit 1) unless: the walk ends exactly at the end of each stream;
the FPDUs walked equal iwtcp_a's tx_fpdus and iwtcp_b's rx_fpdus; every
TCP segment with data after the Request begins where an FPDU begins and
ends where one ends (so no FPDU straddles segments). Wireshark 4.0 cannot
check this itself: it counts a marker between two FPDUs in the first.
With ALIGN_PACKED=1 in the environment, some segment must also hold two
FPDUs or more: the case is to show small FPDUs packed.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
# pylint: disable=wrong-import-position
from iwarp_tshark import tshark  # noqa

KEY = b"MPA ID Req Frame"
PERIOD = 512


def segments(cap, ports):
    """Per TCP stream to a PORT: its data segments as (seq, octets)."""
    out = {}
    args = ["-r", cap, "-o", "tcp.relative_sequence_numbers:TRUE",
            "-Y", "ip.dst==192.0.2.2 && tcp.len>0", "-T", "fields",
            "-e", "tcp.stream", "-e", "tcp.dstport", "-e", "tcp.seq",
            "-e", "tcp.payload"]
    for line in tshark(args).splitlines():
        stream, port, seq, payload = (line.split("\t") + [""] * 4)[:4]
        if port in ports and payload:
            out.setdefault(stream, {})[int(seq)] = \
                bytes.fromhex(payload.replace(":", ""))
    return out


def walk(segs, markers):
    """Problems, FPDUs walked and segments checked of one stream."""
    data = b""
    for seq in sorted(segs):
        if seq - 1 != len(data):
            return [f"gap or overlap at relative seq {seq}"], 0, 0
        data += segs[seq]
    if not data.startswith(KEY) or len(data) < 20:
        return ["no MPA Request at the stream's start"], 0, 0
    start = 20 + int.from_bytes(data[18:20], "big")
    bounds = {start}
    pos, nfpdu = start, 0
    while pos < len(data):
        if markers and (pos - start) % PERIOD == 0:
            pos += 4                    # the marker leading this FPDU
        # ULPDU_Length: a marker cannot split it (both are 4-aligned)
        ulpdu = int.from_bytes(data[pos:pos + 2], "big")
        left = 2 + ulpdu + (-(2 + ulpdu) % 4) + 4
        while left:
            room = PERIOD - (pos - start) % PERIOD if markers else left
            step = min(left, room)
            pos += step
            left -= step
            if markers and left and (pos - start) % PERIOD == 0:
                pos += 4                # a marker inside the FPDU
        if pos > len(data):
            return [f"FPDU {nfpdu} runs past the stream's end"], nfpdu, 0
        nfpdu += 1
        bounds.add(pos)
    problems = []
    checked = 0
    for seq, payload in sorted(segs.items()):
        first, end = seq - 1, seq - 1 + len(payload)
        if end <= start:
            continue
        checked += 1
        if first not in bounds or end not in bounds:
            problems.append(f"segment at relative seq {seq}, {len(payload)} "
                            "octets, does not begin and end at FPDU "
                            "boundaries")
    return problems, nfpdu, checked


def main():
    cap, markers, counters = sys.argv[1:4]
    ports = set(sys.argv[4:])
    problems = []
    total = 0
    packed = False
    for stream, segs in sorted(segments(cap, ports).items()):
        p, nfpdu, checked = walk(segs, markers == "1")
        print(f"# TCP stream {stream}: {nfpdu} FPDUs in {checked} segments, "
              f"{len(p)} misaligned or broken", file=sys.stderr)
        problems += [f"TCP stream {stream}: {x}" for x in p[:5]]
        total += nfpdu
        packed = packed or checked < nfpdu
    if os.environ.get("ALIGN_PACKED") == "1" and not packed:
        problems.append("no segment holds two FPDUs: nothing was packed")
    a_tx, _, _, b_rx = (int(x) for x in counters.split())
    if not total == a_tx == b_rx:
        problems.append(f"{total} FPDUs walked, iwtcp_a tx_fpdus +{a_tx}, "
                        f"iwtcp_b rx_fpdus +{b_rx}")
    for x in problems:
        print(f"# {x}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
