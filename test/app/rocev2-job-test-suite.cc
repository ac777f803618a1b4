/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs read from job files (RoceJobHelper, RoceJobApp): iteration
 * times from the alpha-beta time of each step on a fabric where it is exact
 * (one GPU per server, one channel, one chunk per slice, nothing else on the
 * links), the sum of steps and gaps without overlap and the max with overlap
 * on disjoint communicators, the network-wait share against its definition,
 * and two jobs that share leaf uplinks, each slower than alone.
 */

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-job-app.h"
#include "ns3/roce-job-helper.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

using namespace ns3;

namespace
{

/** NIC and link rate of the AI Zone (bits/s). */
constexpr double R = 400e9;
/** Payload bytes per packet on the AI Zone. */
constexpr double MTU = 4096;
/** Wire bytes per packet beyond the payload: headers 58 + FCS, preamble, IFG 24. */
constexpr double WIRE = 58 + 24;
/** Propagation NIC-leaf (1.5 us) and leaf-CTSW (4 us), each crossed twice. */
constexpr double PROPAGATION = 2 * 1.5e-6 + 2 * 4e-6;

/**
 * \return the time (s) of a ring AllReduce of S bytes over p ranks, each on
 * its own server, with one channel and one chunk per slice, on a fabric where
 * each ring edge has its path to itself: 2(p-1) steps, each the
 * serialization of a slice s = S/p as a WRITE of n = ceil(s / MTU) packets
 * (+16 B RETH), 3 more store-and-forward times of the last frame (leaf, CTSW,
 * leaf) and the propagation (the derivation of RingAlphaBetaTestCase in
 * rocev2-collective-test-suite.cc).
 */
double
RingAllReduceTime(double S, uint32_t p)
{
    const double s = S / p;
    const double n = std::ceil(s / MTU);
    const double lastPayload = s - (n - 1) * MTU;
    const double step =
        (s + n * WIRE + 16) * 8 / R + 3 * (lastPayload + WIRE) * 8 / R + PROPAGATION;
    return 2 * (p - 1) * step;
}

/**
 * \return a 2-tier zone of `servers` servers of `gpus` GPUs, one server per
 *         rack, `uplinks` leaf uplinks to as many CTSWs
 */
RoceAiZone
Zone(uint32_t servers, uint32_t gpus, uint32_t uplinks)
{
    RoceAiZoneHelper h;
    h.SetGpusPerServer(gpus);
    h.SetServersPerRack(1);
    h.SetGpus(servers * gpus);
    h.SetUplinks(uplinks);
    h.SetCtsws(uplinks);
    return h.Build();
}

/** \return the jobs of a job file written with this text to a temporary file */
std::vector<RoceJobHelper::JobSpec>
JobFile(const std::string& name, const std::string& text)
{
    const std::string path = std::string(P_tmpdir) + "/rocev2-job-test-" + name + ".json";
    {
        std::ofstream out(path);
        out << text;
    }
    std::vector<RoceJobHelper::JobSpec> jobs = RoceJobHelper::Read(path);
    std::remove(path.c_str());
    return jobs;
}

/**
 * \return the jobs installed on the zone with one channel and chunks of
 *         `chunk` bytes (at least every slice, so the alpha-beta time is exact)
 */
std::vector<Ptr<RoceJobApp>>
InstallJobs(const RoceAiZone& zone, const std::vector<RoceJobHelper::JobSpec>& jobs, uint64_t chunk)
{
    RoceJobHelper h;
    h.SetCollectiveAttribute("Channels", UintegerValue(1));
    h.SetCollectiveAttribute("ChunkSize", UintegerValue(chunk));
    return h.Install(zone, jobs);
}

/** \return the time (s) of one AllReduce of S bytes over the zone's GPUs, alone on a fresh zone */
double
AloneAllReduce(uint32_t servers, const std::vector<uint32_t>& gpus, uint64_t S, uint32_t perServer)
{
    RoceAiZone z = Zone(servers, perServer, 4);
    RoceCollectiveHelper h;
    h.SetCollectiveAttribute("Channels", UintegerValue(1));
    h.SetCollectiveAttribute("ChunkSize", UintegerValue(S));
    Ptr<RoceCollectiveApp> app = h.Install(h.CreateCommunicator(z, gpus), {S});
    Simulator::Run();
    const double t = app->GetResults().at(0).timeUs * 1e-6;
    Simulator::Destroy();
    return t;
}

} // namespace

/**
 * A two-step job file without overlap: 8 MiB then 2 MiB AllReduce over 8
 * GPUs on 8 servers, 50 us and 30 us of compute before them, 2 iterations.
 * Each iteration must take g0 + t(8 MiB) + g1 + t(2 MiB):
 * - against the alpha-beta times of the steps (RingAllReduceTime), within
 *   3%: each step's formula holds within 3% (RingAlphaBetaTestCase), so their
 *   sum plus the exact gaps does too;
 * - against each step measured alone on a fresh fabric, within 0.1%: a step
 *   starts >= 30 us (several round trips) after the previous one ended, on an
 *   idle fabric with no congestion state (no CC), so it replays its run
 *   alone; only event order at equal times may differ (ns).
 * The second iteration starts when the first ends. Compute on the critical
 * path is g0 + g1 exactly and the network-wait share is (T - g0 - g1) / T.
 */
