#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Wireshark as judge of the interoperability suite (tools/interop).

  tools/interop_judge.py OUT

Reads OUT/a/cases.tsv and OUT/a/capture.pcapng (selftests/interop.sh, guest
A's capture of every connection of the suite) and decodes the capture
with tshark's iwarp_mpa and iwarp_ddp_rdmap dissectors (found by their
TCP heuristic, which follows each connection from its MPA Request). Per
case, on the case's TCP port:

- an MPA Request was seen, and every Request and Reply decodes to the
  values the case expects (flags M, C, R; S, the RFC 6581 enhanced bit,
  one of the bits Wireshark calls reserved; Rev; and, from the private
  data, the RFC 6581 word: A, the RTR flags B/C/D, IRD, ORD);
- no malformed packet and no expert error (Wireshark's RPC-over-RDMA and
  SMB Direct heuristics are disabled: the tools' payloads are neither);
- rpc=1 (the NFS cases): a second pass with the RPC-over-RDMA dissector
  on decodes the case's Sends as RPC-over-RDMA version 1 headers (RFC
  8166 4) without error: credits, no RDMA_ERROR, and Read, Write and
  Reply chunks all used (iwarp_tshark.rpcrdma_problems);
- no "Bad CRC32" (badcrc=N: exactly N, a peer's known fault); with
  crc=1 every FPDU's CRC checked, with crc=0 none checked; first=SIDE:
  the first FPDU came from the initiator or the responder; with data=1, FPDUs with DDP/RDMAP headers flowed, with data=0
  none; p=none: no Reply.

Writes OUT/wire.tap (TAP, one line per case plus the capture's own),
OUT/pcap/PORT-NAME.pcapng (the case's first 300 packets) and
OUT/wire.tsv (per case: port, verdict, decoded Request and Reply).
Expert warnings are not failures: Wireshark 4.0 knows RFC 5044 only and
warns about Rev 2 and the S bit of every RFC 6581 frame.
"""
import os
import re
import subprocess
import sys

from iwarp_tshark import (decode_frame, dumpcap_drops, frame_errors,
                          load_crc, load_frames, load_rpcrdma, occurrences,
                          rpcrdma_problems, show)

KEEP_PACKETS = 300


def judge(case, frames, good, bad, rpc):
    """Return (problems, request, reply, notes). RPC: the RPC-over-RDMA
    messages and frames load_rpcrdma() found on the case's port."""
    port, expect = case["port"], case["wire"]
    want = dict(kv.split("=", 1) for kv in expect.split())
    problems, notes = [], []
    reqs = [decode_frame(f) for f in frames if f["iwarp_mpa.key.req"]]
    reps = [decode_frame(f) for f in frames if f["iwarp_mpa.key.rep"]]
    if not frames:
        return ["no packet captured"], None, None, notes
    if not reqs:
        problems.append("no MPA Request decoded")
    if want.pop("p", None) == "none":
        if reps:
            problems.append(f"a Reply, none expected: {show(reps[0])}")
    elif not reps and any(k.startswith("p.") for k in want):
        problems.append("no MPA Reply decoded")
    for key, val in want.items():
        if key.startswith(("q.", "p.")):
            frames_of = reqs if key[0] == "q" else reps
            for d in frames_of:
                got = d.get(key[2:], "absent")
                if got != val:
                    problems.append(f"{key} is {got}, expected {val}")
    problems += frame_errors(frames)
    if bad[port] != int(want.get("badcrc", "0")):
        problems.append(f"{bad[port]} FPDUs with a bad CRC, expected "
                        f"{want.get('badcrc', '0')}")
    fpdus = sum(occurrences(f["iwarp_mpa.ulpdulength"]) for f in frames)
    ddp = sum(1 for f in frames if f["iwarp_rdma.opcode"])
    if want.get("crc") == "1" and good[port] + bad[port] < fpdus:
        problems.append(f"{fpdus} FPDUs, only {good[port]} CRCs checked good")
    if want.get("crc") == "0" and good[port]:
        problems.append(f"{good[port]} CRCs checked, none expected")
    if want.get("data") == "1" and (not fpdus or not ddp):
        problems.append(f"no data: {fpdus} FPDUs, {ddp} with RDMAP headers")
    if want.get("data") == "0" and fpdus:
        problems.append(f"{fpdus} FPDUs, none expected")
    # first=initiator|responder: who sent the first FPDU (RFC 5044 7.1.2
    # wants the initiator's first).
    if "first" in want:
        first = next((f for f in frames if f["iwarp_mpa.ulpdulength"]), None)
        who = ("none" if first is None else "responder"
               if first["tcp.srcport"] == port else "initiator")
        if who != want["first"]:
            problems.append(f"first FPDU from the {who}, expected "
                            f"{want['first']}")
    if want.get("rpc") == "1":
        msgs, rpc_frames = rpc
        more, note = rpcrdma_problems(msgs)
        problems += more + frame_errors(rpc_frames)
        notes.append(note)
    notes.append(f"{len(frames)} packets, {len(reqs)} Requests, "
                 f"{len(reps)} Replies, {fpdus} FPDUs, "
                 f"{good[port]} good CRCs")
    return (problems, reqs[0] if reqs else None, reps[0] if reps else None,
            notes)


def main():
    out = sys.argv[1]
    cap = os.path.join(out, "a", "capture.pcapng")
    cols = ["port", "name", "dir", "variant", "settings", "tool", "outcome",
            "wire"]
    with open(os.path.join(out, "a", "cases.tsv")) as f:
        cases = [dict(zip(cols, line.rstrip("\n").split("\t"))) for line in f]
    tap = ["TAP version 13", f"1..{len(cases) + 2}"]
    n = 0

    def result(ok, name, diag=()):
        nonlocal n
        n += 1
        tap.append(f"{'ok' if ok else 'not ok'} {n} {name}")
        tap.extend(f"# {d}" for d in diag)

    drops = dumpcap_drops(os.path.join(out, "a", "dumpcap.log"))
    have_cap = os.path.exists(cap)
    result(have_cap and drops == 0, "wire: capture complete (no packet "
           "dropped)", [f"dumpcap: {drops} dropped" if drops is not None
                        else "no dumpcap statistics"])
    if not have_cap:
        for c in cases:
            result(False, f"wire: {c['name']}", ["no capture"])
        result(False, "wire: every port of the capture belongs to a case")
        print("\n".join(tap))
        return 1
    frames = load_frames(cap)
    good, bad = load_crc(cap)
    rpc_ports = {c["port"] for c in cases if " rpc=1" in f" {c['wire']}"}
    rpc_msgs, rpc_frames = load_rpcrdma(cap, rpc_ports)
    os.makedirs(os.path.join(out, "pcap"), exist_ok=True)
    rows = []
    for c in cases:
        port = c["port"]
        rpc = (rpc_msgs.get(port, []),
               [f for f in rpc_frames if port in (f["tcp.srcport"],
                                                  f["tcp.dstport"])])
        problems, req, rep, notes = judge(c, frames.get(port, []),
                                          good, bad, rpc)
        result(not problems, f"wire: {c['name']}", problems + notes)
        rows.append([c["port"], "ok" if not problems else "FAIL",
                     show(req), show(rep), "; ".join(problems)])
        slug = re.sub(r"[^A-Za-z0-9]+", "-", c["name"]).strip("-")[:60]
        keep = [f["frame.number"] for f in frames.get(c["port"], [])]
        if keep:
            # editcap -r: keep the listed packets, no dissection.
            subprocess.run(["editcap", "-r", cap, os.path.join(
                out, "pcap", f"{c['port']}-{slug}.pcapng")] +
                keep[:KEEP_PACKETS], check=True)
    known = {c["port"] for c in cases}
    # Each frame is filed under both its ports; the peer side's ports are
    # ephemeral (outside 7100-7999), so only case ports must remain.
    stray = sorted(p for p in frames if 7100 <= int(p or 0) <= 7999
                   and p not in known)
    result(not stray, "wire: every port of the capture belongs to a case",
           [f"unknown ports {stray}"] if stray else [])
    with open(os.path.join(out, "wire.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("\n".join(tap))
    return 0 if all(not t.startswith("not ok") for t in tap) else 1


if __name__ == "__main__":
    sys.exit(main())
