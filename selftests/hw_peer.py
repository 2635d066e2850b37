#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The MPA start-up of two hardware iWARP drivers, reproduced as raw test
peers for hwpeer.sh, from their host code in Linux 6.12 (Debian's
linux-source-6.12): iw_cxgb4 (Chelsio T4-T6, drivers/infiniband/hw/cxgb4/
cm.c, qp.c) and irdma (Intel E810/X722 in iWARP mode, drivers/infiniband/
hw/irdma/cm.c, ctrl.c). What the firmware or hardware decides after the
host hands over (cxgb4's INIT work request, irdma's QP context) is not in
that code; where a peer has to guess, it says "firmware" below.

  hw_peer.py PROFILE ROLE HOST PORT [KEY=VALUE...]

PROFILE cxgb4 or irdma; ROLE init (connect to HOST PORT and send the
Request) or resp (listen on HOST PORT, answer the Request). Options:
  cxgb4: p2p_type=read|write (1|0), mpa_rev=1|2, crc_enabled=0|1,
         markers_enabled=0|1, peer2peer=0|1, depth=D (the device's read
         depth, cur_max_read_depth, 32 by default)
  irdma: gen=e810|x722 (IRD/ORD limits 127/255, 63/127)
  both:  ulp=nfs|nvme|iser (private data and the IRD/ORD the kernel ULP
         asks for; nfs by default)

