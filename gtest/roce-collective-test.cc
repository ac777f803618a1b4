/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The collectives refuse input they cannot run, with a message that names
 * the parameter and its value. The size rules (S as nccl-tests counts it,
 * p ranks):
 *
 * - allgather, reducescatter, alltoall: S must be a multiple of p, since
 *   every rank owns (or sends every peer) exactly S / p bytes;
 * - allreduce: S >= p, since its ring cuts S into p slices of >= 1 byte;
 * - broadcast: any S > 0 (every chunk is forwarded whole);
 * - every operation: S > 0.
 *
 * Each refusal is paired with the nearest input that is accepted and runs
 * to the end, so a check that refuses too much fails as well.
 */

#include "roce-gtest-error.h"

#include "ns3/enum.h"
#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-app.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-communicator.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <exception>
#include <functional>
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace ns3;

namespace
{

/** GPUs in the fabric: one rack of two 8-GPU servers. */
constexpr uint32_t ZONE_GPUS = 16;

/**
 * Simulated time after which a run counts as not finished. The largest run
 * here (1 MiB over 4 GPUs of one server) needs tens of microseconds; a
 * collective that cannot finish must not hang the test.
 */
constexpr uint32_t LIMIT_MS = 10;

/** \return the smallest AI Zone: one rack, two servers of 8 GPUs */
RoceAiZone
SmallZone()
{
    RoceAiZoneHelper h;
    h.SetGpus(ZONE_GPUS);
    return h.Build();
}

/** \param n ranks \return GPUs 0..n-1 */
std::vector<uint32_t>
FirstGpus(uint32_t n)
{
    std::vector<uint32_t> gpus(n);
    std::iota(gpus.begin(), gpus.end(), 0);
    return gpus;
}

/**
 * Destroys the simulation when it goes out of scope, also when an error
 * unwinds the test: nothing of a failed scenario outlives it.
 */
struct DestroyOnExit
{
    ~DestroyOnExit()
    {
        Simulator::Destroy();
    }
};

/** The error an event of the current run threw (see Guarded). */
std::exception_ptr g_eventError;

/**
 * \return `f` as an event that, if `f` throws, keeps the error and stops the
 * run: an exception leaving Simulator::Run would leak the event (ns-3 releases
 * it only after it returns). RunRethrow throws it again.
 */
std::function<void()>
Guarded(std::function<void()> f)
{
    return [f]() {
        try
        {
            f();
        }
        catch (...)
        {
            g_eventError = std::current_exception();
            Simulator::Stop();
        }
    };
}

/** Simulator::Run, then the error a Guarded event threw, if any. */
void
RunRethrow()
{
    Simulator::Run();
    if (std::exception_ptr e = g_eventError)
    {
        g_eventError = nullptr;
        std::rethrow_exception(e);
    }
}

/** Make a communicator of `gpus` on the small zone after `tweak`, then destroy. */
void
MakeCommunicator(const std::vector<uint32_t>& gpus,
                 const std::function<void(RoceCollectiveHelper&)>& tweak = {})
{
    DestroyOnExit destroy;
    RoceAiZone zone = SmallZone();
    RoceCollectiveHelper coll;
    if (tweak)
    {
        tweak(coll);
    }
    coll.CreateCommunicator(zone, gpus);
}

/**
 * Run one operation through RoceCollective::Start on the first `ranks` GPUs,
 * started at time 0 (after the nodes are initialized).
 * \return true if it finished
 */
bool
RunCollective(RoceCollective::Op op,
              RoceCollective::Algorithm algo,
              uint64_t bytes,
              uint32_t ranks,
              uint32_t root = 0)
{
    DestroyOnExit destroy;
    RoceAiZone zone = SmallZone();
    RoceCollectiveHelper coll;
    Ptr<RoceCollective> c = CreateObject<RoceCollective>();
    c->SetAttribute("Root", UintegerValue(root));
    c->SetCommunicator(coll.CreateCommunicator(zone, FirstGpus(ranks)));
    Simulator::ScheduleNow(Guarded([=]() { c->Start(op, algo, bytes); }));
    Simulator::Stop(MilliSeconds(LIMIT_MS));
    RunRethrow();
    return !c->IsRunning() && c->GetFinishTime() > c->GetStartTime();
}

/**
 * Install a collective application with `sizes` on the first `ranks` GPUs
 * after `tweak`, and run it.
 * \return true if every size finished
 */
bool
RunApp(const std::function<void(RoceCollectiveHelper&)>& tweak,
       const std::vector<uint64_t>& sizes,
       uint32_t ranks = 4)
{
    DestroyOnExit destroy;
    RoceAiZone zone = SmallZone();
    RoceCollectiveHelper coll;
    tweak(coll);
    Ptr<RoceCommunicator> comm = coll.CreateCommunicator(zone, FirstGpus(ranks));
    Ptr<RoceCollectiveApp> app = coll.Install(comm, sizes);
    Simulator::Stop(MilliSeconds(LIMIT_MS));
    RunRethrow();
    return app->IsFinished();
}

/** \return a tweak that sets the application's Operation and Algorithm */
std::function<void(RoceCollectiveHelper&)>
OpAlgo(const std::string& op, const std::string& algo)
{
    return [op, algo](RoceCollectiveHelper& c) {
        c.SetAppAttribute("Operation", StringValue(op));
        c.SetAppAttribute("Algorithm", StringValue(algo));
    };
}

} // namespace

