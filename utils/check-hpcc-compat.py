#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""End-to-end check of rocev2-hpcc-compat on examples/hpcc/config-tiny.txt
(an HPCC-lineage config.txt with its topology and flow file) and on a
generated load:

- every flow of the flow file completes; the JSON holds the issue's members
  (flows_completed, slowdown_p50/p95/p99, pfc_pauses, events, packet_hops,
  sim_time_s, wall_time_s) and slowdown percentiles >= 1 (an FCT never beats
  the ideal by more than rounding);
- FCT_OUTPUT_FILE has one line per flow in HPCC's format (sip dip sport dport
  size start_ns fct_ns standalone_fct_ns, addresses as 8 hex digits, 11.x.y.1
  of the flow file's node ids), the sizes and start times of the flow file;
- PFC_OUTPUT_FILE lines have HPCC's 5 fields; QLEN_MON_FILE samples lie in
  [QLEN_MON_START, QLEN_MON_END];
- the same run twice gives byte-identical FCT files and JSON apart from the
  wall time; a generated load changes with --RngRun;
- --flows-out writes generated flows starting at --start, and a run that
  reads that file back completes every one of them; --config with --load
  runs the config's settings on generated flows.

usage: check-hpcc-compat.py EXAMPLE SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

REQUIRED = ("flows_completed", "slowdown_p50", "slowdown_p95", "slowdown_p99",
            "pfc_pauses", "events", "packet_hops", "sim_time_s", "wall_time_s")


def fail(msg):
    print("check-hpcc-compat: FAIL: " + msg)
    sys.exit(1)


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        fail("%s exited %d\n%s" % (" ".join(cmd), proc.returncode, proc.stdout))
    return proc.stdout


def read_flows(path):
    with open(path) as f:
        lines = [l.split() for l in f if l.strip()]
    n = int(lines[0][0])
    flows = [(int(a), int(b), int(sz), round(float(t) * 1e9)) for a, b, _, _, sz, t in lines[1:]]
    if len(flows) != n:
        fail("%s: %d flows, line 1 says %d" % (path, len(flows), n))
    return flows


