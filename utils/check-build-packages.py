#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check that `./rocev2 build` on a machine without ns-3's packages says to run setup.

    check-build-packages.py --cli ./rocev2

Copies the rocev2 script into a scratch folder (so it has no build folder and
must configure) and runs `build` there with a fake dpkg-query and a fake cmake
first on PATH:
  - dpkg-query reports libns3-dev and ninja-build as not installed: build must
    exit non-zero, name both packages and './rocev2 setup' on stderr, and
    never call cmake (whose own message would be "ns3Config.cmake not found");
  - dpkg-query reports every package installed: build must go on to cmake.
"""

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile

FAKE_DPKG = """#!/bin/sh
# dpkg-query -W -f=FORMAT PACKAGE: 'ii ' when installed, an error otherwise.
for last in "$@"; do :; done
case " $MISSING " in
  *" $last "*) echo "dpkg-query: no packages found matching $last" >&2; exit 1 ;;
esac
printf 'ii '
"""

FAKE_CMAKE = """#!/bin/sh
echo "$@" >> "$CMAKE_CALLS"
exit 1
"""


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()

    failures = []
    with tempfile.TemporaryDirectory(prefix="rocev2-check-") as tmp:
        root = os.path.join(tmp, "repo")
        fake = os.path.join(tmp, "bin")
        os.makedirs(root)
        os.makedirs(fake)
        shutil.copy(args.cli, os.path.join(root, "rocev2"))
        # The script sources the MPI build's functions from utils/.
        os.makedirs(os.path.join(root, "utils"), exist_ok=True)
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(args.cli)), "utils", "rocev2-mpi.sh"),
                    os.path.join(root, "utils", "rocev2-mpi.sh"))
        write_exe(os.path.join(fake, "dpkg-query"), FAKE_DPKG)
        write_exe(os.path.join(fake, "cmake"), FAKE_CMAKE)
        calls = os.path.join(tmp, "cmake-calls")

        for missing, expect_hint in (("libns3-dev ninja-build", True), ("", False)):
            if os.path.exists(calls):
                os.remove(calls)
            env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""),
                       MISSING=missing, CMAKE_CALLS=calls)
            proc = subprocess.run([os.path.join(root, "rocev2"), "build", "-j", "1"], env=env,
                                  capture_output=True, text=True, timeout=60)
            called = os.path.exists(calls)
            what = "missing '%s'" % missing if missing else "nothing missing"
            if expect_hint:
                problems = []
                if proc.returncode == 0:
                    problems.append("exited with status 0")
                for word in missing.split() + ["./rocev2 setup"]:
                    if word not in proc.stderr:
                        problems.append("stderr lacks '%s'" % word)
                if called:
                    problems.append("called cmake anyway")
            else:
                problems = [] if called else ["never called cmake"]
                if "./rocev2 setup' first" in proc.stderr:
                    problems.append("asked for setup although nothing is missing")
            if problems:
                failures.append(what)
                print("check-build-packages: FAIL (%s): %s" % (what, "; ".join(problems)))
                sys.stdout.write(proc.stdout[-1500:] + proc.stderr[-1500:])
            else:
                print("check-build-packages: OK (%s)" % what)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
