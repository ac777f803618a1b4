/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The NIC's transmit scheduler (RoceNicScheduler): round-robin fairness over
 * many queue pairs, pacing next to unpaced QPs, the gaps of a paced QP, a
 * rate rise while a QP waits for its pacing time; and the NIC-side Config
 * paths (QueuePairList, CongestionControl).
 */
#include "rocev2-nic-test-helpers.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/integer.h"
#include "ns3/roce-cc-dcqcn.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-ns3-compat.h"
#include "ns3/roce-switch-helper.h"
#include "ns3/string.h"

#include <cmath>
#include <cstring>
#include <sstream>

using namespace ns3;

namespace
{

const DataRate g_line("100Gbps");
constexpr uint32_t MTU = 1024;
/// Wire bytes of a full data packet: payload + headers, FCS, preamble and IFG.
constexpr uint32_t WIRE = MTU + RoceNetDevice::DATA_WIRE_OVERHEAD;

/**
 * \param dev a NIC
 * \param times receives the time each data frame starts on its wire (MacTx)
 */
void
RecordDataTx(Ptr<NetDevice> dev, std::vector<Time>* times)
{
    dev->TraceConnectWithoutContext("MacTx",
                                    Callback<void, Ptr<const Packet>>([times](Ptr<const Packet> p) {
                                        uint8_t op;
                                        uint32_t psn;
                                        if (ParseBth(p, op, psn) && RoceBthHeader::IsData(op))
                                        {
                                            times->push_back(Simulator::Now());
                                        }
                                    }));
}

} // namespace

namespace ns3
{

/**
 * \ingroup rocev2-tests
 * \brief A congestion control whose rate the test sets: no window, no reaction.
 */
class RoceTestRateCc : public RoceCongestionOps
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RoceTestRateCc")
                                .SetParent<RoceCongestionOps>()
                                .SetGroupName("Rocev2")
                                .AddConstructor<RoceTestRateCc>();
        return tid;
    }

    std::string GetName() const override
    {
        return "test-rate";
    }

    Ptr<RoceCongestionOps> Fork() override
    {
        return CopyObject<RoceTestRateCc>(this);
    }

    /** \param bps the new rate; a rise is announced the way a timer announces it */
    void SetRate(double bps)
    {
        double before = m_rate;
        m_rate = bps;
        if (bps > before)
        {
            NotifyRateRaised();
        }
    }
};

NS_OBJECT_ENSURE_REGISTERED(RoceTestRateCc);

} // namespace ns3

