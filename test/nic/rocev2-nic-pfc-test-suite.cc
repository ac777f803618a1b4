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
 * PFC honouring at the sender. Data of priority 3 competes with data of
 * priority 1 (strict priority: 1 only sends when 3 cannot). Three pauses of
 * priority 3:
 *  - an injected PFC frame of Q quanta stops priority 3 for exactly Q x 512
 *    bit times (to within one frame time) while priority 1 keeps flowing;
 *  - an injected XON (quanta 0) ends a long pause at once;
 *  - XOFF held by the receiver NIC (PauseQuanta = Q, refreshed) stops
 *    priority 3 without a gap until its XON arrives.
 */
class RocePfcPauseTestCase : public TestCase
{
  public:
    /** \param rate line rate \param quanta Q \param mtu payload MTU */
    RocePfcPauseTestCase(std::string rate, uint16_t quanta, uint32_t mtu)
        : TestCase("PFC pause of " + std::to_string(quanta) + " quanta at " + rate +
                   " stops exactly that priority for quanta x 512 bit times"),
          m_rate(rate),
          m_quanta(quanta),
          m_mtu(mtu)
    {
    }

  private:
    /** A frame the sender put on the wire. */
    struct TxRecord
    {
        Time t;           //!< when it started
        uint8_t priority; //!< its priority
    };

    /** \param p a frame the sender put on the wire */
    void SenderTx(Ptr<const Packet> p)
    {
        RoceFrame f = RoceFrame::Parse(*p);
        if (f.isRoce && RoceBthHeader::IsData(f.opcode))
        {
            m_tx.push_back({Simulator::Now(), m_sender->DscpToPriority(f.dscp)});
        }
    }

    /** \param priority priority \param quanta quanta */
    void SenderPfcRx(uint8_t priority, uint16_t quanta)
    {
        if (priority == 3)
        {
            m_pfcRx.emplace_back(Simulator::Now(), quanta);
        }
    }

    /**
     * \brief Hand the sender a PFC frame as if it came from the wire.
     * \param priority the priority \param quanta the quanta
     */
    void Inject(uint8_t priority, uint16_t quanta)
    {
        Ptr<Packet> p = Create<Packet>();
        RocePfcHeader pfc;
        pfc.SetPause(priority, quanta);
        p->AddHeader(pfc);
        EthernetHeader eth(false);
        eth.SetSource(Mac48Address("02:00:00:00:00:99"));
        eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
        eth.SetLengthType(RocePfcHeader::ETHERTYPE);
        p->AddHeader(eth);
        m_sender->Receive(p);
    }

    /**
     * \param priority a priority
     * \param from start of the interval (excluded)
     * \param to end of the interval (excluded)
     * \return data frames of that priority started in (from, to)
     */
    uint32_t CountTx(uint8_t priority, Time from, Time to) const
    {
        uint32_t n = 0;
        for (const auto& r : m_tx)
        {
            n += (r.priority == priority && r.t > from && r.t < to) ? 1 : 0;
        }
        return n;
    }

    /**
     * \param priority a priority \param after a time
     * \return start of the first data frame of that priority after the time
     */
    Time FirstTxAfter(uint8_t priority, Time after) const
    {
        for (const auto& r : m_tx)
        {
            if (r.priority == priority && r.t > after)
            {
                return r.t;
            }
        }
        return Time::Max();
    }

