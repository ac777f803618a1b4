/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * In-band telemetry: switches stamp records, receivers echo them, senders
 * read them; the record layout, the values on the wire, the hop cap.
 */
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-container.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-cc-none.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-int-record.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-raw-trailer.h"
#include "ns3/roce-stats-helper.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace ns3;

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
            // Exact txBytes and timestamps are checked on the wire by IntWireTestCase.
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

namespace
{

/// Big-endian read of n bytes at b.
uint64_t
ReadBe(const uint8_t* b, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        v = (v << 8) | b[i];
    }
    return v;
}

/// Offset of BTH byte 4 (INT request bit 5, record count bits 4-0) in a frame.
constexpr uint32_t BTH_INT_BYTE = RoceFrame::ETH_BYTES + RoceFrame::IPV4_BYTES + 8 + 4;

} // namespace

/**
 * \ingroup rocev2
 * The INT record's 8-byte layout as roce-int-record.h documents it, one
 * big-endian word: rate code (3 bits: 10, 25, 40, 50, 100, 200, 400, 800
 * Gb/s), timestamp in ns modulo 2^24, transmitted bytes in 128 M byte units
 * modulo 2^20, queue length in 80 M byte units saturating at 2^17 - 1. The
 * expected words are worked by hand from that layout.
 */
class IntRecordLayoutTestCase : public TestCase
{
  public:
    IntRecordLayoutTestCase()
        : TestCase("INT record: 8-byte layout, units, wrap and saturation, with M = 1 and 4")
    {
    }

  private:
    /// \return the record's wire word and the record read back (same M)
    static std::pair<uint64_t, RoceIntRecord> RoundTrip(const RoceIntRecord& r)
    {
        // Through a frame: 5 zero bytes, then the record's 8 as a trailer.
        uint8_t word[RoceIntRecord::SIZE];
        r.Write(word);
        Ptr<Packet> p = Create<Packet>(5);
        p->AddTrailer(RoceRawTrailer(word, sizeof(word)));
        uint8_t b[13];
        p->CopyData(b, sizeof(b));
        RoceRawTrailer tail;
        tail.SetSize(RoceIntRecord::SIZE);
        p->RemoveTrailer(tail);
        RoceIntRecord back;
        back.unitMultiplier = r.unitMultiplier;
        back.Read(tail.GetBytes());
        return {ReadBe(b + 5, 8), back};
    }

