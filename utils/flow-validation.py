#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare the flow-level engine with packet level on rocev2-ai-zone-allreduce.

    flow-validation.py [--build-dir build] [--quick] [-j N] [--out FILE]

Runs a matrix of collectives twice, with --fidelity=packet and --fidelity=flow,
and prints reStructuredText on stdout (progress goes to stderr):

  1. per (op, algo, fabric, QPs, size): the busbw each fidelity prints (GB/s),
     flow/packet - 1 in %, and the wall time of each run (time.monotonic()
     around the process; one run covers every size of its row group);
  2. Meta's two findings as ratios at both fidelities:
     (a) placement: --gpus=32 --fabric-gpus=64 --uplinks=8 --background=1
         --sizes=64M, busbw(--placement=fragmented) / busbw(contiguous);
     (b) QP scaling: --gpus=64 --sizes=64M,
         busbw(--qps=8 --qp-mode=rr) / busbw(--qps=1);
  3. the largest |flow/packet - 1| at sizes >= 64 MiB per fabric, and every
     flow run that took longer than its packet run.

Full matrix: 64 GPUs; allreduce ring/tree/hd/hier, allgather ring,
reducescatter ring, alltoall direct, broadcast ring/tree; sizes 1M,64M,256M
(one --sizes list per run); --uplinks=16 (non-blocking) and 8 (2:1); QPs 1
(split, the default) and 8 (--qps=8 --qp-mode=rr). --quick: allreduce ring and
broadcast ring, QPs 1, sizes 1M,64M (both fabrics, and the findings).
--skip OP:ALGO drops a pair (e.g. --skip broadcast:tree --skip allreduce:hier).

A run the program refuses (exit status 2 with an error line) is recorded as
refused with its message, not as a failure. A run that cannot start because
the build folder is being rebuilt (loader error, exit status 127, or a
binary that cannot be executed) is retried every --retry-wait seconds for up
to --build-wait seconds. If the program or librocev2.so changes while the
matrix runs, the runs concerned are listed: their numbers may come from
different builds.

Exit status: 0 when every run completed or was refused, 1 otherwise.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

PROGRAM = "rocev2-ai-zone-allreduce"

