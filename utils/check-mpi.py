#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs of one AI Zone over MPI ranks (ctest mpi/*, ./rocev2 test --mpi).

determinism: rocev2-mpi-fabric (a collective over every GPU, a PFC-heavy
  incast, a permutation and Poisson flows across the partition's cut, and a
  monitor) writes byte-identical JSON (every flow's record, every GPU's
  collective finish time and bytes, every device's PFC counters, the
  monitor's rows) and monitor CSV files in one process and on 1, 2 and 4
  ranks, for two partitions, two congestion controls and ring, hd and
  direct collectives; on 2 ranks PFC frames and the collective's calls
  (message descriptions, senders' notices) must cross ranks, and on 2 and 4
  ranks each rank must leave the links of other ranks unbuilt.
notify-delay: a communicator whose NotifyDelay does not exceed the
  lookahead is refused on every rank with status 2, naming both.
zero-delay-cut: a partition whose cut has a link of delay 0 is refused on
  every rank with status 2 and a message naming the link and the rule.
other-engine: ns-3's null-message engine is refused on every rank (the
  event order that makes results independent of the ranks needs the
  granted-time-window engine).
non-mpi-example: ./rocev2 run --mpi=2 refuses an example that does not split
  its fabric (each rank would run the whole simulation).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mpirun(ranks):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd + ["-np", str(ranks)]


def run(cmd, tmp):
    p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def determinism(exe, plain, tmp):
    failures = []
    scenarios = [
        ("ring allreduce+incast+permutation+poisson, monitor, cc none, racks",
         ["--load=0.3", "--cdf=" + os.path.join(ROOT, "data", "cdf", "websearch.txt"),
          "--monitor=mon"]),
        ("dcqcn, monitor, interleaved map partition",
         ["--cc=dcqcn", "--partition=map", "--monitor=mon"]),
        ("hd allreduce 4 MiB, no incast, shortest-path routes",
         ["--algorithm=hd", "--coll-size=4MiB", "--incast=0", "--routes=bfs"]),
        ("alltoall 2 MiB, map partition", ["--collective=alltoall", "--coll-size=2MiB",
                                           "--permutation=0", "--partition=map"]),
    ]
    for name, args in scenarios:
        ref_cmd = [plain or exe] + [a for a in args if a != "--partition=map"] + ["--json=ref.json"]
        rc, out, err = run(ref_cmd, tmp)
        if rc != 0:
            failures.append(f"{name}: one process exited {rc}: {err.strip()[-400:]}")
            continue
        ref = open(os.path.join(tmp, "ref.json"), "rb").read()
        monitored = "--monitor=mon" in args
        csvs = ["pfc", "queue", "link", "cnp"] if monitored else []
        ref_csv = {c: open(os.path.join(tmp, f"mon-{c}.csv"), "rb").read() for c in csvs}
        if monitored and ref_csv["link"].count(b"\n") < 2:
            failures.append(f"{name}: the monitor sampled no link in one process")
        if b'"flows_completed": 0,' in ref:
            failures.append(f"{name}: no flow completed in one process")
        for ranks in (1, 2, 4):
            # A user's map: rack r (of 8) on rank r % ranks.
            rargs = [a if a != "--partition=map" else
                     "--partition=map:" + ",".join(str(r % ranks) for r in range(8)) for a in args]
            rc, out, err = run(mpirun(ranks) + [exe] + rargs + [f"--json=r{ranks}.json"], tmp)
            if rc != 0:
                failures.append(f"{name}: {ranks} rank(s) exited {rc}: {err.strip()[-400:]}")
                continue
            got = open(os.path.join(tmp, f"r{ranks}.json"), "rb").read()
            for c in csvs:
                if open(os.path.join(tmp, f"mon-{c}.csv"), "rb").read() != ref_csv[c]:
                    failures.append(f"{name}: {ranks} rank(s) wrote another mon-{c}.csv")
            m = re.search(r"(\d+) frames crossed ranks \((\d+) PFC\), (\d+) calls; "
                          r"(\d+) switch ports and (\d+) NICs of other ranks not built", out)
            crossed, pfc, calls, ports, nics = (
                tuple(int(g) for g in m.groups()) if m else (-1, -1, -1, -1, -1))
            status = "identical" if got == ref else "DIFFERENT"
            print(f"  {name}: {ranks} rank(s): {status}; {crossed} frames crossed ranks, "
                  f"{pfc} of them PFC; {calls} calls; {ports} ports and {nics} NICs of other "
                  f"ranks not built")
            if ranks > 1 and calls <= 0:
                failures.append(f"{name}: the collective sent no call across {ranks} ranks")
            if b'"coll_finish_ns": 0,' in got:
                failures.append(f"{name}: the collective did not finish")
            if got != ref:
                failures.append(f"{name}: {ranks} rank(s) wrote other JSON than one process")
            if ranks > 1 and crossed <= 0:
                failures.append(f"{name}: no frame crossed ranks on {ranks} ranks")
            # Each rank builds its own links and the cut, and stands in for
            # the links of other ranks; one rank builds everything.
            if (ranks > 1) != (ports > 0) or (ranks > 1) != (nics > 0):
                failures.append(f"{name}: {ports} switch ports and {nics} NICs of other ranks "
                                f"not built on {ranks} rank(s)")
            if ranks == 2 and not args and pfc <= 0:
                failures.append(f"{name}: no PFC frame crossed ranks on 2 ranks")
    return failures


def zero_delay_cut(exe, tmp):
    rc, out, err = run(mpirun(2) + [exe, "--ctsw-delay=0us"], tmp)
    want = "is on the cut with a delay of 0; a link between ranks needs a positive delay"
    failures = []
    if rc == 0:
        failures.append("a zero-delay cut ran")
    if err.count(want) != 2:
        failures.append(f"expected the refusal on both ranks, stderr was: {err.strip()[-600:]}")
    if not re.search(r"rocev2-mpi-fabric: error: partition: the link between node \d+ \(rank \d\) "
                     r"and node \d+ \(rank \d\)", err):
        failures.append("the refusal does not name the link's nodes and ranks")
    print(f"  zero-delay cut: exit {rc}; refused on {err.count(want)} rank(s)")
    return failures


def notify_delay(exe, tmp):
    # The racks partition's cut is the RTSW-CTSW links, of --ctsw-delay.
    args = [exe, "--ctsw-delay=4us", "--notify-delay=4us"]
    rc1, _, err1 = run(args, tmp)
    rc, out, err = run(mpirun(2) + args, tmp)
    want = "RoceCommunicator: NotifyDelay=+4us must exceed the MPI lookahead +4us"
    print(f"  NotifyDelay = lookahead: one process exit {rc1}; 2 ranks exit {rc}, "
          f"refused on {err.count(want)} rank(s)")
    failures = []
    if rc1 != 0:
        failures.append(f"one process (no lookahead) failed: {err1.strip()[-400:]}")
    if rc != 2 or err.count(want) != 2:
        failures.append(f"NotifyDelay = lookahead was not refused on both ranks: {err[-600:]}")
    return failures


def other_engine(exe, tmp):
    rc, out, err = run(mpirun(2) + [exe, "--SimulatorImplementationType=ns3::NullMessageSimulatorImpl"],
                       tmp)
    want = ("--SimulatorImplementationType=ns3::NullMessageSimulatorImpl: an MPI run of this "
            "module uses ns3::DistributedSimulatorImpl")
    print(f"  null-message engine: exit {rc}; refused on {err.count(want)} rank(s)")
    if rc == 0 or err.count(want) != 2:
        return [f"the null-message engine was not refused on both ranks: {err.strip()[-600:]}"]
    return []


def non_mpi_example(exe, tmp):
    rc, out, err = run([os.path.join(ROOT, "rocev2"), "run", "--mpi=2", "rocev2-incast"], tmp)
    want = "rocev2-incast does not split its fabric over MPI ranks"
    print(f"  ./rocev2 run --mpi=2 rocev2-incast: exit {rc}")
    if rc != 2 or want not in err:
        return [f"an example that never calls RoceMpiHelper::Enable was not refused: {err[-400:]}"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("check",
                    choices=["determinism", "zero-delay-cut", "notify-delay", "other-engine",
                             "non-mpi-example"])
    ap.add_argument("--exe", required=True, help="build-mpi/examples/rocev2-mpi-fabric")
    ap.add_argument("--plain", help="the plain build's rocev2-mpi-fabric, if built")
    a = ap.parse_args()
    exe = os.path.abspath(a.exe)
    plain = os.path.abspath(a.plain) if a.plain and os.access(a.plain, os.X_OK) else None
    with tempfile.TemporaryDirectory() as tmp:
        if a.check == "determinism":
            print(f"reference: {'the plain build' if plain else 'the MPI build without mpirun'}")
            failures = determinism(exe, plain, tmp)
        elif a.check == "zero-delay-cut":
            failures = zero_delay_cut(exe, tmp)
        elif a.check == "notify-delay":
            failures = notify_delay(exe, tmp)
        elif a.check == "other-engine":
            failures = other_engine(exe, tmp)
        else:
            failures = non_mpi_example(exe, tmp)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
