/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Collectives on AI Zone fabrics: every operation delivers to every rank the
 * bytes its algorithm dictates (over NICs and over the scale-up domain), QP
 * scaling keeps the bytes and makes N QPs per connection, and a ring
 * AllReduce on a non-blocking fabric takes the alpha-beta time computed here
 * from the fabric's rates and delays.
 */

#include "../rocev2-frame-bytes.h"
#include "rocev2-collective-test-helpers.h"

#include "ns3/roce-ai-zone-helper.h"
#include "ns3/roce-collective-app.h"
#include "ns3/roce-collective-helper.h"
#include "ns3/roce-collective.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-nvlink-domain.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <numeric>

using namespace ns3;
using ns3::rocev2test::AllGpus;
using ns3::rocev2test::SmallZone;

/**
 * Bytes per rank, for each operation on 2 servers x 4 GPUs (p = 8 ranks, 2
 * channels, chunks smaller than a slice): a rank receives 2(p-1)/p S
 * (AllReduce), (p-1)/p S (AllGather, ReduceScatter, AllToAll) or S
 * (Broadcast, except the root: 0; SendRecv), and all ranks together send what they
 * receive. A ring crosses a NIC only between servers: per channel 2 of its 8
 * edges, each carrying what a ring edge carries, 2(p-1) S_c / p for
 * AllReduce; AllToAll sends S/p to each of the 4 ranks of the other server.
 */
class CollectiveBytesTestCase : public TestCase
{
  public:
    CollectiveBytesTestCase()
        : TestCase("Every operation delivers to every rank the bytes of its algorithm")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 8;
        const uint64_t S = 1 << 20; // divisible by p, channels and chunks
        for (auto op : {RoceCollective::ALL_REDUCE,
                        RoceCollective::ALL_GATHER,
                        RoceCollective::REDUCE_SCATTER,
                        RoceCollective::ALL_TO_ALL,
                        RoceCollective::BROADCAST,
                        RoceCollective::SEND_RECV})
        {
            RoceAiZone z = SmallZone(2, 4);
            Ptr<RoceCommunicator> comm = RoceCollectiveHelper().CreateCommunicator(z, AllGpus(z));
            Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
            coll->SetAttribute("Channels", UintegerValue(2));
            coll->SetAttribute("ChunkSize", UintegerValue(16384));
            coll->SetAttribute("Root", UintegerValue(3));
            coll->SetCommunicator(comm);
            bool done = false;
            coll->Start(op, RoceCollective::DefaultAlgorithm(op), S, Callback<void>([&done]() {
                            done = true;
                        }));
            Simulator::Run();
            const std::string name = RoceCollective::GetOpName(op);
            NS_TEST_EXPECT_MSG_EQ(done, true, name << " finished");
            uint64_t expect = 0;
            uint64_t nic = 0;
            switch (op)
            {
            case RoceCollective::ALL_REDUCE:
                expect = 2 * (p - 1) * S / p;
                nic = 2 * (2 * (p - 1) * S / p); // 2 server-crossing edges per ring
                break;
            case RoceCollective::BROADCAST:
                // The chain from the root skips only the ring edge into the
                // root, a server crossing only if the root (GPU 3) entered its
                // server in that channel (channel c enters at GPU c: never).
                expect = S;
                nic = 2 * S;
                break;
            case RoceCollective::SEND_RECV:
                // Rank r to r + 1: ranks 3 -> 4 and 7 -> 0 cross servers.
                expect = S;
                nic = 2 * S;
                break;
            case RoceCollective::ALL_TO_ALL:
                expect = (p - 1) * S / p;
                nic = p * 4 * (S / p); // each rank to the 4 ranks of the other server
                break;
            default:
                expect = (p - 1) * S / p;
                nic = 2 * (p - 1) * S / p;
            }
            uint64_t sent = 0;
            uint64_t received = 0;
            for (uint32_t r = 0; r < p; ++r)
            {
                const uint64_t want = op == RoceCollective::BROADCAST && r == 3 ? 0 : expect;
                NS_TEST_EXPECT_MSG_EQ(comm->GetBytesReceived(r), want, name << " rank " << r);
                NS_TEST_EXPECT_MSG_GT(coll->GetRankFinishTime(r), Time(0), name << " rank done");
                sent += comm->GetBytesSent(r);
                received += comm->GetBytesReceived(r);
            }
            NS_TEST_EXPECT_MSG_EQ(sent, received, name << ": all sent arrived");
            NS_TEST_EXPECT_MSG_EQ(comm->GetNicBytes(), nic, name << " bytes over NICs");
            // Rail aligned: channel c's ring leaves and enters servers through
            // the NIC of local GPU c, so only GPUs 0 and 1 of a server have
            // QPs; AllToAll uses every GPU's own NIC.
            for (uint32_t g = 0; g < p; ++g)
            {
                const bool used =
                    op == RoceCollective::ALL_TO_ALL ||
                    (op == RoceCollective::SEND_RECV ? g % 4 == 3 || g % 4 == 0 : g % 4 < 2);
                const bool hasQps = z.GetNic(g)->GetNQps() > 0;
                NS_TEST_EXPECT_MSG_EQ(hasQps, used, name << " NIC of GPU " << g);
            }
            // Where the bytes arrive, counted by the receivers, not by the
            // communicator: the receiving QPs' delivered payload bytes
            // (RoCE, between servers) and the scale-up domains' received
            // bytes (NVLink, within a server). The algorithm must move, in
            // all, what the ranks receive: p 2(p-1)/p S for AllReduce,
            // p (p-1)/p S for AllGather, ReduceScatter and AllToAll, (p-1) S
            // for Broadcast, p S for SendRecv; of it, `nic` crosses servers
            // (derived above from the ring and the rail layout) and the
            // rest stays within a server. Both are exact byte counts.
            const uint64_t moved = op == RoceCollective::BROADCAST ? (p - 1) * expect : p * expect;
            uint64_t qpDelivered = 0;
            uint64_t nvlinkReceived = 0;
            for (uint32_t g = 0; g < p; ++g)
            {
                Ptr<RoceNetDevice> nic = z.GetNic(g);
                for (uint32_t i = 0; i < nic->GetNQps(); ++i)
                {
                    qpDelivered += nic->GetQpByIndex(i)->GetStats().bytesDelivered;
                }
                // 4 GPUs per server, local GPU g % 4 of its server's domain.
                nvlinkReceived += z.GetNvlink(g)->GetRxBytes(g % 4);
            }
            NS_TEST_EXPECT_MSG_EQ(qpDelivered, nic, name << ": bytes delivered by receiving QPs");
            NS_TEST_EXPECT_MSG_EQ(nvlinkReceived,
                                  moved - nic,
                                  name << ": bytes received over the scale-up domains");
            Simulator::Destroy();
        }
    }
};

