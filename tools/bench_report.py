#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a `make bench` run: medians, spread, ratios, plots.

  tools/bench_report.py OUTDIR

Reads OUTDIR/bench.csv (tools/bench), writes OUTDIR/summary.txt (printed
too) and, when gnuplot is there, OUTDIR/bw.png, OUTDIR/lat.png and
OUTDIR/targets.png. The ratios are those of the data path's targets
(Documentation/infiniband/iwtcp-performance.rst, "Targets"), per guest
CPU model: CRC off against iperf3, CRC on against iperf3 plus two kernel
crc32c passes, NFS over iwtcp against NFS over TCP, NVMe over Fabrics
with RDMA over iwtcp against NVMe/TCP, iwtcp against siw at every size,
and the spread over repetitions; for a CPU model named
MODEL/icount (a one-vCPU tcg-icount guest) the CPU targets in
instructions per octet, and iwtcp's split into a part per octet and a
part per FPDU.
"""
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def load(path):
    """Per point: values, CPU per GiB, and its user-space part."""
    pts = defaultdict(list)
    cpu = defaultdict(list)
    user = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["system"], r["variant"], r["test"], int(r["size"]),
                   int(r["qps"]), r.get("cpu") or "qemu64")
            try:
                pts[key].append(float(r["value"]))
                if r["cpu_s_per_gib"]:
                    cpu[key].append(float(r["cpu_s_per_gib"]))
                if r.get("user_s_per_gib"):
                    user[key].append(float(r["user_s_per_gib"]))
            except ValueError:
                print(f"bench_report: bad value in {r}", file=sys.stderr)
    return pts, cpu, user


def med(v):
    return statistics.median(v) if v else None


def fmt(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def table(pts, cpu, user):
    lines = ["cpu             system   variant                     test     "
             "              size  qps     median   min..max       reps  cpu "
             "s/GiB  of it user"]
    for key in sorted(pts, key=lambda k: (k[5],) + k[:5]):
        sysname, variant, test, size, qps, model = key
        v = pts[key]
        lines.append(
            f"{model:15} {sysname:8} {variant:27} {test:18} {size:>10} "
            f"{qps:>3} {fmt(med(v)):>10}   {fmt(min(v))}..{fmt(max(v)):<10} "
            f"{len(v):>3}  {fmt(med(cpu.get(key, [])), 3):>9}  "
            f"{fmt(med(user.get(key, [])), 3):>10}")
    return lines


def verdict(v, limit, higher):
    if v is None:
        return "no figure"
    ok = v >= limit if higher else v <= limit
    return "met" if ok else "missed"


# tcg-icount, shift=3 (tools/bench): the guest's clock advances 8 ns per
# instruction
ICOUNT_NS = 8


def per_octet(s_per_gib):
    """Instructions per octet from a one-vCPU icount guest's CPU s/GiB."""
    if s_per_gib is None:
        return None
    return s_per_gib / (ICOUNT_NS * 1e-9) / 2**30


def icount_ratios(model, pts, cpu):
    """The CPU targets in instructions (tools/bench, BENCH_ICOUNT)."""
    def c(sysname, test, variant="default"):
        return med(cpu.get((sysname, variant, test, 65536, 1, model), []))

    def m(sysname, test, variant="default"):
        return med(pts.get((sysname, variant, test, 65536, 1, model), []))

    tcp = c("tcp", "iperf3")
    # the TCP boot's pass, as ratios() takes it; else the iwtcp boot's
    crc = [med(v) for k, v in sorted(pts.items(), key=lambda i: i[0][0] != "tcp")
           if k[2] == "crc32c_pass" and k[5] == model]
    drivers = sorted({k[1] for k in pts
                      if k[2] == "crc32c_pass" and k[5] == model})
    crc = crc[0] if crc else None
    base = None if tcp is None or crc is None else tcp + 2 * crc
    out = ["", f"CPU model {model}: one vCPU, each instruction {ICOUNT_NS} "
           "ns of guest time, every instruction the guest ran during a point "
           "counted (both ends, TCP, the driver, the tools' set-up); the "
           f"same on any host. Kernel crc32c {', '.join(drivers) or 'not measured'},"
           f" one pass {fmt(per_octet(crc))} instructions per octet; iperf3 "
           f"64 KiB {fmt(per_octet(tcp))} ({fmt(m('tcp', 'iperf3'))} MB/s)"]
    bars = []
    for crc_on, lim_base, what in (
            (False, tcp, "at most 1.5x iperf3's"),
            (True, base, "at most 1.5x iperf3's + two crc32c passes = "
             f"{fmt(per_octet(base))}")):
        out.append(f"  CRC {'on' if crc_on else 'off'}, 64 KiB, CQ events "
                   f"(target: instructions per octet {what}):")
        for t in ("ib_send_bw", "ib_read_bw"):
            v = "events" if crc_on else "crc-off/markers-off/events"
            k = ratio(c("iwtcp", t, v), lim_base)
            out.append(f"    {t}: {fmt(per_octet(c('iwtcp', t, v)))} per "
                       f"octet ({fmt(m('iwtcp', t, v))} MB/s), {fmt(k)}x "
                       f"({verdict(k, 1.5, False)})")
            bars.append((f"{model} {t} crc-{'on' if crc_on else 'off'} "
                         "instructions", k, 1.5))
            out += fpdu_split(c, m, t, v, per_octet(lim_base))
    return out, bars


