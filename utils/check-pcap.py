#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that Wireshark (tshark) decodes the pcaps of rocev2-two-hosts.

Runs the example with --pcap in a temporary folder and reads the sender's
capture (host 0 sees its own data frames and the ACKs coming back):

  data    RDMA WRITE First/Middle/Last opcodes (6, 7, 8) in that order, one
          destination QP, consecutive PSNs from 0, AckReq on the last packet
          only, RETH DMA length = message size, payloads adding up to the size,
          DSCP of priority 3 (24) with ECT(0), IPv4 checksum good, DF set;
  ACKs    opcode 17 with an ACK syndrome (bits 7-5 = 000), last one naming the
          last PSN.

With --pfc it runs a slow-receiver scenario instead (--rx-drain-rate) and reads
the receiver's capture: PFC frames (MAC control 0x8808, opcode 0x0101) to
01:80:c2:00:00:01 with class 3 enabled, XOFF (quanta > 0) and XON (quanta 0).

Exit status: 0 pass, 1 fail (also when the example lacks a flag the check needs).
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile


WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY = 6, 7, 8, 10
DATA_OPCODES = {0, 1, 2, 4, 6, 7, 8, 10}
ACKNOWLEDGE = 17
PFC_DESTINATION = "01:80:c2:00:00:01"


class Checker:
    """Collects failed checks."""

    def __init__(self):
        self.failures = []

    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
        return ok


def run_example(example, args, workdir):
    cmd = [example] + args
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit("check-pcap: %s exited with %d" % (" ".join(cmd), proc.returncode))


def tshark_fields(tshark, pcap, display_filter, fields):
    cmd = [tshark, "-r", pcap, "-n",
           "-d", "udp.port==4791,infiniband",
           "-o", "ip.check_checksum:TRUE",
           "-Y", display_filter, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("check-pcap: tshark failed on %s" % pcap)
    rows = []
    for line in proc.stdout.splitlines():
        rows.append(dict(zip(fields, line.split("|"))))
    return rows


def as_int(value):
    """tshark prints integers in decimal or hex (0x...); empty means absent."""
    if value is None or value == "":
        return None
    return int(value, 0)


def example_flags(example):
    proc = subprocess.run([example, "--PrintHelp"], capture_output=True, text=True, timeout=60)
    return set(re.findall(r"--([a-z0-9-]+):", proc.stdout + proc.stderr))


def check_write(c, tshark, example, workdir, size, mtu):
    run_example(example, ["--size=%d" % size, "--mtu=%d" % mtu, "--pcap=pcap"], workdir)
    pcap = os.path.join(workdir, "pcap-0-0.pcap")
    if not c.check(os.path.exists(pcap), "the example wrote %s" % pcap):
        return
    fields = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
              "infiniband.bth.a", "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
              "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.checksum.status", "ip.flags.df",
              "udp.dstport", "data.len", "infiniband.bth.padcnt"]
    rows = tshark_fields(tshark, pcap, "infiniband", fields)
    data = [r for r in rows if as_int(r["infiniband.bth.opcode"]) in DATA_OPCODES]
    acks = [r for r in rows if as_int(r["infiniband.bth.opcode"]) == ACKNOWLEDGE]
    n = max(1, math.ceil(size / mtu))
    c.check(len(rows) == len(data) + len(acks),
            "only data and ACK frames decoded (%d others)" % (len(rows) - len(data) - len(acks)))
    if not c.check(len(data) == n, "%d data frames decoded, expected %d" % (len(data), n)):
        return

    opcodes = [as_int(r["infiniband.bth.opcode"]) for r in data]
    expected = [WRITE_ONLY] if n == 1 else [WRITE_FIRST] + [WRITE_MIDDLE] * (n - 2) + [WRITE_LAST]
    c.check(opcodes == expected,
            "data opcodes are WRITE First, Middle..., Last (got %s...)" % opcodes[:4])
    destqps = {r["infiniband.bth.destqp"] for r in data}
    c.check(len(destqps) == 1, "one destination QP for all data (got %s)" % sorted(destqps))
    psns = [as_int(r["infiniband.bth.psn"]) for r in data]
    c.check(psns == list(range(n)), "data PSNs consecutive from 0 (got %s...)" % psns[:4])
    ackreq = [as_int(r["infiniband.bth.a"]) for r in data]
    c.check(ackreq == [0] * (n - 1) + [1], "AckReq set on the last packet only")
    c.check(as_int(data[0]["infiniband.reth.dmalen"]) == size,
            "RETH DMA length %s == %d" % (data[0]["infiniband.reth.dmalen"], size))
    # data.len counts the pad bytes that align the payload to 4 bytes (BTH PadCnt).
    payload = sum((as_int(r["data.len"]) or 0) - (as_int(r["infiniband.bth.padcnt"]) or 0)
                  for r in data)
    c.check(payload == size, "payloads add up to %d (got %d)" % (size, payload))
    c.check(all(as_int(r["ip.dsfield.dscp"]) == 24 for r in data), "data DSCP 24 (priority 3)")
    c.check(all(as_int(r["ip.dsfield.ecn"]) == 2 for r in data), "data ECN is ECT(0)")
    c.check(all(as_int(r["ip.checksum.status"]) == 1 for r in rows), "IPv4 checksums good")
    c.check(all(as_int(r["ip.flags.df"]) == 1 for r in rows), "DF set")
    c.check(all(as_int(r["udp.dstport"]) == 4791 for r in rows), "UDP destination port 4791")

    if not c.check(len(acks) > 0, "ACKs (opcode 17) present"):
        return
    c.check(all((as_int(r["infiniband.aeth.syndrome"]) or 0) >> 5 == 0 for r in acks),
            "every AETH is an ACK (syndrome bits 7-5 = 000)")
    c.check(as_int(acks[-1]["infiniband.bth.psn"]) == n - 1,
            "the last ACK names the last PSN %d (got %s)" % (n - 1, acks[-1]["infiniband.bth.psn"]))
    c.check(len({r["infiniband.bth.destqp"] for r in acks}) == 1, "one destination QP for ACKs")


