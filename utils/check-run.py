#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check `./rocev2 run FILE.cc|FOLDER`, the scratch/-style runner of users' programs.

    check-run.py first-simulation --cli ./rocev2 --readme README.md \\
        --program scratch/rocev2-first-simulation.cc [--debug]
    check-run.py programs --cli ./rocev2 --work DIR [--debug]

first-simulation: the program is README.md's "A first simulation" code block,
verbatim; running it prints what the paragraph after the block promises (each
`quoted` line, "twice" = two times); and its completion times obey the wire
arithmetic of two senders sharing the receiver's 100 Gb/s link.

programs: generates programs under DIR and checks that a folder's .cc files
link into one program that gets its arguments; that a second run compiles
nothing; that an edit recompiles only the edited file; that a compile error
is printed on stderr as file:line: error, makes the command fail, and never
runs the stale binary; and the same for a single broken .cc file.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import time

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("check-run: FAIL: " + message)


def run(cli, debug, target, args=(), cwd=None):
    cmd = [cli, "run"] + (["--debug"] if debug else []) + [target] + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd)
    return proc


def show(proc):
    sys.stdout.write("--- stdout:\n" + proc.stdout[-3000:] + "--- stderr:\n" + proc.stderr[-3000:])


# ----------------------------------------------------------------------------
# first-simulation


def readme_section(readme):
    """(code block, paragraph after it) of README.md's "A first simulation"."""
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## A first simulation\n(.*?)^```cpp\n(.*?)^```\n\n(.*?)\n\n", text,
                  re.M | re.S)
    if not m:
        raise SystemExit("check-run: cannot find the 'A first simulation' code block in " + readme)
    return m.group(2), m.group(3)


def promised_lines(paragraph):
    """{line: times} from "It prints `X` twice and `Y`: ..."."""
    words = {"once": 1, "twice": 2, "three times": 3, "four times": 4}
    promised = {}
    for m in re.finditer(r"`([^`]+)`(\s+(once|twice|three times|four times))?", paragraph):
        promised[m.group(1)] = words.get(m.group(3), 1)
    return promised


def check_first_simulation(args):
    code, paragraph = readme_section(args.readme)
    program = open(args.program, encoding="utf-8").read()
    if program != code:
        fail("%s is not README.md's 'A first simulation' code block, verbatim" % args.program)
    promised = promised_lines(paragraph)
    if not promised:
        fail("README.md promises no output after the first simulation's code block")

    proc = run(args.cli, args.debug, args.program)
    if proc.returncode != 0:
        show(proc)
        fail("'rocev2 run %s' exited with status %d" % (args.program, proc.returncode))
        return
    lines = proc.stdout.splitlines()
    for line, times in promised.items():
        got = lines.count(line)
        if got != times:
            fail("README.md promises '%s' %d time(s), the program printed it %d time(s)"
                 % (line, times, got))
        else:
            print("check-run: OK: '%s' printed %d time(s), as README.md says" % (line, times))

    # Physics of the program: senders 1 and 2 WRITE 1,000,000 B each to host 0
    # through one switch, 100 Gb/s links with 1 us delay, PayloadMtu 1024 (the
    # default). Both messages cross the receiver's link, so the later one
    # cannot complete before all their bytes are on that link, plus the data
    # propagation (2 links) and the ACK's way back (2 links):
    #   packets per message  p = ceil(1e6 / 1024) = 977
    #   wire bytes           1e6 + 82 p + 16 (82: Ethernet 14, IPv4 20, UDP 8,
    #                        BTH 12, ICRC 4, FCS 4, preamble+SFD+IFG 20; 16:
    #                        the RETH of the first packet)
    #   t_min = 2 x wire bytes x 8 / 100e9 + 4 x 1 us = 176.82 us
    # Round robin between the two ingress ports keeps both messages within a
    # packet of each other, so each completes between t_min and t_min plus a
    # few packet times (store-and-forward of the first packet on the sender
    # link and of the ACK: 2 x 1106 B x 8 / 100e9 = 0.18 us; slack 1 us). The
    # program prints whole microseconds, truncated.
    size, mtu, rate, delay_us = 1000000, 1024, 100e9, 1.0
    packets = math.ceil(size / mtu)
    wire = size + 82 * packets + 16
    t_min = 2 * wire * 8 / rate * 1e6 + 4 * delay_us
    low, high = math.floor(t_min), math.floor(t_min + 1.0)
    fcts = [(int(m.group(1)), int(m.group(2)))
            for m in (re.fullmatch(r"(\d+) B written in (\d+) us", l) for l in lines) if m]
    if len(fcts) != 2:
        fail("expected 2 completion lines, got %d" % len(fcts))
    for nbytes, us in fcts:
        if nbytes != size:
            fail("a completion reports %d B, the program wrote %d B" % (nbytes, size))
        if not low <= us <= high:
            fail("a completion took %d us, the wire allows %d..%d us (t_min %.2f us)"
                 % (us, low, high, t_min))
    if fcts and not FAILURES:
        print("check-run: OK: completions %s us within %d..%d us (t_min %.2f us)"
              % ([us for _, us in fcts], low, high, t_min))


# ----------------------------------------------------------------------------
# programs

FOLDER_MAIN = """\
#include "ns3/core-module.h"
#include "ns3/rocev2-module.h"

#include <iostream>

std::string Greeting();

int
main(int argc, char* argv[])
{
    uint32_t n = 0;
    ns3::CommandLine cmd;
    cmd.AddValue("n", "a number", n);
    cmd.Parse(argc, argv);
    std::cout << Greeting() << " " << n << " "
              << ns3::RoceNetDevice::GetTypeId().GetName() << "\\n";
    return 0;
}
"""

