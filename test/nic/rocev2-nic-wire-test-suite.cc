/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup rocev2
 * Tests of the frames a NIC builds from its header templates and of its
 * receive parse: every frame decodes with ns-3's own headers (IPv4 checksum
 * verified) and equals the frame the separate header classes give; the
 * templates follow source-port, DSCP-map and MAC changes; each opcode kind
 * delivers its payload; malformed frames are dropped and counted.
 */

#include "rocev2-nic-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/roce-aeth-header.h"
#include "ns3/roce-encap-header.h"
#include "ns3/roce-header-block.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-reth-header.h"
#include "ns3/string.h"
#include "ns3/udp-header.h"

using namespace ns3;

namespace
{

/// What a test reads from one RoCE frame.
struct WireFrame
{
    Time when;                 //!< when it was sent
    uint8_t opcode{0};         //!< BTH opcode
    uint32_t psn{0};           //!< BTH PSN
    uint32_t size{0};          //!< frame bytes, FCS excluded
    uint16_t sport{0};         //!< UDP source port
    uint8_t dscp{0};           //!< IPv4 DSCP
    Mac48Address srcMac;       //!< Ethernet source
    bool checksumOk{false};    //!< ns-3's Ipv4Header accepts the checksum
    bool lengthsOk{false};     //!< IPv4 and UDP lengths match the frame
    bool sameAsHeaders{false}; //!< equals the frame the separate header classes build
};

/**
 * \param p a RoCE frame
 * \return what the tests check of it
 */
WireFrame
ReadFrame(Ptr<const Packet> p)
{
    WireFrame w;
    w.when = Simulator::Now();
    w.size = p->GetSize();
    Ptr<Packet> c = p->Copy();
    EthernetHeader eth(false);
    c->RemoveHeader(eth);
    w.srcMac = eth.GetSource();
    Ipv4Header ip;
    ip.EnableChecksum();
    c->RemoveHeader(ip);
    w.checksumOk = ip.IsChecksumOk();
    w.dscp = ip.GetDscp();
    UdpHeader udp;
    c->RemoveHeader(udp);
    w.sport = udp.GetSourcePort();
    w.lengthsOk = ip.GetPayloadSize() == c->GetSize() + 8 &&
                  udp.GetSerializedSize() + c->GetSize() == w.size - 34u &&
                  udp.GetDestinationPort() == 4791;
    RoceBthHeader bth;
    c->RemoveHeader(bth);
    w.opcode = bth.GetOpcode();
    w.psn = bth.GetPsn();

    // The same frame from the separate header classes, as the NIC built it
    // before it had templates.
    Ptr<Packet> orig = p->Copy();
    RoceEncapHeader encap;
    orig->RemoveHeader(encap);
    orig->RemoveHeader(bth);
    Ptr<Packet> ref;
    if (bth.GetOpcode() == RoceBthHeader::ACKNOWLEDGE)
    {
        RoceAethHeader aeth;
        orig->RemoveHeader(aeth);
        ref = Create<Packet>(orig->GetSize() - RoceIcrcTrailer::SIZE);
        ref->AddTrailer(RoceIcrcTrailer());
        ref->AddHeader(aeth);
    }
    else
    {
        bool reth = bth.GetOpcode() == RoceBthHeader::WRITE_FIRST ||
                    bth.GetOpcode() == RoceBthHeader::WRITE_ONLY;
        RoceRethHeader r;
        if (reth)
        {
            orig->RemoveHeader(r);
        }
        ref = Create<Packet>(orig->GetSize() - RoceIcrcTrailer::SIZE);
        ref->AddTrailer(RoceIcrcTrailer());
        if (reth)
        {
            ref->AddHeader(r);
        }
    }
    ref->AddHeader(bth);
    ref->AddHeader(encap);
    std::vector<uint8_t> a(p->GetSize());
    std::vector<uint8_t> b(ref->GetSize());
    p->CopyData(a.data(), a.size());
    ref->CopyData(b.data(), b.size());
    w.sameAsHeaders = a == b;
    return w;
}

/// Records the RoCE frames a device puts on the wire ("MacTx").
class WireLog
{
  public:
    /** \param dev the device */
    void Attach(Ptr<RocePfcNetDevice> dev)
    {
        dev->TraceConnectWithoutContext("MacTx", MakeCallback(&WireLog::Tx, this));
    }

