#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A malicious raw iWARP peer for wire.sh: an MPA Rev 1 initiator (RFC 5044,
no RTR) with its own FPDU encoder, markers and CRC32c.

  mpa_evil.py HOST PORT CASE [crc] [markers] [p2p] [stall=S]

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
with "#". Exit status 0 unless the start-up failed.
"""
import socket
import struct
import sys
import time

M_BIT, C_BIT, R_BIT, S_BIT = 1 << 31, 1 << 30, 1 << 29, 1 << 28
A_FLAG, WRITE_RTR = 1 << 31, 1 << 15     # RFC 6581 7: A; C, the Write RTR
WRITE, READ_REQ, READ_RESP, SEND, TERM = 0, 1, 2, 3, 7
IRD = 4                 # the victim's responder_resources
FILL = b"\xa5"          # what the victim's MR holds
MARKER_PERIOD = 512


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_T = _crc_table()


def crc32c(data):
    """RFC 5044 4.4: CRC32c over the FPDU, as sent (inverted)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _T[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return ~crc & 0xFFFFFFFF


def ddp_untagged(op, qn, msn, mo=0, last=True):
    """RFC 5041 4.3: DV 1, RDMAP RV 1 (RFC 5040 4.1), Invalidate STag 0."""
    ctrl = (1 << 8) | (1 << 6) | op | ((1 << 14) if last else 0)
    return struct.pack(">HIIII", ctrl, 0, qn, msn, mo)


def ddp_tagged(op, stag, to, last=True):
    """RFC 5041 4.2."""
    ctrl = (1 << 15) | (1 << 8) | (1 << 6) | op | ((1 << 14) if last else 0)
    return struct.pack(">HIQ", ctrl, stag, to & (2**64 - 1))


class Peer:
    def __init__(self, host, port, crc, rcvbuf=0, p2p=False):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            # before connect: the window scale follows the small buffer
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(10)
        self.s.connect((host, port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
        self.rxbuf = b""
        rep = self.recv_exact(20)
        ctrl = struct.unpack(">I", rep[16:20])[0]
        if rep[:16] != b"MPA ID Rep Frame" or ctrl & R_BIT:
            sys.exit("# bad MPA Reply %r" % rep)
        pd = self.recv_exact(ctrl & 0xFFFF)
        if p2p and (not ctrl & S_BIT or len(pd) < 4 or
                    struct.unpack(">I", pd[:4])[0] & (A_FLAG | WRITE_RTR) !=
                    A_FLAG | WRITE_RTR):
            sys.exit("# Reply without A and the Write RTR %r" % (rep + pd))
        self.crc = bool(ctrl & C_BIT) or crc
        self.markers = bool(ctrl & M_BIT)
        self.off = 0            # stream offset for markers
        self.send_msn = 1
        self.rr_msn = 1
        print("# start-up done crc %d markers %d" % (self.crc, self.markers))

    def recv_exact(self, n):
        while len(self.rxbuf) < n:
            c = self.s.recv(1 << 16)
            if not c:
                raise EOFError
            self.rxbuf += c
        b, self.rxbuf = self.rxbuf[:n], self.rxbuf[n:]
        return b

    def fpdu(self, ulpdu, badcrc=False, badmarker=False):
        """Wire octets of one FPDU (RFC 5044 4): ULPDU_Length, ULPDU, pad,
        markers every 512 octets of the stream, CRC."""
        content = struct.pack(">H", len(ulpdu) & 0xFFFF) + ulpdu
        content += b"\0" * (-len(content) % 4)
        start, hdr, wire = self.off, None, bytearray()
        pos = 0
        while True:
            if self.markers and self.off % MARKER_PERIOD == 0:
                ptr = 0 if hdr is None else self.off - hdr
                if badmarker and hdr is not None:
                    ptr ^= 0x40
                wire += struct.pack(">HH", 0, ptr & 0xFFFF)
                self.off += 4
            if hdr is None:
                hdr = self.off
            if pos == len(content):
                break
            n = min(len(content) - pos,
                    MARKER_PERIOD - self.off % MARKER_PERIOD)
            wire += content[pos:pos + n]
            pos += n
            self.off += n
        crc = crc32c(wire) if self.crc else 0
        wire += struct.pack("<I", crc ^ (1 if badcrc else 0))
        self.off += 4
        assert self.off - start == len(wire)
        return bytes(wire)

    def send_msg(self, data, mo=0, msn=None, qn=0, last=True):
        msn = self.send_msn if msn is None else msn
        if last and qn == 0:
            self.send_msn += 1
        return self.fpdu(ddp_untagged(SEND, qn, msn, mo, last) + data)

    def write(self, stag, to, data):
        return self.fpdu(ddp_tagged(WRITE, stag, to) + data)

    def read_req(self, sink_stag, sink_to, size, src_stag, src_to, msn=None):
        """RFC 5040 4.4, on queue 1."""
        msn = self.rr_msn if msn is None else msn
        self.rr_msn += 1
        return self.fpdu(ddp_untagged(READ_REQ, 1, msn) +
                         struct.pack(">IQIIQ", sink_stag, sink_to, size,
                                     src_stag, src_to & (2**64 - 1)))

    def next_fpdu(self, timeout):
        """One FPDU of the victim (no markers: the peer asks for none):
        (kind, value), or ("EOF"|"RST"|"TIMEOUT", None)."""
        self.s.settimeout(max(timeout, 0.01))
        try:
            hdr = self.recv_exact(2)
            ulen = struct.unpack(">H", hdr)[0]
            rest = self.recv_exact(ulen + (-(2 + ulen) % 4) + 4)
        except socket.timeout:
            return ("TIMEOUT", None)
        except EOFError:
            return ("EOF", None)
        except ConnectionResetError:
            return ("RST", None)
        if self.crc and crc32c(hdr + rest[:-4]) != \
                struct.unpack("<I", rest[-4:])[0]:
            print("# victim FPDU with a bad CRC")
        u = rest[:ulen]
        ctrl = struct.unpack(">H", u[:2])[0]
        op = ctrl & 0xF
        if ctrl & 0x8000:
            stag, to = struct.unpack(">IQ", u[2:14])
            return ("READ_RESP" if op == READ_RESP else "WRITE",
                    (stag, to, u[14:]))
        if op == TERM:
            t = struct.unpack(">I", u[18:22])[0]
            return ("TERM", "layer %d etype %d ecode %#x hdrctl %#x" % (
                t >> 28, (t >> 24) & 0xF, (t >> 16) & 0xFF, t & 0xFFFF))
        return ("SEND" if op == SEND else "OP%d" % op, u[18:])

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


def run(p, case, stall):
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
    run(p, case, stall)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
