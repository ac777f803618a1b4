#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the module's folder layering, read from the #include lines.

    check-layers.py [--root REPO] [--print]
    check-layers.py --self-test

The module's folders (model/<stage>/, helper/<concern>/) depend on each
other one way (doc/rocev2.rst, "Architecture"):
  1. nothing in model/ includes a header of helper/;
  2. the graph of folders (an edge F -> G when a file of F includes a header
     of G) has no cycle: a capability can be read, built and tested with the
     folders below it only;
  3. no two classes' files include each other's headers (a two-way include
     hides a cycle inside an otherwise layered graph), except an owner and
     its child that calls it back (OWNER_CHILD).
--print writes the folder graph, one folder and what it needs per line.
--self-test plants each fault in a scratch repository and passes only if
every one is reported.

Exit status 0 when all hold, 1 otherwise. Only the standard library is used.
"""

import argparse
import os
import re
import subprocess
import sys

# An owner holds its children and a child calls its owner back: the one kind of
# two-way include the module keeps.
OWNER_CHILD = {
    ("roce-channel", "roce-pfc-net-device"),  # a link and the two devices on it
    ("roce-net-device", "roce-queue-pair"),   # a NIC and its queue pairs
    ("roce-switch", "roce-switch-port"),      # a switch and its ports
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:ns3/)?(?:[./a-z-]*/)?(roce-[a-z0-9-]+\.h)"', re.M)


def sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "model", "helper"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if f.endswith((".h", ".cc"))]


def check(root, show=False):
    """The failures of the tree at root (a list of messages)."""
    files = sources(root)
    where = {os.path.basename(f): os.path.dirname(f) for f in files if f.endswith(".h")}
    includes = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            includes[f] = [h for h in INCLUDE.findall(fh.read()) if h in where]
    failures = []
    graph = {}
    for f, hs in includes.items():
        src = os.path.dirname(f)
        for h in hs:
            dst = where[h]
            if dst == src:
                continue
            graph.setdefault(src, set()).add(dst)
            if src.startswith("model/") and dst.startswith("helper/"):
                failures.append("%s includes %s (helper/): model code must not need a helper"
                                % (f, h))
    # 3. two-way includes between two classes' files (a class's files are
    # roce-x.h, roce-x.cc and roce-x-PART.cc beside them)
    units = {os.path.splitext(h)[0] for h in where}

    def unit(f):
        name = os.path.splitext(os.path.basename(f))[0]
        while name not in units and "-" in name:
            name = name.rsplit("-", 1)[0]
        return name

    needs = {}
    for f, hs in includes.items():
        for h in hs:
            if unit(f) != os.path.splitext(h)[0]:
                needs.setdefault(unit(f), set()).add(os.path.splitext(h)[0])
    for u, vs in sorted(needs.items()):
        for v in sorted(vs):
            if v > u and u in needs.get(v, set()) and (u, v) not in OWNER_CHILD:
                failures.append("%s and %s include each other" % (u, v))
    # 2. cycles in the folder graph (depth-first search)
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                failures.append("folder cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(set(graph) | {d for ds in graph.values() for d in ds}):
        if n not in state:
            visit(n)
    if show:
        for n in sorted(set(where.values())):
            print("%-20s needs %s" % (n, ", ".join(sorted(graph.get(n, ()))) or "nothing"))
    return failures, len(set(where.values())), len(files)


def self_test():
    """Plant a model file that needs a helper, two classes that include each
    other and a folder cycle; every one must be reported."""
    import tempfile
    planted = {
        "model/a/roce-a.h": '#include "ns3/roce-h.h"\n',
        "helper/h/roce-h.h": '#include "ns3/roce-a.h"\n',
        "model/b/roce-b.h": '#include "ns3/roce-c.h"\n',
        "model/c/roce-c.cc": '#include "roce-c.h"\n#include "../b/roce-b.h"\n',
        "model/c/roce-c.h": "",
    }
    expected = ["includes roce-h.h (helper/)", "roce-a and roce-h include each other",
                "roce-b and roce-c include each other", "folder cycle"]
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in planted.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w", encoding="utf-8") as f:
                f.write(text)
        subprocess.run(["git", "-C", tmp, "init", "-q"], check=True)
        subprocess.run(["git", "-C", tmp, "add", "."], check=True)
        failures = check(tmp)[0]
    missed = [e for e in expected if not any(e in f for f in failures)]
    for m in missed:
        print("check-layers: self-test: FAIL: no report of '%s' (got %s)" % (m, failures))
    if not missed:
        print("check-layers: self-test: OK: %d planted faults reported" % len(expected))
    return 1 if missed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    parser.add_argument("--print", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    a = parser.parse_args()
    if a.self_test:
        return self_test()
    failures, folders, files = check(a.root, a.print)
    for f in failures:
        print("check-layers: FAIL: " + f)
    if failures:
        return 1
    print("check-layers: OK: %d folders, %d files, no cycle" % (folders, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
