/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Result of one incast run.
struct IncastResult
{
    RoceFabricStats stats;     //!< fabric counters
    std::vector<Time> fct;     //!< per-flow completion times
    uint64_t maxPgBytes{0};    //!< largest ingress PG occupancy on the switch
    uint64_t maxPgHeadroom{0}; //!< largest headroom use of any PG
    uint64_t headroom{0};      //!< headroom per lossless PG
    uint64_t sharedPool{0};    //!< shared pool size
    double alpha{0};           //!< dynamic threshold factor
};

/**
 * N senders write `size` bytes each to one receiver through one switch.
 * \param senders N
 * \param size bytes per sender
 * \param pfc PFC on the switch
 * \param buffer switch buffer in bytes
 * \param rto the QPs' retransmission timeout
 * \param observe if set, called with the switch before the run (to connect traces)
 * \return what happened
 */
IncastResult
RunIncast(uint32_t senders,
          uint64_t size,
          bool pfc,
          uint32_t buffer,
          Time rto = MilliSeconds(100),
          const std::function<void(Ptr<RoceSwitch>)>& observe = nullptr)
{
    NodeContainer sw(1);
    NodeContainer hosts(senders + 1);
    RoceSwitchHelper switches;
    switches.SetMmuAttribute("BufferSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)));
    switches.SetMmuAttribute("PfcEnabled", BooleanValue(pfc));
    switches.Install(sw);
    RoceHelper roce;
    roce.SetQpAttribute("RetransmitTimeout", TimeValue(rto));
    roce.SetQpAttribute("RetryCount", UintegerValue(100));
    NetDeviceContainer nics;
    for (uint32_t h = 0; h <= senders; ++h)
    {
        nics.Add(roce.Install(hosts.Get(h), sw.Get(0)).Get(0));
    }
    RoceSwitchHelper::PopulateRoutes();
    RoceSwitchHelper::AssignStreams(1000);
    IncastResult r;
    r.fct.resize(senders);
    for (uint32_t s = 0; s < senders; ++s)
    {
        Time* slot = &r.fct[s];
        roce.CreateQp(nics.Get(s + 1), nics.Get(0))
            .first->PostWrite(size,
                              Callback<void, const RoceCompletion&>(
                                  [slot](const RoceCompletion& c) { *slot = c.completed; }));
    }
    Ptr<RoceSwitch> rs = sw.Get(0)->GetObject<RoceSwitch>();
    if (observe)
    {
        observe(rs);
    }
    Simulator::Run();
    r.stats = RoceFabricStats::Collect();
    Ptr<RoceSharedBufferMmu> mmu = rs->GetMmu();
    for (uint32_t p = 0; p < rs->GetNPorts(); ++p)
    {
        r.maxPgBytes = std::max(r.maxPgBytes, mmu->GetPgMaxBytes(p, 3));
        r.maxPgHeadroom = std::max(r.maxPgHeadroom, mmu->GetPgMaxHeadroomBytes(p, 3));
    }
    r.headroom = mmu->GetHeadroom(0);
    r.sharedPool = mmu->GetSharedPoolSize();
    r.alpha = mmu->GetAlpha();
    Simulator::Destroy();
    return r;
}

} // namespace

/**
 * \ingroup rocev2
 * Lossless incast: with PFC and computed headroom nothing is dropped, every
 * byte arrives, pauses are sent, no PG exceeds threshold + headroom, and the
 * buffer drains to zero.
 */
class LosslessIncastTestCase : public TestCase
{
  public:
    /**
     * \param senders fan-in
     * \param buffer switch buffer in bytes
     * \param size bytes per sender
     */
    LosslessIncastTestCase(uint32_t senders, uint32_t buffer, uint64_t size = 400000)
        : TestCase("lossless " + std::to_string(senders) + ":1 incast of " +
                   std::to_string(size / 1000) + " KB each, " + std::to_string(buffer / 1000000) +
                   " MB buffer"),
          m_senders(senders),
          m_buffer(buffer),
          m_size(size)
    {
    }

