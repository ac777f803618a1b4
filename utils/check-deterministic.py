#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run an example three times with --json: twice with the same seed, once with
another --RngRun. The first two outputs must be byte-identical; the third must
differ (the run's random choices, e.g. ECN marking coins, change with RngRun).
With --schedulers, also run the first seed once under each of ns-3's event
schedulers listed: every output must be byte-identical to the default
scheduler's, since all of them run events of equal time in scheduling order.

usage: check-deterministic.py [--schedulers=TYPE,TYPE...] EXAMPLE [ARGS...]
"""
import os
import subprocess
import sys
import tempfile


def run(cmd, json_path):
    proc = subprocess.run(cmd + ["--json=" + json_path], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    if proc.returncode != 0:
        print("check-deterministic: FAIL: %s exited %d\n%s" %
              (" ".join(cmd), proc.returncode, proc.stdout))
        sys.exit(1)
    with open(json_path, "rb") as f:
        return f.read()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cmd = sys.argv[1:]
    schedulers = []
    if cmd[0].startswith("--schedulers="):
        schedulers = [t for t in cmd[0].split("=", 1)[1].split(",") if t]
        cmd = cmd[1:]
    with tempfile.TemporaryDirectory() as tmp:
        a = run(cmd + ["--RngRun=1"], os.path.join(tmp, "a.json"))
        b = run(cmd + ["--RngRun=1"], os.path.join(tmp, "b.json"))
        c = run(cmd + ["--RngRun=2"], os.path.join(tmp, "c.json"))
        others = [(t, run(cmd + ["--RngRun=1", "--SchedulerType=" + t],
                          os.path.join(tmp, "s.json"))) for t in schedulers]
    if a != b:
        print("check-deterministic: FAIL: same seed, different JSON")
        return 1
    if a == c:
        print("check-deterministic: FAIL: RngRun=2 gave the same JSON as RngRun=1")
        return 1
    for t, d in others:
        if d != a:
            print("check-deterministic: FAIL: --SchedulerType=%s gave different JSON" % t)
            return 1
    if others:
        print("check-deterministic: OK: the same JSON under %s" % ", ".join(t for t, _ in others))
    print("check-deterministic: OK: same seed byte-identical (%d bytes), RngRun=2 differs" % len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
