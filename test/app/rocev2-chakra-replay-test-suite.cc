/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra execution-trace replay on AI Zone fabrics (RoceChakraReplayHelper,
 * RoceReplayApp, RoceReplayJob), over the repository's traces:
 * - the synthetic 8-rank traces: every node runs once, and the makespan is
 *   the critical path computed here from the compute durations and the
 *   alpha-beta times of the AllReduces and transfers on a non-blocking
 *   fabric;
 * - the PyTorch data-parallel iteration replicated on 16 GPUs: all 3,664
 *   nodes per rank complete, the five GPU-side AllReduces and the two
 *   broadcasts move their bytes, and the makespan is at least the GPU
 *   compute on the critical path;
 * - twice the link rate shortens the exposed communication, half the
 *   compute lengthens its share.
 * Standalone build only (the reader needs protobuf): registered by
 * cmake/rocev2-chakra.cmake.
 */

#include "rocev2-collective-test-helpers.h"

#include "ns3/double.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/roce-chakra-trace.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <numeric>

using namespace ns3;
using ns3::rocev2test::AllGpus;
using ns3::rocev2test::RingAllReduceSeconds;
using ns3::rocev2test::SmallZone;
using ns3::rocev2test::WriteSeconds;

namespace
{

const std::string SYNTHETIC = "data/chakra/synthetic-8/chakra.0.et";
const std::string PYTORCH = "data/chakra/pytorch-ddp/chakra.0.et";

/** The figures of one replay, read before Simulator::Destroy. */
struct Replay
{
    bool finished{false};
    double makespan{0}; //!< s
    double exposed{0};  //!< s, mean over the ranks
    double compute{0};  //!< s, mean over the ranks
    std::vector<std::string> problems;
};

/**
 * \brief Replay synthetic-8 on 8 one-GPU servers: 1 channel, one chunk per
 * slice, as the alpha-beta formula assumes.
 * \param rate link rate, bit/s \param scale ComputeScale
 * \return the figures
 */
Replay
RunSynthetic(double rate, double scale)
{
    RoceAiZone z = SmallZone(8, 1, rate);
    RoceChakraReplayHelper replay;
    replay.SetCollectiveAttribute("Channels", UintegerValue(1));
    replay.SetCollectiveAttribute("ChunkSize", UintegerValue(64 << 20));
    replay.SetAppAttribute("ComputeScale", DoubleValue(scale));
    Ptr<RoceReplayJob> job =
        replay.Install(z, AllGpus(z), RoceChakraReplayHelper::TracePaths(SYNTHETIC, 8, false));
    Simulator::Run();
    Replay r;
    r.finished = job->IsFinished();
    r.makespan = job->GetMakespan().GetSeconds();
    for (uint32_t k = 0; k < 8; ++k)
    {
        r.exposed += job->GetApp(k)->GetExposedCommTime().GetSeconds() / 8;
        r.compute += job->GetApp(k)->GetComputeTime().GetSeconds() / 8;
    }
    r.problems = job->GetProblems();
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * synthetic-8: per rank a 1 MiB send to the next rank and a receive from the
 * previous one, 200 us of compute, AllReduces of 4 MiB and 16 MiB, twice.
 * The test computes the critical path over rank 0's graph with each node's
 * time: a kernel its duration, an AllReduce of S 2(p-1) ring steps of S/p,
 * a send one WRITE of its bytes (the receive waits for the same transfer),
 * and compares the makespan (3 %). Every node runs exactly once: 10 per rank,
 * by type as in the files, 16 transfers of 1 MiB and 4 collectives.
 */
class SyntheticCriticalPathTestCase : public TestCase
{
  public:
    SyntheticCriticalPathTestCase()
        : TestCase("synthetic-8: every node runs once; the makespan is the alpha-beta critical "
                   "path")
    {
    }

  private:
    void DoRun() override
    {
        RoceAiZone z = SmallZone(8, 1);
        RoceChakraReplayHelper replay;
        replay.SetCollectiveAttribute("Channels", UintegerValue(1));
        replay.SetCollectiveAttribute("ChunkSize", UintegerValue(64 << 20));
        const std::vector<std::string> paths =
            RoceChakraReplayHelper::TracePaths(SYNTHETIC, 8, false);
        NS_TEST_ASSERT_MSG_EQ(RoceChakraReplayHelper::CountTraces(SYNTHETIC), 8, "8 files");
        Ptr<RoceReplayJob> job = replay.Install(z, AllGpus(z), paths);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(job->IsFinished(), true, "every rank finished");
        NS_TEST_EXPECT_MSG_EQ(job->GetProblems().size(), 0, "nothing unmatched");
        for (uint32_t r = 0; r < 8; ++r)
        {
            Ptr<RoceReplayApp> app = job->GetApp(r);
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(), 10, "rank " << r << ": 10 nodes");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMP), 2, "2 kernels");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_SEND), 2, "sends");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_RECV), 2, "recvs");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_COLL), 4, "colls");
            NS_TEST_EXPECT_MSG_EQ(app->GetComputeTime(), MicroSeconds(400), "compute");
        }
        NS_TEST_EXPECT_MSG_EQ(job->GetNTransfers(), 16, "16 transfers");
        NS_TEST_EXPECT_MSG_EQ(job->GetTransferBytes(), 16u << 20, "of 1 MiB");
        const std::vector<RoceReplayJob::CollectiveResult> colls = job->GetCollectives();
        NS_TEST_ASSERT_MSG_EQ(colls.size(), 4, "4 collectives");
        const uint64_t sizes[] = {4u << 20, 16u << 20, 4u << 20, 16u << 20};
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(colls[k].bytes, sizes[k], "collective " << k);
            NS_TEST_EXPECT_MSG_EQ(colls[k].finish.IsPositive(), true, "finished");
        }

        const Ptr<const RoceReplayGraph> g = job->GetApp(0)->GetGraph();
        const Time expect = g->LongestPath([&g](uint32_t i) {
            const RoceReplayGraph::Node& n = g->GetNode(i);
            switch (n.kind)
            {
            case RoceReplayGraph::GPU_COMPUTE:
                return n.duration;
            case RoceReplayGraph::COLLECTIVE:
                return Seconds(RingAllReduceSeconds(double(n.bytes), 8));
            case RoceReplayGraph::SEND:
                return Seconds(WriteSeconds(double(n.bytes)));
            default:
                return Time(0);
            }
        });
        const double e = expect.GetSeconds();
        NS_TEST_EXPECT_MSG_EQ_TOL(job->GetMakespan().GetSeconds(), e, 0.03 * e, "critical path");
        Simulator::Destroy();
    }
};