class JobSumTestCase : public TestCase
{
  public:
    JobSumTestCase()
        : TestCase("Two steps without overlap take the sum of their times and gaps")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t a = 8 << 20;
        const uint64_t b = 2 << 20;
        auto jobs = JobFile("sum", R"({
  "name": "two-steps",
  "iterations": 2,
  "communicators": [{"name": "all", "gpu_list": [0, 1, 2, 3, 4, 5, 6, 7]}],
  "steps": [
    {"op": "allreduce", "size": "8M", "comm": "all", "gap_us": 50},
    {"op": "allreduce", "size": "2M", "comm": "all", "gap_us": 30, "overlap": false}
  ]
})");
        NS_TEST_ASSERT_MSG_EQ(jobs.size(), 1, "one job");
        NS_TEST_ASSERT_MSG_EQ(jobs[0].steps.size(), 2, "two steps");
        NS_TEST_ASSERT_MSG_EQ(jobs[0].steps[0].bytes, a, "8M is 8 MiB");
        RoceAiZone z = Zone(8, 1, 4);
        auto apps = InstallJobs(z, jobs, a);
        Simulator::Run();
        Ptr<RoceJobApp> app = apps[0];
        NS_TEST_ASSERT_MSG_EQ(app->IsFinished(), true, "the job finished");
        const auto& its = app->GetIterations();
        NS_TEST_ASSERT_MSG_EQ(its.size(), 2, "two iterations");
        Simulator::Destroy();

        const double g = 50e-6 + 30e-6;
        const double formula = g + RingAllReduceTime(a, 8) + RingAllReduceTime(b, 8);
        const std::vector<uint32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
        const double alone = g + AloneAllReduce(8, all, a, 1) + AloneAllReduce(8, all, b, 1);
        for (uint32_t i = 0; i < 2; ++i)
        {
            const double t = its[i].time.GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(t, formula, 0.03 * formula, "sum of alpha-beta times");
            NS_TEST_EXPECT_MSG_EQ_TOL(t, alone, 1e-3 * alone, "sum of the steps alone");
            NS_TEST_EXPECT_MSG_EQ(its[i].compute, MicroSeconds(80), "compute = g0 + g1");
            NS_TEST_EXPECT_MSG_EQ(its[i].lastStep, 1, "the last step ends the iteration");
            NS_TEST_EXPECT_MSG_EQ_TOL(app->GetNetworkWaitShare(i),
                                      (t - g) / t,
                                      1e-9,
                                      "wait share = (T - C) / T");
        }
        NS_TEST_EXPECT_MSG_EQ(its[1].start, its[0].start + its[0].time, "back to back");
    }
};

/**
 * Two steps on disjoint communicators, the second overlapping the first:
 * A = GPUs 0-3 (8 MiB, gap 20 us), B = GPUs 4-7 (2 MiB, overlap, gap 10 us),
 * on 8 one-GPU servers with a leaf each. A's ring edges use only A's NICs,
 * leaves and the leaf-CTSW links of A's leaves (one flow per leaf over 4
 * uplinks), B's only B's, so neither slows the other: the iteration takes
 * max(20 us + t_A, 30 us + t_B), not the sum, with alpha-beta times (3%, as
 * in JobSumTestCase). A finishes last, B's gap was hidden behind A's
 * network time, so compute on the critical path is 20 us, not 30 us. In a
 * second job B is 8 MiB and A 2 MiB: then B finishes last and the critical
 * path holds both gaps, 30 us.
 */
class JobOverlapTestCase : public TestCase
{
  public:
    JobOverlapTestCase()
        : TestCase("Overlapping steps on disjoint communicators take the max of their times")
    {
    }