    /**
     * \param priority a priority \param before a time
     * \return start of the last data frame of that priority at or before the time
     */
    Time LastTxBefore(uint8_t priority, Time before) const
    {
        Time last = Time::Min();
        for (const auto& r : m_tx)
        {
            if (r.priority == priority && r.t <= before)
            {
                last = r.t;
            }
        }
        return last;
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, m_rate, m_mtu);
        m_sender = h.sender;
        h.receiver->SetAttribute("PauseQuanta", UintegerValue(m_quanta));
        h.receiver->SetAttribute("PauseRefreshFraction", DoubleValue(0.99));
        roce.SetQpAttribute("Priority", UintegerValue(3));
        auto q3 = roce.CreateQp(h.sender, h.receiver);
        roce.SetQpAttribute("Priority", UintegerValue(1));
        auto q1 = roce.CreateQp(h.sender, h.receiver);
        h.sender->TraceConnectWithoutContext("MacTx",
                                             MakeCallback(&RocePfcPauseTestCase::SenderTx, this));
        h.sender->TraceConnectWithoutContext(
            "PfcRx",
            MakeCallback(&RocePfcPauseTestCase::SenderPfcRx, this));

        const Time pause = PauseTime(m_quanta, m_rate);
        const Time frame = FrameTime(m_rate, m_mtu + DATA_FRAME_HEADERS);
        const Time t0 = MicroSeconds(10);              // injected pause of Q quanta
        const Time t1 = t0 + pause + MicroSeconds(10); // injected pause of 0xFFFF quanta
        const Time t2 = t1 + MicroSeconds(5);          // injected XON
        const Time t3 = t2 + MicroSeconds(10);         // receiver holds XOFF
        const Time t4 = t3 + 2.5 * pause;              // receiver releases it
        const Time end = t4 + MicroSeconds(10);
        // Both QPs have more data than the run can send.
        uint64_t bytes = static_cast<uint64_t>(m_rate.GetBitRate() * end.GetSeconds() / 8) * 2;
        q3.first->PostWrite(bytes);
        q1.first->PostWrite(bytes);
        Simulator::Schedule(t0, &RocePfcPauseTestCase::Inject, this, 3, m_quanta);
        Simulator::Schedule(t1, &RocePfcPauseTestCase::Inject, this, 3, 0xFFFF);
        Simulator::Schedule(t2, &RocePfcPauseTestCase::Inject, this, 3, 0);
        Simulator::Schedule(t3, &RocePfcNetDevice::SetXoff, h.receiver, 3, true);
        Simulator::Schedule(t4, &RocePfcNetDevice::SetXoff, h.receiver, 3, false);
        Simulator::Stop(end);
        Simulator::Run();

        // Before any pause, strict priority: only priority 3 is sent.
        NS_TEST_ASSERT_MSG_GT(CountTx(3, Time(0), t0), 10, "priority 3 flows before the pause");
        NS_TEST_ASSERT_MSG_EQ(CountTx(1, Time(0), t0), 0, "priority 1 waits behind 3");

        // 1. Pause of Q quanta: silent for exactly the pause time.
        NS_TEST_ASSERT_MSG_GT(LastTxBefore(3, t0),
                              t0 - frame - NanoSeconds(1),
                              "priority 3 was busy right up to the pause");
        NS_TEST_ASSERT_MSG_EQ(CountTx(3, t0, t0 + pause), 0, "priority 3 silent while paused");
        Time resumed = FirstTxAfter(3, t0);
        NS_TEST_ASSERT_MSG_EQ_TOL(resumed,
                                  t0 + pause + frame / 2,
                                  frame / 2 + NanoSeconds(1),
                                  "priority 3 resumes Q x 512 bit times after the pause, "
                                  "within one frame time");
        uint32_t p1 = CountTx(1, t0, t0 + pause);
        // Frames that fit in the pause, from exact (sub-nanosecond) frame times.
        double frameSeconds =
            RocePfcNetDevice::WireBytes(m_mtu + DATA_FRAME_HEADERS) * 8.0 / m_rate.GetBitRate();
        uint32_t fit = static_cast<uint32_t>(m_quanta * 512.0 / m_rate.GetBitRate() / frameSeconds);
        NS_TEST_ASSERT_MSG_GT(p1 + 2, fit, "priority 1 fills the line during the pause");
        NS_TEST_ASSERT_MSG_LT(p1, fit + 2, "priority 1 sends no more than fits");