/**
 * QP scaling: with 4 QPs per connection, "split" and "rr" deliver the same
 * bytes as 1 QP, and the communicator makes 4 QPs per connection: a ring
 * over 4 one-GPU servers has 4 connections per channel (2 channels).
 */
class QpScalingBytesTestCase : public TestCase
{
  public:
    QpScalingBytesTestCase()
        : TestCase("QP scaling keeps the bytes and makes N QPs per connection")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t S = 1 << 20;
        for (std::string mode : {"split", "rr"})
        {
            for (uint32_t n : {1u, 4u})
            {
                RoceAiZone z = SmallZone(4, 1);
                RoceCollectiveHelper h;
                h.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(n));
                h.SetCommunicatorAttribute("QpMode", StringValue(mode));
                h.SetCollectiveAttribute("Channels", UintegerValue(2));
                h.SetCollectiveAttribute("ChunkSize", UintegerValue(32768));
                Ptr<RoceCommunicator> comm = h.CreateCommunicator(z, AllGpus(z));
                Ptr<RoceCollectiveApp> app = h.Install(comm, {S});
                Simulator::Run();
                NS_TEST_EXPECT_MSG_EQ(app->IsFinished(), true, mode << " x" << n);
                for (uint32_t r = 0; r < 4; ++r)
                {
                    NS_TEST_EXPECT_MSG_EQ(comm->GetBytesReceived(r), 2 * 3 * S / 4, "rank " << r);
                }
                // A size that divides by nothing: every step still moves
                // each slice once, 2(p-1) S in all.
                Ptr<RoceCollective> odd = CreateObject<RoceCollective>();
                odd->SetAttribute("Channels", UintegerValue(3));
                odd->SetCommunicator(comm);
                comm->ResetCounters();
                const uint64_t oddSize = S + 7;
                odd->Start(RoceCollective::ALL_REDUCE, RoceCollective::RING, oddSize);
                Simulator::Run();
                uint64_t total = 0;
                for (uint32_t r = 0; r < 4; ++r)
                {
                    total += comm->GetBytesReceived(r);
                }
                NS_TEST_EXPECT_MSG_EQ(total, 2 * 3 * oddSize, mode << " x" << n << " odd size");
                // The receiving QPs accepted exactly these bytes (both sizes).
                uint64_t delivered = 0;
                for (uint32_t g = 0; g < 4; ++g)
                {
                    for (uint32_t i = 0; i < z.GetNic(g)->GetNQps(); ++i)
                    {
                        delivered += z.GetNic(g)->GetQpByIndex(i)->GetStats().bytesDelivered;
                    }
                }
                NS_TEST_EXPECT_MSG_EQ(delivered,
                                      2 * 3 * (S + oddSize),
                                      mode << " x" << n << " wire");
                // Channels c = 0, 1 with one GPU per server enter each server
                // at its only GPU: both rings use the same 4 NIC pairs.
                NS_TEST_EXPECT_MSG_EQ(comm->GetNQps(), 4 * n, mode << " QPs (3 channels too)");
                Simulator::Destroy();
            }
        }
    }
};