def host_ip(node):
    return "%08x" % (0x0b000001 + (node // 256) * 0x10000 + (node % 256) * 0x100)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    example, src, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    config = os.path.join(src, "examples", "hpcc", "config-tiny.txt")
    flows = read_flows(os.path.join(src, "examples", "hpcc", "tiny-flows.txt"))

    outputs = []
    for i in (1, 2):
        out = run([example, "--config=" + config, "--json=run%d.json" % i, "--quiet"], work)
        with open(os.path.join(work, "run%d.json" % i)) as f:
            doc = json.load(f)
        with open(os.path.join(work, "fct-tiny.txt")) as f:
            fct = f.read()
        outputs.append((doc, fct))
    doc, fct = outputs[0]
    for key in REQUIRED:
        if key not in doc:
            fail("JSON lacks %s" % key)
    if doc["flows_completed"] != len(flows) or doc["flows_total"] != len(flows):
        fail("flows_completed %s, flows_total %s, the file has %d"
             % (doc["flows_completed"], doc["flows_total"], len(flows)))
    for p in ("slowdown_p50", "slowdown_p95", "slowdown_p99"):
        if not doc[p] >= 0.999:
            fail("%s = %s < 1" % (p, doc[p]))
    if not doc["slowdown_p50"] <= doc["slowdown_p95"] <= doc["slowdown_p99"]:
        fail("slowdown percentiles not ordered")
    if doc["packet_hops"] <= 0 or doc["events"] <= 0 or doc["sim_time_s"] < 2.0:
        fail("packet_hops %s, events %s, sim_time_s %s" %
             (doc["packet_hops"], doc["events"], doc["sim_time_s"]))

    # FCT file: one line per flow, HPCC's fields.
    seen = set()
    for lineno, line in enumerate(fct.splitlines(), 1):
        f = line.split()
        if len(f) != 8 or any(len(x) != 8 for x in f[:2]):
            fail("fct-tiny.txt:%d: not 'sip dip sport dport size start_ns fct_ns standalone_ns'"
                 % lineno)
        key = (f[0], f[1], int(f[4]), int(f[5]))
        seen.add(key)
        if not int(f[6]) >= int(f[7]) - 2:
            fail("fct-tiny.txt:%d: FCT %s below the standalone FCT %s" % (lineno, f[6], f[7]))
    want = {(host_ip(a), host_ip(b), sz, t) for a, b, sz, t in flows}
    if seen != want:
        fail("FCT file flows %s differ from the flow file's %s" % (sorted(seen), sorted(want)))

    with open(os.path.join(work, "pfc-tiny.txt")) as f:
        for lineno, line in enumerate(f, 1):
            if len(line.split()) != 5:
                fail("pfc-tiny.txt:%d: not 'time_ns node node_type if_index type'" % lineno)
    with open(os.path.join(work, "qlen-tiny.txt")) as f:
        rows = [l.split(",") for l in f.read().splitlines()[1:]]
    if not rows:
        fail("qlen-tiny.txt has no samples (an incast of three 300 KB flows queues)")
    if any(not 2000000000 <= int(r[0]) <= 3000000000 for r in rows):
        fail("qlen-tiny.txt has samples outside QLEN_MON_START..END")

    # Same inputs, same outputs (the wall time aside).
    a, b = (dict(d) for d, _ in outputs)
    a.pop("wall_time_s")
    b.pop("wall_time_s")
    if a != b or outputs[0][1] != outputs[1][1]:
        fail("two runs of the same config differ")

    # A generated load draws other flows with another RngRun.
    gen = []
    for run_no in (1, 1, 2):
        run([example, "--topology=" + os.path.join(src, "examples", "hpcc", "tiny-topology.txt"),
             "--load=0.5", "--duration=300us", "--cc=hpcc", "--fct=gen.txt", "--quiet",
             "--RngRun=%d" % run_no], work)
        with open(os.path.join(work, "gen.txt")) as f:
            gen.append(f.read())
    if gen[0] != gen[1]:
        fail("the same RngRun gave different generated flows")
    if gen[0] == gen[2]:
        fail("RngRun 1 and 2 gave the same generated flows")
    # --flows-out: the generated flows as a flow file, starting at --start,
    # that a run with --flows then completes one by one.
    topo = os.path.join(src, "examples", "hpcc", "tiny-topology.txt")
    run([example, "--topology=" + topo, "--load=0.5", "--duration=300us", "--start=2s",
         "--flows-out=out-flows.txt", "--quiet"], work)
    written = read_flows(os.path.join(work, "out-flows.txt"))
    if not written:
        fail("--flows-out wrote no flows")
    if any(not 2000000000 <= t < 2000300000 for _, _, _, t in written):
        fail("--flows-out: a start outside [2 s, 2 s + 300 us)")
    if any(a == b for a, b, _, _ in written):
        fail("--flows-out: a flow to itself")
    run([example, "--topology=" + topo, "--flows=out-flows.txt", "--cc=hpcc",
         "--fct=out-fct.txt", "--quiet"], work)
    with open(os.path.join(work, "out-fct.txt")) as f:
        done = [l for l in f if l.strip()]
    if len(done) != len(written):
        fail("--flows-out: %d flows written, %d completed" % (len(written), len(done)))
    # --config with --load: the config's settings on generated flows, its
    # FLOW_FILE not read; as many flows complete as --flows-out writes.
    cfg = os.path.join(src, "examples", "hpcc", "config-tiny.txt")
    run([example, "--config=" + cfg, "--load=0.5", "--duration=300us",
         "--flows-out=cfg-flows.txt", "--quiet"], work)
    generated = read_flows(os.path.join(work, "cfg-flows.txt"))
    run([example, "--config=" + cfg, "--load=0.5", "--duration=300us", "--fct=cfg-fct.txt",
         "--quiet"], work)
    with open(os.path.join(work, "cfg-fct.txt")) as f:
        done = [l for l in f if l.strip()]
    if len(done) != len(generated) or len(generated) == len(flows):
        fail("--config with --load: %d generated, %d completed, FLOW_FILE has %d"
             % (len(generated), len(done), len(flows)))
    print("check-hpcc-compat: OK (%d flows, slowdown p50 %.3f p99 %.3f)"
          % (len(flows), doc["slowdown_p50"], doc["slowdown_p99"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
