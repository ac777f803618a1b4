/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra execution-trace replay on AI Zone fabrics (RoceChakraReplayHelper,
 * RoceReplayApp, RoceReplayJob), over the repository's traces:
 * - a trace written here byte by byte (protobuf's wire format, encoded in
 *   the test) with known node counts and a critical path computed by hand;
 * - the synthetic 8-rank traces: every node runs once, and the makespan is
 *   the critical path of the structure data/README.md documents, from the
 *   compute durations and the alpha-beta times of the AllReduces and
 *   transfers on a non-blocking fabric;
 * - the PyTorch data-parallel iteration replicated on 16 GPUs: all 3,664
 *   nodes per rank complete, the five GPU-side AllReduces and the two
 *   broadcasts move their bytes, and the makespan is at least the serial
 *   GPU compute.
 * The node counts, sizes and durations of the repository traces are written
 * here as numbers (data/README.md); check/chakra-trace (utils/check-chakra.py)
 * reads the same files with Debian's python3-protobuf and the .proto compiled
 * by protoc, independently of the module's reader, and checks those numbers
 * and what rocev2-chakra-replay reports;
 * - twice the link rate shortens the exposed communication, half the
 *   compute lengthens its share.
 * Standalone build only (the reader needs protobuf): registered by
 * cmake/rocev2-chakra.cmake.
 */

#include "rocev2-collective-test-helpers.h"

#include "ns3/double.h"
#include "ns3/roce-chakra-replay-helper.h"
#include "ns3/roce-chakra-trace.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

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

/**
 * Protobuf's wire format, written here so that a trace can be made without
 * the module's message classes: a message is a string of fields, each a key
 * (field number << 3 | wire type) and a value, a varint (type 0) or a
 * length and bytes (type 2).
 */
class WireMessage
{
  public:
    /** \param v a value \return its varint bytes */
    static std::string Varint(uint64_t v)
    {
        std::string out;
        do
        {
            const uint8_t low = v & 0x7f;
            v >>= 7;
            out.push_back(static_cast<char>(low | (v ? 0x80 : 0)));
        } while (v);
        return out;
    }

    /** \param field the field number \param v a varint value \return *this */
    WireMessage& Int(uint32_t field, uint64_t v)
    {
        m_bytes += Varint(uint64_t(field) << 3) + Varint(v);
        return *this;
    }

    /** \param field the field number \param b the bytes \return *this */
    WireMessage& Bytes(uint32_t field, const std::string& b)
    {
        m_bytes += Varint(uint64_t(field) << 3 | 2) + Varint(b.size()) + b;
        return *this;
    }

    /** \return the encoded message */
    const std::string& Get() const
    {
        return m_bytes;
    }

  private:
    std::string m_bytes; //!< the fields so far
};

/** One node of a hand-made trace (the Chakra ET Node's fields). */
struct HandNode
{
    uint64_t id;                    //!< Node.id (1)
    std::string name;               //!< Node.name (2)
    int type;                       //!< Node.type (3): 2 MEM_LOAD, 4 COMP, 5 SEND, 6 RECV, 7 COLL
    std::vector<uint64_t> dataDeps; //!< Node.data_deps (5)
    uint64_t durationMicros{0};     //!< Node.duration_micros (7)
    bool cpu{false};                //!< attribute is_cpu_op (bool_val, 27)
    /** integer attributes (int64_val, 9): comm_type, comm_size, comm_src, ... */
    std::vector<std::pair<std::string, int64_t>> ints;
};

/**
 * \brief Write a Chakra ET file: a GlobalMetadata (version, field 1), then
 * each Node, every message preceded by its length as a varint.
 * \param path the file \param nodes the nodes
 */
void
WriteHandTrace(const std::string& path, const std::vector<HandNode>& nodes)
{
    std::ofstream out(path, std::ios::binary);
    auto put = [&out](const std::string& msg) { out << WireMessage::Varint(msg.size()) << msg; };
    put(WireMessage().Bytes(1, "0.0.4").Get());
    for (const HandNode& n : nodes)
    {
        WireMessage m;
        m.Int(1, n.id).Bytes(2, n.name).Int(3, n.type);
        for (uint64_t d : n.dataDeps)
        {
            m.Int(5, d); // a repeated field, unpacked: one key per value
        }
        m.Int(7, n.durationMicros);
        m.Bytes(10, WireMessage().Bytes(1, "is_cpu_op").Int(27, n.cpu ? 1 : 0).Get());
        for (const auto& [name, v] : n.ints)
        {
            m.Bytes(10, WireMessage().Bytes(1, name).Int(9, static_cast<uint64_t>(v)).Get());
        }
        put(m.Get());
    }
}

} // namespace

