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
 * \brief Drops the first RoCEv2 frames that match a condition on their BTH
 * opcode and PSN, and nothing else.
 */
class RoceMatchDropErrorModel : public ErrorModel
{
  public:
    /// Condition on (opcode, PSN).
    using Match = std::function<bool(uint8_t opcode, uint32_t psn)>;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RoceMatchDropErrorModel").SetParent<ErrorModel>().SetGroupName("Rocev2");
        return tid;
    }

    /**
     * \param match which frames to drop
     * \param count how many matching frames to drop, the first ones
     */
    void SetMatch(Match match, uint32_t count = 1)
    {
        m_match = match;
        m_remaining = count;
    }

    /** \return frames dropped so far */
    uint32_t GetDropped() const
    {
        return m_dropped;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint8_t opcode = 0;
        uint32_t psn = 0;
        if (!IsEnabled() || m_remaining == 0 || !ParseBth(p, opcode, psn) || !m_match(opcode, psn))
        {
            return false;
        }
        --m_remaining;
        ++m_dropped;
        return true;
    }

    void DoReset() override
    {
    }

    Match m_match;           //!< the condition
    uint32_t m_remaining{0}; //!< matching frames still to drop
    uint32_t m_dropped{0};   //!< frames dropped
};

/**
 * \ingroup rocev2
 * Goodput of one long RDMA WRITE on an idle link is the line rate times the
 * payload share of a middle packet on the wire: MTU / (MTU + 82).
 */
class RoceGoodputTestCase : public TestCase
{
  public:
    /**
     * \param rate line rate \param mtu payload MTU \param size message bytes
     */
    RoceGoodputTestCase(std::string rate, uint32_t mtu, uint64_t size)
        : TestCase("WRITE of " + std::to_string(size) + " B at " + rate + ", MTU " +
                   std::to_string(mtu) + ": goodput is rate x MTU over (MTU + 82)"),
          m_rate(rate),
          m_mtu(mtu),
          m_size(size)
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, m_rate, m_mtu);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        s->PostWrite(m_size, done.Callback());
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 1, "one completion");
        if (done.all.size() != 1)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[0].success, true, "the WRITE succeeds");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, m_size, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(rx.outOfSequence, 0, "PSNs in sequence");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().retransmittedPackets, 0, "no retransmission");

        double share = double(m_mtu) / (m_mtu + RoceNetDevice::DATA_WIRE_OVERHEAD);
        double expected = m_rate.GetBitRate() * share;
        // Steady state, at the receiver: from the first delivery to the last,
        // only middle packets (and one shorter last packet) cross the wire.
        double steady =
            (rx.bytes - rx.firstBytes) * 8.0 / (rx.lastTime - rx.firstTime).GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(steady,
                                  expected,
                                  1e-4 * expected,
                                  "steady-state goodput is rate x MTU/(MTU+82)");
        // End to end, posting to completion: start-up and the final ACK cost
        // about one round trip, within 1% for a message of this size.
        Time fct = done.all[0].completed - done.all[0].posted;
        double goodput = m_size * 8.0 / fct.GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput, expected, 0.01 * expected, "FCT goodput within 1%");
        NS_TEST_ASSERT_MSG_LT(goodput, expected, "FCT goodput cannot beat the wire");
        Simulator::Destroy();
    }

    DataRate m_rate; //!< line rate
    uint32_t m_mtu;  //!< payload MTU
    uint64_t m_size; //!< message bytes
};

/**
 * \ingroup rocev2
 * RoceHelper::CreateQpOnNodes connects the first NIC of each node, and each
 * QP's congestion control is told its own NIC's line rate. Host A has two
 * NICs: to B at 25 Gb/s (addresses 10.0.0.1 and 10.0.0.2, the first two
 * made) and to C at 40 Gb/s (10.0.0.3 and 10.0.0.4). A QP from A to C
 * therefore starts on A's first NIC, 10.0.0.1, as its second QP (number 3).
 */