    /** \param p a frame */
    void Tx(Ptr<const Packet> p)
    {
        if (RoceFrame::Parse(*p).isRoce)
        {
            frames.push_back(ReadFrame(p));
        }
    }

    std::vector<WireFrame> frames; //!< RoCE frames in the order sent
};

} // namespace

/**
 * \ingroup rocev2
 * Every data frame and ACK a NIC sends decodes with ns-3's Ipv4Header (checksum
 * verification on) and UdpHeader, has consistent lengths, and equals byte for
 * byte the frame RoceEncapHeader + RoceBthHeader + RoceRethHeader/RoceAethHeader
 * + RoceIcrcTrailer give.
 */
class RoceNicFramesDecodeTestCase : public TestCase
{
  public:
    RoceNicFramesDecodeTestCase()
        : TestCase("NIC frames decode with IPv4 checksum checks and equal the separate headers")
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        WireLog tx;
        WireLog rx;
        tx.Attach(h.sender);
        rx.Attach(h.receiver);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        s->PostWrite(3 * mtu + 5);
        s->PostSend(mtu + 2);
        s->PostWrite(1);
        s->PostSend(7);
        Simulator::Run();

        // WRITE: 4 packets; SEND: 2; WRITE: 1; SEND: 1.
        const std::vector<uint8_t> ops{RoceBthHeader::WRITE_FIRST,
                                       RoceBthHeader::WRITE_MIDDLE,
                                       RoceBthHeader::WRITE_MIDDLE,
                                       RoceBthHeader::WRITE_LAST,
                                       RoceBthHeader::SEND_FIRST,
                                       RoceBthHeader::SEND_LAST,
                                       RoceBthHeader::WRITE_ONLY,
                                       RoceBthHeader::SEND_ONLY};
        const std::vector<uint32_t> sizes{54 + 16 + mtu + 4,
                                          54 + mtu + 4,
                                          54 + mtu + 4,
                                          54 + 8 + 4, // 5 bytes + 3 pad
                                          54 + mtu + 4,
                                          54 + 4 + 4, // 2 bytes + 2 pad
                                          54 + 16 + 4 + 4,
                                          54 + 8 + 4};
        NS_TEST_ASSERT_MSG_EQ(tx.frames.size(), ops.size(), "data frames sent");
        for (std::size_t i = 0; i < ops.size(); ++i)
        {
            const WireFrame& w = tx.frames[i];
            NS_TEST_EXPECT_MSG_EQ(+w.opcode, +ops[i], "opcode of data frame " << i);
            NS_TEST_EXPECT_MSG_EQ(w.size, sizes[i], "size of data frame " << i);
            uint32_t psn = (s->GetInitialPsn() + i) & 0xFFFFFF;
            NS_TEST_EXPECT_MSG_EQ(w.psn, psn, "PSN " << i);
            NS_TEST_EXPECT_MSG_EQ(w.checksumOk, true, "IPv4 checksum of data frame " << i);
            NS_TEST_EXPECT_MSG_EQ(w.lengthsOk, true, "IPv4/UDP lengths of data frame " << i);
            NS_TEST_EXPECT_MSG_EQ(w.sameAsHeaders, true, "bytes of data frame " << i);
            NS_TEST_EXPECT_MSG_EQ(w.sport, s->GetSourcePort(), "UDP source port " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(rx.frames.size(), r->GetStats().acksSent, "one frame per ACK");
        NS_TEST_ASSERT_MSG_GT(rx.frames.size(), 0u, "ACKs were sent");
        for (const WireFrame& w : rx.frames)
        {
            NS_TEST_EXPECT_MSG_EQ(+w.opcode, +RoceBthHeader::ACKNOWLEDGE, "ACK opcode");
            NS_TEST_EXPECT_MSG_EQ(w.size, 62u, "ACK frame: 54 + AETH + ICRC");
            NS_TEST_EXPECT_MSG_EQ(w.checksumOk, true, "IPv4 checksum of an ACK");
            NS_TEST_EXPECT_MSG_EQ(w.lengthsOk, true, "IPv4/UDP lengths of an ACK");
            NS_TEST_EXPECT_MSG_EQ(w.sameAsHeaders, true, "bytes of an ACK");
            NS_TEST_EXPECT_MSG_EQ(w.sport, r->GetSourcePort(), "ACK UDP source port");
        }
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().messagesCompleted, 4u, "every message completes");
    }
};

