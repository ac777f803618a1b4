/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup rocev2
 * Tests of the RoCEv2 NIC and its RC queue pairs on a two-host link: goodput
 * against the wire formula, recovery from random and tail loss, PSN wrap,
 * retry exhaustion, PFC pause honouring, slow-receiver back-pressure, ACK
 * coalescing and message ordering.
 */

#include "rocev2-nic-test-helpers.h"

#include "ns3/roce-ns3-compat.h"

using namespace ns3;

/**
 * \ingroup rocev2
 * ACK coalescing: with AckInterval = 4 the receiver acknowledges every 4th
 * packet and the last packet of each message, i.e. ceil(n / 4) ACKs for a
 * message of n packets; everything is still delivered and completed.
 */
class RoceAckCoalescingTestCase : public TestCase
{
  public:
    RoceAckCoalescingTestCase()
        : TestCase("AckInterval=4: one ACK per 4 packets and per message end")
    {
    }

  private:
    /** \param p a frame the receiver sent */
    void ReceiverTx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && f.opcode == RoceBthHeader::ACKNOWLEDGE)
        {
            ++m_ackFrames;
        }
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        RoceHelper roce;
        roce.SetQpAttribute("AckInterval", UintegerValue(4));
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        h.receiver->TraceConnectWithoutContext(
            "MacTx",
            MakeCallback(&RoceAckCoalescingTestCase::ReceiverTx, this));
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        const std::vector<uint64_t> sizes{100 * mtu, 10 * mtu + 1, 3 * mtu, 1, 8 * mtu};
        uint64_t total = 0;
        uint64_t packets = 0;
        uint64_t acks = 0;
        for (uint64_t b : sizes)
        {
            s->PostWrite(b, done.Callback());
            uint64_t n = (b + mtu - 1) / mtu;
            total += b;
            packets += n;
            acks += (n + 3) / 4;
        }
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(r->GetStats().acksSent, acks, "ceil(n/4) ACKs per message");
        NS_TEST_ASSERT_MSG_EQ(m_ackFrames, acks, "as many ACK frames on the wire");
        NS_TEST_ASSERT_MSG_LT(acks * 3, packets, "far fewer ACKs than packets");
        NS_TEST_ASSERT_MSG_EQ(r->GetStats().naksSent, 0, "no NAK");
        NS_TEST_ASSERT_MSG_EQ(rx.packets, packets, "every packet delivered");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, total, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), sizes.size(), "every message completes");
        bool ok = true;
        for (const auto& c : done.all)
        {
            ok = ok && c.success;
        }
        NS_TEST_ASSERT_MSG_EQ(ok, true, "all succeed");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().bytesAcked, total, "all acknowledged");
        Simulator::Destroy();
    }

    uint32_t m_ackFrames{0}; //!< ACK frames the receiver sent
};

/**
 * \ingroup rocev2
 * SENDs and WRITEs of assorted sizes (zero, one byte, one MTU, MTU + 1, many
 * MTUs) on one QP: the opcodes on the wire follow FIRST/MIDDLE/LAST/ONLY per
 * message, and completions (sender) and receptions (receiver) come in posting
 * order with the right sizes.
 */
class RoceMessageOrderTestCase : public TestCase
{
  public:
    RoceMessageOrderTestCase()
        : TestCase("SEND and WRITE messages: opcodes, completion and reception order")
    {
    }

  private:
    /** \param p a frame the sender sent */
    void SenderTx(Ptr<const Packet> p)
    {
        uint8_t op = 0;
        uint32_t psn = 0;
        if (ParseBth(p, op, psn) && RoceBthHeader::IsData(op))
        {
            m_opcodes.push_back(op);
        }
    }

    /** \param c a completion */
    void Complete(const RoceCompletion& c)
    {
        m_completed.push_back(c);
    }

