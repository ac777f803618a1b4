/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
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
 * \return what happened
 */
IncastResult
RunIncast(uint32_t senders, uint64_t size, bool pfc, uint32_t buffer, Time rto = MilliSeconds(100))
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
    Simulator::Run();
    r.stats = RoceFabricStats::Collect();
    Ptr<RoceSwitch> rs = sw.Get(0)->GetObject<RoceSwitch>();
    Ptr<SharedBufferMmu> mmu = rs->GetMmu();
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
     */
    LosslessIncastTestCase(uint32_t senders, uint32_t buffer)
        : TestCase("lossless " + std::to_string(senders) + ":1 incast, " +
                   std::to_string(buffer / 1000000) + " MB buffer"),
          m_senders(senders),
          m_buffer(buffer)
    {
    }

  private:
    void DoRun() override
    {
        uint64_t size = 400000;
        IncastResult r = RunIncast(m_senders, size, true, m_buffer);
        NS_TEST_ASSERT_MSG_EQ(r.stats.drops, 0, "a lossless class dropped");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bytesDelivered, m_senders * size, "bytes missing");
        NS_TEST_ASSERT_MSG_EQ(r.stats.retransmits, 0, "retransmissions in a lossless run");
        NS_TEST_ASSERT_MSG_GT(r.stats.pfcPauseTx, 0, "the incast never paused a sender");
        NS_TEST_ASSERT_MSG_EQ(r.stats.bufferedBytes, 0, "MMU counters did not return to zero");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.maxPgHeadroom, r.headroom, "headroom overflowed");
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

    uint32_t m_senders;
    uint32_t m_buffer;
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
 * RED marking: with the queue held at a fixed length, the fraction of
 * marked packets matches Pmax * (q - Kmin) / (Kmax - Kmin).
 */
class EcnRedTestCase : public TestCase
{
  public:
    EcnRedTestCase()
        : TestCase("ECN marking frequency at a held queue length follows RED")
    {
    }

  private:
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

