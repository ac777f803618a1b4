#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run ns3-rocev2 benchmark scenarios and report their timings.

A scenario is an entry of bench/scenarios.json:

    {"two-hosts": {"cmd": ["rocev2-two-hosts", "--size=100000000"],
                   "description": "..."}}

cmd[0] is a program of the build folder (examples/, bench/ or bin/), the rest
its arguments. Each run is timed with /usr/bin/time -v. The program reports its
counters on stdout as lines

    BENCH sim_time_s=0.01
    BENCH events=12345 packet_hops=6789

(several key=value pairs may share a line). For every scenario the tool reports
the median/min/max wall seconds over the runs, the peak RSS, the median of
every counter, and packet_hops_per_s = median packet_hops / median wall
seconds. With --json the same results are written as a JSON object keyed by
scenario.

Only the Python standard library is used. `./rocev2 bench` builds the programs
and then calls this tool.
"""

import argparse
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCENARIOS = os.path.join(HERE, "scenarios.json")
DEFAULT_BUILD_DIR = os.path.join(os.path.dirname(HERE), "build")
PROGRAM_DIRS = ("examples", "bench", "bin")
TIME_TOOL = "/usr/bin/time"

BENCH_LINE = re.compile(r"^\s*BENCH\s+(.*)$")
PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)=(\S+)")
RSS_LINE = re.compile(r"Maximum resident set size \(kbytes\):\s*(\d+)")


class BenchError(Exception):
    """A user-facing error: bad scenario file, unknown name, missing program."""


def load_scenarios(path):
    """Read and validate the scenario file; return {name: {"cmd": [...], ...}}."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise BenchError(f"cannot read scenario file {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BenchError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}")
    if not isinstance(data, dict) or not data:
        raise BenchError(f"{path}: expected a non-empty JSON object keyed by scenario name")
    for name, entry in data.items():
        where = f"{path}: scenario '{name}'"
        if not isinstance(entry, dict):
            raise BenchError(f"{where}: expected an object with 'cmd' and 'description'")
        cmd = entry.get("cmd")
        if (
            not isinstance(cmd, list)
            or not cmd
            or not all(isinstance(a, str) and a for a in cmd)
        ):
            raise BenchError(f"{where}: 'cmd' must be a non-empty list of strings")
        if "/" in cmd[0]:
            raise BenchError(f"{where}: cmd[0] must be a program name, not a path: {cmd[0]}")
        if not isinstance(entry.get("description", ""), str):
            raise BenchError(f"{where}: 'description' must be a string")
    return data


def select(scenarios, names, path):
    """The scenario names to run, in the order given (all of them if none)."""
    if not names:
        return list(scenarios)
    unknown = [n for n in names if n not in scenarios]
    if unknown:
        raise BenchError(
            f"unknown scenario{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"known scenarios in {path}: {', '.join(scenarios)}"
        )
    return list(dict.fromkeys(names))


def find_program(build_dir, program):
    for sub in PROGRAM_DIRS:
        candidate = os.path.join(build_dir, sub, program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise BenchError(
        f"program '{program}' not found in {', '.join(PROGRAM_DIRS)} under {build_dir}; "
        "build it first (./rocev2 build)"
    )


def parse_number(text):
    try:
        value = float(text)
    except ValueError:
        return text
    if math.isfinite(value) and value == int(value) and re.fullmatch(r"[-+]?\d+", text):
        return int(value)
    return value


def parse_counters(stdout):
    """All `BENCH key=value` pairs of one run; a key seen twice keeps its last value."""
    counters = {}
    for line in stdout.splitlines():
        m = BENCH_LINE.match(line)
        if not m:
            continue
        for key, value in PAIR.findall(m.group(1)):
            counters[key] = parse_number(value)
    return counters


def run_once(exe, args, verbose):
    """One timed run: returns (wall seconds, peak RSS in MB or None, counters)."""
    with tempfile.NamedTemporaryFile(prefix="rocev2-bench-", suffix=".time") as tf:
        cmd = [TIME_TOOL, "-v", "-o", tf.name, exe] + args
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        with open(tf.name, encoding="utf-8", errors="replace") as f:
            time_report = f.read()
    if verbose:
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        # /usr/bin/time reports a child killed by signal N as exit status 128 + N.
        m = re.search(r"Command terminated by signal (\d+)", time_report)
        if m:
            sig = int(m.group(1))
            try:
                how = f"was killed by signal {sig} ({signal.Signals(sig).name})"
            except ValueError:
                how = f"was killed by signal {sig}"
        else:
            how = f"exited with status {proc.returncode}"
        raise BenchError(
            f"'{' '.join([os.path.basename(exe)] + args)}' {how}" + (f":\n{tail}" if tail else "")
        )
    m = RSS_LINE.search(time_report)
    rss_mb = int(m.group(1)) / 1024.0 if m else None
    return wall, rss_mb, parse_counters(proc.stdout)


def summarize(name, entry, runs):
    """Aggregate the runs of one scenario into the reported record."""
    walls = [w for w, _, _ in runs]
    rss = [r for _, r, _ in runs if r is not None]
    keys = []
    for _, _, counters in runs:
        keys += [k for k in counters if k not in keys]
    counters = {}
    for key in keys:
        values = [c[key] for _, _, c in runs if key in c]
        numbers = [v for v in values if isinstance(v, (int, float))]
        if len(numbers) == len(values):
            med = statistics.median(numbers)
            counters[key] = int(med) if float(med).is_integer() and all(
                isinstance(v, int) for v in numbers) else med
        else:
            counters[key] = values[-1]
        if len(values) != len(runs):
            print(f"warning: {name}: counter '{key}' printed in {len(values)} of "
                  f"{len(runs)} runs", file=sys.stderr)

    wall_median = statistics.median(walls)
    hops = counters.get("packet_hops")
    events = counters.get("events")
    sim_time = counters.get("sim_time_s")
    numeric = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    return {
        "description": entry.get("description", ""),
        "cmd": entry["cmd"],
        "runs": len(runs),
        "wall_s_median": wall_median,
        "wall_s_min": min(walls),
        "wall_s_max": max(walls),
        "wall_s_all": walls,
        "rss_mb": max(rss) if rss else None,
        "sim_time_s": sim_time,
        "events": events,
        "packet_hops": hops,
        "packet_hops_per_s": hops / wall_median if numeric(hops) and wall_median > 0 else None,
        "events_per_s": events / wall_median if numeric(events) and wall_median > 0 else None,
        "wall_s_per_sim_ms": (
            wall_median / (sim_time * 1000.0) if numeric(sim_time) and sim_time > 0 else None
        ),
        "counters": counters,
    }


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits}e}"
        return f"{value:.{digits}f}"
    return str(value)


