/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/mac48-address.h"
#include "ns3/node-container.h"
#include "ns3/pfc-header.h"
#include "ns3/pointer.h"
#include "ns3/queue-size.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-bth-header.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup rocev2
 * Tests of the RoCEv2 NIC and its RC queue pairs on a two-host link: goodput
 * against the wire formula, recovery from random and tail loss, PSN wrap,
 * retry exhaustion, PFC pause honouring, slow-receiver back-pressure, ACK
 * coalescing and message ordering.
 */

using namespace ns3;

namespace
{

/// Propagation delay of every test link.
const Time g_delay = MicroSeconds(1);

/// Bytes of a data frame beyond its payload, without FCS: Ethernet, IPv4, UDP, BTH, ICRC.
constexpr uint32_t DATA_FRAME_HEADERS = 14 + 20 + 8 + 12 + 4;

/// Bytes of an ACK frame without FCS: Ethernet, IPv4, UDP, BTH, AETH, ICRC.
constexpr uint32_t ACK_FRAME_BYTES = 14 + 20 + 8 + 12 + 4 + 4;

/// Offset of the BTH in a RoCEv2 frame.
constexpr uint32_t BTH_OFFSET = RoceFrame::ETH_BYTES + RoceFrame::IPV4_BYTES + RoceFrame::UDP_BYTES;

/**
 * \param rate a line rate
 * \param frameBytes a frame's size without FCS
 * \return its serialization time, padding, FCS, preamble and IFG included
 */
Time
FrameTime(DataRate rate, uint32_t frameBytes)
{
    return Seconds(PfcNetDevice::WireBytes(frameBytes) * 8.0 / rate.GetBitRate());
}

/**
 * \param quanta PFC pause quanta
 * \param rate the line rate
 * \return the pause time (one quantum is 512 bit times)
 */
Time
PauseTime(uint16_t quanta, DataRate rate)
{
    return Seconds(quanta * 512.0 / rate.GetBitRate());
}

/**
 * \param p a frame
 * \param[out] opcode its BTH opcode
 * \param[out] psn its BTH PSN
 * \return true if p is a RoCEv2 frame
 */
bool
ParseBth(Ptr<const Packet> p, uint8_t& opcode, uint32_t& psn)
{
    RoceFrame f = RoceFrame::Parse(*p);
    if (!f.isRoce)
    {
        return false;
    }
    uint8_t b[RoceFrame::HEADER_BYTES];
    p->CopyData(b, RoceFrame::HEADER_BYTES);
    opcode = f.opcode;
    psn = (uint32_t(b[BTH_OFFSET + 9]) << 16) | (uint32_t(b[BTH_OFFSET + 10]) << 8) |
          b[BTH_OFFSET + 11];
    return true;
}

/// Two hosts joined by one link, host 0 sending to host 1.
struct TwoHosts
{
    NodeContainer nodes;         //!< the hosts
    Ptr<RoceNetDevice> sender;   //!< host 0's NIC
    Ptr<RoceNetDevice> receiver; //!< host 1's NIC
};

/**
 * \brief Join two new hosts with a link configured by a helper.
 * \param roce the helper, with any extra attributes already set
 * \param rate the line rate
 * \param mtu the RoCE payload MTU
 * \return the hosts and their NICs
 */
TwoHosts
MakeTwoHosts(RoceHelper& roce, DataRate rate, uint32_t mtu)
{
    roce.SetDeviceAttribute("DataRate", DataRateValue(rate));
    roce.SetNicAttribute("PayloadMtu", UintegerValue(mtu));
    roce.SetChannelAttribute("Delay", TimeValue(g_delay));
    TwoHosts h;
    h.nodes.Create(2);
    NetDeviceContainer d = roce.Install(h.nodes.Get(0), h.nodes.Get(1));
    h.sender = DynamicCast<RoceNetDevice>(d.Get(0));
    h.receiver = DynamicCast<RoceNetDevice>(d.Get(1));
    return h;
}

/**
 * \brief Records a receiver QP's in-order deliveries ("Deliver" trace) and
 * checks that PSNs follow one another in the 24-bit space, with no repeat.
 */
class DeliveryLog
{
  public:
    /** \param qp the receiving queue pair */
    void Attach(Ptr<RoceQueuePair> qp)
    {
        qp->TraceConnectWithoutContext("Deliver", MakeCallback(&DeliveryLog::Deliver, this));
    }