The other end is selftests/victim.c on iwtcp. After the start-up the peer
does what a ULP on the hardware would: a Send, then (once the victim's
INFO arrives) an RDMA Write of a pattern into the victim's MR and an RDMA
Read of it back. Output: "START OK rtr R crc C markers_tx M markers_rx M
ird I ord O" or "START FAIL REASON" (what the driver would do: "rst ...",
"term ...", "rejected"), then "DATA OK" or "DATA BAD ...". Lines that
start with "#" are detail. Exit status 0 when the start-up and the data
were good, 2 when the start-up failed as the driver would fail it, 1 on
anything else.
"""
import socket
import struct
import sys
import time

from iwarp_wire import (A_FLAG, C_WRITE_RTR, D_READ_RTR, IRD_ORD_MAX,
                        REP_KEY, REQ_KEY, Stream, mpa_frame, parse_word,
                        rtr_name)

# What the kernel ULPs put in the connection private data and ask for
# (ird, ord as rdma_cm's responder_resources, initiator_depth; "max" is the
# device's limit): NFS rpcrdma_connect_private (include/linux/sunrpc/
# rpc_rdma.h), NVMe-oF nvme_rdma_cm_req/rep (include/linux/nvme-rdma.h),
# iSER iser_cm_hdr (include/scsi/iser.h).
ULPS = {
    "nfs": {"init_pd": bytes.fromhex("f6ab0e1801010303"),
            "resp_pd": bytes.fromhex("f6ab0e1801000303"),
            "init": ("max", 0), "resp": (0, "init_ird")},
    "nvme": {"init_pd": b"\0" * 32, "resp_pd": b"\0" * 32,
             "init": ("max", 0), "resp": (0, "init_ird")},
    "iser": {"init_pd": b"\x80\0\0\0", "resp_pd": b"\x80\0\0\0",
             "init": ("max", 1), "resp": (0, "init_ird")},
}
FILL = b"\xa5"          # what the victim's MR holds


class StartFail(Exception):
    """The start-up fails as the driver would fail it."""


def opt(opts, key, default):
    v = opts.get(key, default)
    return int(v) if isinstance(default, int) else v


class Hw:
    """One driver's start-up; the subclasses hold each driver's rules."""

    def __init__(self, opts):
        self.opts = opts
        self.ulp = ULPS[opt(opts, "ulp", "nfs")]
        self.rtr = None         # the RTR this side sends or expects
        self.crc = self.markers_tx = self.markers_rx = False
        self.ird = self.ord = 0

    def ulp_values(self, role, max_, init_ird=0):
        vals = []
        for v in self.ulp[role]:
            vals.append(max_ if v == "max" else init_ird
                        if v == "init_ird" else v)
        return vals

    def rst(self, st, why):
        st.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                        struct.pack("ii", 1, 0))
        st.s.close()
        raise StartFail("rst " + why)

    def send_rtr(self, st):
        raise NotImplementedError

    def result(self):
        print("START OK rtr %s crc %d markers_tx %d markers_rx %d ird %d "
              "ord %d" % (self.rtr or "none", self.crc, self.markers_tx,
                          self.markers_rx, self.ird, self.ord), flush=True)


class Cxgb4(Hw):
    """iw_cxgb4, cm.c: send_mpa_req, process_mpa_reply, process_mpa_request,
    c4iw_accept_cr, send_mpa_reply; qp.c: build_rtr_msg."""

    def __init__(self, opts):
        super().__init__(opts)
        self.p2p_type = {"read": "read", "1": "read", "write": "write",
                         "0": "write"}[opt(opts, "p2p_type", "read")]
        self.mpa_rev = opt(opts, "mpa_rev", 2)
        self.crc_enabled = opt(opts, "crc_enabled", 1)
        self.markers_enabled = opt(opts, "markers_enabled", 0)
        self.peer2peer = opt(opts, "peer2peer", 1)
        self.depth = opt(opts, "depth", 32)

    def rtr_bit(self, kind):
        return C_WRITE_RTR if kind == "write" else D_READ_RTR

    @staticmethod
    def recorded(f):
        """cm.c 1600-1611 and 1803-1813: Write if A and C, else Read if A
        and D, else none."""
        if not f.get("p2p"):
            return None
        if "write" in f["rtrs"]:
            return "write"
        return "read" if "read" in f["rtrs"] else None

    # --- initiator -------------------------------------------------------
    def request(self):
        ird, ord_ = self.ulp_values("init", self.depth)
        pd = self.ulp["init_pd"]
        if self.mpa_rev == 2:
            if self.peer2peer:
                ord_ = max(ord_, 1)             # cm.c 3339-3340
                w = A_FLAG | ird << 16 | self.rtr_bit(self.p2p_type) | ord_
            else:
                w = ird << 16 | ord_
            pd = struct.pack(">I", w) + pd
        self.ird, self.ord = ird, ord_
        return mpa_frame(REQ_KEY, self.mpa_rev, pd,
                         markers=self.markers_enabled,
                         crc=self.crc_enabled, enhanced=self.mpa_rev == 2)

    def reply(self, st, f, extra):
        """process_mpa_reply, cm.c 1461-1693."""
        if extra:
            self.rst(st, "octets after the Reply before FPDU mode")
        if f["rev"] > self.mpa_rev:
            self.rst(st, "Reply revision %d" % f["rev"])
        if len(f["pd"]) > 256:
            self.rst(st, "Reply private data %d" % len(f["pd"]))
        if f["reject"]:
            self.rst(st, "after a reject")
        self.crc = f["crc"] or bool(self.crc_enabled)
        self.markers_tx, self.markers_rx = f["markers"], \
            bool(self.markers_enabled)
        if f["rev"] == 2 and f["enhanced"]:
            r_ird, r_ord = f["ird"], f["ord"]
            if r_ord > self.depth:
                # the INIT WR's max_ird above the read depth (qp.c 1879)
                self.rst(st, "Reply ORD %d above read depth %d" %
                         (r_ord, self.depth))
            self.ird = r_ord
            self.ord = min(self.ord, r_ird)
            got = self.recorded(f)
            if self.peer2peer and got != self.p2p_type:
                # cm.c 1628-1664: no RTR, then a FIN. The TERM 0x07 it
                # asks for never goes out: cm.c 1659 sets attrs.send_term,
                # qp.c 1965 reads the QP's own send_term, always 0.
                st.s.shutdown(socket.SHUT_WR)
                raise StartFail("fin no RTR: Reply RTR %s, p2p_type %s" %
                                (got, self.p2p_type))
            self.rtr = got if self.peer2peer else None
        elif self.peer2peer:
            self.rtr = self.p2p_type            # rev 1: cm.c 1612-1614

    rtr_sink = (1, 1)       # the Read RTR's sink STag and TO

    def send_rtr(self, st):
        """qp.c 1733-1755: STag 1, TO 1 (the firmware sends it)."""
        if self.rtr == "write":
            st.s.sendall(st.write(1, 1, b""))
        elif self.rtr == "read":
            st.s.sendall(st.read_req(1, 1, 0, 1, 1))

    # --- responder -------------------------------------------------------
    def answer(self, st, f, extra):
        """process_mpa_request (cm.c 1707-1845), c4iw_accept_cr (3120-3232)
        and send_mpa_reply (1125-1212); the ULP accepts."""
        if extra:
            self.rst(st, "octets after the Request")
        if f["rev"] > self.mpa_rev:
            self.rst(st, "Request revision %d" % f["rev"])
        if len(f["pd"]) > 256:
            self.rst(st, "Request private data %d" % len(f["pd"]))
        self.crc = f["crc"] or bool(self.crc_enabled)
        self.markers_tx, self.markers_rx = f["markers"], \
            bool(self.markers_enabled)
        rec = None
        i_ird = i_ord = self.depth
        if f["rev"] == 2 and f["enhanced"]:
            i_ird = min(f["ird"], self.depth)
            i_ord = min(f["ord"], self.depth)
            rec = self.recorded(f) if self.peer2peer else None
        elif f["rev"] == 1 and self.peer2peer:
            rec = self.p2p_type
        ird, ord_ = self.ulp_values("resp", self.depth, init_ird=i_ird)
        ord_ = min(ord_, i_ird)
        if ird < i_ord:
            ird = i_ord
        if rec and self.p2p_type == "read" and ird == 0:
            ird = 1
        self.ird, self.ord, self.rtr = ird, ord_, rec
        pd = self.ulp["resp_pd"]
        enhanced = f["rev"] == 2 and f["enhanced"]
        if enhanced:
            w = ird << 16 | ord_
            if rec:
                # the module's p2p_type, not what was recorded (1183-1188)
                w |= A_FLAG | self.rtr_bit(self.p2p_type)
            pd = struct.pack(">I", w) + pd
        return mpa_frame(REP_KEY, f["rev"], pd, markers=self.markers_enabled,
                         crc=self.crc, enhanced=enhanced)


class Irdma(Hw):
    """irdma, cm.c: irdma_build_mpa_v2, irdma_negotiate_mpa_v2_ird_ord,
    irdma_parse_mpa, irdma_accept; ctrl.c: irdma_sc_send_rtt."""

    def __init__(self, opts):
        super().__init__(opts)
        self.max_ird, self.max_ord = {"e810": (127, 255),
                                      "x722": (63, 127)}[opt(opts, "gen",
                                                             "e810")]

    def check_frame(self, st, f, reads, kind):
        """irdma_parse_mpa, cm.c 1025-1089: one TCP segment, Rev 1 or 2."""
        if reads > 1:
            self.rst(st, "%s in %d segments (no reassembly)" % (kind, reads))
        if f["rev"] not in (1, 2):
            self.rst(st, "%s revision %d" % (kind, f["rev"]))
        if len(f["pd"]) > 512:
            self.rst(st, "%s private data %d" % (kind, len(f["pd"])))
        if f["rev"] == 2 and "p2p" not in f:
            # cm.c 1091-1097: E is not looked at, the word is read anyway
            if len(f["pd"]) < 4:
                self.rst(st, "%s without the IRD/ORD word" % kind)
            f.update(parse_word(struct.unpack(">I", f["pd"][:4])[0]))

    # --- initiator -------------------------------------------------------
    def request(self):
        ird, ord_ = self.ulp_values("init", self.max_ird)
        ird = min(ird, self.max_ird)
        ord_ = max(min(ord_, self.max_ord), 1)      # record_ird_ord
        self.ird, self.ord = ird, ord_
        w = A_FLAG | ird << 16 | C_WRITE_RTR | D_READ_RTR | ord_
        return mpa_frame(REQ_KEY, 2, struct.pack(">I", w) +
                         self.ulp["init_pd"], crc=True, enhanced=True)

    def reply(self, st, f, extra, reads=1):
        self.check_frame(st, f, reads, "Reply")
        self.crc = True                 # RCVNOMPACRC is never set
        self.markers_tx, self.markers_rx = f["markers"], False
        if f["rev"] == 2:
            # irdma_negotiate_mpa_v2_ird_ord, cm.c 955-1017 (before R)
            if not f["p2p"]:
                self.rst(st, "Reply without peer-to-peer")
            if f["ird"] != IRD_ORD_MAX and f["ord"] != IRD_ORD_MAX:
                if f["ird"] == 0 and "read" in f["rtrs"]:
                    self.rst(st, "Reply IRD 0 with the Read RTR")
                self.ord = min(self.ord, f["ird"])
                if self.ird < f["ord"]:
                    self.rst(st, "IRD %d below Reply ORD %d" %
                             (self.ird, f["ord"]))
            if "read" in f["rtrs"]:
                self.rtr = "read"
            elif "write" in f["rtrs"]:
                self.rtr = "write"
            else:
                self.rst(st, "Reply without a Read or Write RTR")
        else:
            self.rtr = "read"           # send_rdma0_op stays READ
        if f["reject"]:
            st.s.close()
            raise StartFail("rejected")

    rtr_sink = (0xabcd, 0)

    def send_rtr(self, st):
        """ctrl.c 1443-1486."""
        if self.rtr == "write":
            st.s.sendall(st.write(0, 0, b""))
        else:
            st.s.sendall(st.read_req(0xabcd, 0, 0, 0x1234, 0))

    # --- responder -------------------------------------------------------
    def answer(self, st, f, extra, reads=1):
        self.check_frame(st, f, reads, "Request")
        self.crc = True
        self.markers_tx, self.markers_rx = f["markers"], False
        ird, ord_, off = self.max_ird, self.max_ord, False
        if f["rev"] == 2:
            if not f["p2p"]:
                self.rst(st, "Request without peer-to-peer")
            off = IRD_ORD_MAX in (f["ird"], f["ord"])
            if not off:
                if f["ord"] == 0 and "read" in f["rtrs"]:
                    ird = 1
                ord_ = min(self.max_ord, f["ird"])
            if "read" in f["rtrs"]:
                self.rtr = "read"
            elif "write" in f["rtrs"]:
                self.rtr = "write"
            else:
                self.rst(st, "Request without a Read or Write RTR")
        else:
            self.rtr = "read"
        self.ird, self.ord = ird, ord_
        pd = self.ulp["resp_pd"]
        if f["rev"] == 2:
            wi, wo = (IRD_ORD_MAX, IRD_ORD_MAX) if off else (ird, ord_)
            w = A_FLAG | wi << 16 | wo | (D_READ_RTR if self.rtr == "read"
                                          else C_WRITE_RTR)
            pd = struct.pack(">I", w) + pd
        return mpa_frame(REP_KEY, f["rev"], pd, crc=True,
                         enhanced=f["rev"] == 2)


def read_frame(st, key):
    """An MPA frame, the number of recv() calls it took and whether more
    octets came with it."""
    reads = 0
    while len(st.rxbuf) < 20:
        c = st.s.recv(1 << 16)
        if not c:
            raise EOFError
        st.rxbuf += c
        reads += 1
    plen = struct.unpack(">H", st.rxbuf[18:20])[0]
    while len(st.rxbuf) < 20 + plen:
        c = st.s.recv(1 << 16)
        if not c:
            raise EOFError
        st.rxbuf += c
        reads += 1
    f = st.recv_mpa(key)
    return f, reads, len(st.rxbuf) > 0


def expect_rtr(hw, st):
    """Responder: the first FPDU must be the RTR this driver set up."""
    k, v = st.next_fpdu(10)
    if k == "TERM":
        st.s.close()
        raise StartFail("term received, %s" % v)
    got = rtr_name(k, v)
    if got != hw.rtr:
        # firmware: what it does with another first FPDU is not in the
        # host code; the peer ends the connection
        st.s.close()
        raise StartFail("rst RTR %s, expected %s (%s)" % (got, hw.rtr, k))
    print("# RTR %s received" % got)
    if got == "read":
        st.s.sendall(st.read_resp(v[0], v[1], b""))


def data_exchange(st, rtr_sent, rtr_sink=None):
    """A Send, the victim's INFO, a Write and a Read of it back; every
    FPDU of the victim's with a good CRC when CRCs are on."""
    ok = exchange(st, rtr_sent, rtr_sink)
    if ok and st.bad_crcs:
        print("DATA BAD %d FPDUs with a bad CRC" % st.bad_crcs)
        return False
    if ok:
        print("DATA OK")
    return ok