/**
 * \ingroup rocev2
 * The header templates follow what they were built from: frames sent after a
 * queue pair's SourcePort, the NIC's DscpToPriority map or its MAC address
 * change carry the new values, frames before carry the old ones.
 */
class RoceNicTemplateRebuildTestCase : public TestCase
{
  public:
    RoceNicTemplateRebuildTestCase()
        : TestCase("Header templates are rebuilt on source port, DSCP map and MAC changes")
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        WireLog tx;
        WireLog rx;
        tx.Attach(h.sender);
        rx.Attach(h.receiver);
        auto qps = roce.CreateQp(h.sender, h.receiver);
        Ptr<RoceQueuePair> s = qps.first;
        Ptr<RoceQueuePair> r = qps.second;
        const uint16_t oldSport = s->GetSourcePort();
        const uint16_t oldAckSport = r->GetSourcePort();
        const uint8_t oldDscp = h.sender->PriorityToDscp(s->GetPriority());
        const Mac48Address oldMac = Mac48Address::ConvertFrom(h.sender->GetAddress());
        const Mac48Address newMac("02:00:00:00:ab:cd");
        s->PostWrite(4 * mtu);
        const Time change = MicroSeconds(50); // the first message is done by then
        Simulator::Schedule(change, [&]() {
            s->SetAttribute("SourcePort", UintegerValue(0xD00D));
            r->SetAttribute("SourcePort", UintegerValue(0xBEEF));
            h.sender->SetAttribute("DscpToPriority", StringValue("2:3"));
            h.receiver->SetAttribute("DscpToPriority", StringValue("2:3"));
            h.sender->SetAddress(newMac);
            s->PostWrite(4 * mtu);
        });
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(+s->GetPriority(), 3, "QPs use priority 3");
        NS_TEST_ASSERT_MSG_EQ(+oldDscp, 24, "priority 3 maps to DSCP 24 by default");
        NS_TEST_ASSERT_MSG_EQ(tx.frames.size(), 8u, "two messages of 4 packets");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().messagesCompleted, 2u, "both complete");
        for (const WireFrame& w : tx.frames)
        {
            bool after = w.when >= change;
            uint16_t sport = after ? 0xD00D : oldSport;
            int dscp = after ? 2 : oldDscp;
            Mac48Address mac = after ? newMac : oldMac;
            NS_TEST_EXPECT_MSG_EQ(w.sport, sport, "data UDP source port");
            NS_TEST_EXPECT_MSG_EQ(+w.dscp, dscp, "data DSCP");
            NS_TEST_EXPECT_MSG_EQ(w.srcMac, mac, "data source MAC");
            NS_TEST_EXPECT_MSG_EQ(w.checksumOk, true, "IPv4 checksum");
            NS_TEST_EXPECT_MSG_EQ(w.sameAsHeaders, true, "bytes");
        }
        uint32_t before = 0;
        uint32_t after = 0;
        for (const WireFrame& w : rx.frames)
        {
            bool late = w.when >= change;
            (late ? after : before)++;
            uint16_t sport = late ? 0xBEEF : oldAckSport;
            int dscp = late ? 2 : oldDscp;
            NS_TEST_EXPECT_MSG_EQ(w.sport, sport, "ACK UDP source port");
            NS_TEST_EXPECT_MSG_EQ(+w.dscp, dscp, "ACK DSCP");
            NS_TEST_EXPECT_MSG_EQ(w.checksumOk, true, "ACK IPv4 checksum");
        }
        NS_TEST_ASSERT_MSG_GT(before, 0u, "ACKs before the change");
        NS_TEST_ASSERT_MSG_GT(after, 0u, "ACKs after the change");
    }
};

