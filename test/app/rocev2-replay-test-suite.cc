/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The replay model on graphs built here (RoceReplayGraph, RoceReplayApp,
 * RoceReplayJob), independent of any trace format: time accounting of
 * overlapping compute and communication, GPU streams, CPU operators, the
 * send/receive rendezvous, what is reported when sends, receives or
 * collectives are never matched (the run ends, nothing hangs), the checks
 * before a run, and cycles.
 */

#include "rocev2-collective-test-helpers.h"

#include "ns3/enum.h"
#include "ns3/node.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-replay-job.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using ns3::rocev2test::AllGpus;
using ns3::rocev2test::SmallZone;
using ns3::rocev2test::WriteSeconds;

namespace
{

typedef RoceReplayGraph G;

/** \return a kernel node of `us` microseconds */
G::Node
Kernel(uint64_t id, uint64_t us)
{
    G::Node n;
    n.kind = G::GPU_COMPUTE;
    n.id = id;
    n.duration = MicroSeconds(us);
    return n;
}

/** \return a communication node (SEND, RECV or COLLECTIVE) in group 0 */
G::Node
Comm(uint64_t id, G::Kind kind, uint64_t bytes, int32_t peer = -1, int32_t tag = 0)
{
    G::Node n;
    n.kind = kind;
    n.id = id;
    n.bytes = bytes;
    n.peer = peer;
    n.tag = tag;
    return n;
}

/** A job of p ranks on p one-GPU servers, each rank with its own graph. */
struct TestJob
{
    RoceAiZone zone;
    Ptr<RoceReplayJob> job;
    std::vector<Ptr<G>> graphs;

    /** \param p ranks */
    explicit TestJob(uint32_t p)
        : zone(SmallZone(p, 1)),
          job(CreateObject<RoceReplayJob>())
    {
        RoceCollectiveHelper h;
        job->AddGroup("", AllGpus(zone), h.CreateCommunicator(zone, AllGpus(zone)));
        job->SetCollectiveAttribute("Channels", UintegerValue(1));
        for (uint32_t r = 0; r < p; ++r)
        {
            graphs.push_back(Create<G>(std::vector<std::string>{"A", "B"}));
            graphs.back()->AddGroup("");
        }
    }

    /**
     * \brief Finalize the graphs and install an application per rank.
     * \param streams GpuStreams \param cpu CpuOps
     * \return Check()'s error, "" if none
     */
    std::string Install(uint32_t streams = 1, RoceReplayApp::CpuOps cpu = RoceReplayApp::CPU_ZERO)
    {
        for (uint32_t r = 0; r < graphs.size(); ++r)
        {
            std::string cycle;
            NS_ABORT_MSG_IF(!graphs[r]->Finalize(&cycle), cycle);
            Ptr<RoceReplayApp> app = CreateObject<RoceReplayApp>();
            app->SetAttribute("GpuStreams", UintegerValue(streams));
            app->SetAttribute("CpuOps", EnumValue(cpu));
            zone.GetServer(r)->AddApplication(app);
            job->AddRank(app, graphs[r]);
        }
        std::string error;
        return job->Check(&error) ? "" : error;
    }
};

} // namespace

/**
 * A kernel of 100 us and an 8 MiB AllReduce, both ready at 0 on each of two
 * ranks: the compute time is 100 us, the communication time the
 * collective's duration T, and the exposed part exactly T - 100 us.
 */
class OverlapTestCase : public TestCase
{
  public:
    OverlapTestCase()
        : TestCase("Compute overlapping a collective: exposed = collective - compute")
    {
    }