def fpdu_split(c, m, t, v, limit):
    """iwtcp's instructions per octet as a part per octet and a part per
    FPDU, from its points with RFC-sized and with large FPDUs (variant
    .../large: the same messages in fewer FPDUs) and the mean FPDU size
    of each (test TEST_fpdu, wire octets: b comes out about 2 % high
    against payload octets): y = a + b / S through both points. The part
    per octet holds all that does not grow with the FPDU count (copies,
    TCP, completions, perftest and its set-up); b is what one FPDU costs,
    both ends. Empty without both points; "none" when the large FPDUs are
    not at least twice the size or the line slopes the wrong way."""
    large = v.replace("markers-off/", "markers-off/large/") \
        if v.startswith("crc-") else "crc-on/markers-off/large/events"
    y1, y2 = per_octet(c("iwtcp", t, v)), per_octet(c("iwtcp", t, large))
    s1, s2 = m("iwtcp", t + "_fpdu", v), m("iwtcp", t + "_fpdu", large)
    # large FPDUs negotiated (far fewer of them), a cost per FPDU found
    if None in (y1, y2, s1, s2) or s2 < 2 * s1:
        return [f"      split: none (FPDUs of {fmt(s1, 0)} and {fmt(s2, 0)} "
                "octets)"] if None not in (s1, s2) else []
    b = (y1 - y2) / (1 / s1 - 1 / s2)
    a = y1 - b / s1
    if b <= 0:
        return [f"      split: none ({fmt(y1)} per octet with FPDUs of "
                f"{fmt(s1, 0)} octets, {fmt(y2)} with {fmt(s2, 0)})"]
    line = (f"      split: {fmt(a)} per octet + {fmt(b, 0)} per FPDU "
            f"(FPDUs of {fmt(s1, 0)} octets; {fmt(y2)} per octet with large "
            f"ones of {fmt(s2, 0)})")
    if limit is None:
        return [line]
    room = (1.5 * limit - a) * s1
    need = (f"1.5x needs at most {fmt(room, 0)} per FPDU" if room > 0 else
            "no cost per FPDU meets 1.5x: the part per octet alone is "
            f"{fmt(a / limit)}x")
    return [line, f"      part per octet {fmt(a / limit)}x the target's "
            f"base; {need}"]


def fio_pair(m, c, crc, variant, t, size):
    """A fio point over iwtcp and over TCP: MB/s and CPU s/GiB of each,
    and the CPU bound of the iwtcp one (TCP's + two crc32c passes)."""
    rb, tb = m("iwtcp", t, size, variant), m("tcp", t, size, variant)
    rc, tc = c("iwtcp", t, size, variant), c("tcp", t, size, variant)
    lim = None if tc is None or crc is None else tc + 2 * crc
    return rb, tb, rc, tc, lim


def iops_line(m, variant, over, under):
    """fio's 4 KiB random reads over iwtcp and over TCP, in IOPS."""
    ri = m("iwtcp", "fio_randread_iops", 4096, variant)
    ti = m("tcp", "fio_randread_iops", 4096, variant)
    return (f"    fio_randread 4 KiB: {over} {fmt(ri, 0)} IOPS, {under} "
            f"{fmt(ti, 0)} IOPS: {fmt(ratio(ri, ti))}x")


