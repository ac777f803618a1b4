/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The port's line rate: the DataRate attribute is read once per frame from a
// cached bit rate, and a zero rate is refused (it would divide by zero in the
// serialization time).

#include "roce-gtest-error.h"

#include "ns3/data-rate.h"
#include "ns3/roce-net-device.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(RocePfcNetDevice, DataRateAttributeSetsTheCachedBitRate)
{
    Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
    EXPECT_EQ(dev->GetBitRate(), 100000000000ULL);
    dev->SetAttribute("DataRate", DataRateValue(DataRate("400Gbps")));
    EXPECT_EQ(dev->GetBitRate(), 400000000000ULL);
    EXPECT_EQ(dev->GetDataRate(), DataRate("400Gbps"));
    // 1,000 B frame: (1000 + 4 FCS + 20 preamble/IFG) B x 8 / 400 Gb/s = 20.48 ns.
    EXPECT_EQ(dev->TxTime(1000), PicoSeconds(20480));
}

TEST(RocePfcNetDevice, ZeroDataRateAborts)
{
    Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
    EXPECT_ROCE_ERROR(dev->SetAttribute("DataRate", DataRateValue(DataRate(0))),
                      "DataRate=0bps must be positive");
}
