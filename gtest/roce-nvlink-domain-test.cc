/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNvlinkDomain refuses misuse with a message that names the attribute or
 * argument and its value: NGpus 0, DataRate 0, a GPU out of range, a GPU
 * sending to itself, NGpus changed after a transfer, a second domain on a node.
 */

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(NvlinkDomainDeathTest, ZeroAttributes)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(CreateObject<RoceNvlinkDomain>()->SetAttribute("NGpus", UintegerValue(0)),
                 "RoceNvlinkDomain: NGpus=0 must be at least 1");
    EXPECT_DEATH(
        CreateObject<RoceNvlinkDomain>()->SetAttribute("DataRate", DataRateValue(DataRate(0))),
        "RoceNvlinkDomain: DataRate=0bps must be positive");
}

TEST(NvlinkDomainDeathTest, BadSend)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(CreateObject<RoceNvlinkDomain>()->Send(2, 2, 100),
                 "srcGpu=dstGpu=2: a GPU does not send to itself");
    EXPECT_DEATH(CreateObject<RoceNvlinkDomain>()->Send(0, 8, 100),
                 "dstGpu=8 out of range 0..7 \\(NGpus=8\\)");
    EXPECT_DEATH(CreateObject<RoceNvlinkDomain>()->Send(9, 0, 100),
                 "srcGpu=9 out of range 0..7 \\(NGpus=8\\)");
}

TEST(NvlinkDomainDeathTest, NGpusFixedOnceSent)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto resizeAfterSend = []() {
        Ptr<RoceNvlinkDomain> d = CreateObject<RoceNvlinkDomain>();
        d->Send(0, 1, 100);
        d->SetAttribute("NGpus", UintegerValue(4));
    };
    EXPECT_DEATH(resizeAfterSend(), "NGpus=4 cannot replace NGpus=8 after transfers were sent");
    Simulator::Destroy();
}

TEST(NvlinkDomainDeathTest, InstallTwice)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto installTwice = []() {
        Ptr<Node> n = CreateObject<Node>();
        RoceNvlinkDomain::Install(n, 8);
        RoceNvlinkDomain::Install(n, 8);
    };
    EXPECT_DEATH(installTwice(), "already has a scale-up domain");
    Simulator::Destroy();
}