/**
 * The PyTorch data-parallel iteration, one trace replicated on 16 GPUs (two
 * 8-GPU servers). Its control dependencies make cycles, so they are left
 * out (and a note says so). Every rank completes all 3,664 nodes, by type as
 * the file holds them; the five GPU-side AllReduces (102,228,128 B in all)
 * and the two broadcasts (212,480 B and 424 B) run, and the communicator
 * delivers exactly their ring bytes: 2(p-1) S per AllReduce, (p-1) S per
 * broadcast. The GPU runs its kernels one at a time, so its compute time is
 * their sum, 292,828 us, and the makespan is at least that and at least the
 * longest chain of kernels through the graph.
 */
class PytorchReplicatedTestCase : public TestCase
{
  public:
    PytorchReplicatedTestCase()
        : TestCase("PyTorch DDP replicated on 16 GPUs: every node, every collective byte")
    {
    }

  private:
    void DoRun() override
    {
        const RoceChakraTrace trace = RoceChakraTrace::Read(PYTORCH);
        const uint32_t p = 16;
        RoceAiZone z = SmallZone(2, 8);
        RoceChakraReplayHelper replay;
        Ptr<RoceReplayJob> job = replay.Install(z, AllGpus(z), {PYTORCH});
        NS_TEST_ASSERT_MSG_EQ(replay.GetNotes().size(), 1, "control dependencies left out");
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(job->IsFinished(), true, "every rank finished");
        for (uint32_t r = 0; r < p; ++r)
        {
            Ptr<RoceReplayApp> app = job->GetApp(r);
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(), 3664, "rank " << r);
            for (int t = 0; t < RoceChakraNode::TYPE_COUNT; ++t)
            {
                NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(t),
                                      trace.CountType(RoceChakraNode::Type(t)),
                                      "rank " << r << " type " << t);
            }
        }
        uint64_t allReduce = 0;
        uint64_t expectBytes = 0;
        std::vector<uint64_t> broadcasts;
        for (const RoceReplayJob::CollectiveResult& c : job->GetCollectives())
        {
            NS_TEST_EXPECT_MSG_EQ(c.finish.IsPositive(), true, "collective " << c.seq << " ran");
            NS_TEST_EXPECT_MSG_EQ(c.ranks, p, "on all ranks");
            if (c.op == RoceCollective::ALL_REDUCE)
            {
                allReduce += c.bytes;
                expectBytes += 2 * (p - 1) * c.runBytes;
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(c.op, RoceCollective::BROADCAST, "or a broadcast");
                broadcasts.push_back(c.bytes);
                expectBytes += (p - 1) * c.runBytes;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(allReduce, 102228128, "AllReduce bytes");
        NS_TEST_EXPECT_MSG_EQ((broadcasts == std::vector<uint64_t>{212480, 424}),
                              true,
                              "two broadcasts");
        Ptr<RoceCommunicator> comm = job->GetGroupCommunicator("");
        NS_TEST_ASSERT_MSG_NE(comm, nullptr, "the group of all ranks");
        uint64_t received = 0;
        for (uint32_t r = 0; r < p; ++r)
        {
            received += comm->GetBytesReceived(r);
        }
        NS_TEST_EXPECT_MSG_EQ(received, expectBytes, "every collective byte delivered");

        uint64_t gpuCompute = 0;
        for (const RoceChakraNode& n : trace.nodes)
        {
            gpuCompute += n.type == RoceChakraNode::COMP && !n.isCpuOp ? n.durationMicros : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(gpuCompute, 292828, "GPU compute in the file");
        const Ptr<const RoceReplayGraph> g = job->GetApp(0)->GetGraph();
        const Time chain = g->LongestPath([&g](uint32_t i) {
            return g->GetNode(i).kind == RoceReplayGraph::GPU_COMPUTE ? g->GetNode(i).duration
                                                                      : Time(0);
        });
        NS_TEST_EXPECT_MSG_EQ(chain.IsStrictlyPositive(), true, "a chain of kernels");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(job->GetMakespan(), chain, "makespan >= kernel chain");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(job->GetMakespan(),
                                    MicroSeconds(gpuCompute),
                                    "makespan >= serial GPU compute");
        NS_TEST_EXPECT_MSG_EQ(job->GetApp(0)->GetComputeTime(),
                              MicroSeconds(gpuCompute),
                              "one kernel at a time");
        Simulator::Destroy();
    }
};

/**
 * What-if questions on synthetic-8, where communication and compute
 * alternate: with 800 Gb/s links instead of 400 the exposed communication
 * time falls (bandwidth-bound transfers: below 0.7x); with the kernels
 * twice as fast the makespan is shorter by exactly half the compute (the
 * communication is the same) and the exposed share of it grows.
 */
class WhatIfTestCase : public TestCase
{
  public:
    WhatIfTestCase()
        : TestCase("synthetic-8: faster links shorten exposed communication, faster GPUs raise "
                   "its share")
    {
    }

  private:
    void DoRun() override
    {
        const Replay base = RunSynthetic(400e9, 1.0);
        const Replay fastLinks = RunSynthetic(800e9, 1.0);
        const Replay fastGpus = RunSynthetic(400e9, 0.5);
        NS_TEST_ASSERT_MSG_EQ(base.finished && fastLinks.finished && fastGpus.finished,
                              true,
                              "all finished");
        NS_TEST_EXPECT_MSG_GT(base.exposed, 0, "communication is exposed");
        NS_TEST_EXPECT_MSG_LT(fastLinks.exposed, 0.7 * base.exposed, "800G: less exposed");
        NS_TEST_EXPECT_MSG_EQ_TOL(fastGpus.compute, base.compute / 2, 1e-9, "half the compute");
        NS_TEST_EXPECT_MSG_EQ_TOL(fastGpus.makespan,
                                  base.makespan - base.compute / 2,
                                  1e-8,
                                  "shorter by half the compute");
        NS_TEST_EXPECT_MSG_GT(fastGpus.exposed / fastGpus.makespan,
                              base.exposed / base.makespan,
                              "exposed share grows");
    }
};

/** The Chakra replay suite. */
class RoceChakraReplayTestSuite : public TestSuite
{
  public:
    RoceChakraReplayTestSuite()
        : TestSuite("rocev2-chakra-replay", UNIT)
    {
        AddTestCase(new SyntheticCriticalPathTestCase, TestCase::QUICK);
        AddTestCase(new PytorchReplicatedTestCase, TestCase::QUICK);
        AddTestCase(new WhatIfTestCase, TestCase::QUICK);
    }
};

static RoceChakraReplayTestSuite g_chakraReplayTestSuite;