class RoceQpOnNodesTestCase : public TestCase
{
  public:
    RoceQpOnNodesTestCase()
        : TestCase("CreateQpOnNodes uses each node's first NIC; a QP's CC knows its line rate")
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        RoceHelper roce;
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        NodeContainer n;
        n.Create(3);
        roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("25Gbps")));
        NetDeviceContainer ab = roce.Install(n.Get(0), n.Get(1));
        roce.SetDeviceAttribute("DataRate", DataRateValue(DataRate("40Gbps")));
        NetDeviceContainer ac = roce.Install(n.Get(0), n.Get(2));

        auto [qa, qb] = roce.CreateQpOnNodes(n.Get(0), n.Get(1));
        auto [qa2, qc] = roce.CreateQpOnNodes(n.Get(0), n.Get(2));
        // qp, its NIC, its number, its peer's number and address, its line rate.
        auto check = [this](const std::string& what,
                            Ptr<RoceQueuePair> qp,
                            Ptr<NetDevice> nic,
                            uint32_t qpn,
                            uint32_t remoteQpn,
                            const char* remoteAddress,
                            const char* lineRate) {
            NS_TEST_EXPECT_MSG_EQ(qp->GetNic(), nic, what << ": its NIC");
            NS_TEST_EXPECT_MSG_EQ(qp->GetQpn(), qpn, what << ": its QP number");
            NS_TEST_EXPECT_MSG_EQ(qp->GetRemoteQpn(), remoteQpn, what << ": the peer's number");
            NS_TEST_EXPECT_MSG_EQ(qp->GetRemoteAddress(),
                                  Ipv4Address(remoteAddress),
                                  what << ": the peer's address");
            NS_TEST_EXPECT_MSG_EQ(qp->GetCongestionControl()->GetLineRate(),
                                  DataRate(lineRate),
                                  what << ": the line rate its CC knows");
        };
        check("A to B, at A", qa, ab.Get(0), 2, 2, "10.0.0.2", "25Gbps");
        check("A to B, at B", qb, ab.Get(1), 2, 2, "10.0.0.1", "25Gbps");
        // A's first NIC, not the one linked to C.
        check("A to C, at A", qa2, ab.Get(0), 3, 2, "10.0.0.4", "25Gbps");
        check("A to C, at C", qc, ac.Get(1), 2, 3, "10.0.0.1", "40Gbps");

        // The pair on the A-B link carries a message.
        CompletionLog done;
        qa->PostWrite(100000, done.Callback());
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 1, "one completion");
        NS_TEST_EXPECT_MSG_EQ(done.all[0].success, true, "the WRITE succeeds");
        NS_TEST_EXPECT_MSG_EQ(qb->GetStats().bytesDelivered, 100000, "every byte delivered");
    }
};

/**
 * \ingroup rocev2
 * Random loss on both directions: go-back-N and the timer deliver every byte
 * exactly once, in PSN order, and the WRITE completes successfully.
 */