  private:
    void DoRun() override
    {
        uint64_t size = m_size;
        IncastResult r = RunIncast(m_senders, size, true, m_buffer);
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "a lossless class dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, m_senders * size, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.retransmits, 0, "retransmissions in a lossless run");
        NS_TEST_ASSERT_MSG_GT(r.stats.pfcPauseTx, 0, "the incast never paused a sender");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0, "MMU counters did not return to zero");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.maxPgHeadroom, r.headroom, "headroom overflowed");
        // Headroom is used: the first XOFF reaches a sender that transmits at
        // line rate one propagation delay after it leaves, and the frames
        // already on the wire still arrive, so 2 x 1 us x 100 Gb/s = 25 KB land
        // after the XOFF. The PG drains meanwhile (headroom first) at only its
        // 1/N share of the egress rate: at least 25 KB x (1 - 1/N) is held in
        // headroom at once. A switch that never uses headroom (e.g. sends XOFF
        // but keeps admitting into the shared pool) fails this.
        const double roundTripOfData = 100e9 * 2e-6 / 8; // 100 Gb/s x 2 x 1 us
        NS_TEST_ASSERT_MSG_GT_OR_EQ(double(r.maxPgHeadroom),
                                    roundTripOfData * (1 - 1.0 / m_senders),
                                    "headroom absorbed the data in flight after XOFF");
        // Shared use of a PG never exceeds alpha * pool (T at an empty buffer).
        uint64_t bound = static_cast<uint64_t>(r.alpha * r.sharedPool) + r.headroom;
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.maxPgBytes, bound, "PG above threshold + headroom");
        // The receiver's link is the bottleneck: the last flow ends near
        // total wire bytes / rate (payload 1024 + 82 B per packet).
        Time last = *std::max_element(r.fct.begin(), r.fct.end());
        double ideal = m_senders * size * (1024.0 + 82) / 1024 * 8 / 100e9;
        NS_TEST_ASSERT_MSG_EQ_TOL(last.GetSeconds(),
                                  ideal,
                                  ideal * 0.02,
                                  "incast not at line rate");
    }

    uint32_t m_senders; //!< fan-in
    uint32_t m_buffer;  //!< switch buffer, bytes
    uint64_t m_size;    //!< bytes per sender
};

/**
 * \ingroup rocev2
 * The same incast without PFC and with a small buffer drops, and go-back-N
 * still delivers every byte.
 */
class LossyIncastTestCase : public TestCase
{
  public:
    LossyIncastTestCase()
        : TestCase("incast without PFC and a small buffer drops; RC recovers every byte")
    {
    }

  private:
    void DoRun() override
    {
        IncastResult r = RunIncast(16, 200000, false, 1000000, MicroSeconds(500));
        NS_TEST_ASSERT_MSG_GT(r.stats.drops, 0, "a lossy incast into 1 MB dropped nothing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.pfcPauseTx, 0, "PFC sent with PFC off");
        NS_TEST_ASSERT_MSG_GT(r.stats.retransmits, 0, "drops without retransmissions");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, 16 * 200000, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0, "MMU counters did not return to zero");
    }
};

/**
 * \ingroup rocev2
 * RED marking against the formula: Kmin = 100 KB and Kmax = 400 KB at the
 * 25 Gb/s reference rate scale to 400 KB and 1600 KB on a 100 Gb/s port, and
 * a packet seeing q queued bytes is marked with probability 0 for q <= Kmin,
 * Pmax (q - Kmin) / (Kmax - Kmin) up to Kmax and 1 above it.
 *
 * Enqueue marking: q is the queue a packet joins; with the queue held at a
 * fixed length the marked fraction follows the formula. Dequeue marking (the
 * default): q is the queue a packet leaves, itself included; a queue filled
 * from empty and drained again gives the first packet in (which joined an
 * empty queue) the longest queue at its dequeue, so it must be marked, and the
 * last packet in, which saw the longest queue when it joined, is never marked.
 */
class EcnRedTestCase : public TestCase
{
  public:
    EcnRedTestCase()
        : TestCase(
              "ECN RED marking follows Kmin, Kmax and Pmax, at enqueue and at dequeue (default)")
    {
    }

  private:
    static constexpr uint64_t KMIN = 400000;           //!< 100 KB x 100G / 25G
    static constexpr uint64_t KMAX = 1600000;          //!< 400 KB x 100G / 25G
    static constexpr double PMAX = 0.2;                //!< marking probability at Kmax
    static constexpr uint32_t FRAME_BYTES = 1000 + 42; //!< payload + UDP, IPv4, Ethernet

