#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Runs of one AI Zone over MPI ranks (ctest mpi/*, ./rocev2 test --mpi).

determinism: rocev2-mpi-fabric (a PFC-heavy incast and a permutation across
  the partition's cut) writes byte-identical JSON (every flow's completion
  time, every device's PFC counters) in one process and on 1, 2 and 4 ranks,
  for two partitions and two congestion controls; on 2 ranks PFC frames
  must cross ranks.
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
        ("incast+permutation, cc none, racks", []),
        ("dcqcn, interleaved map partition", ["--cc=dcqcn", "--partition=map"]),
    ]
    for name, args in scenarios:
        ref_cmd = [plain or exe] + [a for a in args if a != "--partition=map"] + ["--json=ref.json"]
        rc, out, err = run(ref_cmd, tmp)
        if rc != 0:
            failures.append(f"{name}: one process exited {rc}: {err.strip()[-400:]}")
            continue
        ref = open(os.path.join(tmp, "ref.json"), "rb").read()
        for ranks in (1, 2, 4):
            # A user's map: rack r (of 8) on rank r % ranks.
            rargs = [a if a != "--partition=map" else
                     "--partition=map:" + ",".join(str(r % ranks) for r in range(8)) for a in args]
            rc, out, err = run(mpirun(ranks) + [exe] + rargs + [f"--json=r{ranks}.json"], tmp)
            if rc != 0:
                failures.append(f"{name}: {ranks} rank(s) exited {rc}: {err.strip()[-400:]}")
                continue
            got = open(os.path.join(tmp, f"r{ranks}.json"), "rb").read()
            m = re.search(r"(\d+) frames crossed ranks \((\d+) PFC\)", out)
            crossed, pfc = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
            status = "identical" if got == ref else "DIFFERENT"
            print(f"  {name}: {ranks} rank(s): {status}; {crossed} frames crossed ranks, "
                  f"{pfc} of them PFC")
            if got != ref:
                failures.append(f"{name}: {ranks} rank(s) wrote other JSON than one process")
            if ranks > 1 and crossed <= 0:
                failures.append(f"{name}: no frame crossed ranks on {ranks} ranks")
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
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rc, out, err = run([os.path.join(root, "rocev2"), "run", "--mpi=2", "rocev2-incast"], tmp)
    want = "rocev2-incast does not split its fabric over MPI ranks"
    print(f"  ./rocev2 run --mpi=2 rocev2-incast: exit {rc}")
    if rc != 2 or want not in err:
        return [f"an example that never calls RoceMpiHelper::Enable was not refused: {err[-400:]}"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("check",
                    choices=["determinism", "zero-delay-cut", "other-engine", "non-mpi-example"])
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
        elif a.check == "other-engine":
            failures = other_engine(exe, tmp)
        else:
            failures = non_mpi_example(exe, tmp)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