    void DoRun() override
    {
        RoceIntRecord r;
        r.rateMbps = 100000;                     // code 4
        r.timestampNs = (5ULL << 24) + 0x123456; // wraps to 0x123456
        r.txBytes = 0x3ABCD * 128ULL + 127;      // 0x3ABCD whole units
        r.queueBytes = 1000 * 80ULL + 79;        // 1000 whole units
        uint8_t guard[RoceIntRecord::SIZE + 2];
        std::fill(guard, guard + sizeof(guard), 0xEE);
        r.Write(guard);
        NS_TEST_ASSERT_MSG_EQ(+guard[RoceIntRecord::SIZE], 0xEE, "a record is 8 bytes");
        NS_TEST_ASSERT_MSG_EQ(+guard[RoceIntRecord::SIZE + 1], 0xEE, "a record is 8 bytes");
        auto [word, back] = RoundTrip(r);
        const uint64_t expect = (4ULL << 61) | (0x123456ULL << 37) | (0x3ABCDULL << 17) | 1000;
        NS_TEST_ASSERT_MSG_EQ(word, expect, "rate 3 | ts 24 | bytes 20 | qlen 17 bits");
        NS_TEST_ASSERT_MSG_EQ(back.rateMbps, 100000u, "rate round trip");
        NS_TEST_ASSERT_MSG_EQ(back.timestampNs, 0x123456u, "timestamp modulo 2^24");
        NS_TEST_ASSERT_MSG_EQ(back.txBytes, 0x3ABCD * 128ULL, "bytes rounded down to units");
        NS_TEST_ASSERT_MSG_EQ(back.queueBytes, 80000u, "queue rounded down to units");

        // Every rate code, and a queue beyond the field saturates.
        const uint32_t rates[] = {10000, 25000, 40000, 50000, 100000, 200000, 400000, 800000};
        for (uint32_t c = 0; c < 8; ++c)
        {
            RoceIntRecord q;
            q.rateMbps = rates[c];
            q.queueBytes = 1ULL << 40;
            auto [w, b] = RoundTrip(q);
            NS_TEST_ASSERT_MSG_EQ((w >> 61), uint64_t{c}, "rate code of " << rates[c] << " Mb/s");
            NS_TEST_ASSERT_MSG_EQ(b.rateMbps, rates[c], "rate back");
            NS_TEST_ASSERT_MSG_EQ((w & 0x1FFFF), uint64_t{0x1FFFF}, "queue saturates");
        }

        // Differences across the fields' wrap: 2^24 - 100 ns to 50 ns is
        // 150 ns; 2^20 - 2 units to 3 units is 5 units.
        RoceIntRecord a;
        RoceIntRecord z;
        a.rateMbps = z.rateMbps = 25000;
        a.timestampNs = (1ULL << 24) - 100;
        z.timestampNs = (1ULL << 24) + 50;
        a.txBytes = ((1ULL << 20) - 2) * 128;
        z.txBytes = ((1ULL << 20) + 3) * 128;
        RoceIntRecord aw = RoundTrip(a).second;
        RoceIntRecord zw = RoundTrip(z).second;
        NS_TEST_ASSERT_MSG_EQ(RoceIntRecord::TimeDeltaNs(zw, aw), 150u, "time across the wrap");
        NS_TEST_ASSERT_MSG_EQ(RoceIntRecord::TxBytesDelta(zw, aw), 5u * 128, "bytes across wrap");
        NS_TEST_ASSERT_MSG_EQ(RoceIntRecord::TimeDeltaNs(z, a), 150u, "exact records: same");
        NS_TEST_ASSERT_MSG_EQ(RoceIntRecord::TxBytesDelta(z, a), 5u * 128, "exact records: same");

        // M = 4: units of 512 and 320 bytes.
        RoceIntRecord m;
        m.unitMultiplier = 4;
        m.rateMbps = 400000;
        m.txBytes = 10 * 512 + 511;
        m.queueBytes = 7 * 320 + 319;
        auto [mw, mb] = RoundTrip(m);
        NS_TEST_ASSERT_MSG_EQ(((mw >> 17) & 0xFFFFF),
                              uint64_t{10},
                              "M = 4: bytes in 512-byte units");
        NS_TEST_ASSERT_MSG_EQ((mw & 0x1FFFF), uint64_t{7}, "M = 4: queue in 320-byte units");
        NS_TEST_ASSERT_MSG_EQ(mb.txBytes, 5120u, "M = 4: bytes back");
        NS_TEST_ASSERT_MSG_EQ(mb.queueBytes, 2240u, "M = 4: queue back");
    }
};

/**
 * \ingroup rocev2
 * INT on the wire, read off each switch egress port toward the receiver
 * (MacTx): a frame leaving hop h carries h + 1 records (at most MAX_HOPS),
 * and hop h's record is the last one before the ICRC, with
 * - txBytes = the bytes of all frames this port put on the wire before it,
 * - timestamp = the time the port starts transmitting it,
 * - for the first data frame, timestamps that follow from the wire: hop 0
 *   stamps one serialization (at the sender's frame size) plus one 1 us
 *   propagation after the sender started it, and hop h one serialization of
 *   the frame as hop h - 1 sent it (32 B longer per record) plus 1 us after
 *   hop h - 1.
 * Without a congestion control that asks for INT, frames are never stamped
 * and keep their length.
 */
class IntWireTestCase : public TestCase
{
  public:
    /**
     * \param switches switches in the chain
     * \param wantInt whether the congestion control asks for INT
     * \param multiplier RoceIntUnitMultiplier (M) for the run
     */
    IntWireTestCase(uint32_t switches, bool wantInt, uint32_t multiplier = 1)
        : TestCase("INT on the wire over " + std::to_string(switches) + " switches, " +
                   (wantInt ? "requested: txBytes units, timestamps, hop cap"
                            : "not requested: no records") +
                   ", M = " + std::to_string(multiplier)),
          m_switches(switches),
          m_wantInt(wantInt),
          m_multiplier(multiplier)
    {
    }

