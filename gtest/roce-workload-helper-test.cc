/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceWorkloadHelper refuses flows it cannot install, naming the flow, the
 * field and the value, and writes HPCC flow files in that lineage's layout.
 */

#include "roce-gtest-error.h"

#include "ns3/node-container.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-size-cdf.h"
#include "ns3/roce-workload-helper.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/** \return a flow */
RoceFlowSpec
Flow(uint32_t src, uint32_t dst, uint64_t bytes = 1000)
{
    RoceFlowSpec f;
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    return f;
}

} // namespace

TEST(WorkloadHelper, InstallRefusesBadFlows)
{
    NodeContainer nodes(3);
    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    RoceWorkloadHelper h;
    EXPECT_ROCE_ERROR(h.Install(nodes, {Flow(0, 1), Flow(3, 1)}, stats),
                      "flow 1: src 3 is not below the 3 nodes given");
    EXPECT_ROCE_ERROR(h.Install(nodes, {Flow(0, 7)}, stats),
                      "flow 0: dst 7 is not below the 3 nodes");
    EXPECT_ROCE_ERROR(h.Install(nodes, {Flow(0, 1), Flow(1, 2), Flow(2, 2)}, stats),
                      "flow 2: src and dst are both 2");
    EXPECT_ROCE_ERROR(h.Install(nodes, {Flow(0, 1, 0)}, stats), "flow 0: bytes 0");
    RoceFlowSpec prio = Flow(0, 1);
    prio.priority = 8;
    EXPECT_ROCE_ERROR(h.Install(nodes, {prio}, stats), "flow 0: priority 8 is not in 0..7");
    // A node without a NIC is named too.
    EXPECT_ROCE_ERROR(h.Install(nodes, {Flow(0, 1)}, stats), "node 0 has no NIC #0");
}

TEST(WorkloadHelper, PoissonOverNodesUsesOnlyThoseNodes)
{
    // Three hosts at node indexes 3, 7 and 11 (switches elsewhere): every
    // flow runs between two different ones of them, and the arrivals,
    // sizes and host choices are those of Poisson over 3 hosts.
    std::istringstream in("1000 0\n1000 50\n100000 100\n");
    const RoceSizeCdf cdf = RoceSizeCdf::Parse(in, "test cdf");
    const std::vector<uint32_t> hosts{3, 7, 11};
    const auto generate = [&cdf](const auto& over) {
        return RoceWorkloadHelper::Poisson(over,
                                           cdf,
                                           0.5,
                                           DataRate("100Gbps"),
                                           Seconds(1),
                                           MicroSeconds(500),
                                           9);
    };
    const auto byIndex = generate(3u);
    const auto byNode = generate(hosts);
    // The count is Poisson with mean lambda T = load x hosts x rate x T /
    // (8 x mean size); 5 standard deviations (sqrt of the mean) either side.
    const double mean = 0.5 * 3 * 100e9 * 500e-6 / (8 * cdf.Mean());
    ASSERT_GT(mean, 100.0);
    EXPECT_NEAR(static_cast<double>(byNode.size()), mean, 5 * std::sqrt(mean));
    ASSERT_EQ(byNode.size(), byIndex.size());
    std::set<uint32_t> used;
    for (size_t i = 0; i < byNode.size(); ++i)
    {
        EXPECT_NE(byNode[i].src, byNode[i].dst);
        EXPECT_EQ(byNode[i].src, hosts[byIndex[i].src]);
        EXPECT_EQ(byNode[i].dst, hosts[byIndex[i].dst]);
        EXPECT_EQ(byNode[i].bytes, byIndex[i].bytes);
        EXPECT_EQ(byNode[i].start, byIndex[i].start);
        used.insert(byNode[i].src);
        used.insert(byNode[i].dst);
    }
    EXPECT_EQ(used, (std::set<uint32_t>{3, 7, 11}));
}

TEST(WorkloadHelper, WritesHpccFlowFile)
{
    RoceFlowSpec a = Flow(288, 259, 1295359);
    a.start = NanoSeconds(2000001507);
    RoceFlowSpec b = Flow(1, 0, 7);
    b.priority = 5;
    b.dport = 4791;
    b.start = NanoSeconds(12);
    std::ostringstream os;
    RoceWorkloadHelper::WriteHpccFlowFile(os, {a, b});
    EXPECT_EQ(os.str(), "2\n288 259 3 100 1295359 2.000001507\n1 0 5 4791 7 0.000000012\n");
}

TEST(WorkloadHelper, IncastAndPermutationRefuseBadInput)
{
    EXPECT_ROCE_ERROR(RoceWorkloadHelper::Incast({1, 2, 3}, 2, 10, Seconds(0)),
                      "the receiver 2 is also a sender");
    EXPECT_ROCE_ERROR(RoceWorkloadHelper::Permutation(1, 10, Seconds(0), 1), "at least 2 hosts");
}
