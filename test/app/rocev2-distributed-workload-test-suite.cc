/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Workloads in the mode MPI runs use, in one process: RoceFctStats'
 * Distributed runs the all-done callback NotifyDelay after the last flow
 * (every rank learns of the others' last flow that much later), also when
 * a rank has no flow of its own, and leaves every FCT as it was; the apps
 * of nodes that run on another rank reserve their flows' QP numbers, as
 * every rank does, and post nothing. (mpi/determinism runs the same workload on
 * 1, 2 and 4 ranks.)
 */
#include "ns3/boolean.h"
#include "ns3/node-container.h"
#include "ns3/roce-fct-stats.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-rank-call.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/roce-workload-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/** Four hosts on one switch, 100 Gb/s links of 1 us. */
struct Star
{
    NodeContainer hosts{4}; //!< the hosts
    NodeContainer sw{1};    //!< the switch

    Star()
    {
        RoceSwitchHelper().Install(sw);
        RoceHelper roce;
        roce.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        for (uint32_t h = 0; h < hosts.GetN(); ++h)
        {
            roce.Install(hosts.Get(h), sw.Get(0));
        }
        RoceSwitchHelper::PopulateRoutes();
    }
};

/**
 * \param src first sender \param dst first receiver \param bytes its size
 * \param src2 second sender \param dst2 second receiver \param bytes2 its size
 * \param start2 the second flow's start
 * \return the two flows (the first at time 0)
 */
std::vector<RoceFlowSpec>
TwoFlows(uint32_t src,
         uint32_t dst,
         uint64_t bytes,
         uint32_t src2,
         uint32_t dst2,
         uint64_t bytes2,
         Time start2)
{
    std::vector<RoceFlowSpec> flows(2);
    flows[0].src = src;
    flows[0].dst = dst;
    flows[0].bytes = bytes;
    flows[1].src = src2;
    flows[1].dst = dst2;
    flows[1].bytes = bytes2;
    flows[1].start = start2;
    return flows;
}

/** What a run of the two-flow workload leaves. */
struct DoneRun
{
    int64_t doneNs{-1};        //!< when the all-done callback ran (-1: never)
    uint32_t doneCalls{0};     //!< how often it ran
    int64_t lastNs{0};         //!< the last completion
    std::vector<int64_t> fcts; //!< FCT of each record, ns, in record order
};

/**
 * \param distributed RoceFctStats' Distributed
 * \param notify its NotifyDelay
 * \param withFlows false: install no flow
 * \return the run
 */
DoneRun
RunTwoFlows(bool distributed, Time notify, bool withFlows)
{
    Star s;
    Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
    stats->SetAttribute("Distributed", BooleanValue(distributed));
    stats->SetAttribute("NotifyDelay", TimeValue(notify));
    DoneRun r;
    stats->SetAllDoneCallback(Callback<void>([&r]() {
        r.doneNs = Simulator::Now().GetNanoSeconds();
        ++r.doneCalls;
    }));
    const std::vector<RoceFlowSpec> flows = TwoFlows(0, 1, 100000, 2, 3, 300000, MicroSeconds(5));
    RoceWorkloadHelper().Install(s.hosts, withFlows ? flows : std::vector<RoceFlowSpec>(), stats);
    Simulator::Run();
    for (const RoceFctRecord& rec : stats->GetRecords())
    {
        r.lastNs = std::max(r.lastNs, (rec.start + rec.fct).GetNanoSeconds());
        r.fcts.push_back(rec.fct.GetNanoSeconds());
    }
    Simulator::Destroy();
    return r;
}

/**
 * With Distributed the all-done callback runs once, NotifyDelay after the
 * last flow's completion; without, at it. The FCTs are the same.
 */
class AllDoneTestCase : public TestCase
{
  public:
    AllDoneTestCase()
        : TestCase("Distributed: all done NotifyDelay after the last flow, FCTs unchanged")
    {
    }

  private:
    void DoRun() override
    {
        const DoneRun plain = RunTwoFlows(false, MicroSeconds(3), true);
        const DoneRun dist = RunTwoFlows(true, MicroSeconds(3), true);
        NS_TEST_ASSERT_MSG_EQ(plain.fcts.size(), 2, "both flows recorded");
        NS_TEST_ASSERT_MSG_GT(plain.lastNs, 5000, "the second flow ends after its start");
        NS_TEST_EXPECT_MSG_EQ(plain.doneCalls, 1, "plain: all done once");
        NS_TEST_EXPECT_MSG_EQ(plain.doneNs, plain.lastNs, "plain: at the last completion");
        NS_TEST_EXPECT_MSG_EQ(dist.doneCalls, 1, "Distributed: all done once");
        NS_TEST_EXPECT_MSG_EQ(dist.doneNs,
                              plain.lastNs + 3000,
                              "Distributed: NotifyDelay after the last completion");
        NS_TEST_EXPECT_MSG_EQ((dist.fcts == plain.fcts), true, "the same FCTs");
    }
};

/** A rank without flows of its own is done from time 0. */
class NoFlowsTestCase : public TestCase
{
  public:
    NoFlowsTestCase()
        : TestCase("Distributed: a rank without flows is done NotifyDelay after time 0")
    {
    }

  private:
    void DoRun() override
    {
        const DoneRun dist = RunTwoFlows(true, MicroSeconds(3), false);
        NS_TEST_EXPECT_MSG_EQ(dist.doneCalls, 1, "all done once");
        NS_TEST_EXPECT_MSG_EQ(dist.doneNs, 3000, "at NotifyDelay");
        const DoneRun plain = RunTwoFlows(false, MicroSeconds(3), false);
        NS_TEST_EXPECT_MSG_EQ(plain.doneCalls, 0, "plain: never, no flow finishes");
    }
};

/**
 * The flows of nodes that run on another rank: their QP numbers are
 * reserved at the flows' starts, as the sender's rank takes them (so QP
 * numbers agree), no QP object is made, and nothing is posted or expected
 * here.
 */
class OtherRankTestCase : public TestCase
{
  public:
    OtherRankTestCase()
        : TestCase("flows of another rank's nodes are connected, not posted")
    {
    }

  private:
    void DoRun() override
    {
        Star s;
        Ptr<RoceFctStats> stats = CreateObject<RoceFctStats>();
        const std::vector<RoceFlowSpec> flows =
            TwoFlows(0, 1, 100000, 0, 2, 100000, MicroSeconds(2));
        // Every node is on rank 0; this process plays rank 1.
        RoceRankCall::SetRank(1);
        RoceWorkloadHelper().Install(s.hosts, flows, stats);
        Simulator::Run();
        RoceRankCall::SetRank(0);
        Ptr<RoceNetDevice> src = RoceHelper::GetNic(s.hosts.Get(0));
        NS_TEST_EXPECT_MSG_EQ(stats->GetExpected(), 0, "no flow of this rank expected");
        NS_TEST_EXPECT_MSG_EQ(stats->GetRecords().size(), 0, "none recorded");
        NS_TEST_EXPECT_MSG_EQ(src->GetNQps(), 0, "no QP object on a NIC of another rank");
        NS_TEST_EXPECT_MSG_EQ(src->GetNReservedQpns(), 2, "the sender's two numbers reserved");
        NS_TEST_EXPECT_MSG_EQ(RoceHelper::GetNic(s.hosts.Get(1))->GetNReservedQpns(),
                              1,
                              "receiver 1's number");
        NS_TEST_EXPECT_MSG_EQ(RoceHelper::GetNic(s.hosts.Get(2))->GetNReservedQpns(),
                              1,
                              "receiver 2's number");
        NS_TEST_EXPECT_MSG_EQ(src->GetTxFrames(), 0, "nothing was sent");
        Simulator::Destroy();
    }
};

/** The suite. */
class RoceDistributedWorkloadTestSuite : public TestSuite
{
  public:
    RoceDistributedWorkloadTestSuite()
        : TestSuite("rocev2-distributed-workload", Type::UNIT)
    {
        AddTestCase(new AllDoneTestCase, RoceTestDuration::QUICK);
        AddTestCase(new NoFlowsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new OtherRankTestCase, RoceTestDuration::QUICK);
    }
};

/** The instance. */
static RoceDistributedWorkloadTestSuite g_rocev2DistributedWorkloadTestSuite;

} // namespace