/**
 * \ingroup rocev2
 * AckClass Control: ACKs sent after the receiver's NIC sets it carry the DSCP
 * of its CnpPriority (the class of its CNPs), those before the queue pair's;
 * data frames keep the queue pair's either way.
 */
class RoceNicAckPriorityTestCase : public TestCase
{
  public:
    RoceNicAckPriorityTestCase()
        : TestCase("AckClass Control moves ACKs to the CNPs' class, data stays in its own")
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        WireLog tx;
        WireLog rx;
        tx.Attach(h.sender);
        rx.Attach(h.receiver);
        auto qps = roce.CreateQp(h.sender, h.receiver);
        Ptr<RoceQueuePair> s = qps.first;
        const uint8_t dataDscp = h.sender->PriorityToDscp(s->GetPriority());
        UintegerValue cnp;
        h.receiver->GetAttribute("CnpPriority", cnp);
        const uint8_t cnpDscp = h.receiver->PriorityToDscp(static_cast<uint8_t>(cnp.Get()));
        NS_TEST_ASSERT_MSG_NE(+cnpDscp, +dataDscp, "the two classes differ");
        s->PostWrite(4 * mtu);
        const Time change = MicroSeconds(50); // the first message is done by then
        Simulator::Schedule(change, [&]() {
            h.receiver->SetAttribute("AckClass", StringValue("Control"));
            s->PostWrite(4 * mtu);
        });
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(s->GetStats().messagesCompleted, 2u, "both complete");
        for (const WireFrame& w : tx.frames)
        {
            NS_TEST_EXPECT_MSG_EQ(+w.dscp, +dataDscp, "data DSCP");
        }
        uint32_t before = 0;
        uint32_t after = 0;
        for (const WireFrame& w : rx.frames)
        {
            const bool late = w.when >= change;
            (late ? after : before)++;
            const int expect = late ? cnpDscp : dataDscp;
            NS_TEST_EXPECT_MSG_EQ(+w.dscp, expect, "ACK DSCP");
            NS_TEST_EXPECT_MSG_EQ(w.checksumOk, true, "ACK IPv4 checksum");
        }
        NS_TEST_ASSERT_MSG_GT(before, 0u, "ACKs before the change");
        NS_TEST_ASSERT_MSG_GT(after, 0u, "ACKs after the change");
    }
};

/**
 * \ingroup rocev2
 * AckClass under a pause of the data's class: the receiving NIC is paused on
 * the queue pair's priority for 65,535 quanta (335.5 us at 100 Gb/s) before
 * the first data frame arrives. Its ACKs leave during the pause from the
 * control class's queue (Control, ControlQueue) or only after it (QueuePair,
 * the data's queue); they carry the CNPs' DSCP only with Control.
 */
class RoceNicAckClassPauseTestCase : public TestCase
{
  public:
    /** \param name the AckClass value */
    explicit RoceNicAckClassPauseTestCase(std::string name)
        : TestCase("AckClass " + name + ": its queue, pause and DSCP"),
          m_class(std::move(name))
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        const DataRate rate("100Gbps");
        RoceHelper roce;
        roce.SetNicAttribute("AckClass", StringValue(m_class));
        TwoHosts h = MakeTwoHosts(roce, rate, mtu);
        WireLog rx;
        rx.Attach(h.receiver);
        auto qps = roce.CreateQp(h.sender, h.receiver);
        Ptr<RoceQueuePair> s = qps.first;
        const uint8_t prio = s->GetPriority();
        const uint8_t dataDscp = h.receiver->PriorityToDscp(prio);
        const uint8_t cnpDscp = h.receiver->PriorityToDscp(h.receiver->GetCnpPriority());
        NS_TEST_ASSERT_MSG_NE(+cnpDscp, +dataDscp, "the two classes differ");

