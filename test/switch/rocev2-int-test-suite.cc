/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * In-band telemetry: switches stamp records, receivers echo them, senders
 * read them; the record layout, the values on the wire, the hop cap.
 */
#include "ns3/boolean.h"
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
 * The INT record's 32-byte layout as roce-int-record.h documents it: hop (1
 * byte), 3 reserved zero bytes, then big-endian rate in Mb/s (4 bytes),
 * queue bytes, transmitted bytes and timestamp in ns (8 bytes each).
 */
class IntRecordLayoutTestCase : public TestCase
{
  public:
    IntRecordLayoutTestCase()
        : TestCase("INT record: 32-byte big-endian layout and round trip")
    {
    }

  private:
    void DoRun() override
    {
        RoceIntRecord r;
        r.hop = 0x1E;
        r.rateMbps = 0x01020304;
        r.queueBytes = 0x1112131415161718ULL;
        r.txBytes = 0x2122232425262728ULL;
        r.timestampNs = 0x3132333435363738ULL;
        Ptr<Packet> p = Create<Packet>(5); // 5 zero bytes before the trailer
        p->AddTrailer(r);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 5 + 32, "a record is 32 bytes");
        uint8_t b[37];
        p->CopyData(b, sizeof(b));
        const uint8_t* rec = b + 5;
        NS_TEST_ASSERT_MSG_EQ(+rec[0], 0x1E, "hop at offset 0");
        NS_TEST_ASSERT_MSG_EQ(ReadBe(rec + 1, 3), 0u, "offsets 1-3 reserved, zero");
        NS_TEST_ASSERT_MSG_EQ(ReadBe(rec + 4, 4), 0x01020304u, "rate at offset 4");
        NS_TEST_ASSERT_MSG_EQ(ReadBe(rec + 8, 8), 0x1112131415161718ULL, "queue at offset 8");
        NS_TEST_ASSERT_MSG_EQ(ReadBe(rec + 16, 8), 0x2122232425262728ULL, "txBytes at 16");
        NS_TEST_ASSERT_MSG_EQ(ReadBe(rec + 24, 8), 0x3132333435363738ULL, "timestamp at 24");
        RoceIntRecord back;
        p->RemoveTrailer(back);
        NS_TEST_ASSERT_MSG_EQ(+back.hop, +r.hop, "hop round trip");
        NS_TEST_ASSERT_MSG_EQ(back.rateMbps, r.rateMbps, "rate round trip");
        NS_TEST_ASSERT_MSG_EQ(back.queueBytes, r.queueBytes, "queue round trip");
        NS_TEST_ASSERT_MSG_EQ(back.txBytes, r.txBytes, "txBytes round trip");
        NS_TEST_ASSERT_MSG_EQ(back.timestampNs, r.timestampNs, "timestamp round trip");
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 5, "the trailer is removed whole");
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
     */
    IntWireTestCase(uint32_t switches, bool wantInt)
        : TestCase("INT on the wire over " + std::to_string(switches) + " switches, " +
                   (wantInt ? "requested: exact txBytes, timestamps, hop cap"
                            : "not requested: no records")),
          m_switches(switches),
          m_wantInt(wantInt)
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
                sent != m_lenByPsn.end() && len == sent->second + 32 * expectCount ? 0 : 1;
            if (count > 0 && port->hop < RoceIntRecord::MAX_HOPS)
            {
                const uint8_t* rec = b.data() + len - 4 - RoceIntRecord::SIZE;
                port->wrongFixed +=
                    (rec[0] == port->hop && ReadBe(rec + 1, 3) == 0 && ReadBe(rec + 4, 4) == 100000)
                        ? 0
                        : 1;
                port->wrongTx += ReadBe(rec + 16, 8) == port->txBytes ? 0 : 1;
                uint64_t ts = ReadBe(rec + 24, 8);
                port->wrongTs += ts == uint64_t(Simulator::Now().GetNanoSeconds()) ? 0 : 1;
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
            NS_TEST_ASSERT_MSG_EQ(pt.wrongLength, 0, "hop " << h << ": 32 B per record");
            NS_TEST_ASSERT_MSG_EQ(pt.wrongFixed, 0, "hop " << h << ": hop index, rate, layout");
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
        }
        Simulator::Destroy();
    }

    uint32_t m_switches;                     //!< chain length
    bool m_wantInt;                          //!< the CC asks for INT
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
        : TestSuite("rocev2-int", UNIT)
    {
        AddTestCase(new IntStampingTestCase, TestCase::QUICK);
        AddTestCase(new IntRecordLayoutTestCase, TestCase::QUICK);
        AddTestCase(new IntWireTestCase(3, true), TestCase::QUICK);
        AddTestCase(new IntWireTestCase(3, false), TestCase::QUICK);
        AddTestCase(new IntWireTestCase(RoceIntRecord::MAX_HOPS + 2, true), TestCase::QUICK);
    }
};

static RoceIntTestSuite g_roceIntTestSuite; //!< static instance