TEST(CollectiveErrorTest, SizeNotAMultipleOfTheRanks)
{
    using C = RoceCollective;
    // 3 ranks: 1000 = 3 x 333 + 1 leaves one byte without an owner.
    EXPECT_ROCE_ERROR(
        RunCollective(C::ALL_GATHER, C::RING, 1000, 3),
        "allgather size 1000 is not a multiple of the 3 ranks \\(each rank's share is "
        "size / ranks\\)");
    EXPECT_ROCE_ERROR(RunCollective(C::REDUCE_SCATTER, C::RING, 1000, 3),
                      "reducescatter size 1000 is not a multiple of the 3 ranks");
    EXPECT_ROCE_ERROR(RunCollective(C::ALL_TO_ALL, C::DIRECT, 1000, 3),
                      "alltoall size 1000 is not a multiple of the 3 ranks");
    // 999 = 3 x 333 is accepted and runs to the end.
    EXPECT_TRUE(RunCollective(C::ALL_GATHER, C::RING, 999, 3));
    EXPECT_TRUE(RunCollective(C::REDUCE_SCATTER, C::RING, 999, 3));
    EXPECT_TRUE(RunCollective(C::ALL_TO_ALL, C::DIRECT, 999, 3));
    // AllReduce and Broadcast have no such rule: 1000 over 3 ranks runs.
    EXPECT_TRUE(RunCollective(C::ALL_REDUCE, C::RING, 1000, 3));
    EXPECT_TRUE(RunCollective(C::BROADCAST, C::RING, 1000, 3));
}

TEST(CollectiveErrorTest, AllReduceSmallerThanTheRanks)
{
    using C = RoceCollective;
    EXPECT_ROCE_ERROR(
        RunCollective(C::ALL_REDUCE, C::RING, 7, 8),
        "allreduce size 7 is less than the 8 ranks \\(a ring needs a byte per rank\\)");
    // One byte per rank (8 over 8), and 9 (not a multiple: slices of 1 and 2 B) run.
    EXPECT_TRUE(RunCollective(C::ALL_REDUCE, C::RING, 8, 8));
    EXPECT_TRUE(RunCollective(C::ALL_REDUCE, C::RING, 9, 8));
}

TEST(CollectiveErrorTest, SizeZero)
{
    using C = RoceCollective;
    EXPECT_ROCE_ERROR(RunCollective(C::ALL_REDUCE, C::RING, 0, 4),
                      "allreduce size 0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RunCollective(C::ALL_GATHER, C::RING, 0, 4),
                      "allgather size 0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RunCollective(C::ALL_TO_ALL, C::DIRECT, 0, 4),
                      "alltoall size 0 \\(must be > 0\\)");
    EXPECT_ROCE_ERROR(RunCollective(C::BROADCAST, C::RING, 0, 4),
                      "broadcast size 0 \\(must be > 0\\)");
    // Broadcast has no divisibility rule: 1 byte over 4 ranks runs.
    EXPECT_TRUE(RunCollective(C::BROADCAST, C::RING, 1, 4));
}

TEST(CollectiveErrorTest, UnknownOperation)
{
    EXPECT_ROCE_ERROR(RunApp(OpAlgo("gather", ""), {4096}),
                      "unknown operation 'gather' \\(known: allreduce, allgather, reducescatter, "
                      "alltoall, broadcast, sendrecv, alltoallv\\)");
    EXPECT_ROCE_ERROR(RoceCollective::OpByName("AllReduce"), "unknown operation 'AllReduce'");
    for (const char* op : {"allreduce",
                           "allgather",
                           "reducescatter",
                           "alltoall",
                           "broadcast",
                           "sendrecv",
                           "alltoallv"})
    {
        EXPECT_TRUE(RunApp(OpAlgo(op, ""), {4096})) << op;
    }
}