    /** \param psn the PSN accepted \param bytes its payload */
    void Deliver(uint32_t psn, uint32_t bytes)
    {
        Time now = Simulator::Now();
        if (packets == 0)
        {
            firstPsn = psn;
            firstTime = now;
            firstBytes = bytes;
        }
        else
        {
            if (psn != ((lastPsn + 1) & 0xFFFFFF))
            {
                ++outOfSequence;
            }
            if (psn < lastPsn)
            {
                ++wraps;
            }
        }
        lastPsn = psn;
        lastTime = now;
        ++packets;
        this->bytes += bytes;
    }

    uint64_t packets{0};       //!< packets delivered
    uint64_t bytes{0};         //!< payload bytes delivered
    uint64_t outOfSequence{0}; //!< deliveries whose PSN does not follow the previous one
    uint64_t wraps{0};         //!< times the PSN went from 2^24-1 back to 0
    uint32_t firstPsn{0};      //!< PSN of the first delivery
    uint32_t lastPsn{0};       //!< PSN of the last delivery
    uint32_t firstBytes{0};    //!< payload of the first delivery
    Time firstTime;            //!< time of the first delivery
    Time lastTime;             //!< time of the last delivery
};

/// Records completions, from the callbacks given to PostWrite/PostSend.
class CompletionLog
{
  public:
    /** \return a callback that appends to this log */
    RoceQueuePair::CompletionCallback Callback()
    {
        return MakeCallback(&CompletionLog::Complete, this);
    }

    /** \param c a completion */
    void Complete(const RoceCompletion& c)
    {
        all.push_back(c);
    }

    std::vector<RoceCompletion> all; //!< completions, in the order they fired
};

/// Counts a device's drops by reason ("Drop" trace).
class DropLog
{
  public:
    /** \param dev the device */
    void Attach(Ptr<PfcNetDevice> dev)
    {
        dev->TraceConnectWithoutContext("Drop", MakeCallback(&DropLog::Drop, this));
    }

    /** \param p the frame \param reason why */
    void Drop(Ptr<const Packet> /* p */, const char* reason)
    {
        ++byReason[reason];
        ++total;
    }

    /**
     * \param reason a drop reason
     * \return drops with that reason
     */
    uint64_t Count(const std::string& reason) const
    {
        auto it = byReason.find(reason);
        return it == byReason.end() ? 0 : it->second;
    }

    std::map<std::string, uint64_t> byReason; //!< drops per reason
    uint64_t total{0};                        //!< all drops
};

/**
 * \brief Set a packet-loss RateErrorModel on a device, on a fixed random stream.
 * \param dev the receiving device
 * \param rate loss probability per frame
 * \param stream the random stream
 */
void
SetLoss(Ptr<NetDevice> dev, double rate, int64_t stream)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(rate);
    em->AssignStreams(stream);
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
}

/**
 * \brief Destroys the simulator when a test case returns, also on an early
 * return from a failed NS_TEST_ASSERT, so the next case starts clean.
 */
class SimulatorGuard
{
  public:
    ~SimulatorGuard()
    {
        Simulator::Destroy();
    }
};

/// Restores the global seed and run number when a test case ends.
class SeedGuard
{
  public:
    /** \param seed the seed to use \param run the run to use */
    SeedGuard(uint32_t seed, uint64_t run)
        : m_seed(RngSeedManager::GetSeed()),
          m_run(RngSeedManager::GetRun())
    {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(run);
    }

    ~SeedGuard()
    {
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
    }