        // The receiver's link peer pauses the data's class, as a switch would.
        Ptr<Packet> pause = Create<Packet>();
        RocePfcHeader pfc;
        pfc.SetPause(prio, 0xFFFF);
        pause->AddHeader(pfc);
        EthernetHeader eth(false);
        eth.SetSource(Mac48Address("02:00:00:00:00:99"));
        eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
        eth.SetLengthType(RocePfcHeader::ETHERTYPE);
        pause->AddHeader(eth);
        h.receiver->Receive(pause);
        const Time pauseEnd = PauseTime(0xFFFF, rate);

        Time done = Time::Max();
        s->PostWrite(4 * mtu, MakeCallback(+[](Time* t, const RoceCompletion&) {
                                  *t = Simulator::Now();
                              }).Bind(&done));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_GT(rx.frames.size(), 0u, "ACKs sent");
        const bool queuePair = m_class == "QueuePair";
        const int expectDscp = m_class == "Control" ? cnpDscp : dataDscp;
        for (const WireFrame& w : rx.frames)
        {
            NS_TEST_EXPECT_MSG_EQ(+w.dscp, expectDscp, "ACK DSCP");
            // Held by the pause in the data's queue, else sent at once.
            NS_TEST_EXPECT_MSG_EQ((w.when >= pauseEnd), queuePair, "ACK sent at " << w.when);
        }
        NS_TEST_EXPECT_MSG_EQ((done >= pauseEnd), queuePair, "message completed at " << done);
    }

    std::string m_class; //!< the AckClass value
};

/**
 * \ingroup rocev2
 * Each opcode kind (SEND/WRITE ONLY, FIRST with and without RETH, MIDDLE,
 * LAST, with every pad count) delivers exactly its payload to the receiving
 * queue pair, and each message's byte count.
 */
class RoceNicDeliverEachOpcodeTestCase : public TestCase
{
  public:
    RoceNicDeliverEachOpcodeTestCase()
        : TestCase("Every data opcode delivers its payload, pads and RETH removed")
    {
    }

  private:
    /** \param psn PSN \param bytes payload */
    void Deliver(uint32_t /* psn */, uint32_t bytes)
    {
        m_delivered.push_back(bytes);
    }

    /** \param bytes message bytes \param msn message sequence number */
    void Message(uint64_t bytes, uint64_t /* msn */)
    {
        m_messages.push_back(bytes);
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 256;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        r->TraceConnectWithoutContext(
            "Deliver",
            MakeCallback(&RoceNicDeliverEachOpcodeTestCase::Deliver, this));
        r->TraceConnectWithoutContext(
            "MessageReceived",
            MakeCallback(&RoceNicDeliverEachOpcodeTestCase::Message, this));
        // (bytes, write): ONLY with pad 3, 2, 1, 0; FIRST/MIDDLE/LAST with pads.
        const std::vector<std::pair<uint32_t, bool>> msgs{{1, false},
                                                          {2, true},
                                                          {3, false},
                                                          {4, true},
                                                          {2 * mtu + 1, false},
                                                          {3 * mtu + 2, true},
                                                          {mtu, true},
                                                          {2 * mtu, false}};
        std::vector<uint32_t> expected;
        std::vector<uint64_t> expectedMessages;
        for (const auto& [bytes, write] : msgs)
        {
            if (write)
            {
                s->PostWrite(bytes);
            }
            else
            {
                s->PostSend(bytes);
            }
            for (uint32_t off = 0; off < bytes; off += mtu)
            {
                expected.push_back(std::min(mtu, bytes - off));
            }
            expectedMessages.push_back(bytes);
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_delivered.size(), expected.size(), "packets delivered");
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_delivered[i], expected[i], "payload of packet " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(m_messages.size(), expectedMessages.size(), "messages received");
        for (std::size_t i = 0; i < expectedMessages.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_messages[i], expectedMessages[i], "bytes of message " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(h.receiver->GetDrops(), 0u, "no drops");
    }

    std::vector<uint32_t> m_delivered; //!< payload per delivered packet
    std::vector<uint64_t> m_messages;  //!< bytes per received message
};

/**
 * \ingroup rocev2
 * Frames too short for what their BTH announces (an ACK without AETH or
 * ICRC, a WRITE_FIRST without room for its RETH, a pad beyond the payload,
 * INT records that are not there) are dropped as "malformed", an unsupported
 * opcode is dropped whole as "unsupported-opcode", and the queue pair still
 * accepts the next good frame.
 */
class RoceNicMalformedTestCase : public TestCase
{
  public:
    RoceNicMalformedTestCase()
        : TestCase("Malformed and truncated RoCE frames are dropped and counted, no crash")
    {
    }