class RoceRandomLossTestCase : public TestCase
{
  public:
    /**
     * \param lossName the loss rate as written in the test name
     * \param lossRate per-frame loss
     * \param size message bytes
     */
    RoceRandomLossTestCase(std::string lossName, double lossRate, uint64_t size)
        : TestCase("loss " + lossName + " on both NICs: " + std::to_string(size) +
                   " B delivered exactly once, in order"),
          m_lossRate(lossRate),
          m_size(size)
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        SeedGuard seed(1, 1);
        RoceHelper roce;
        roce.SetQpAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), 1024);
        SetLoss(h.sender, m_lossRate, 10);
        SetLoss(h.receiver, m_lossRate, 20);
        DropLog txDrops;
        DropLog rxDrops;
        txDrops.Attach(h.sender);
        rxDrops.Attach(h.receiver);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        s->PostWrite(m_size, done.Callback());
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        uint64_t packets = (m_size + 1023) / 1024;
        NS_TEST_ASSERT_MSG_GT(rxDrops.Count(RocePfcNetDevice::DROP_RX_ERROR),
                              0,
                              "data frames lost");
        NS_TEST_ASSERT_MSG_GT(txDrops.Count(RocePfcNetDevice::DROP_RX_ERROR), 0, "ACKs lost");
        NS_TEST_ASSERT_MSG_GT(s->GetStats().retransmittedPackets, 0, "retransmissions");
        // NAKs: the receiver sends one when a data loss opens a PSN gap, and
        // no more until the gap is filled, so there are at most as many as
        // frames lost on its side (a lost tail needs none); the sender gets
        // all but those lost on its side.
        uint64_t naksSent = r->GetStats().naksSent;
        uint64_t naksReceived = s->GetStats().naksReceived;
        NS_TEST_ASSERT_MSG_GT(naksSent, 0, "losses were reported by NAKs");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksSent,
                                    rxDrops.Count(RocePfcNetDevice::DROP_RX_ERROR),
                                    "at most one NAK per data loss");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksReceived, naksSent, "no NAK from nowhere");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksSent - naksReceived,
                                    txDrops.Count(RocePfcNetDevice::DROP_RX_ERROR),
                                    "every NAK not received was lost on the wire");
        NS_TEST_ASSERT_MSG_EQ(rx.packets, packets, "each packet delivered exactly once");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, m_size, "every byte delivered exactly once");
        NS_TEST_ASSERT_MSG_EQ(rx.outOfSequence, 0, "consecutive PSNs, no repeat");
        NS_TEST_ASSERT_MSG_EQ(rx.firstPsn, 0, "delivery starts at the initial PSN");
        NS_TEST_ASSERT_MSG_EQ(r->GetStats().bytesDelivered, m_size, "receiver counter agrees");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 1, "one completion");
        if (done.all.size() != 1)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[0].success, true, "the WRITE succeeds");
        NS_TEST_ASSERT_MSG_EQ(done.all[0].bytes, m_size, "completion size");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().bytesAcked, m_size, "every byte acknowledged");
        NS_TEST_ASSERT_MSG_EQ(s->GetState(), RoceQueuePair::RTS, "the QP is still usable");
        NS_TEST_ASSERT_MSG_EQ(s->HasOutstanding(), false, "nothing outstanding");
        Simulator::Destroy();
    }

    double m_lossRate; //!< per-frame loss
    uint64_t m_size;   //!< message bytes
};

/**
 * \ingroup rocev2
 * Loss of a message's last packet produces no NAK (nothing follows it): the
 * retransmission timer recovers it, one RTO after the last ACK, and the
 * message completes one RTO plus one round trip later than without loss.
 */
class RoceTailLossTestCase : public TestCase
{
  public:
    /** \param size message bytes (one packet gives WRITE_ONLY) */
    explicit RoceTailLossTestCase(uint64_t size)
        : TestCase("loss of the last packet of a " + std::to_string(size) +
                   " B WRITE is recovered by one timeout"),
          m_size(size)
    {
    }

  private:
    /** Outcome of one run. */
    struct Result
    {
        Time fct;                //!< posting to completion
        bool success{false};     //!< completion status
        uint64_t delivered{0};   //!< bytes delivered
        uint64_t outOfSeq{0};    //!< deliveries out of sequence
        uint32_t dropped{0};     //!< frames the error model dropped
        RoceQueuePair::Stats tx; //!< sender counters
        uint32_t timeoutPsn{0};  //!< PSN the last timeout restarted from
        uint32_t timeoutPkts{0}; //!< packets the last timeout resends
        uint32_t lastPsn{0};     //!< PSN of the message's last packet
    };

    /** \param psn PSN \param packets count */
    void Timeout(uint32_t psn, uint32_t packets)
    {
        m_timeoutPsn = psn;
        m_timeoutPackets = packets;
    }