  private:
    uint32_t m_seed; //!< seed to restore
    uint64_t m_run;  //!< run to restore
};

} // namespace

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
        NS_TEST_ASSERT_MSG_GT(rxDrops.Count(PfcNetDevice::DROP_RX_ERROR), 0, "data frames lost");
        NS_TEST_ASSERT_MSG_GT(txDrops.Count(PfcNetDevice::DROP_RX_ERROR), 0, "ACKs lost");
        NS_TEST_ASSERT_MSG_GT(s->GetStats().retransmittedPackets, 0, "retransmissions");
        // NAKs: the receiver sends one when a data loss opens a PSN gap, and
        // no more until the gap is filled, so there are at most as many as
        // frames lost on its side (a lost tail needs none); the sender gets
        // all but those lost on its side.
        uint64_t naksSent = r->GetStats().naksSent;
        uint64_t naksReceived = s->GetStats().naksReceived;
        NS_TEST_ASSERT_MSG_GT(naksSent, 0, "losses were reported by NAKs");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksSent,
                                    rxDrops.Count(PfcNetDevice::DROP_RX_ERROR),
                                    "at most one NAK per data loss");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksReceived, naksSent, "no NAK from nowhere");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(naksSent - naksReceived,
                                    txDrops.Count(PfcNetDevice::DROP_RX_ERROR),
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
        PfcHeader pfc;
        pfc.SetPause(priority, quanta);
        p->AddHeader(pfc);
        EthernetHeader eth(false);
        eth.SetSource(Mac48Address("02:00:00:00:00:99"));
        eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
        eth.SetLengthType(PfcHeader::ETHERTYPE);
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
        Simulator::Schedule(t3, &PfcNetDevice::SetXoff, h.receiver, 3, true);
        Simulator::Schedule(t4, &PfcNetDevice::SetXoff, h.receiver, 3, false);
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
            PfcNetDevice::WireBytes(m_mtu + DATA_FRAME_HEADERS) * 8.0 / m_rate.GetBitRate();
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
        Time pfcFrame = FrameTime(m_rate, PfcNetDevice::MIN_FRAME_BYTES);
        Time ackFrame = FrameTime(m_rate, ACK_FRAME_BYTES);
        NS_TEST_ASSERT_MSG_EQ_TOL(xoffRx - t3,
                                  g_delay + pfcFrame + ackFrame / 2,
                                  ackFrame / 2 + NanoSeconds(1),
                                  "XOFF reaches the sender one PFC frame and one delay later");
        NS_TEST_ASSERT_MSG_EQ(CountTx(3, xoffRx, xonRx), 0, "silent, no gap at refreshes");
        NS_TEST_ASSERT_MSG_LT(FirstTxAfter(3, xonRx),
                              xonRx + frame + NanoSeconds(1),
                              "priority 3 resumes at the XON");

        PfcNetDevice::PfcStats st = h.sender->GetPfcStats();
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

        PfcNetDevice::PfcStats rxPfc = h.receiver->GetPfcStats();
        PfcNetDevice::PfcStats txPfc = h.sender->GetPfcStats();
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
        : TestSuite("rocev2-nic", UNIT)
    {
        AddTestCase(new RoceGoodputTestCase("100Gbps", 1024, 20000000), TestCase::QUICK);
        AddTestCase(new RoceGoodputTestCase("100Gbps", 4096, 20000000), TestCase::QUICK);
        AddTestCase(new RoceGoodputTestCase("400Gbps", 1024, 20000000), TestCase::QUICK);
        AddTestCase(new RoceGoodputTestCase("400Gbps", 4096, 20000000), TestCase::QUICK);
        AddTestCase(new RoceRandomLossTestCase("1e-3", 1e-3, 8000000), TestCase::QUICK);
        AddTestCase(new RoceRandomLossTestCase("1e-2", 1e-2, 1000000), TestCase::QUICK);
        AddTestCase(new RoceTailLossTestCase(64 * 1024 + 100), TestCase::QUICK);
        AddTestCase(new RoceTailLossTestCase(100), TestCase::QUICK);
        AddTestCase(new RocePfcPauseTestCase("100Gbps", 1000, 1024), TestCase::QUICK);
        AddTestCase(new RoceRetryExhaustionTestCase(), TestCase::QUICK);
        AddTestCase(new RocePsnWrapTestCase(), TestCase::QUICK);
        AddTestCase(new RoceSlowReceiverTestCase(), TestCase::QUICK);
        AddTestCase(new RoceAckCoalescingTestCase(), TestCase::QUICK);
        AddTestCase(new RoceMessageOrderTestCase(), TestCase::QUICK);
        AddTestCase(new RoceAsymmetricPsnTestCase(), TestCase::QUICK);
        // The largest pause (0xFFFF quanta: 83.9 us at 400G) last: the runner
        // stops a suite at its first failed case.
        AddTestCase(new RocePfcPauseTestCase("400Gbps", 0xFFFF, 4096), TestCase::QUICK);
    }
};

/// The suite's static instance.
static Rocev2NicTestSuite g_rocev2NicTestSuite;
