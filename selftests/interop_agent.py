#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Command agent of the interoperability suite's peer guest.

    interop_agent.py ADDR PORT PROGRAM [IDLE_S]

Listens on ADDR:PORT (the two guests' private socket network) and runs,
for each connection, one request: a line of shell-quoted words, the
arguments of PROGRAM (the peer's helper script, nothing else can be run).
It answers with the program's output (stdout and stderr), then a last
line "@@rc N" with its exit status. A request "quit" answers "@@rc 0" and
ends the agent; so does IDLE_S seconds (default 900) without a request.
"""
import shlex
import socket
import subprocess
import sys


def serve(conn, program):
    """Run one request; return False when the agent should stop."""
    with conn, conn.makefile("rwb") as f:
        line = f.readline().decode(errors="replace").strip()
        args = shlex.split(line)
        if args == ["quit"]:
            f.write(b"@@rc 0\n")
            return False
        try:
            p = subprocess.run([program] + args, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, check=False)
            out, rc = p.stdout, p.returncode
        except OSError as e:
            out, rc = f"agent: {e}\n".encode(), 126
        if out and not out.endswith(b"\n"):
            out += b"\n"
        f.write(out + f"@@rc {rc}\n".encode())
        return True


def main():
    addr, port, program = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    idle = float(sys.argv[4]) if len(sys.argv) > 4 else 900
    srv = socket.create_server((addr, port), reuse_port=False)
    srv.settimeout(idle)
    print(f"agent: listening on {addr}:{port}", flush=True)
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            print("agent: idle, exiting", flush=True)
            return 1
        conn.settimeout(None)
        if not serve(conn, program):
            print("agent: quit", flush=True)
            return 0


if __name__ == "__main__":
    sys.exit(main())
