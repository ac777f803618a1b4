/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion control on one bottleneck: N-flow fairness as flows join and leave, and RTT
 * unfairness, for every algorithm.
 */
#include "ns3/test.h"

using namespace ns3;

/**
 * \ingroup rocev2
 * Congestion control on one bottleneck: N-flow fairness as flows join and leave, and RTT
 * unfairness, for every algorithm.
 */
class RoceCcDynamicsTestSuite : public TestSuite
{
  public:
    RoceCcDynamicsTestSuite()
        : TestSuite("rocev2-cc-dynamics", SYSTEM)
    {
    }
};

static RoceCcDynamicsTestSuite g_roceCcDynamicsTestSuite; //!< static instance