    /** \param bytes message bytes \param msn MSN */
    void Received(uint64_t bytes, uint64_t msn)
    {
        m_received.emplace_back(bytes, msn);
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        const uint32_t mtu = 1024;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), mtu);
        h.sender->TraceConnectWithoutContext(
            "MacTx",
            MakeCallback(&RoceMessageOrderTestCase::SenderTx, this));
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        s->TraceConnectWithoutContext("MessageComplete",
                                      MakeCallback(&RoceMessageOrderTestCase::Complete, this));
        r->TraceConnectWithoutContext("MessageReceived",
                                      MakeCallback(&RoceMessageOrderTestCase::Received, this));
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;

        struct Post
        {
            bool write;
            uint64_t bytes;
        };

        const std::vector<Post> posts{{false, 0},
                                      {true, 1},
                                      {false, mtu},
                                      {true, mtu + 1},
                                      {false, 5 * mtu + 100},
                                      {true, 3 * mtu},
                                      {false, 2 * mtu},
                                      {true, 0}};
        std::vector<uint64_t> ids;
        std::vector<uint8_t> expectedOps;
        uint64_t total = 0;
        for (const auto& m : posts)
        {
            ids.push_back(m.write ? s->PostWrite(m.bytes, done.Callback())
                                  : s->PostSend(m.bytes, done.Callback()));
            total += m.bytes;
            uint64_t n = m.bytes == 0 ? 1 : (m.bytes + mtu - 1) / mtu;
            for (uint64_t i = 0; i < n; ++i)
            {
                uint8_t op;
                if (n == 1)
                {
                    op = m.write ? RoceBthHeader::WRITE_ONLY : RoceBthHeader::SEND_ONLY;
                }
                else if (i == 0)
                {
                    op = m.write ? RoceBthHeader::WRITE_FIRST : RoceBthHeader::SEND_FIRST;
                }
                else if (i == n - 1)
                {
                    op = m.write ? RoceBthHeader::WRITE_LAST : RoceBthHeader::SEND_LAST;
                }
                else
                {
                    op = m.write ? RoceBthHeader::WRITE_MIDDLE : RoceBthHeader::SEND_MIDDLE;
                }
                expectedOps.push_back(op);
            }
        }
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_opcodes.size(), expectedOps.size(), "one frame per packet");
        if (m_opcodes.size() != expectedOps.size())
        {
            return; // reported above
        }
        for (std::size_t i = 0; i < expectedOps.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(+m_opcodes[i],
                                  +expectedOps[i],
                                  "opcode of data packet "
                                      << i << " (" << RoceBthHeader::OpcodeName(expectedOps[i])
                                      << " expected)");
        }
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, total, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(rx.outOfSequence, 0, "in order");
        NS_TEST_ASSERT_MSG_EQ(m_completed.size(), posts.size(), "MessageComplete per message");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), posts.size(), "callback per message");
        NS_TEST_ASSERT_MSG_EQ(m_received.size(), posts.size(), "MessageReceived per message");
        if (m_completed.size() != posts.size() || done.all.size() != posts.size() ||
            m_received.size() != posts.size())
        {
            return; // reported above
        }
        for (std::size_t i = 0; i < posts.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(m_completed[i].id, ids[i], "completions in posting order");
            NS_TEST_ASSERT_MSG_EQ(done.all[i].id, ids[i], "callbacks in posting order");
            NS_TEST_ASSERT_MSG_EQ(m_completed[i].bytes, posts[i].bytes, "completion size");
            NS_TEST_ASSERT_MSG_EQ(m_completed[i].success, true, "success");
            NS_TEST_ASSERT_MSG_EQ(m_received[i].first, posts[i].bytes, "received size");
            NS_TEST_ASSERT_MSG_EQ(m_received[i].second, i + 1, "MSN counts messages");
            if (i > 0)
            {
                NS_TEST_ASSERT_MSG_GT_OR_EQ(m_completed[i].completed,
                                            m_completed[i - 1].completed,
                                            "completion times never go back");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(r->GetStats().messagesReceived, posts.size(), "receiver count");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().messagesCompleted, posts.size(), "sender count");
        Simulator::Destroy();
    }

    std::vector<uint8_t> m_opcodes;                        //!< data opcodes sent, in order
    std::vector<RoceCompletion> m_completed;               //!< MessageComplete trace
    std::vector<std::pair<uint64_t, uint64_t>> m_received; //!< MessageReceived trace
};

/**
 * \ingroup rocev2
 * rocev2-nic-message suite.
 */
class Rocev2NicMessageTestSuite : public TestSuite
{
  public:
    Rocev2NicMessageTestSuite()
        : TestSuite("rocev2-nic-message", Type::UNIT)
    {
        AddTestCase(new RoceAckCoalescingTestCase(), RoceTestDuration::QUICK);
        AddTestCase(new RoceMessageOrderTestCase(), RoceTestDuration::QUICK);
    }
};

static Rocev2NicMessageTestSuite g_rocev2NicMessageTestSuite; //!< static instance