/**
 * A trace made here, byte by byte, for 4 ranks on 4 one-GPU servers (every
 * ring edge and transfer crosses a CTSW; 1 channel, one chunk per slice).
 * Rank r's 10 nodes (ids; "after" = data dependencies):
 *   1 MEM_LOAD;  2 kernel 100 us after 1;  3 CPU operator of 500 us (zero
 *   time: CpuOps = zero);  4 AllReduce of 4 MiB after 2;  5 kernel 100 us
 *   after 2;  6 kernel 50 us after 4 and 5;  7 AllReduce of 1 MiB after 6;
 *   8 send of 256 KiB to rank r+1 and 9 receive from rank r-1 (tag 5), both
 *   after 7;  10 kernel 20 us after 8 and 9.
 * Executed per rank, by trace type: 1 MEM_LOAD, 5 COMP, 1 SEND, 1 RECV, 2
 * COMM_COLL; 4 transfers of 256 KiB in all; GPU compute 270 us (the CPU
 * operator takes none). The critical path by hand: 100 us, then the 4 MiB
 * AllReduce (6 ring steps of 1 MiB, 195.9 us; kernel 5 runs beside it and
 * takes less), 50 us, the 1 MiB AllReduce (6 steps of 256 KiB, 99.6 us), one
 * 256 KiB WRITE (16.6 us) and 20 us: 482.1 us. Serialising kernel 5 after
 * the AllReduce would give 582 us, and ignoring the dependencies of the
 * collectives on kernels less than 300 us. Tolerance 3 %: the alpha-beta
 * times leave out what a step costs beyond its WRITE (the receiver's
 * completion handling before the next step is posted, a few hundred ns per
 * step over 24 steps).
 */
class HandBuiltTraceTestCase : public TestCase
{
  public:
    HandBuiltTraceTestCase()
        : TestCase("a trace written here: node counts and the hand-computed critical path")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        const std::string base = CreateTempDirFilename("hand");
        for (uint32_t r = 0; r < p; ++r)
        {
            const int64_t next = (r + 1) % p;
            const int64_t prev = (r + p - 1) % p;
            const int64_t me = r;
            WriteHandTrace(
                base + "." + std::to_string(r) + ".et",
                {
                    {1, "load", 2, {}, 0, false, {}},
                    {2, "k0", 4, {1}, 100, false, {}},
                    {3, "launch", 4, {}, 500, true, {}},
                    {4, "ar0", 7, {2}, 0, false, {{"comm_type", 0}, {"comm_size", 4 << 20}}},
                    {5, "k1", 4, {2}, 100, false, {}},
                    {6, "k2", 4, {4, 5}, 50, false, {}},
                    {7, "ar1", 7, {6}, 0, false, {{"comm_type", 0}, {"comm_size", 1 << 20}}},
                    {8,
                     "send",
                     5,
                     {7},
                     0,
                     false,
                     {{"comm_src", me},
                      {"comm_dst", next},
                      {"comm_tag", 5},
                      {"comm_size", 256 << 10}}},
                    {9,
                     "recv",
                     6,
                     {7},
                     0,
                     false,
                     {{"comm_src", prev},
                      {"comm_dst", me},
                      {"comm_tag", 5},
                      {"comm_size", 256 << 10}}},
                    {10, "k3", 4, {8, 9}, 20, false, {}},
                });
        }
        RoceAiZone z = SmallZone(p, 1);
        RoceChakraReplayHelper replay;
        replay.SetCollectiveAttribute("Channels", UintegerValue(1));
        replay.SetCollectiveAttribute("ChunkSize", UintegerValue(64 << 20));
        NS_TEST_ASSERT_MSG_EQ(RoceChakraReplayHelper::CountTraces(base + ".0.et"), p, "4 files");
        Ptr<RoceReplayJob> job =
            replay.Install(z,
                           AllGpus(z),
                           RoceChakraReplayHelper::TracePaths(base + ".0.et", p, false));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(job->IsFinished(), true, "every rank finished");
        NS_TEST_EXPECT_MSG_EQ(job->GetProblems().size(), 0, "nothing unmatched");
        for (uint32_t r = 0; r < p; ++r)
        {
            Ptr<RoceReplayApp> app = job->GetApp(r);
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(), 10, "rank " << r << ": 10 nodes");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::MEM_LOAD), 1, "load");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMP), 5, "kernels, CPU");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_SEND), 1, "send");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_RECV), 1, "recv");
            NS_TEST_EXPECT_MSG_EQ(app->GetNodesExecuted(RoceChakraNode::COMM_COLL), 2, "colls");
            NS_TEST_EXPECT_MSG_EQ(app->GetComputeTime(), MicroSeconds(270), "GPU compute");
        }
        NS_TEST_EXPECT_MSG_EQ(job->GetNTransfers(), p, "4 transfers");
        NS_TEST_EXPECT_MSG_EQ(job->GetTransferBytes(), p * (256u << 10), "of 256 KiB");
        const std::vector<RoceReplayJob::CollectiveResult> colls = job->GetCollectives();
        NS_TEST_ASSERT_MSG_EQ(colls.size(), 2, "2 collectives");
        NS_TEST_EXPECT_MSG_EQ(colls[0].bytes, 4u << 20, "the first AllReduce");
        NS_TEST_EXPECT_MSG_EQ(colls[1].bytes, 1u << 20, "the second AllReduce");
        NS_TEST_EXPECT_MSG_EQ(colls[0].op, RoceCollective::ALL_REDUCE, "comm_type 0");
        const double e = 100e-6 + RingAllReduceSeconds(4 << 20, p) + 50e-6 +
                         RingAllReduceSeconds(1 << 20, p) + WriteSeconds(256 << 10) + 20e-6;
        std::cout << "chakra hand-made trace: makespan " << job->GetMakespan().GetMicroSeconds()
                  << " us, critical path " << e * 1e6 << " us\n";
        NS_TEST_EXPECT_MSG_EQ_TOL(job->GetMakespan().GetSeconds(), e, 0.03 * e, "critical path");
        Simulator::Destroy();
    }
};