  private:
    /// What one egress port toward the receiver transmitted.
    struct Port
    {
        uint32_t hop{0};           //!< switch index along the path
        uint64_t txBytes{0};       //!< frame bytes transmitted so far (MacTx)
        uint64_t dataFrames{0};    //!< data frames seen
        uint64_t wrongCount{0};    //!< frames whose record count is not min(hop+1, MAX)
        uint64_t wrongTx{0};       //!< records whose txBytes differs from the count above
        uint64_t wrongTs{0};       //!< records not stamped at transmission start
        uint64_t wrongFixed{0};    //!< records with a wrong hop index, rate or reserved byte
        uint64_t wrongLength{0};   //!< frames whose length is not the sender's + 32 B x records
        uint64_t firstTsNs{0};     //!< this hop's timestamp in the first data frame
        uint32_t firstFrameLen{0}; //!< length of the first data frame as this port sent it
    };

    /// \param port the port's log \param p a frame it transmits
    void PortTx(Port* port, Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        uint32_t len = p->GetSize();
        if (f.isRoce && RoceBthHeader::IsData(f.opcode))
        {
            std::vector<uint8_t> b(len);
            p->CopyData(b.data(), len);
            uint32_t count = b[BTH_INT_BYTE] & 0x1F;
            uint32_t expectCount =
                m_wantInt ? std::min<uint32_t>(port->hop + 1, RoceIntRecord::MAX_HOPS) : 0;
            port->wrongCount += count == expectCount ? 0 : 1;
            uint32_t psn = static_cast<uint32_t>(ReadBe(b.data() + BTH_INT_BYTE + 5, 3));
            auto sent = m_lenByPsn.find(psn);
            port->wrongLength +=
                sent != m_lenByPsn.end() && len == sent->second + 8 * expectCount ? 0 : 1;
            if (count > 0 && port->hop < RoceIntRecord::MAX_HOPS)
            {
                const uint8_t* rec = b.data() + len - 4 - RoceIntRecord::SIZE;
                const uint64_t word = ReadBe(rec, 8);
                // Rate code 4 is 100 Gb/s.
                port->wrongFixed += (word >> 61) == 4 ? 0 : 1;
                const uint64_t unit = 128ULL * m_multiplier;
                port->wrongTx +=
                    ((word >> 17) & 0xFFFFF) == (port->txBytes / unit) % (1 << 20) ? 0 : 1;
                uint64_t ts = (word >> 37) & 0xFFFFFF;
                port->wrongTs +=
                    ts == uint64_t(Simulator::Now().GetNanoSeconds()) % (1 << 24) ? 0 : 1;
                if (port->dataFrames == 0)
                {
                    port->firstTsNs = ts;
                }
            }
            if (port->dataFrames == 0)
            {
                port->firstFrameLen = len;
            }
            ++port->dataFrames;
        }
        port->txBytes += len;
    }