        // 2. XON ends a 0xFFFF pause at once.
        NS_TEST_ASSERT_MSG_EQ(CountTx(3, t1, t2), 0, "priority 3 silent until the XON");
        NS_TEST_ASSERT_MSG_LT(FirstTxAfter(3, t2),
                              t2 + frame + NanoSeconds(1),
                              "XON resumes priority 3 within one frame time");

        // 3. XOFF held by the receiver, refreshed, then released.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(m_pfcRx.size(), 4, "PFC frames seen by the sender");
        if (m_pfcRx.size() < 4)
        {
            return; // reported above
        }
        std::vector<std::pair<Time, uint16_t>> held(m_pfcRx.begin() + 3, m_pfcRx.end());
        NS_TEST_ASSERT_MSG_EQ(held.front().second, m_quanta, "XOFF carries PauseQuanta");
        NS_TEST_ASSERT_MSG_EQ(held.back().second, 0, "release is an XON");
        NS_TEST_ASSERT_MSG_GT(held.size(), 3, "XOFF refreshed while held");
        Time xoffRx = held.front().first;
        Time xonRx = held.back().first;
        // The PFC frame goes ahead of the receiver's queued ACKs, behind at
        // most the one ACK being serialized.
        Time pfcFrame = FrameTime(m_rate, RocePfcNetDevice::MIN_FRAME_BYTES);
        Time ackFrame = FrameTime(m_rate, ACK_FRAME_BYTES);
        NS_TEST_ASSERT_MSG_EQ_TOL(xoffRx - t3,
                                  g_delay + pfcFrame + ackFrame / 2,
                                  ackFrame / 2 + NanoSeconds(1),
                                  "XOFF reaches the sender one PFC frame and one delay later");
        NS_TEST_ASSERT_MSG_EQ(CountTx(3, xoffRx, xonRx), 0, "silent, no gap at refreshes");
        NS_TEST_ASSERT_MSG_LT(FirstTxAfter(3, xonRx),
                              xonRx + frame + NanoSeconds(1),
                              "priority 3 resumes at the XON");

        RocePfcNetDevice::PfcStats st = h.sender->GetPfcStats();
        NS_TEST_ASSERT_MSG_EQ(st.pauseRx[1], 0, "priority 1 never paused");
        NS_TEST_ASSERT_MSG_EQ(st.pausedTime[1], Time(0), "priority 1 never paused");
        Time paused = pause + (t2 - t1) + (xonRx - xoffRx);
        NS_TEST_ASSERT_MSG_EQ_TOL(st.pausedTime[3],
                                  paused,
                                  NanoSeconds(3),
                                  "paused time adds up the three pauses");
        Simulator::Destroy();
    }

    DataRate m_rate;                                //!< line rate
    uint16_t m_quanta;                              //!< Q
    uint32_t m_mtu;                                 //!< payload MTU
    Ptr<RoceNetDevice> m_sender;                    //!< the paused NIC
    std::vector<TxRecord> m_tx;                     //!< its data frames
    std::vector<std::pair<Time, uint16_t>> m_pfcRx; //!< PFC frames it got for priority 3
};

/**
 * \ingroup rocev2
 * A slow receiver (host drain below line rate) pushes back with PFC: nothing
 * is dropped, every byte arrives, goodput equals the drain rate's share of
 * payload, and the sender spends the rest of the time paused.
 */
class RoceSlowReceiverTestCase : public TestCase
{
  public:
    RoceSlowReceiverTestCase()
        : TestCase("slow receiver (drain 50G on a 100G link): PFC, no drop, goodput = drain")
    {
    }

  private:
    /** \param p a frame the receiver got */
    void ReceiverRx(Ptr<const Packet> p)
    {
        m_maxRxBuffer = std::max(m_maxRxBuffer, m_receiver->GetRxBufferBytes() + p->GetSize());
    }

