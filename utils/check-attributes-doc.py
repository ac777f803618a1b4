#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that doc/rocev2-attributes.rst is what rocev2-attributes prints.

    check-attributes-doc.py --program build/bin/rocev2-attributes --doc doc/rocev2-attributes.rst

The file lists every attribute and trace source of the module's TypeIds; it is
generated, never edited. Passes when the file equals the program's output;
otherwise prints a unified diff (file -> program) and the command that
regenerates the file. The program runs twice: its output must not change
between runs either (no addresses, no unordered containers).
"""

import argparse
import difflib
import subprocess
import sys


def run(program):
    proc = subprocess.run([program], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-2000:] + proc.stderr[-2000:])
        raise SystemExit("check-attributes-doc: FAIL: %s exited with status %d"
                         % (program, proc.returncode))
    return proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--doc", required=True)
    args = parser.parse_args()

    first, second = run(args.program), run(args.program)
    if first != second:
        sys.stdout.writelines(difflib.unified_diff(
            first.splitlines(True), second.splitlines(True), "first run", "second run"))
        print("check-attributes-doc: FAIL: two runs of %s print different text" % args.program)
        return 1
    try:
        with open(args.doc, encoding="utf-8") as f:
            current = f.read()
    except OSError as e:
        current = ""
        print("check-attributes-doc: cannot read %s: %s" % (args.doc, e.strerror))
    if current == first:
        print("check-attributes-doc: OK: %s is up to date (%d lines)"
              % (args.doc, first.count("\n")))
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        current.splitlines(True), first.splitlines(True), args.doc, "rocev2-attributes output"))
    print("check-attributes-doc: FAIL: %s is out of date with the TypeIds." % args.doc)
    print("Regenerate it with:  ./rocev2 attributes --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