FULL_PAIRS = [
    ("allreduce", "ring"),
    ("allreduce", "tree"),
    ("allreduce", "hd"),
    ("allreduce", "hier"),
    ("allgather", "ring"),
    ("reducescatter", "ring"),
    ("alltoall", "direct"),
    ("broadcast", "ring"),
    ("broadcast", "tree"),
]
QUICK_PAIRS = [("allreduce", "ring"), ("broadcast", "ring")]
FULL_SIZES = ["1M", "64M", "256M"]
QUICK_SIZES = ["1M", "64M"]
FABRICS = [16, 8]  # --uplinks
QPS = [1, 8]
QUICK_QPS = [1]
FIDELITIES = ["packet", "flow"]
LARGE = 64 << 20  # the summary's "sizes >= 64 MiB"

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")
LOADER_ERROR = "error while loading shared libraries"


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)(?:i?B)?", text.strip(), re.IGNORECASE)
    if not m:
        raise ValueError("size %r" % text)
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def size_label(nbytes):
    for unit in ("G", "M", "K"):
        if nbytes >= UNITS[unit] and nbytes % UNITS[unit] == 0:
            return "%d %siB" % (nbytes // UNITS[unit], unit)
    return "%d B" % nbytes


def fabric_label(uplinks):
    if uplinks == 16:
        return "non-blocking"
    if 16 % uplinks == 0:
        return "%d:1" % (16 // uplinks)
    return "%d uplinks" % uplinks


def qps_label(qps):
    return "1" if qps == 1 else "%d (rr)" % qps


def qps_args(qps):
    return ["--qps=1"] if qps == 1 else ["--qps=%d" % qps, "--qp-mode=rr"]


def fingerprint(paths):
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((p, None, None))
    return tuple(out)


def parse_table(stdout):
    """{size: busbw GB/s} from the first table the program prints."""
    rows = {}
    for line in stdout.splitlines():
        m = ROW.match(line)
        if not m:
            if rows and line.startswith("#"):
                break  # end of the first table
            continue
        try:
            rows[int(m.group(1))] = float(m.group(6))
        except ValueError:
            rows[int(m.group(1))] = float("nan")
    return rows


def error_line(text):
    for line in text.splitlines():
        if "error" in line.lower():
            line = line.strip()
            prefix = PROGRAM + ": error: "
            return line[len(prefix):] if line.startswith(prefix) else line
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


class Runner:
    def __init__(self, args):
        self.program = os.path.join(args.build_dir, "examples", PROGRAM)
        self.watch = [self.program, os.path.join(args.build_dir, "lib", "librocev2.so")]
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="flow-validation-")
        self.lock = threading.Lock()
        self.done = 0
        self.total = 0
        self.t0 = time.monotonic()

    def log(self, text):
        with self.lock:
            sys.stderr.write("[%7.1f s] %s\n" % (time.monotonic() - self.t0, text))
            sys.stderr.flush()

    def run(self, job):
        """job: dict with key, argv (flags), fidelity. Fills in the outcome."""
        jpath = os.path.join(self.tmp, "%d.json" % job["id"])
        argv = [self.program] + job["argv"] + ["--fidelity=" + job["fidelity"], "--json=" + jpath]
        job["command"] = " ".join(shlex.quote(a) for a in argv)
        waited = 0.0
        attempts = 0
        while True:
            attempts += 1
            if os.path.exists(jpath):
                os.unlink(jpath)
            before = fingerprint(self.watch)
            job["started"] = time.monotonic()
            start = time.monotonic()
            transient = None
            try:
                proc = subprocess.run(argv, capture_output=True, text=True,
                                      timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                job.update(status="failed", wall=time.monotonic() - start,
                           message="timed out after %d s" % self.args.timeout)
                break
            except OSError as e:  # the program is being relinked
                transient = "cannot execute: %s" % e
                proc = None
            wall = time.monotonic() - start
            after = fingerprint(self.watch)
            if proc is not None:
                if proc.returncode == 127 and LOADER_ERROR in proc.stderr:
                    transient = error_line(proc.stderr)
                elif proc.returncode < 0 and before != after:
                    transient = "killed by signal %d while the build changed" % -proc.returncode
            if transient is not None:
                if waited >= self.args.build_wait:
                    job.update(status="failed", wall=wall,
                               message="gave up after %d s: %s" % (waited, transient))
                    break
                self.log("%s: %s; retrying in %d s" % (job["name"], transient,
                                                       self.args.retry_wait))
                time.sleep(self.args.retry_wait)
                waited += self.args.retry_wait
                continue
            job["wall"] = wall
            job["build"] = (before, after)
            job["stdout"] = proc.stdout
            if proc.returncode == 2 and "error" in (proc.stderr + proc.stdout).lower():
                job.update(status="refused", message=error_line(proc.stderr + "\n" + proc.stdout))
                break
            if proc.returncode != 0:
                job.update(status="failed", message="exit status %d: %s" % (
                    proc.returncode, error_line(proc.stderr + "\n" + proc.stdout)))
                break
            self.collect(job, proc.stdout, jpath)
            break
        job["attempts"] = attempts
        with self.lock:
            self.done += 1
            n = self.done
        status = job["status"]
        if status == "ok":
            status = "ok " + ", ".join("%s %.2f" % (size_label(s), b)
                                       for s, b in sorted(job["busbw"].items()))
        self.log("(%d/%d) %s [%s] %.1f s: %s" % (n, self.total, job["name"], job["fidelity"],
                                                 job.get("wall", 0.0), status))
        return job

    def collect(self, job, stdout, jpath):
        table = parse_table(stdout)
        missing = [s for s in job["sizes"] if s not in table]
        if missing:
            job.update(status="failed", message="no result for %s in the printed table"
                       % ", ".join(size_label(s) for s in missing))
            return
        job["status"] = "ok"
        job["busbw"] = {s: table[s] for s in job["sizes"]}
        job["notes"] = []
        # Cross-check the printed GB/s against the JSON's Gb/s.
        try:
            with open(jpath) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            job["notes"].append("no readable --json file (%s)" % e)
            return
        if data.get("fidelity") not in (None, job["fidelity"]):
            job["notes"].append("JSON fidelity is %r, asked for %r"
                                % (data.get("fidelity"), job["fidelity"]))
        for r in data.get("results", []):
            s = r.get("size")
            if s in job["busbw"] and "busbw_gbps" in r:
                gbytes = r["busbw_gbps"] / 8.0
                if abs(gbytes - job["busbw"][s]) > 0.006 + 1e-4 * gbytes:
                    job["notes"].append("%s: printed busbw %.2f GB/s but JSON %.4f Gb/s (= %.3f GB/s)"
                                        % (size_label(s), job["busbw"][s], r["busbw_gbps"], gbytes))
        inv = data.get("invariants", {})
        if inv and not inv.get("ok", True):
            job["notes"].append("invariants not ok")


def build_jobs(args):
    pairs = QUICK_PAIRS if args.quick else FULL_PAIRS
    skip = set(tuple(s.split(":", 1)) for s in args.skip)
    pairs = [p for p in pairs if p not in skip]
    sizes_text = QUICK_SIZES if args.quick else FULL_SIZES
    sizes = [parse_size(s) for s in sizes_text]
    qps_list = QUICK_QPS if args.quick else QPS
    seed = ["--seed=%d" % args.seed]
    groups = []  # one per table row group
    jobs = []

    def add(job):
        job["id"] = len(jobs)
        jobs.append(job)
        return job

    for op, algo in pairs:
        for uplinks in FABRICS:
            for qps in qps_list:
                argv = ["--gpus=64", "--op=" + op, "--algo=" + algo, "--uplinks=%d" % uplinks,
                        "--sizes=" + ",".join(sizes_text)] + qps_args(qps) + seed
                group = dict(op=op, algo=algo, uplinks=uplinks, qps=qps, sizes=sizes, runs={})
                for fid in FIDELITIES:
                    group["runs"][fid] = add(dict(
                        name="%s %s uplinks=%d qps=%d" % (op, algo, uplinks, qps),
                        argv=argv, fidelity=fid, sizes=sizes,
                        cost=cost(op, algo, uplinks, qps, fid, sizes)))
                groups.append(group)

    findings = []
    size64 = parse_size("64M")
    base_a = ["--gpus=32", "--fabric-gpus=64", "--uplinks=8", "--background=1", "--sizes=64M"]
    base_b = ["--gpus=64", "--sizes=64M"]
    specs = [
        ("placement (a)", "fragmented / contiguous (32 of 64 GPUs, 2:1, background job)",
         base_a + ["--placement=fragmented"], base_a + ["--placement=contiguous"]),
        ("QP scaling (b)", "8 QPs rr / 1 QP (64 GPUs, non-blocking, allreduce ring)",
         base_b + ["--qps=8", "--qp-mode=rr"], base_b + ["--qps=1"]),
    ]
    for title, what, num, den in specs:
        f = dict(title=title, what=what, runs={})
        for fid in FIDELITIES:
            f["runs"][fid] = (
                add(dict(name="%s numerator %s" % (title, " ".join(num)), argv=num + seed,
                         fidelity=fid, sizes=[size64], cost=50 if fid == "packet" else 1)),
                add(dict(name="%s denominator %s" % (title, " ".join(den)), argv=den + seed,
                         fidelity=fid, sizes=[size64], cost=50 if fid == "packet" else 1)))
        findings.append(f)
    return groups, findings, jobs


def cost(op, algo, uplinks, qps, fid, sizes):
    """A guess of a run's wall time, only to start the long ones first."""
    c = sum(sizes) / float(1 << 20)
    if fid == "packet":
        c *= 20
    if op == "alltoall" or algo == "hd":
        c *= 4
    if qps > 1:
        c *= 2
    if uplinks < 16:
        c *= 1.5
    return c


def fmt(x, spec="%.2f"):
    return "n/a" if x is None else spec % x


def rst_grid_table(header, rows, wrap=36, header_wrap=12):
    """A reStructuredText grid table; long cells wrap onto several lines."""
    def lines_of(cell, width):
        text = str(cell).replace("\n", " ")
        return textwrap.wrap(text, width, break_long_words=False,
                             break_on_hyphens=False) or [""]

    table = ([[lines_of(c, header_wrap) for c in header]]
             + [[lines_of(c, wrap) for c in row] for row in rows])
    ncol = len(header)
    widths = [max(len(l) for row in table for l in row[i]) for i in range(ncol)]

    def border(ch):
        return "+" + "+".join(ch * (w + 2) for w in widths) + "+"

    out = [border("-")]
    for n, row in enumerate(table):
        height = max(len(c) for c in row)
        for k in range(height):
            out.append("|" + "|".join(
                " " + (row[i][k] if k < len(row[i]) else "").ljust(widths[i]) + " "
                for i in range(ncol)) + "|")
        out.append(border("=" if n == 0 else "-"))
    out.append("")
    return out


def dev_pct(p, f):
    if p is None or f is None or p == 0:
        return None
    return (f / p - 1.0) * 100.0


def outcome_cell(run):
    if run["status"] == "refused":
        return "refused: " + run["message"]
    return "FAILED: " + run.get("message", "?")


def report(args, groups, findings, jobs, total_wall, runner):
    lines = []
    title = "Flow level vs packet level: %s" % PROGRAM
    lines += [title, "=" * len(title), ""]
    lines.append("Generated by ``utils/flow-validation.py%s`` with ``%s`` (seed %d), "
                 "%d runs at -j %d in %.0f s (%.1f min). busbw in GB/s as the program prints it; "
                 "wall times are each whole run (every size of its row), measured with "
                 "``time.monotonic()``%s."
                 % (" " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else "",
                    runner.program, args.seed, len(jobs), args.jobs, total_wall, total_wall / 60,
                    " while %d runs shared the machine" % args.jobs if args.jobs > 1 else ""))
    lines.append("")

    # --- table 1
    header = ["Op", "Algo", "Fabric", "QPs", "Size", "Packet busbw (GB/s)",
              "Flow busbw (GB/s)", "Flow/packet - 1 (%)", "Packet wall (s)", "Flow wall (s)"]
    rows = []
    cells = []  # (uplinks, dev, group, size, p, f)
    for g in groups:
        p, f = g["runs"]["packet"], g["runs"]["flow"]
        ident = [g["op"], g["algo"], fabric_label(g["uplinks"]), qps_label(g["qps"])]
        pw, fw = fmt(p.get("wall"), "%.1f"), fmt(f.get("wall"), "%.1f")
        if p["status"] != "ok" and f["status"] != "ok" and p.get("message") == f.get("message"):
            rows.append(ident + ["all", outcome_cell(p), outcome_cell(f), "", pw, fw])
            continue
        for s in g["sizes"]:
            pb = p["busbw"][s] if p["status"] == "ok" else None
            fb = f["busbw"][s] if f["status"] == "ok" else None
            d = dev_pct(pb, fb)
            if d is not None:
                cells.append((g["uplinks"], d, g, s, pb, fb))
            rows.append(ident + [size_label(s),
                                 fmt(pb) if pb is not None else outcome_cell(p),
                                 fmt(fb) if fb is not None else outcome_cell(f),
                                 fmt(d, "%+.2f"), pw, fw])
    lines += ["Collectives at 64 GPUs", "-" * 22, ""]
    lines += rst_grid_table(header, rows)

    # --- table 2
    header2 = ["Finding", "Ratio", "Packet (GB/s)", "Packet ratio", "Flow (GB/s)",
               "Flow ratio", "Flow - packet", "Wall packet / flow (s)"]
    rows2 = []
    ratio_summary = []
    s64 = parse_size("64M")
    for fnd in findings:
        vals = {}
        cells2 = {}
        walls = {}
        for fid in FIDELITIES:
            num, den = fnd["runs"][fid]
            walls[fid] = sum(r.get("wall", 0.0) for r in (num, den))
            if num["status"] == "ok" and den["status"] == "ok":
                a, b = num["busbw"][s64], den["busbw"][s64]
                vals[fid] = a / b if b else None
                cells2[fid] = "%.2f / %.2f" % (a, b)
            else:
                bad = num if num["status"] != "ok" else den
                vals[fid] = None
                cells2[fid] = outcome_cell(bad)
        diff = (vals["flow"] - vals["packet"]
                if vals["packet"] is not None and vals["flow"] is not None else None)
        rel = (diff / vals["packet"] * 100 if diff is not None and vals["packet"] else None)
        rows2.append([fnd["title"], fnd["what"], cells2["packet"], fmt(vals["packet"], "%.3f"),
                      cells2["flow"], fmt(vals["flow"], "%.3f"),
                      "n/a" if diff is None else "%+.3f (%+.1f %%)" % (diff, rel),
                      "%.1f / %.1f" % (walls["packet"], walls["flow"])])
        ratio_summary.append((fnd["title"], vals, diff))
    lines += ["Meta's findings as ratios (64 MiB, allreduce ring)", "-" * 51, ""]
    lines += rst_grid_table(header2, rows2, wrap=30)

    # --- summary
    lines += ["Summary", "-" * 7, ""]
    for uplinks in FABRICS:
        big = [c for c in cells if c[0] == uplinks and c[3] >= LARGE]
        if not big:
            lines.append("- %s, sizes >= 64 MiB: no cell with both fidelities"
                         % fabric_label(uplinks))
            continue
        worst = max(big, key=lambda c: abs(c[1]))
        _, d, g, s, pb, fb = worst
        lines.append("- %s, sizes >= 64 MiB: largest \\|flow/packet - 1\\| = %.2f %% "
                     "(%s %s, %s QP(s), %s: packet %.2f, flow %.2f GB/s; %d cells)"
                     % (fabric_label(uplinks), abs(d), g["op"], g["algo"], qps_label(g["qps"]),
                        size_label(s), pb, fb, len(big)))
    over = sorted((c for c in cells if c[3] >= LARGE and abs(c[1]) > args.tolerance),
                  key=lambda c: -abs(c[1]))
    if over:
        lines.append("- cells >= 64 MiB beyond +/-%g %%: " % args.tolerance + "; ".join(
            "%s %s %s %s %s %+.2f %%" % (c[2]["op"], c[2]["algo"], fabric_label(c[0]),
                                         qps_label(c[2]["qps"]), size_label(c[3]), c[1])
            for c in over))
    else:
        lines.append("- no cell >= 64 MiB beyond +/-%g %%" % args.tolerance)
    allsmall = [c for c in cells if c[3] < LARGE]
    if allsmall:
        w = max(allsmall, key=lambda c: abs(c[1]))
        lines.append("- sizes < 64 MiB: largest \\|flow/packet - 1\\| = %.2f %% (%s %s, %s, %s "
                     "QP(s), %s)" % (abs(w[1]), w[2]["op"], w[2]["algo"], fabric_label(w[0]),
                                     qps_label(w[2]["qps"]), size_label(w[3])))
    for title, vals, diff in ratio_summary:
        lines.append("- %s ratio: packet %s, flow %s, difference %s"
                     % (title, fmt(vals["packet"], "%.3f"), fmt(vals["flow"], "%.3f"),
                        fmt(diff, "%+.3f")))
    slow = []
    for g in groups:
        p, f = g["runs"]["packet"], g["runs"]["flow"]
        if p["status"] == "ok" and f["status"] == "ok" and f["wall"] > p["wall"]:
            slow.append("%s %s %s %s QP(s): packet %.2f s, flow %.2f s"
                        % (g["op"], g["algo"], fabric_label(g["uplinks"]), qps_label(g["qps"]),
                           p["wall"], f["wall"]))
    for fnd in findings:
        for i, which in enumerate(("numerator", "denominator")):
            p, f = fnd["runs"]["packet"][i], fnd["runs"]["flow"][i]
            if p["status"] == "ok" and f["status"] == "ok" and f["wall"] > p["wall"]:
                slow.append("%s %s: packet %.2f s, flow %.2f s"
                            % (fnd["title"], which, p["wall"], f["wall"]))
    lines.append("- flow runs slower than their packet run: "
                 + ("; ".join(slow) if slow else "none"))
    pw = sum(j.get("wall", 0.0) for j in jobs if j["fidelity"] == "packet")
    fw = sum(j.get("wall", 0.0) for j in jobs if j["fidelity"] == "flow")
    lines.append("- summed wall time: packet %.1f s, flow %.1f s (%.1fx); elapsed %.1f s"
                 % (pw, fw, pw / fw if fw else float("nan"), total_wall))
    refused = [j for j in jobs if j["status"] == "refused"]
    failed = [j for j in jobs if j["status"] == "failed"]
    lines.append("- runs: %d ok, %d refused, %d failed"
                 % (len(jobs) - len(refused) - len(failed), len(refused), len(failed)))
    for j in refused:
        lines.append("- refused: %s [%s]: %s" % (j["name"], j["fidelity"], j["message"]))
    for j in failed:
        lines.append("- FAILED: ``%s``: %s" % (j.get("command", j["name"]), j["message"]))
    for j in jobs:
        for n in j.get("notes", []):
            lines.append("- note: %s [%s]: %s" % (j["name"], j["fidelity"], n))
    retried = [j for j in jobs if j.get("attempts", 1) > 1]
    for j in retried:
        lines.append("- retried %d times (build in progress): %s [%s]"
                     % (j["attempts"] - 1, j["name"], j["fidelity"]))
    # Which build each run loaded: the program and librocev2.so as they were when it started.
    versions = []
    for j in sorted((j for j in jobs if "build" in j), key=lambda j: j["started"]):
        if j["build"][0] not in versions:
            versions.append(j["build"][0])

    def describe(v):
        return ", ".join("%s %s" % (os.path.basename(p), time.strftime(
            "%H:%M:%S", time.localtime(m / 1e9)) if m else "absent") for p, _, m in v)

    if len(versions) == 1:
        lines.append("- build: " + describe(versions[0]) + " (file modification times)")
    elif len(versions) > 1:
        lines.append("- WARNING: the build changed while the matrix ran; %d builds were used: %s"
                     % (len(versions), "; ".join(
                         "#%d (%s): %d runs" % (n + 1, describe(v), sum(
                             1 for j in jobs if j.get("build", (None,))[0] == v))
                         for n, v in enumerate(versions))))
        mixed = [g for g in groups if "build" in g["runs"]["packet"] and "build" in g["runs"]["flow"]
                 and g["runs"]["packet"]["build"][0] != g["runs"]["flow"]["build"][0]]
        if mixed:
            lines.append("- WARNING: packet and flow ran on different builds in %d of %d row "
                         "groups: %s" % (len(mixed), len(groups), "; ".join(
                             "%s %s %s %s QP(s)" % (g["op"], g["algo"], fabric_label(g["uplinks"]),
                                                   qps_label(g["qps"])) for g in mixed)))
    changed = [j for j in jobs if "build" in j and j["build"][0] != j["build"][1]]
    if changed:
        lines.append("- note: the build was replaced while these ran (each kept the files it "
                     "loaded): " + "; ".join("%s [%s]" % (j["name"], j["fidelity"])
                                              for j in changed))
    lines.append("")
    return "\n".join(lines), bool(failed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--quick", action="store_true", help="a small matrix")
    parser.add_argument("--out", help="also write the reStructuredText here")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="parallel runs [1]")
    parser.add_argument("--skip", action="append", default=[], metavar="OP:ALGO",
                        help="leave this op and algorithm out (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=3600, help="per run, seconds [3600]")
    parser.add_argument("--tolerance", type=float, default=5.0,
                        help="list cells >= 64 MiB beyond this |flow/packet - 1| in %% [5]")
    parser.add_argument("--build-wait", type=int, default=1200,
                        help="retry a run that cannot load for this long, seconds [1200]")
    parser.add_argument("--retry-wait", type=int, default=15)
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("-j must be at least 1")
    for s in args.skip:
        if ":" not in s:
            parser.error("--skip takes OP:ALGO, not %r" % s)

    runner = Runner(args)
    if not os.path.exists(runner.program):
        sys.exit("flow-validation: no program %s (--build-dir?)" % runner.program)
    groups, findings, jobs = build_jobs(args)
    runner.total = len(jobs)
    order = sorted(jobs, key=lambda j: -j["cost"])
    runner.log("%d runs, -j %d" % (len(jobs), args.jobs))
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(runner.run, order))
    total_wall = time.monotonic() - start
    text, failed = report(args, groups, findings, jobs, total_wall, runner)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    for name in os.listdir(runner.tmp):
        os.unlink(os.path.join(runner.tmp, name))
    os.rmdir(runner.tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
