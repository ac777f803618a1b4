#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check ./rocev2 sweep's engine (utils/sweep.py) on sweeps/incast-tiny.json:
rocev2-incast, cc in {none, dcqcn} x senders in {2, 3}, 2 seeds, 1 MB each.

  - the sweep exits 0; results.csv has exactly the 8 runs, in grid then seed
    order, all "ok", with the grid values and the seed;
  - the grid values reached the example: its JSON echoes them (json.cc,
    json.senders), and bytes_delivered = senders x 1000000 (each sender WRITEs
    --size=1000000 bytes; a run without the --senders value would deliver the
    example's default sender count instead);
  - the metric columns are numbers; summary.csv has the 4 grid points with 2 runs
    each and mean = min = max = senders x 1000000 for bytes_delivered;
  - each run's command has --RngRun equal to its seed, and the seed reached
    the example: with DCQCN, RED marks at random, so the two seeds of a
    grid point give different ecn_marked or max_queue_bytes at one point at least;
  - each metric's PNG exists and is a PNG (signature, IHDR, > 1 KB);
  - the same sweep again (one job at a time instead of two) gives a
    byte-identical results.csv;
  - a failing run (--cc=cubic, which the example refuses) makes the sweep exit
    1 naming its command and log, after finishing the other run.

usage: check-sweep.py --example BUILD/examples/rocev2-incast --work DIR
Fails when python3-matplotlib is missing (./rocev2 setup installs it).
"""

import argparse
import csv
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPEC = os.path.join(ROOT, "sweeps", "incast-tiny.json")
SIZE = 1000000  # --size of sweeps/incast-tiny.json
METRICS = ["bytes_delivered", "max_queue_bytes", "pfc_pause_tx", "ecn_marked"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def sweep(example, out, *extra):
    cmd = [sys.executable, os.path.join(HERE, "sweep.py"), "--exe", example, "--out", out] + \
        list(extra)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=False)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_png(path):
    if not check(os.path.isfile(path), "%s missing" % path):
        return
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == PNG_SIGNATURE, "%s: no PNG signature" % path)
    check(data[12:16] == b"IHDR", "%s: first chunk is not IHDR" % path)
    if len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        check(w >= 200 and h >= 200, "%s: %dx%d pixels" % (path, w, h))
    check(len(data) > 1024, "%s: %d bytes, not > 1 KB" % (path, len(data)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--example", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("check-sweep: FAIL: python3-matplotlib is not installed for %s (./rocev2 setup)" %
              sys.executable)
        return 1
    if os.path.exists(a.work):
        shutil.rmtree(a.work)
    first, second, bad = (os.path.join(a.work, d) for d in ("first", "second", "failing"))

    p = sweep(a.example, first, SPEC, "--jobs", "2")
    if not check(p.returncode == 0, "sweep exited %d:\n%s" % (p.returncode, p.stderr)):
        return report()
    header, rows = read_csv(os.path.join(first, "results.csv"))
    check(header[:4] == ["cc", "senders", "seed", "status"],
          "results.csv header starts %s" % header[:4])
    expected = [(cc, s, seed) for cc in ("none", "dcqcn") for s in ("2", "3") for seed in ("1", "2")]
    got = [(r.get("cc"), r.get("senders"), r.get("seed")) for r in rows]
    check(got == expected, "results.csv runs %s, expected %s" % (got, expected))
    for r in rows:
        name = "cc-%s_senders-%s_seed-%s" % (r["cc"], r["senders"], r["seed"])
        check(r["status"] == "ok", "%s: status %s" % (name, r["status"]))
        check(r.get("json.cc") == r["cc"], "%s: the example ran cc %s" % (name, r.get("json.cc")))
        check(r.get("json.senders") == r["senders"],
              "%s: the example ran %s senders" % (name, r.get("json.senders")))
        for m in METRICS:
            check(m in r and is_number(r[m]), "%s: %s is %r, not a number" % (name, m, r.get(m)))
        if is_number(r.get("bytes_delivered", "")):
            check(float(r["bytes_delivered"]) == int(r["senders"]) * SIZE,
                  "%s: bytes_delivered %s != senders x %d" % (name, r["bytes_delivered"], SIZE))
        with open(os.path.join(first, "runs", name + ".cmd"), encoding="utf-8") as f:
            cmd = f.read().split()
        rng = [c for c in cmd if c.startswith("--RngRun=")]
        check(rng == ["--RngRun=" + r["seed"]], "%s: command has %s" % (name, rng))
    by_point = {}
    for r in rows:
        if r["cc"] == "dcqcn":
            by_point.setdefault(r["senders"], []).append((r.get("ecn_marked"),
                                                          r.get("max_queue_bytes")))
    check(any(len(set(v)) > 1 for v in by_point.values()),
          "DCQCN runs identical across seeds (RngRun not applied?): %s" % by_point)

    sheader, srows = read_csv(os.path.join(first, "summary.csv"))
    check([(r["cc"], r["senders"]) for r in srows] ==
          [("none", "2"), ("none", "3"), ("dcqcn", "2"), ("dcqcn", "3")],
          "summary.csv grid points %s" % [(r.get("cc"), r.get("senders")) for r in srows])
    for r in srows:
        check(r.get("runs_ok") == "2", "summary %s/%s: runs_ok %s" %
              (r.get("cc"), r.get("senders"), r.get("runs_ok")))
        want = int(r["senders"]) * SIZE
        for stat in ("mean", "min", "max"):
            v = r.get("bytes_delivered_" + stat, "")
            check(is_number(v) and float(v) == want,
                  "summary %s/%s: bytes_delivered_%s %s != %d" %
                  (r["cc"], r["senders"], stat, v, want))
    for m in METRICS:
        check_png(os.path.join(first, m + ".png"))

    p = sweep(a.example, second, SPEC, "--jobs", "1", "--no-plots")
    if check(p.returncode == 0, "second sweep exited %d:\n%s" % (p.returncode, p.stderr)):
        with open(os.path.join(first, "results.csv"), "rb") as f1, \
                open(os.path.join(second, "results.csv"), "rb") as f2:
            check(f1.read() == f2.read(), "the same sweep twice: results.csv differs")

    p = sweep(a.example, bad, "rocev2-incast", "--grid", "cc=none,cubic", "--grid",
              "senders=2", "--", "--size=%d" % SIZE)
    log = os.path.join(bad, "runs", "cc-cubic_senders-2_seed-1")
    check(p.returncode == 1, "sweep with a failing run exited %d, not 1" % p.returncode)
    check("FAILED cc-cubic_senders-2_seed-1" in p.stderr and "--cc=cubic" in p.stderr and
          log + ".stderr" in p.stderr,
          "the failing run's command and log are not reported:\n%s" % p.stderr)
    _, rows = read_csv(os.path.join(bad, "results.csv"))
    check([(r["cc"], r["status"] == "ok") for r in rows] == [("none", True), ("cubic", False)],
          "failing sweep rows %s" % [(r.get("cc"), r.get("status")) for r in rows])
    return report()


def report():
    if failures:
        for f in failures:
            print("check-sweep: FAIL: %s" % f)
        return 1
    print("check-sweep: OK: 8 runs, grid and seeds in results.csv, %d figures, "
          "byte-identical repeat, failing run reported" % len(METRICS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
