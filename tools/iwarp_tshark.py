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

# Heuristics first: a client's ephemeral port can be one Wireshark gives a
# dissector by number (44321 is PCP's), which then takes the connection
# from iwarp_mpa's heuristic.
TSHARK_RPC = ["tshark", "-n", "-o", "tcp.try_heuristic_first:TRUE",
              "--disable-protocol", "smb_direct",
              "--disable-protocol", "nfs"]
TSHARK = TSHARK_RPC + ["--disable-protocol", "rpcordma"]
FIELDS = ["frame.number", "tcp.srcport", "tcp.dstport", "tcp.stream",
          "tcp.len", "iwarp_mpa.key.req", "iwarp_mpa.key.rep",
          "iwarp_mpa.marker_flag", "iwarp_mpa.crc_flag",
          "iwarp_mpa.rej_flag", "iwarp_mpa.res", "iwarp_mpa.rev",
          "iwarp_mpa.privatedata", "iwarp_mpa.ulpdulength",
          "iwarp_rdma.opcode", "_ws.malformed", "_ws.expert.severity",
          "_ws.expert.message"]
PI_ERROR = 0x00800000


def tshark(args, cmd=TSHARK):
    p = subprocess.run(cmd + args, stdout=subprocess.PIPE,
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


RPCRDMA_FIELDS = ["rpcordma.xid", "rpcordma.version",
                  "rpcordma.flow_control", "rpcordma.msg_type",
                  "rpcordma.reads_count", "rpcordma.writes_count",
                  "rpcordma.reply_count"]
RDMA_ERROR = 4  # RFC 8166 4.2.1: rdma_proc values 0 (RDMA_MSG) to 4
CHUNK = {"reads_count": "Read", "writes_count": "Write",
         "reply_count": "Reply"}


def load_rpcrdma(cap, ports):
    """RPC-over-RDMA version 1 transport headers (RFC 8166 4) carried in
    Sends on the TCP PORTS, decoded by Wireshark's rpcordma dissector (on
    here, for these ports only): per port, a list of (frame, message)
    with the message a dict of RPCRDMA_FIELDS short names (xid, version,
    flow_control, msg_type, reads_count, writes_count, reply_count) and
    "to_port" (True: sent to PORT, the server's side). Also returns the
    frames as load_frames() has them, for frame_errors()."""
    if not ports:
        return {}, []
    base = ["frame.number", "tcp.srcport", "tcp.dstport", "_ws.malformed",
            "_ws.expert.severity", "_ws.expert.message"]
    fields = base + RPCRDMA_FIELDS
    flt = "rpcordma && tcp.port in {" + ", ".join(sorted(ports)) + "}"
    args = ["-r", cap, "-Y", flt, "-T", "fields", "-E", "separator=/t",
            "-E", "occurrence=a", "-E", "aggregator=|"]
    for name in fields:
        args += ["-e", name]
    msgs = collections.defaultdict(list)
    frames = []
    for line in tshark(args, TSHARK_RPC).splitlines():
        v = line.split("\t")
        v += [""] * (len(fields) - len(v))
        f = dict(zip(fields, v))
        frames.append(f)
        port = f["tcp.dstport"] if f["tcp.dstport"] in ports \
            else f["tcp.srcport"]
        cols = [f[n].split("|") for n in RPCRDMA_FIELDS]
        for vals in zip(*cols):
            m = {n.split(".", 1)[1]: x for n, x in zip(RPCRDMA_FIELDS, vals)}
            m["to_port"] = f["tcp.dstport"] == port
            msgs[port].append((f["frame.number"], m))
    return msgs, frames


def rpcrdma_problems(msgs):
    """Problems with one port's RPC-over-RDMA messages (load_rpcrdma),
    and a note. Every header is version 1 (RFC 8166 4.2) and grants or
    asks at least one credit (4.3.1); none is RDMA_ERROR; the requester's
    calls used all three chunk lists: Read chunks (large NFS WRITE
    payloads the server pulls with RDMA Read), Write chunks (large READ
    replies the server pushes with RDMA Write) and Reply chunks (4.4).
    The note counts the XIDs each way: Wireshark 4.0 decodes only the
    first of several Sends that share a TCP segment (the rest go to its
    RPC reassembly), so an XID seen one way only is not a fault."""
    problems = []
    if not msgs:
        return ["no RPC-over-RDMA message decoded"], ""
    xids = {True: set(), False: set()}
    lists = {"reads_count": 0, "writes_count": 0, "reply_count": 0}
    credits = set()
    for frame, m in msgs:
        if m["version"] != "1":
            problems.append(f"frame {frame}: RPC-over-RDMA version "
                            f"{m['version']}, expected 1")
        if int(m["flow_control"] or 0) < 1:
            problems.append(f"frame {frame}: credits {m['flow_control']}")
        if int(m["msg_type"] or RDMA_ERROR) >= RDMA_ERROR:
            problems.append(f"frame {frame}: message type {m['msg_type']}")
        xids[m["to_port"]].add(m["xid"])
        credits.add(int(m["flow_control"] or 0))
        if m["to_port"]:
            for k in lists:
                lists[k] += int(m[k] or 0) > 0
    for k, n in lists.items():
        if not n:
            problems.append(f"no call with a {CHUNK[k]} chunk")
    note = (f"RPC-over-RDMA: {len(msgs)} headers, XIDs {len(xids[True])} "
            f"to the server, {len(xids[False])} from it, "
            f"{len(xids[True] & xids[False])} both ways; credits "
            f"{min(credits)}..{max(credits)}; calls with Read/Write/Reply "
            f"chunks {lists['reads_count']}/{lists['writes_count']}/"
            f"{lists['reply_count']}")
    return problems, note


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
