# SPDX-License-Identifier: GPL-2.0
"""iWARP wire formats for the raw test peers (mpa_evil.py, hw_peer.py):
MPA frames (RFC 5044 7.1, RFC 6581 7), FPDUs with markers and CRC32c
(RFC 5044 4), DDP headers (RFC 5041 4) and RDMAP opcodes (RFC 5040 4).
Written apart from the driver on purpose: a peer that shared iwtcp's
framing code would share its bugs.
"""
import socket
import struct

REQ_KEY, REP_KEY = b"MPA ID Req Frame", b"MPA ID Rep Frame"
M_BIT, C_BIT, R_BIT, S_BIT = 1 << 31, 1 << 30, 1 << 29, 1 << 28
# RFC 6581 7: the IRD/ORD word, |A|B| IRD |C|D| ORD |
A_FLAG, B_SEND_RTR = 1 << 31, 1 << 30
C_WRITE_RTR, D_READ_RTR = 1 << 15, 1 << 14
IRD_ORD_MAX = 0x3FFF
RTR_FLAGS = {"send": B_SEND_RTR, "write": C_WRITE_RTR, "read": D_READ_RTR}
WRITE, READ_REQ, READ_RESP, SEND, TERM = 0, 1, 2, 3, 7
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


def ird_ord_word(ird, ord_, p2p, rtrs):
    """RFC 6581 7: the word; rtrs is a set of "send", "write", "read"."""
    w = (A_FLAG if p2p else 0) | (ird & IRD_ORD_MAX) << 16 | \
        (ord_ & IRD_ORD_MAX)
    for r in rtrs:
        w |= RTR_FLAGS[r]
    return w


def parse_word(w):
    """The IRD/ORD word as a dict (ird, ord, p2p, rtrs)."""
    return {"ird": (w >> 16) & IRD_ORD_MAX, "ord": w & IRD_ORD_MAX,
            "p2p": bool(w & A_FLAG),
            "rtrs": {r for r, f in RTR_FLAGS.items() if w & f}}


def mpa_frame(key, rev, pd, markers=False, crc=False, reject=False,
              enhanced=False):
    """RFC 5044 7.1: key, flags, Rev, PD_Length, private data."""
    ctrl = (M_BIT if markers else 0) | (C_BIT if crc else 0) | \
        (R_BIT if reject else 0) | (S_BIT if enhanced else 0) | \
        (rev & 0xFF) << 16 | len(pd)
    return key + struct.pack(">I", ctrl) + pd


def rtr_name(kind, fields):
    """The RTR a zero-length first FPDU is (RFC 6581 9.2), or None."""
    if kind == "WRITE" and not fields[2]:
        return "write"
    if kind == "READ_REQ" and fields[2] == 0:
        return "read"
    if kind == "SEND" and not fields:
        return "send"
    return None


