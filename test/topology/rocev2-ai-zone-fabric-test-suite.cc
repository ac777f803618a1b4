/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AI Zones as fabrics: PFC hop by hop across three tiers, ECMP balance on 2- and 3-tier zones.
 */
#include "ns3/test.h"

using namespace ns3;

/**
 * \ingroup rocev2
 * AI Zones as fabrics: PFC hop by hop across three tiers, ECMP balance on 2- and 3-tier zones.
 */
class RoceAiZoneFabricTestSuite : public TestSuite
{
  public:
    RoceAiZoneFabricTestSuite()
        : TestSuite("rocev2-ai-zone-fabric", SYSTEM)
    {
    }
};

static RoceAiZoneFabricTestSuite g_roceAiZoneFabricTestSuite; //!< static instance
