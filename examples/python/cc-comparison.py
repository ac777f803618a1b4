# SPDX-License-Identifier: GPL-2.0-only
"""Congestion control compared on one scenario, from Python: an AllToAll on
a 2:1 oversubscribed AI Zone (8 uplinks per RTSW) for each congestion
control, one scenario after another in one process. It draws one figure:
the busbw of each, and the PFC pauses the fabric sent.

    ./rocev2 run-python examples/python/cc-comparison.py --out=cc.png
    ./rocev2 run-python examples/python/cc-comparison.py --cc=none,dcqcn --gpus=32 --size=4M
"""

import argparse

import rocev2


def run_one(cc, gpus, size, seed):
    """One scenario: returns (busbw Gb/s, PFC pauses sent, queue samples)."""
    rocev2.set_run(seed)
    zone = rocev2.AiZone(gpus=(gpus + 15) // 16 * 16, uplinks=8, cc=cc)
    monitor = rocev2.Monitor(pfc=True, queues=10e-6)
    coll = rocev2.Collective(zone, zone.placement().contiguous(gpus), op="alltoall",
                             sizes=[size], channels=4)
    rocev2.run()
    if not coll.finished:
        raise rocev2.Error("cc %s: the AllToAll did not finish" % cc)
    busbw = coll.results()[0]["busbw_gbps"]
    pauses = int(monitor.pfc_events()["xoff"].sum())
    queues = monitor.queues()
    rocev2.destroy()
    return busbw, pauses, queues


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # dctcp needs ECN step marking at the switches, which AiZone does not set.
    p.add_argument("--cc", default="none,dcqcn,hpcc,timely")
    p.add_argument("--gpus", type=int, default=32)
    p.add_argument("--size", default="8M")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="cc-comparison.png")
    a = p.parse_args()

    names = [c for c in a.cc.split(",") if c]
    rows = []
    for cc in names:
        busbw, pauses, queues = run_one(cc, a.gpus, a.size, a.seed)
        peak = int(queues["bytes"].max()) if len(queues["bytes"]) else 0
        rows.append((cc, busbw, pauses, peak))
        print("%-7s busbw %8.2f Gb/s  PFC pauses %6d  deepest queue %8d B"
              % (cc, busbw, pauses, peak))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = range(len(rows))
    ax.bar(x, [r[1] for r in rows], color="tab:blue")
    ax.set_xticks(list(x))
    ax.set_xticklabels([r[0] for r in rows])
    ax.set_ylabel("AllToAll busbw (Gb/s)")
    ax2 = ax.twinx()
    ax2.plot(list(x), [r[2] for r in rows], "o-", color="tab:red")
    ax2.set_ylabel("PFC pauses sent", color="tab:red")
    ax.set_title("%d GPUs, %s AllToAll, 2:1 uplinks" % (a.gpus, a.size))
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print("wrote " + a.out)


if __name__ == "__main__":
    main()