  private:
    /** \param p the frame \param reason why it was dropped */
    void Drop(Ptr<const Packet> p, const char* reason)
    {
        m_drops.emplace_back(reason, p->GetSize());
    }

    /** \param psn PSN \param bytes payload */
    void Deliver(uint32_t /* psn */, uint32_t bytes)
    {
        m_delivered.push_back(bytes);
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), 1024);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        h.receiver->TraceConnectWithoutContext("Drop",
                                               MakeCallback(&RoceNicMalformedTestCase::Drop, this));
        r->TraceConnectWithoutContext("Deliver",
                                      MakeCallback(&RoceNicMalformedTestCase::Deliver, this));

        RoceEncapHeader encap;
        encap.SetMacs(Mac48Address::ConvertFrom(h.sender->GetAddress()),
                      Mac48Address::ConvertFrom(h.receiver->GetAddress()));
        encap.SetAddresses(h.sender->GetIpv4Address(), h.receiver->GetIpv4Address());
        encap.SetSourcePort(0xC001);
        encap.SetDscp(24);
        const uint32_t psn = s->GetInitialPsn();

        // op, destination QP, bytes after the BTH, PadCnt, INT hops, AETH
        struct Bad
        {
            uint8_t op;
            uint32_t qpn;
            uint32_t after;
            uint8_t pad;
            uint8_t hops;
            bool aeth;
            const char* reason;
        };