    /**
     * \param dropLast drop the first WRITE_LAST/WRITE_ONLY frame
     * \return the outcome
     */
    Result RunOnce(bool dropLast)
    {
        RoceHelper roce;
        roce.SetQpAttribute("RetransmitTimeout", TimeValue(m_rto));
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), 1024);
        Ptr<RoceMatchDropErrorModel> em = CreateObject<RoceMatchDropErrorModel>();
        em->SetMatch([](uint8_t op, uint32_t) {
            return op == RoceBthHeader::WRITE_LAST || op == RoceBthHeader::WRITE_ONLY;
        });
        if (!dropLast)
        {
            em->Disable();
        }
        h.receiver->SetAttribute("ReceiveErrorModel", PointerValue(em));
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        s->TraceConnectWithoutContext("Timeout",
                                      MakeCallback(&RoceTailLossTestCase::Timeout, this));
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        s->PostWrite(m_size, done.Callback());
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        Result res;
        if (done.all.size() == 1)
        {
            res.fct = done.all[0].completed - done.all[0].posted;
            res.success = done.all[0].success;
        }
        res.delivered = rx.bytes;
        res.outOfSeq = rx.outOfSequence;
        res.dropped = em->GetDropped();
        res.tx = s->GetStats();
        res.timeoutPsn = m_timeoutPsn;
        res.timeoutPkts = m_timeoutPackets;
        res.lastPsn = static_cast<uint32_t>((m_size + 1023) / 1024 - 1);
        Simulator::Destroy();
        return res;
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        Result base = RunOnce(false);
        NS_TEST_ASSERT_MSG_EQ(base.success, true, "baseline completes");
        NS_TEST_ASSERT_MSG_EQ(base.tx.timeouts, 0, "baseline has no timeout");
        Result lossy = RunOnce(true);
        NS_TEST_ASSERT_MSG_EQ(lossy.dropped, 1, "exactly the last packet was dropped once");
        NS_TEST_ASSERT_MSG_EQ(lossy.success, true, "the WRITE completes");
        NS_TEST_ASSERT_MSG_EQ(lossy.delivered, m_size, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(lossy.outOfSeq, 0, "in order");
        NS_TEST_ASSERT_MSG_EQ(lossy.tx.timeouts, 1, "one timeout");
        NS_TEST_ASSERT_MSG_EQ(lossy.tx.naksReceived, 0, "no NAK: nothing followed the loss");
        NS_TEST_ASSERT_MSG_EQ(lossy.tx.retransmittedPackets, 1, "only the last packet resent");
        NS_TEST_ASSERT_MSG_EQ(lossy.timeoutPsn, lossy.lastPsn, "timeout restarts at the lost PSN");
        NS_TEST_ASSERT_MSG_EQ(lossy.timeoutPkts, 1, "one packet outstanding at the timeout");
        NS_TEST_ASSERT_MSG_GT(lossy.fct, m_rto, "completion waits for the timer");
        // The timer restarts at each ACK that makes progress. With earlier
        // packets acknowledged, it runs from the ACK of the next-to-last packet,
        // and the resent packet then takes one round trip (two propagation
        // delays and one ACK frame) more than the original took after that
        // ACK. A one-packet message has no earlier ACK: the timer runs from the
        // send, and the resent packet takes what the original would have.
        DataRate rate("100Gbps");
        Time expected = base.fct + m_rto;
        if (lossy.lastPsn > 0)
        {
            expected += 2 * g_delay + FrameTime(rate, ACK_FRAME_BYTES);
        }
        Time tol = FrameTime(rate, 1024 + DATA_FRAME_HEADERS);
        NS_TEST_ASSERT_MSG_EQ_TOL(lossy.fct,
                                  expected,
                                  tol,
                                  "completion = no-loss completion + RTO (+ one round trip)");
        Simulator::Destroy();
    }

    const Time m_rto{MicroSeconds(50)}; //!< retransmission timeout
    uint64_t m_size;                    //!< message bytes
    uint32_t m_timeoutPsn{0};           //!< from the Timeout trace
    uint32_t m_timeoutPackets{0};       //!< from the Timeout trace
};

/**
 * \ingroup rocev2
 * With every data frame lost, the QP times out RetryCount + 1 times, enters
 * the error state, fails its message, and the simulation ends by itself.
 */
class RoceRetryExhaustionTestCase : public TestCase
{
  public:
    RoceRetryExhaustionTestCase()
        : TestCase("100% loss: RetryCount exhausted -> ERROR state, failed completion, run ends")
    {
    }

  private:
    /** \param qpn the QP number */
    void Error(uint32_t qpn)
    {
        m_errors.push_back(qpn);
        m_errorTime = Simulator::Now();
    }

