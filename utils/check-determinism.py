#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Determinism of the examples: each case runs twice with the same seed and
must write byte-identical outputs (JSON, FCT files, pcaps); a case that
draws random numbers runs once more with another run number (--seed or
ns-3's --RngRun) and must write something different.

    check-determinism.py --build-dir build [--root .] [--only NAME] [--self-test]

--self-test makes the second run of the random-placement case differ (another
run number, as a nondeterministic model would) and passes only if the check
catches it.

The one field allowed to differ is a JSON document's top-level
"wall_time_s" (the wall-clock time of the run, which rocev2-workload and
rocev2-hpcc-compat write for the sweeps); everything else compares byte for
byte.

Exits 1 naming each case and file that differs (or does not), 0 otherwise.
"""

import argparse
import filecmp
import glob
import json
import os
import subprocess
import sys
import tempfile

# name, example, arguments, outputs ({name}: a path in the run's folder;
# pcaps: a prefix), the flag that changes the run number (None: nothing in
# the case is random).
CASES = [
    ("two-hosts", "rocev2-two-hosts",
     ["--json={d}/out.json", "--pcap={d}/pcap"], None),
    ("incast-dcqcn", "rocev2-incast",
     ["--senders=8", "--size=200000", "--dcqcn-preset=hpcc-sim", "--json={d}/out.json",
      "--pcap={d}/pcap"], None),
    ("allreduce-random-placement", "rocev2-ai-zone-allreduce",
     ["--gpus=32", "--fabric-gpus=64", "--placement=random", "--sizes=1M",
      "--json={d}/out.json"], "--seed=2"),
    ("alltoall-dcqcn", "rocev2-ai-zone-allreduce",
     ["--gpus=32", "--uplinks=4", "--op=alltoall", "--cc=dcqcn", "--sizes=4M",
      "--json={d}/out.json"], None),
    ("workload-poisson", "rocev2-workload",
     ["--pattern=poisson", "--duration=200us", "--cc=dcqcn",
      "--cdf={root}/data/cdf/websearch.txt", "--json={d}/out.json",
      "--fct={d}/fct.txt"], "--RngRun=2"),
    ("chakra-replay", "rocev2-chakra-replay",
     ["--et={root}/data/chakra/synthetic-8/chakra.0.et", "--gpus-per-server=1",
      "--json={d}/out.json"], None),
]


def run(build, root, example, args, folder):
    exe = os.path.abspath(os.path.join(build, "examples", example))
    cmd = [exe] + [a.format(d=folder, root=root) for a in args]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          cwd=folder)
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), proc.returncode,
                                                 proc.stderr.strip()[-300:]))
    return sorted(os.path.relpath(p, folder) for p in glob.glob(os.path.join(folder, "*")))


def same(a, b):
    """Whether two outputs are the same: bytes, or JSON without "wall_time_s"."""
    if filecmp.cmp(a, b, shallow=False):
        return True
    if not a.endswith(".json"):
        return False
    with open(a) as fa, open(b) as fb:
        ja, jb = json.load(fa), json.load(fb)
    for j in (ja, jb):
        if isinstance(j, dict):
            j.pop("wall_time_s", None)
    return ja == jb


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    p.add_argument("--only", default="")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        a.only = "allreduce-random-placement"
    root = os.path.abspath(a.root)
    problems = []
    for name, example, args, other in CASES:
        if a.only and name != a.only:
            continue
        if not os.path.exists(os.path.join(a.build_dir, "examples", example)):
            print("%s: %s is not built, skipped" % (name, example))
            continue
        with tempfile.TemporaryDirectory() as t:
            dirs = [os.path.join(t, k) for k in ("a", "b", "c")]
            for d in dirs:
                os.mkdir(d)
            before = len(problems)
            files = run(a.build_dir, root, example, args, dirs[0])
            # --self-test: the second run draws other random numbers.
            again = run(a.build_dir, root, example, args + (["--seed=3"] if a.self_test else []),
                        dirs[1])
            if not files or files != again:
                problems.append("%s: outputs %s, then %s" % (name, files, again))
                continue
            for f in files:
                if not same(os.path.join(dirs[0], f), os.path.join(dirs[1], f)):
                    problems.append("%s: %s differs between two runs with the same seed"
                                    % (name, f))
            if other:
                run(a.build_dir, root, example, args + [other], dirs[2])
                if all(same(os.path.join(dirs[0], f), os.path.join(dirs[2], f)) for f in files):
                    problems.append("%s: %s left every output unchanged" % (name, other))
            if len(problems) == before:
                print("%s: %d files identical over two runs%s"
                      % (name, len(files), ", changed by " + other if other else ""))
    for line in problems:
        print(("caught: " if a.self_test else "FAIL ") + line)
    if a.self_test:
        print("self-test: " + ("the injected difference was caught" if problems else
                               "FAIL: the injected difference was not caught"))
        return 0 if problems else 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