def exchange(st, rtr_sent, rtr_sink):
    st.s.sendall(st.send_msg(b"hello\0"))
    k, v = st.next_fpdu(20)
    if rtr_sent == "read":
        # RFC 5040 4.5: to the Read Request's sink STag and TO
        if k != "READ_RESP" or v[2] or (v[0], v[1]) != rtr_sink:
            print("DATA BAD no zero-length Read Response to the RTR "
                  "(sink %s): %s %s" % (rtr_sink, k, v and v[:2]))
            return False
        print("# RTR answered")
        k, v = st.next_fpdu(20)
    if k != "SEND" or len(v) < 24:
        print("DATA BAD no INFO: %s %r" % (k, v))
        return False
    magic, _, addr, rkey, length = struct.unpack("<IIQII", v[:24])
    if magic != 0x1badc0de:
        print("DATA BAD INFO %r" % v[:24])
        return False
    pat = bytes((i * 31 + 7) & 0xFF for i in range(20000))
    # RFC 5044 4.5: FPDUs no larger than the MSS, as the hardware sends
    step = 1400
    st.s.sendall(b"".join(st.write(rkey, addr + 4096 + i, pat[i:i + step])
                          for i in range(0, len(pat), step)))
    st.s.sendall(st.read_req(0x51, 0, len(pat), rkey, addr + 4096))
    got = b""
    end = time.time() + 20
    while len(got) < len(pat):
        k, v = st.next_fpdu(end - time.time())
        if k != "READ_RESP" or v[0] != 0x51 or v[1] != len(got):
            print("DATA BAD %s after %d octets" % (k, len(got)))
            return False
        got += v[2]
    if got != pat:
        print("DATA BAD Read back differs")
        return False
    return True