namespace
{

/**
 * \ingroup rocev2-tests
 * \brief 1,000 QPs of one NIC, all busy: each gets the same bytes within 1%.
 *
 * Round robin serves one packet per turn, so after any number of turns the
 * packet counts of the QPs differ by at most one, except that the first QP
 * sends its first packet alone, before the others are posted, and is one
 * turn ahead: |bytes_i - mean| <= 2 MTU. Running until each QP has sent about
 * 250 packets makes that <= 2/250 = 0.8% of the mean, inside the 1% the test
 * asks. The wire is never idle, so the sum is also line rate x time x MTU /
 * WIRE, within one packet per QP.
 */
class RoceRoundRobinFairnessTestCase : public TestCase
{
  public:
    RoceRoundRobinFairnessTestCase()
        : TestCase("1000 busy QPs of one NIC each send the mean bytes within 1%")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t nQps = 1000;
        const double packetsPerQp = 250;
        const double frame = WIRE * 8.0 / g_line.GetBitRate(); // seconds
        const Time stop = Seconds(frame * nQps * packetsPerQp);
        RoceHelper roce;
        TwoHosts h = MakeTwoHosts(roce, g_line, MTU);
        std::vector<Ptr<RoceQueuePair>> qps;
        for (uint32_t i = 0; i < nQps; ++i)
        {
            auto [s, r] = roce.CreateQp(h.sender, h.receiver);
            s->PostWrite(uint64_t(MTU) * 1000); // more than it can send before the stop
            qps.push_back(s);
        }
        Simulator::Stop(stop);
        Simulator::Run();
        double sum = 0;
        for (const auto& qp : qps)
        {
            sum += qp->GetStats().payloadBytesSent;
        }
        double mean = sum / nQps;
        NS_TEST_ASSERT_MSG_GT(mean, 200.0 * MTU, "too short a run for a 1% check");
        uint32_t outside = 0;
        for (const auto& qp : qps)
        {
            double b = qp->GetStats().payloadBytesSent;
            outside += std::fabs(b - mean) > 0.01 * mean;
            NS_TEST_EXPECT_MSG_LT_OR_EQ(std::fabs(b - mean),
                                        2.0 * MTU,
                                        "QP " << qp->GetQpn() << " is more than one turn off");
        }
        NS_TEST_ASSERT_MSG_EQ(outside, 0, "QPs outside 1% of the mean");
        // Line rate: stop / frame packets fit on the wire, +-1 per QP in flight at the stop.
        double expected = stop.GetSeconds() / frame * MTU;
        NS_TEST_ASSERT_MSG_EQ_TOL(sum, expected, double(nQps) * MTU, "the wire was idle");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2-tests
 * \brief A QP paced at 5 Gb/s next to an unpaced one: the paced QP gets
 * about its rate, the unpaced one the rest of the line.
 *
 * The paced QP's next packet is due gap = WIRE x 8 / R after its last one
 * left. When it is due the wire may be busy with one frame f, and the
 * unpaced QP, ahead of it in the ring, sends one more: it leaves at most 2f
 * late. Its rate is therefore in [R x gap / (gap + 2f), R] (R = 5 Gb/s:
 * gap = 1769.6 ns, f = 88.48 ns, so [0.909 R, R]). The wire never idles, so
 * the unpaced QP gets line - paced, within one packet.
 */
class RocePacedNextToUnpacedTestCase : public TestCase
{
  public:
    RocePacedNextToUnpacedTestCase()
        : TestCase("A QP paced at 5 Gbps gets its rate, an unpaced QP the rest of the line")
    {
    }

  private:
    void DoRun() override
    {
        const double rate = 5e9;
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceTestRateCc");
        TwoHosts h = MakeTwoHosts(roce, g_line, MTU);
        auto [paced, pr] = roce.CreateQp(h.sender, h.receiver);
        auto [unpaced, ur] = roce.CreateQp(h.sender, h.receiver);
        DynamicCast<RoceTestRateCc>(paced->GetCongestionControl())->SetRate(rate);
        paced->PostWrite(uint64_t(MTU) * 100000);
        unpaced->PostWrite(uint64_t(MTU) * 100000);
        const Time stop = MilliSeconds(1);
        Simulator::Stop(stop);
        Simulator::Run();

        const double gap = WIRE * 8.0 / rate;
        const double frame = WIRE * 8.0 / g_line.GetBitRate();
        double t = stop.GetSeconds();
        double pacedBytes = paced->GetStats().payloadBytesSent;
        double unpacedBytes = unpaced->GetStats().payloadBytesSent;
        double high = rate * t / 8 * MTU / WIRE + MTU; // one packet at the start
        double low = rate * gap / (gap + 2 * frame) * t / 8 * MTU / WIRE;
        NS_TEST_ASSERT_MSG_LT_OR_EQ(pacedBytes, high, "the paced QP exceeded its rate");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(pacedBytes, low, "the paced QP was starved below its rate");
        double line = g_line.GetBitRate() * t / 8 * MTU / WIRE;
        NS_TEST_ASSERT_MSG_EQ_TOL(unpacedBytes,
                                  line - pacedBytes,
                                  2.0 * MTU,
                                  "the unpaced QP did not fill the rest of the line");
        Simulator::Destroy();
    }
};

/**
 * \ingroup rocev2-tests
 * \brief A rate rise while a QP waits for its pacing time is honoured.
 *
 * At 1 Gb/s the QP's second packet is due WIRE x 8 / 1 Gb/s = 8.848 us after
 * the first. At 1 us its rate rises to the line rate: the second packet is
 * then due at first + WIRE x 8 / line = 88.5 ns, already past, so it must
 * leave at 1 us (the wire is idle), not at 8.848 us. A scheduler that keeps
 * the QP under its old heap key sends it at 8.848 us.
 */
class RoceRateRiseWhileWaitingTestCase : public TestCase
{
  public:
    RoceRateRiseWhileWaitingTestCase()
        : TestCase("A rate rise while a QP waits for its pacing time brings its packet forward")
    {
    }

