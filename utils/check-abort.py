#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that a program rejects bad input with a clear message.

    check-abort.py --expect TEXT -- PROGRAM [ARGS...]

Passes when PROGRAM exits with a non-zero status (NS_ABORT_MSG aborts) and its
output contains TEXT (a plain string, not a regular expression). A program that
does not know one of the command-line flags given is reported as skipped
(exit 77), so checks can be registered before the flag exists.
"""

import argparse
import subprocess
import sys

SKIP = 77


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect", required=True, help="text the output must contain")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        parser.error("no program given")

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("check-abort: FAIL: %s did not end within %g s" % (" ".join(cmd), args.timeout))
        return 1
    output = proc.stdout + proc.stderr
    if "Invalid command-line argument" in output:
        print("check-abort: SKIPPED: %s does not accept one of its flags" % " ".join(cmd))
        return SKIP
    ok = True
    if proc.returncode == 0:
        print("check-abort: FAIL: %s exited with status 0" % " ".join(cmd))
        ok = False
    if args.expect not in output:
        print("check-abort: FAIL: output lacks '%s'" % args.expect)
        ok = False
    if not ok:
        sys.stdout.write(output[-2000:])
        return 1
    print("check-abort: OK (status %d, '%s')" % (proc.returncode, args.expect))
    return 0


if __name__ == "__main__":
    sys.exit(main())
