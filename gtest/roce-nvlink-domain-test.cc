/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNvlinkDomain refuses misuse with a message that names the attribute or
 * argument and its value: NGpus 0, DataRate 0, a GPU out of range, a GPU
 * sending to itself, NGpus changed after a transfer, a second domain on a node.
 */

#include "roce-gtest-error.h"

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <map>
#include <utility>
#include <vector>

using namespace ns3;

TEST(NvlinkDomainErrorTest, ZeroAttributes)
{
    EXPECT_ROCE_ERROR(CreateObject<RoceNvlinkDomain>()->SetAttribute("NGpus", UintegerValue(0)),
                      "RoceNvlinkDomain: NGpus=0 must be at least 1");
    EXPECT_ROCE_ERROR(
        CreateObject<RoceNvlinkDomain>()->SetAttribute("DataRate", DataRateValue(DataRate(0))),
        "RoceNvlinkDomain: DataRate=0bps must be positive");
}

TEST(NvlinkDomainErrorTest, BadSend)
{
    EXPECT_ROCE_ERROR(CreateObject<RoceNvlinkDomain>()->Send(2, 2, 100),
                      "srcGpu=dstGpu=2: a GPU does not send to itself");
    EXPECT_ROCE_ERROR(CreateObject<RoceNvlinkDomain>()->Send(0, 8, 100),
                      "dstGpu=8 out of range 0..7 \\(NGpus=8\\)");
    EXPECT_ROCE_ERROR(CreateObject<RoceNvlinkDomain>()->Send(9, 0, 100),
                      "srcGpu=9 out of range 0..7 \\(NGpus=8\\)");
}

TEST(NvlinkDomainErrorTest, NGpusFixedOnceSent)
{
    auto resizeAfterSend = []() {
        Ptr<RoceNvlinkDomain> d = CreateObject<RoceNvlinkDomain>();
        d->Send(0, 1, 100);
        d->SetAttribute("NGpus", UintegerValue(4));
    };
    EXPECT_ROCE_ERROR(resizeAfterSend(),
                      "NGpus=4 cannot replace NGpus=8 after transfers were sent");
    Simulator::Destroy();
}

TEST(NvlinkDomainErrorTest, InstallTwice)
{
    auto installTwice = []() {
        Ptr<Node> n = CreateObject<Node>();
        RoceNvlinkDomain::Install(n, 8);
        RoceNvlinkDomain::Install(n, 8);
    };
    EXPECT_ROCE_ERROR(installTwice(), "already has a scale-up domain");
    Simulator::Destroy();
}

// SendWithCookie: one callback serves every transfer and is called with each
// transfer's own cookie, once, at the time Send would deliver it; Send keeps
// calling back with the id.
TEST(NvlinkDomain, CookieComesBackOncePerTransfer)
{
    Ptr<RoceNvlinkDomain> d = CreateObject<RoceNvlinkDomain>();
    std::vector<std::pair<uint64_t, Time>> got;
    Callback<void, uint64_t> done(
        [&got](uint64_t cookie) { got.emplace_back(cookie, Simulator::Now()); });
    std::vector<uint64_t> ids;
    // Three concurrent copies out of GPU 0 (they share its egress port), one
    // from 1 to 2, and an empty one.
    ids.push_back(d->SendWithCookie(0, 1, 450000, done, 1000));
    ids.push_back(d->SendWithCookie(0, 2, 450000, done, 1001));
    ids.push_back(d->SendWithCookie(0, 3, 450000, done, 1002));
    ids.push_back(d->SendWithCookie(1, 2, 900000, done, 1003));
    ids.push_back(d->SendWithCookie(4, 5, 0, done, 1004));
    uint64_t plainId = 99;
    uint64_t plain =
        d->Send(6, 7, 450000, Callback<void, uint64_t>([&plainId](uint64_t id) { plainId = id; }));
    Simulator::Run();
    EXPECT_EQ(ids, (std::vector<uint64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(plain, 5u);
    EXPECT_EQ(plainId, 5u);
    ASSERT_EQ(got.size(), 5u);
    std::map<uint64_t, Time> at;
    for (const auto& g : got)
    {
        EXPECT_TRUE(at.emplace(g.first, g.second).second) << "cookie " << g.first << " twice";
    }
    // 450 kB at 450 GB/s alone takes 1 us. The three from GPU 0 share its
    // egress port at 150 GB/s each (3 us); 1->2 gets the 300 GB/s of GPU 2's
    // ingress they leave, so its 900 kB also take 3 us. Delivery adds the
    // 1 us Latency.
    EXPECT_EQ(at.at(1000), MicroSeconds(4));
    EXPECT_EQ(at.at(1001), MicroSeconds(4));
    EXPECT_EQ(at.at(1002), MicroSeconds(4));
    EXPECT_EQ(at.at(1004), MicroSeconds(1));
    EXPECT_EQ(at.at(1003), MicroSeconds(4));
    Simulator::Destroy();
}

// A copy that starts without moving the next last byte (it shares no port
// with the copy that ends first, and ends later) leaves the pending
// last-byte event in place: nothing is cancelled and rescheduled, and the
// event keeps its place among the events of its tick (doc/rocev2.rst,
// "NVLink / NVSwitch scale-up domain").
TEST(NvlinkDomain, ACopyThatLeavesTheNextLastByteKeepsItsEvent)
{
    Simulator::Destroy();
    Ptr<RoceNvlinkDomain> d = CreateObject<RoceNvlinkDomain>();
    std::map<uint64_t, Time> delivered;
    Callback<void, uint64_t> done(
        [&delivered](uint64_t cookie) { delivered.emplace(cookie, Simulator::Now()); });
    // 450 kB from GPU 0 to 1 at 450 GB/s: its last byte leaves at 1 us.
    d->SendWithCookie(0, 1, 450000, done, 1);
    // At 0.5 us, 900 kB from GPU 2 to 3 on ports of their own: 2 us, so its
    // last byte leaves at 2.5 us, after the first copy's.
    Simulator::Schedule(NanoSeconds(500), [&]() { d->SendWithCookie(2, 3, 900000, done, 2); });
    Simulator::Run();
    // Delivery adds the 1 us Latency.
    EXPECT_EQ(delivered.at(1), MicroSeconds(2));
    EXPECT_EQ(delivered.at(2), NanoSeconds(3500));
    // The start at 0.5 us, two last bytes, two deliveries. A cancelled and
    // rescheduled last-byte event would still be counted when its time came
    // (ns-3 counts cancelled events): 6.
    EXPECT_EQ(Simulator::GetEventCount(), 5u);
    Simulator::Destroy();
}