  private:
    void DoRun() override
    {
        auto jobs = JobFile("overlap", R"({"jobs": [
  {"name": "a-long",
   "communicators": [{"name": "A", "gpu_list": [0, 1, 2, 3]},
                     {"name": "B", "gpu_list": [4, 5, 6, 7]}],
   "steps": [{"op": "allreduce", "size": "8M", "comm": "A", "gap_us": 20},
             {"op": "allreduce", "size": "2M", "comm": "B", "gap_us": 10, "overlap": true}]}
]})");
        auto jobs2 = JobFile("overlap2", R"({"jobs": [
  {"name": "b-long",
   "communicators": [{"name": "A", "gpu_list": [0, 1, 2, 3]},
                     {"name": "B", "gpu_list": [4, 5, 6, 7]}],
   "steps": [{"op": "allreduce", "size": "2M", "comm": "A", "gap_us": 20},
             {"op": "allreduce", "size": "8M", "comm": "B", "gap_us": 10, "overlap": true}]}
]})");
        const double big = RingAllReduceTime(8 << 20, 4);
        const double small = RingAllReduceTime(2 << 20, 4);
        for (int k = 0; k < 2; ++k)
        {
            RoceAiZone z = Zone(8, 1, 4);
            auto apps = InstallJobs(z, k == 0 ? jobs : jobs2, 8 << 20);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(apps[0]->IsFinished(), true, "finished");
            const RoceJobApp::Iteration it = apps[0]->GetIterations()[0];
            Simulator::Destroy();
            const double tA = k == 0 ? big : small;
            const double tB = k == 0 ? small : big;
            const double expect = std::max(20e-6 + tA, 30e-6 + tB);
            const double t = it.time.GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(t, expect, 0.03 * expect, "max, not the sum");
            NS_TEST_EXPECT_MSG_LT(t, 0.9 * (30e-6 + tA + tB), "well below the sum");
            NS_TEST_EXPECT_MSG_EQ(it.lastStep, uint32_t(k), "the long step ends last");
            NS_TEST_EXPECT_MSG_EQ(it.compute,
                                  MicroSeconds(k == 0 ? 20 : 30),
                                  "compute on the critical path");
        }
    }
};

/**
 * Two jobs at once on one fabric, sharing links: 4 servers of 2 GPUs, a leaf
 * each with a single uplink (to one CTSW). Job "left" is GPU 0 of every
 * server, job "right" GPU 1; each runs 2 iterations of a 4 MiB ring
 * AllReduce. Each ring edge goes NIC - leaf - CTSW - leaf - NIC, so every
 * leaf's one uplink (and CTSW downlink) carries one ring edge of each job:
 * twice the bytes of a job alone. Alone (on the same fabric) a job takes the
 * alpha-beta time (3%). Together both must finish; each must be slower than
 * alone, by more than 20%; and the pair cannot beat the shared uplink: the
 * later one needs at least the time the uplink takes to serialize both jobs'
 * bytes, 2 x 2(p-1) x (S/p + n x 82 B + 16 B) x 8 / R per iteration (less 2%
 * for timing of the two jobs' ends).
 */
class TwoJobsTestCase : public TestCase
{
  public:
    TwoJobsTestCase()
        : TestCase("Two jobs sharing leaf uplinks both finish, each slower than alone")
    {
    }

  private:
    static std::string Job(const std::string& name, const std::string& gpus)
    {
        return R"({"name": ")" + name + R"(", "iterations": 2,
   "communicators": [{"name": "dp", "gpu_list": )" +
               gpus + R"(}],
   "steps": [{"op": "allreduce", "size": "4M", "comm": "dp", "gap_us": 10}]})";
    }

    void DoRun() override
    {
        const uint64_t S = 4 << 20;
        const uint32_t p = 4;
        const std::string left = Job("left", "[0, 2, 4, 6]");
        const std::string right = Job("right", "[1, 3, 5, 7]");
        double alone[2];
        for (int k = 0; k < 2; ++k)
        {
            RoceAiZone z = Zone(4, 2, 1);
            auto apps =
                InstallJobs(z, JobFile("alone", "{\"jobs\": [" + (k ? right : left) + "]}"), S);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(apps[0]->IsFinished(), true, "alone finished");
            alone[k] = apps[0]->GetMeanIterationTime().GetSeconds();
            Simulator::Destroy();
            const double expect = 10e-6 + RingAllReduceTime(S, p);
            NS_TEST_EXPECT_MSG_EQ_TOL(alone[k], expect, 0.03 * expect, "alone: alpha-beta");
        }
        RoceAiZone z = Zone(4, 2, 1);
        auto apps = InstallJobs(z, JobFile("two", "{\"jobs\": [" + left + ", " + right + "]}"), S);
        Simulator::Run();
        double together[2];
        for (int k = 0; k < 2; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(apps[k]->IsFinished(), true, "both jobs finished");
            together[k] = apps[k]->GetMeanIterationTime().GetSeconds();
            NS_TEST_EXPECT_MSG_GT(together[k], 1.2 * alone[k], "slower than alone");
        }
        Simulator::Destroy();
        const double s = double(S) / p;
        const double bytes = 2 * (p - 1) * (s + std::ceil(s / MTU) * WIRE + 16);
        const double uplink = 2 * bytes * 8 / R;
        NS_TEST_EXPECT_MSG_GT(std::max(together[0], together[1]),
                              0.98 * uplink,
                              "the shared uplink carries both jobs");
    }
};

/** The rocev2-job suite. */
class RoceJobTestSuite : public TestSuite
{
  public:
    RoceJobTestSuite()
        : TestSuite("rocev2-job", Type::UNIT)
    {
        AddTestCase(new JobSumTestCase, RoceTestDuration::QUICK);
        AddTestCase(new JobOverlapTestCase, RoceTestDuration::QUICK);
        AddTestCase(new TwoJobsTestCase, RoceTestDuration::QUICK);
    }
};

static RoceJobTestSuite g_jobTestSuite;