/**
 * Ring AllReduce against the alpha-beta closed form on a non-blocking
 * fabric with nothing else on it: p = 8 one-GPU servers, one per rack, so
 * every ring edge crosses a CTSW (4 links, 2 x 1.5 us + 2 x 4 us) and no two
 * flows share a link; 1 channel, one chunk per slice. A step moves a slice
 * s = S/p as a WRITE of n = ceil(s / 4096) packets: its last byte arrives
 * after (s + n (58 + 24) + 16) 8 / R of serialization at the NIC, 3 more
 * store-and-forward times of the last frame and 11 us of propagation, and
 * the next step starts at once, so T = 2(p-1) x that. Tolerance 3%.
 * For S = 256 MiB, busbw = 2(p-1)/p S / T is within 5% of the NIC's
 * wire-efficiency-limited rate R x 4096 / (4096 + 82).
 */
class RingAlphaBetaTestCase : public TestCase
{
  public:
    /** \param size S */
    RingAlphaBetaTestCase(uint64_t size)
        : TestCase("Ring AllReduce of " + std::to_string(size >> 20) +
                   " MiB takes the alpha-beta time of the fabric"),
          m_size(size)
    {
    }

  private:
    uint64_t m_size;

    void DoRun() override
    {
        const uint32_t p = 8;
        const double R = 400e9;
        RoceAiZone z = SmallZone(p, 1);
        RoceCollectiveHelper h;
        h.SetCollectiveAttribute("Channels", UintegerValue(1));
        h.SetCollectiveAttribute("ChunkSize", UintegerValue(m_size));
        Ptr<RoceCommunicator> comm = h.CreateCommunicator(z, AllGpus(z));
        Ptr<RoceCollectiveApp> app = h.Install(comm, {m_size});
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(app->IsFinished(), true, "finished");
        const double t = app->GetResults()[0].timeUs * 1e-6;
        const double expect = rocev2test::RingAllReduceSeconds(double(m_size), p, R);
        NS_TEST_EXPECT_MSG_EQ_TOL(t, expect, 0.03 * expect, "alpha-beta time");
        if (m_size >= (256u << 20))
        {
            const double busbw = 2.0 * (p - 1) / p * m_size * 8 / t;
            const double limit = R * 4096 / (4096 + 58 + 24);
            NS_TEST_EXPECT_MSG_EQ_TOL(busbw, limit, 0.05 * limit, "busbw vs wire-limited rate");
        }
        Simulator::Destroy();
    }
};

/**
 * AllToAllv on 2 servers x 4 GPUs with a size per pair, bytes[r][j] = 1000
 * (r + 1) + 12 j + 1 (so that no two pairs send alike): rank j receives the
 * column sum over r != j, pairs on different servers cross NICs, the others
 * the scale-up domain; the reported size is the mean a rank sends.
 */
class AllToAllvTestCase : public TestCase
{
  public:
    AllToAllvTestCase()
        : TestCase("AllToAllv delivers each pair's own size")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t p = 8;
        RoceAiZone z = SmallZone(2, 4);
        Ptr<RoceCommunicator> comm = RoceCollectiveHelper().CreateCommunicator(z, AllGpus(z));
        Ptr<RoceCollective> coll = CreateObject<RoceCollective>();
        coll->SetAttribute("ChunkSize", UintegerValue(2048));
        coll->SetCommunicator(comm);
        std::vector<std::vector<uint64_t>> bytes(p, std::vector<uint64_t>(p));
        uint64_t total = 0;
        uint64_t crossing = 0;
        for (uint32_t r = 0; r < p; ++r)
        {
            for (uint32_t j = 0; j < p; ++j)
            {
                bytes[r][j] = 1000 * (r + 1) + 12 * j + 1;
                total += r != j ? bytes[r][j] : 0;
                crossing += r / 4 != j / 4 ? bytes[r][j] : 0;
            }
        }
        bool done = false;
        coll->StartAllToAllv(bytes, Callback<void>([&done]() { done = true; }));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(done, true, "finished");
        for (uint32_t j = 0; j < p; ++j)
        {
            uint64_t column = 0;
            for (uint32_t r = 0; r < p; ++r)
            {
                column += r != j ? bytes[r][j] : 0;
            }
            NS_TEST_EXPECT_MSG_EQ(comm->GetBytesReceived(j), column, "rank " << j);
        }
        NS_TEST_EXPECT_MSG_EQ(comm->GetNicBytes(), crossing, "bytes between servers");
        NS_TEST_EXPECT_MSG_EQ(comm->GetNicBytes() + comm->GetScaleUpBytes(), total, "all bytes");
        Simulator::Destroy();
    }
};

class RoceCollectiveTestSuite : public TestSuite
{
  public:
    RoceCollectiveTestSuite()
        : TestSuite("rocev2-collective", Type::UNIT)
    {
        AddTestCase(new CollectiveBytesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new QpScalingBytesTestCase, RoceTestDuration::QUICK);
        AddTestCase(new AllToAllvTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RingAlphaBetaTestCase(8 << 20), RoceTestDuration::QUICK);
        AddTestCase(new RingAlphaBetaTestCase(256u << 20), RoceTestDuration::EXTENSIVE);
    }
};

static RoceCollectiveTestSuite g_collectiveTestSuite;