  private:
    void DoRun() override
    {
        TestJob t(2);
        for (Ptr<G> g : t.graphs)
        {
            g->AddNode(Kernel(1, 100), "k");
            g->AddNode(Comm(2, G::COLLECTIVE, 8 << 20), "ar");
        }
        NS_TEST_ASSERT_MSG_EQ(t.Install(), "", "checked");
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(t.job->IsFinished(), true, "finished");
        const RoceReplayJob::CollectiveResult c = t.job->GetCollectives().at(0);
        const Time coll = c.finish - c.start;
        NS_TEST_EXPECT_MSG_GT(coll, MicroSeconds(100), "longer than the kernel");
        for (uint32_t r = 0; r < 2; ++r)
        {
            Ptr<RoceReplayApp> app = t.job->GetApp(r);
            NS_TEST_EXPECT_MSG_EQ(app->GetComputeTime(), MicroSeconds(100), "compute");
            NS_TEST_EXPECT_MSG_EQ(app->GetCommTime(), coll, "communication");
            NS_TEST_EXPECT_MSG_EQ(app->GetExposedCommTime(), coll - MicroSeconds(100), "exposed");
        }
        Simulator::Destroy();
    }
};

/**
 * Kernels of 100 us and 50 us with no dependency, and a CPU operator of
 * 30 us before a third kernel of 10 us: with one GPU stream the kernels run
 * one after another (160 us) and the CPU operator takes no time; with
 * unlimited streams they run at once (100 us); with CpuOps = duration the
 * third kernel starts at 30 us.
 */
class StreamsAndCpuTestCase : public TestCase
{
  public:
    StreamsAndCpuTestCase()
        : TestCase("GPU streams serialize kernels; CPU operators take zero time or their duration")
    {
    }

  private:
    static Time Run(uint32_t streams, RoceReplayApp::CpuOps cpu)
    {
        TestJob t(1);
        Ptr<G> g = t.graphs[0];
        g->AddNode(Kernel(1, 100), "k100");
        g->AddNode(Kernel(2, 50), "k50");
        G::Node op;
        op.kind = G::CPU;
        op.id = 3;
        op.duration = MicroSeconds(30);
        const uint32_t c = g->AddNode(op, "cpu");
        const uint32_t k = g->AddNode(Kernel(4, 10), "k10");
        g->AddDependency(c, k);
        NS_ABORT_MSG_IF(t.Install(streams, cpu) != "", "checked");
        Simulator::Run();
        const Time makespan = t.job->GetMakespan();
        NS_ABORT_MSG_IF(!t.job->IsFinished(), "finished");
        Simulator::Destroy();
        return makespan;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(Run(1, RoceReplayApp::CPU_ZERO), MicroSeconds(160), "one stream");
        NS_TEST_EXPECT_MSG_EQ(Run(0, RoceReplayApp::CPU_ZERO), MicroSeconds(100), "no limit");
        NS_TEST_EXPECT_MSG_EQ(Run(0, RoceReplayApp::CPU_DURATION),
                              MicroSeconds(100),
                              "the CPU operator's 30 + 10 us hide under 100 us");
        NS_TEST_EXPECT_MSG_EQ(Run(1, RoceReplayApp::CPU_DURATION),
                              MicroSeconds(160),
                              "one stream: 100 + 50 + 10 us");
    }
};

/**
 * A send ready at 0 whose receive is ready only after a 100 us kernel on
 * the receiver: the transfer starts at 100 us (a rendezvous), so both end
 * one WRITE time later, and the sender's communication time covers its wait.
 */
class RendezvousTestCase : public TestCase
{
  public:
    RendezvousTestCase()
        : TestCase("A transfer starts when both its send and its receive are ready")
    {
    }

  private:
    void DoRun() override
    {
        TestJob t(2);
        const uint64_t bytes = 1 << 20;
        t.graphs[0]->AddNode(Comm(1, G::SEND, bytes, 1, 7), "send");
        const uint32_t k = t.graphs[1]->AddNode(Kernel(1, 100), "k");
        const uint32_t rv = t.graphs[1]->AddNode(Comm(2, G::RECV, bytes, 0, 7), "recv");
        t.graphs[1]->AddDependency(k, rv);
        NS_TEST_ASSERT_MSG_EQ(t.Install(), "", "checked");
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(t.job->IsFinished(), true, "finished");
        const double expect = 100e-6 + WriteSeconds(bytes);
        const double end = t.job->GetApp(0)->GetFinishTime().GetSeconds();
        NS_TEST_EXPECT_MSG_EQ_TOL(end, expect, 0.03 * expect, "starts at 100 us");
        NS_TEST_EXPECT_MSG_EQ(t.job->GetApp(1)->GetFinishTime(),
                              t.job->GetApp(0)->GetFinishTime(),
                              "both end on arrival");
        NS_TEST_EXPECT_MSG_EQ(t.job->GetApp(0)->GetCommTime(),
                              t.job->GetApp(0)->GetFinishTime(),
                              "the sender waits from 0");
        NS_TEST_EXPECT_MSG_EQ(t.job->GetTransferBytes(), bytes, "bytes");
        Simulator::Destroy();
    }
};