TEST(CollectiveErrorTest, UnknownAlgorithm)
{
    EXPECT_ROCE_ERROR(RunApp(OpAlgo("allreduce", "butterfly"), {4096}),
                      "unknown algorithm 'butterfly' \\(known: ring, direct, tree, hd, hier\\)");
    EXPECT_ROCE_ERROR(RoceCollective::AlgorithmByName("Ring"), "unknown algorithm 'Ring'");
    EXPECT_TRUE(RunApp(OpAlgo("allreduce", "ring"), {4096}));
}

TEST(CollectiveErrorTest, OperationAndAlgorithmMismatch)
{
    EXPECT_ROCE_ERROR(RunApp(OpAlgo("allreduce", "direct"), {4096}),
                      "allreduce has no direct algorithm \\(allreduce: ring, tree, hd, hier; ");
    EXPECT_ROCE_ERROR(
        RunApp(OpAlgo("alltoall", "ring"), {4096}),
        "alltoall has no ring algorithm \\(allreduce: .*; alltoall, alltoallv, sendrecv: "
        "direct\\)");
    EXPECT_TRUE(RunApp(OpAlgo("alltoall", "direct"), {4096}));
}

TEST(CollectiveErrorTest, RootNotARank)
{
    using C = RoceCollective;
    // Ranks are 0..3.
    EXPECT_ROCE_ERROR(RunCollective(C::BROADCAST, C::RING, 4096, 4, 4),
                      "Root=4 is not a rank \\(4 ranks\\)");
    EXPECT_TRUE(RunCollective(C::BROADCAST, C::RING, 4096, 4, 3));
}

TEST(CollectiveErrorTest, StartWhileRunning)
{
    auto startTwice = [](bool runBetween) {
        DestroyOnExit destroy;
        RoceAiZone zone = SmallZone();
        RoceCollectiveHelper coll;
        Ptr<RoceCollective> c = CreateObject<RoceCollective>();
        c->SetCommunicator(coll.CreateCommunicator(zone, FirstGpus(4)));
        auto first = [c]() { c->Start(RoceCollective::ALL_REDUCE, RoceCollective::RING, 1 << 20); };
        auto second = [c]() { c->Start(RoceCollective::ALL_GATHER, RoceCollective::RING, 4096); };
        Simulator::ScheduleNow(Guarded(first));
        if (!runBetween)
        {
            // 1 ns later the 1 MiB allreduce is far from done (a copy alone takes longer).
            Simulator::Schedule(NanoSeconds(1), Guarded(second));
        }
        Simulator::Stop(MilliSeconds(LIMIT_MS));
        RunRethrow();
        if (runBetween)
        {
            Simulator::ScheduleNow(Guarded(second));
            Simulator::Stop(MilliSeconds(LIMIT_MS));
            RunRethrow();
        }
        return !c->IsRunning();
    };
    EXPECT_ROCE_ERROR(startTwice(false),
                      "allgather of size 4096 while the allreduce of size 1048576 started at "
                      "\\+?0(\\.0*)?us is still running \\(one operation at a time\\)");
    // Once the first has finished, the next may start.
    EXPECT_TRUE(startTwice(true));
}

TEST(CollectiveErrorTest, MoreRanksThanGpus)
{
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(ZONE_GPUS + 1)),
                      "17 ranks but the fabric has 16 GPUs");
    MakeCommunicator(FirstGpus(ZONE_GPUS));
}

TEST(CollectiveErrorTest, GpuNotInTheFabric)
{
    EXPECT_ROCE_ERROR(MakeCommunicator({0, 1, ZONE_GPUS}),
                      "GPU 16 is not in the fabric \\(16 GPUs\\)");
    MakeCommunicator({0, 1, ZONE_GPUS - 1});
}

TEST(CollectiveErrorTest, SameGpuTwice)
{
    EXPECT_ROCE_ERROR(MakeCommunicator({0, 9, 2, 9}), "GPU 9 is rank 1 and again rank 3");
    // GPU 1 and GPU 9 have the same local index on different servers: two ranks.
    MakeCommunicator({1, 9, 2, 10});
}

TEST(CollectiveErrorTest, QpsPerConnectionRange)
{
    auto qps = [](uint32_t n) {
        return [n](RoceCollectiveHelper& c) {
            c.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(n));
        };
    };
    // The checker's range is NCCL_IB_QPS_PER_CONNECTION's: 1..64.
    EXPECT_ROCE_ERROR(
        MakeCommunicator(FirstGpus(4), qps(0)),
        "ns3::RoceCommunicator::QpsPerConnection=0 is not accepted \\(valid: .*1:64\\)");
    EXPECT_ROCE_ERROR(
        MakeCommunicator(FirstGpus(4), qps(65)),
        "ns3::RoceCommunicator::QpsPerConnection=65 is not accepted \\(valid: .*1:64\\)");
    // GPUs 0 and 8 are on different servers: 64 QPs are made over the fabric.
    EXPECT_TRUE(RunApp(
        [&qps](RoceCollectiveHelper& c) {
            qps(64)(c);
            c.SetCommunicatorAttribute("QpMode", StringValue("rr"));
        },
        {64 << 10},
        9));
}

