#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The interoperability matrix of one tools/interop run, as reST.

  tools/interop_matrix.py OUT > matrix.rst

Joins OUT/a/cases.tsv (what each case set up and expects), OUT/a/interop.tap
(guest A's verdict per case) and OUT/wire.tsv (the judge's verdict and
the MPA Request and Reply as tshark decoded them) into one table, for
Documentation/infiniband/iwtcp-interop.rst.
"""
import os
import re
import sys

OUTCOME = {"ok": "both tools' checks pass",
           "client": "refused; the client sees it",
           "fails": "the client fails cleanly",
           "srvfail": "the server fails",
           "stalls": "both wait (no RTR)"}


def tap_results(path):
    res = {}
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"(not ok|ok) (\d+) ", line)
            if m:
                res[int(m.group(2))] = m.group(1) == "ok"
    return res


def cell(s):
    return '"' + s.replace('"', '""') + '"'


def main():
    out = sys.argv[1]
    cols = ["port", "name", "dir", "variant", "settings", "tool", "outcome",
            "wire"]
    cases = [dict(zip(cols, line.rstrip("\n").split("\t")))
             for line in open(os.path.join(out, "a", "cases.tsv"))]
    guest = tap_results(os.path.join(out, "a", "interop.tap"))
    wire = {}
    wpath = os.path.join(out, "wire.tsv")
    if os.path.exists(wpath):
        for line in open(wpath):
            port, verdict, req, rep, why = line.rstrip("\n").split("\t")
            wire[port] = (verdict, req, rep, why)
    print(".. csv-table::")
    print("   :header: \"#\", \"initiator > responder\", \"siw\", "
          "\"iwtcp settings\", \"tool\", \"expected\", \"result\", "
          "\"MPA Request > Reply (tshark)\"")
    print("   :widths: 3, 10, 6, 14, 16, 14, 8, 29")
    print()
    for i, c in enumerate(cases, 1):
        verdict, req, rep, why = wire.get(c["port"], ("?", "?", "?", ""))
        ok = guest.get(i)
        result = ("pass" if ok else "FAIL" if ok is not None else "not run")
        if verdict != "ok":
            result += ", wire FAIL"
        tool = re.sub(r" \(siw.*", "", c["name"].split(" ", 1)[1]
                      .split(":")[0])
        row = [str(i), c["dir"], c["variant"],
               c["settings"].replace(",", " "), tool,
               OUTCOME.get(c["outcome"], c["outcome"]), result,
               f"{req} > {rep}"]
        print("   " + ", ".join(cell(x) for x in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