  private:
    void DoRun() override
    {
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceTestRateCc");
        TwoHosts h = MakeTwoHosts(roce, g_line, MTU);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        Ptr<RoceTestRateCc> cc = DynamicCast<RoceTestRateCc>(s->GetCongestionControl());
        cc->SetRate(1e9);
        RecordDataTx(h.sender, &m_times);
        s->PostWrite(uint64_t(MTU) * 3);
        const Time rise = MicroSeconds(1);
        Simulator::Schedule(rise, &RoceTestRateCc::SetRate, cc, double(g_line.GetBitRate()));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_times.size(), 3, "three data packets");
        NS_TEST_ASSERT_MSG_EQ(m_times[0], Time(0), "the first leaves at once");
        NS_TEST_ASSERT_MSG_EQ(m_times[1], rise, "the second leaves when the rate rises");
        Time frame = FrameTime(g_line, MTU + DATA_FRAME_HEADERS);
        // The third follows at line rate: back to back, within the time step.
        NS_TEST_ASSERT_MSG_EQ_TOL(m_times[2], rise + frame, NanoSeconds(1), "third at line rate");
        Simulator::Destroy();
    }

    std::vector<Time> m_times;
};

/**
 * \ingroup rocev2-tests
 * \brief A QP paced at R puts its frames on the wire at R.
 *
 * Pacing spaces a QP's packets by their own wire time at its rate: a frame
 * of w wire bytes (frame, FCS, preamble and inter-frame gap) is followed by
 * the next one w x 8 / R later, so the wire carries exactly R. At 1 Gb/s and
 * MTU 1024 the first packet (it carries the 16-byte RETH) has
 * w = 1024 + 82 + 16 = 1122 bytes, 8,976 ns; the others 1106 bytes,
 * 8,848 ns. The line is 100 Gb/s, so every packet leaves when due; the
 * times are exact to the 1 ns the nanosecond rounding of one gap allows.
 * Counting the Ethernet header twice gives gaps of 9,088 and 8,960 ns.
 *
 * With another framing (RoceFrameWireOverhead o instead of Ethernet's 24)
 * a frame of f bytes takes f + o on the wire: with the HPCC simulator's
 * (o = -22) the gaps are 1,076 and 1,060 bytes, 8,608 and 8,480 ns, and the
 * receiver gets the first frame 1,076 x 8 / 100 Gb/s = 86.08 ns after the
 * sender starts it, plus the link's delay.
 */
class RocePacedGapTestCase : public TestCase
{
  public:
    /** \param overhead RoceFrameWireOverhead for the run */
    explicit RocePacedGapTestCase(int32_t overhead)
        : TestCase("A QP paced at 1 Gbps spaces its packets by their wire bytes at 1 Gbps, "
                   "with " +
                   std::to_string(overhead) + " wire bytes per frame beyond its size"),
          m_overhead(overhead)
    {
    }

  private:
    void DoRun() override
    {
        const double rate = 1e9;
        Config::SetGlobal("RoceFrameWireOverhead", IntegerValue(m_overhead));
        RoceHelper roce;
        roce.SetCongestionControl("ns3::RoceTestRateCc");
        TwoHosts h = MakeTwoHosts(roce, g_line, MTU);
        auto [s, r] = roce.CreateQp(h.sender, h.receiver);
        DynamicCast<RoceTestRateCc>(s->GetCongestionControl())->SetRate(rate);
        RecordDataTx(h.sender, &m_times);
        std::vector<Time> rx;
        h.receiver->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>(
                [&rx](Ptr<const Packet>) { rx.push_back(Simulator::Now()); }));
        s->PostWrite(uint64_t(MTU) * 4);
        Simulator::Run();
        Config::SetGlobal("RoceFrameWireOverhead",
                          IntegerValue(RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD));
        NS_TEST_ASSERT_MSG_EQ(m_times.size(), 4, "four data packets");
        const uint32_t reth = 16;
        // Frame bytes: payload, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4.
        const int32_t frame = MTU + 58;
        const Time first = Seconds((frame + reth + m_overhead) * 8.0 / g_line.GetBitRate());
        NS_TEST_ASSERT_MSG_EQ(rx.empty(), false, "the receiver got the frames");
        NS_TEST_EXPECT_MSG_EQ_TOL(rx[0] - m_times[0],
                                  first + g_delay,
                                  NanoSeconds(1),
                                  "the first frame's time on the line-rate wire");
        for (size_t k = 1; k < m_times.size(); ++k)
        {
            // the packet before the gap
            int32_t wire = frame + m_overhead + (k == 1 ? reth : 0);
            Time gap = Seconds(wire * 8.0 / rate);
            NS_TEST_EXPECT_MSG_EQ_TOL(m_times[k] - m_times[k - 1],
                                      gap,
                                      NanoSeconds(1),
                                      "gap " << k << " is not the wire bytes at the QP's rate");
        }
        Simulator::Destroy();
    }

