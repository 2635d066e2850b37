#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A malicious raw iWARP peer for wire.sh: an MPA Rev 1 initiator (RFC 5044,
no RTR) with its own FPDU encoder, markers and CRC32c.

  mpa_evil.py HOST PORT CASE [crc] [markers] [p2p] [stall=S] [hold=S]
             [go=FILE]

With "p2p" the peer starts up as an RFC 6581 peer-to-peer initiator
instead (Rev 2, S, A, the Write RTR offered alone, IRD/ORD 4/4); the
rtr_* cases then send a bad first FPDU in place of the RTR and report.

The victim is selftests/victim.c on a device with mpa_p2p 0, mpa_enhanced
0, mpa_revision 1, mpa_crc required with "crc", mpa_markers required with
"markers" (the peer sends markers when the Reply asks for them). The peer
sends the Send "hello" (MSN 1), reads the victim's INFO (addr, rkey, len
of its 4 MiB MR of 0xa5 octets, IRD 4), runs CASE and prints what comes
back: "TERM layer L etype E ecode C hdrctl H" for each Terminate, "READ
MATCH" or "READ MISMATCH" for the cases that read data back, and last
"RESULT K..." with the kinds received in order (TERM, SEND, READ_RESP,
WRITE; EOF or RST last), runs of one kind given once. Other lines start
with "#". "hold=S": "many" waits S seconds before it closes. "go=FILE":
after the INFO it prints "# waiting for FILE" and runs CASE once FILE
exists. Exit status 0 unless the start-up failed.
"""
import os
import socket
import struct
import sys
import time

from iwarp_wire import (A_FLAG, C_BIT, C_WRITE_RTR, M_BIT, R_BIT, READ_RESP,
                        S_BIT, SEND, TERM, WRITE, Stream, ddp_tagged,
                        ddp_untagged)

WRITE_RTR = C_WRITE_RTR
IRD = 4                 # the victim's responder_resources
FILL = b"\xa5"          # what the victim's MR holds


class Peer(Stream):
    def __init__(self, host, port, crc, rcvbuf=0, p2p=False):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            # before connect: the window scale follows the small buffer
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(10)
        s.connect((host, port))
        super().__init__(s)
        ctrl = C_BIT if crc else 0
        if p2p:
            # RFC 6581 7: Rev 2, S, private data the IRD/ORD word
            pd = struct.pack(">I", A_FLAG | (4 << 16) | WRITE_RTR | 4)
            ctrl |= S_BIT | (2 << 16) | len(pd)
        else:
            # RFC 5044 7.1: Request, Rev 1, no private data
            pd = b""
            ctrl |= 1 << 16
        self.s.sendall(b"MPA ID Req Frame" + struct.pack(">I", ctrl) + pd)
        rep = self.recv_exact(20)
        ctrl = struct.unpack(">I", rep[16:20])[0]
        if rep[:16] != b"MPA ID Rep Frame" or ctrl & R_BIT:
            sys.exit("# bad MPA Reply %r" % rep)
        pd = self.recv_exact(ctrl & 0xFFFF)
        if p2p and (not ctrl & S_BIT or len(pd) < 4 or
                    struct.unpack(">I", pd[:4])[0] & (A_FLAG | WRITE_RTR) !=
                    A_FLAG | WRITE_RTR):
            sys.exit("# Reply without A and the Write RTR %r" % (rep + pd))
        # the victim inserts no markers: the peer asks for none
        self.markers = bool(ctrl & M_BIT)
        self.start(bool(ctrl & C_BIT) or crc, self.markers, False)
        print("# start-up done crc %d markers %d" % (self.crc, self.markers))

    def expect_info(self):
        k, v = self.next_fpdu(20)
        if k != "SEND" or len(v) < 24:
            sys.exit("# no INFO from the victim: %s %r" % (k, v))
        magic, _, self.addr, self.rkey, self.len = \
            struct.unpack("<IIQII", v[:24])
        if magic != 0x1badc0de:
            sys.exit("# bad INFO %r" % v)
        print("# info addr %#x rkey %#x len %d" % (self.addr, self.rkey,
                                                  self.len))

    def read_back(self, want, sink_stag, sink_to, timeout=20):
        """Collect Read Response data for one Read; print READ MATCH."""
        got = b""
        end = time.time() + timeout
        while len(got) < len(want):
            k, v = self.next_fpdu(end - time.time())
            if k != "READ_RESP" or v[0] != sink_stag or \
                    v[1] != sink_to + len(got):
                print("# unexpected %s %r after %d octets" % (
                    k, v if k != "READ_RESP" else v[:2], len(got)))
                break
            got += v[2]
        print("READ %s" % ("MATCH" if got == want else "MISMATCH"))

    def report(self, timeout=5):
        """Print what the victim sends until EOF, RST or timeout."""
        kinds = []
        end = time.time() + timeout
        while True:
            k, v = self.next_fpdu(end - time.time())
            if k == "TIMEOUT":
                break
            if k == "TERM":
                print("TERM " + v)
            elif k == "SEND":
                print("# got SEND %r" % v[:32])
            if not kinds or kinds[-1] != k:
                kinds.append(k)
            if k in ("EOF", "RST"):
                break
        print("RESULT " + " ".join(kinds))

    def close(self):
        """Graceful close, then what the victim still sends."""
        self.s.shutdown(socket.SHUT_WR)
        self.report()

    def rst(self):
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                          struct.pack("ii", 1, 0))
        self.s.close()


def send_split(p, wire, step, pause=0.0):
    for i in range(0, len(wire), step):
        p.s.sendall(wire[i:i + step])
        if pause:
            time.sleep(pause)


def bad_fpdus(p):
    """One FPDU (or a burst) each, all answered by a TERMINATE."""
    a, k = p.addr, p.rkey
    return {
        "badcrc": lambda: p.fpdu(ddp_untagged(SEND, 0, p.send_msn) +
                                 b"x" * 8, badcrc=True),
        "badmarker": lambda: p.fpdu(ddp_untagged(SEND, 0, p.send_msn) +
                                    b"y" * 1500, badmarker=True),
        "ulpdu0": lambda: p.fpdu(b""),
        "ulpdu1": lambda: p.fpdu(b"\x41"),
        "ulpdu13": lambda: p.fpdu(ddp_tagged(WRITE, k, a)[:13]),
        "ulpdu13u": lambda: p.fpdu(ddp_untagged(SEND, 0, p.send_msn)[:13]),
        "bigfpdu": lambda: p.fpdu(ddp_untagged(SEND, 0, p.send_msn) +
                                  b"B" * (65535 - 18)),
        "readresp_noreq": lambda: p.fpdu(ddp_tagged(READ_RESP, k, a) +
                                         b"z" * 64),
        "write_stag0": lambda: p.write(0, 0, b"w" * 64),
        "write_randstag": lambda: p.write(0x5a5a5a5a, 0x1000, b"w" * 64),
        "write_to_wrap": lambda: p.write(k, 2**64 - 16, b"w" * 64),
        "write_to_top": lambda: p.write(k, 2**64 - 64, b"w" * 64),
        "write_oob": lambda: p.write(k, a + p.len - 10, b"w" * 64),
        "write_below": lambda: p.write(k, a - 8, b"w" * 64),
        "readreq_huge": lambda: p.read_req(1, 0, 2**32 - 1, k, a),
        "readreq_wrap": lambda: p.read_req(1, 0, 4096, k, 2**64 - 100),
        "readreq_badmsn": lambda: p.read_req(1, 0, 16, k, a, msn=9),
        "send_badmsn": lambda: p.send_msg(b"bad msn", msn=77),
        "send_qn3": lambda: p.fpdu(ddp_untagged(SEND, 3, 1) + b"q3"),
        "send_mo_big": lambda: p.send_msg(b"mo", mo=4095),
        "send_mo_huge": lambda: p.send_msg(b"mo", mo=0xFFFFFFF0),
        "send_too_long": lambda: p.send_msg(b"L" * 5000),
        # RFC 5040 4.8: a TERMINATE (LLP, type 1, code 5) on queue 2
        "term": lambda: p.fpdu(ddp_untagged(TERM, 2, 1) +
                               struct.pack(">I", (2 << 28) | (1 << 24) |
                                           (5 << 16))),
    }


def bad_rtrs(p):
    """First FPDUs of a p2p start-up that are no Write RTR (RFC 6581
    9.2): the responder must answer with the MPA error they earn."""
    return {
        "rtr_badcrc": lambda: p.fpdu(ddp_tagged(WRITE, 0, 0), badcrc=True),
        "rtr_send": lambda: p.send_msg(b"hello\0"),
    }


def run(p, case, stall, hold):
    if case == "split1":
        # a Send cut into 1-octet TCP segments
        send_split(p, p.send_msg(b"second send, split"), 1, 0.002)
        p.close()
    elif case == "many":
        # Writes, Sends, zero-length Writes and a Read, in one segment
        pat = bytes((i * 7 + 3) & 0xFF for i in range(3000))
        buf = b"".join(p.write(p.rkey, p.addr + 4000 + i, pat[i:i + 300])
                       for i in range(0, 3000, 300))
        buf += b"".join(p.send_msg(b"many %d" % i) for i in range(8))
        buf += b"".join(p.write(0, 0, b"") for _ in range(20))
        buf += p.read_req(0x1234, 0x5000, 3000, p.rkey, p.addr + 4000)
        p.s.sendall(buf)
        p.read_back(pat, 0x1234, 0x5000)
        time.sleep(hold)
        p.close()
    elif case == "bigsplit":
        # a 60000-octet Write in 16-octet TCP segments, read back
        pat = bytes((i * 13 + 1) & 0xFF for i in range(60000))
        send_split(p, p.write(p.rkey, p.addr + 8192, pat), 16)
        p.s.sendall(p.read_req(0x77, 0, 60000, p.rkey, p.addr + 8192))
        p.read_back(pat, 0x77, 0)
        p.close()
    elif case in ("readreq_ird", "readreq_ird_ok"):
        # the receive window is shut: no Read Response can complete, so
        # IRD Reads are outstanding at once; IRD + 1 is one too many
        size = 256 << 10
        n = IRD + 1 if case == "readreq_ird" else IRD
        p.s.sendall(b"".join(p.read_req(0x10 + i, 0, size, p.rkey,
                                        p.addr + i * size) for i in range(n)))
        time.sleep(stall)
        p.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        if case == "readreq_ird":
            p.report(10)
            return
        for i in range(n):
            p.read_back(FILL * size, 0x10 + i, 0)
        p.close()
    elif case == "read_stall":
        # Read all of the MR and keep the window shut for a while
        p.s.sendall(p.read_req(1, 0, p.len, p.rkey, p.addr))
        print("# stalling %g s" % stall, flush=True)
        time.sleep(stall)
        p.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        p.report(20)
    elif case == "rst_mid":
        w = p.send_msg(b"R" * 1000)
        p.s.sendall(w[:len(w) // 2])
        time.sleep(0.5)
        p.rst()
        print("RESULT RST sent")
    else:
        p.s.sendall(bad_fpdus(p)[case]())
        p.report()


def main():
    host, port, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    opts = sys.argv[4:]
    stall = [float(o[6:]) for o in opts if o.startswith("stall=")]
    stall = stall[0] if stall else 1.0
    hold = [float(o[5:]) for o in opts if o.startswith("hold=")]
    hold = hold[0] if hold else 0.0
    windowed = case.startswith("readreq_ird") or case == "read_stall"
    p = Peer(host, port, "crc" in opts, 4096 if windowed else 0,
             "p2p" in opts)
    if p.markers != ("markers" in opts):
        sys.exit("# markers %d, not as asked" % p.markers)
    if case.startswith("rtr_"):
        p.s.sendall(bad_rtrs(p)[case]())
        p.report()
        return
    hello = p.send_msg(b"hello\0")
    if case == "split1":
        send_split(p, hello, 1, 0.002)
    else:
        p.s.sendall(hello)
    p.expect_info()
    go = [o[3:] for o in opts if o.startswith("go=")]
    if go:
        print("# waiting for " + go[0], flush=True)
        deadline = time.time() + 120
        while not os.path.exists(go[0]):
            if time.time() > deadline:
                sys.exit("# no " + go[0])
            time.sleep(0.1)
    run(p, case, stall, hold)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
