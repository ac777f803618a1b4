/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives over a Distributed communicator (RoceCommunicator's
 * Distributed, what RoceMpiHelper::Enable selects), in one process: the
 * mode MPI runs use, whose results do not depend on the number of ranks
 * (mpi/determinism compares 1, 2 and 4 ranks). A sender learns of an
 * arrival at another node NotifyDelay later, so a ring whose every step
 * waits for its buffer (Steps 1) is slower by that delay per step; every
 * algorithm still delivers every byte its plan dictates.
 */

#include "rocev2-collective-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/nstime.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;
using ns3::rocev2test::AllGpus;
using ns3::rocev2test::RingAllReduceSeconds;
using ns3::rocev2test::SmallZone;

namespace
{

/** What one run leaves behind. */
struct DistRun
{
    double seconds{0};               //!< finish - start
    bool done{false};                //!< the done callback ran
    std::vector<uint64_t> sent;      //!< per rank
    std::vector<uint64_t> received;  //!< per rank
    std::vector<int64_t> rankFinish; //!< per rank, ns
    uint64_t nicBytes{0};            //!< over NICs
};

/**
 * \brief Run one operation on every GPU of a fresh SmallZone and destroy the simulation.
 * \param servers servers \param gpus GPUs per server \param distributed Distributed
 * \param notify NotifyDelay \param op op \param algo algorithm \param size S
 * \param chunk ChunkSize \param steps Steps
 * \return the run
 */
DistRun
RunDist(uint32_t servers,
        uint32_t gpus,
        bool distributed,
        Time notify,
        RoceCollective::Op op,
        RoceCollective::Algorithm algo,
        uint64_t size,
        uint64_t chunk,
        uint32_t steps)
{
    RoceAiZone z = SmallZone(servers, gpus);
    RoceCollectiveHelper h;
    h.SetCommunicatorAttribute("Distributed", BooleanValue(distributed));
    h.SetCommunicatorAttribute("NotifyDelay", TimeValue(notify));
    Ptr<RoceCommunicator> comm = h.CreateCommunicator(z, AllGpus(z));
    Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
    coll->SetAttribute("Channels", UintegerValue(1));
    coll->SetAttribute("ChunkSize", UintegerValue(chunk));
    coll->SetAttribute("Steps", UintegerValue(steps));
    coll->SetCommunicator(comm);
    DistRun run;
    bool* done = &run.done;
    coll->Start(op, algo, size, Callback<void>([done]() { *done = true; }));
    Simulator::Run();
    run.seconds = (coll->GetFinishTime() - coll->GetStartTime()).GetSeconds();
    for (uint32_t r = 0; r < comm->GetNRanks(); ++r)
    {
        run.sent.push_back(comm->GetBytesSent(r));
        run.received.push_back(comm->GetBytesReceived(r));
        run.rankFinish.push_back(coll->GetRankFinishTime(r).GetNanoSeconds());
    }
    run.nicBytes = comm->GetNicBytes();
    Simulator::Destroy();
    return run;
}

} // namespace

/**
 * Ring AllReduce of S = 4 MiB on 4 one-GPU servers, one channel, one chunk
 * per slice, Steps 1: position q sends step t once step t - 1 has arrived
 * from q - 1 and once it knows its own step t - 1 has arrived at q + 1.
 * The ring runs in lockstep, so without Distributed every step takes W, a
 * slice's WRITE time (2(p-1) W in all, RingAllReduceSeconds); with
 * Distributed the notice comes D = NotifyDelay after the arrival, so each
 * step but the first starts D later: 2(p-1) W + (2(p-1) - 1) D. A rank's
 * finish is its last arrival (not its last notice). Both within 1 %.
 */