def ratios(pts, cpu, user):
    """The targets' lines, and (label, ratio, limit) for the plot."""
    out = ["", "Ratios against the targets (medians; bandwidth: higher is "
           "better, CPU per GiB: lower is better)"]
    bars = []
    for model in sorted({k[5] for k in pts}):
        if model.endswith("/icount"):
            lines, b = icount_ratios(model, pts, cpu)
            out += lines
            bars += b
            continue
        def m(sysname, test, size=65536, variant="default", qps=1):
            return med(pts.get((sysname, variant, test, size, qps, model),
                               []))

        def c(sysname, test, size=65536, variant="default"):
            return med(cpu.get((sysname, variant, test, size, 1, model), []))

        def u(sysname, test, size=65536, variant="default"):
            return med(user.get((sysname, variant, test, size, 1, model), []))

        tcp_bw, tcp_cpu = m("tcp", "iperf3"), c("tcp", "iperf3")
        crc_s = [med(v) for k, v in pts.items()
                 if k[2] == "crc32c_pass" and k[5] == model and k[0] == "tcp"]
        crc_s = crc_s or [med(v) for k, v in pts.items()
                          if k[2] == "crc32c_pass" and k[5] == model]
        drivers = sorted({k[1] for k in pts
                          if k[2] == "crc32c_pass" and k[5] == model})
        crc = crc_s[0] if crc_s else None
        out += ["", f"CPU model {model}: kernel crc32c "
                f"{', '.join(drivers) or 'not measured'}, one pass "
                f"{fmt(crc, 3)} s/GiB; iperf3 64 KiB {fmt(tcp_bw)} MB/s at "
                f"{fmt(tcp_cpu, 3)} s/GiB"]
        cases = [("ib_write_bw", "crc-off/markers-off"),
                 ("ib_send_bw", "crc-off/markers-off/events")]
        out.append("  CRC off, 64 KiB (targets: at least 0.8x iperf3's MB/s, "
                   "at most 1.5x its CPU per GiB):")
        for t, v in cases:
            b, k = ratio(m("iwtcp", t, variant=v), tcp_bw), \
                ratio(c("iwtcp", t, variant=v), tcp_cpu)
            out.append(f"    {t} {v}: {fmt(m('iwtcp', t, variant=v))} MB/s,"
                       f" {fmt(b)}x ({verdict(b, 0.8, True)}); "
                       f"{fmt(c('iwtcp', t, variant=v), 3)} s/GiB, {fmt(k)}x"
                       f" ({verdict(k, 1.5, False)}); user space "
                       f"{fmt(u('iwtcp', t, variant=v), 3)} s/GiB of it "
                       f"(iperf3's {fmt(u('tcp', 'iperf3'), 3)})")
            bars += [(f"{model} {t} crc-off MB/s vs iperf3", b, 0.8),
                     (f"{model} {t} crc-off CPU vs iperf3", k, 1.5)]
        base = None if tcp_cpu is None or crc is None else tcp_cpu + 2 * crc
        out.append(f"  CRC on, 64 KiB (target: CPU per GiB at most 1.5x "
                   f"iperf3's + two crc32c passes = {fmt(base, 3)} s/GiB):")
        for t, v in (("ib_write_bw", "default"), ("ib_send_bw", "events"),
                     ("ib_read_bw", "events")):
            k = ratio(c("iwtcp", t, variant=v), base)
            out.append(f"    {t} {v}: {fmt(m('iwtcp', t, variant=v))} MB/s "
                       f"({fmt(ratio(m('iwtcp', t, variant=v), tcp_bw))}x "
                       f"iperf3), {fmt(c('iwtcp', t, variant=v), 3)} s/GiB, "
                       f"{fmt(k)}x ({verdict(k, 1.5, False)})")
            bars.append((f"{model} {t} crc-on CPU vs TCP+2 CRC", k, 1.5))
        nfs = [("fio_read", 1048576), ("fio_write", 1048576)]
        if any(k[1] == "nfs" and k[5] == model for k in pts):
            nbase = {t: c("tcp", t, sz, "nfs") for t, sz in nfs}
            out.append("  NFSv4.2, fio O_DIRECT, iwtcp's defaults (targets: "
                       "at least NFS over TCP's MB/s, at most its CPU per "
                       "GiB + two crc32c passes):")
            for t, sz in nfs:
                rb, tb, rc, tc, lim = fio_pair(m, c, crc, "nfs", t, sz)
                b, k = ratio(rb, tb), ratio(rc, lim)
                out.append(f"    {t} 1 MiB: over iwtcp {fmt(rb)} MB/s at "
                           f"{fmt(rc, 3)} s/GiB, over TCP {fmt(tb)} MB/s at "
                           f"{fmt(tc, 3)} s/GiB: {fmt(b)}x "
                           f"({verdict(b, 1.0, True)}), CPU {fmt(k)}x of "
                           f"{fmt(lim, 3)} ({verdict(k, 1.0, False)})")
                bars += [(f"{model} NFS {t} MB/s vs TCP", b, 1.0),
                         (f"{model} NFS {t} CPU vs TCP+2 CRC", k, 1.0)]
            for t, sz in nfs:
                ro, co = m("iwtcp", t, sz, "nfs-crc-off"), \
                    c("iwtcp", t, sz, "nfs-crc-off")
                if ro is None:
                    continue
                tb, tc = m("tcp", t, sz, "nfs"), nbase[t]
                b, k = ratio(ro, tb), ratio(co, tc)
                out.append(f"    {t} 1 MiB, CRC off: over iwtcp {fmt(ro)} "
                           f"MB/s at {fmt(co, 3)} s/GiB: {fmt(b)}x NFS over "
                           f"TCP's MB/s, {fmt(k)}x its CPU per GiB (no CRC "
                           f"to count; no target of its own)")
            out.append(iops_line(m, "nfs", "over iwtcp", "over TCP"))
        if any(k[1] == "nvme" and k[5] == model for k in pts):
            out.append("  NVMe over Fabrics, fio O_DIRECT on the namespace: "
                       "RDMA over iwtcp (its defaults) against NVMe/TCP (no "
                       "digests), CPU against NVMe/TCP's + two crc32c "
                       "passes (no target of its own):")
            for t, sz in nfs:
                rb, tb, rc, tc, lim = fio_pair(m, c, crc, "nvme", t, sz)
                out.append(f"    {t} 1 MiB: RDMA {fmt(rb)} MB/s at "
                           f"{fmt(rc, 3)} s/GiB, TCP {fmt(tb)} MB/s at "
                           f"{fmt(tc, 3)} s/GiB: {fmt(ratio(rb, tb))}x MB/s, "
                           f"CPU {fmt(ratio(rc, lim))}x of {fmt(lim, 3)}")
            out.append(iops_line(m, "nvme", "RDMA", "TCP"))
        below = []
        for k, v in pts.items():
            if k[0] != "iwtcp" or k[5] != model or k[1] not in ("default",
                                                                "events"):
                continue
            s = pts.get(("siw",) + k[1:])
            if not s:
                continue
            lat = k[2].endswith("_lat")
            r = ratio(med(s), med(v)) if lat else ratio(med(v), med(s))
            if r is not None and r < 1:
                below.append(f"{k[2]} {k[3]}{'/' + k[1] if k[1] != 'default' else ''}"
                             f" {fmt(r)}x")
        if any(k[0] == "siw" and k[5] == model for k in pts):
            out.append("  Never below siw (every size, bandwidth and "
                       "latency): " + ("met" if not below else
                                       "missed at " + ", ".join(below)))
        steady = []
        for t in ("ib_write_bw", "ib_read_bw", "ib_send_bw"):
            reps = pts.get(("iwtcp", "default", t, 65536, 1, model), [])
            if len(reps) > 1:
                steady.append(f"{t} {fmt(min(reps) / max(reps))}")
        if steady:
            out.append("  Steady over repetitions (64 KiB, iwtcp's slowest "
                       "over its fastest): " + ", ".join(steady))
        tcp8 = m("tcp", "qperf_tcp_lat", 8)
        if tcp8 is None:
            continue
        out += [f"  Latency, 8 octets: TCP ping-pong (qperf, blocking) "
                f"{fmt(tcp8)} us"]
        for t in ("ib_send_lat", "ib_write_lat", "ib_read_lat"):
            parts = [f"{what} {fmt(iw)} us, {fmt(ratio(iw, tcp8))}x TCP"
                     for var, what in (("events", "with CQ events"),
                                       ("default", "busy-polled"))
                     if (iw := m("iwtcp", t, 8, var)) is not None]
            if parts:
                out.append(f"    {t}: iwtcp " + "; ".join(parts))
        out.append("    (busy-polled ping-pong under single-threaded TCG "
                   "waits for qemu to switch vCPUs, at the guest's timer "
                   "tick: compare the events rows with TCP)")
    return out, bars


