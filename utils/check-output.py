#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a program's exit status and what it prints on stdout and stderr.

    check-output.py [--status N | --fails] [--stdout TEXT]... [--stderr TEXT]...
                    [--no-stderr TEXT]... [--output TEXT]... -- PROGRAM [ARGS...]

Passes when PROGRAM exits with status N (default 0; --fails: any non-zero
status, as NS_ABORT_MSG gives), its stdout contains every --stdout TEXT, its
stderr every --stderr TEXT and no --no-stderr TEXT, and stdout and stderr
together every --output TEXT (plain strings, not regular expressions). A
program that does not know one of its flags fails the check, naming the
flag: a renamed flag must not turn a check into one that passes unchecked.

    check-output.py --self-test PROGRAM

runs the check on PROGRAM --no-such-flag=1 and passes only if it fails and
names that flag.
"""

import argparse
import re
import subprocess
import sys


def self_test(program):
    """The check must fail on a flag the program does not know, naming it."""
    proc = subprocess.run([sys.executable, __file__, "--", program, "--no-such-flag=1"],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode == 1 and "--no-such-flag=1" in proc.stdout and \
            "does not accept one of its flags" in proc.stdout:
        print("check-output: self-test: OK: an unknown flag fails the check")
        return 0
    print("check-output: self-test: FAIL: exit %d for an unknown flag; output: %s" %
          (proc.returncode, proc.stdout[-500:]))
    return 1


def main():
    if sys.argv[1:2] == ["--self-test"] and len(sys.argv) == 3:
        return self_test(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--fails", action="store_true", help="any non-zero status")
    parser.add_argument("--output", action="append", default=[])
    parser.add_argument("--stdout", action="append", default=[])
    parser.add_argument("--stderr", action="append", default=[])
    parser.add_argument("--no-stderr", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        parser.error("no program given")

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("check-output: FAIL: %s did not end within %g s" % (" ".join(cmd), args.timeout))
        return 1
    if "Invalid command-line argument" in proc.stdout + proc.stderr:
        m = re.search(r"Invalid command-line argument[^\n]*", proc.stdout + proc.stderr)
        print("check-output: FAIL: %s does not accept one of its flags (%s)" %
              (" ".join(cmd), m.group(0).strip()))
        return 1
    problems = []
    if args.fails and proc.returncode == 0:
        problems.append("exit status 0, expected a failure")
    elif not args.fails and proc.returncode != args.status:
        problems.append("exit status %d, expected %d" % (proc.returncode, args.status))
    output = proc.stdout + proc.stderr
    problems += ["output lacks '%s'" % t for t in args.output if t not in output]
    problems += ["stdout lacks '%s'" % t for t in args.stdout if t not in proc.stdout]
    problems += ["stderr lacks '%s'" % t for t in args.stderr if t not in proc.stderr]
    problems += ["stderr has '%s'" % t for t in args.no_stderr if t in proc.stderr]
    if problems:
        print("check-output: FAIL: %s: %s" % (" ".join(cmd), "; ".join(problems)))
        sys.stdout.write("--- stdout:\n" + proc.stdout[-2000:] + "--- stderr:\n" +
                         proc.stderr[-2000:])
        return 1
    print("check-output: OK: %s" % " ".join(cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
