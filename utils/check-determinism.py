#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Determinism of the examples: each case runs twice with the same seed and
must write byte-identical outputs (JSON, FCT files, pcaps); a case that
draws random numbers runs once more with another run number (--seed or
ns-3's --RngRun) and must write something different; a case that names
event schedulers runs once more under each (--SchedulerType, or a whole flag
such as --SimulatorImplementationType=ns3::DefaultSimulatorImpl) and must
write the same outputs as under the examples' own scheduler and simulator.

    check-determinism.py --build-dir build [--root .] [--only NAME,...]
                         [--skip NAME,...] [--self-test] [--list]

--only runs the cases named, --skip all but those; --list prints the case
names. --self-test makes the second run of the random-placement case differ
(another run number, as a nondeterministic model would) and passes only if
the check catches it.

The one field allowed to differ is a JSON document's top-level
"wall_time_s" (the wall-clock time of the run, which rocev2-workload and
rocev2-hpcc-compat write for the sweeps); everything else compares byte for
byte.

Exits 1 naming each case and file that differs (or does not), 0 otherwise.
"""

import argparse
import collections
import filecmp
import glob
import json
import os
import subprocess
import sys
import tempfile

# name; example; arguments with the outputs ({d}: the run's folder, pcaps a
# prefix there; {root}: the repository); the flag that changes the run number
# (None: nothing in the case is random; it replaces an argument of the same
# name); the event schedulers that must give the same outputs.
Case = collections.namedtuple("Case", "name example args other schedulers",
                              defaults=(None, ()))

CASES = [
    Case("two-hosts", "rocev2-two-hosts",
         ["--json={d}/out.json", "--pcap={d}/pcap"]),
    Case("incast-dcqcn", "rocev2-incast",
         ["--senders=8", "--size=200000", "--dcqcn-preset=hpcc-sim", "--json={d}/out.json",
          "--pcap={d}/pcap"]),
    Case("allreduce-random-placement", "rocev2-ai-zone-allreduce",
         ["--gpus=32", "--fabric-gpus=64", "--placement=random", "--sizes=1M",
          "--json={d}/out.json"], "--seed=2"),
    Case("alltoall-dcqcn", "rocev2-ai-zone-allreduce",
         ["--gpus=32", "--uplinks=4", "--op=alltoall", "--cc=dcqcn", "--sizes=4M",
          "--json={d}/out.json"]),
    Case("workload-poisson", "rocev2-workload",
         ["--pattern=poisson", "--duration=200us", "--cc=dcqcn",
          "--cdf={root}/data/cdf/websearch.txt", "--json={d}/out.json",
          "--fct={d}/fct.txt"], "--RngRun=2"),
    Case("chakra-replay", "rocev2-chakra-replay",
         ["--et={root}/data/chakra/synthetic-8/chakra.0.et", "--gpus-per-server=1",
          "--json={d}/out.json"]),
    # An incast with a shallow buffer: RngRun=2 changes the random choices
    # (ECN marking coins).
    Case("incast", "rocev2-incast",
         ["--senders=16", "--size=300000", "--buffer=2", "--RngRun=1", "--json={d}/out.json"],
         "--RngRun=2"),
    # Packet spraying draws a port per packet from the switches' random
    # streams (RoceSwitch::AssignStreams).
    Case("load-balancing-spray", "rocev2-load-balancing",
         ["--lb=spray", "--messages=2", "--size=64KiB", "--RngRun=1", "--json={d}/out.json"],
         "--RngRun=2"),
    # The examples' scheduler and simulator (RoceCli::UseFastScheduler:
    # RoceHeapScheduler, RoceSimulatorImpl) change no result: with DCQCN's
    # ECN coins, PFC and timers the outputs are the same under ns-3's
    # PriorityQueueScheduler, its default MapScheduler and CalendarScheduler,
    # and under ns-3's DefaultSimulatorImpl. Not under
    # ns-3.37's HeapScheduler: its Remove() moves the last event into the hole
    # and only sifts it down, never up, so after Simulator::Remove (DCQCN's
    # increase timer) events can run out of time order.
    Case("schedulers", "rocev2-incast",
         ["--senders=16", "--size=300000", "--buffer=2", "--dcqcn-preset=hpcc-sim",
          "--RngRun=1", "--json={d}/out.json"],
         "--RngRun=2", ("ns3::PriorityQueueScheduler", "ns3::MapScheduler", "ns3::CalendarScheduler",
                         "--SimulatorImplementationType=ns3::DefaultSimulatorImpl")),
    # A collective (hierarchical AllReduce over NVLink and 8 channels of
    # DCQCN QPs on a 3-tier zone) and the first 300 us of the HPCC web-search
    # run (128 flows of the 6,635 on the 320-host fat-tree, HPCC's INT
    # windows) give the same outputs under both schedulers; another run
    # number moves ECMP and ECN marking and must change them.
    Case("schedulers-allreduce", "rocev2-ai-zone-allreduce",
         ["--gpus=64", "--tiers=3", "--zones=2", "--oversub=2", "--uplinks=4", "--algo=hier", "--cc=dcqcn", "--sizes=4M",
          "--seed=1", "--json={d}/out.json"],
         "--seed=2", ("ns3::PriorityQueueScheduler", "ns3::MapScheduler", "ns3::CalendarScheduler",
                         "--SimulatorImplementationType=ns3::DefaultSimulatorImpl")),
    Case("schedulers-hpcc-websearch", "rocev2-hpcc-compat",
         ["--topology={root}/data/hpcc-format/fat-tree-320.txt",
          "--flows={root}/data/hpcc-format/websearch-320-30pct-10ms.txt", "--cc=hpcc",
          "--stop=2.0003s", "--seed=1", "--quiet", "--json={d}/out.json", "--fct={d}/fct.txt"],
         "--seed=2", ("ns3::PriorityQueueScheduler", "ns3::MapScheduler", "ns3::CalendarScheduler",
                         "--SimulatorImplementationType=ns3::DefaultSimulatorImpl")),
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


def with_flag(args, flag):
    """args with flag (--NAME=VALUE) in place of an argument --NAME=..., or added."""
    name = flag.split("=", 1)[0]
    return [a for a in args if a.split("=", 1)[0] != name] + [flag]


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
    p.add_argument("--build-dir")
    p.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    p.add_argument("--only", default="", help="comma-separated case names to run")
    p.add_argument("--skip", default="", help="comma-separated case names not to run")
    p.add_argument("--self-test", action="store_true")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    if a.list:
        print("\n".join(c.name for c in CASES))
        return 0
    if not a.build_dir:
        p.error("--build-dir is required")
    if a.self_test:
        a.only = "allreduce-random-placement"
    only = set(n for n in a.only.split(",") if n)
    skip = set(n for n in a.skip.split(",") if n)
    unknown = (only | skip) - set(c.name for c in CASES)
    if unknown:
        print("unknown case(s): %s (known: %s)"
              % (", ".join(sorted(unknown)), ", ".join(c.name for c in CASES)))
        return 2
    root = os.path.abspath(a.root)
    problems = []
    for name, example, args, other, schedulers in CASES:
        if (only and name not in only) or name in skip:
            continue
        if not os.path.exists(os.path.join(a.build_dir, "examples", example)):
            problems.append("%s: %s is not built in %s" % (name, example, a.build_dir))
            continue
        with tempfile.TemporaryDirectory() as t:
            dirs = [os.path.join(t, k)
                    for k in ["a", "b", "c"] + ["s%d" % i for i in range(len(schedulers))]]
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
                run(a.build_dir, root, example, with_flag(args, other), dirs[2])
                if all(same(os.path.join(dirs[0], f), os.path.join(dirs[2], f)) for f in files):
                    problems.append("%s: %s left every output unchanged" % (name, other))
            for scheduler, d in zip(schedulers, dirs[3:]):
                flag = scheduler if scheduler.startswith("--") else "--SchedulerType=" + scheduler
                got = run(a.build_dir, root, example, args + [flag], d)
                if got != files:
                    problems.append("%s: outputs %s, under %s %s" % (name, files, scheduler, got))
                    continue
                for f in files:
                    if not same(os.path.join(dirs[0], f), os.path.join(d, f)):
                        problems.append("%s: %s differs under %s" % (name, f, scheduler))
            if len(problems) == before:
                print("%s: %d files identical over two runs%s%s"
                      % (name, len(files), ", changed by " + other if other else "",
                         ", the same under " + ", ".join(schedulers) if schedulers else ""))
    for line in problems:
        print(("caught: " if a.self_test else "FAIL ") + line)
    if a.self_test:
        print("self-test: " + ("the injected difference was caught" if problems else
                               "FAIL: the injected difference was not caught"))
        return 0 if problems else 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