def plot_targets(outdir, bars):
    """targets.png: each ratio beside its limit."""
    bars = [b for b in bars if b[1] is not None]
    if not bars:
        return
    data = "\n".join(f'"{label}" {r} {limit}' for label, r, limit in bars)
    script = "\n".join([
        "set terminal png noenhanced size 1100,600",
        f"set output '{outdir}/targets.png'", "set yrange [0:*]",
        "set style data histograms", "set style fill solid 0.6",
        "set xtics rotate by -30 scale 0 font ',8'", "set grid ytics",
        "set ylabel 'ratio'", "set key left top",
        "plot '-' using 2:xtic(1) title 'measured', "
        "'-' using 3 title 'target'", data, "e", data, "e"]) + "\n"
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench_report: no targets.png: {e}", file=sys.stderr)


def plot(outdir, pts):
    models = sorted({k[5] for k in pts})
    model = "Westmere" if "Westmere" in models else models[0]
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
                          k[1] == "default" and k[4] == 1 and
                          k[5] == model)
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
    pts, cpu, user = load(os.path.join(outdir, "bench.csv"))
    r, bars = ratios(pts, cpu, user)
    lines = table(pts, cpu, user) + r
    lines += ["", "(guest under qemu TCG emulation: compare systems, not "
              "absolute numbers; the /icount instructions per octet are the "
              "exception)"]
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(outdir, pts)
    plot_targets(outdir, bars)
    print(f"bench: {outdir}/bench.csv, summary.txt, bw.png, lat.png, "
          "targets.png")


if __name__ == "__main__":
    main()