FOLDER_GREET = """\
#include <string>

std::string
Greeting()
{
    return "%s";
}
"""

# The error is on line 7 of the file: an undeclared name.
BROKEN = """\
#include "ns3/rocev2-module.h"

int
main()
{
    // The next line names nothing that exists.
    return rocev2_no_such_thing;
}
"""
BROKEN_LINE = 7

# A program that compiles with a warning (an unused parameter): users' programs
# get the warnings but, unlike the module's own build, not -Werror.
WARNS = """\
#include "ns3/core-module.h"

#include <iostream>

static int
Answer(int unused)
{
    return 42;
}

int
main()
{
    std::cout << "answer " << Answer(0) << std::endl;
    return 0;
}
"""


def edit(path, text):
    """Rewrite PATH, one second after the last build: file systems with
    one-second timestamps must see it as newer than the objects built before."""
    time.sleep(1.05)
    with open(path, "w") as f:
        f.write(text)


def expect_ok(proc, what, stdout):
    if proc.returncode != 0:
        show(proc)
        fail("%s: exited with status %d" % (what, proc.returncode))
    elif proc.stdout.strip() != stdout:
        show(proc)
        fail("%s: printed %r, expected %r" % (what, proc.stdout.strip(), stdout))
    else:
        print("check-run: OK: %s" % what)


def expect_compile_error(proc, what, file_name, line, stale_output=None):
    where = "%s:%d:" % (file_name, line)
    ok = True
    if proc.returncode == 0:
        fail("%s: exited with status 0" % what)
        ok = False
    if not re.search(re.escape(where) + r"\d+: error: ", proc.stderr):
        fail("%s: stderr lacks the compiler's '%sCOLUMN: error:'" % (what, where))
        ok = False
    if stale_output is not None and stale_output in proc.stdout:
        fail("%s: ran the previous, stale binary" % what)
        ok = False
    if ok:
        print("check-run: OK: %s (status %d, '%s... error:' on stderr)"
              % (what, proc.returncode, where))
    else:
        show(proc)


def check_programs(args):
    work = os.path.abspath(args.work)
    folder = os.path.join(work, "rocev2-check-run-folder")
    os.makedirs(folder, exist_ok=True)
    main_cc = os.path.join(folder, "main.cc")
    greet_cc = os.path.join(folder, "greet.cc")
    with open(main_cc, "w") as f:
        f.write(FOLDER_MAIN)
    with open(greet_cc, "w") as f:
        f.write(FOLDER_GREET % "hello")

    # 1. A folder: both files compile, link into one program, which gets --n.
    first = run(args.cli, args.debug, folder, ["--n=7"])
    expect_ok(first, "folder of two .cc files, with --n=7", "hello 7 ns3::RoceNetDevice")

    # 2. Nothing changed: nothing compiles or links.
    again = run(args.cli, args.debug, folder, ["--n=8"])
    expect_ok(again, "second run", "hello 8 ns3::RoceNetDevice")
    if "compiling" in again.stderr or "linking" in again.stderr:
        fail("second run of an unchanged program compiled or linked:\n" + again.stderr)
    else:
        print("check-run: OK: second run compiled and linked nothing")

    # 3. An edit of one file recompiles that file only.
    edit(greet_cc, FOLDER_GREET % "hi")
    edited = run(args.cli, args.debug, folder, ["--n=9"])
    expect_ok(edited, "run after editing greet.cc", "hi 9 ns3::RoceNetDevice")
    compiled = re.findall(r"compiling (\S+)", edited.stderr)
    if [os.path.basename(c) for c in compiled] != ["greet.cc"]:
        fail("after editing greet.cc, compiled %s (expected greet.cc only)" % compiled)
    else:
        print("check-run: OK: the edit recompiled greet.cc only")

    # 4. A compile error: the compiler's file:line on stderr, non-zero exit,
    #    and the program built before is not run.
    edit(main_cc, BROKEN)
    broken = run(args.cli, args.debug, folder, ["--n=10"])
    expect_compile_error(broken, "folder with a broken main.cc", main_cc, BROKEN_LINE,
                         stale_output="hi 10")
    # ... and again: a failed compilation leaves nothing to run.
    broken = run(args.cli, args.debug, folder, ["--n=11"])
    expect_compile_error(broken, "second run of the broken folder", main_cc, BROKEN_LINE,
                         stale_output="hi 11")

    # 5. A single broken file.
    single = os.path.join(work, "rocev2-check-run-broken.cc")
    with open(single, "w") as f:
        f.write(BROKEN)
    proc = run(args.cli, args.debug, single)
    expect_compile_error(proc, "single broken .cc", single, BROKEN_LINE)

    # 6. A warning is shown but does not stop the program.
    warns = os.path.join(work, "rocev2-check-run-warns.cc")
    with open(warns, "w") as f:
        f.write(WARNS)
    proc = run(args.cli, args.debug, warns)
    expect_ok(proc, "a program with a warning runs", "answer 42")
    if "unused" not in proc.stderr:
        show(proc)
        fail("a program with a warning: the compiler's warning is not on stderr")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["first-simulation", "programs"])
    parser.add_argument("--cli", required=True, help="the rocev2 script")
    parser.add_argument("--debug", action="store_true", help="use the Debug build")
    parser.add_argument("--readme")
    parser.add_argument("--program")
    parser.add_argument("--work", help="folder for the generated programs")
    args = parser.parse_args()
    if args.mode == "first-simulation":
        if not args.readme or not args.program:
            parser.error("first-simulation needs --readme and --program")
        check_first_simulation(args)
    else:
        if not args.work:
            parser.error("programs needs --work")
        check_programs(args)
    if FAILURES:
        print("check-run: %d failure(s)" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
