#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of tools/bench_report.py's arithmetic: the split of iwtcp's
instructions per octet into a part per octet and a part per FPDU (icount
column), NFS over iwtcp against NFS over TCP and NVMe over iwtcp against
NVMe/TCP.

  python3 tests/tools/test_bench_report.py
"""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(HERE, "..", "..", "tools", "bench_report.py"))
br = importlib.util.module_from_spec(spec)
spec.loader.exec_module(br)

MODEL = "Westmere/icount"


def s_per_gib(per_octet):
    """CPU s/GiB of a one-vCPU icount guest that ran per_octet a GiB."""
    return per_octet * br.ICOUNT_NS * 1e-9 * 2**30


def points(a, b, sizes, tcp=1.2, crc=0.3, crc_on=False):
    """pts and cpu as load() gives them: iperf3, a crc32c pass, and Send
    with events at two FPDU sizes costing a + b / S per octet, with the
    variant names selftests/bench_guest.sh writes."""
    pts, cpu = {}, {}

    def put(system, variant, test, value, c=None):
        key = (system, variant, test, 65536, 1, MODEL)
        pts[key] = [value]
        if c is not None:
            cpu[key] = [c]

    put("tcp", "default", "iperf3", 100.0, s_per_gib(tcp))
    put("tcp", "crc32c-intel", "crc32c_pass", s_per_gib(crc), s_per_gib(crc))
    variants = (("events", "crc-on/markers-off/large/events") if crc_on
                else ("crc-off/markers-off/events",
                      "crc-off/markers-off/large/events"))
    for v, s in zip(variants, sizes):
        put("iwtcp", v, "ib_send_bw", 30.0, s_per_gib(a + b / s))
        put("iwtcp", v, "ib_send_bw_fpdu", float(s))
    return pts, cpu


class Split(unittest.TestCase):
    def lines(self, a, b, sizes=(1418, 21789)):
        pts, cpu = points(a, b, sizes)
        out, _ = br.icount_ratios(MODEL, pts, cpu)
        return "\n".join(out)

    def test_line_recovered(self):
        out = self.lines(1.7, 2500)
        self.assertIn("split: 1.70 per octet + 2500 per FPDU "
                      "(FPDUs of 1418 octets;", out)

    def test_room_per_fpdu(self):
        # 1.5 x 1.2 = 1.8 per octet: (1.8 - 1.0) x 1418 = 1134 per FPDU
        out = self.lines(1.0, 3000)
        self.assertIn("1.5x needs at most 1134 per FPDU", out)

    def test_part_per_octet_alone_too_much(self):
        out = self.lines(2.4, 500)
        self.assertIn("no cost per FPDU meets 1.5x: the part per octet "
                      "alone is 2.00x", out)

    def test_crc_on(self):
        # base 1.2 + 2 x 0.3 = 1.8: 1.5x is 2.7, (2.7 - 2.0) x 1418 = 993
        pts, cpu = points(2.0, 3000, (1418, 21789), crc_on=True)
        out = "\n".join(br.icount_ratios(MODEL, pts, cpu)[0])
        self.assertIn("split: 2.00 per octet + 3000 per FPDU", out)
        self.assertIn("1.5x needs at most 993 per FPDU", out)

    def test_no_split_when_large_fpdus_are_not_larger(self):
        out = self.lines(1.7, 2500, (1418, 1418))
        self.assertIn("split: none (FPDUs of 1418 and 1418 octets)", out)

    def test_no_split_when_it_slopes_the_wrong_way(self):
        out = self.lines(1.7, -200)
        self.assertIn("split: none", out)
        self.assertNotIn("per FPDU (", out)

    def test_no_split_without_large_point(self):
        pts, cpu = points(1.7, 2500, (1418, 21789))
        for k in [k for k in pts if "/large/" in k[1]]:
            del pts[k]
        out, _ = br.icount_ratios(MODEL, pts, cpu)
        self.assertNotIn("split:", "\n".join(out))


def fio_points(variant, iwtcp, tcp, crc_pass, iops):
    """pts and cpu of fio's 1 MiB points over iwtcp and over TCP, each
    (MB/s, CPU s/GiB), a crc32c pass and the 4 KiB IOPS (iwtcp, tcp)."""
    model = "Westmere"
    pts, cpu = {}, {}
    for system, (mbs, s), n in (("iwtcp", iwtcp, iops[0]),
                                ("tcp", tcp, iops[1])):
        for t in ("fio_read", "fio_write"):
            key = (system, variant, t, 1048576, 1, model)
            pts[key], cpu[key] = [mbs], [s]
        pts[(system, variant, "fio_randread_iops", 4096, 1, model)] = [n]
    pts[("tcp", "crc32c-intel", "crc32c_pass", 2**30, 1, model)] = [crc_pass]
    return pts, cpu


class Nfs(unittest.TestCase):
    def test_against_nfs_over_tcp(self):
        pts, cpu = fio_points("nfs", (50.0, 15.0), (100.0, 10.0), 2.5,
                              (500, 1000))
        out = "\n".join(br.ratios(pts, cpu, {})[0])
        # limit: NFS over TCP's 10 + two passes of 2.5 = 15 s/GiB
        self.assertIn("fio_write 1 MiB: over iwtcp 50.00 MB/s at 15.000 "
                      "s/GiB, over TCP 100.00 MB/s at 10.000 s/GiB: 0.50x "
                      "(missed), CPU 1.00x of 15.000 (met)", out)
        self.assertIn("fio_randread 4 KiB: over iwtcp 500 IOPS, over TCP "
                      "1000 IOPS: 0.50x", out)


class Nvme(unittest.TestCase):
    def test_rdma_against_tcp(self):
        pts, cpu = fio_points("nvme", (40.0, 30.0), (100.0, 10.0), 5.0,
                              (900, 1800))
        out = "\n".join(br.ratios(pts, cpu, {})[0])
        # CPU against NVMe/TCP's 10 + two passes of 5 = 20 s/GiB
        self.assertIn("fio_read 1 MiB: RDMA 40.00 MB/s at 30.000 s/GiB, "
                      "TCP 100.00 MB/s at 10.000 s/GiB: 0.40x MB/s, CPU "
                      "1.50x of 20.000", out)
        self.assertIn("fio_randread 4 KiB: RDMA 900 IOPS, TCP 1800 IOPS: "
                      "0.50x", out)


if __name__ == "__main__":
    unittest.main()