/**
 * synthetic-8: per rank a 1 MiB send to the next rank and a receive from the
 * previous one, 200 us of compute, AllReduces of 4 MiB and 16 MiB, twice.
 * The test computes the critical path of that structure with each node's
 * time: a kernel its duration, an AllReduce of S 2(p-1) ring steps of S/p,
 * a send one WRITE of its bytes (the receive waits for the same transfer),
 * and compares the makespan (3 %, as HandBuiltTraceTestCase). Every node runs
 * exactly once: 10 per rank, by type as in the files, 16 transfers of 1 MiB
 * and 4 collectives.
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

        // The critical path of the documented structure, per iteration: the
        // 1 MiB transfer from the previous rank (one WRITE across a CTSW;
        // the send to the next rank takes as long, side by side), 200 us of
        // compute, then the 4 MiB and the 16 MiB AllReduce in turn (ring,
        // 2(p-1) steps of S/p); the second iteration starts after the first
        // one's last AllReduce.
        const double e = 2 * (WriteSeconds(1 << 20) + 200e-6 + RingAllReduceSeconds(4 << 20, 8) +
                              RingAllReduceSeconds(16 << 20, 8));
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
 * their sum, 292,828 us, and the makespan is at least that (and so at least
 * any chain of kernels through the graph). The file's counts (3,643
 * COMP_NODE, 21 COMM_COLL_NODE, nothing else) and kernel time are written
 * here from data/README.md, which check/chakra-trace verifies against the
 * file with protobuf's own Python decoder.
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
        // Nodes of the file by type (INVALID .. COMM_COLL) and the GPU
        // kernels' summed duration_micros (data/README.md).
        const uint64_t fileTypes[RoceChakraNode::TYPE_COUNT] = {0, 0, 0, 0, 3643, 0, 0, 21};
        const uint64_t gpuCompute = 292828;
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
                                      fileTypes[t],
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
        : TestSuite("rocev2-chakra-replay", Type::UNIT)
    {
        AddTestCase(new HandBuiltTraceTestCase, RoceTestDuration::QUICK);
        AddTestCase(new SyntheticCriticalPathTestCase, RoceTestDuration::QUICK);
        AddTestCase(new PytorchReplicatedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new WhatIfTestCase, RoceTestDuration::QUICK);
    }
};

static RoceChakraReplayTestSuite g_chakraReplayTestSuite;