    void DoRun() override
    {
        RngSeedManager::SetSeed(7);
        Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
        mmu->Configure({{DataRate("100Gbps"), MicroSeconds(1)}});
        Ptr<RoceSwitchPort> ingress = CreateObject<RoceSwitchPort>();
        Ptr<RoceEgressQueueDisc> q = CreateObject<RoceEgressQueueDisc>();
        q->SetAttribute("EcnMarkAt", StringValue("Enqueue"));
        q->SetAttribute("EcnKmin", QueueSizeValue(QueueSize("100KB")));
        q->SetAttribute("EcnKmax", QueueSizeValue(QueueSize("400KB")));
        q->SetAttribute("EcnPmax", DoubleValue(0.2));
        q->Setup(mmu, DataRate("100Gbps"));
        q->Initialize();
        q->AssignStreams(11);
        NS_TEST_ASSERT_MSG_EQ(q->GetKmin(), 400000, "Kmin scales 4x from 25G to 100G");
        NS_TEST_ASSERT_MSG_EQ(q->GetKmax(), 1600000, "Kmax scales 4x from 25G to 100G");

        const uint32_t frameBytes = 1000 + 42;
        for (uint64_t held : {300000ULL, 700000ULL, 1000000ULL, 1300000ULL, 1700000ULL})
        {
            while (q->GetQueueBytes(3) + frameBytes <= held)
            {
                q->Enqueue(Create<RoceSwitchItem>(Frame(1000), PeekPointer(ingress), 0, 3, false));
            }
            uint32_t n = 20000;
            uint32_t marks = 0;
            uint64_t queueAtEnqueue = q->GetQueueBytes(3);
            for (uint32_t i = 0; i < n; ++i)
            {
                Ptr<Packet> p = Frame(1000);
                q->Enqueue(Create<RoceSwitchItem>(p, PeekPointer(ingress), 0, 3, true));
                marks += RoceFrame::Parse(*p).ecn == Ipv4Header::ECN_CE ? 1 : 0;
                q->Dequeue();
            }
            double expect = q->MarkProbability(queueAtEnqueue);
            double sigma = std::sqrt(n * expect * (1 - expect)) + 1;
            NS_TEST_ASSERT_MSG_EQ_TOL(double(marks),
                                      n * expect,
                                      4 * sigma,
                                      "marks at queue " << queueAtEnqueue << " B");
            if (held <= 400000)
            {
                NS_TEST_ASSERT_MSG_EQ(marks, 0, "marked below Kmin");
            }
            if (held > 1600000 + frameBytes)
            {
                NS_TEST_ASSERT_MSG_EQ(marks, n, "unmarked above Kmax");
            }
            while (q->GetQueueBytes(3) > 0)
            {
                q->Dequeue();
            }
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetTotalBytes(), 0, "MMU drained");
        q->Dispose();
        ingress->Dispose();
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
 * Same seed, same result; a different RngRun gives switches different ECMP seeds.
 */
class DeterminismTestCase : public TestCase
{
  public:
    DeterminismTestCase()
        : TestCase("same seed gives identical results; RngRun changes ECMP seeds")
    {
    }

  private:
    void DoRun() override
    {
        IncastResult a = RunIncast(24, 300000, true, 4000000);
        IncastResult b = RunIncast(24, 300000, true, 4000000);
        NS_TEST_ASSERT_MSG_EQ(a.stats.packetHops, b.stats.packetHops, "packet count differs");
        NS_TEST_ASSERT_MSG_EQ(a.stats.pfcPauseTx, b.stats.pfcPauseTx, "pause count differs");
        NS_TEST_ASSERT_MSG_EQ(a.stats.ecnMarked, b.stats.ecnMarked, "mark count differs");
        NS_TEST_ASSERT_MSG_EQ(a.stats.maxQueueBytes, b.stats.maxQueueBytes, "queue differs");
        for (std::size_t i = 0; i < a.fct.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(a.fct[i], b.fct[i], "flow " << i << " FCT differs");
        }

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

namespace ns3
{

/**
 * \ingroup rocev2
 * A congestion control that asks for INT and keeps what its ACKs echo.
 */
class RoceIntProbeCc : public RoceCcNone
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceIntProbeCc")
                                .SetParent<RoceCcNone>()
                                .SetGroupName("Rocev2")
                                .AddConstructor<RoceIntProbeCc>();
        return tid;
    }

    bool WantsInt() const override
    {
        return true;
    }

    Ptr<RoceCongestionOps> Fork() override
    {
        return CopyObject<RoceIntProbeCc>(this);
    }

    void OnAck(const RoceAckEvent& ack) override
    {
        ++acks;
        if (ack.intRecords)
        {
            last = *ack.intRecords;
            withInt += ack.intRecords->empty() ? 0 : 1;
        }
    }

    uint32_t acks{0};                //!< ACKs seen
    uint32_t withInt{0};             //!< ACKs that echoed INT
    std::vector<RoceIntRecord> last; //!< the last echoed records
};

NS_OBJECT_ENSURE_REGISTERED(RoceIntProbeCc);

} // namespace ns3

/**
 * \ingroup rocev2
 * INT: every switch on the path appends its record, the receiver echoes them
 * on ACKs, and the sender's congestion control reads them in hop order.
 */
class IntStampingTestCase : public TestCase
{
  public:
    IntStampingTestCase()
        : TestCase("INT: three switches stamp, the ACK echoes the records to the sender's CC")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer sw(3);
        NodeContainer hosts(2);
        RoceSwitchHelper sh;
        sh.Install(sw);
        RoceHelper roce;
        roce.SetNicAttribute("CongestionControl", TypeIdValue(RoceIntProbeCc::GetTypeId()));
        NetDeviceContainer a = roce.Install(hosts.Get(0), sw.Get(0));
        roce.Install(sw.Get(0), sw.Get(1));
        roce.Install(sw.Get(1), sw.Get(2));
        NetDeviceContainer b = roce.Install(hosts.Get(1), sw.Get(2));
        RoceSwitchHelper::PopulateRoutes();
        auto [qa, qb] = roce.CreateQp(a.Get(0), b.Get(0));
        uint64_t size = 200000;
        qa->PostWrite(size);
        Simulator::Run();
        Ptr<RoceIntProbeCc> cc = DynamicCast<RoceIntProbeCc>(qa->GetCongestionControl());
        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().bytesDelivered, size, "INT bytes leaked into payload");
        NS_TEST_ASSERT_MSG_GT(cc->acks, 0, "no ACK");
        NS_TEST_ASSERT_MSG_EQ(cc->withInt, cc->acks, "an ACK without INT");
        NS_TEST_ASSERT_MSG_EQ(cc->last.size(), 3, "one record per switch");
        for (uint8_t h = 0; h < 3; ++h)
        {
            NS_TEST_ASSERT_MSG_EQ(+cc->last[h].hop, +h, "records in hop order");
            NS_TEST_ASSERT_MSG_EQ(cc->last[h].rateMbps, 100000, "link rate");
            NS_TEST_ASSERT_MSG_GT(cc->last[h].txBytes, size / 2, "tx byte counter");
            if (h > 0)
            {
                NS_TEST_ASSERT_MSG_GT(cc->last[h].timestampNs,
                                      cc->last[h - 1].timestampNs,
                                      "later hops stamp later");
            }
        }
        // A single flow at line rate never builds a queue behind itself.
        NS_TEST_ASSERT_MSG_LT(cc->last[0].queueBytes, 3000, "queue at the first hop");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Switch suite.
 */
class RoceSwitchTestSuite : public TestSuite
{
  public:
    RoceSwitchTestSuite()
        : TestSuite("rocev2-switch", UNIT)
    {
        AddTestCase(new LosslessIncastTestCase(16, 2000000), TestCase::QUICK);
        AddTestCase(new LosslessIncastTestCase(64, 8000000), TestCase::QUICK);
        AddTestCase(new LosslessIncastTestCase(255, 32000000), TestCase::EXTENSIVE);
        AddTestCase(new LossyIncastTestCase, TestCase::QUICK);
        AddTestCase(new EcnRedTestCase, TestCase::QUICK);
        AddTestCase(new EcmpSpreadTestCase, TestCase::QUICK);
        AddTestCase(new DeterminismTestCase, TestCase::QUICK);
        AddTestCase(new IntStampingTestCase, TestCase::QUICK);
    }
};

static RoceSwitchTestSuite g_roceSwitchTestSuite; //!< static instance