/**
 * Rank 0 sends with tag 5 and rank 1 receives with tag 6; rank 1's
 * AllReduce waits for its receive, rank 0's does not. The run ends (the
 * simulator runs out of events) and GetProblems names the unmatched send,
 * the unmatched receive, the collective rank 1 never reached and both
 * ranks' unfinished nodes.
 */
class UnmatchedTestCase : public TestCase
{
  public:
    UnmatchedTestCase()
        : TestCase("Unmatched sends, receives and collectives are reported after the run")
    {
    }

  private:
    void DoRun() override
    {
        TestJob t(2);
        t.graphs[0]->AddNode(Comm(10, G::SEND, 4096, 1, 5), "send5");
        t.graphs[0]->AddNode(Comm(11, G::COLLECTIVE, 1 << 20), "ar");
        const uint32_t rv = t.graphs[1]->AddNode(Comm(20, G::RECV, 4096, 0, 6), "recv6");
        const uint32_t ar = t.graphs[1]->AddNode(Comm(21, G::COLLECTIVE, 1 << 20), "ar");
        t.graphs[1]->AddDependency(rv, ar);
        NS_TEST_ASSERT_MSG_EQ(t.Install(), "", "checked");
        Simulator::Run();
        NS_TEST_EXPECT_MSG_LT(Simulator::Now(), MilliSeconds(1), "ended on its own");
        NS_TEST_EXPECT_MSG_EQ(t.job->IsFinished(), false, "not finished");
        const std::vector<std::string> p = t.job->GetProblems();
        NS_TEST_ASSERT_MSG_EQ(p.size(), 5, "five problems");
        NS_TEST_EXPECT_MSG_EQ(p[0],
                              "unmatched send: rank 0 node id 10 'send5' sends 4096 B to rank 1 "
                              "with tag 5; rank 1 never had a matching receive ready",
                              "send");
        NS_TEST_EXPECT_MSG_EQ(p[1],
                              "unmatched receive: rank 1 node id 20 'recv6' receives from rank 0 "
                              "with tag 6; rank 0 never had a matching send ready",
                              "receive");
        NS_TEST_EXPECT_MSG_EQ(p[2],
                              "incomplete collective: process group '' collective 0 (allreduce "
                              "of 1048576 B): 1 of 2 ranks had it ready; never ready on rank(s) 1",
                              "collective");
        NS_TEST_EXPECT_MSG_EQ(p[3],
                              "rank 0: 2 of 2 nodes never completed; first in flight: rank 0 "
                              "node id 10 'send5' (SEND)",
                              "rank 0");
        NS_TEST_EXPECT_MSG_EQ(p[4],
                              "rank 1: 2 of 2 nodes never completed; first in flight: rank 1 "
                              "node id 20 'recv6' (RECV)",
                              "rank 1");
        Simulator::Destroy();
    }
};

/**
 * Check() refuses, naming rank, node and group: ranks that disagree on the
 * number of collectives or on one's operation or size, a send to a rank
 * outside the job or to itself, a group a graph names but the job does not
 * have, and an Algorithm a collective cannot run (hd on 3 ranks). Finalize
 * refuses a cycle, naming its node ids.
 */
class CheckTestCase : public TestCase
{
  public:
    CheckTestCase()
        : TestCase("Ranks that disagree, bad peers, unknown groups and cycles are refused")
    {
    }