    /**
     * \param priority the PFC priority
     * \param quanta the pause (0: XON)
     */
    void ReceiverPfcTx(uint8_t priority, uint16_t quanta)
    {
        m_pfc.push_back({priority, quanta, m_receiver->GetRxBufferBytes()});
    }

    /// One PFC frame the receiver sent.
    struct PfcEvent
    {
        uint8_t priority;    //!< its priority
        uint16_t quanta;     //!< its pause (0: XON)
        uint64_t rxBuffered; //!< receive-buffer bytes when it was sent
    };

    void DoRun() override
    {
        SimulatorGuard guard;
        const DataRate rate("100Gbps");
        const DataRate drain("50Gbps");
        const uint32_t mtu = 1024;
        const uint64_t size = 10000000;
        const QueueSize xoff("256KB");
        RoceHelper roce;
        roce.SetNicAttribute("RxDrainRate", DataRateValue(drain));
        roce.SetNicAttribute("RxBufferSize", QueueSizeValue(QueueSize("1MB")));
        roce.SetNicAttribute("RxXoffThreshold", QueueSizeValue(xoff));
        roce.SetNicAttribute("RxXonThreshold", QueueSizeValue(QueueSize("128KB")));
        TwoHosts h = MakeTwoHosts(roce, rate, mtu);
        m_receiver = h.receiver;
        DropLog txDrops;
        DropLog rxDrops;
        txDrops.Attach(h.sender);
        rxDrops.Attach(h.receiver);
        h.receiver->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&RoceSlowReceiverTestCase::ReceiverRx, this));
        h.receiver->TraceConnectWithoutContext(
            "PfcTx",
            MakeCallback(&RoceSlowReceiverTestCase::ReceiverPfcTx, this));
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        s->PostWrite(size, done.Callback());
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(rxDrops.Count(RoceNetDevice::DROP_RX_BUFFER_FULL),
                              0,
                              "no receive-buffer overflow");
        NS_TEST_ASSERT_MSG_EQ(rxDrops.total + txDrops.total, 0, "no drop at all");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, size, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(rx.outOfSequence, 0, "in order");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().retransmittedPackets, 0, "no retransmission");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 1, "one completion");
        if (done.all.size() != 1)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[0].success, true, "the WRITE succeeds");
        NS_TEST_ASSERT_MSG_EQ(h.receiver->GetRxBufferBytes(), 0, "receive buffer drained");

        RocePfcNetDevice::PfcStats rxPfc = h.receiver->GetPfcStats();
        RocePfcNetDevice::PfcStats txPfc = h.sender->GetPfcStats();
        NS_TEST_ASSERT_MSG_GT(rxPfc.pauseTx[3], 0, "the receiver sent PFC pauses");
        NS_TEST_ASSERT_MSG_GT(rxPfc.resumeTx[3], 0, "and resumed");
        NS_TEST_ASSERT_MSG_EQ(txPfc.pauseRx[3], rxPfc.pauseTx[3], "the sender got each pause");
        NS_TEST_ASSERT_MSG_EQ(h.receiver->IsXoff(3), false, "XOFF released at the end");

        // Hysteresis: a pause starts when a frame lifts the buffer to XOFF
        // (so it holds [XOFF, XOFF + one frame)), pauses refreshed while
        // paused find it above XON, and the resume is sent when draining a
        // frame brings it down to XON (so it holds (XON - one frame, XON]):
        // not at XOFF. Only priority 3 is in use, so the buffer is its bytes.
        const uint64_t xon = 128000;
        const uint64_t maxFrame = mtu + DATA_FRAME_HEADERS + 16; // RETH on a WRITE's first
        bool paused = false;
        uint32_t starts = 0;
        uint32_t resumes = 0;
        uint32_t badStart = 0;
        uint32_t badRefresh = 0;
        uint32_t badResume = 0;
        for (const auto& e : m_pfc)
        {
            NS_TEST_ASSERT_MSG_EQ(+e.priority, 3, "PFC on the data priority only");
            if (e.quanta > 0 && !paused)
            {
                ++starts;
                badStart +=
                    e.rxBuffered >= xoff.GetValue() && e.rxBuffered < xoff.GetValue() + maxFrame
                        ? 0
                        : 1;
            }
            else if (e.quanta > 0)
            {
                badRefresh += e.rxBuffered > xon ? 0 : 1;
            }
            else
            {
                ++resumes;
                badResume += e.rxBuffered <= xon && e.rxBuffered + maxFrame > xon ? 0 : 1;
            }
            paused = e.quanta > 0;
        }
        NS_TEST_ASSERT_MSG_EQ(starts, rxPfc.resumeTx[3], "each pause ends with one resume");
        NS_TEST_ASSERT_MSG_EQ(resumes, rxPfc.resumeTx[3], "resumes on the wire = counter");
        NS_TEST_ASSERT_MSG_GT(resumes, 1, "several pause/resume cycles");
        NS_TEST_ASSERT_MSG_EQ(badStart, 0, "a pause starts when the buffer reaches XOFF");
        NS_TEST_ASSERT_MSG_EQ(badRefresh, 0, "a paused buffer stays above XON");
        NS_TEST_ASSERT_MSG_EQ(badResume, 0, "the resume waits until the buffer falls to XON");

        // Headroom: after XOFF the buffer grows by at most what is in flight
        // on the round trip plus the frames being serialized at either end.
        Time frame = FrameTime(rate, mtu + DATA_FRAME_HEADERS);
        double rtt = (2 * g_delay + 3 * frame).GetSeconds();
        uint64_t headroom = static_cast<uint64_t>(rate.GetBitRate() * rtt / 8);
        NS_TEST_ASSERT_MSG_LT_OR_EQ(m_maxRxBuffer,
                                    xoff.GetValue() + headroom,
                                    "buffer stays within XOFF + one round trip of data");

        // The host drains whole frames (Ethernet to ICRC, no FCS), so goodput is
        // the drain rate times the payload share of a frame.
        Time fct = done.all[0].completed - done.all[0].posted;
        double goodput = size * 8.0 / fct.GetSeconds();
        double expected = drain.GetBitRate() * double(mtu) / (mtu + DATA_FRAME_HEADERS);
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput, expected, 0.01 * expected, "goodput = drain rate");
        // The sender transmits at line rate while resumed: it is paused for
        // the rest of the transfer.
        double busy =
            goodput / (rate.GetBitRate() * double(mtu) / (mtu + RoceNetDevice::DATA_WIRE_OVERHEAD));
        double pausedShare = txPfc.pausedTime[3].GetSeconds() / fct.GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(pausedShare, 1 - busy, 0.03, "sender paused the rest");
        Simulator::Destroy();
    }

    Ptr<RoceNetDevice> m_receiver; //!< the slow NIC
    uint64_t m_maxRxBuffer{0};     //!< largest receive-buffer occupancy seen
    std::vector<PfcEvent> m_pfc;   //!< PFC frames the receiver sent, in order
};

/**
 * \ingroup rocev2
 * rocev2-nic-pfc suite.
 */
class Rocev2NicPfcTestSuite : public TestSuite
{
  public:
    Rocev2NicPfcTestSuite()
        : TestSuite("rocev2-nic-pfc", Type::UNIT)
    {
        AddTestCase(new RocePfcPauseTestCase("100Gbps", 1000, 1024), RoceTestDuration::QUICK);
        AddTestCase(new RoceSlowReceiverTestCase(), RoceTestDuration::QUICK);
        // The largest pause (0xFFFF quanta: 83.9 us at 400G) last: the runner
        // stops a suite at its first failed case.
        AddTestCase(new RocePfcPauseTestCase("400Gbps", 0xFFFF, 4096), RoceTestDuration::QUICK);
    }
};

static Rocev2NicPfcTestSuite g_rocev2NicPfcTestSuite; //!< static instance
