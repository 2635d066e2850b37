# SPDX-License-Identifier: GPL-2.0
"""Decode iWARP captures with tshark: the helpers the wire judges share.

tools/interop_judge.py (iwtcp against siw, host side) and
selftests/capture_judge.py (iwtcp against iwtcp, in the guest) import this
module. tshark finds the iwarp_mpa dissector by its TCP heuristic, which
follows each connection from its MPA Request, and hands every FPDU (markers
removed) to iwarp_ddp_rdmap. Wireshark's RPC-over-RDMA and SMB Direct
heuristics are disabled: the tools' payloads are neither.
"""
import collections
import re
import subprocess
import sys

TSHARK = ["tshark", "-n", "--disable-protocol", "rpcordma",
          "--disable-protocol", "smb_direct"]
FIELDS = ["frame.number", "tcp.srcport", "tcp.dstport", "tcp.stream",
          "tcp.len", "iwarp_mpa.key.req", "iwarp_mpa.key.rep",
          "iwarp_mpa.marker_flag", "iwarp_mpa.crc_flag",
          "iwarp_mpa.rej_flag", "iwarp_mpa.res", "iwarp_mpa.rev",
          "iwarp_mpa.privatedata", "iwarp_mpa.ulpdulength",
          "iwarp_rdma.opcode", "_ws.malformed", "_ws.expert.severity",
          "_ws.expert.message"]
PI_ERROR = 0x00800000


def tshark(args):
    p = subprocess.run(TSHARK + args, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=False)
    if p.returncode:
        sys.exit(f"tshark {' '.join(args)} failed")
    return p.stdout


def flag(v):
    return "1" if v in ("1", "True", "true") else "0"


def occurrences(v):
    """How many times a field of load_frames() occurs in its frame."""
    return len([x for x in v.split("|") if x])


def decode_frame(f):
    """An MPA Request's or Reply's fields: M, C, R, S (the RFC 6581
    enhanced bit, one of the bits Wireshark calls reserved), rev and, from
    the private data, the RFC 6581 word: A, rtr (B/C/D), ird, ord."""
    d = {"M": flag(f["iwarp_mpa.marker_flag"]),
         "C": flag(f["iwarp_mpa.crc_flag"]),
         "R": flag(f["iwarp_mpa.rej_flag"]),
         "rev": f["iwarp_mpa.rev"]}
    res = int(f["iwarp_mpa.res"] or "0", 16)
    d["S"] = "1" if res & 0x10 else "0"
    pd = f["iwarp_mpa.privatedata"].replace(":", "")
    if d["S"] == "1" and len(pd) >= 8:
        w = int(pd[:8], 16)
        d["A"] = "1" if w & 0x80000000 else "0"
        rtr = ""
        if d["A"] == "1":
            rtr += "B" if w & 0x40000000 else ""
            rtr += "C" if w & 0x00008000 else ""
            rtr += "D" if w & 0x00004000 else ""
        d["rtr"] = rtr or "-"
        d["ird"] = str((w >> 16) & 0x3fff)
        d["ord"] = str(w & 0x3fff)
    else:
        d["A"] = "0"
        d["rtr"] = "-"
    return d


def show(d):
    if d is None:
        return "none"
    s = f"rev {d['rev']} M{d['M']} C{d['C']} R{d['R']} S{d['S']}"
    if "ird" in d:
        s += f" A{d['A']} rtr {d['rtr']} IRD {d['ird']} ORD {d['ord']}"
    return s


def load_frames(cap, extra=()):
    """Every frame of CAP as a dict of FIELDS (and EXTRA fields), filed
    under both its TCP ports. A field that occurs several times in a frame
    (several FPDUs in one TCP segment) has its values joined with '|'."""
    fields = FIELDS + [e for e in extra if e not in FIELDS]
    rows = collections.defaultdict(list)
    args = ["-r", cap, "-T", "fields", "-E", "separator=/t",
            "-E", "occurrence=a", "-E", "aggregator=|"]
    for name in fields:
        args += ["-e", name]
    for line in tshark(args).splitlines():
        v = line.split("\t")
        v += [""] * (len(fields) - len(v))
        f = dict(zip(fields, v))
        for port in {f["tcp.srcport"], f["tcp.dstport"]}:
            rows[port].append(f)
    return rows


def load_crc(cap):
    """Good and bad CRC checks per TCP port, from the detail text (the
    field's value is the CRC sent either way)."""
    good = collections.Counter()
    bad = collections.Counter()
    ports = ()
    text = tshark(["-r", cap, "-O", "iwarp_mpa", "-Y", "iwarp_mpa.crc_check"])
    for line in text.splitlines():
        m = re.match(r"Transmission Control Protocol, Src Port: (\d+), "
                     r"Dst Port: (\d+)", line)
        if m:
            ports = m.groups()
        elif "Good CRC32" in line:
            for p in ports:
                good[p] += 1
        elif "Bad CRC32" in line:
            for p in ports:
                bad[p] += 1
    return good, bad


def frame_errors(frames):
    """A problem line per malformed frame or frame with an expert error
    (warnings are not errors: Wireshark 4.0 knows RFC 5044 only and warns
    about Rev 2 and the S bit of every RFC 6581 frame)."""
    problems = []
    for f in frames:
        sev = [int(s) for s in f["_ws.expert.severity"].split("|") if s]
        if f["_ws.malformed"] or any(s >= PI_ERROR for s in sev):
            problems.append(f"frame {f['frame.number']}: malformed or "
                            f"expert error: {f['_ws.expert.message']}")
    return problems


def dumpcap_drops(log):
    """Packets dumpcap reported dropped in its log (stderr), None if it
    wrote no statistics."""
    drops = None
    try:
        with open(log) as f:
            for line in f:
                m = re.search(r"received/dropped on interface .*: "
                              r"(\d+)/(\d+)", line)
                if m:
                    drops = int(m.group(2))
    except FileNotFoundError:
        pass
    return drops