    void DoRun() override
    {
        SimulatorGuard guard;
        const Time rto = MicroSeconds(10);
        const uint32_t retries = 3;
        RoceHelper roce;
        roce.SetQpAttribute("RetransmitTimeout", TimeValue(rto));
        roce.SetQpAttribute("RetryCount", UintegerValue(retries));
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), 1024);
        SetLoss(h.receiver, 1.0, 1);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        s->TraceConnectWithoutContext("Error",
                                      MakeCallback(&RoceRetryExhaustionTestCase::Error, this));
        CompletionLog done;
        s->PostWrite(10000, done.Callback());
        // A watchdog, 1 ms on: by then nothing else may be left to run. It
        // stops a run that would not end by itself.
        Simulator::Schedule(MilliSeconds(1), &RoceRetryExhaustionTestCase::Watchdog, this);
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_idleAtWatchdog, true, "the simulation ends by itself");
        NS_TEST_ASSERT_MSG_EQ(s->GetState(), RoceQueuePair::ERROR, "QP in the error state");
        // Its messages failed: nothing is outstanding, so a loop that waits
        // for HasOutstanding() to clear (e.g. a rate sampler) ends.
        NS_TEST_ASSERT_MSG_EQ(s->HasOutstanding(), false, "nothing outstanding after ERROR");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().timeouts, retries + 1, "RetryCount + 1 timeouts");
        NS_TEST_ASSERT_MSG_EQ(m_errors.size(), 1, "Error trace fired once");
        if (m_errors.size() != 1)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(m_errors[0], s->GetQpn(), "Error trace names the QP");
        // Nothing is acknowledged, so the timer never restarts from progress:
        // the error comes (RetryCount + 1) x RTO after the first packet.
        NS_TEST_ASSERT_MSG_EQ(m_errorTime, (retries + 1) * rto, "error after (RetryCount+1) RTOs");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 1, "one completion");
        if (done.all.size() != 1)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[0].success, false, "completion reports failure");
        NS_TEST_ASSERT_MSG_EQ(done.all[0].completed, m_errorTime, "failed at the error time");
        NS_TEST_ASSERT_MSG_EQ(r->GetStats().bytesDelivered, 0, "nothing delivered");
        // A message posted on a QP in the error state fails at once.
        s->PostWrite(100, done.Callback());
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 2, "post in ERROR completes at once");
        if (done.all.size() != 2)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[1].success, false, "and fails");
        Simulator::Destroy();
    }

    /** \brief Note whether any other event is left, and stop the run. */
    void Watchdog()
    {
        m_idleAtWatchdog = Simulator::IsFinished();
        Simulator::Stop();
    }

    std::vector<uint32_t> m_errors; //!< Error trace calls
    Time m_errorTime;               //!< when the last one fired
    bool m_idleAtWatchdog{false};   //!< no event was left when the watchdog ran
};

/**
 * \ingroup rocev2
 * PSNs wrap from 2^24 - 1 to 0: starting at InitialPsn = 0xFFFFF0, a WRITE
 * and a SEND cross the wrap; a loss just before it and one after it are each
 * recovered by a NAK; everything is delivered once and in order.
 */
class RocePsnWrapTestCase : public TestCase
{
  public:
    RocePsnWrapTestCase()
        : TestCase("PSN wrap at 2^24 with go-back-N across it")
    {
    }

