#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a `make bench` run: medians, spread, ratios, plots.

  tools/bench_report.py OUTDIR

Reads OUTDIR/bench.csv (tools/bench), writes OUTDIR/summary.txt (printed
too) and, when gnuplot is there, OUTDIR/bw.png and OUTDIR/lat.png.
"""
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def load(path):
    pts = defaultdict(list)
    cpu = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["system"], r["variant"], r["test"], int(r["size"]),
                   int(r["qps"]))
            try:
                pts[key].append(float(r["value"]))
                if r["cpu_s_per_gib"]:
                    cpu[key].append(float(r["cpu_s_per_gib"]))
            except ValueError:
                print(f"bench_report: bad value in {r}", file=sys.stderr)
    return pts, cpu


def med(v):
    return statistics.median(v) if v else None


def fmt(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def table(pts, cpu):
    lines = ["system   variant              test           size  qps"
             "     median   min..max       reps  cpu s/GiB"]
    for key in sorted(pts):
        sysname, variant, test, size, qps = key
        v = pts[key]
        lines.append(
            f"{sysname:8} {variant:20} {test:14} {size:>7} {qps:>3} "
            f"{fmt(med(v)):>10}   {fmt(min(v))}..{fmt(max(v)):<10} "
            f"{len(v):>3}  {fmt(med(cpu.get(key, [])), 3)}")
    return lines


def ratios(pts, cpu):
    def m(sysname, test, size, variant="default", qps=1):
        return med(pts.get((sysname, variant, test, size, qps), []))

    def c(sysname, test, size, variant="default"):
        return med(cpu.get((sysname, variant, test, size, 1), []))

    out = ["", "Ratios (medians; bandwidth: higher is better, latency and CPU:"
           " lower is better)", ""]
    for t in ("ib_write_bw", "ib_read_bw", "ib_send_bw"):
        iw = m("iwtcp", t, 65536)
        out.append(f"{t} 64 KiB: iwtcp {fmt(iw)} MB/s, siw {fmt(m('siw', t, 65536))}"
                   f", iperf3 {fmt(m('tcp', 'iperf3', 65536))}: "
                   f"iwtcp/siw {fmt(ratio(iw, m('siw', t, 65536)))} (target 1.5), "
                   f"iwtcp/iperf3 {fmt(ratio(iw, m('tcp', 'iperf3', 65536)))} "
                   f"(target 0.8)")
        out.append(f"  CPU s/GiB: iwtcp {fmt(c('iwtcp', t, 65536), 3)}, siw "
                   f"{fmt(c('siw', t, 65536), 3)}, iperf3 "
                   f"{fmt(c('tcp', 'iperf3', 65536), 3)}: iwtcp/siw "
                   f"{fmt(ratio(c('iwtcp', t, 65536), c('siw', t, 65536)))} "
                   f"(target below 1)")
        for v in ("crc-on/markers-on", "crc-off/markers-off",
                  "crc-off/markers-on"):
            out.append(f"  iwtcp {v}: {fmt(m('iwtcp', t, 65536, v))} MB/s")
    tcp8 = m("tcp", "qperf_tcp_lat", 8)
    for t in ("ib_send_lat", "ib_write_lat", "ib_read_lat"):
        iw = m("iwtcp", t, 8)
        out.append(f"{t} 8 B: iwtcp {fmt(iw)} us, siw {fmt(m('siw', t, 8))}, "
                   f"TCP ping-pong {fmt(tcp8)}: iwtcp/siw "
                   f"{fmt(ratio(iw, m('siw', t, 8)))} (target 1.0), "
                   f"iwtcp/TCP {fmt(ratio(iw, tcp8))} (target 1.3)")
    return out


def plot(outdir, pts):
    series = {
        "bw": [("iwtcp", "ib_write_bw"), ("siw", "ib_write_bw"),
               ("iwtcp", "ib_send_bw"), ("siw", "ib_send_bw"),
               ("tcp", "iperf3")],
        "lat": [("iwtcp", "ib_send_lat"), ("siw", "ib_send_lat"),
                ("iwtcp", "ib_read_lat"), ("siw", "ib_read_lat"),
                ("tcp", "qperf_tcp_lat")],
    }
    for name, ss in series.items():
        cmds = [f"set terminal png size 900,600",
                f"set output '{outdir}/{name}.png'",
                "set logscale x 2", "set key left top", "set grid",
                "set xlabel 'message size (octets)'",
                "set ylabel '%s'" % ("MB/s" if name == "bw" else "usec")]
        plots, data = [], []
        for sysname, test in ss:
            rows = sorted((k[3], med(v)) for k, v in pts.items()
                          if k[0] == sysname and k[2] == test and
                          k[1] == "default" and k[4] == 1)
            if not rows:
                continue
            plots.append(f"'-' using 1:2 with linespoints title '{sysname} {test}'")
            data.append("\n".join(f"{s} {v}" for s, v in rows) + "\ne")
        if not plots:
            continue
        script = "\n".join(cmds) + "\nplot " + ", ".join(plots) + "\n" + \
            "\n".join(data) + "\n"
        try:
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"bench_report: no {name}.png: {e}", file=sys.stderr)


def main():
    outdir = sys.argv[1]
    pts, cpu = load(os.path.join(outdir, "bench.csv"))
    lines = table(pts, cpu) + ratios(pts, cpu)
    lines += ["", "(guest under qemu TCG emulation: compare systems, not "
              "absolute numbers)"]
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(outdir, pts)
    print(f"bench: {outdir}/bench.csv, summary.txt, bw.png, lat.png")


if __name__ == "__main__":
    main()