    /// \param q queued bytes \return the RED marking probability
    static double Red(uint64_t q)
    {
        if (q <= KMIN)
        {
            return 0;
        }
        if (q > KMAX)
        {
            return 1;
        }
        return PMAX * double(q - KMIN) / double(KMAX - KMIN);
    }

    static Ptr<Packet> Frame(uint32_t payload)
    {
        Ptr<Packet> p = Create<Packet>(payload);
        UdpHeader udp;
        udp.SetDestinationPort(4791);
        p->AddHeader(udp);
        Ipv4Header ip;
        ip.SetProtocol(17);
        ip.SetPayloadSize(p->GetSize());
        ip.SetEcn(Ipv4Header::ECN_ECT0);
        p->AddHeader(ip);
        EthernetHeader eth(false);
        eth.SetLengthType(0x0800);
        p->AddHeader(eth);
        return p;
    }

    /// \param at "Enqueue" or "Dequeue" \param mmu its MMU \return a 100 Gb/s queue disc
    static Ptr<RoceEgressQueueDisc> MakeQueue(const std::string& at, Ptr<RoceSharedBufferMmu> mmu)
    {
        Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
        if (!at.empty())
        {
            q->SetAttribute("EcnMarkAt", StringValue(at));
        }
        q->SetAttribute("EcnKmin", QueueSizeValue(QueueSize("100KB")));
        q->SetAttribute("EcnKmax", QueueSizeValue(QueueSize("400KB")));
        q->SetAttribute("EcnPmax", DoubleValue(PMAX));
        q->Setup(mmu, DataRate("100Gbps"));
        q->Initialize();
        q->AssignStreams(11);
        return q;
    }

    /// \param p a frame \return true if it carries CE
    static bool IsCe(Ptr<const Packet> p)
    {
        return RoceFrame::Parse(*p).ecn == Ipv4Header::ECN_CE;
    }

    void DoRun() override
    {
        // Seed 7 for this case only: suites that run after it in the same
        // process draw from the seed they were given.
        struct SeedScope
        {
            uint32_t old{RngSeedManager::GetSeed()};

            ~SeedScope()
            {
                RngSeedManager::SetSeed(old);
            }
        } seedScope;

        RngSeedManager::SetSeed(7);
        Ptr<RoceSharedBufferMmu> mmu = CreateObject<RoceSharedBufferMmu>();
        mmu->Configure({{DataRate("100Gbps"), MicroSeconds(1)}});
        // A 1000-byte frame from ingress port 0 at priority 3.
        auto enqueue = [](Ptr<RoceEgressQueueDisc> q, bool ect) {
            Ptr<Packet> p = Frame(1000);
            q->Enqueue(p, 0, 3, ect);
            return p;
        };

        // Enqueue marking at held queue lengths.
        Ptr<RoceEgressQueueDisc> q = MakeQueue("Enqueue", mmu);
        NS_TEST_ASSERT_MSG_EQ(q->GetKmin(), KMIN, "Kmin scales 4x from 25G to 100G");
        NS_TEST_ASSERT_MSG_EQ(q->GetKmax(), KMAX, "Kmax scales 4x from 25G to 100G");
        for (uint64_t held : {300000ULL, 700000ULL, 1000000ULL, 1300000ULL, 1700000ULL})
        {
            uint64_t k = held / FRAME_BYTES; // filler frames (not ECN-capable)
            for (uint64_t i = 0; i < k; ++i)
            {
                enqueue(q, false);
            }
            uint64_t queueAtEnqueue = k * FRAME_BYTES;
            NS_TEST_ASSERT_MSG_EQ(q->GetQueueBytes(3), queueAtEnqueue, "held queue");
            uint32_t n = 20000;
            uint32_t marks = 0;
            for (uint32_t i = 0; i < n; ++i)
            {
                Ptr<Packet> it = enqueue(q, true);
                marks += IsCe(it) ? 1 : 0; // marked (or not) on joining the queue
                q->Dequeue();
            }
            double expect = Red(queueAtEnqueue);
            // Binomial: 4 standard deviations (+1 for the discrete count)
            // fail a correct model with probability ~6e-5 per point.
            double sigma = std::sqrt(n * expect * (1 - expect)) + 1;
            NS_TEST_ASSERT_MSG_EQ_TOL(double(marks),
                                      n * expect,
                                      4 * sigma,
                                      "enqueue marks at queue " << queueAtEnqueue << " B");
            while (q->GetQueueBytes(3) > 0)
            {
                q->Dequeue();
            }
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), 0, "MMU drained");
        q->Dispose();