  private:
    void DoRun() override
    {
        SimulatorGuard guard;
        RoceHelper roce;
        roce.SetQpAttribute("InitialPsn", UintegerValue(0xFFFFF0));
        roce.SetQpAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
        // Coalesced ACKs: when a NAK arrives, the oldest unacknowledged PSN
        // can lie before the lost one, so restarting at the NAK's PSN (and
        // not at the oldest unacknowledged) is visible on the wire.
        roce.SetQpAttribute("AckInterval", UintegerValue(8));
        TwoHosts h = MakeTwoHosts(roce, DataRate("100Gbps"), 1024);
        Ptr<RoceMatchDropErrorModel> em = CreateObject<RoceMatchDropErrorModel>();
        // Each of the two PSNs is lost once, on its first transmission.
        std::set<uint32_t> toDrop{0xFFFFFE, 0x000028};
        em->SetMatch(
            [toDrop](uint8_t op, uint32_t psn) mutable {
                return RoceBthHeader::IsData(op) && toDrop.erase(psn) > 0;
            },
            2);
        h.receiver->SetAttribute("ReceiveErrorModel", PointerValue(em));
        // The sender's data PSNs and the receiver's NAKs, read off the wires.
        std::vector<uint32_t> sentPsns;
        std::vector<uint32_t> nakPsns;
        h.sender->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&sentPsns](Ptr<const Packet> p) {
                uint8_t op;
                uint32_t psn;
                if (ParseBth(p, op, psn) && RoceBthHeader::IsData(op))
                {
                    sentPsns.push_back(psn);
                }
            }));
        h.receiver->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&nakPsns](Ptr<const Packet> p) {
                uint8_t op;
                uint32_t psn;
                if (ParseBth(p, op, psn) && op == RoceBthHeader::ACKNOWLEDGE)
                {
                    uint8_t b[BTH_OFFSET + RoceFrame::BTH_BYTES + 1];
                    p->CopyData(b, sizeof(b));
                    uint8_t syndrome = b[BTH_OFFSET + RoceFrame::BTH_BYTES]; // AETH byte 0
                    if ((syndrome >> 5) == 3)                                // type NAK
                    {
                        nakPsns.push_back(psn);
                    }
                }
            }));
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DeliveryLog rx;
        rx.Attach(r);
        CompletionLog done;
        const uint64_t a = 20 * 1024 + 7; // PSNs 0xFFFFF0 .. 0x000004
        const uint64_t b = 40 * 1024;     // PSNs 0x000005 .. 0x00002C
        s->PostWrite(a, done.Callback());
        s->PostSend(b, done.Callback());
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(em->GetDropped(), 2, "both losses happened");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().naksReceived, 2, "each loss recovered by a NAK");
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().timeouts, 0, "no timeout");
        NS_TEST_ASSERT_MSG_EQ(r->GetStats().naksSent, 2, "the receiver sent one NAK per loss");
        // Each NAK names the lost PSN: the next one the receiver expects.
        NS_TEST_ASSERT_MSG_EQ(nakPsns.size(), 2, "two NAK frames on the receiver's wire");
        if (nakPsns.size() == 2)
        {
            NS_TEST_ASSERT_MSG_EQ(nakPsns[0], 0xFFFFFEu, "first NAK expects the first loss");
            NS_TEST_ASSERT_MSG_EQ(nakPsns[1], 0x000028u, "second NAK expects the second loss");
        }
        // Go-back-N on the sender's wire, PSNs unwrapped to a 64-bit sequence:
        // a retransmission restarts at the NAK's PSN and resends, in order,
        // every packet sent after it before the NAK arrived (the window in flight).
        std::vector<uint64_t> restartAt;
        uint64_t resent = 0;
        bool consecutive = true;
        uint64_t highest = 0;
        uint64_t prev = 0;
        for (std::size_t i = 0; i < sentPsns.size(); ++i)
        {
            uint64_t seq =
                i == 0 ? 0xFFFFF0
                       : prev + (((sentPsns[i] - uint32_t(prev)) + 0x800000) & 0xFFFFFF) - 0x800000;
            if (i > 0 && seq <= highest)
            {
                if (seq != prev + 1)
                {
                    restartAt.push_back(seq); // a go-back
                }
                ++resent;
            }
            else if (i > 0)
            {
                consecutive = consecutive && seq == highest + 1;
            }
            if (i > 0 && seq > prev + 1)
            {
                consecutive = false;
            }
            highest = std::max(highest, seq);
            prev = seq;
        }
        NS_TEST_ASSERT_MSG_EQ(consecutive, true, "PSNs on the wire never skip ahead");
        NS_TEST_ASSERT_MSG_EQ(restartAt.size(), 2, "one go-back per NAK");
        if (restartAt.size() == 2)
        {
            NS_TEST_ASSERT_MSG_EQ((restartAt[0] & 0xFFFFFF), 0xFFFFFEu, "restart at the lost PSN");
            NS_TEST_ASSERT_MSG_EQ((restartAt[1] & 0xFFFFFF), 0x000028u, "restart at the lost PSN");
        }
        NS_TEST_ASSERT_MSG_EQ(s->GetStats().retransmittedPackets,
                              resent,
                              "retransmissions = the packets in flight from each lost PSN");
        NS_TEST_ASSERT_MSG_GT(resent, 2, "go-back-N resent more than the lost packets");
        NS_TEST_ASSERT_MSG_EQ(sentPsns.size(), 21 + 40 + resent, "nothing else was sent");
        NS_TEST_ASSERT_MSG_EQ(rx.firstPsn, 0xFFFFF0u, "first PSN is InitialPsn");
        NS_TEST_ASSERT_MSG_EQ(rx.lastPsn, 0x2Cu, "last PSN after the wrap");
        NS_TEST_ASSERT_MSG_EQ(rx.wraps, 1, "the PSN wrapped once");
        NS_TEST_ASSERT_MSG_EQ(rx.outOfSequence, 0, "consecutive across the wrap");
        NS_TEST_ASSERT_MSG_EQ(rx.packets, 21 + 40, "each packet once");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, a + b, "every byte");
        NS_TEST_ASSERT_MSG_EQ(done.all.size(), 2, "two completions");
        if (done.all.size() != 2)
        {
            return; // reported above
        }
        NS_TEST_ASSERT_MSG_EQ(done.all[0].success, true, "the WRITE succeeds");
        NS_TEST_ASSERT_MSG_EQ(done.all[1].success, true, "the SEND succeeds");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * The two ends of a connection start at different PSNs: each receiver expects
 * its peer's first PSN, not its own.
 */
