/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HPCC on a multi-hop leaf-spine with cross traffic: near-zero queues and fairness.
 */
#include "ns3/test.h"

using namespace ns3;

/**
 * \ingroup rocev2
 * HPCC on a multi-hop leaf-spine with cross traffic: near-zero queues and fairness.
 */
class RoceHpccFabricTestSuite : public TestSuite
{
  public:
    RoceHpccFabricTestSuite()
        : TestSuite("rocev2-hpcc-fabric", SYSTEM)
    {
    }
};

static RoceHpccFabricTestSuite g_roceHpccFabricTestSuite; //!< static instance
