#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Scaling figures of ns3-rocev2: wall time and peak RSS of the same ring
AllReduce on 256, 1,024 and 4,096 GPUs, and of one NIC pair against its
number of queue pairs. Writes scaling.json and two PNG plots. With --flow:
the tree AllReduce of 256 MiB at flow level on 1,024, 4,096 and 24,576 GPUs
of the meta-cluster-24k preset (scaling-flow.json, scaling-flow.png).

    bench/scaling.py [--build-dir build] [--out bench] [--size 16M]
    bench/scaling.py --flow [--build-dir build] [--out bench]
    bench/scaling.py --from-json bench/scaling.json --out bench   (plots only)

Debian's /usr/bin/python3 with python3-matplotlib draws the plots.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def run(cmd):
    """Run cmd; return wall seconds, peak RSS in MB and its BENCH counters."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("scaling.py: %s failed:\n%s" % (" ".join(cmd), out[-2000:]))
    bench = {}
    for line in out.splitlines():
        if line.startswith("BENCH "):
            for kv in line[6:].split():
                key, _, value = kv.partition("=")
                bench[key] = float(value)
    return {"wall_s": round(wall, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "rss_mb": round(usage.ru_maxrss / 1024.0, 1), "bench": bench}


def plot(path, xs, series, xlabel, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax1 = plt.subplots(figsize=(6, 4))
    ax1.plot(xs, series["wall_s"], "o-", color="tab:blue", label="wall time")
    ax1.set_xscale("log")
    ax1.set_xlabel(xlabel)
    ax1.set_ylabel("wall time (s)", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(xs, series["rss_mb"], "s--", color="tab:red", label="peak RSS")
    ax2.set_ylabel("peak RSS (MB)", color="tab:red")
    ax1.set_title(title)
    ax1.set_xticks(xs)
    ax1.set_xticklabels([str(x) for x in xs])
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", default="bench")
    ap.add_argument("--size", default="16M", help="AllReduce size (default 16M)")
    ap.add_argument("--gpus", default="256,1024,4096")
    ap.add_argument("--qps", default="1000,10000,100000")
    ap.add_argument("--flow", action="store_true",
                    help="flow level: tree AllReduce of 256M on meta-cluster-24k (--flow-gpus)")
    ap.add_argument("--flow-gpus", default="1024,4096,24576")
    ap.add_argument("--from-json", help="draw the plots of an earlier run's scaling.json")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            draw(json.load(f), args.out)
        return
    allreduce = os.path.join(args.build_dir, "examples", "rocev2-ai-zone-allreduce")
    if args.flow:
        result = {"flow": [], "size": FLOW_SIZE, "preset": FLOW_PRESET}
        for g in [int(x) for x in args.flow_gpus.split(",")]:
            r = run([allreduce, "--preset=" + FLOW_PRESET, "--gpus=%d" % g, "--algo=tree",
                     "--sizes=" + FLOW_SIZE, "--fidelity=flow"])
            r["gpus"] = g
            result["flow"].append(r)
            print("flow-level tree allreduce %s on %5d GPUs: %8.1f s wall, %7.1f MB"
                  % (FLOW_SIZE, g, r["wall_s"], r["rss_mb"]), flush=True)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "scaling-flow.json"), "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")
        draw(result, args.out)
        return
    qpscale = os.path.join(args.build_dir, "bench", "rocev2-qp-scale")
    result = {"allreduce": [], "qps": []}
    for g in [int(x) for x in args.gpus.split(",")]:
        r = run([allreduce, "--gpus=%d" % g, "--sizes=%s" % args.size])
        r["gpus"] = g
        result["allreduce"].append(r)
        print("allreduce %s on %5d GPUs: %8.1f s wall, %6.1f MB, %d packet hops"
              % (args.size, g, r["wall_s"], r["rss_mb"], r["bench"].get("packet_hops", 0)),
              flush=True)
    for q in [int(x) for x in args.qps.split(",")]:
        r = run([qpscale, "--qps=%d" % q, "--active=16", "--size=1000000", "--cc=dcqcn"])
        r["qps"] = q
        result["qps"].append(r)
        print("qp-scale %6d QPs (16 active): %6.2f s wall, %6.1f MB, %.0f B heap per QP"
              % (q, r["wall_s"], r["rss_mb"], r["bench"].get("heap_setup_bytes_per_qp", 0)),
              flush=True)
    result["size"] = args.size
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scaling.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    draw(result, args.out)


FLOW_PRESET = "meta-cluster-24k"
FLOW_SIZE = "256M"


def draw(result, out):
    """Write scaling-gpus.png and scaling-qps.png (or scaling-flow.png) from a result dict."""
    if "flow" in result:
        f = result["flow"]
        plot(os.path.join(out, "scaling-flow.png"), [r["gpus"] for r in f],
             {"wall_s": [r["wall_s"] for r in f], "rss_mb": [r["rss_mb"] for r in f]},
             "GPUs", "Tree AllReduce of %s at flow level (%s)"
             % (result["size"], result["preset"]))
        return
    size = result.get("size", "16M")
    a = result["allreduce"]
    plot(os.path.join(out, "scaling-gpus.png"), [r["gpus"] for r in a],
         {"wall_s": [r["wall_s"] for r in a], "rss_mb": [r["rss_mb"] for r in a]},
         "GPUs", "Ring AllReduce of %s (2-tier AI Zone, 8 channels)" % size)
    q = result["qps"]
    plot(os.path.join(out, "scaling-qps.png"), [r["qps"] for r in q],
         {"wall_s": [r["wall_s"] for r in q], "rss_mb": [r["rss_mb"] for r in q]},
         "queue pairs per NIC (16 active, DCQCN)", "One NIC pair, 16 x 1 MB writes")


if __name__ == "__main__":
    main()