class RoceAsymmetricPsnTestCase : public TestCase
{
  public:
    RoceAsymmetricPsnTestCase()
        : TestCase("ends with different InitialPsn deliver in both directions")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer hosts(2);
        RoceHelper roce;
        NetDeviceContainer nics = roce.Install(hosts.Get(0), hosts.Get(1));
        Ptr<RoceNetDevice> na = DynamicCast<RoceNetDevice>(nics.Get(0));
        Ptr<RoceNetDevice> nb = DynamicCast<RoceNetDevice>(nics.Get(1));
        Ptr<RoceQueuePair> qa = CreateObject<RoceQueuePair>();
        Ptr<RoceQueuePair> qb = CreateObject<RoceQueuePair>();
        qa->SetAttribute("InitialPsn", UintegerValue(100));
        qb->SetAttribute("InitialPsn", UintegerValue(0xFFFFF0));
        uint32_t qpnA = na->AddQp(qa);
        uint32_t qpnB = nb->AddQp(qb);
        na->ConnectQp(qa, qpnB, nb->GetIpv4Address(), qb->GetInitialPsn());
        nb->ConnectQp(qb, qpnA, na->GetIpv4Address(), qa->GetInitialPsn());
        qa->PostWrite(50000);
        qb->PostWrite(70000);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(qb->GetStats().bytesDelivered, 50000, "a to b");
        NS_TEST_EXPECT_MSG_EQ(qa->GetStats().bytesDelivered, 70000, "b to a (across the PSN wrap)");
        NS_TEST_EXPECT_MSG_EQ(qa->GetStats().messagesCompleted, 1, "a's WRITE completed");
        NS_TEST_EXPECT_MSG_EQ(qb->GetStats().messagesCompleted, 1, "b's WRITE completed");
        NS_TEST_EXPECT_MSG_EQ(qa->GetStats().naksSent + qb->GetStats().naksSent, 0, "no NAK");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2
 * Tests of the RoCEv2 NIC and RC queue pairs on a two-host link.
 */
class Rocev2NicTestSuite : public TestSuite
{
  public:
    Rocev2NicTestSuite()
        : TestSuite("rocev2-nic", Type::UNIT)
    {
        AddTestCase(new RoceGoodputTestCase("100Gbps", 1024, 20000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceGoodputTestCase("100Gbps", 4096, 20000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceGoodputTestCase("400Gbps", 1024, 20000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceGoodputTestCase("400Gbps", 4096, 20000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceRandomLossTestCase("1e-3", 1e-3, 8000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceRandomLossTestCase("1e-2", 1e-2, 1000000), RoceTestDuration::QUICK);
        AddTestCase(new RoceTailLossTestCase(64 * 1024 + 100), RoceTestDuration::QUICK);
        AddTestCase(new RoceTailLossTestCase(100), RoceTestDuration::QUICK);
        AddTestCase(new RoceRetryExhaustionTestCase(), RoceTestDuration::QUICK);
        AddTestCase(new RocePsnWrapTestCase(), RoceTestDuration::QUICK);
        AddTestCase(new RoceAsymmetricPsnTestCase(), RoceTestDuration::QUICK);
        AddTestCase(new RoceQpOnNodesTestCase(), RoceTestDuration::QUICK);
    }
};

/// The suite's static instance.
static Rocev2NicTestSuite g_rocev2NicTestSuite;
