/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Standalone ns-3 test runner for the rocev2 module. In an ns-3 source tree
 * the suites link into ns-3's own test-runner instead.
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