class Stream:
    """One end of an MPA connection on a TCP socket: raw octets for the
    start-up, then FPDUs with the negotiated CRC and markers."""

    def __init__(self, sock):
        self.s = sock
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.rxbuf = b""
        self.crc = self.markers_tx = self.markers_rx = False
        self.tx_off = self.rx_off = 0   # FPDU stream offsets (markers)
        self.send_msn = self.rr_msn = 1
        self.bad_crcs = 0               # the peer's FPDUs that failed it

    def recv_exact(self, n):
        while len(self.rxbuf) < n:
            c = self.s.recv(1 << 16)
            if not c:
                raise EOFError
            self.rxbuf += c
        b, self.rxbuf = self.rxbuf[:n], self.rxbuf[n:]
        return b

    def recv_mpa(self, key):
        """One MPA frame: dict of its fields, the word parsed if S."""
        hdr = self.recv_exact(20)
        if hdr[:16] != key:
            raise ValueError("key %r" % hdr[:16])
        ctrl = struct.unpack(">I", hdr[16:])[0]
        f = {"markers": bool(ctrl & M_BIT), "crc": bool(ctrl & C_BIT),
             "reject": bool(ctrl & R_BIT), "enhanced": bool(ctrl & S_BIT),
             "rev": (ctrl >> 16) & 0xFF, "pd": self.recv_exact(ctrl & 0xFFFF)}
        if f["enhanced"] and len(f["pd"]) >= 4:
            f.update(parse_word(struct.unpack(">I", f["pd"][:4])[0]))
        return f

    def start(self, crc, markers_tx, markers_rx):
        """Full operation from here on (RFC 5044 7.1.1)."""
        self.crc, self.markers_tx, self.markers_rx = crc, markers_tx, \
            markers_rx

    def fpdu(self, ulpdu, badcrc=False, badmarker=False):
        """Wire octets of one FPDU (RFC 5044 4): ULPDU_Length, ULPDU, pad,
        markers every 512 octets of the stream, CRC."""
        content = struct.pack(">H", len(ulpdu) & 0xFFFF) + ulpdu
        content += b"\0" * (-len(content) % 4)
        start, hdr, wire = self.tx_off, None, bytearray()
        pos = 0
        while True:
            if self.markers_tx and self.tx_off % MARKER_PERIOD == 0:
                ptr = 0 if hdr is None else self.tx_off - hdr
                if badmarker and hdr is not None:
                    ptr ^= 0x40
                wire += struct.pack(">HH", 0, ptr & 0xFFFF)
                self.tx_off += 4
            if hdr is None:
                hdr = self.tx_off
            if pos == len(content):
                break
            n = len(content) - pos
            if self.markers_tx:
                n = min(n, MARKER_PERIOD - self.tx_off % MARKER_PERIOD)
            wire += content[pos:pos + n]
            pos += n
            self.tx_off += n
        crc = crc32c(wire) if self.crc else 0
        wire += struct.pack("<I", crc ^ (1 if badcrc else 0))
        self.tx_off += 4
        assert self.tx_off - start == len(wire)
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

    def read_resp(self, sink_stag, sink_to, data):
        """RFC 5040 4.5: the Read Response, tagged, to the sink."""
        return self.fpdu(ddp_tagged(READ_RESP, sink_stag, sink_to) + data)

    def _recv_stream(self, n, raw):
        """n octets of FPDU content, markers stripped (and kept in raw)."""
        out = bytearray()
        while len(out) < n:
            if self.markers_rx and self.rx_off % MARKER_PERIOD == 0:
                raw += self.recv_exact(4)
                self.rx_off += 4
            k = n - len(out)
            if self.markers_rx:
                k = min(k, MARKER_PERIOD - self.rx_off % MARKER_PERIOD)
            b = self.recv_exact(k)
            out += b
            raw += b
            self.rx_off += k
        return bytes(out)

    def next_fpdu(self, timeout):
        """One FPDU of the peer: (kind, value), or ("EOF"|"RST"|"TIMEOUT",
        None). WRITE and READ_RESP give (stag, to, data), READ_REQ
        (sink_stag, sink_to, size, src_stag, src_to), SEND its data,
        TERM a text; an FPDU with a bad CRC is said on stdout."""
        self.s.settimeout(max(timeout, 0.01))
        raw = bytearray()
        try:
            hdr = self._recv_stream(2, raw)
            ulen = struct.unpack(">H", hdr)[0]
            rest = self._recv_stream(ulen + (-(2 + ulen) % 4), raw)
            tail = bytearray()      # a marker just before the CRC counts
            crc = struct.unpack("<I", self._recv_stream(4, tail))[0]
            raw += tail[:-4]
        except socket.timeout:
            return ("TIMEOUT", None)
        except EOFError:
            return ("EOF", None)
        except ConnectionResetError:
            return ("RST", None)
        if self.crc and crc32c(raw) != crc:
            self.bad_crcs += 1
            print("# peer FPDU with a bad CRC", flush=True)
        return self.parse_ulpdu(rest[:ulen])

    @staticmethod
    def parse_ulpdu(u):
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
        if op == READ_REQ:
            return ("READ_REQ", struct.unpack(">IQIIQ", u[18:46]))
        return ("SEND" if op == SEND else "OP%d" % op, u[18:])
