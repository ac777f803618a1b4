#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fuzz the input readers of ns3-rocev2 with their libFuzzer harnesses.

Each harness build-sanitize/fuzz/rocev2-fuzz-NAME (fuzz/rocev2-fuzz-NAME.cc)
feeds one input format to its reader. This tool runs each harness named (all
if none is) for --seconds, one after another or --parallel at once, on a
working copy of its seed corpus:

    build-sanitize/fuzz-corpus/NAME/     seeded from fuzz/corpus/NAME/ (never
                                         written), then grown by libFuzzer
    build-sanitize/fuzz-artifacts/NAME/  the inputs that crashed (crash-*,
                                         leak-*, timeout-*, oom-*)
    build-sanitize/fuzz-logs/NAME.log    libFuzzer's output

and prints one line per harness: executions, executions per second, corpus
size (seeds -> after), and FOUND or clean. It exits 1 if a harness found a
crash, naming the input; reproduce it with

    build-sanitize/fuzz/rocev2-fuzz-NAME ARTIFACT

(ROCEV2_FUZZ_VERBOSE=1 also prints the RoceError each input gets). An unknown
NAME exits with status 2 and the list of names. Only the Python standard
library is used. `./rocev2 fuzz` builds the harnesses and then calls this tool.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

# The harnesses, and what each reads.
HARNESSES = {
    "hpcc-topology": "HPCC-lineage topology files (RoceHpccFormat::ReadTopology)",
    "hpcc-flows": "HPCC-lineage flow files (RoceHpccFormat::ReadFlows)",
    "hpcc-config": "HPCC-lineage config files (RoceHpccConfig::Read, Apply)",
    "fault-file": "fault files, --faults=FILE (RoceFaultHelper::Load)",
    "job-file": "job files, --job=FILE (RoceJobHelper::Parse)",
    "chakra-et": "Chakra execution traces (RoceChakraTrace::Read, MakeGraph)",
    "chakra-groups": "Chakra replay process-group files, --groups=FILE",
    "command-line": "the examples' --flag=value parsers and --ns3::Roce*::Attr=value",
}

# libFuzzer's names for the inputs it saves when something goes wrong.
ARTIFACT_PREFIXES = ("crash-", "leak-", "timeout-", "oom-")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Fuzz the ns3-rocev2 input readers (libFuzzer harnesses of fuzz/).")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="harnesses to run (default: all): " + ", ".join(HARNESSES))
    p.add_argument("--seconds", type=int, default=60,
                   help="fuzzing time per harness (default 60)")
    p.add_argument("--parallel", type=int, default=1,
                   help="harnesses fuzzed at once (default 1)")
    p.add_argument("--timeout", type=int, default=10,
                   help="seconds one input may take before it counts as a hang (default 10)")
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   help="the source folder (default: this tool's repository)")
    p.add_argument("--build-dir", help="the sanitizer build folder (default: ROOT/build-sanitize)")
    p.add_argument("--list", action="store_true", help="list the harnesses and exit")
    p.add_argument("--check", action="store_true",
                   help="only check the arguments and names (status 2 if wrong)")
    args = p.parse_args(argv)
    if args.seconds < 1:
        p.error("--seconds must be at least 1")
    if args.parallel < 1:
        p.error("--parallel must be at least 1")
    if args.timeout < 1:
        p.error("--timeout must be at least 1")
    args.build_dir = args.build_dir or os.path.join(args.root, "build-sanitize")
    return args


def print_list():
    for name, what in HARNESSES.items():
        print(f"  {name:<15} {what}")


def files_of(folder):
    """The regular files of a folder (none if it does not exist)."""
    if not os.path.isdir(folder):
        return []
    return [f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))]


def sanitizer_env():
    """The environment of a harness: sanitizer reports with function names and lines."""
    env = dict(os.environ)
    if "ASAN_SYMBOLIZER_PATH" not in env:
        for name in ("llvm-symbolizer-15", "llvm-symbolizer"):
            path = shutil.which(name)
            if path:
                env["ASAN_SYMBOLIZER_PATH"] = path
                break
    return env


def stat(log, key):
    """A -print_final_stats value of libFuzzer's output, or None."""
    m = re.findall(r"^stat::%s:\s*(\d+)" % re.escape(key), log, re.M)
    return int(m[-1]) if m else None