        const std::vector<Bad> bad{
            {RoceBthHeader::ACKNOWLEDGE, s->GetRemoteQpn(), 0, 0, 0, false, "malformed"},
            {RoceBthHeader::ACKNOWLEDGE, s->GetRemoteQpn(), 3, 0, 0, false, "malformed"},
            {RoceBthHeader::ACKNOWLEDGE, s->GetRemoteQpn(), 0, 0, 0, true, "malformed"},
            {RoceBthHeader::ACKNOWLEDGE, s->GetRemoteQpn(), 4, 0, 1, true, "malformed"},
            {RoceBthHeader::WRITE_FIRST, s->GetRemoteQpn(), 16, 0, 0, false, "malformed"},
            {RoceBthHeader::WRITE_ONLY, s->GetRemoteQpn(), 19, 0, 0, false, "malformed"},
            {RoceBthHeader::SEND_ONLY, s->GetRemoteQpn(), 6, 3, 0, false, "malformed"},
            {RoceBthHeader::SEND_ONLY, s->GetRemoteQpn(), 3, 0, 0, false, "malformed"},
            {RoceBthHeader::SEND_MIDDLE, s->GetRemoteQpn(), 19, 0, 2, false, "malformed"},
            {RoceBthHeader::READ_REQUEST, s->GetRemoteQpn(), 20, 0, 0, false, "unsupported-opcode"},
            {0x05, s->GetRemoteQpn(), 8, 0, 0, false, "unsupported-opcode"},
            {RoceBthHeader::SEND_ONLY, 999, 8, 0, 0, false, "unknown-qp"},
        };
        Time t = MicroSeconds(1);
        // Frames arrive at the receiver node, as a channel delivers them: in its
        // context (ns-3 asserts on a packet received outside it).
        const uint32_t rxNode = h.receiver->GetNode()->GetId();
        std::vector<uint32_t> sizes;
        for (const Bad& b : bad)
        {
            RoceBthHeader bth;
            bth.SetOpcode(b.op);
            bth.SetDestQp(b.qpn);
            bth.SetPsn(psn);
            bth.SetPadCount(b.pad);
            bth.SetIntHops(b.hops);
            RoceHeaderBlock block;
            block.SetEncap(encap);
            block.SetBth(bth);
            if (b.aeth)
            {
                block.SetAeth(0, 0);
            }
            Ptr<Packet> p = Create<Packet>(b.after);
            p->AddHeader(block);
            sizes.push_back(p->GetSize());
            Simulator::ScheduleWithContext(rxNode, t, &RocePfcNetDevice::Receive, h.receiver, p);
            t += MicroSeconds(1);
        }
        // A frame cut inside its UDP header is not RoCE: it goes up to the
        // node, not to a queue pair, and is no NIC drop.
        {
            RoceHeaderBlock block;
            block.SetEncap(encap);
            Ptr<Packet> p = Create<Packet>(0);
            p->AddHeader(block);
            p->RemoveAtEnd(p->GetSize() - 40);
            Simulator::ScheduleWithContext(rxNode, t, &RocePfcNetDevice::Receive, h.receiver, p);
            t += MicroSeconds(1);
        }
        // Then a good SEND_ONLY of 5 bytes (pad 3) is still accepted.
        {
            RoceBthHeader bth;
            bth.SetOpcode(RoceBthHeader::SEND_ONLY);
            bth.SetDestQp(s->GetRemoteQpn());
            bth.SetPsn(psn);
            bth.SetPadCount(3);
            RoceHeaderBlock block;
            block.SetEncap(encap);
            block.SetBth(bth);
            Ptr<Packet> p = Create<Packet>(5 + 3 + RoceIcrcTrailer::SIZE);
            p->AddHeader(block);
            Simulator::ScheduleWithContext(rxNode, t, &RocePfcNetDevice::Receive, h.receiver, p);
        }
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_drops.size(), bad.size(), "every bad RoCE frame dropped");
        for (std::size_t i = 0; i < bad.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(std::string(m_drops[i].first),
                                  std::string(bad[i].reason),
                                  "drop reason of bad frame " << i);
            NS_TEST_EXPECT_MSG_EQ(m_drops[i].second, sizes[i], "frame " << i << " dropped whole");
        }
        NS_TEST_EXPECT_MSG_EQ(h.receiver->GetDrops(), bad.size(), "the drop counter");
        NS_TEST_ASSERT_MSG_EQ(m_delivered.size(), 1u, "only the good frame is delivered");
        NS_TEST_EXPECT_MSG_EQ(m_delivered[0], 5u, "its 5 bytes, pad and ICRC removed");
        NS_TEST_EXPECT_MSG_EQ(r->GetStats().messagesReceived, 1u, "one message received");
        NS_TEST_EXPECT_MSG_EQ(s->GetStats().naksReceived, 0u, "no NAK from the garbage");
    }

    std::vector<std::pair<const char*, uint32_t>> m_drops; //!< reason and size of each drop
    std::vector<uint32_t> m_delivered;                     //!< payload per delivered packet
};

/**
 * \ingroup rocev2
 * The NIC's header templates and receive parse.
 */
class RoceNicWireTestSuite : public TestSuite
{
  public:
    RoceNicWireTestSuite()
        : TestSuite("rocev2-nic-wire", Type::UNIT)
    {
        AddTestCase(new RoceNicFramesDecodeTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceNicTemplateRebuildTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceNicAckPriorityTestCase, RoceTestDuration::QUICK);
        for (const char* c : {"QueuePair", "Control", "ControlQueue"})
        {
            AddTestCase(new RoceNicAckClassPauseTestCase(c), RoceTestDuration::QUICK);
        }
        AddTestCase(new RoceNicDeliverEachOpcodeTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceNicMalformedTestCase, RoceTestDuration::QUICK);
    }
};

static RoceNicWireTestSuite g_roceNicWireTestSuite; //!< static instance
