/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceRankCall: a call to a node of this rank is an ordinary event in the
 * node's context (Schedule) or runs at once (Deliver); a call to a node of
 * another rank goes to the MPI transport with its run time, and one that
 * could not arrive in time (a delay within the lookahead), or with no
 * transport at all, is refused naming the node and its rank. A Distributed
 * communicator refuses what cannot run across ranks (ClearToSend, a
 * NotifyDelay within the lookahead).
 */

#include "roce-gtest-error.h"

#include "ns3/boolean.h"
#include "ns3/node.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-rank-call.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace ns3;

namespace
{

/** Destroys the simulation and removes any transport at the end of a test. */
struct RankCallScope
{
    ~RankCallScope()
    {
        RoceRankCall::SetTransport(RoceRankCall::Transport(), Time(0));
        Simulator::Destroy();
    }
};

} // namespace

TEST(RankCallTest, LocalScheduleRunsInTheNodesContextAndDeliverAtOnce)
{
    RankCallScope scope;
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    std::vector<std::pair<int64_t, uint32_t>> runs; // (time ns, context)
    std::vector<uint64_t> seen;
    const uint32_t svc = RoceRankCall::Register(
        RoceRankCall::Handler([&runs, &seen](const std::vector<uint64_t>& w) {
            runs.emplace_back(Simulator::Now().GetNanoSeconds(), Simulator::GetContext());
            seen.insert(seen.end(), w.begin(), w.end());
        }));
    Simulator::ScheduleWithContext(a->GetId(), MicroSeconds(1), [svc, b]() {
        RoceRankCall::Schedule(b->GetId(), MicroSeconds(3), svc, {7, 8});
    });
    RoceRankCall::Deliver(a->GetId(), svc, {5});
    ASSERT_EQ(runs.size(), 1u) << "Deliver to a local node runs at once";
    Simulator::Run();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].first, 4000) << "scheduled 3 us after the 1 us event";
    EXPECT_EQ(runs[1].second, b->GetId()) << "in the target node's context";
    EXPECT_EQ(seen, (std::vector<uint64_t>{5, 7, 8}));
    RoceRankCall::Unregister(svc);
    EXPECT_ROCE_ERROR(RoceRankCall::Deliver(a->GetId(), svc, {1}),
                      "service " + std::to_string(svc) + " is not registered on rank 0");
}

TEST(RankCallTest, RemoteCallsGoToTheTransportWithTheirRunTime)
{
    RankCallScope scope;
    Ptr<Node> local = CreateObject<Node>();
    Ptr<Node> remote = CreateObject<Node>(1);
    EXPECT_TRUE(RoceRankCall::IsLocal(local->GetId()));
    EXPECT_FALSE(RoceRankCall::IsLocal(remote->GetId()));
    const uint32_t svc = RoceRankCall::Register(RoceRankCall::Handler());
    EXPECT_ROCE_ERROR(RoceRankCall::Schedule(remote->GetId(), MicroSeconds(5), svc, {1}),
                      "node " + std::to_string(remote->GetId()) +
                          " is on rank 1, but this process has no MPI transport");

    struct Sent
    {
        uint32_t node, rank;
        int64_t at;
        uint32_t service;
        std::vector<uint64_t> words;
    };

    std::vector<Sent> sent;
    RoceRankCall::SetTransport(
        RoceRankCall::Transport(
            [&sent](uint32_t n, uint32_t r, Time at, uint32_t s, const std::vector<uint64_t>& w) {
                sent.push_back(Sent{n, r, at.GetNanoSeconds(), s, w});
            }),
        MicroSeconds(2));
    RoceRankCall::Schedule(remote->GetId(), MicroSeconds(5), svc, {1, 2});
    RoceRankCall::Deliver(remote->GetId(), svc, {3});
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0].node, remote->GetId());
    EXPECT_EQ(sent[0].rank, 1u);
    EXPECT_EQ(sent[0].at, 5000);
    EXPECT_EQ(sent[0].service, svc);
    EXPECT_EQ(sent[0].words, (std::vector<uint64_t>{1, 2}));
    EXPECT_EQ(sent[1].at, 0) << "a Deliver has no run time";
    EXPECT_ROCE_ERROR(RoceRankCall::Schedule(remote->GetId(), MicroSeconds(2), svc, {1}),
                      "after \\+2us must come later than the lookahead \\+2us");
    EXPECT_EQ(sent.size(), 2u) << "a refused call is not sent";
    EXPECT_ROCE_ERROR(RoceRankCall::Schedule(12345, MicroSeconds(5), svc, {1}),
                      "node 12345 does not exist");
    RoceRankCall::Unregister(svc);
}

namespace
{

/**
 * \brief Start a ring AllReduce on a one-rack zone with these communicator attributes.
 * \return the collective (keep it until the run ends)
 */
Ptr<RoceCollective>
StartWith(bool cts, Time notify, Callback<void> done = Callback<void>())
{
    RoceAiZoneHelper z;
    z.SetGpus(16);
    RoceAiZone zone = z.Build();
    RoceCollectiveHelper h;
    h.SetCommunicatorAttribute("Distributed", BooleanValue(true));
    h.SetCommunicatorAttribute("ClearToSend", BooleanValue(cts));
    h.SetCommunicatorAttribute("NotifyDelay", TimeValue(notify));
    std::vector<uint32_t> gpus(16);
    std::iota(gpus.begin(), gpus.end(), 0);
    Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
    coll->SetCommunicator(h.CreateCommunicator(zone, gpus));
    coll->Start(RoceCollective::ALL_REDUCE, RoceCollective::RING, 1 << 20, done);
    return coll;
}

} // namespace

TEST(RankCallTest, DistributedCommunicatorRefusals)
{
    {
        RankCallScope scope;
        EXPECT_ROCE_ERROR(StartWith(true, MicroSeconds(2)),
                          "ClearToSend=true cannot run with Distributed=true");
    }
    {
        RankCallScope scope;
        RoceRankCall::SetTransport(RoceRankCall::Transport(), MicroSeconds(4));
        EXPECT_ROCE_ERROR(StartWith(false, MicroSeconds(4)),
                          "NotifyDelay=\\+4us must exceed the MPI lookahead \\+4us");
    }
    {
        RankCallScope scope;
        // A transport: an MPI run with links between ranks.
        RoceRankCall::SetTransport(
            RoceRankCall::Transport(
                [](uint32_t, uint32_t, Time, uint32_t, const std::vector<uint64_t>&) {}),
            MicroSeconds(4));
        EXPECT_ROCE_ERROR(StartWith(false, MicroSeconds(5), Callback<void>([]() {})),
                          "across MPI ranks an operation's done callbacks would run on each "
                          "process when its own ranks finish");
    }
    {
        RankCallScope scope;
        // One process (no transport): a done callback is fine.
        bool done = false;
        Ptr<RoceCollective> coll =
            StartWith(false, MicroSeconds(5), Callback<void>([&done]() { done = true; }));
        Simulator::Run();
        EXPECT_TRUE(done);
    }
    {
        RankCallScope scope;
        RoceRankCall::SetTransport(RoceRankCall::Transport(), MicroSeconds(4));
        Ptr<RoceCollective> coll = StartWith(false, MicroSeconds(5)); // accepted
        Simulator::Run();
        EXPECT_FALSE(coll->IsRunning()) << "the accepted AllReduce finished";
    }
}