class DistributedRingNoticeTestCase : public TestCase
{
  public:
    DistributedRingNoticeTestCase()
        : TestCase("Distributed ring: each step waits NotifyDelay for its sender's notice")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 4;
        const uint64_t size = 4 << 20;
        const Time d = MicroSeconds(10);
        const double w = RingAllReduceSeconds(size, p);
        for (bool distributed : {false, true})
        {
            const DistRun r = RunDist(p,
                                      1,
                                      distributed,
                                      d,
                                      RoceCollective::ALL_REDUCE,
                                      RoceCollective::RING,
                                      size,
                                      size / p,
                                      1);
            NS_TEST_ASSERT_MSG_EQ(r.done, true, "the AllReduce finished");
            const double want = w + (distributed ? (2 * (p - 1) - 1) * d.GetSeconds() : 0);
            NS_TEST_ASSERT_MSG_EQ_TOL(r.seconds,
                                      want,
                                      0.01 * want,
                                      "Distributed=" << distributed << ": " << r.seconds * 1e6
                                                     << " us against " << want * 1e6 << " us");
            for (uint32_t q = 0; q < p; ++q)
            {
                NS_TEST_ASSERT_MSG_EQ(r.received[q],
                                      2 * (p - 1) * (size / p),
                                      "rank " << q << " received 2(p-1) slices");
                NS_TEST_ASSERT_MSG_EQ(r.sent[q], 2 * (p - 1) * (size / p), "rank " << q);
            }
        }
    }
};

/**
 * Every algorithm on 2 servers of 4 GPUs (scale-up and NIC edges): with
 * Distributed, every rank sends and receives exactly the bytes it does
 * without, the same bytes cross NICs, every rank finishes, and no rank
 * finishes before its own arrivals could (no earlier than without the
 * notice delay, less 1 us of ECMP noise).
 */
class DistributedBytesTestCase : public TestCase
{
  public:
    DistributedBytesTestCase()
        : TestCase("Distributed: every algorithm moves the bytes of its plan")
    {
    }

  private:
    void DoRun() override
    {
        using C = RoceCollective;
        const std::vector<std::pair<C::Op, C::Algorithm>> cases = {
            {C::ALL_REDUCE, C::RING},
            {C::ALL_REDUCE, C::TREE},
            {C::ALL_REDUCE, C::HALVING_DOUBLING},
            {C::ALL_REDUCE, C::HIERARCHICAL},
            {C::ALL_GATHER, C::RING},
            {C::BROADCAST, C::TREE},
            {C::ALL_TO_ALL, C::DIRECT},
            {C::SEND_RECV, C::DIRECT},
        };
        for (const auto& c : cases)
        {
            const std::string name = C::GetOpName(c.first) + "/" + C::GetAlgorithmName(c.second);
            const uint64_t size = 1 << 20;
            const DistRun a =
                RunDist(2, 4, false, MicroSeconds(2), c.first, c.second, size, 65536, 2);
            const DistRun b =
                RunDist(2, 4, true, MicroSeconds(2), c.first, c.second, size, 65536, 2);
            NS_TEST_ASSERT_MSG_EQ(a.done && b.done, true, name << ": both finished");
            NS_TEST_ASSERT_MSG_EQ(b.nicBytes, a.nicBytes, name << ": bytes over NICs");
            NS_TEST_ASSERT_MSG_GT(b.nicBytes, 0u, name << ": something crossed NICs");
            for (uint32_t r = 0; r < a.sent.size(); ++r)
            {
                NS_TEST_ASSERT_MSG_EQ(b.sent[r], a.sent[r], name << ": rank " << r << " sent");
                NS_TEST_ASSERT_MSG_EQ(b.received[r],
                                      a.received[r],
                                      name << ": rank " << r << " received");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(b.rankFinish[r],
                                            a.rankFinish[r] - 1000,
                                            name << ": rank " << r << " finished no earlier");
            }
        }
    }
};

/** The suite. */
class DistributedCollectiveTestSuite : public TestSuite
{
  public:
    DistributedCollectiveTestSuite()
        : TestSuite("rocev2-distributed-collective", Type::UNIT)
    {
        AddTestCase(new DistributedRingNoticeTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DistributedBytesTestCase, RoceTestDuration::QUICK);
    }
};

/** Static instance. */
static DistributedCollectiveTestSuite g_distributedCollectiveTestSuite;