TEST(CollectiveErrorTest, QpModeUnknown)
{
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(4),
                                       [](RoceCollectiveHelper& c) {
                                           c.SetCommunicatorAttribute("QpMode", StringValue("xyz"));
                                       }),
                      "ns3::RoceCommunicator::QpMode=xyz is not accepted \\(valid: split\\|rr\\)");
}

TEST(CollectiveErrorTest, QpModeOutsideItsNamesIsPrintedAsANumber)
{
    // An EnumValue carrying a number the checker has no name for: the error
    // names the number (the checker cannot print it) and the valid names.
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(4),
                                       [](RoceCollectiveHelper& c) {
                                           c.SetCommunicatorAttribute(
                                               "QpMode",
                                               EnumValue(static_cast<RoceCommunicator::QpMode>(7)));
                                       }),
                      "ns3::RoceCommunicator::QpMode=7 is not accepted \\(valid: split\\|rr\\)");
}

TEST(CollectiveErrorTest, ChannelsAndChunkSizeRange)
{
    auto set = [](const std::string& name, uint64_t v) {
        return [name, v](RoceCollectiveHelper& c) {
            c.SetCollectiveAttribute(name, UintegerValue(v));
        };
    };
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(4), set("Channels", 0)),
                      "ns3::RoceCollective::Channels=0 is not accepted \\(valid: .*1:64\\)");
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(4), set("Channels", 65)),
                      "ns3::RoceCollective::Channels=65 is not accepted");
    // A chunk is at least one 1 KiB RDMA message.
    EXPECT_ROCE_ERROR(MakeCommunicator(FirstGpus(4), set("ChunkSize", 1023)),
                      "ns3::RoceCollective::ChunkSize=1023 is not accepted \\(valid: .*1024:");
    EXPECT_TRUE(RunApp(set("ChunkSize", 1024), {64 << 10}));
    EXPECT_TRUE(RunApp(set("Channels", 64), {64 << 10}));
}

TEST(CollectiveErrorTest, NoSizes)
{
    EXPECT_ROCE_ERROR(RunApp([](RoceCollectiveHelper&) {}, {}),
                      "RoceCollectiveHelper::Install: no sizes to run \\(sizes is empty\\)");
    // An application made without the helper refuses to start without sizes
    // (its start runs this check; an error thrown from the start event itself
    // would leave the event allocated, see Guarded).
    auto appWithoutSizes = []() {
        DestroyOnExit destroy;
        RoceAiZone zone = SmallZone();
        RoceCollectiveHelper coll;
        Ptr<RoceCommunicator> comm = coll.CreateCommunicator(zone, FirstGpus(4));
        Ptr<RoceCollectiveApp> app = CreateObject<RoceCollectiveApp>();
        app->SetCommunicator(comm);
        app->CheckConfiguration();
    };
    EXPECT_ROCE_ERROR(appWithoutSizes(),
                      "RoceCollectiveApp: no sizes to run \\(SetSizes got none\\)");
}

TEST(CollectiveErrorTest, SendToARankOutOfRange)
{
    EXPECT_ROCE_ERROR(
        {
            RoceAiZoneHelper zone;
            zone.SetGpus(16);
            RoceAiZone fabric = zone.Build();
            Ptr<RoceCommunicator> comm =
                RoceCollectiveHelper().CreateCommunicator(fabric, {0, 1, 8, 9});
            comm->Send(0,
                       4,
                       fabric.GetNic(0),
                       fabric.GetNic(8),
                       1000,
                       0,
                       MakeNullCallback<void, uint64_t>());
        },
        "RoceCommunicator::Send: rank 4 out of range \\(4 ranks\\)");
    // A sender out of range was counted in a per-rank array before any check.
    EXPECT_ROCE_ERROR(
        {
            RoceAiZoneHelper zone;
            zone.SetGpus(16);
            RoceAiZone fabric = zone.Build();
            Ptr<RoceCommunicator> comm =
                RoceCollectiveHelper().CreateCommunicator(fabric, {0, 1, 8, 9});
            comm->Send(7,
                       0,
                       fabric.GetNic(8),
                       fabric.GetNic(0),
                       1000,
                       0,
                       MakeNullCallback<void, uint64_t>());
        },
        "RoceCommunicator::Send: rank 7 out of range \\(4 ranks\\)");
}