def fuzz_one(name, args):
    """Fuzz one harness; return its result line's fields."""
    exe = os.path.join(args.build_dir, "fuzz", "rocev2-fuzz-" + name)
    seeds = os.path.join(args.root, "fuzz", "corpus", name)
    corpus = os.path.join(args.build_dir, "fuzz-corpus", name)
    artifacts = os.path.join(args.build_dir, "fuzz-artifacts", name)
    logs = os.path.join(args.build_dir, "fuzz-logs")
    for d in (corpus, artifacts, logs):
        os.makedirs(d, exist_ok=True)
    # The working copy: the seeds (again, in case one changed) and what earlier runs found.
    for f in files_of(seeds):
        shutil.copyfile(os.path.join(seeds, f), os.path.join(corpus, f))
    before = len(files_of(corpus))
    known = set(files_of(artifacts))
    cmd = [exe, f"-max_total_time={args.seconds}", f"-timeout={args.timeout}",
           "-print_final_stats=1", f"-artifact_prefix={artifacts}/", corpus]
    log_path = os.path.join(logs, name + ".log")
    with open(log_path, "w") as log_file:
        log_file.write("$ " + " ".join(cmd) + "\n")
        log_file.flush()
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT,
                                cwd=args.build_dir, env=sanitizer_env())
        status = proc.wait()
    # A harness that crashed left its input file (the artifact holds a copy).
    for folder in ("/dev/shm", os.environ.get("TMPDIR") or "/tmp"):
        for f in glob.glob(os.path.join(folder, f"rocev2-fuzz-*-{proc.pid}.*")):
            os.remove(f)
    with open(log_path, errors="replace") as log_file:
        log = log_file.read()
    execs = stat(log, "number_of_executed_units")
    per_sec = stat(log, "average_exec_per_sec")
    if execs is None:
        # No final statistics (a crash): the last status line, "#N ... exec/s: X".
        m = re.findall(r"^#(\d+)\s.*?exec/s: (\d+)", log, re.M)
        if m:
            execs, per_sec = int(m[-1][0]), int(m[-1][1])
    new = sorted(f for f in set(files_of(artifacts)) - known if f.startswith(ARTIFACT_PREFIXES))
    return {
        "name": name,
        "execs": execs,
        "per_sec": per_sec,
        "before": before,
        "after": len(files_of(corpus)),
        "status": status,
        "found": [os.path.join(artifacts, f) for f in new],
        "log": log_path,
    }


def main(argv):
    args = parse_args(argv)
    if args.list:
        print_list()
        return 0
    unknown = [n for n in args.names if n not in HARNESSES]
    if unknown:
        print(f"rocev2-fuzz: unknown harness(es): {', '.join(unknown)}", file=sys.stderr)
        print("Known harnesses:", file=sys.stderr)
        for name in HARNESSES:
            print("  " + name, file=sys.stderr)
        return 2
    names = args.names or list(HARNESSES)
    if args.check:
        return 0
    missing = [n for n in names
               if not os.access(os.path.join(args.build_dir, "fuzz", "rocev2-fuzz-" + n), os.X_OK)]
    if missing:
        print(f"rocev2-fuzz: not built in {args.build_dir}/fuzz: " + ", ".join(missing) +
              " (./rocev2 fuzz builds them)", file=sys.stderr)
        return 2

    print(f"fuzzing {len(names)} harness(es), {args.seconds} s each, {args.parallel} at once",
          flush=True)
    print(f"{'harness':<15} {'executions':>11} {'exec/s':>8} {'corpus':>13}  result", flush=True)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for r in pool.map(lambda n: fuzz_one(n, args), names):
            corpus = f"{r['before']} -> {r['after']}"
            if r["found"]:
                result = "FOUND " + " ".join(os.path.relpath(f, args.root) for f in r["found"])
            elif r["status"] != 0:
                result = f"FOUND (exit {r['status']}, no artifact; see {r['log']})"
            else:
                result = "clean"
            execs = "?" if r["execs"] is None else str(r["execs"])
            per_sec = "?" if r["per_sec"] is None else str(r["per_sec"])
            print(f"{r['name']:<15} {execs:>11} {per_sec:>8} {corpus:>13}  {result}", flush=True)
            results.append(r)
    bad = [r for r in results if r["found"] or r["status"] != 0]
    if bad:
        print(f"rocev2-fuzz: {len(bad)} harness(es) found a crash; reproduce with "
              f"{os.path.relpath(args.build_dir, args.root)}/fuzz/rocev2-fuzz-NAME ARTIFACT "
              "(the log of each is in fuzz-logs/)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
