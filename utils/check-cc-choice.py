#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that congestion control is chosen one way in every example.

    check-cc-choice.py --build BUILD_DIR [--root REPO]

1. A DCQCN preset with another algorithm is refused, naming both flags, by
   every example that takes --cc (rocev2-workload ran DCQCN for
   --cc=timely --dcqcn-preset=hpcc-sim and reported "timely").
2. --cc=dcqcn means --dcqcn-preset=nvidia-cx in every example: the two give
   the same results (rocev2-incast and rocev2-workload took DCQCN's attribute
   defaults with the default switch marking, the others nvidia-cx).
3. --cc=dctcp gives DCTCP's step marking in rocev2-victim-flow as in
   rocev2-incast (the victim-flow example marked at the default RED
   thresholds, 400 KB at 100 Gb/s, and marked nothing). An incast of 4
   line-rate senders into one 100 Gb/s port grows its queue at 3 x 100 Gb/s
   until the senders react, at least one RTT (8 us over four 1 us links):
   300 KB, far above K = 30 KB, so marks must be counted.
4. rocev2-incast --senders=2 --hosts=65 --size=200000000 --mtu=1000
   --dcqcn-preset=hpcc-sim is the scenario of the suite rocev2-cc ("DCQCN
   hpcc-sim: 2 x 200 MB"), run at RngRun 1-4: in every run the later flow
   finishes no earlier than T = 400e6 / 1000 x 1082 B x 8 / 100 Gb/s =
   34.62 ms (the link carries both flows' bytes), and the mean start-up
   loss (the later flow's completion less T) is not significantly above
   D = 0.053 T + 0.9 ms: the HPCC simulator's loss on this scenario (its
   slower flow 5.3 % over T) plus one period of the preset's 900 us
   rate-increase timer, from which the later flow climbs after the earlier
   one ends. "Significantly" is by more than 3 standard errors of the mean
   of the four: one run's loss spreads from 1.5 to 6.6 ms over RngRun 1-8,
   so no single run can be held to D. The example numbered its switches'
   random streams differently and finished at 38.18 ms.

Exit status 0 when all hold, 1 otherwise.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("check-cc-choice: FAIL: " + message)


def run(build, root, example, args, timeout=600):
    exe = os.path.join(build, "examples", example)
    return subprocess.run([exe] + args, capture_output=True, text=True, timeout=timeout,
                          cwd=root)


WALL = re.compile(r"(^|[._])wall|seconds$")


def strip(obj):
    """A JSON value without wall-clock members and the preset's name."""
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items()
                if not WALL.search(k) and k != "dcqcn_preset"}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def run_json(build, root, example, args, tmp, name):
    path = os.path.join(tmp, name + ".json")
    proc = run(build, root, example, args + ["--json=" + path])
    if proc.returncode != 0:
        fail("%s %s exited %d: %s" % (example, " ".join(args), proc.returncode,
                                      (proc.stderr or proc.stdout)[-400:]))
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    a = parser.parse_args()
    build = os.path.abspath(a.build)

    # Small runs of every example that takes --cc.
    examples = {
        "rocev2-incast": ["--senders=4", "--size=300000"],
        "rocev2-workload": ["--pattern=incast", "--size=200000"],
        "rocev2-victim-flow": ["--size=1000000", "--victim-size=10000000", "--warmup=100us"],
        "rocev2-ai-zone-allreduce": ["--gpus=16", "--sizes=1M"],
        "rocev2-ai-zone-job": ["--job=examples/jobs/dp-buckets.json"],
        "rocev2-mpi-fabric": ["--incast=4"],
        "rocev2-hpcc-compat": ["--topology=examples/hpcc/tiny-topology.txt",
                               "--flows=examples/hpcc/tiny-flows.txt"],
        "rocev2-fault-soak": ["--seeds=1"],
        "rocev2-chakra-replay": ["--et=data/chakra/synthetic-8/chakra.0.et",
                                 "--gpus-per-server=1"],
    }
    for example, args in examples.items():
        if not os.path.exists(os.path.join(build, "examples", example)):
            fail("%s is not built in %s" % (example, build))
            continue
        proc = run(build, a.root, example, args + ["--cc=timely", "--dcqcn-preset=hpcc-sim"])
        text = proc.stdout + proc.stderr
        if proc.returncode != 2 or \
                "--dcqcn-preset=hpcc-sim needs --cc=dcqcn, not --cc=timely" not in text:
            fail("%s --cc=timely --dcqcn-preset=hpcc-sim: exit %d, expected 2 and the flags "
                 "named; output: %s" % (example, proc.returncode, text[-300:]))

    with tempfile.TemporaryDirectory() as tmp:
        for example in ["rocev2-incast", "rocev2-workload", "rocev2-victim-flow",
                        "rocev2-ai-zone-allreduce", "rocev2-mpi-fabric"]:
            args = examples[example]
            plain = run_json(build, a.root, example, args + ["--cc=dcqcn"], tmp, example + "-cc")
            named = run_json(build, a.root, example, args + ["--dcqcn-preset=nvidia-cx"], tmp,
                             example + "-preset")
            if plain is not None and named is not None and strip(plain) != strip(named):
                fail("%s: --cc=dcqcn and --dcqcn-preset=nvidia-cx give different results" %
                     example)

        victim = run_json(build, a.root, "rocev2-victim-flow",
                          examples["rocev2-victim-flow"] + ["--cc=dctcp"], tmp, "victim-dctcp")
        if victim is not None and not victim.get("ecn_marked", 0) > 0:
            fail("rocev2-victim-flow --cc=dctcp marked %s packets: no step marking" %
                 victim.get("ecn_marked"))

        fair = 400e6 / 1000 * 1082 * 8 / 100e9 * 1e6  # us
        allowance = 0.053 * fair + 900
        losses = []
        for run_number in range(1, 5):
            incast = run_json(build, a.root, "rocev2-incast",
                              ["--senders=2", "--hosts=65", "--size=200000000", "--mtu=1000",
                               "--dcqcn-preset=hpcc-sim", "--RngRun=%d" % run_number], tmp,
                              "incast-hpcc-sim-%d" % run_number)
            if incast is None:
                continue
            later = max(flow["fct_us"] for flow in incast["flows"])
            if later < fair:
                fail("rocev2-incast hpcc-sim 2 x 200 MB, RngRun %d: both flows done by %.2f us, "
                     "before the link could carry their bytes (%.2f us)" %
                     (run_number, later, fair))
            losses.append(later - fair)
        if len(losses) == 4:
            mean = sum(losses) / len(losses)
            sd = (sum((x - mean) ** 2 for x in losses) / (len(losses) - 1)) ** 0.5
            se = sd / len(losses) ** 0.5
            if mean - 3 * se > allowance:
                fail("rocev2-incast hpcc-sim 2 x 200 MB: mean start-up loss %.0f us (standard "
                     "error %.0f us over RngRun 1-4) is significantly above %.0f us" %
                     (mean, se, allowance))

    if FAILURES:
        print("check-cc-choice: %d failure(s)" % len(FAILURES))
        return 1
    print("check-cc-choice: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