def print_table(results):
    header = ["scenario", "runs", "wall med s", "min s", "max s", "RSS MB", "sim s",
              "events", "pkt hops", "hops/s", "wall s/sim ms"]
    rows = []
    for name, r in results.items():
        rows.append([name, str(r["runs"]), fmt(r["wall_s_median"]), fmt(r["wall_s_min"]),
                     fmt(r["wall_s_max"]), fmt(r["rss_mb"], 1), fmt(r["sim_time_s"]),
                     fmt(r["events"]), fmt(r["packet_hops"]), fmt(r["packet_hops_per_s"]),
                     fmt(r["wall_s_per_sim_ms"])])
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    line = lambda cells: "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))
    shown = {"sim_time_s", "events", "packet_hops"}
    for name, r in results.items():
        extra = {k: v for k, v in r["counters"].items() if k not in shown}
        if extra:
            print(f"{name}: " + "  ".join(f"{k}={fmt(v)}" for k, v in extra.items()))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="run-bench.py",
        description="Run ns3-rocev2 benchmark scenarios (bench/scenarios.json) several "
        "times and report wall time, peak RSS and the BENCH counters they print.",
    )
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="scenarios to run (default: all, in file order)")
    p.add_argument("--runs", type=int, default=3, metavar="N",
                   help="runs per scenario (default: 3)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    p.add_argument("--scenarios", default=DEFAULT_SCENARIOS, metavar="FILE",
                   help="scenario file (default: bench/scenarios.json)")
    p.add_argument("--build-dir", default=DEFAULT_BUILD_DIR, metavar="DIR",
                   help="build folder holding examples/ (default: build/)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--print-programs", action="store_true",
                   help="validate the arguments, print the programs the selected "
                   "scenarios need (one per line) and exit")
    p.add_argument("-v", "--verbose", action="store_true", help="print each run's output")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        scenarios = load_scenarios(args.scenarios)
        if args.list:
            width = max(len(n) for n in scenarios)
            for name, entry in scenarios.items():
                print(f"{name.ljust(width)}  {entry.get('description', '')}")
                print(f"{''.ljust(width)}  $ {' '.join(entry['cmd'])}")
            return 0
        names = select(scenarios, args.names, args.scenarios)
        if args.print_programs:
            for program in dict.fromkeys(scenarios[n]["cmd"][0] for n in names):
                print(program)
            return 0
        if not os.access(TIME_TOOL, os.X_OK):
            raise BenchError(f"{TIME_TOOL} not found; install Debian's 'time' package "
                             "(./rocev2 setup)")

        results = {}
        for name in names:
            cmd = scenarios[name]["cmd"]
            exe = find_program(args.build_dir, cmd[0])
            runs = []
            for i in range(args.runs):
                print(f"[bench] {name}: run {i + 1}/{args.runs}: {' '.join(cmd)}",
                      file=sys.stderr, flush=True)
                runs.append(run_once(exe, cmd[1:], args.verbose))
            results[name] = summarize(name, scenarios[name], runs)

        print_table(results)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(results, f, indent=2)
                f.write("\n")
            print(f"[bench] results written to {args.json}", file=sys.stderr)
        return 0
    except BenchError as e:
        print(f"run-bench.py: error: {e}", file=sys.stderr)
        return 2 if str(e).startswith("unknown scenario") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