        // Dequeue marking, the default: fill from empty, then drain.
        q = MakeQueue("", mmu);
        const uint32_t frames = 1800; // 1.876 MB, above Kmax
        const uint32_t rounds = 20;
        double expectMid = 0;
        double varMid = 0;
        uint32_t marksMid = 0;
        uint32_t marksLow = 0;
        uint32_t unmarkedHigh = 0;
        for (uint32_t round = 0; round < rounds; ++round)
        {
            for (uint32_t i = 0; i < frames; ++i)
            {
                enqueue(q, true);
            }
            for (uint32_t j = 0; j < frames; ++j)
            {
                uint64_t queueAtDequeue = uint64_t(frames - j) * FRAME_BYTES; // itself included
                bool ce = IsCe(q->Dequeue());
                double p = Red(queueAtDequeue);
                if (p == 0)
                {
                    marksLow += ce ? 1 : 0;
                }
                else if (p == 1)
                {
                    unmarkedHigh += ce ? 0 : 1;
                }
                else
                {
                    marksMid += ce ? 1 : 0;
                    expectMid += p;
                    varMid += p * (1 - p);
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(marksLow, 0, "dequeue: marked at or below Kmin");
        NS_TEST_ASSERT_MSG_EQ(unmarkedHigh, 0, "dequeue: unmarked above Kmax");
        // Sum of independent Bernoulli marks: mean sum p, variance sum p(1-p).
        NS_TEST_ASSERT_MSG_EQ_TOL(double(marksMid),
                                  expectMid,
                                  (4 * std::sqrt(varMid) + 1),
                                  "dequeue marks between Kmin and Kmax");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), 0, "MMU drained");
        q->Dispose();
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * ECMP over 16 equal-cost uplinks: balls into bins, independent seeds,
 * E-ECMP spreading on the destination QP, and routes from PopulateRoutes.
 */
class EcmpSpreadTestCase : public TestCase
{
  public:
    EcmpSpreadTestCase()
        : TestCase("ECMP spreads 1000 flows over 16 uplinks like balls into bins")
    {
    }

  private:
    void DoRun() override
    {
        // Leaf 0 -- 16 spines -- leaf 1 -- host B; host A on leaf 0.
        const uint32_t spines = 16;
        NodeContainer leaves(2);
        NodeContainer spine(spines);
        NodeContainer hosts(2);
        RoceSwitchHelper sh;
        sh.Install(leaves);
        sh.Install(spine);
        RoceHelper roce;
        roce.Install(hosts.Get(0), leaves.Get(0));
        for (uint32_t s = 0; s < spines; ++s)
        {
            roce.Install(leaves.Get(0), spine.Get(s));
            roce.Install(spine.Get(s), leaves.Get(1));
        }
        NetDeviceContainer b = roce.Install(hosts.Get(1), leaves.Get(1));
        RoceSwitchHelper::PopulateRoutes();
        Ptr<RoceSwitch> leaf0 = leaves.Get(0)->GetObject<RoceSwitch>();
        Ptr<RoceSwitch> leaf1 = leaves.Get(1)->GetObject<RoceSwitch>();
        Ipv4Address dst = DynamicCast<RoceNetDevice>(b.Get(0))->GetIpv4Address();
        NS_TEST_ASSERT_MSG_EQ(leaf0->Lookup(dst).size(), spines, "16-way ECMP group");
        NS_TEST_ASSERT_MSG_EQ(leaf1->Lookup(dst).size(), 1, "one port down to the host");

        RoceFrame f;
        f.isIpv4 = true;
        f.isRoce = true;
        f.ipProto = 17;
        f.srcIp = Ipv4Address("10.0.0.1").Get();
        f.dstIp = dst.Get();
        f.dport = 4791;
        const uint32_t flows = 1000;
        std::vector<uint32_t> bins(spines + 1, 0);
        std::vector<int32_t> choice0(flows);
        for (uint32_t i = 0; i < flows; ++i)
        {
            f.sport = static_cast<uint16_t>(0xC000 + i);
            choice0[i] = leaf0->SelectEgress(f);
            NS_TEST_ASSERT_MSG_GT(choice0[i], 0, "uplink port (port 0 faces the host)");
            ++bins[choice0[i]];
        }
        double mean = double(flows) / spines;
        double chi2 = 0;
        uint32_t maxLoad = 0;
        for (uint32_t s = 1; s <= spines; ++s)
        {
            chi2 += (bins[s] - mean) * (bins[s] - mean) / mean;
            maxLoad = std::max(maxLoad, bins[s]);
        }
        // 15 degrees of freedom: P(chi2 > 37.7) = 0.001.
        NS_TEST_ASSERT_MSG_LT(chi2, 37.7, "hash far from uniform");
        // Balls into bins, 1000 into 16: the fullest bin exceeds 1.6x the mean
        // with probability well under 1%.
        NS_TEST_ASSERT_MSG_LT(maxLoad, 1.6 * mean, "fullest uplink far above chance");

        // Another seed chooses independently: agreement near 1/16.
        leaf0->SetAttribute("EcmpSeed", UintegerValue(12345));
        Ptr<RoceSwitch> other = leaf0; // same table, new seed
        uint32_t same = 0;
        for (uint32_t i = 0; i < flows; ++i)
        {
            f.sport = static_cast<uint16_t>(0xC000 + i);
            same += other->SelectEgress(f) == choice0[i] ? 1 : 0;
        }
        double agreement = double(same) / flows;
        NS_TEST_ASSERT_MSG_EQ_TOL(agreement, 1.0 / 16, 0.035, "seeds are not independent");

        // E-ECMP: same 5-tuple, different destination QPs.
        f.sport = 0xC000;
        std::vector<uint32_t> qpBins(spines + 1, 0);
        for (uint32_t qp = 0; qp < 256; ++qp)
        {
            f.destQp = qp;
            ++qpBins[leaf0->SelectEgress(f)];
        }
        uint32_t used =
            std::count_if(qpBins.begin(), qpBins.end(), [](uint32_t c) { return c > 0; });
        NS_TEST_ASSERT_MSG_EQ(used, 1, "plain ECMP ignores the QP");
        leaf0->SetAttribute("EcmpUseQp", BooleanValue(true));
        std::fill(qpBins.begin(), qpBins.end(), 0);
        for (uint32_t qp = 0; qp < 256; ++qp)
        {
            f.destQp = qp;
            ++qpBins[leaf0->SelectEgress(f)];
        }
        used = std::count_if(qpBins.begin(), qpBins.end(), [](uint32_t c) { return c > 0; });
        NS_TEST_ASSERT_MSG_EQ(used, spines, "E-ECMP does not spread QPs over all uplinks");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * A test case that compares two incast runs counter for counter and flow
 * for flow.
 */
class IncastComparisonTestCase : public TestCase
{
  protected:
    /** \param name the case's name */
    explicit IncastComparisonTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \brief Expect two runs to be the same: packet hops, pauses, marks,
     * largest queue and every flow's completion time.
     * \param a one run \param b the other
     */
    void ExpectSameRun(const IncastResult& a, const IncastResult& b)
    {
        NS_TEST_EXPECT_MSG_EQ(a.stats.packetHops, b.stats.packetHops, "packet count differs");
        NS_TEST_EXPECT_MSG_EQ(a.stats.pfcPauseTx, b.stats.pfcPauseTx, "pause count differs");
        NS_TEST_EXPECT_MSG_EQ(a.stats.ecnMarked, b.stats.ecnMarked, "mark count differs");
        NS_TEST_EXPECT_MSG_EQ(a.stats.maxQueueBytes, b.stats.maxQueueBytes, "queue differs");
        NS_TEST_EXPECT_MSG_EQ(a.fct.size(), b.fct.size(), "flow count differs");
        for (std::size_t i = 0; i < std::min(a.fct.size(), b.fct.size()); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(a.fct[i], b.fct[i], "flow " << i << " FCT differs");
        }
    }
};

/**
 * \ingroup rocev2
 * Same seed, same result; a different RngRun gives switches different ECMP seeds.
 */
class DeterminismTestCase : public IncastComparisonTestCase
{
  public:
    DeterminismTestCase()
        : IncastComparisonTestCase("same seed gives identical results; RngRun changes ECMP seeds")
    {
    }

  private:
    void DoRun() override
    {
        ExpectSameRun(RunIncast(24, 300000, true, 4000000), RunIncast(24, 300000, true, 4000000));

        uint64_t run = RngSeedManager::GetRun();
        std::vector<uint64_t> seeds;
        for (uint64_t r : {1, 2})
        {
            RngSeedManager::SetRun(r);
            Ptr<Node> n = CreateObject<Node>();
            RoceSwitchHelper sh;
            seeds.push_back(sh.Install(n)->GetEcmpSeed());
        }
        RngSeedManager::SetRun(run);
        NS_TEST_ASSERT_MSG_NE(seeds[0], seeds[1], "RngRun does not change the ECMP seed");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Switch suite.
 */
/**
 * \ingroup rocev2
 * A frame's form (compact, or an ns-3 Packet once something outside the
 * module looks at it) changes nothing the simulation does: the same incast
 * with a trace on the receiver's egress queue, which turns every frame
 * there into a Packet halfway along its path, gives the same completion
 * times and counters; and the CE marks the queue makes after the trace saw
 * a frame reach the Packet the trace holds, one for one with the marks the
 * switch counts.
 */
class FrameFormTestCase : public IncastComparisonTestCase
{
  public:
    FrameFormTestCase()
        : IncastComparisonTestCase(
              "a frame's form changes nothing: a trace on one hop gives the same run, and "
              "sees the marks made after it")
    {
    }

  private:
    void DoRun() override
    {
        IncastResult a = RunIncast(24, 300000, true, 4000000);
        std::vector<Ptr<const Packet>> seen;
        auto keep = [&seen](Ptr<const Packet> p, uint8_t) { seen.push_back(p); };
        IncastResult b =
            RunIncast(24, 300000, true, 4000000, MilliSeconds(100), [&keep](Ptr<RoceSwitch> rs) {
                // Port 0 leads to the receiver: the data frames' second hop.
                rs->GetPort(0)->GetQueueDisc()->TraceConnectWithoutContext(
                    "Enqueue",
                    Callback<void, Ptr<const Packet>, uint8_t>(keep));
            });
        NS_TEST_ASSERT_MSG_GT(a.stats.ecnMarked, 0, "the incast marks frames");
        ExpectSameRun(a, b);
        // 24 x 300,000 B in 1,024 B payloads.
        const uint64_t dataFrames = 24 * ((300000 + 1023) / 1024);
        NS_TEST_ASSERT_MSG_EQ(seen.size(), dataFrames, "one Enqueue per data frame");
        uint64_t ce = 0;
        for (const auto& p : seen)
        {
            ce += RoceFrame::Parse(*p).ecn == Ipv4Header::ECN_CE ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(ce, b.stats.ecnMarked, "the held Packets carry every mark");
    }
};

class RoceSwitchTestSuite : public TestSuite
{
  public:
    RoceSwitchTestSuite()
        : TestSuite("rocev2-switch", Type::UNIT)
    {
        AddTestCase(new LosslessIncastTestCase(16, 2000000), RoceTestDuration::QUICK);
        AddTestCase(new LosslessIncastTestCase(64, 8000000), RoceTestDuration::QUICK);
        // A 255-port switch: small messages for every run, 400 KB each (102 MB
        // through one port) only with the longest fullness.
        AddTestCase(new LosslessIncastTestCase(255, 16000000, 40000), RoceTestDuration::QUICK);
        AddTestCase(new LosslessIncastTestCase(255, 32000000), RoceTestDuration::TAKES_FOREVER);
        AddTestCase(new LossyIncastTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EcnRedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new EcmpSpreadTestCase, RoceTestDuration::QUICK);
        AddTestCase(new DeterminismTestCase, RoceTestDuration::QUICK);
        AddTestCase(new FrameFormTestCase, RoceTestDuration::QUICK);
        // One more switch than the BTH count field holds records for, and one beyond.
    }
};

static RoceSwitchTestSuite g_roceSwitchTestSuite; //!< static instance
