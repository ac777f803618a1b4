/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives on rails and NVLink against closed-form bandwidth bounds, and collectives under loss
 * and link flaps.
 */
#include "ns3/test.h"

using namespace ns3;

/**
 * \ingroup rocev2
 * Collectives on rails and NVLink against closed-form bandwidth bounds, and collectives under loss
 * and link flaps.
 */
class RoceCollectiveBoundsTestSuite : public TestSuite
{
  public:
    RoceCollectiveBoundsTestSuite()
        : TestSuite("rocev2-collective-bounds", SYSTEM)
    {
    }
};

static RoceCollectiveBoundsTestSuite g_roceCollectiveBoundsTestSuite; //!< static instance