    std::vector<Time> m_times;
    int32_t m_overhead; //!< RoceFrameWireOverhead
};

/// Key of one QP in Config context paths: node, device, QP slot.
std::string
QpKey(const std::string& context)
{
    // ".../NodeList/n/DeviceList/d/$ns3::RoceNetDevice/QueuePairList/q/CongestionControl/Rate"
    auto pos = context.find("/CongestionControl/");
    std::string head = context.substr(0, pos);
    std::string key;
    for (const char* part : {"/NodeList/", "/DeviceList/", "/QueuePairList/"})
    {
        auto p = head.find(part);
        if (p == std::string::npos)
        {
            return "";
        }
        p += std::strlen(part);
        key += head.substr(p, head.find('/', p) - p) + ".";
    }
    return key;
}

/**
 * \ingroup rocev2-tests
 * \brief Config paths reach every QP and every QP's congestion control.
 *
 * An 8:1 DCQCN incast through one switch (2 QPs on each of 4 senders): the
 * switch marks ECN, every sender QP gets CNPs and cuts its rate, so the Rate
 * trace connected on the wildcard path must fire for each of the 8 sender
 * QPs, and for no receiver QP (their rate never changes). Config::Set on a
 * QP attribute and on a CC attribute through the path must change every QP.
 */
class RoceConfigPathsTestCase : public TestCase
{
  public:
    RoceConfigPathsTestCase()
        : TestCase("Config paths reach every QP and its congestion control, on every NIC")
    {
    }

  private:
    void Rate(std::string context, double /* oldValue */, double /* newValue */)
    {
        m_seen.insert(QpKey(context));
    }

    void DoRun() override
    {
        const uint32_t senders = 4;
        const uint32_t qpsPerSender = 2;
        NodeContainer sw(1);
        NodeContainer hosts(senders + 1);
        RoceSwitchHelper switches;
        switches.SetMmuAttribute("BufferSize", StringValue("4MB"));
        switches.Install(sw);
        RoceHelper roce;
        roce.SetDeviceAttribute("DataRate", DataRateValue(g_line));
        roce.SetChannelAttribute("Delay", TimeValue(g_delay));
        roce.SetCongestionControl("dcqcn");
        std::vector<Ptr<RoceNetDevice>> nics;
        for (uint32_t i = 0; i < hosts.GetN(); ++i)
        {
            nics.push_back(
                DynamicCast<RoceNetDevice>(roce.Install(hosts.Get(i), sw.Get(0)).Get(0)));
        }
        RoceSwitchHelper::PopulateRoutes();
        std::set<std::string> senderQps;
        std::vector<Ptr<RoceQueuePair>> all;
        for (uint32_t i = 1; i <= senders; ++i)
        {
            for (uint32_t k = 0; k < qpsPerSender; ++k)
            {
                auto [s, r] = roce.CreateQp(nics[i], nics[0]);
                s->PostWrite(300000);
                std::ostringstream key;
                key << hosts.Get(i)->GetId() << "." << nics[i]->GetIfIndex() << "."
                    << s->GetQpn() - RoceNetDevice::FIRST_QPN << ".";
                senderQps.insert(key.str());
                all.push_back(s);
                all.push_back(r);
            }
        }
        const std::string qpList = "/NodeList/*/DeviceList/*/$ns3::RoceNetDevice/QueuePairList/*";
        Config::Connect(qpList + "/CongestionControl/Rate",
                        MakeCallback(&RoceConfigPathsTestCase::Rate, this));
        Config::Set(qpList + "/RetryCount", UintegerValue(3));
        Config::Set(qpList + "/CongestionControl/$ns3::RoceCcDcqcn/RateAi",
                    DataRateValue(DataRate("7Mbps")));
        for (const auto& qp : all)
        {
            UintegerValue retry;
            qp->GetAttribute("RetryCount", retry);
            NS_TEST_EXPECT_MSG_EQ(retry.Get(), 3, "Config::Set missed QP " << qp->GetQpn());
            DataRateValue ai;
            qp->GetCongestionControl()->GetAttribute("RateAi", ai);
            NS_TEST_EXPECT_MSG_EQ(ai.Get(), DataRate("7Mbps"), "Config::Set missed a CC");
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_seen.size(),
                              senders * qpsPerSender,
                              "the Rate trace fired on other than the sender QPs");
        NS_TEST_ASSERT_MSG_EQ((m_seen == senderQps), true, "the Rate trace missed a sender QP");
        Simulator::Destroy();
    }