  private:
    void DoRun() override
    {
        {
            TestJob t(2);
            t.graphs[0]->AddNode(Comm(1, G::COLLECTIVE, 1024), "a");
            t.graphs[0]->AddNode(Comm(2, G::COLLECTIVE, 1024), "b");
            t.graphs[1]->AddNode(Comm(1, G::COLLECTIVE, 1024), "a");
            NS_TEST_EXPECT_MSG_EQ(t.Install(),
                                  "process group '': rank 1 has 1 collectives on it but rank 0 "
                                  "has 2",
                                  "count");
            Simulator::Destroy();
        }
        {
            TestJob t(2);
            t.graphs[0]->AddNode(Comm(1, G::COLLECTIVE, 1024), "a");
            G::Node gather = Comm(1, G::COLLECTIVE, 2048);
            gather.op = RoceCollective::ALL_GATHER;
            t.graphs[1]->AddNode(gather, "a");
            NS_TEST_EXPECT_MSG_EQ(t.Install(),
                                  "process group '', collective 0: rank 0 node id 1 'a' is "
                                  "allreduce of 1024 B but rank 1 node id 1 'a' is allgather of "
                                  "2048 B",
                                  "op");
            Simulator::Destroy();
        }
        {
            TestJob t(2);
            t.graphs[0]->AddNode(Comm(3, G::SEND, 1024, 2), "s");
            NS_TEST_EXPECT_MSG_EQ(t.Install(),
                                  "rank 0 node id 3 's': its destination rank 2 is not a rank of "
                                  "the job (2 ranks)",
                                  "peer");
            Simulator::Destroy();
        }
        {
            TestJob t(2);
            t.graphs[1]->AddNode(Comm(4, G::RECV, 1024, 1), "r");
            NS_TEST_EXPECT_MSG_EQ(t.Install(),
                                  "rank 1 node id 4 'r': its source rank 1 is the rank itself",
                                  "self");
            Simulator::Destroy();
        }
        {
            TestJob t(2);
            G::Node n = Comm(5, G::COLLECTIVE, 1024);
            n.group = t.graphs[1]->AddGroup("tp");
            t.graphs[1]->AddNode(n, "x");
            NS_TEST_EXPECT_MSG_EQ(t.Install(),
                                  "rank 1 names process group 'tp', which the job does not have",
                                  "group");
            Simulator::Destroy();
        }
        {
            TestJob t(3);
            t.job->SetAttribute("Algorithm", StringValue("hd"));
            for (Ptr<G> g : t.graphs)
            {
                g->AddNode(Comm(6, G::COLLECTIVE, 3 << 20), "ar");
            }
            const std::string error = t.Install();
            NS_TEST_EXPECT_MSG_EQ(error.rfind("Algorithm=hd cannot run process group '' "
                                              "collective 0 (allreduce on 3 ranks",
                                              0),
                                  0,
                                  "hd on 3 ranks, before the run: " << error);
            Simulator::Destroy();
        }
        Ptr<G> g = Create<G>();
        const uint32_t a = g->AddNode(Kernel(7, 1), "a");
        const uint32_t b = g->AddNode(Kernel(8, 1), "b");
        const uint32_t c = g->AddNode(Kernel(9, 1), "c");
        g->AddDependency(a, b);
        g->AddDependency(b, c);
        g->AddDependency(c, b);
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(g->Finalize(&error), false, "cycle");
        NS_TEST_EXPECT_MSG_EQ(error,
                              "the dependencies make a cycle: id 8 -> id 9 -> id 8 (2 nodes can "
                              "never run)",
                              "named");
    }
};

/** The replay model suite. */
class RoceReplayTestSuite : public TestSuite
{
  public:
    RoceReplayTestSuite()
        : TestSuite("rocev2-replay", Type::UNIT)
    {
        AddTestCase(new OverlapTestCase, RoceTestDuration::QUICK);
        AddTestCase(new StreamsAndCpuTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RendezvousTestCase, RoceTestDuration::QUICK);
        AddTestCase(new UnmatchedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new CheckTestCase, RoceTestDuration::QUICK);
    }
};

static RoceReplayTestSuite g_replayTestSuite;
