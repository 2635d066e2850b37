#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A raw TCP peer speaking just enough MPA (RFC 5044 7.1, RFC 6581) to
test how iwtcp copes with peers that go away at the worst moment.

  mpa_peer.py reqfin HOST PORT   send a valid enhanced Request, close at once
  mpa_peer.py replyclose HOST PORT
                                 listen, answer the first Request with a
                                 valid enhanced Reply (peer-to-peer, the
                                 RTR types it offered), then close
  mpa_peer.py unenhanced HOST PORT
                                 listen as a responder of RFC 5044 alone:
                                 close on a Request that is not revision 1
                                 or has S set; answer a revision 1 Request
                                 with a revision 1 Reply, then read until
                                 the initiator closes
  mpa_peer.py rejecthold HOST PORT
                                 listen, reject the first Request, send
                                 no TERM and hold the connection 8 s
"""
import socket
import struct
import sys
import time

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
C_BIT, R_BIT, S_BIT = 1 << 30, 1 << 29, 1 << 28
A_FLAG, WRITE_RTR = 1 << 31, 1 << 15


def frame(key, pd, ird=8, ord_=8, rtr=WRITE_RTR):
    """An enhanced Rev 2 frame with CRC asked for and the IRD/ORD word."""
    word = A_FLAG | (ird << 16) | rtr | ord_
    body = struct.pack(">I", word) + pd
    return key + struct.pack(">I", C_BIT | S_BIT | (2 << 16) | len(body)) + body


def reqfin(host, port):
    s = socket.create_connection((host, port))
    s.sendall(frame(REQ_KEY, b"hello\0", rtr=WRITE_RTR | (1 << 14)))
    s.close()
    print("request sent, closed", flush=True)


def listen(host, port, backlog):
    """A listening socket; says so on stdout for the test to wait on."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(backlog)
    print("listening", flush=True)
    return ls


def replyclose(host, port):
    ls = listen(host, port, 1)
    c, _ = ls.accept()
    c.settimeout(10)
    _, pd = recv_frame(c)
    # as a compliant responder: the RTR types the Request offered
    offered = struct.unpack(">I", pd[:4])[0] & ((1 << 30) | 0xC000)
    c.sendall(frame(REP_KEY, b"welcome\0", rtr=offered or WRITE_RTR))
    c.close()
    ls.close()
    print("reply sent, closed", flush=True)


def recv_frame(c):
    """One Request: (header word, private data)."""
    got = b""
    while len(got) < 20:
        part = c.recv(20 - len(got))
        if not part:
            raise EOFError
        got += part
    word = struct.unpack(">I", got[16:20])[0]
    pd_len = word & 0xFFFF
    pd = b""
    while len(pd) < pd_len:
        part = c.recv(pd_len - len(pd))
        if not part:
            raise EOFError
        pd += part
    return word, pd


def unenhanced(host, port):
    ls = listen(host, port, 2)
    while True:
        c, _ = ls.accept()
        c.settimeout(20)
        word, pd = recv_frame(c)
        rev = (word >> 16) & 0xFF
        if rev != 1 or word & S_BIT:
            print("closed on a revision %d Request, S=%d" %
                  (rev, bool(word & S_BIT)), flush=True)
            c.close()
            continue
        print("answered a revision 1 Request with private data %r" % pd,
              flush=True)
        pd = b"welcome\0"
        c.sendall(REP_KEY + struct.pack(">I", (word & C_BIT) | (1 << 16) |
                                        len(pd)) + pd)
        while c.recv(4096):
            pass
        c.close()
        break
    ls.close()
    print("initiator closed", flush=True)


def rejecthold(host, port):
    """Reject the first Request (R set, RFC 5044 7.1.2), send no TERM and
    keep the connection open for 8 s: the initiator's wait for a TERM
    (RFC 6581 9) ends by its timer."""
    ls = listen(host, port, 1)
    c, _ = ls.accept()
    c.settimeout(10)
    recv_frame(c)
    rep = frame(REP_KEY, b"go away\0")
    ctrl = struct.unpack(">I", rep[16:20])[0] | R_BIT
    c.sendall(rep[:16] + struct.pack(">I", ctrl) + rep[20:])
    print("rejected, holding", flush=True)
    time.sleep(8)
    c.close()
    ls.close()


if __name__ == "__main__":
    {"reqfin": reqfin, "replyclose": replyclose,
     "unenhanced": unenhanced, "rejecthold": rejecthold}[sys.argv[1]](
        sys.argv[2], int(sys.argv[3]))