    std::set<std::string> m_seen;
};

/**
 * \ingroup rocev2-tests
 * \brief RoceHelper::FindNic (the address lookup CreateQp(nic, address)
 * uses) returns the NIC that has the address now: after a NIC is
 * re-addressed, and after a simulation is destroyed and another built.
 */
class RoceFindNicTestCase : public TestCase
{
  public:
    RoceFindNicTestCase()
        : TestCase("FindNic finds every NIC by address, also re-addressed and rebuilt")
    {
    }

  private:
    /**
     * \brief Build hosts in pairs, check every address, then re-address one.
     * \param pairs the number of host pairs (links)
     */
    void Check(uint32_t pairs)
    {
        RoceHelper roce;
        NodeContainer hosts(2 * pairs);
        std::vector<Ptr<RoceNetDevice>> nics;
        for (uint32_t i = 0; i < pairs; ++i)
        {
            NetDeviceContainer d = roce.Install(hosts.Get(2 * i), hosts.Get(2 * i + 1));
            nics.push_back(DynamicCast<RoceNetDevice>(d.Get(0)));
            nics.push_back(DynamicCast<RoceNetDevice>(d.Get(1)));
        }
        for (const auto& nic : nics)
        {
            NS_TEST_ASSERT_MSG_EQ(RoceHelper::FindNic(nic->GetIpv4Address()),
                                  nic,
                                  "wrong NIC for " << nic->GetIpv4Address());
        }
        Ipv4Address moved("10.200.0.1");
        Ipv4Address old = nics.back()->GetIpv4Address();
        nics.back()->SetIpv4Address(moved);
        NS_TEST_ASSERT_MSG_EQ(RoceHelper::FindNic(old), nullptr, "its old address");
        NS_TEST_ASSERT_MSG_EQ(RoceHelper::FindNic(moved), nics.back(), "re-addressed NIC");
        auto [qp, remote] = roce.CreateQp(nics.front(), moved);
        NS_TEST_ASSERT_MSG_EQ(remote->GetNic(), nics.back(), "CreateQp by address");
        Simulator::Destroy();
    }

    void DoRun() override
    {
        Check(4);
        // A new simulation in the same process: NodeList ids and addresses are
        // reused for other objects; nothing stale may come back.
        Check(3);
    }
};

/**
 * \ingroup rocev2-tests
 * \brief The NIC scheduler and NIC-side Config paths.
 */
class Rocev2NicSchedulerTestSuite : public TestSuite
{
  public:
    Rocev2NicSchedulerTestSuite()
        : TestSuite("rocev2-nic-scheduler", Type::UNIT)
    {
        AddTestCase(new RoceRateRiseWhileWaitingTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RocePacedNextToUnpacedTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RocePacedGapTestCase(RocePfcNetDevice::ETHERNET_WIRE_OVERHEAD),
                    RoceTestDuration::QUICK);
        AddTestCase(new RocePacedGapTestCase(-22), RoceTestDuration::QUICK); // HPCC simulator's
        AddTestCase(new RoceConfigPathsTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceFindNicTestCase, RoceTestDuration::QUICK);
        AddTestCase(new RoceRoundRobinFairnessTestCase, RoceTestDuration::EXTENSIVE);
    }
};

/// The suite's static instance.
Rocev2NicSchedulerTestSuite g_rocev2NicSchedulerTestSuite;

} // namespace
