# SPDX-License-Identifier: GPL-2.0-only
"""A collective on a job placed in an AI Zone, from Python: the same
scenario, flags and JSON as the C++ example rocev2-ai-zone-allreduce.

    ./rocev2 run-python examples/python/ai-zone-allreduce.py --gpus=64 --sizes=1M,16M
    ./rocev2 run-python examples/python/ai-zone-allreduce.py --gpus=32 --op=alltoall --qps=4 --json=a2a.json

For the same flags and --seed, --json writes the same bytes as
`rocev2-ai-zone-allreduce ... --json=FILE`.
"""

import argparse
import sys

import rocev2


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpus", type=int, default=64, help="ranks of the job")
    p.add_argument("--fabric-gpus", type=int, default=0,
                   help="GPUs of the fabric (0: the smallest zone that holds the job)")
    p.add_argument("--tiers", type=int, default=2)
    p.add_argument("--zones", type=int, default=1)
    p.add_argument("--uplinks", type=int, default=16, help="uplinks per RTSW (16: non-blocking)")
    p.add_argument("--oversub", type=float, default=7.0, help="CTSW:ATSW oversubscription (3 tiers)")
    p.add_argument("--op", default="allreduce")
    p.add_argument("--algo", default="")
    p.add_argument("--sizes", default="1M,16M", help="comma list (1M = 2^20 B)")
    p.add_argument("--qps", type=int, default=1)
    p.add_argument("--qp-mode", default="split")
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--chunk", default="512KiB")
    p.add_argument("--placement", default="contiguous")
    p.add_argument("--cc", default="none")
    p.add_argument("--cts", type=int, default=0)
    p.add_argument("--iters", type=int, default=1)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--seed", type=int, default=1, help="run number (RngRun)")
    p.add_argument("--json", default="", help="write the results as JSON to this file")
    p.add_argument("--faults", default="", help="fault file (doc: Faults)")
    p.add_argument("--fidelity", default="packet",
                   help="packet (frames, PFC, congestion control) or flow (max-min fluid flows)")
    a = p.parse_args(argv)

    rocev2.set_run(a.seed)
    sizes = [s for s in a.sizes.split(",") if s]
    fabric_gpus = a.fabric_gpus or (a.gpus + 15) // 16 * 16 * a.zones
    if a.gpus > fabric_gpus:
        raise rocev2.Error("--gpus=%d ranks but the fabric has --fabric-gpus=%d"
                           % (a.gpus, fabric_gpus))
    zone = rocev2.AiZone(gpus=fabric_gpus, tiers=a.tiers, zones=a.zones, uplinks=a.uplinks,
                         oversubscription=a.oversub, cc=a.cc, fidelity=a.fidelity)
    faults = rocev2.Faults(zone)
    if a.faults:
        faults.load(a.faults)
    gpus = zone.placement().place(a.placement, a.gpus)
    coll = rocev2.Collective(zone, gpus, op=a.op, sizes=sizes, algo=a.algo, channels=a.channels,
                             chunk=a.chunk, qps=a.qps, qp_mode=a.qp_mode, cts=a.cts == 1,
                             iters=a.iters, warmup=a.warmup)
    print("ai-zone-allreduce.py: seed %d, %d ranks (%s, %d servers) on %d GPUs, %d tiers; %s %d "
          "channels, %d QP(s)/connection (%s), cc %s%s"
          % (a.seed, a.gpus, a.placement, coll.communicator.n_servers, zone.n_gpus, a.tiers,
             a.op, a.channels, a.qps, a.qp_mode, a.cc,
             ", flow level" if a.fidelity == "flow" else ""))
    rocev2.run()
    print(coll.table(), end="")
    for line in faults.log():
        print("# fault " + line)
    stats = rocev2.fabric_stats()
    print("# QPs %d, PFC pauses %d, bytes over NICs %d, over NVLink %d; simulated %d us"
          % (coll.communicator.n_qps, stats["pfc_pause_tx"], coll.communicator.nic_bytes,
             coll.communicator.scaleup_bytes, int(rocev2.now() * 1e6)))
    if a.json:
        # The C++ example's layout, byte for byte.
        with open(a.json, "w") as out:
            out.write('{\n  "gpus": %d,\n  "fabric_gpus": %d,\n  "results": %s,\n'
                      '  "fidelity": "%s",\n%s\n}\n'
                      % (a.gpus, zone.n_gpus, coll.results_json(), a.fidelity,
                         rocev2.invariants_json_member(bool(a.faults))))
    finished = coll.finished
    rocev2.destroy()
    if not finished:
        print("ai-zone-allreduce.py: a collective did not finish", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except rocev2.Error as e:
        print("ai-zone-allreduce.py: %s" % e, file=sys.stderr)
        sys.exit(2)