def check_pfc(c, tshark, example, workdir):
    if "rx-drain-rate" not in example_flags(example):
        print("check-pcap: FAIL: the example has no --rx-drain-rate flag for a PFC scenario")
        raise SystemExit(1)
    run_example(example, ["--size=2000000", "--rx-drain-rate=50Gbps", "--pcap=pfc"], workdir)
    pcap = os.path.join(workdir, "pfc-1-0.pcap")
    if not c.check(os.path.exists(pcap), "the example wrote %s" % pcap):
        return
    fields = ["eth.dst", "eth.type", "frame.len", "macc.opcode", "macc.cbfc.enbv"] + \
             ["macc.cbfc.pause_time.c%d" % i for i in range(8)]
    rows = tshark_fields(tshark, pcap, "macc", fields)
    if not c.check(len(rows) > 0, "PFC frames decoded in the receiver's capture"):
        return
    c.check(all(r["eth.dst"].lower() == PFC_DESTINATION for r in rows),
            "PFC frames go to %s" % PFC_DESTINATION)
    c.check(all(as_int(r["eth.type"]) == 0x8808 for r in rows), "EtherType 0x8808")
    c.check(all(as_int(r["macc.opcode"]) == 0x0101 for r in rows), "MAC control opcode 0x0101")
    c.check(all(as_int(r["frame.len"]) == 60 for r in rows), "PFC frames padded to 60 bytes")
    c.check(all((as_int(r["macc.cbfc.enbv"]) or 0) & 0x08 for r in rows), "class 3 enabled")
    quanta = [as_int(r["macc.cbfc.pause_time.c3"]) for r in rows]
    c.check(any(q and q > 0 for q in quanta), "XOFF (quanta > 0) for class 3")
    c.check(any(q == 0 for q in quanta), "XON (quanta 0) for class 3")
    c.check(quanta[0] and quanta[0] > 0, "the first PFC frame is an XOFF")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", required=True, help="path to rocev2-two-hosts")
    parser.add_argument("--tshark", default="tshark")
    parser.add_argument("--pfc", action="store_true", help="check PFC frames instead")
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--mtu", type=int, default=1024)
    args = parser.parse_args()

    c = Checker()
    with tempfile.TemporaryDirectory(prefix="rocev2-pcap-") as workdir:
        if args.pfc:
            check_pfc(c, args.tshark, args.example, workdir)
        else:
            check_write(c, args.tshark, args.example, workdir, args.size, args.mtu)
    for f in c.failures:
        print("check-pcap: FAIL: " + f)
    if c.failures:
        return 1
    print("check-pcap: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