    /// \param p a frame the sender NIC transmits
    void SenderTx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && RoceBthHeader::IsData(f.opcode))
        {
            uint8_t b[RoceFrame::HEADER_BYTES];
            p->CopyData(b, sizeof(b));
            m_lenByPsn[static_cast<uint32_t>(ReadBe(b + BTH_INT_BYTE + 5, 3))] = p->GetSize();
            if (!m_senderStarted)
            {
                m_senderStarted = true;
                m_senderStart = Simulator::Now();
                m_senderLen = p->GetSize();
            }
        }
    }

    void DoRun() override
    {
        Config::SetGlobal("RoceIntUnitMultiplier", UintegerValue(m_multiplier));
        NodeContainer sw(m_switches);
        NodeContainer hosts(2);
        RoceSwitchHelper sh;
        sh.Install(sw);
        RoceHelper roce;
        if (m_wantInt)
        {
            roce.SetNicAttribute("CongestionControl", TypeIdValue(RoceIntProbeCc::GetTypeId()));
        }
        NetDeviceContainer a = roce.Install(hosts.Get(0), sw.Get(0));
        std::vector<Ptr<NetDevice>> egress; // toward the receiver, in hop order
        for (uint32_t i = 0; i + 1 < m_switches; ++i)
        {
            egress.push_back(roce.Install(sw.Get(i), sw.Get(i + 1)).Get(0));
        }
        NetDeviceContainer b = roce.Install(hosts.Get(1), sw.Get(m_switches - 1));
        egress.push_back(b.Get(1));
        RoceSwitchHelper::PopulateRoutes();
        std::vector<Port> ports(m_switches);
        for (uint32_t h = 0; h < m_switches; ++h)
        {
            ports[h].hop = h;
            egress[h]->TraceConnectWithoutContext(
                "MacTx",
                MakeCallback(&IntWireTestCase::PortTx, this).Bind(&ports[h]));
        }
        a.Get(0)->TraceConnectWithoutContext("MacTx",
                                             MakeCallback(&IntWireTestCase::SenderTx, this));
        const uint32_t mtu = 1024;
        auto [qa, qb] = roce.CreateQp(a.Get(0), b.Get(0));
        uint64_t size = m_switches > 8 ? 4 * mtu : 200000;
        qa->PostWrite(size);
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(qb->GetStats().bytesDelivered, size, "INT bytes leaked into payload");
        uint64_t packets = (size + mtu - 1) / mtu;
        const double ps = 1e12 / 100e9 * 8; // ps per byte at 100 Gb/s
        const uint64_t delayPs = 1000000;   // 1 us links
        uint64_t expectPs = m_senderStart.GetPicoSeconds();
        for (uint32_t h = 0; h < m_switches; ++h)
        {
            const Port& pt = ports[h];
            NS_TEST_ASSERT_MSG_EQ(pt.dataFrames, packets, "hop " << h << " forwarded each packet");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongCount, 0, "hop " << h << ": BTH record count");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongLength, 0, "hop " << h << ": 8 B per record");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongFixed, 0, "hop " << h << ": rate code");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongTx, 0, "hop " << h << ": txBytes = bytes sent before");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongTs, 0, "hop " << h << ": stamped at transmission");
            // The first data frame meets no queue: it arrives one
            // serialization (wire bytes: + FCS 4 + preamble/IFG 20) and one
            // propagation after the previous hop started it, and leaves at once.
            uint32_t prevLen = h == 0 ? m_senderLen : ports[h - 1].firstFrameLen;
            expectPs += static_cast<uint64_t>((prevLen + 24) * ps) + delayPs;
            if (m_wantInt && h < RoceIntRecord::MAX_HOPS)
            {
                // Serialization is rounded down to the simulator's time step
                // (the remainder is carried to the port's next frame), and the
                // stamp is in whole ns: up to 1 ns early per hop crossed.
                double early = double(expectPs) / 1000 - double(pt.firstTsNs);
                NS_TEST_ASSERT_MSG_GT_OR_EQ(early, 0.0, "hop " << h << " stamped too late");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(early, h + 2.0, "hop " << h << " stamped too early");
            }
        }
        if (m_wantInt)
        {
            Ptr<RoceIntProbeCc> cc = DynamicCast<RoceIntProbeCc>(qa->GetCongestionControl());
            NS_TEST_ASSERT_MSG_EQ(cc->last.size(),
                                  std::min<uint32_t>(m_switches, RoceIntRecord::MAX_HOPS),
                                  "the ACK echoes one record per hop, up to MAX_HOPS");
            for (const auto& r : cc->last)
            {
                // The sender reads the records in the same units.
                NS_TEST_EXPECT_MSG_EQ(r.txBytes % (128 * m_multiplier), 0u, "txBytes in units");
                NS_TEST_EXPECT_MSG_GT(r.txBytes, 0u, "the echoed count of a busy port");
            }
        }
        Config::SetGlobal("RoceIntUnitMultiplier", UintegerValue(1));
        Simulator::Destroy();
    }

    uint32_t m_switches;                     //!< chain length
    bool m_wantInt;                          //!< the CC asks for INT
    uint32_t m_multiplier;                   //!< RoceIntUnitMultiplier
    bool m_senderStarted{0};                 //!< the first data frame left the sender
    Time m_senderStart;                      //!< when
    uint32_t m_senderLen{0};                 //!< its length
    std::map<uint32_t, uint32_t> m_lenByPsn; //!< the sender's data frame lengths by PSN
};

/**
 * \ingroup rocev2
 * rocev2-int suite.
 */
class RoceIntTestSuite : public TestSuite
{
  public:
    RoceIntTestSuite()
        : TestSuite("rocev2-int", Type::UNIT)
    {
        AddTestCase(new IntStampingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new IntRecordLayoutTestCase, RoceTestDuration::QUICK);
        AddTestCase(new IntWireTestCase(3, true), RoceTestDuration::QUICK);
        AddTestCase(new IntWireTestCase(3, false), RoceTestDuration::QUICK);
        AddTestCase(new IntWireTestCase(RoceIntRecord::MAX_HOPS + 2, true),
                    RoceTestDuration::QUICK);
        AddTestCase(new IntWireTestCase(3, true, 4), RoceTestDuration::QUICK);
    }
};

static RoceIntTestSuite g_roceIntTestSuite; //!< static instance