def main():
    profile, role, host, port = sys.argv[1:5]
    opts = dict(a.split("=", 1) for a in sys.argv[5:])
    hw = {"cxgb4": Cxgb4, "irdma": Irdma}[profile](opts)
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        if role == "init":
            s = socket.create_connection((host, int(port)), timeout=15)
            st = Stream(s)
            st.s.sendall(hw.request())
            f, reads, extra = read_frame(st, REP_KEY)
            print("# Reply rev %d crc %d markers %d reject %d word %s" % (
                f["rev"], f["crc"], f["markers"], f["reject"],
                {k: f[k] for k in ("ird", "ord", "p2p", "rtrs") if k in f}))
            if isinstance(hw, Irdma):
                hw.reply(st, f, extra, reads)
            else:
                hw.reply(st, f, extra)
            st.start(hw.crc, hw.markers_tx, hw.markers_rx)
            hw.send_rtr(st)
            hw.result()
            ok = data_exchange(st, hw.rtr, hw.rtr_sink)
        else:
            ls = socket.socket(fam, socket.SOCK_STREAM)
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind((host, int(port)))
            ls.listen(1)
            print("listening", flush=True)
            ls.settimeout(30)
            s, _ = ls.accept()
            s.settimeout(15)
            st = Stream(s)
            f, reads, extra = read_frame(st, REQ_KEY)
            print("# Request rev %d crc %d markers %d word %s" % (
                f["rev"], f["crc"], f["markers"],
                {k: f[k] for k in ("ird", "ord", "p2p", "rtrs") if k in f}))
            if isinstance(hw, Irdma):
                rep = hw.answer(st, f, extra, reads)
            else:
                rep = hw.answer(st, f, extra)
            st.s.sendall(rep)
            st.start(hw.crc, hw.markers_tx, hw.markers_rx)
            if hw.rtr:
                expect_rtr(hw, st)
            hw.result()
            ok = data_exchange(st, None)
    except StartFail as e:
        print("START FAIL %s" % e, flush=True)
        # what iwtcp sends after a failed start-up (a TERM, then FIN)
        try:
            st.s.settimeout(5)
            k, v = st.next_fpdu(5)
            while k not in ("EOF", "RST", "TIMEOUT"):
                print("# then %s %s" % (k, v))
                k, v = st.next_fpdu(5)
            print("# then %s" % k)
        except OSError:
            pass
        return 2
    except (EOFError, ConnectionResetError, socket.timeout) as e:
        print("START FAIL peer %s" % type(e).__name__, flush=True)
        return 2
    st.s.shutdown(socket.SHUT_WR)
    k, _ = st.next_fpdu(10)
    print("# then %s" % k)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    sys.exit(main())
